// Accuracy of the training performance model against published runs.
// Calibration set: 5 rows of Megatron-LM 2021 Table 1 (marked CAL); everything else is held out.
// The table printed here is docs/VALIDATION.md (scripts/validation.sh regenerates it).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;

namespace {

struct Case {
    const char* id;
    const char* what;
    json scenario;
    const char* metric;  // report key under training (or inference, see section)
    double published;
    double scale;        // divide the predicted value by this before comparing
    const char* source;
    bool calibration;
    const char* section = "training";
    double tolerance = 0.35;  // held-out bound (Megatron rows: 10%)
};

json megatron(const char* preset, double tp, double pp, double n, double gb) {
    // Megatron-LM 2021 settings: fp16, full activation recomputation, unfused attention scores,
    // no distributed optimizer, micro-batch 1 (not given in Table 1: our assumption).
    return {{"model", {{"preset", preset}}},
            {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", n}}},
            {"training",
             {{"tp", tp}, {"pp", pp}, {"global_batch", gb}, {"micro_batch", 1}, {"recompute", "full"}, {"precision", "fp16"},
              {"attention", "materialized"}, {"sequence_parallel", false}, {"zero", 0}, {"overlap_dp_comm", false}}},
            {"explain", false}};
}

std::vector<Case> cases() {
    const char* mt = "Narayanan et al. 2021 (arXiv:2104.04473) Table 1";
    std::vector<Case> c = {
        {"megatron-1.7b", "GPT 1.7B, 32 A100, TP1 PP1", megatron("megatron-1.7b", 1, 1, 32, 512), "achieved_flops_per_second_per_gpu", 137, 1e12, mt, true},
        {"megatron-3.6b", "GPT 3.6B, 64 A100, TP2 PP1", megatron("megatron-3.6b", 2, 1, 64, 512), "achieved_flops_per_second_per_gpu", 138, 1e12, mt, false},
        {"megatron-7.5b", "GPT 7.5B, 128 A100, TP4 PP1", megatron("megatron-7.5b", 4, 1, 128, 512), "achieved_flops_per_second_per_gpu", 142, 1e12, mt, true},
        {"megatron-18b", "GPT 18B, 256 A100, TP8 PP1", megatron("megatron-18b", 8, 1, 256, 1024), "achieved_flops_per_second_per_gpu", 135, 1e12, mt, false},
        {"megatron-39b", "GPT 39B, 512 A100, TP8 PP2", megatron("megatron-39b", 8, 2, 512, 1536), "achieved_flops_per_second_per_gpu", 138, 1e12, mt, true},
        {"megatron-76b", "GPT 76B, 1024 A100, TP8 PP4", megatron("megatron-76b", 8, 4, 1024, 1792), "achieved_flops_per_second_per_gpu", 140, 1e12, mt, false},
        {"megatron-145b", "GPT 145B, 1536 A100, TP8 PP8", megatron("megatron-145b", 8, 8, 1536, 2304), "achieved_flops_per_second_per_gpu", 148, 1e12, mt, true},
        {"megatron-310b", "GPT 310B, 1920 A100, TP8 PP16", megatron("megatron-310b", 8, 16, 1920, 2160), "achieved_flops_per_second_per_gpu", 155, 1e12, mt, false},
        {"megatron-530b", "GPT 530B, 2520 A100, TP8 PP35", megatron("megatron-530b", 8, 35, 2520, 2520), "achieved_flops_per_second_per_gpu", 163, 1e12, mt, true},
        {"megatron-1t", "GPT 1T, 3072 A100, TP8 PP64", megatron("megatron-1t", 8, 64, 3072, 3072), "achieved_flops_per_second_per_gpu", 163, 1e12, mt, false},
    };
    // Held-out runs. Their parallel layouts are from the papers where stated, else marked assumed.
    c.push_back({"llama-65b", "LLaMA 65B, 2048 A100-80GB (assumed TP8 PP4, selective recompute, flash)",
                 {{"model", {{"preset", "llama-65b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 2048}}},
                  {"training", {{"tokens", 1.4e12}, {"tp", 8}, {"pp", 4}, {"global_batch", 2048}, {"recompute", "selective"}}},
                  {"explain", false}},
                 "tokens_per_second", 380.0 * 2048, 1, "Touvron et al. 2023 (arXiv:2302.13971) Sec. 2.4: 380 tokens/s/GPU", false});
    c.push_back({"bloom-176b", "BLOOM 176B, 384 A100-80GB, TP4 PP12 DP8, micro-batch 2, ZeRO-1",
                 {{"model", {{"preset", "bloom-176b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 384}}},
                  {"training", {{"tp", 4}, {"pp", 12}, {"global_batch", 2048}, {"micro_batch", 2}, {"zero", 1}, {"recompute", "full"},
                                {"attention", "materialized"}}},
                  {"explain", false}},
                 "achieved_flops_per_second_per_gpu", 156, 1e12, "BigScience 2022 (arXiv:2211.05100) Sec. 3.4.1: 156 TFLOP/s", false});
    c.push_back({"opt-175b", "OPT-175B, 992 A100-80GB, Megatron TP8 + FSDP (ZeRO-3), full recompute ('up to' 147)",
                 {{"model", {{"preset", "opt-175b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 992}}},
                  {"training", {{"tp", 8}, {"global_batch", 992}, {"zero", 3}, {"recompute", "full"}, {"attention", "materialized"}}},
                  {"explain", false}},
                 "achieved_flops_per_second_per_gpu", 147, 1e12, "Zhang et al. 2022 (arXiv:2205.01068) Sec. 2.4", false});
    c.push_back({"mpt-7b", "MPT-7B, 440 A100-40GB, FSDP (ZeRO-3), 1T tokens, 9.5 days",
                 {{"model", {{"preset", "mpt-7b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-40gb"}, {"count", 440}}},
                  {"training", {{"tokens", 1e12}, {"global_batch", 1760}, {"zero", 3}, {"recompute", "selective"}}},
                  {"explain", false}},
                 "days", 9.5, 1, "mosaicml/mpt-7b model card", false});
    c.push_back({"llama2-7b", "Llama 2 7B, 2T tokens (assumed 256 A100, ZeRO-1)",
                 {{"model", {{"preset", "llama2-7b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 256}}},
                  {"training", {{"tokens", 2e12}, {"global_batch", 1024}, {"zero", 1}}},
                  {"explain", false}},
                 "gpu_hours", 184320, 1, "Llama 2 MODEL_CARD.md (meta-llama/llama): 184,320 GPU-hours", false});
    c.push_back({"llama2-70b", "Llama 2 70B, 2T tokens (assumed 2048 A100, TP8 PP4)",
                 {{"model", {{"preset", "llama2-70b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 2048}}},
                  {"training", {{"tokens", 2e12}, {"tp", 8}, {"pp", 4}, {"global_batch", 1024}}},
                  {"explain", false}},
                 "gpu_hours", 1720320, 1, "Llama 2 MODEL_CARD.md: 1,720,320 GPU-hours", false});
    // Hopper (uncalibrated constants): Llama 3 405B, Dubey et al. 2024 (arXiv:2407.21783) Table 4, BF16,
    // seq 8,192, 16M tokens per batch, TP8 PP16 (CP1). Interleaving depth and recomputation are not
    // published: vpp 4 assumed, and full recomputation, the only setting with which our memory model
    // fits this layout in 80 GB (selective needs ~120 GiB: Meta used memory savings we do not model).
    auto llama3 = [](double n) {
        return json{{"model", {{"preset", "llama3.1-405b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", n}}},
                    {"training", {{"tp", 8}, {"pp", 16}, {"vpp", 4}, {"global_batch", 2048}, {"recompute", "full"}}},
                    {"explain", false}};
    };
    const char* l3 = "Dubey et al. 2024 (arXiv:2407.21783) Table 4: 430 / 400 TFLOPS per GPU (BF16 MFU 43% / 41%)";
    c.push_back({"llama3-405b-8k", "Llama 3 405B, 8,192 H100, TP8 PP16 (vpp 4 assumed)", llama3(8192), "mfu", 430 / 989.4, 1, l3, false});
    c.push_back({"llama3-405b-16k", "Llama 3 405B, 16,384 H100, TP8 PP16 (vpp 4 assumed)", llama3(16384), "mfu", 400 / 989.4, 1, l3, false});
    // Serving rows (gpt-fast, TensorRT-LLM) are in test_serving_validation.cpp.
    return c;
}

}  // namespace

TEST_CASE("validation: Megatron 2021 within 10% per row and 5% median; held-out runs reported") {
    std::vector<double> megatron_err;
    std::string table =
        "| case | configuration | metric | published | predicted | error | set | source |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& c : cases()) {
        auto r = run(c.scenario);
        INFO(c.id << " " << r.dump().substr(0, 400));
        REQUIRE_FALSE(r.contains("errors"));
        const double pred = r[c.section][c.metric].get<double>() / c.scale;
        const double err = (pred - c.published) / c.published;
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %s | %s | %.4g | %.4g | %+.1f%% | %s | %s |\n", c.id, c.what, c.metric, c.published, pred,
                      100 * err, c.calibration ? "calibration" : "held out", c.source);
        table += line;
        if (std::string(c.id).rfind("megatron", 0) == 0) {
            megatron_err.push_back(std::abs(err));
            CHECK(std::abs(err) < 0.10);
        } else {
            CHECK(std::abs(err) < c.tolerance);  // held-out: reported, loosely bounded (layouts partly assumed)
        }
    }
    std::sort(megatron_err.begin(), megatron_err.end());
    const double median = (megatron_err[4] + megatron_err[5]) / 2;
    CHECK(median < 0.05);
    std::ofstream("validation-table.md") << table;
}
