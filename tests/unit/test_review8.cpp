// Fixes of 2026-12-05 (second session): what the previous stop's closing note left. Each test states what was shown before.
#include "helpers.hpp"

using nlohmann::json;

namespace {

// DeepSeek-V3 (61 layers, the first 3 with a dense MLP) on 256 H800: TP1 PP16 EP8 DP16, ZeRO-1, BF16,
// full recomputation, micro-batch 1 (global_batch / 16 micro-batches per step). Uneven stages
// (stage_split): the first holds ceil(63 / 16) - 1 = 3 layers, the next ones ceil((61 - 6) / 14) = 4.
json deepseek_pp16(bool dualpipe, int global_batch = 256) {
    const json r = run({{"model", {{"preset", "deepseek-v3"}}},
                        {"hardware", {{"device", "nvidia-h800-sxm5-80gb"}, {"count", 256}}},
                        {"training",
                         {{"tp", 1},
                          {"pp", 16},
                          {"dp", 16},
                          {"ep", 8},
                          {"zero", 1},
                          {"precision", "bf16"},
                          {"micro_batch", 1},
                          {"global_batch", global_batch},
                          {"recompute", "full"},
                          {"dualpipe", dualpipe}}}});
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

// A small MoE model: hidden 1,024, 8 heads, 64 SwiGLU experts of width 4,096 (2 per token), dense
// layers of width 4,096, a 32,000-token vocabulary, RoPE, RMSNorm, no biases.
json small_moe(int layers, int dense_layers) {
    return {{"layers", layers},       {"dense_layers", dense_layers},
            {"hidden", 1024},         {"heads", 8},
            {"ffn_hidden", 4096},     {"experts", 64},
            {"experts_per_token", 2}, {"expert_ffn_hidden", 4096},
            {"vocab", 32000},         {"seq_len", 2048},
            {"ffn_kind", "swiglu"},   {"position_embedding", "rope"},
            {"norm", "rmsnorm"},      {"biases", false}};
}

// One MoE layer of DeepSeek-V3 on one device at TP1 EP8, by hand from its config.json (hidden 7168,
// 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128, 256 routed
// experts and 1 shared of width 2048, router with a bias):
// attention q 7168x1536 + 1536 + 1536x128x192 = 48,760,320; kv 7168x576 + 512 + 512x128x256 =
// 20,906,496; o 128x128x7168 = 117,440,512; two norms 14,336; shared expert 3x7168x2048 = 44,040,192;
// router 7168x256 + 256 = 1,835,264: 232,997,120 outside the routed experts, and 256 x 44,040,192 / 8
// = 1,409,286,144 routed.
constexpr double deepseek_moe_layer_on_ep8 = 232'997'120.0 + 1'409'286'144.0;

}  // namespace

TEST_CASE("an MoE model's memory sizes the pipeline stage holding the most routed experts") {
    // Before: the routed experts were spread evenly over all 61 layers, so the first stage (3 dense
    // layers, no experts) was charged 3 x 58/61 of an MoE layer's experts and sized at ~5.7 B
    // parameters per device, while the second stage holds 4 whole MoE layers: 6.57 B.
    const json r = deepseek_pp16(false);
    const json& mem = r["training"]["memory_per_gpu_bytes"];
    // BF16 weights, unsharded under ZeRO-1: 2 bytes x 4 MoE layers.
    CHECK(mem["weights"].get<double>() == Approx(2.0 * 4.0 * deepseek_moe_layer_on_ep8).epsilon(1e-9));
    // Its fp32 gradients (Megatron's main_grad): 4 bytes each.
    CHECK(mem["gradients"].get<double>() == Approx(4.0 * 4.0 * deepseek_moe_layer_on_ep8).epsilon(1e-9));
}

TEST_CASE("under DualPipe a device holds the parameters of both its stages") {
    // Before: twice the first stage's (averaged) parameters. Device 1 holds stages 1 and 14, 4 MoE
    // layers each (DeepSeek-V3 Sec. 3.2.1: a stage of each direction per device).
    const json r = deepseek_pp16(true);
    CHECK(r["training"]["memory_per_gpu_bytes"]["weights"].get<double>() == Approx(2.0 * 8.0 * deepseek_moe_layer_on_ep8).epsilon(1e-9));
}

TEST_CASE("a dense model's memory still sizes the first pipeline stage") {
    // Llama 2 70B (80 layers) at TP8 PP4 on 64 A100: 20 layers per stage, the first with the embedding
    // 32,000 x 8,192. A layer: attention 8192 x (8192 + 2 x 1024 + 8192) = 150,994,944, MLP 3 x 8192 x
    // 28672 = 704,643,072, norms 16,384: 855,654,400. Per device: (20 x 855,654,400 + 262,144,000) / 8.
    const json r = run(
        {{"model", {{"preset", "llama2-70b"}}},
         {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}}},
         {"training", {{"tp", 8}, {"pp", 4}, {"dp", 2}, {"zero", 0}, {"micro_batch", 1}, {"global_batch", 64}, {"recompute", "full"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const double params = (20.0 * 855'654'400.0 + 262'144'000.0) / 8.0;
    CHECK(r["training"]["memory_per_gpu_bytes"]["weights"].get<double>() == Approx(2.0 * params).epsilon(1e-9));
}

TEST_CASE("a DualPipe device keeps p - j micro-batches of one stage and j + 1 of the other") {
    // deepseek-ai/DualPipe dualpipe.py DualPipe.step: rank j (first half) runs 2 (p/2 - j - 1) + j + 1
    // forwards of its own direction and j + 1 of the other before its first backward, one more at the
    // peak: p - j + j + 1 = p + 1 (Table 2), here capped by the step's 16 micro-batches. Device 1's
    // stages hold 4 layers each: 16 x 4 layer-micro-batches against 1F1B's stage 1, min(16, 15) x 4.
    // Under full recomputation a layer keeps its input, 2 x s x h bytes (s 4,096, h 7,168).
    const double layer = 2.0 * 4096.0 * 7168.0;
    const double dual = deepseek_pp16(true)["training"]["memory_per_gpu_bytes"]["activations"].get<double>();
    const double one_f_one_b = deepseek_pp16(false)["training"]["memory_per_gpu_bytes"]["activations"].get<double>();
    CHECK(dual - one_f_one_b == Approx((16.0 - 15.0) * 4.0 * layer).epsilon(1e-9));
}

TEST_CASE("a stage holds no more micro-batches in flight than the step has") {
    // Before: the second stage was charged min(m, p) - 1. With 4 micro-batches (global batch 64 over
    // dp 16) stage 1 holds all 4, not 3; with 16 it holds p - 1 = 15.
    auto activations = [](int global_batch) {
        return deepseek_pp16(false, global_batch)["training"]["memory_per_gpu_bytes"]["activations"].get<double>();
    };
    CHECK(activations(256) - activations(64) == Approx((15.0 - 4.0) * 4.0 * 2.0 * 4096.0 * 7168.0).epsilon(1e-9));
}

TEST_CASE("an MoE model's last stage is sized with its output layer") {
    // DeepSeek-V3 at PP9 EP64 DP64 (uneven: the first and last stages 6 layers, the middle ones 7):
    // with ep = dp the routed experts' optimizer state is not sharded, and the last stage, 6 MoE layers
    // and the 129,280 x 7,168 output layer, needs the most. An MoE layer on one device at EP64:
    // 232,997,120 + 11,274,289,152 / 64 = 409,157,888 parameters.
    const json r = run({{"model", {{"preset", "deepseek-v3"}}},
                        {"hardware", {{"device", "nvidia-h800-sxm5-80gb"}, {"count", 576}}},
                        {"training",
                         {{"tp", 1},
                          {"pp", 9},
                          {"dp", 64},
                          {"ep", 64},
                          {"zero", 1},
                          {"precision", "bf16"},
                          {"micro_batch", 1},
                          {"global_batch", 256},
                          {"recompute", "full"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["memory_per_gpu_bytes"]["weights"].get<double>() ==
          Approx(2.0 * (6.0 * 409'157'888.0 + 129'280.0 * 7'168.0)).epsilon(1e-9));
}

TEST_CASE("DualPipe refuses an odd number of pipeline stages") {
    // Before: pp 15 was accepted and the middle device charged the same stage twice.
    const json r = run({{"model", {{"preset", "deepseek-v3"}}},
                        {"hardware", {{"device", "nvidia-h800-sxm5-80gb"}, {"count", 240}}},
                        {"training", {{"tp", 1}, {"pp", 15}, {"dp", 16}, {"ep", 8}, {"dualpipe", true}, {"global_batch", 480}}}});
    REQUIRE(r.contains("errors"));
    CHECK(r["errors"][0]["field"] == "training.pp");
}

TEST_CASE("uneven pipeline stages hold every layer") {
    // Before (red team): 7 layers on 4 stages were split 2/2/1/1, the last stage starting where even
    // stages would have put it, so one layer sat on no stage and the last stage, sized with its output
    // layer, held 1 MoE layer: 16.2 GiB, less than the same model with 8 layers (30.6 GiB). Now
    // 2/2/1/2: the last stage holds layers 5 and 6, both MoE, and the 32,000 x 1,024 output layer.
    // An MoE layer: attention 4 x 1,024^2 = 4,194,304, norms 2,048, 64 SwiGLU experts of width 4,096
    // 64 x 3 x 1,024 x 4,096 = 805,306,368, router 1,024 x 64 = 65,536: 809,568,256.
    const json r =
        run({{"model", small_moe(7, 3)},
             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 4}}},
             {"training", {{"layout", "given"}, {"tp", 1}, {"pp", 4}, {"dp", 1}, {"ep", 1}, {"global_batch", 1}, {"micro_batch", 1}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["memory_per_gpu_bytes"]["weights"].get<double>() ==
          Approx(2.0 * (2.0 * 809'568'256.0 + 32'000.0 * 1'024.0)).epsilon(1e-9));
}

TEST_CASE("an interleaved pipeline spreads an MoE model's dense layers over its devices' chunks") {
    // Before (red team): with vpp 2 each device was taken to hold one block of layers, so device 1 of
    // PP2 held layers 8-15, all MoE: 13.0 GB of weights, as without interleaving. Megatron-LM's virtual
    // pipeline gives device 0 chunks 0 and 2 (layers 0-3, dense, and 8-11) and device 1 chunks 1 and 3
    // (layers 4-7, dense, and 12-15): 4 dense and 4 MoE layers each. A dense layer: attention
    // 4,194,304, norms 2,048, SwiGLU 3 x 1,024 x 4,096 = 12,582,912: 16,779,264; an MoE layer
    // 809,568,256 (above); the 32,000 x 1,024 embedding on device 0, the output layer on device 1.
    const json r =
        run({{"model", small_moe(16, 8)},
             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
             {"training",
              {{"layout", "given"}, {"tp", 1}, {"pp", 2}, {"vpp", 2}, {"dp", 1}, {"ep", 1}, {"global_batch", 8}, {"micro_batch", 1}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["memory_per_gpu_bytes"]["weights"].get<double>() ==
          Approx(2.0 * (4.0 * 16'779'264.0 + 4.0 * 809'568'256.0 + 32'000.0 * 1'024.0)).epsilon(1e-9));
}
