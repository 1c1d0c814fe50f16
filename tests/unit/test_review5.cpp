// A formula review of 2026-12-02 (an independent pass against the papers): the derivations of a run
// that does not fit, of the largest serving batch, and of a bare parameter count's FLOPs. Each test
// states what a derivation showed and what it now shows.
#include <cmath>
#include <regex>

#include "helpers.hpp"

using nlohmann::json;

namespace {

// Llama 3 8B's shape at 8K tokens on 256 H100s, TP 1, ZeRO-1: needs ~88 GiB per device of 80.
json llama3_8b_training(int zero) {
    return {{"model",
             {{"layers", 32},
              {"hidden", 4096},
              {"heads", 32},
              {"kv_heads", 8},
              {"ffn_hidden", 14336},
              {"ffn_kind", "swiglu"},
              {"vocab", 128256},
              {"seq_len", 8192},
              {"tied_embeddings", false}}},
            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
            {"training", {{"tokens", 15e12}, {"tp", 1}, {"zero", zero}}},
            {"costs", {{"ownership", "owned"}, {"lifetime_years", 4}, {"electricity_usd_per_kwh", 0.08}}},
            {"explain", true}};
}

}  // namespace

TEST_CASE("a run that does not fit has no derivation of days, GPU-hours, cost or energy, as the report has no figure") {
    const json r = run(llama3_8b_training(1));
    REQUIRE_FALSE(r.contains("errors"));
    const json& t = r["training"];
    REQUIRE_FALSE(t["fits"].get<bool>());
    CHECK(t["days"].is_null());
    CHECK(t["cost_usd"].is_null());
    // Before: explain gave training.days 75.6 and training.cost_usd $456,840 for this run.
    for (const char* key : {"training.seconds", "training.days", "training.uncertainty", "training.gpu_hours", "training.cost_usd",
                            "training.energy_kwh", "training.co2_kg"})
        CHECK_FALSE(r["explain"].contains(key));
    // Why it is missing is derived: the memory against the device's.
    REQUIRE(r["explain"].contains("training.fits"));
    CHECK(r["explain"]["training.fits"]["result"] == 0.0);

    // The same run with ZeRO-2 fits (~57 GiB), and every total is derived.
    const json ok = run(llama3_8b_training(2));
    REQUIRE(ok["training"]["fits"].get<bool>());
    for (const char* key : {"training.days", "training.gpu_hours", "training.cost_usd", "training.energy_kwh"})
        CHECK(ok["explain"].contains(key));
    CHECK(ok["explain"]["training.days"]["result"].get<double>() == Approx(ok["training"]["days"].get<double>()));
}

TEST_CASE("the largest serving batch is derived with the KV-cache pool's share, so its values give its result") {
    // Llama 3 70B on 16 H100 SXM at TP 8 (two copies): vLLM-style paged KV cache, 0.9 of the free memory.
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                        {"inference", {{"tp", 8}, {"prompt_tokens", 2048}, {"output_tokens", 256}}},
                        {"explain", true}});
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["explain"].contains("inference.max_batch"));
    const json& d = r["explain"]["inference.max_batch"];
    const json& v = d["values"];
    REQUIRE(v.contains("kv_cache_memory_fraction"));
    CHECK(v["kv_cache_memory_fraction"] == 0.9);
    CHECK(d["formula"].get<std::string>().find("kv_cache_memory_fraction") != std::string::npos);
    // floor((memory - overhead - weights) x fraction / kv per sequence) x ep, from the values shown
    // (before, without the fraction, they gave 711 sequences for a result of 640).
    const double free = v["memory_bytes"].get<double>() - v["overhead_bytes"].get<double>() - v["weights_bytes_per_gpu"].get<double>();
    const double batch = std::floor(free * v["kv_cache_memory_fraction"].get<double>() / v["kv_bytes_per_sequence_per_gpu"].get<double>()) *
                         v["ep"].get<double>();
    CHECK(batch == d["result"].get<double>());
    CHECK(d["result"] == r["inference"]["max_batch"]);
}

TEST_CASE("a bare parameter count's FLOPs per token are derived as 6 N, the convention its MFU is in") {
    // GPT-3 175B by count: 6 x 175e9 = 1.05e12 FLOP/token (GPT-3 paper, arXiv:2005.14165, Table D.1:
    // 3.14e23 FLOPs for 300B tokens, by 6ND).
    const json r = run({{"model", {{"params", 175e9}}},
                        {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
                        {"training", {{"tokens", 300e9}, {"mfu", 0.4}}},
                        {"explain", true}});
    REQUIRE(r["explain"].contains("training.model_flops_per_token"));
    const json& d = r["explain"]["training.model_flops_per_token"];
    CHECK(d["result"].get<double>() == Approx(1.05e12));
    CHECK(d["formula"].get<std::string>().find("6 x N_active") == 0);
    // The warning says the MFU counts 6 N per token while the time model's shape adds attention.
    bool said = false;
    for (const auto& w : r["warnings"])
        said = said || w.get<std::string>().find("FLOPs and MFU count 6 x N per token") != std::string::npos;
    CHECK(said);
}

TEST_CASE("with an MFU given, the scaling curve passes through the run at that MFU, the model's shape levelled to it") {
    // A page review (2026-12-02) found the curve at the predicted MFU (1.02 M tokens/s, 48.3 % at
    // 1,024 GPUs) under an answer at the given 40 % (842 k tokens/s).
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}}},
              {"training", {{"tokens", 15e12}, {"mfu", 0.4}}},
              {"scaling", true}};
    const json given = run(s);
    REQUIRE_FALSE(given.contains("errors"));
    s["training"].erase("mfu");
    const json predicted = run(s);
    const double level = given["scaling_level"].get<double>();
    CHECK(level == Approx(0.4 / predicted["training"]["mfu"].get<double>()));
    CHECK(predicted["scaling_level"] == 1.0);
    bool at_run = false;
    for (size_t i = 0; i < given["scaling"].size(); i++) {
        const json& g = given["scaling"][i];
        const json& p = predicted["scaling"][i];
        CHECK(g["gpus"] == p["gpus"]);
        CHECK(g["tokens_per_second"].get<double>() == Approx(p["tokens_per_second"].get<double>() * level));
        CHECK(g["mfu"].get<double>() == Approx(p["mfu"].get<double>() * level));
        CHECK(g["efficiency"] == p["efficiency"]);
        if (g["gpus"] == 1024) {
            at_run = true;
            CHECK(g["tokens_per_second"].get<double>() == Approx(given["training"]["tokens_per_second"].get<double>()));
            CHECK(g["mfu"].get<double>() == Approx(0.4));
        }
    }
    CHECK(at_run);
}

TEST_CASE("a global batch above the largest published pretraining batch is said, with its tokens per step") {
    // A page review (2026-12-02): Llama 3 70B on 25,000 A100s took DP 25,000 at micro-batch 1, a
    // batch of 25,000 sequences of 8,192 = 205M tokens per step, without a word. The automatic layout
    // now keeps within the published maximum (tokens_per_step 51.2M); a layout given that needs more
    // (tp 1, pp 1: dp 25,000) is said.
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-40gb"}, {"count", 25000}}},
              {"training", {{"tokens", 13e12}, {"mfu", 0.34}}}};
    const json automatic = run(s);
    REQUIRE_FALSE(automatic.contains("errors"));
    CHECK(automatic["training"]["tokens_per_step"].get<double>() <= 15360.0 * 4096);
    CHECK(automatic["warnings"].dump().find("above the largest published pretraining batch") == std::string::npos);
    s["training"]["tp"] = 1;
    s["training"]["pp"] = 1;
    const json big = run(s);
    REQUIRE_FALSE(big.contains("errors"));
    REQUIRE(big["training"]["tokens_per_step"].get<double>() > 62.9e6);
    CHECK(big["warnings"].dump().find("above the largest published pretraining batch (DeepSeek-V3: 62.9M tokens") != std::string::npos);
    // Llama 3 405B's published batch (16M tokens, arXiv:2407.21783 Table 4) says nothing.
    s["training"].erase("tp");
    s["training"].erase("pp");
    s["training"]["global_batch"] = 2048;
    const json published = run(s);
    REQUIRE_FALSE(published.contains("errors"));
    CHECK(published["training"]["tokens_per_step"] == 2048.0 * 8192.0);
    CHECK(published["warnings"].dump().find("largest published pretraining batch") == std::string::npos);
}

TEST_CASE("the plan search takes a bare parameter count, laid out on the shape the estimate times, and says so") {
    // A page review (2026-12-02): Train answered a 1.8T / 280B-active count with "Layout chosen by the
    // plan search", and the Plan search refused the same model ("needs a model architecture").
    const json s = {{"model", {{"params", 1.8e12}, {"active_params", 2.8e11}}},
                    {"hardware", {{"device", "nvidia-a100-sxm4-40gb"}, {"count", 25000}}},
                    {"training", json::object()}};
    const json p = json::parse(gpucalc::plan_json(s.dump()));
    REQUIRE_FALSE(p.contains("errors"));
    REQUIRE(p["plan"]["best"].size() > 0);
    CHECK(p["warnings"].dump().find(
              "model given by parameter count only: the search lays out a GPT-like shape (114 layers, hidden 14336, vocabulary 50257)") !=
          std::string::npos);
    CHECK(p["warnings"].dump().find("16 routed experts, 2 per token") != std::string::npos);
    // The estimate of the same scenario runs the layout the search ranks first, at its throughput.
    const json e = run(s);
    REQUIRE_FALSE(e.contains("errors"));
    const json& best = p["plan"]["best"][0];
    for (const char* k : {"tp", "pp", "dp", "micro_batch", "global_batch"}) CHECK(e["inputs"]["training"][k] == best[k]);
    CHECK(e["training"]["tokens_per_second"].get<double>() == Approx(best["tokens_per_second"].get<double>()));
    // A small count's shape admits tensor parallelism up to 8 (a 1e9 count was 17 heads: no TP 2 layout).
    for (double tp : {2.0, 4.0, 8.0}) {
        const json small = json::parse(gpucalc::plan_json(json({{"model", {{"params", 1e9}}},
                                                                {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                                                                {"training", {{"tp", tp}}}})
                                                              .dump()));
        INFO(tp);
        REQUIRE_FALSE(small.contains("errors"));
        CHECK(small["plan"]["feasible"].get<double>() > 0);
        CHECK(std::fmod(small["plan"]["assumed_shape"]["hidden"].get<double>() / 128.0, 8.0) == 0.0);
    }
    // Without any model it is still an error naming the field.
    const json none = json::parse(gpucalc::plan_json(R"({"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},"training":{}})"));
    REQUIRE(none.contains("errors"));
    CHECK(none["errors"][0]["field"] == "model");
}

TEST_CASE("the scaling curve is not levelled to a given MFU where one MFU cannot carry it, and says why") {
    // A red-team pass (2026-12-02) on the levelled curve: 4 sites gave a level of 42.6 and a point at
    // MFU 18.6; MFU 1.0 gave points above 100 %; a run that does not fit still levelled its curve.
    const auto scaled = [](json hardware, json training) {
        return run({{"model", {{"preset", "llama3-70b"}}}, {"hardware", hardware}, {"training", training}, {"scaling", true}});
    };
    const json h100 = {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}};
    const json sites = {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}, {"sites", 4}, {"wan", "wan-10g"}};
    const json small = {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}};
    const struct {
        json r;
        const char* why;
    } cases[] = {
        {scaled(sites, {{"tokens", 1e12}, {"mfu", 0.4}}), "whole sites"},
        {scaled(h100, {{"tokens", 1e12}, {"mfu", 1.0}}), "would pass 100 % MFU"},
        {scaled(small, {{"tokens", 1e12}, {"mfu", 0.4}, {"tp", 8}, {"zero", 3}}), "does not fit"},
    };
    for (const auto& c : cases) {
        INFO(c.why);
        REQUIRE_FALSE(c.r.contains("errors"));
        CHECK(c.r["scaling_level"].is_null());
        CHECK(c.r["warnings"].dump().find(std::string("not levelled to training.mfu: ")) != std::string::npos);
        CHECK(c.r["warnings"].dump().find(c.why) != std::string::npos);
        for (const auto& p : c.r["scaling"]) CHECK(p["mfu"].get<double>() <= 1.0);
    }
    // At 0.9 every point stays under 100 %: levelled.
    const json ok = scaled(h100, {{"tokens", 1e12}, {"mfu", 0.9}});
    CHECK(ok["scaling_level"].get<double>() > 1.0);
    for (const auto& p : ok["scaling"]) CHECK(p["mfu"].get<double>() <= 1.0);
}

TEST_CASE("a run that does not fit derives no step time, throughput or MFU either, only its memory and why") {
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                        {"training", {{"tokens", 1e12}, {"tp", 8}, {"zero", 1}, {"mfu", 0.4}}},
                        {"explain", true}});
    REQUIRE_FALSE(r["training"]["fits"].get<bool>());
    for (const auto& [key, d] : r["explain"].items()) {
        INFO(key);
        // Every derivation shown is of a figure the report gives (a path to a null is a leak).
        json::json_pointer ptr("/" + std::regex_replace(key, std::regex("\\."), "/"));
        if (r.contains(ptr)) CHECK_FALSE(r[ptr].is_null());
    }
    for (const char* key : {"training.tokens_per_second", "training.step_seconds", "training.mfu", "training.hfu"})
        CHECK_FALSE(r["explain"].contains(key));
    CHECK(r["explain"].contains("training.memory_per_gpu_bytes.total"));
}

TEST_CASE("DiLoCo's default batch (each site's own inner batch) is not taken for one batch above the published") {
    const json r = run({{"model", {{"preset", "llama2-13b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}, {"network", "internet-1g"}}},
                        {"training", {{"tokens", 2.6e11}, {"local_steps", 100}, {"outer_precision", "int8"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["training"]["tokens_per_step"].get<double>() > 62.9e6);
    CHECK(r["warnings"].dump().find("largest published pretraining batch") == std::string::npos);
}

TEST_CASE("a run on a count that is no power of two is a point of its own scaling curve") {
    // A newcomer (2026-12-04): 1,000 H100s marked 'this run' between the curve's 640 and 1,280
    // points, and the readout there showed 1,280 GPUs' figures.
    const json r = run(json{{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}},
                            {"training", {{"tokens", 1e12}}},
                            {"scaling", true}});
    REQUIRE_FALSE(r.contains("errors"));
    bool at_run = false;
    double last = 0;
    for (const json& p : r["scaling"]) {
        CHECK(p["gpus"].get<double>() > last);  // in order of the count
        last = p["gpus"].get<double>();
        if (p["gpus"] == 1000) {
            at_run = true;
            CHECK(p["tokens_per_second"].get<double>() == Approx(r["training"]["tokens_per_second"].get<double>()).epsilon(1e-12));
        }
    }
    CHECK(at_run);
}
