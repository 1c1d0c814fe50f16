// Plan search: feasibility rules, ranking, and the published Megatron plans.
#include "gpucalc/catalog.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/scenario_parse.hpp"
#include "gpucalc/training.hpp"
#include "helpers.hpp"

using namespace gpucalc;
using nlohmann::json;

TEST_CASE("plan search: counts, rejection reasons, ranking, every returned plan valid") {
    json s = {{"model", {{"preset", "gpt3-175b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
              {"training", {{"global_batch", 1536}, {"tokens", 300e9}}}};
    auto r = json::parse(plan_json(s.dump()));
    REQUIRE_FALSE(r.contains("errors"));
    const auto& p = r["plan"];
    CHECK(p["considered"].get<double>() > 10000);
    CHECK(p["feasible"].get<double>() > 0);
    CHECK(p["rejected"]["out_of_memory"].get<double>() > 0);
    CHECK(p["rejected"]["indivisible"].get<double>() > 0);
    CHECK(p["considered"].get<double>() ==
          p["feasible"].get<double>() + p["rejected"]["out_of_memory"].get<double>() + p["rejected"]["indivisible"].get<double>());
    const auto& best = p["best"];
    REQUIRE(best.size() == 10);
    for (std::size_t i = 0; i < best.size(); ++i) {
        const auto& b = best[i];
        CHECK(b["tp"].get<double>() * b["pp"].get<double>() * b["dp"].get<double>() == 1024);
        CHECK(b["memory_per_gpu_bytes"].get<double>() <= 80e9);
        CHECK(b["pp"].get<double>() * b["vpp"].get<double>() <= 96 + 2);  // uneven stages, a layer (or embedding/loss) per chunk
        CHECK(!(b["zero"].get<double>() >= 2 && b["pp"].get<double>() > 1));
        if (i > 0) CHECK(b["tokens_per_second"].get<double>() <= best[i - 1]["tokens_per_second"].get<double>());
    }
    // The best plan's configuration, evaluated through the forward estimator, gives the same step time.
    json fwd = s;
    for (const char* k : {"tp", "pp", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel", "overlap_dp_comm"})
        fwd["training"][k] = best[0][k];
    auto e = run(fwd);
    CHECK(e["training"]["step_seconds"].get<double>() == Approx(best[0]["step_seconds"].get<double>()));
    CHECK(e["training"]["fits"] == true);
}

TEST_CASE("published Megatron 2021 layouts: search is at least as fast and ranks them in the top 10 layouts") {
    struct Row {
        const char* preset;
        double tp, pp, n, gb;
    };
    const Row rows[] = {{"megatron-18b", 8, 1, 256, 1024},
                        {"megatron-39b", 8, 2, 512, 1536},
                        {"megatron-76b", 8, 4, 1024, 1792},
                        {"megatron-145b", 8, 8, 1536, 2304},
                        {"megatron-310b", 8, 16, 1920, 2160}};
    for (const auto& row : rows) {
        INFO(row.preset);
        // The search within what Megatron-LM offered in 2021 (its framework profile, no ZeRO): with
        // ZeRO or Megatron-Core's overlaps other layouts win, which is not what this row tests.
        json s = {{"model", {{"preset", row.preset}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", row.n}}},
                  {"training",
                   {{"framework", "megatron-legacy"},
                    {"zero", 0},
                    {"global_batch", row.gb},
                    {"attention", "materialized"},
                    {"precision", "fp16"}}}};
        auto r = json::parse(plan_json(s.dump()));
        json pub = s;
        pub["training"]["recompute"] = "full";
        REQUIRE_FALSE(r.contains("errors"));
        pub["training"]["tp"] = row.tp;
        pub["training"]["pp"] = row.pp;
        pub["training"]["zero"] = 0;
        pub["training"]["sequence_parallel"] = false;
        pub["training"]["overlap_dp_comm"] = false;
        const double published = run(pub)["training"]["step_seconds"].get<double>();
        CHECK(r["plan"]["best"][0]["step_seconds"].get<double>() <= published);
        const auto& layouts = r["plan"]["best_per_layout"];
        bool found = false;
        for (std::size_t i = 0; i < layouts.size() && i < 10; ++i)
            if (layouts[i]["tp"] == row.tp && layouts[i]["pp"] == row.pp) found = true;
        CHECK(found);
    }
}

namespace {
Scenario scenario_of(const json& j) {
    Scenario s;
    Errors errors;
    REQUIRE(parse_scenario(from_nlohmann(j), s, errors, gpucalc::LayoutCheck::search));
    REQUIRE(errors.empty());
    REQUIRE(s.model);
    REQUIRE(s.hardware);
    REQUIRE(s.training);
    return s;
}

// A best-only search (b) against the full one (a): the same plans counted (sized, or skipped by the
// bound) and the same best plan.
void check_same_search(const PlanResult& a, const PlanResult& b) {
    CHECK(a.considered == b.considered);
    CHECK(a.rejected_indivisible == b.rejected_indivisible);
    CHECK(a.feasible + a.rejected_out_of_memory == b.feasible + b.rejected_out_of_memory + b.skipped_by_bound);
    REQUIRE(a.best.size() == b.best.size());
    if (a.best.empty()) return;
    CHECK(a.best[0].tokens_per_second == b.best[0].tokens_per_second);
    CHECK(a.best[0].config.tp == b.best[0].config.tp);
    CHECK(a.best[0].config.pp == b.best[0].config.pp);
    CHECK(a.best[0].config.vpp == b.best[0].config.vpp);
    CHECK(a.best[0].config.micro_batch == b.best[0].config.micro_batch);
    CHECK(a.best[0].config.zero == b.best[0].config.zero);
    CHECK(a.best[0].config.recompute == b.best[0].config.recompute);
}
}  // namespace

TEST_CASE("the step-time lower bound, expert all-to-all included, never exceeds an MoE plan's step time") {
    // Every layout's best plan of two MoE searches: the all-to-all exposed whole, and under the
    // combined 1F1B schedule (its steady state hides part of it; the bubble keeps it whole).
    for (const json& training : {json::object(), json{{"overlap_moe_comm", true}}}) {
        INFO(training.dump());
        const Scenario s = scenario_of({{"model", {{"preset", "qwen3-235b-a22b"}}},
                                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
                                        {"training", training}});
        const PlanResult r = search_plans(*s.model, *s.hardware, *s.training, PlanOptions{});
        REQUIRE(r.best_per_layout.size() > 3);
        const TrainingModel tm = training_model(*s.model);
        int with_ep = 0;
        for (const Plan& p : r.best_per_layout) {
            const Efficiency eff = training_efficiency(p.config, s.hardware->device);
            const double lb = step_seconds_lower_bound(tm.in, *s.hardware, p.config, eff, network_levels(*s.hardware));
            CHECK(lb > 0);
            CHECK(lb <= p.step_seconds);
            with_ep += p.config.ep > 1;
        }
        CHECK(with_ep > 3);
    }
}

TEST_CASE("the step-time lower bound never exceeds the step time of any plan the search times") {
    const json trainings[] = {json::object(), {{"dualpipe", true}}};  // DualPipe: a bubble of its own (DeepSeek-V3 Sec. 3.2.1)
    // One site; 4 sites on a 10 Gb/s WAN; every node its own site on 1 Gb/s (stages across sites add WAN terms).
    const json hardwares[] = {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}},
                              {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}, {"sites", 4}, {"wan", "wan-10g"}},
                              {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}, {"network", "internet-1g"}}};
    for (const char* preset : {"gpt3-175b", "llama3-70b", "mixtral-8x7b"})
        for (const json& training : trainings)
            for (const json& hardware : hardwares) {
                INFO(preset << " " << training.dump() << " " << hardware.dump());
                const Scenario s = scenario_of({{"model", {{"preset", preset}}}, {"hardware", hardware}, {"training", training}});
                const PlanResult r = search_plans(*s.model, *s.hardware, *s.training, PlanOptions{});
                REQUIRE(r.best_per_layout.size() > 3);
                const TrainingModel tm = training_model(*s.model);
                for (const Plan& p : r.best_per_layout) {
                    const Efficiency eff = training_efficiency(p.config, s.hardware->device);
                    const double lb = step_seconds_lower_bound(tm.in, *s.hardware, p.config, eff, network_levels(*s.hardware));
                    CHECK(lb > 0);
                    CHECK(lb <= p.step_seconds);
                }
            }
}

TEST_CASE(
    "a best-only search (automatic layouts) skips plans by their lower bound and finds the same best plan, and the same least-memory "
    "layout when none fits") {
    const json scenarios[] = {
        {{"model", {{"preset", "gpt3-175b"}}},
         {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
         {"training", json::object()}},
        {{"model", {{"preset", "llama3-70b"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
         {"training", json::object()}},
        {{"model", {{"preset", "mixtral-8x7b"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 128}}},
         {"training", json::object()}},
        {{"model", {{"preset", "deepseek-v3"}}},
         {"hardware", {{"device", "nvidia-h800-sxm5-80gb"}, {"count", 2048}}},
         {"training", {{"dualpipe", true}, {"precision", "fp8"}}}},
        // MoE with the all-to-all in the bound (exposed whole, or less what the combined 1F1B schedule hides).
        {{"model", {{"preset", "deepseek-v3"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}}},
         {"training", json::object()}},
        {{"model", {{"preset", "qwen3-235b-a22b"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 512}}},
         {"training", {{"overlap_moe_comm", true}}}},
        // Stages and replicas across sites: every node its own site on a 1 Gb/s link (io.net), and 4 sites joined by a WAN.
        {{"model", {{"preset", "llama2-13b"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}, {"network", "internet-1g"}}},
         {"training", {{"tokens", 2.6e11}, {"local_steps", 100}, {"global_batch", 16000}}}},
        {{"model", {{"preset", "llama3-70b"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 512}, {"sites", 4}, {"wan", "wan-10g"}}},
         {"training", json::object()}},
        // Whole layouts counted out by their largest micro-batch's floor (plan.cpp layout_loses): MoE in
        // FP8, and a 32K context (context parallelism searched). A sweep (11 presets, H100 and A100 40GB,
        // 8 to 1,024 GPUs, 4K to 128K tokens, FP8, combined 1F1B; over 500 scenarios) found the same plan too.
        {{"model", {{"preset", "gpt-oss-120b"}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
         {"training", {{"precision", "fp8"}}}},
        {{"model", {{"preset", "llama3-70b"}, {"seq_len", 32768}}},
         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
         {"training", json::object()}},
        // Without interleaving the batch rounds to another granule than with it (510 sequences at vpp 1,
        // 520 at vpp 8): the floor taken at the largest interleaving skipped the full search's best plan
        // (a red-team find; 6 of 2,240 scenarios swept, L40S / A100 40GB / B200, FSDP, unfused attention).
        {{"model", {{"preset", "llama3-8b"}}},
         {"hardware", {{"device", "nvidia-b200"}, {"count", 20}}},
         {"training", {{"framework", "fsdp"}, {"attention", "materialized"}, {"micro_batch", 2}}}},
        {{"model", {{"preset", "llama3-70b"}}},
         {"hardware", {{"device", "nvidia-a100-sxm4-40gb"}, {"count", 96}}},
         {"training", {{"framework", "megatron-legacy"}}}},
        // Nothing fits: the least-memory layout is the answer.
        {{"model", {{"preset", "llama3.1-405b"}}},
         {"hardware", {{"device", "nvidia-a100-sxm4-40gb"}, {"count", 8}}},
         {"training", json::object()}}};
    for (const json& j : scenarios) {
        INFO(j.dump());
        const Scenario s = scenario_of(j);
        PlanOptions full;
        full.top_k = 1;
        PlanOptions best_only = full;
        best_only.best_only = true;
        const PlanResult a = search_plans(*s.model, *s.hardware, *s.training, full);
        const PlanResult b = search_plans(*s.model, *s.hardware, *s.training, best_only);
        check_same_search(a, b);
        // The least-memory layout is the answer when nothing fits: then it is the full search's.
        if (a.best.empty()) {
            REQUIRE(a.least_memory.has_value() == b.least_memory.has_value());
            if (a.least_memory) CHECK(a.least_memory->memory_per_gpu_bytes == b.least_memory->memory_per_gpu_bytes);
        }
    }
}

// plan.cpp layout_loses bounds a whole layout by the floor of its largest micro-batch: it holds if a
// micro-batch's floor time per sample never grows with the micro-batch. Dense, MoE (with and without
// expert parallelism, with the combined 1F1B schedule at its most hidden), GQA with context
// parallelism at 32K tokens, FP8, unfused attention, every recomputation and SP choice, on H100 and
// A100, micro-batches 1 to 16.
TEST_CASE("a micro-batch's step-time floor per sample never grows with the micro-batch (the plan search's layout bound)") {
    struct Case {
        json model, training;
        const char* device;
        Count count, tp, cp, pp, ep;
    };
    const Case cases[] = {{{{"preset", "gpt3-175b"}}, json::object(), "nvidia-a100-sxm4-80gb", 1024, 8, 1, 8, 1},
                          {{{"preset", "llama3-70b"}, {"seq_len", 32768}}, json::object(), "nvidia-h100-sxm5-80gb", 256, 8, 4, 2, 1},
                          {{{"preset", "llama3-8b"}}, {{"precision", "fp8"}}, "nvidia-h100-sxm5-80gb", 64, 1, 1, 1, 1},
                          {{{"preset", "llama2-13b"}}, {{"attention", "materialized"}}, "nvidia-a100-sxm4-80gb", 64, 2, 1, 2, 1},
                          {{{"preset", "mixtral-8x7b"}}, json::object(), "nvidia-h100-sxm5-80gb", 128, 2, 1, 4, 8},
                          {{{"preset", "mixtral-8x7b"}}, json::object(), "nvidia-h100-sxm5-80gb", 128, 1, 1, 1, 1},
                          {{{"preset", "deepseek-v3"}}, {{"precision", "fp8"}}, "nvidia-h100-sxm5-80gb", 1024, 1, 1, 16, 64},
                          {{{"preset", "qwen3-235b-a22b"}}, json::object(), "nvidia-h100-sxm5-80gb", 512, 4, 1, 8, 16},
                          {{{"preset", "qwen3-235b-a22b"}}, {{"overlap_moe_comm", true}}, "nvidia-h100-sxm5-80gb", 512, 2, 1, 8, 32},
                          {{{"preset", "mixtral-8x7b"}}, {{"overlap_moe_comm", true}}, "nvidia-h100-sxm5-80gb", 64, 1, 1, 1, 8}};
    int checked = 0;
    for (const Case& k : cases) {
        const Scenario s =
            scenario_of({{"model", k.model}, {"hardware", {{"device", k.device}, {"count", k.count}}}, {"training", k.training}});
        const TrainingModel tm = training_model(*s.model);
        const NetworkLevels net = network_levels(*s.hardware);
        for (Count rc = 0; rc < 3; ++rc)
            for (bool sp : {false, true}) {
                double previous = 0;                                               // the last micro-batch's floor time per sample
                if (rc == 2 && k.training.contains("overlap_moe_comm")) continue;  // combined 1F1B: no full recomputation
                for (Count mb = 1; mb <= 16; ++mb) {
                    TrainingConfig c = *s.training;
                    c.tp = k.tp, c.cp = k.cp, c.pp = k.pp, c.ep = k.ep, c.dp = k.count / (k.tp * k.cp * k.pp), c.micro_batch = mb;
                    c.global_batch = *c.dp * mb * 8, c.recompute = static_cast<Recompute>(rc), c.sequence_parallel = sp && k.tp > 1;
                    const Efficiency eff = training_efficiency(c, s.hardware->device);
                    const StepFloor f = step_floor(tm.in, *s.hardware, c, eff, net);
                    const double per_sample = f.t_mb_least / static_cast<double>(mb);
                    CHECK(f.t_mb_least <= f.t_mb);  // the combined 1F1B schedule's most hidden: below every m and interleaving
                    INFO(k.model.dump() << " rc " << rc << " sp " << sp << " mb " << mb);
                    REQUIRE(per_sample > 0);
                    if (mb > 1) CHECK(per_sample <= previous * (1.0 + 1e-12));
                    previous = per_sample;
                    checked += 1;
                }
            }
    }
    CHECK(checked == (8 * 3 + 2 * 2) * 2 * 16);
}

TEST_CASE("a best-only search skips a layout's interleavings by the bound at the largest one and still finds the full search's plan") {
    // The pools of the mixed-fleet fixture searched alone, holding DiLoCo's outer state (fleet.cpp,
    // pools_alone): one site, so the bound at the largest interleaving settles every smaller one.
    for (const auto& [device, count] : {std::pair<const char*, int>{"nvidia-h100-sxm5-80gb", 600}, {"nvidia-a100-sxm4-80gb", 400}}) {
        INFO(device);
        Scenario s = scenario_of(
            {{"model", {{"preset", "llama2-70b"}}}, {"hardware", {{"device", device}, {"count", count}}}, {"training", json::object()}});
        s.training->outer_state = true;
        PlanOptions full;
        full.top_k = 1;
        full.max_vpp = 8;
        PlanOptions best_only = full;
        best_only.best_only = true;
        const PlanResult a = search_plans(*s.model, *s.hardware, *s.training, full);
        const PlanResult b = search_plans(*s.model, *s.hardware, *s.training, best_only);
        CHECK(b.skipped_by_bound > 0.4 * (a.feasible + a.rejected_out_of_memory));
        REQUIRE(a.best.size() == 1);
        check_same_search(a, b);
    }
}

TEST_CASE(
    "the step-time lower bound stays below the step time with context parallelism, every recomputation and SP choice and ZeRO stage") {
    // A 32k-token context: context parallelism's ring exchange is part of the bound; so are the
    // attention, memory-bound and TP terms of every recomputation choice.
    const Scenario s = scenario_of({{"model", {{"preset", "llama3-70b"}, {"seq_len", 32768}}},
                                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
                                    {"training", json::object()}});
    const TrainingModel tm = training_model(*s.model);
    const NetworkLevels net = network_levels(*s.hardware);
    int checked = 0;
    for (Count cp : {1, 2, 4})
        for (Count tp : {1, 2, 8})
            for (Count pp : {1, 4})
                for (Count vpp : {1, 2})
                    for (Count rc = 0; rc < 3; ++rc)
                        for (bool sp : {false, true})
                            for (Count zero : {0, 1, 3}) {
                                if (vpp > 1 && pp == 1) continue;
                                TrainingConfig c = *s.training;
                                c.tp = tp, c.cp = cp, c.pp = pp, c.vpp = vpp, c.dp = 256 / (tp * cp * pp), c.micro_batch = 1;
                                c.global_batch = 128, c.recompute = static_cast<Recompute>(rc), c.sequence_parallel = sp, c.zero = zero;
                                const Efficiency eff = training_efficiency(c, s.hardware->device);
                                const StepEstimate e = estimate_step(tm.in, *s.hardware, c, eff, net);
                                const double lb = step_seconds_lower_bound(tm.in, *s.hardware, c, eff, net);
                                INFO("cp " << cp << " tp " << tp << " pp " << pp << " vpp " << vpp << " rc " << rc << " zero " << zero);
                                CHECK(lb > 0.5 * e.step.total);  // the never-hidden terms are most of the step
                                CHECK(lb <= e.step.total);
                                checked += 1;
                            }
    CHECK(checked == 3 * 3 * 3 * 3 * 2 * 3);
}

TEST_CASE("the lower bound from a layout's floor at one interleaving equals the bound computed at every other interleaving") {
    for (bool dualpipe : {false, true}) {
        INFO("dualpipe " << dualpipe);
        const Scenario s = scenario_of({{"model", {{"preset", "llama3-70b"}}},
                                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
                                        {"training", {{"dualpipe", dualpipe}}}});
        const TrainingModel tm = training_model(*s.model);
        const NetworkLevels net = network_levels(*s.hardware);
        TrainingConfig c = *s.training;
        c.tp = 8, c.pp = 8, c.cp = 1, c.dp = 4, c.micro_batch = 2, c.global_batch = 512, c.vpp = 5;
        const Efficiency eff = training_efficiency(c, s.hardware->device);
        const StepFloor floor = step_floor(tm.in, *s.hardware, c, eff, net);
        CHECK_FALSE(floor.wan);
        CHECK(floor.m == 64);
        CHECK(floor.t_mb > 0);
        for (Count v = 1; v <= 10; ++v) {
            c.vpp = v;
            CHECK(step_seconds_lower_bound(floor, c) == step_seconds_lower_bound(tm.in, *s.hardware, c, eff, net));
        }
    }
}

TEST_CASE("a plan search reports the band a training estimate of the same device and framework carries") {
    // GPT-3 175B on 1,024 A100 (Megatron-LM's layout class): the estimate's range is seconds / high ..
    // seconds / low; the plan's band must be those factors.
    const json s = {{"model", {{"preset", "gpt3-175b"}}},
                    {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
                    {"training", {{"tokens", 3e11}, {"global_batch", 1536}}},
                    {"explain", false}};
    const json p = json::parse(plan_json(s.dump()))["plan"];
    const json r = run(s);
    REQUIRE(p["band"]["low"].is_number());
    const double lo = p["band"]["low"].get<double>(), hi = p["band"]["high"].get<double>();
    CHECK(lo < 1.0);
    CHECK(hi > 1.0);
    const json& u = r["training"]["uncertainty"];
    CHECK(u["seconds_low"].get<double>() == Approx(r["training"]["seconds"].get<double>() / hi).epsilon(1e-12));
    CHECK(u["seconds_high"].get<double>() == Approx(r["training"]["seconds"].get<double>() / lo).epsilon(1e-12));
    CHECK(p["band"]["basis"] == u["band_basis"]);
    // A device without calibration runs widens it, as the estimate does.
    json other = s;
    other["hardware"]["device"] = "nvidia-rtx-4090";
    other["hardware"]["count"] = 4096;
    const json q = json::parse(plan_json(other.dump()))["plan"];
    CHECK(q["band"]["high"].get<double>() > hi);
    CHECK(q["band"]["basis"].get<std::string>().find("widened") != std::string::npos);
}

TEST_CASE("a batch the search chooses stays near 4M tokens: micro-batches never inflate it past 1.5x, or past micro-batch 1's") {
    // (micro-batch 1's: dp sequences, or dp x pp with interleaving, which needs whole groups of pp.)
    // Llama 3 8B at 8,192 tokens: the 4M-token target is 512 sequences (768 at 1.5x).
    for (int gpus : {64, 4096}) {
        INFO(gpus << " GPUs");
        const json s = {{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", gpus}}},
                        {"training", {{"tokens", 1e12}}},
                        {"plan", {{"top_k", 100}}}};
        const json p = json::parse(plan_json(s.dump()))["plan"];
        REQUIRE(p["best"].size() > 0);
        bool bigger_micro_batch = false;
        for (const auto& plan : p["best"]) {
            const double dp = plan["dp"].get<double>(), gb = plan["global_batch"].get<double>();
            // With interleaving the smallest batch is a group of pp micro-batches per replica.
            const double group = plan["vpp"].get<double>() > 1 ? plan["pp"].get<double>() : 1.0;
            const double at_mb1 = static_cast<double>(default_global_batch(8192, static_cast<Count>(dp * group), 4194304.0));
            CHECK(gb <= std::max(at_mb1, 768.0));
            bigger_micro_batch |= plan["micro_batch"].get<double>() > 1;
        }
        // On 64 GPUs larger micro-batches stay within the target and are searched; on 4,096 the data
        // parallelism alone passes it, so only micro-batch 1 is.
        CHECK(bigger_micro_batch == (gpus == 64));
    }
}
