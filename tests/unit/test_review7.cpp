// Fixes of 2026-12-05: what the previous stop's closing note left. Each test states what was shown before.
#include <set>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json pool(const char* device, int count, const char* site) { return {{"device", device}, {"count", count}, {"site", site}}; }

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
    // 32 H100 at site a and 32 A100 at site b training Llama 2 70B: one pipeline through both
    // (8 stages each, H100 holding 57 layers, A100 23), data parallel 4 within each stage.
    const json fleet =
        run({{"model", {{"preset", "llama2-70b"}}},
             {"hardware", {{"pools", json::array({pool("nvidia-h100-sxm5-80gb", 32, "a"), pool("nvidia-a100-sxm4-80gb", 32, "b")})}}},
             {"training", {{"tokens", 1e10}}}});
    REQUIRE_FALSE(fleet.contains("errors"));
    const json& t = fleet["training"];
    REQUIRE(t["fleet"]["mode"] == "pipeline");
    REQUIRE(t["fleet"]["pipeline_data_parallel"] == 4.0);
    REQUIRE(t["fleet"]["pools"][0]["layers"] == 57.0);
    CHECK(t["step_breakdown_seconds"]["dp_comm"].get<double>() > 0);
    // The slowest reduction is an H100 stage: ceil(57 / 8) = 8 layers of 855,654,400 parameters
    // (attention 8192 x (8192 + 2 x 1024 + 8192), MLP 3 x 8192 x 28672, two norms of 8192) and one
    // 32,000 x 8192 embedding (the stage model's, on every stage): 7,107,379,200 parameters.
    // Megatron's distributed optimizer reduce-scatters FP32 gradients and all-gathers BF16
    // parameters (Megatron-LM docs, distrib_optimizer.md): 4 + 2 bytes per parameter, (4 - 1) / 4
    // of them sent by each of the 4 replicas. Before: 0.
    CHECK(t["dp_comm_bytes_per_step"].get<double>() == Approx(7107379200.0 * 6 * 3 / 4).epsilon(1e-12));
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
