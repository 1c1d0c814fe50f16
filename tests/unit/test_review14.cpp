// Checks of 2026-12-06 (ninth session). Each test states what it pins and its source.
#include "helpers.hpp"

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
