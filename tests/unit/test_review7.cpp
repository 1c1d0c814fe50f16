// Fixes of 2026-12-05: what the previous stop's closing note left. Each test states what was shown before.
#include <set>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json pool(const char* device, int count, const char* site) { return {{"device", device}, {"count", count}, {"site", site}}; }

// Llama 3 8B at ZeRO-3 on 64 H100 (DP 64, micro-batch 2, 2 micro-batches per step).
json fsdp_llama3_8b(const char* framework, const char* recompute) {
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                        {"training",
                         {{"tp", 1},
                          {"pp", 1},
                          {"dp", 64},
                          {"zero", 3},
                          {"framework", framework},
                          {"micro_batch", 2},
                          {"global_batch", 256},
                          {"recompute", recompute}}}});
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

}  // namespace

TEST_CASE("a mixed fleet reports the bytes its data-parallel collectives send and not 0 beside their time") {
    // Before: training.dp_comm_bytes_per_step was 0 for every fleet, whatever its dp_comm time.
    const json fleet =
        run({{"model", {{"preset", "llama2-7b"}}},
             {"hardware", {{"pools", json::array({pool("nvidia-h100-sxm5-80gb", 64, "a"), pool("nvidia-a100-sxm4-80gb", 64, "a")})}}},
             {"training", {{"tokens", 1e12}}}});
    REQUIRE_FALSE(fleet.contains("errors"));
    const json& f = fleet["training"]["fleet"];
    REQUIRE(f["mode"] == "data_parallel");
    // The slowest pool sets the step and its reduction: the same pool alone, at the layout and
    // batch share the fleet gave it, sends the same bytes.
    json slow;
    for (const auto& p : f["pools"])
        if (f["slowest_pool"].get<std::string>().find(p["device_name"].get<std::string>()) != std::string::npos) slow = p;
    REQUIRE(slow.is_object());
    const json alone = run({{"model", {{"preset", "llama2-7b"}}},
                            {"hardware", {{"device", slow["device"]}, {"count", slow["count"]}}},
                            {"training",
                             {{"tokens", 1e12},
                              {"tp", slow["tp"]},
                              {"pp", slow["pp"]},
                              {"dp", slow["dp"]},
                              {"zero", slow["zero"]},
                              {"micro_batch", slow["micro_batch"]},
                              {"global_batch", slow["batch_sequences"]}}}});
    REQUIRE_FALSE(alone.contains("errors"));
    const double bytes = alone["training"]["dp_comm_bytes_per_step"].get<double>();
    CHECK(bytes > 0);
    CHECK(fleet["training"]["dp_comm_bytes_per_step"].get<double>() == Approx(bytes).epsilon(1e-12));
}

TEST_CASE("a fleet run as one pipeline through its pools reports its stages' data-parallel bytes") {
    // 32 H100 at site a and 32 A100 at site b training Llama 2 70B with full recomputation: one
    // pipeline through both (8 stages each, H100 holding 56 layers, A100 24), data parallel 4 within
    // each stage. (Left to choose, each device type takes its own recomputation since 2026-12-06.)
    const json fleet =
        run({{"model", {{"preset", "llama2-70b"}}},
             {"hardware", {{"pools", json::array({pool("nvidia-h100-sxm5-80gb", 32, "a"), pool("nvidia-a100-sxm4-80gb", 32, "b")})}}},
             {"training", {{"tokens", 1e10}, {"recompute", "full"}}}});
    REQUIRE_FALSE(fleet.contains("errors"));
    const json& t = fleet["training"];
    REQUIRE(t["fleet"]["mode"] == "pipeline");
    REQUIRE(t["fleet"]["pipeline_data_parallel"] == 4.0);
    REQUIRE(t["fleet"]["pools"][0]["layers"] == 56.0);
    CHECK(t["step_breakdown_seconds"]["dp_comm"].get<double>() > 0);
    // The slowest reduction is an H100 stage: 56 / 8 = 7 layers of 855,654,400 parameters
    // (attention 8192 x (8192 + 2 x 1024 + 8192), MLP 3 x 8192 x 28672, two norms of 8192) and one
    // 32,000 x 8192 embedding (the stage model's, on every stage): 6,251,724,800 parameters.
    // Megatron's distributed optimizer reduce-scatters FP32 gradients and all-gathers BF16
    // parameters (Megatron-LM docs, distrib_optimizer.md): 4 + 2 bytes per parameter, (4 - 1) / 4
    // of them sent by each of the 4 replicas. Before: 0.
    CHECK(t["dp_comm_bytes_per_step"].get<double>() == Approx(6251724800.0 * 6 * 3 / 4).epsilon(1e-12));
}

TEST_CASE("fine-tuning says how its devices share the run") {
    // Before: 8 GPUs were sharded with FSDP (every byte divided by 8) and the report did not say so.
    auto sharding = [](int count, bool offload) {
        const json r = run({{"model", {{"preset", "llama3-8b"}}},
                            {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", count}}},
                            {"finetune", {{"method", "full"}, {"tokens", 1e8}, {"cpu_offload", offload}}}});
        REQUIRE_FALSE(r.contains("errors"));
        return r["finetune"]["sharding"].get<std::string>();
    };
    CHECK(sharding(1, false) == "none");
    CHECK(sharding(8, false) == "fsdp");
    CHECK(sharding(8, true) == "fsdp_cpu_offload");
    CHECK(sharding(1, true) == "fsdp_cpu_offload");
    // FSDP's sharding is what the memory shows: 8 GPUs hold an eighth of the 16-bit weights each.
    const json one = run({{"model", {{"preset", "llama3-8b"}}},
                          {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1}}},
                          {"finetune", {{"method", "full"}}}});
    const json eight = run({{"model", {{"preset", "llama3-8b"}}},
                            {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 8}}},
                            {"finetune", {{"method", "full"}}}});
    CHECK(eight["finetune"]["memory_per_gpu_bytes"]["weights"].get<double>() ==
          Approx(one["finetune"]["memory_per_gpu_bytes"]["weights"].get<double>() / 8).epsilon(1e-12));
}

TEST_CASE("the latency-target search tries FP4 weights where the hardware multiplies FP4 and nowhere else") {
    // Before: the search tried bf16, fp8, int8 and int4 weights, never fp4, even on a B200.
    auto weights_tried = [](const char* device) {
        const json r = run({{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", device}, {"count", 8}}},
                            {"inference",
                             {{"prompt_tokens", 1500},
                              {"output_tokens", 300},
                              {"requests_per_day", 2e7},
                              {"slo", {{"ttft_seconds", 0.5}, {"tpot_seconds", 0.025}}}}}});
        REQUIRE_FALSE(r.contains("errors"));
        std::set<std::string> tried;
        for (const auto& c : r["inference"]["slo"]["candidates"]) tried.insert(c["weight_precision"].get<std::string>());
        return tried;
    };
    CHECK(weights_tried("nvidia-b200").count("fp4") == 1);            // B200: dense FP4 9 PFLOP/s (datasheet)
    CHECK(weights_tried("nvidia-h100-sxm5-80gb").count("fp4") == 0);  // Hopper has no FP4 tensor cores
    CHECK(weights_tried("nvidia-h100-sxm5-80gb").count("int4") == 1);
}

TEST_CASE("a draft model given by its architecture pays all-reduces at its own depth and width") {
    // Before: a Llama 3 8B draft of Llama 3 70B at TP 8 paid the target's all-reduces x 8.03 / 70.55
    // (its parameter share, 0.40 ms) where its 32 layers pay 2 each (1.41 ms); the speed-up was 1.69.
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                        {"inference",
                         {{"tp", 8},
                          {"batch", 1},
                          {"prompt_tokens", 1024},
                          {"output_tokens", 512},
                          {"speculative", {{"draft_model", {{"preset", "llama3-8b"}}}, {"draft_tokens", 4}, {"acceptance_rate", 0.7}}}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& v = r["explain"]["inference.decode_seconds_per_token"]["values"];
    const json& ar = r["explain"]["inference.decode_breakdown_seconds.tp_comm"]["values"];
    const double base = ar["collective_base_seconds"].get<double>(), hop = ar["collective_per_hop_seconds"].get<double>();
    const double link = ar["link_bytes_per_second"].get<double>();
    // Llama 3 8B config.json: 32 layers, hidden 4096; one token per sequence per draft step, batch 1;
    // a ring all-reduce of 16-bit activations (Patarasuk and Yuan 2009): 2 (tp - 1) / tp of them sent.
    const double per_call = base + hop * std::log2(8.0) + 2.0 * 7 / 8 * 1 * 4096 * 2 / link;
    CHECK(v["draft_tp_comm"].get<double>() == Approx(32 * 2 * per_call).epsilon(1e-12));
    CHECK(v["draft_tp_comm"].get<double>() == Approx(1.4107e-3).epsilon(1e-3));  // 64 x 22.04 us
    // Leviathan et al. 2023 Eq. 1: (1 - 0.7^5) / (1 - 0.7) = 2.7731 tokens per verification.
    CHECK(r["inference"]["speculative"]["speedup"].get<double>() < 1.45);
}

TEST_CASE("a decoded token's attention FLOPs apply a sliding window once") {
    // A 32-layer model with 128 heads of 128 and one KV head (so FLOPs, not KV reads, bound its
    // attention), half its layers windowed at 128 tokens, decoding at a 32,769-token context.
    // Before: the context was windowed twice (16,448 then 8,288 tokens), so the FLOPs term fell
    // under the KV reads and the windowed attention took 1.53 ms instead of 2.23.
    auto attention = [](int window) {
        json m = {{"layers", 32},        {"hidden", 8192},       {"heads", 128},   {"kv_heads", 1},    {"head_dim", 128},
                  {"ffn_hidden", 16384}, {"ffn_kind", "swiglu"}, {"vocab", 32000}, {"seq_len", 65536}, {"position_embedding", "rope"},
                  {"biases", false},     {"norm", "rmsnorm"}};
        if (window) m["sliding_window"] = window, m["full_attention_layers"] = 16;
        const json r =
            run({{"model", m},
                 {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                 {"inference", {{"tp", 1}, {"batch", 32}, {"kv_precision", "fp8"}, {"prompt_tokens", 32768}, {"output_tokens", 2}}}});
        REQUIRE_FALSE(r.contains("errors"));
        const json& d = r["inference"]["decode_breakdown_seconds"];
        CHECK(d["attention"].get<double>() > d["kv_cache"].get<double>());  // FLOP-bound, both
        return d["attention"].get<double>();
    };
    // Attended tokens averaged over the layers: (16 x 32,769 + 16 x 128) / 32 = 16,448.5, against
    // 32,769 with no window; attention FLOPs scale with them (2 x heads x (qk + v) x tokens per layer).
    CHECK(attention(128) / attention(0) == Approx(16448.5 / 32769).epsilon(1e-9));
}

TEST_CASE("full fine-tuning with an FP32 master copy under FSDP holds 16 bytes per parameter, not 18") {
    // Llama 3 8B (8,030,261,248 parameters, vocabulary 128,256, hidden 4096) on 8 A100 with
    // master_weights. Before: a 16-bit weight shard sat beside the FP32 master shard (2 + 4 + 4 + 8
    // bytes per parameter) and the head's gradient was FP32 (the FSDP step-time model's framework
    // holds neither): 22.7 GB per GPU instead of 19.7.
    const double P = 8030261248.0;
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 8}}},
                        {"finetune", {{"method", "full"}, {"batch", 2}, {"seq_len", 4096}, {"master_weights", true}, {"tokens", 1e9}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& m = r["finetune"]["memory_per_gpu_bytes"];
    CHECK(m["weights"].get<double>() == 0);
    CHECK(m["master_weights"].get<double>() == Approx(P * 4 / 8).epsilon(1e-12));
    CHECK(m["optimizer"].get<double>() == Approx(P * 8 / 8).epsilon(1e-12));  // AdamW m and v in FP32
    CHECK(m["head_gradient"].get<double>() == Approx(128256.0 * 4096 * 2).epsilon(1e-12));
    // On one device, autocast's cached 16-bit weights and the FP32 head gradient stay.
    const json one = run({{"model", {{"preset", "llama3-8b"}}},
                          {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1}}},
                          {"finetune", {{"method", "full"}, {"batch", 1}, {"seq_len", 1024}, {"master_weights", true}}}});
    CHECK(one["finetune"]["memory_per_gpu_bytes"]["weights"].get<double>() == Approx(P * 2).epsilon(1e-12));
    CHECK(one["finetune"]["memory_per_gpu_bytes"]["head_gradient"].get<double>() == Approx(128256.0 * 4096 * 4).epsilon(1e-12));
}

TEST_CASE("FSDP with full recomputation gathers each layer twice per micro-batch and not three times") {
    // Before: m x (2 + 2 + 4 + 2) bytes per parameter (a third gather for the recomputed forward):
    // 158.1 GB per step for Llama 3 8B on 64 H100, micro-batch 2, 2 micro-batches. PyTorch FSDP wraps
    // the checkpointed block (torchtitan: activation checkpointing, then fully_shard, per block), so
    // the recomputation runs inside the backward's gather (fairscale#777): 126.5 GB, as without it.
    auto bytes = [](const char* recompute) {
        const json r = fsdp_llama3_8b("fsdp", recompute);
        return r["training"]["dp_comm_bytes_per_step"].get<double>();
    };
    CHECK(bytes("full") == Approx(bytes("none")).epsilon(1e-12));
    // 2 micro-batches x (2 B gather forward + 2 B gather backward + 4 B FP32 reduce-scatter) per parameter
    CHECK(bytes("full") / (2 * 8) > 7.5e9);
    CHECK(bytes("full") / (2 * 8) < 8.04e9);
}

TEST_CASE("uneven pipeline stages warn when a middle stage would not fit by the memory formulas") {
    // Llama 3.1 405B (126 layers) on 16 stages: the first holds 7 layers and 16 micro-batches in
    // flight (77.5 GiB, sized), the second 8 layers and 15 (1F1B: stage i holds p - i, Narayanan
    // et al. 2021 Sec. 2.2): 8 x 15 = 120 layer-micro-batches of activations against 7 x 16 = 112,
    // and 8 layers' weights and states against 7 and the embedding: about 82.5 GiB, above an H100's
    // 80. Before: "fits" with nothing said.
    const json r =
        run({{"model", {{"preset", "llama3.1-405b"}}},
             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16384}}},
             {"training",
              {{"tp", 8}, {"pp", 16}, {"dp", 128}, {"zero", 1}, {"micro_batch", 1}, {"global_batch", 2048}, {"recompute", "none"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["fits"] == true);
    const std::string w = r["warnings"].dump();
    CHECK(w.find("a middle pipeline stage holds one layer more than the first") != std::string::npos);
    CHECK(w.find("about 82.5") != std::string::npos);
    // With full recomputation there is room: no warning.
    json sc = {
        {"model", {{"preset", "llama3.1-405b"}}},
        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16384}}},
        {"training", {{"tp", 8}, {"pp", 16}, {"dp", 128}, {"zero", 1}, {"micro_batch", 1}, {"global_batch", 2048}, {"recompute", "full"}}}};
    CHECK(run(sc)["warnings"].dump().find("middle pipeline stage") == std::string::npos);
}

TEST_CASE("PyTorch FSDP holds its root unit gathered through the step: embeddings, output layer and its gradient") {
    // Llama 3 8B (untied 128,256 x 4096 input and output tables) at ZeRO-3 on 64 H100, framework
    // fsdp. fully_shard's reshard_after_forward defaults to False for the root (PyTorch docs), so the
    // root unit stays gathered: 2 x 525,336,576 parameters x 2 B, and the output layer's unsharded
    // gradient (4 B: fsdp reduces in fp32) from the loss backward. Before: only two gathered
    // layers (1.745 GB), 2.1 GB short of the root alone.
    auto buffer = [](const char* framework) {
        const json r = fsdp_llama3_8b(framework, "full");
        return r["training"]["zero3_buffer_bytes"].get<double>();
    };
    const double table = 128256.0 * 4096;
    // Megatron-FSDP (also FP32 gradients) holds no root unit: the difference is the root alone.
    CHECK(buffer("fsdp") - buffer("megatron") == Approx(2 * table * 2 + table * 4).epsilon(1e-9));
    CHECK(buffer("torchtitan") == Approx(buffer("fsdp")).epsilon(1e-12));
}
