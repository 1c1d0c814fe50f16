// A red-team pass over the core: pipeline sends between nodes, unknown TDP and price, unified memory in
// training, free GPU-hours, plan.tp, inverse reasons, fine-tuning's LoRA fields, -0, echoed derived
// defaults and nulls on custom devices. Each test states an input that was accepted or answered
// wrongly, and what it now gives.
#include <cmath>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json llama_on_h100(double count, json training) {
    return {{"model", {{"preset", "llama2-7b"}}},
            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", count}}},
            {"training", std::move(training)}};
}

json plan(const json& scenario) { return json::parse(gpucalc::plan_json(scenario.dump())); }

double pp_comm(const json& r) { return r["training"]["step_breakdown_seconds"]["pp_comm"].get<double>(); }

}  // namespace

TEST_CASE("pipeline sends between stages on different nodes run over the scale-out network") {
    // 64 H100 on a 1 kB/s network: with tp 8 every stage is a whole node, with dp 8 neighbouring
    // stages are 8 ranks (a node) apart. Both crossed nodes at NVLink speed (pp_comm 0.065 s).
    json slow = llama_on_h100(64, {{"tokens", 1e12}, {"tp", 8}, {"pp", 8}, {"dp", 1}});
    slow["hardware"]["scale_out_bytes_per_second"] = 1000;
    json fast = slow;
    fast["hardware"].erase("scale_out_bytes_per_second");
    for (const json& layout : {json{{"tp", 8}, {"pp", 8}, {"dp", 1}}, json{{"tp", 1}, {"pp", 8}, {"dp", 8}}}) {
        slow["training"].update(layout);
        fast["training"].update(layout);
        const json s = run(slow), f = run(fast);
        REQUIRE_FALSE(s.contains("errors"));
        // One micro-batch's activations (2 B x 4,096 tokens x 4,096 hidden / tp with SP) at 1 kB/s: hours, not 65 ms.
        CHECK(pp_comm(s) > 1e3);
        CHECK(pp_comm(s) > 1e4 * pp_comm(f));
    }
    // A pipeline that stays in one node keeps the scale-up links: 8 stages of one GPU on 8 GPUs.
    json one_node = llama_on_h100(8, {{"tokens", 1e12}, {"tp", 1}, {"pp", 8}, {"dp", 1}});
    one_node["hardware"]["scale_out_bytes_per_second"] = 1000;
    const json n = run(one_node);
    REQUIRE_FALSE(n.contains("errors"));
    CHECK(pp_comm(n) < 1.0);
    // tp 2 x pp 8 on 16 GPUs: stages of 2 ranks, four to a node: the boundary between nodes sets the pace.
    json two_nodes = llama_on_h100(16, {{"tokens", 1e12}, {"tp", 2}, {"pp", 8}, {"dp", 1}});
    two_nodes["hardware"]["scale_out_bytes_per_second"] = 1000;
    CHECK(pp_comm(run(two_nodes)) > 1e3);
}

TEST_CASE("the plan search costs pipeline sends between nodes as the estimate does") {
    // On a 1 kB/s network the search picked tp 1 x pp 8 x dp 8 because its sends looked in-node.
    json s = llama_on_h100(64, {{"tokens", 1e12}});
    s["hardware"]["scale_out_bytes_per_second"] = 1000;
    s["plan"] = {{"top_k", 3}};
    const json p = plan(s);
    REQUIRE(p.contains("plan"));
    REQUIRE_FALSE(p["plan"]["best"].empty());
    for (const json& b : p["plan"]["best"]) {
        json e = s;
        e.erase("plan");
        e["training"] = b["training"];
        e["training"]["tokens"] = 1e12;
        const json r = run(e);
        REQUIRE_FALSE(r.contains("errors"));
        CHECK(r["training"]["step_breakdown_seconds"]["total"].get<double>() == Approx(b["step_seconds"].get<double>()).epsilon(1e-9));
        if (b["pp"].get<double>() > 1) CHECK(pp_comm(r) > 1e3);
    }
}

TEST_CASE("a device without a TDP or a purchase price gives null energy and cost with a warning, never 0") {
    // TPU v5e has neither in the catalog: energy, CO2 and the owned cost were 0 without a word.
    const json v5e = {{"model", {{"params", 1e9}}},
                      {"hardware", {{"device", "google-tpu-v5e"}, {"count", 8}}},
                      {"training", {{"tokens", 1e11}}},
                      {"costs", {{"ownership", "owned"}}},
                      {"explain", true}};
    const json r = run(v5e);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["energy_kwh"].is_null());
    CHECK(r["training"]["co2_kg"].is_null());
    CHECK(r["training"]["cost_usd"].is_null());
    CHECK(r["training"]["uncertainty"]["cost_usd_low"].is_null());
    const std::string w = r["warnings"].dump();
    CHECK(w.find("has no TDP") != std::string::npos);
    CHECK(w.find("tdp_watts") != std::string::npos);
    CHECK(w.find("has no purchase price") != std::string::npos);
    CHECK(w.find("price_usd") != std::string::npos);
    CHECK_FALSE(r["explain"].contains("training.energy_kwh"));
    CHECK_FALSE(r["explain"].contains("training.cost_usd"));
    // A claim on the energy is undefined, not "consistent" with 0.
    json claimed = v5e;
    claimed["claim"] = {{"checks", json::array({{{"metric", "training.energy_kwh"}, {"expected", 0}, {"tolerance", 0.1}}})}};
    CHECK(has_error(run(claimed), "claim.checks[0].metric", "undefined"));
    // TPU v4 has a TDP but no purchase price: the energy is known, the owned cost is null (it was the
    // electricity alone, with price_usd 0 in the derivation).
    json v4 = v5e;
    v4["hardware"]["device"] = "google-tpu-v4";
    const json q = run(v4);
    CHECK(q["training"]["energy_kwh"].get<double>() > 0);
    CHECK(q["training"]["cost_usd"].is_null());
    CHECK(q["warnings"].dump().find("has no purchase price") != std::string::npos);
    // Rented, the TDP alone is missing: the cost is known.
    json rented = v5e;
    rented["costs"] = json::object();
    const json t = run(rented);
    CHECK(t["training"]["energy_kwh"].is_null());
    CHECK(t["training"]["cost_usd"].get<double>() > 0);
}

TEST_CASE("a mixed fleet with a pool without a TDP gives null energy with a warning naming the pool") {
    const json s = {
        {"model", {{"preset", "llama2-7b"}}},
        {"hardware",
         {{"pools", json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}, {{"device", "google-tpu-v5e"}, {"count", 8}}})}}},
        {"training", {{"tokens", 1e10}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["energy_kwh"].is_null());
    CHECK(r["training"]["co2_kg"].is_null());
    CHECK(r["warnings"].dump().find("hardware.pools[1].device") != std::string::npos);
}

TEST_CASE("training checks memory against the usable share of a unified-memory device") {
    // A quarter of an H100's 80 GiB usable: 20 GiB. Training reported 80 GiB and fits.
    json s = llama_on_h100(8, {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}, {"dp", 8}});
    s["hardware"]["device"] = {{"base", "nvidia-h100-sxm5-80gb"}, {"usable_memory_fraction", 0.25}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["memory_capacity_bytes"].get<double>() == Approx(20.0 * 1024 * 1024 * 1024));
    CHECK(r["training"]["fits"] == false);
    CHECK(r["training"]["infeasible_reason"].get<std::string>().find("usable") != std::string::npos);
    // The plan search sizes against the same capacity: every plan it returns fits 20 GiB.
    json p = s;
    p["training"] = {{"tokens", 1e12}};
    p["plan"] = {{"top_k", 3}};
    const json q = plan(p);
    REQUIRE(q.contains("plan"));
    for (const json& b : q["plan"]["best"]) CHECK(b["memory_per_gpu_bytes"].get<double>() <= 20.0 * 1024 * 1024 * 1024);
    // An Apple M3 Max (128 GB, 75% usable: 96 GiB) cannot train Llama 2 7B with Adam (~16 B/param).
    const json m3 = run({{"model", {{"preset", "llama2-7b"}}},
                         {"hardware", {{"device", "apple-m3-max"}, {"count", 1}}},
                         {"training", {{"tokens", 1e9}, {"precision", "fp16"}}}});
    REQUIRE_FALSE(m3.contains("errors"));
    CHECK(m3["training"]["memory_capacity_bytes"].get<double>() == Approx(96.0 * 1024 * 1024 * 1024));
    CHECK(m3["training"]["fits"] == false);
}

TEST_CASE("a GPU-hour of $0 is free everywhere: cost 0, no warning that it is missing") {
    json t = llama_on_h100(8, {{"tokens", 1e10}});
    t["costs"] = {{"gpu_hour_usd", 0}};
    const json r = run(t);
    CHECK(r["training"]["cost_usd"].get<double>() == 0);
    CHECK(r["training"]["gpu_hour_usd"].get<double>() == 0);
    CHECK(r["warnings"].dump().find("GPU-hour") == std::string::npos);
    // A custom device rented at 0.
    json c = llama_on_h100(8, {{"tokens", 1e10}});
    c["hardware"]["device"] = {{"base", "nvidia-h100-sxm5-80gb"}, {"cloud_usd_per_hour", 0}};
    CHECK(run(c)["training"]["cost_usd"].get<double>() == 0);
    // Fine-tuning at 0 as well.
    json f = {{"model", {{"preset", "llama2-7b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"finetune", {{"tokens", 1e9}}},
              {"costs", {{"gpu_hour_usd", 0}}}};
    CHECK(run(f)["finetune"]["cost_usd"].get<double>() == 0);
    // A $ budget at $0 per GPU-hour sets no time: inverse.days is needed (not "the device has no catalog price").
    json inv = {{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                {"inverse", {{"question", "what_can_train"}, {"budget_usd", 1000}}},
                {"costs", {{"gpu_hour_usd", 0}}}};
    const json e = run(inv);
    CHECK(has_error(e, "inverse.days", "missing"));
    CHECK(e.dump().find("catalog price") == std::string::npos);
    inv["inverse"]["days"] = 1;
    const json d = run(inv);
    REQUIRE_FALSE(d.contains("errors"));
    CHECK(d["inverse"]["seconds"].get<double>() == Approx(86400));
}

TEST_CASE("gpus_needed without a price gives a null cost with a warning, not a cost of 0") {
    const json s = {
        {"model", {{"preset", "llama2-7b"}}},
        {"hardware",
         {{"device", {{"memory_bytes", 8e10}, {"memory_bandwidth_bytes_per_second", 3e12}, {"peak_flops_per_second", {{"bf16", 1e15}}}}},
          {"count", 8}}},
        {"inverse", {{"question", "gpus_needed"}, {"days", 30}}},
        {"training", {{"tokens", 1e11}, {"mfu", 0.4}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inverse"]["gpus"].get<double>() > 0);
    CHECK(r["inverse"]["cost_usd"].is_null());
    CHECK(r["warnings"].dump().find("gpu_hour_usd") != std::string::npos);
    // What a budget needs says what is missing: a price for this device.
    json b = s;
    b["inverse"] = {{"question", "what_can_train"}, {"budget_usd", 1000}};
    const json e = run(b);
    CHECK(has_error(e, "costs.gpu_hour_usd", "missing"));
}

TEST_CASE("an impossible plan.tp is an error on plan.tp, not an empty search") {
    json s = llama_on_h100(8, {{"tokens", 1e12}});
    s["plan"] = {{"tp", 64}};
    const json a = plan(s);
    CHECK(has_error(a, "plan.tp", "divisibility"));  // 8 GPUs, 32 heads
    CHECK(has_error(a, "plan.tp", "conflict"));      // above max_tp 8
    s["plan"] = {{"tp", 3}};
    CHECK(has_error(plan(s), "plan.tp", "divisibility"));
    s["plan"] = {{"tp", 16}, {"max_tp", 8}};
    CHECK(has_error(plan(s), "plan.tp", "conflict"));
    // Against a training.tp the search holds fixed.
    json fixed = llama_on_h100(8, {{"tokens", 1e12}, {"tp", 2}});
    fixed["plan"] = {{"tp", 4}};
    CHECK(has_error(plan(fixed), "plan.tp", "conflict"));
    // A valid one searches that size only; a non-power of two too (48 heads, 12 GPUs, tp 6).
    s["plan"] = {{"tp", 2}};
    const json ok = plan(s);
    REQUIRE(ok.contains("plan"));
    REQUIRE_FALSE(ok["plan"]["best"].empty());
    for (const json& b : ok["plan"]["best"]) CHECK(b["tp"] == 2);
    json six = {{"model", {{"layers", 8}, {"hidden", 3072}, {"heads", 48}, {"vocab", 32000}}},
                {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 12}}},
                {"training", {{"tokens", 1e12}}},
                {"plan", {{"tp", 6}, {"top_k", 2}}}};
    const json p6 = plan(six);
    REQUIRE(p6.contains("plan"));
    REQUIRE_FALSE(p6["plan"]["best"].empty());
    CHECK(p6["plan"]["best"][0]["tp"] == 6);
}

TEST_CASE("gpus_needed reports a training.tp that does not divide the heads, not a memory shortfall") {
    json s = llama_on_h100(8, {{"tokens", 1e12}, {"tp", 3}});
    s["inverse"] = {{"question", "gpus_needed"}, {"days", 30}};
    const json r = run(s);
    CHECK(has_error(r, "training.tp", "divisibility"));
    CHECK(r.dump().find("no parallel layout fits") == std::string::npos);
    // A valid tp still answers.
    s["training"]["tp"] = 2;
    const json ok = run(s);
    REQUIRE_FALSE(ok.contains("errors"));
    CHECK(ok["inverse"]["gpus"].get<double>() > 0);
    // A count no layout tiles is said to be that, not a memory shortfall: one sequence per step (dp 1)
    // and 34 stages of at most 8 GPUs hold at most 272 GPUs, far fewer than one day of 1e12 tokens needs.
    json tiny_batch = llama_on_h100(8, {{"tokens", 1e12}, {"global_batch", 1}});
    tiny_batch["inverse"] = {{"question", "gpus_needed"}, {"days", 1}};
    const json t = run(tiny_batch);
    REQUIRE_FALSE(t.contains("errors"));
    CHECK(t["inverse"]["gpus"].is_null());
    CHECK(t["inverse"]["infeasible_reason"].get<std::string>().find("no parallel layout tiles") != std::string::npos);
}

TEST_CASE("gpus_needed moves on to the next whole nodes when the count found has no layout") {
    // 70B on A100 with a batch of 1,024 sequences: the iteration settles on 97 nodes (776 GPUs), a
    // prime number of nodes that no dp x pp tiles with that batch and 80 layers; 98 nodes do.
    const json s = {{"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 256}}},
                    {"inverse", {{"question", "gpus_needed"}, {"days", 30}}},
                    {"model", {{"preset", "llama2-70b"}}},
                    {"training", {{"tokens", 5e11}, {"global_batch", 1024}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["inverse"]["gpus"].is_number());
    const json& a = r["inverse"];
    CHECK(a["plan"]["tp"].get<double>() * a["plan"]["pp"].get<double>() * a["plan"]["dp"].get<double>() == a["gpus"].get<double>());
    CHECK(a["seconds_at_gpus"].get<double>() <= 30 * 86400.0);
}

TEST_CASE(
    "LoRA on a model given by parameter count has unknown trainable parameters, and a LoRA rank with full fine-tuning is a conflict") {
    const json lora = {{"model", {{"params", 8e9}}},
                       {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                       {"finetune", {{"method", "lora"}, {"tokens", 1e9}}}};
    const json r = run(lora);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["finetune"]["trainable_params"].is_null());
    CHECK(r["warnings"].dump().find("LoRA sizes unknown") != std::string::npos);
    json full = {{"model", {{"preset", "llama2-7b"}}},
                 {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                 {"finetune", {{"method", "full"}, {"lora_rank", 16}}}};
    CHECK(has_error(run(full), "finetune.lora_rank", "conflict"));
    // Without it the report echoes no rank, and the echo gives the same report.
    full["finetune"].erase("lora_rank");
    const json f = run(full);
    REQUIRE_FALSE(f.contains("errors"));
    CHECK(f["inputs"]["finetune"]["lora_rank"].is_null());
    CHECK(f["finetune"]["trainable_params"].get<double>() > 6e9);
    CHECK(run(f["inputs"]) == f);
}

TEST_CASE("a negative zero is read as zero, so it is echoed and derived as 0") {
    const gpucalc::jv::Value v = gpucalc::jv::Value::parse("[-0.0, -1e-400, -0]");
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(v[i].as_double() == 0);
        CHECK_FALSE(std::signbit(v[i].as_double()));
    }
    const std::string text = gpucalc::estimate_json(
        R"({"model":{"preset":"llama2-7b"},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},"training":{"tokens":1e10},)"
        R"("costs":{"gpu_hour_usd":-0.0},"explain":true})");
    CHECK(text.find("-0.0") == std::string::npos);
    const json r = json::parse(text);
    CHECK(r["inputs"]["costs"]["gpu_hour_usd"] == 0);
    CHECK_FALSE(std::signbit(r["inputs"]["costs"]["gpu_hour_usd"].get<double>()));
}

TEST_CASE("a derived model default outside its own range is an error on the field it derives from, so the echo stays valid") {
    auto model = [](json m) {
        return json{
            {"model", std::move(m)}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"inference", json::object()}};
    };
    // head_dim = hidden / heads = 200,000, over head_dim's 100,000.
    CHECK(has_error(run(model({{"layers", 1}, {"hidden", 200000}, {"heads", 1}, {"vocab", 1}})), "model.heads", "range"));
    // ffn_hidden = 4 x hidden = 2e7, over its 1e7.
    CHECK(has_error(run(model({{"layers", 1}, {"hidden", 5000000}, {"heads", 100}, {"vocab", 1}})), "model.hidden", "range"));
    // 1e5 layers of width 1e7: 1.2e20 parameters, over params' 1e16.
    const json big = run(model({{"layers", 100000}, {"hidden", 10000000}, {"heads", 100}, {"vocab", 1}, {"ffn_hidden", 10000000}}));
    CHECK(has_error(big, "model.layers", "range"));
    // Given explicitly, the same widths are accepted, and the echo parses back to the same report.
    const json ok = run(model({{"layers", 1}, {"hidden", 200000}, {"heads", 1}, {"vocab", 1}, {"head_dim", 100000}}));
    REQUIRE_FALSE(ok.contains("errors"));
    CHECK(run(ok["inputs"]) == ok);
}

TEST_CASE("a null figure in a custom device is an error, not a silent fall-back to the base's") {
    auto with = [](json device) {
        return json{{"model", {{"preset", "llama2-7b"}}},
                    {"hardware", {{"device", std::move(device)}, {"count", 8}}},
                    {"inference", json::object()}};
    };
    CHECK(has_error(run(with({{"base", "nvidia-h100-sxm5-80gb"}, {"tdp_watts", nullptr}})), "hardware.device.tdp_watts", "type"));
    CHECK(has_error(run(with({{"base", "nvidia-h100-sxm5-80gb"}, {"peak_flops_per_second", {{"bf16", nullptr}}}})),
                    "hardware.device.peak_flops_per_second.bf16", "type"));
    // The echo of a custom device writes no null: it parses back.
    const json ok = run(with({{"base", "nvidia-h100-sxm5-80gb"}, {"tdp_watts", 500}}));
    REQUIRE_FALSE(ok.contains("errors"));
    CHECK(run(ok["inputs"]) == ok);
}

TEST_CASE("a fine-tune that does not fit suggests only what it does not already do") {
    // A newcomer's review: full fine-tuning on a 4090 suggested gradient checkpointing, already on.
    json s = {{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"device", "nvidia-rtx-4090"}}}, {"finetune", {{"method", "full"}}}};
    const std::string full = run(s)["finetune"]["infeasible_reason"].get<std::string>();
    CHECK(full.find("LoRA/QLoRA") != std::string::npos);
    CHECK(full.find("gradient checkpointing") == std::string::npos);
    s["finetune"] = {{"method", "lora"}, {"gradient_checkpointing", false}, {"batch", 64}, {"seq_len", 8192}};
    const std::string lora = run(s)["finetune"]["infeasible_reason"].get<std::string>();
    CHECK(lora.find("QLoRA") != std::string::npos);
    CHECK(lora.find("LoRA/QLoRA") == std::string::npos);
    CHECK(lora.find("gradient checkpointing") != std::string::npos);
    CHECK(lora.find("8-bit") == std::string::npos);  // LoRA's optimizer state is the adapters': small
}

TEST_CASE("QLoRA pays for expanding its NF4 weights to 16 bits in every pass, at HBM bandwidth") {
    // Llama 3 8B on an RTX 4090 (1,008 GB/s): 6,979,325,952 linear weights, 3 passes (checkpointing),
    // each reading 4.127 / 8 bytes and writing then reading 2 + 2 bytes per weight: >= 94 GB per step,
    // ~0.1 s at the card's bandwidth, against under a millisecond of ALU work.
    json s = {{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"device", "nvidia-rtx-4090"}}}, {"finetune", {{"method", "lora"}}}};
    const double lora = run(s)["finetune"]["step_seconds"].get<double>();
    s["finetune"]["method"] = "qlora";
    const double qlora = run(s)["finetune"]["step_seconds"].get<double>();
    const double bytes = 3 * 6979325952.0 * (4.127 / 8 + 4);
    CHECK(qlora - lora > bytes / 1008e9);
    CHECK(qlora - lora < 1.5 * bytes / 1008e9);
}

TEST_CASE("DualPipe and interleaving are two schedules: both given is a conflict on training.vpp") {
    json s = {{"model", {{"preset", "deepseek-v3"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2048}}},
              {"training", {{"tokens", 1e12}, {"pp", 16}, {"ep", 64}, {"dualpipe", true}, {"vpp", 2}, {"global_batch", 2048}}}};
    CHECK(has_error(run(s), "training.vpp", "conflict"));
}

TEST_CASE("full fine-tuning refuses LoRA's adapted layers as it refuses its rank, and echoes neither") {
    json s = {{"model", {{"preset", "llama3-8b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"finetune", {{"method", "full"}, {"lora_modules", "all_linear"}}}};
    CHECK(has_error(run(s), "finetune.lora_modules", "conflict"));
    s["finetune"].erase("lora_modules");
    const json r = run(s);
    CHECK(r["inputs"]["finetune"]["lora_modules"].is_null());
    CHECK(r["inputs"]["finetune"]["lora_rank"].is_null());
    CHECK_FALSE(run(r["inputs"]).contains("errors"));
}

TEST_CASE("a scaling curve without training.tokens has null times, not 0") {
    const json r = run({{"model", {{"preset", "llama2-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                        {"training", {{"tp", 8}, {"pp", 4}, {"vpp", 2}}},
                        {"scaling", true}});
    REQUIRE(r["scaling"].size() > 0);
    for (const auto& p : r["scaling"]) CHECK(p["seconds"].is_null());
}

TEST_CASE("an automatic layout that cannot exist names the fields the scenario gave") {
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                        {"training", {{"tokens", 1e12}, {"vpp", 2}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["fits"] == false);
    CHECK(r["training"]["infeasible_reason"].get<std::string>().find("(training.vpp)") != std::string::npos);
}

TEST_CASE("a plan search that finds no layout says why, naming the training fields given") {
    // vpp 2 needs pp >= 2 and micro-batches in multiples of pp: a global batch of 3 sequences admits
    // no layout of 64 devices. The plan was an empty list without a word.
    json s = llama_on_h100(64, {{"tokens", 1e12}, {"vpp", 2}, {"global_batch", 3}});
    const json p = plan(s);
    REQUIRE_FALSE(p.contains("errors"));
    CHECK(p["plan"]["best"].empty());
    REQUIRE(p["warnings"].size() == 1);
    const std::string w = p["warnings"][0].get<std::string>();
    CHECK(w.find("training.vpp, training.global_batch") != std::string::npos);
    // A plan that finds layouts has no such warning.
    s["training"].erase("global_batch");
    CHECK(plan(s)["warnings"].empty());
}

TEST_CASE("a layout no search can satisfy echoes the searched fields as null, and the echo parses back to the same answer") {
    // The echo carried the search's placeholder (pp 1, dp 64) beside the given vpp 2: a scenario that
    // is itself an error (vpp needs pp > 1) instead of the question asked.
    const json r = run(llama_on_h100(64, {{"tokens", 1e12}, {"vpp", 2}, {"global_batch", 3}}));
    REQUIRE_FALSE(r.contains("errors"));
    const json& echo = r["inputs"]["training"];
    for (const char* k : {"tp", "pp", "dp", "micro_batch"}) CHECK(echo[k].is_null());
    CHECK(echo["vpp"] == 2);
    CHECK(echo["global_batch"] == 3);
    const json again = run(r["inputs"]);
    REQUIRE_FALSE(again.contains("errors"));
    CHECK_FALSE(again["training"]["fits"].get<bool>());
    CHECK(again["training"]["infeasible_reason"].get<std::string>().find("training.vpp, training.global_batch") != std::string::npos);
}

TEST_CASE("an impossible layout's echo gives the same reason when fed back, for 1 device too") {
    const json r = run(llama_on_h100(1, {{"tokens", 1e12}, {"vpp", 2}}));
    REQUIRE_FALSE(r.contains("errors"));
    const std::string why = r["training"]["infeasible_reason"].get<std::string>();
    CHECK(why.find("of 1 device satisfies") != std::string::npos);
    CHECK(run(r["inputs"])["training"]["infeasible_reason"].get<std::string>() == why);
}
