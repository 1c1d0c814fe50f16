// Reality check: every famous run's scenario estimates; every claim gets the expected verdict;
// inverse answers round-trip through the forward estimate.
#include <map>

#include "gpucalc/catalog.hpp"
#include "gpucalc/reality.hpp"
#include "helpers.hpp"

using namespace gpucalc;
using nlohmann::json;

TEST_CASE("every famous run estimates without error and compares each published figure") {
    const json r = to_nlohmann(reality_report());
    REQUIRE(r["runs"].size() >= 11);
    for (const auto& run : r["runs"]) {
        INFO(run["id"]);
        CHECK(run["errors"].empty());
        for (const auto& c : run["comparisons"]) {
            CHECK(c["estimate"].is_number());
            CHECK(c["error"].is_number());
            CHECK_FALSE(c["source"].get<std::string>().empty());
        }
    }
    // Published energy that is itself TDP x hours is labelled as computed from assumptions.
    bool labelled = false;
    for (const auto& run : r["runs"])
        if (run["id"] == "bloom-176b")
            for (const auto& c : run["comparisons"])
                if (c["metric"] == "energy_kwh") labelled = c["from_assumptions"].get<bool>();
    CHECK(labelled);
}

TEST_CASE("famous runs with known layouts land near the published figures") {
    const json r = to_nlohmann(reality_report());
    auto err = [&](const char* id, const char* metric) {
        for (const auto& run : r["runs"])
            if (run["id"] == id)
                for (const auto& c : run["comparisons"])
                    if (c["metric"] == metric) return std::abs(c["error"].get<double>());
        return 1e9;
    };
    CHECK(err("megatron-gpt3-projection", "days") < 0.15);  // 34 days (Megatron-LM projection)
    CHECK(err("llama-65b", "days") < 0.15);                 // 21 days (LLaMA Sec. 2.4)
    // Whole runs whose published GPU-hours are throughput arithmetic (no restarts in the figure).
    // 2,664K H800 hours (Sec. 1). The model leaves out the run's multi-token prediction module (Sec.
    // 2.2, depth 1: one more MoE layer, a 2h x h projection and the output head and loss once more,
    // ~4.5 % of the compute, whose placement on the pipeline is not published), which alone puts it
    // ~5 % low. But the memory sizes the device holding the most routed experts (stages 1 and 14 under
    // DualPipe, 8 MoE layers): by these activation formulas the published layout needs 81 GiB of the
    // H800's 80 without full recomputation, so the search recomputes (+16 % compute) and lands ~10 %
    // high. DeepSeek's FP8 activation caching and recomputed RMSNorm and MLA up-projections (Sec.
    // 3.2.3, 3.3.2) are not modelled. Bound 15 %, #13's.
    CHECK(err("deepseek-v3", "gpu_hours") < 0.15);
    // 30.84M H100 hours (model card): -5.8 % since pipeline sends overlap the interleaved schedule's
    // compute (it was -3 %); bound 10 %, as DeepSeek-V3's, within #13's 15 % and the model's band.
    CHECK(err("llama3.1-405b", "gpu_hours") < 0.10);
    // A known miss, kept true: BLOOM's 70 layers were chosen so that (70 + 2 embeddings) / 12 stages
    // balance (DeepSpeed type:transformer|embedding); with balanced stages the model predicts ~190
    // TFLOP/s per GPU against the published 156 (arXiv:2211.05100 Sec. 3.4.1). docs/VALIDATION.md.
    CHECK(err("bloom-176b", "achieved_flops_per_second_per_gpu") < 0.30);
    CHECK(err("gpt4-unofficial", "flops") < 0.05);  // 6 x 280B x 13T vs 2.15e25 claimed
}

TEST_CASE("claims get their verdicts") {
    const json r = to_nlohmann(reality_report());
    std::map<std::string, std::string> v;
    for (const auto& c : r["claims"]) v[c["id"].get<std::string>()] = c["verdict"].get<std::string>();
    CHECK(v["h100-cores"] == "inconsistent");           // 16,896,000, not 18,432,000
    CHECK(v["a100-v100"] == "consistent");              // FP32 19.5 vs 15.7
    CHECK(v["gpt3-256-a100-weeks"] == "inconsistent");  // months, at any plausible MFU
    CHECK(v["gpt4-25k-a100"] == "depends");             // only at 32-36% MFU
    CHECK(v["gpt4-100m"] == "depends");                 // on the $/GPU-hour
    CHECK(v["dgx-runs-chatgpt"] == "consistent");
    CHECK(v["chatgpt-500k-1m-day"] == "depends");
    CHECK(v["gpt3-10k-v100-cpus"] == "unverifiable");  // can never fail: nothing published to check it against
}

TEST_CASE("each case of a claim carries the scenario it was judged on; estimating it gives the values shown") {
    const json r = to_nlohmann(reality_report());
    int cases = 0, serving = 0;
    for (const auto& c : r["claims"]) {
        for (const auto& e : c["evaluations"]) {
            INFO(c["id"] << " / " << e["case"]);
            REQUIRE(e["scenario"].is_object());
            const json again = run(e["scenario"]);
            REQUIRE_FALSE(again.contains("errors"));
            for (const auto& [metric, value] : e["values"].items()) {
                const json* at = &again;
                std::string rest = metric;
                for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
                    at = &(*at)[rest.substr(0, dot)];
                const json& got = (*at)[rest];
                CHECK((got.is_boolean() ? (got.get<bool>() ? 1.0 : 0.0) : got.get<double>()) == value.get<double>());
            }
            // A shipped serving claim opens on the fleet its traffic needs (size_to_traffic), never a
            // shortfall beside its verdict (the ChatGPT claim opened on 8 GPUs for 100M requests a day).
            if (again.contains("inference") && again["inference"]["gpus_needed"].is_number()) {
                CHECK(e["scenario"]["hardware"]["count"].get<double>() >= again["inference"]["gpus_needed"].get<double>());
                ++serving;
            }
            ++cases;
        }
    }
    CHECK(cases > 20);
    CHECK(serving >= 12);
}

TEST_CASE("a claim is judged on the GPUs given unless it asks for the fleet its traffic needs (size_to_traffic)") {
    // A red team: judged on gpus_needed always, a user claim varying hardware.count (8, 16) was judged
    // at 176 GPUs twice under its own labels; only a claim about a service's cost asks for that.
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"inference", {{"tp", 4}, {"batch", 32}, {"requests_per_day", 1e7}}},
              {"costs", {{"gpu_hour_usd", 2}}},
              {"claim",
               {{"checks", json::array({{{"metric", "cluster.devices"}, {"max", 16}}})},
                {"vary", {{"path", "hardware.count"}, {"values", json::array({8, 16})}}}}}};
    const json given = run(s);
    REQUIRE_FALSE(given.contains("errors"));
    CHECK(given["claim"]["verdict"] == "consistent");
    for (const auto& e : given["claim"]["evaluations"]) CHECK(e["values"]["cluster.devices"].get<double>() <= 16);
    s["claim"]["size_to_traffic"] = true;
    s["claim"].erase("vary");
    s["claim"]["checks"] = json::array({{{"metric", "inference.at_traffic.tpot_seconds"}, {"max", 1.0}}});
    const json sized = run(s);
    REQUIRE_FALSE(sized.contains("errors"));
    const json& e = sized["claim"]["evaluations"][0];
    CHECK(e["scenario"]["hardware"]["count"].get<double>() == run(e["scenario"])["inference"]["gpus_needed"].get<double>());
    // Without it, the traffic's figures on 8 GPUs that cannot carry it are undefined, said as such.
    s["claim"].erase("size_to_traffic");
    const json short8 = run(s);
    REQUIRE(short8.contains("errors"));
    CHECK(short8["errors"][0]["code"] == "undefined");
}

TEST_CASE("a user claim: a scenario with an expected value and a tolerance") {
    auto r =
        run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}},
             {"claim", {{"checks", {{{"metric", "cluster.memory_bytes"}, {"expected", 1000 * 80 * 1073741824.0}, {"tolerance", 0.01}}}}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["claim"]["verdict"] == "consistent");
    auto bad = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}}, {"claim", {{"checks", json::array()}}}});
    CHECK(has_error(bad, "claim.checks"));
}

TEST_CASE("inverse: what can 1,000 H100 train in 30 days? (round trip through the forward estimate)") {
    auto r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}},
                  {"inverse", {{"question", "what_can_train"}, {"days", 30}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const auto& a = r["inverse"];
    const double n = a["compute_optimal_params"].get<double>(), d = a["compute_optimal_tokens"].get<double>();
    CHECK(d == Approx(20 * n));
    CHECK(a["mfu"].get<double>() > 0.2);
    // Forward: a model of N params on D tokens at that MFU takes 30 days.
    auto f = run({{"model", {{"params", n}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}},
                  {"training", {{"tokens", d}, {"mfu", a["mfu"]}}}});
    CHECK(f["training"]["days"].get<double>() == Approx(30.0));
    CHECK(a["largest_fitting_params"].get<double>() == Approx(0.9 * 1000 * 80 * 1073741824.0 / 16));
}

TEST_CASE("inverse: how many GPUs for Llama 2 70B on 2T tokens in 30 days (round trip)") {
    auto r = run({{"model", {{"preset", "llama2-70b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                  {"training", {{"tokens", 2e12}}},
                  {"inverse", {{"question", "gpus_needed"}, {"days", 30}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const auto& a = r["inverse"];
    const double gpus = a["gpus"].get<double>();
    CHECK(std::fmod(gpus, 8) == 0);
    REQUIRE(a.contains("plan"));
    json fwd = {{"model", {{"preset", "llama2-70b"}}},
                {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", gpus}}},
                {"training", {{"tokens", 2e12}}}};
    for (const char* k : {"tp", "pp", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel", "overlap_dp_comm", "global_batch"})
        fwd["training"][k] = a["plan"][k];
    auto f = run(fwd);
    REQUIRE_FALSE(f.contains("errors"));
    CHECK(f["training"]["fits"] == true);
    CHECK(f["training"]["days"].get<double>() <= 30.0 * 1.001);
    CHECK(f["training"]["days"].get<double>() > 25.0);  // not grossly over-provisioned
    auto bad = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}}, {"inverse", {{"question", "gpus_needed"}, {"days", 30}}}});
    CHECK(has_error(bad, "model"));
}

TEST_CASE("inverse: a count that misses the deadline is never the answer; an impossible deadline says how fast the run can go") {
    // Llama 3 70B on 15T tokens: an automatic layout's batch stays within the largest published one
    // (62.9M tokens), which bounds the devices a run can feed, and failures grow with the count
    // (goodput model), so past some deadline no count meets it. The page answered "1.71 M GPUs" for 1
    // day, on which the run took 1.59 days (with a 3.5B-token batch), with no warning (a newcomer's review).
    const auto ask = [](double days) {
        return run({{"model", {{"preset", "llama3-70b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                    {"training", {{"tokens", 15e12}}},
                    {"inverse", {{"question", "gpus_needed"}, {"days", days}}}});
    };
    for (double days : {30.0, 7.0, 6.5}) {
        const auto r = ask(days);
        REQUIRE_FALSE(r.contains("errors"));
        const auto& a = r["inverse"];
        REQUIRE(a["gpus"].is_number());
        CHECK(a["seconds_at_gpus"].get<double>() <= days * 86400 * (1 + 1e-9));
    }
    for (double days : {2.0, 0.5}) {
        const auto r = ask(days);
        REQUIRE_FALSE(r.contains("errors"));
        const auto& a = r["inverse"];
        CHECK(a["gpus"].is_null());
        CHECK(a["cost_usd"].is_null());
        const std::string why = a["infeasible_reason"].get<std::string>();
        CHECK(why.find("cannot be met") != std::string::npos);
        // The fastest run the model finds (6.16 days) is named, and is longer than the deadline.
        const std::string fastest = "the fastest of the counts tried takes about ";
        const auto at = why.find(fastest);
        REQUIRE(at != std::string::npos);
        CHECK(std::stod(why.substr(at + fastest.size())) > days);
    }
}

TEST_CASE("gpus_needed tries counts with many factors of two: a deadline a forward estimate meets is answered") {
    // A red team: gpt-oss-120b on RTX 4090 (FSDP) in 11 days was 'cannot be met' while 9,984 GPUs take
    // 10.85 days as an estimate; the scan a twentieth apart met only counts whose layouts tile poorly.
    const json r = run({{"model", {{"preset", "gpt-oss-120b"}}},
                        {"hardware", {{"device", "nvidia-rtx-4090"}}},
                        {"training", {{"tokens", 7.8e12}, {"framework", "fsdp"}}},
                        {"inverse", {{"question", "gpus_needed"}, {"days", 11}}}});
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["inverse"]["gpus"].is_number());
    CHECK(r["inverse"]["seconds_at_gpus"].get<double>() <= 11 * 86400.0);
    // Across deadlines, an infeasible one names a fastest run no answered deadline beats.
    double fastest_named = 0, quickest_answer = 1e300;
    for (double days : {2.0, 4.0, 5.0, 6.0, 7.0, 10.0}) {
        const json a = run({{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                            {"training", {{"tokens", 1.5e13}}},
                            {"inverse", {{"question", "gpus_needed"}, {"days", days}}}})["inverse"];
        if (a["gpus"].is_number()) {
            quickest_answer = std::min(quickest_answer, a["seconds_at_gpus"].get<double>() / 86400);
        } else {
            const std::string why = a["infeasible_reason"].get<std::string>(), key = "takes about ";
            fastest_named = std::max(fastest_named, std::stod(why.substr(why.find(key) + key.size())));
        }
    }
    REQUIRE(fastest_named > 0);
    CHECK(quickest_answer >= fastest_named * 0.9);  // the fastest named is of the counts tried: within a tenth
}

TEST_CASE("gpus_needed judges the smaller counts at an estimate's own layout search: a longer deadline never needs more GPUs") {
    // Llama 3 70B on 15T tokens: 28,128 H100 finish in 7.96 days as an estimate (TP4 PP4, 46.8 % MFU),
    // but the narrower search the smaller-count scan used passed them over, and 8 days answered 51,456
    // GPUs, 7 days 61,040 where 6 days answered 56,280.
    const auto ask = [](double days) {
        return run({{"model", {{"preset", "llama3-70b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                    {"training", {{"tokens", 1.5e13}}},
                    {"inverse", {{"question", "gpus_needed"}, {"days", days}}}})["inverse"];
    };
    const json forward = run({{"model", {{"preset", "llama3-70b"}}},
                              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 28128}}},
                              {"training", {{"tokens", 1.5e13}}}});
    REQUIRE(forward["training"]["days"].get<double>() <= 8.0);
    double before = 1e300;
    for (double days : {6.0, 7.0, 8.0, 9.0, 10.0, 14.0}) {
        const json a = ask(days);
        REQUIRE(a["gpus"].is_number());
        const double g = a["gpus"].get<double>();
        CHECK(g <= before);
        CHECK(a["seconds_at_gpus"].get<double>() <= days * 86400 * (1 + 1e-9));
        if (days == 8.0) CHECK(g <= 28128 * 1.05);  // counts are tried a twentieth apart
        before = g;
    }
}

// A claim's explanation quotes the model's own figures; they must stay the model's (a newcomer
// read "the most that fit is 74" beside the Serve section's 78 for the same scenario).
TEST_CASE("the ChatGPT cost claim's explanation quotes the largest batch and the costs the model gives") {
    const json r = to_nlohmann(reality_report());
    for (const auto& c : r["claims"]) {
        if (c["id"] != "chatgpt-500k-1m-day") continue;
        const std::string text = c["explanation"].get<std::string>();
        json s = c["scenario"];
        const json est = run(s);
        const long most = std::lround(est["inference"]["max_batch"].get<double>());
        CHECK(text.find("the most that fit is " + std::to_string(most) + ")") != std::string::npos);
        for (int b : {8, 16, 32, 64}) {
            s["inference"]["batch"] = b;
            const double m = run(s)["inference"]["cost_per_day_usd"].get<double>() / 1e6;
            char quoted[32];
            std::snprintf(quoted, sizeof quoted, b == 8 ? "$%.1fM a day" : "$%.2fM at %d", m, b);
            INFO(quoted);
            CHECK(text.find(quoted) != std::string::npos);
        }
        return;
    }
    FAIL("claim chatgpt-500k-1m-day not found");
}

TEST_CASE("a claim's open_case, where given, names one of its evaluations, and one where the claim holds") {
    const json r = to_nlohmann(reality_report());
    int named = 0;
    for (const auto& c : r["claims"]) {
        if (c["open_case"].is_null()) continue;
        INFO(c["id"]);
        REQUIRE(c["open_case"].is_number_integer());
        const auto i = c["open_case"].get<std::size_t>();
        REQUIRE(i < c["evaluations"].size());
        CHECK(c["evaluations"][i]["consistent"].get<bool>());
        ++named;
    }
    CHECK(named >= 1);  // io.net's 1,000 H100s: the internet case with DiLoCo
}

TEST_CASE("gpus_needed on TPUs answers in 64-chip cubes, not in whole pods, and a v5p slice stops at 6,144 chips") {
    // Cloud TPU docs: slices above 64 chips are whole 4x4x4 cubes; the largest v5p job is 96 cubes
    // (6,144 chips). With the pod as the step, Llama 3 70B answered 8,960 v5p chips for 30 to 60 days.
    const Device& v5p = *find_device("google-tpu-v5p");
    CHECK(v5p.gpus_per_node == 6144);
    REQUIRE(v5p.count_granule.has_value());
    CHECK(*v5p.count_granule == 64);
    double before = 1e300;
    for (double days : {20.0, 30.0, 45.0, 60.0}) {
        const json a = run({{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", "google-tpu-v5p"}}},
                            {"training", {{"tokens", 1.5e13}}},
                            {"inverse", {{"question", "gpus_needed"}, {"days", days}}}})["inverse"];
        REQUIRE(a["gpus"].is_number());
        const double g = a["gpus"].get<double>();
        CHECK(std::fmod(g, 64) == 0);
        CHECK(g < before);
        CHECK(a["seconds_at_gpus"].get<double>() <= days * 86400 * (1 + 1e-9));
        before = g;
    }
    CHECK(before < 8960);
    // Below one cube, a smaller slice (4 to 32 chips): Pythia-1B on 300B tokens in a year answered
    // 64 chips where 4 take 16 days (red team).
    const json small = run({{"model", {{"preset", "pythia-1b"}}},
                            {"hardware", {{"device", "google-tpu-v5p"}}},
                            {"training", {{"tokens", 3e11}}},
                            {"inverse", {{"question", "gpus_needed"}, {"days", 365}}}})["inverse"];
    REQUIRE(small["gpus"].is_number());
    CHECK(small["gpus"].get<double>() < 64);
    CHECK(small["seconds_at_gpus"].get<double>() <= 365 * 86400.0);
}
