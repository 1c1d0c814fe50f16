// Checks of 2026-12-06 (ninth session). Each test states what it pins and its source.
#include "helpers.hpp"

#include <optional>

#include "gpucalc/json_read.hpp"

using nlohmann::json;

TEST_CASE(
    "FP8 training keeps 2 bytes per weight, the FP8 copy and its transpose that NeMo's recipes keep as the parameters, and "
    "NVIDIA's Nemotron-4 340B layout fits") {
    // NeMo 2.0 / Megatron-Bridge bf16_with_fp8_mixed: fp8_param_gather = True (the parameters are kept in
    // FP8); Transformer Engine keeps the weight's FP8 transpose for Hopper's GEMMs. NeMo's 24.07
    // performance table ran Nemotron-4 340B in FP8 on 128 H100 at TP 8, PP 8, VPP 12, micro-batch 1.
    json s = {{"model",
               {{"layers", 96},
                {"hidden", 18432},
                {"heads", 96},
                {"kv_heads", 8},
                {"ffn_hidden", 73728},
                {"vocab", 256000},
                {"seq_len", 4096},
                {"ffn_kind", "gelu"},
                {"dropout", false}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 128}}},
              {"training",
               {{"framework", "megatron"},
                {"tp", 8},
                {"pp", 8},
                {"dp", 2},
                {"vpp", 12},
                {"micro_batch", 1},
                {"global_batch", 32},
                {"precision", "fp8"},
                {"zero", 1},
                {"goodput", 1},
                {"fp32_gradients", false}}},
              {"explain", false}};
    const json fp8 = run(s);
    s["training"]["precision"] = "bf16";
    const json bf16 = run(s);
    REQUIRE_FALSE(fp8.contains("errors"));
    REQUIRE_FALSE(bf16.contains("errors"));
    const json& m8 = fp8["training"]["memory_per_gpu_bytes"];
    // The weights take what the 16-bit weights took: no third copy beside the two FP8 ones.
    CHECK(m8["weights"].get<double>() == bf16["training"]["memory_per_gpu_bytes"]["weights"].get<double>());
    // 2 bytes per parameter on the device: ~341B / (tp 8 x pp 8) = 5.3B parameters, ~10.7 GB (the first
    // stage holds the 256K-token embedding too).
    CHECK(m8["weights"].get<double>() > 2.0 * 341e9 / 64);
    CHECK(m8["weights"].get<double>() < 2.0 * 341e9 / 64 * 1.1);
    CHECK(fp8["training"]["fits"] == true);
}

namespace {

json fleet_pool(const char* device, int count, const char* site) { return {{"device", device}, {"count", count}, {"site", site}}; }

json fleet_run(const char* preset, const json& pools, std::optional<double> wan) {
    json s = {{"model", {{"preset", preset}}}, {"hardware", {{"pools", pools}}}, {"training", {{"tokens", 1e11}}}, {"explain", false}};
    if (wan) s["hardware"]["wan_bytes_per_second"] = *wan;
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

double tokens_per_second(const json& r) { return r["training"]["tokens_per_second"].get<double>(); }

}  // namespace

TEST_CASE("a fleet's pipeline keeps each site's pools together: a second H100 pool at the first site no longer crosses the WAN twice") {
    // Llama 2 13B on 16 H100 at site a, 64 MI300X and 16 RTX 4090 at b, 10 Gb/s between them. With 16
    // more H100 at a, listed last, the pipeline went a -> b -> a: two WAN crossings, 79,262 tokens/s
    // against 92,493 without that pool (0.86x). Now the stages run a, a, b, b.
    const json three = json::array(
        {fleet_pool("nvidia-h100-sxm5-80gb", 16, "a"), fleet_pool("amd-mi300x", 64, "b"), fleet_pool("nvidia-rtx-4090", 16, "b")});
    json four = three;
    four.push_back(fleet_pool("nvidia-h100-sxm5-80gb", 16, "a"));
    const json r3 = fleet_run("llama2-13b", three, 1.25e9), r4 = fleet_run("llama2-13b", four, 1.25e9);
    REQUIRE(r4["training"]["fleet"]["mode"] == "pipeline");
    CHECK(r4["training"]["fleet"]["pipeline_order"] == json::array({0, 3, 1, 2}));
    CHECK(tokens_per_second(r4) > 0.99 * tokens_per_second(r3));
    // The pools' figures stay in the order given.
    CHECK(r4["training"]["fleet"]["pools"][3]["device"] == "nvidia-h100-sxm5-80gb");
    CHECK(r3["training"]["fleet"]["pipeline_order"] == json::array({0, 1, 2}));
}

TEST_CASE("each device type in a fleet's pipeline takes its own recomputation: RTX 4090 stages without, L40S stages with full") {
    // Llama 3 8B on 8 RTX 4090 and 64 L40S at one site. The L40S stages (4 layers of 8K tokens each)
    // need full recomputation; the whole pipeline had been given it. A second pool of 8 RTX 4090 took
    // the fleet from 85,192 tokens/s to 73,559 (0.86x): each 4090 stage then held 2 layers, recomputed.
    const json two = json::array({fleet_pool("nvidia-rtx-4090", 8, "b"), fleet_pool("nvidia-l40s", 64, "b")});
    json three = two;
    three.push_back(fleet_pool("nvidia-rtx-4090", 8, "b"));
    const json r2 = fleet_run("llama3-8b", two, std::nullopt), r3 = fleet_run("llama3-8b", three, std::nullopt);
    const json& pools = r3["training"]["fleet"]["pools"];
    REQUIRE(r3["training"]["fleet"]["mode"] == "pipeline");
    CHECK(pools[0]["recompute"] == "none");
    CHECK(pools[1]["recompute"] == "full");
    CHECK(pools[2]["recompute"] == "none");
    // One stage more in the pipeline's fill: a little slower, not 14 %.
    CHECK(tokens_per_second(r3) > 0.98 * tokens_per_second(r2));
    CHECK(tokens_per_second(r3) <= tokens_per_second(r2));
}

TEST_CASE("a fleet that trains faster without one of its pools says which, at the speed an estimate of the fleet without it gives") {
    // Llama 2 70B on 32 + 32 MI300X and 8 H100 at site c and 16 MI300X at b, 1 Gb/s between: the pipeline
    // crosses the WAN and runs at ~5,300 tokens/s; the pools at c alone run at ~87,000.
    const json four = json::array({fleet_pool("amd-mi300x", 32, "c"), fleet_pool("nvidia-h100-sxm5-80gb", 8, "c"),
                                   fleet_pool("amd-mi300x", 16, "b"), fleet_pool("amd-mi300x", 32, "c")});
    const json r = fleet_run("llama2-70b", four, 1.25e8);
    json at_c = four;
    at_c.erase(2);
    const json without = fleet_run("llama2-70b", at_c, std::nullopt);
    std::string warning;
    for (const auto& w : r["warnings"])
        if (w.get<std::string>().find("without 16 x Instinct MI300X (b)") != std::string::npos) warning = w.get<std::string>();
    REQUIRE_FALSE(warning.empty());
    CHECK(tokens_per_second(without) > 10 * tokens_per_second(r));
    CHECK(warning.find(gpucalc::jr::fmt_num(tokens_per_second(without)) + " tokens/s") != std::string::npos);
}

TEST_CASE("a pool with no catalog price is asked for its own rent by the cluster's warning as by training's") {
    // Before: the cluster said "set costs.gpu_hour_usd", which reprices every pool, where training
    // said hardware.pools[1].gpu_hour_usd.
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware",
                         {{"pools", json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}, {"gpu_hour_usd", 2.5}},
                                                 {{"device", "amd-mi250x"}, {"count", 64}}})}}},
                        {"training", {{"tokens", 1e11}}},
                        {"explain", false}});
    REQUIRE_FALSE(r.contains("errors"));
    int asked = 0;
    for (const auto& w : r["warnings"]) {
        const std::string s = w.get<std::string>();
        if (s.find("no catalog price for Instinct MI250X") == std::string::npos) continue;
        CHECK(s.find("set hardware.pools[1].gpu_hour_usd (this pool's), or costs.gpu_hour_usd (every pool's)") != std::string::npos);
        ++asked;
    }
    CHECK(asked == 2);  // the cluster's and training's
    CHECK(r["training"]["cost_usd"].is_null());
}

TEST_CASE("a fleet no pipeline layout fits gives no pipeline order, and says why it cannot train") {
    // Llama 3 8B on RTX 4090 and L40S pools with selective recomputation given: neither mode fits.
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware",
                         {{"pools", json::array({{{"device", "nvidia-rtx-4090"}, {"count", 8}},
                                                 {{"device", "nvidia-l40s"}, {"count", 64}},
                                                 {{"device", "nvidia-rtx-4090"}, {"count", 8}}})}}},
                        {"training", {{"tokens", 1e11}, {"recompute", "selective"}}},
                        {"explain", false}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& t = r["training"];
    CHECK(t["fits"] == false);
    CHECK(t["tokens_per_second"].is_null());
    CHECK(t["infeasible_reason"].get<std::string>().find("no pipeline layout fits") != std::string::npos);
    CHECK(t["fleet"]["pipeline_order"].is_null());  // had been [0, 1, 2]
}

TEST_CASE("two custom devices on one base are two devices to a fleet, whatever their ids say") {
    // Both custom H100s get the id "nvidia-h100-sxm5-80gb-custom"; one has a 200 TFLOP/s BF16 peak.
    // The pools-alone estimates were remembered by id, so the full-speed one took the slow one's:
    // data parallel across the pools at 79,505 tokens/s, where it trains at 144,249.
    json s = {{"model", {{"preset", "llama2-7b"}}},
              {"hardware",
               {{"pools",
                 json::array({{{"device", {{"base", "nvidia-h100-sxm5-80gb"}, {"peak_flops_per_second", {{"bf16", 2e14}}}}}, {"count", 8}},
                              {{"device", {{"base", "nvidia-h100-sxm5-80gb"}}}, {"count", 8}},
                              {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 8}}})}}},
              {"training", {{"tokens", 1e11}}},
              {"explain", false}};
    const json same_ids = run(s);
    s["hardware"]["pools"][1]["device"]["id"] = "h100-b";
    const json own_ids = run(s);
    REQUIRE_FALSE(same_ids.contains("errors"));
    REQUIRE_FALSE(own_ids.contains("errors"));
    CHECK(same_ids["training"]["tokens_per_second"] == own_ids["training"]["tokens_per_second"]);
    CHECK(same_ids["training"]["fleet"]["why_not_other"] == own_ids["training"]["fleet"]["why_not_other"]);
    CHECK(same_ids["training"]["fleet"]["mode"] == "data_parallel");
}
