// Accuracy of the serving model against published measurements (docs/VALIDATION.md, "Serving").
// Which constants were fitted on which source is said in core/include/gpucalc/inference.hpp:
//  - gpt-fast batch-1 decode (memory, kernel, collective and dequantisation constants);
//  - TensorRT-LLM 0.17 perf-overview max throughput (GEMM efficiency, per-sequence step time);
// every other set is held out: TensorRT-LLM's later (v1.0, PyTorch backend) table and the
// TensorRT-LLM v0.5 blog rows with a stated static batch.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/inference.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/scenario_parse.hpp"
#include "helpers.hpp"

using nlohmann::json;

namespace {

// Architectures not among the presets (Hugging Face config.json of each model).
json model_json(const std::string& id) {
    if (id == "llama31_8b") return {{"preset", "llama3-8b"}};
    if (id == "llama31_70b") return {{"preset", "llama3-70b"}};
    if (id == "llama31_405b") return {{"preset", "llama3.1-405b"}};
    if (id == "mixtral_8x7b") return {{"preset", "mixtral-8x7b"}};
    if (id == "llama2_7b") return {{"preset", "llama2-7b"}};
    if (id == "llama2_70b") return {{"preset", "llama2-70b"}};
    const json llama = {
        {"ffn_kind", "swiglu"}, {"norm", "rmsnorm"}, {"position_embedding", "rope"}, {"biases", false}, {"tied_embeddings", false}};
    json m = llama;
    if (id == "mistral_7b") {  // mistralai/Mistral-7B-v0.1 (sliding window not modelled: the engines ran full attention)
        m.update({{"name", "Mistral 7B"},
                  {"layers", 32},
                  {"hidden", 4096},
                  {"heads", 32},
                  {"kv_heads", 8},
                  {"ffn_hidden", 14336},
                  {"vocab", 32000}});
    } else if (id == "mixtral_8x22b") {  // mistralai/Mixtral-8x22B-v0.1
        m.update({{"name", "Mixtral 8x22B"},
                  {"layers", 56},
                  {"hidden", 6144},
                  {"heads", 48},
                  {"kv_heads", 8},
                  {"ffn_hidden", 16384},
                  {"vocab", 32768},
                  {"experts", 8},
                  {"experts_per_token", 2},
                  {"expert_ffn_hidden", 16384}});
    } else if (id == "llama2_13b") {  // meta-llama/Llama-2-13b-hf
        m.update({{"name", "Llama 2 13B"},
                  {"layers", 40},
                  {"hidden", 5120},
                  {"heads", 40},
                  {"kv_heads", 40},
                  {"ffn_hidden", 13824},
                  {"vocab", 32000}});
    } else if (id == "gptj_6b") {  // EleutherAI/gpt-j-6b: parallel attention + MLP, rotary, untied output with bias
        m = {{"name", "GPT-J 6B"},
             {"layers", 28},
             {"hidden", 4096},
             {"heads", 16},
             {"ffn_hidden", 16384},
             {"vocab", 50400},
             {"ffn_kind", "gelu"},
             {"position_embedding", "rope"},
             {"parallel_attention", true},
             {"tied_embeddings", false}};
    }
    return m;
}

struct Row {
    const char* model;
    const char* device;
    int tp;
    bool fp8;
    int isl, osl;
    double published;  // output tokens/s of the whole system (all tp GPUs)
};

// TensorRT-LLM docs/source/performance/perf-overview.md @ 258c7540 ("Throughput Measurements",
// generated with v0.17): output tokens/s, whole system; FP8 weights, activations and KV cache on
// H100/H200, FP16 on A100; max batch chosen by trtllm-bench.
const Row kTrt017[] = {
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 29526.04},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 128, 128, 28836.77},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 128, 128, 6627.27},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 25398.86},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 128, 2048, 21109.38},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 128, 2048, 5255.99},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 128, 4096, 17370.80},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 128, 4096, 13593.65},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 128, 4096, 3453.79},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 500, 2000, 21020.81},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 500, 2000, 16500.69},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 500, 2000, 4276.58},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 1000, 1000, 17537.96},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 1000, 1000, 15244.78},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 1000, 1000, 3786.83},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 3794.14},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 128, 3556.73},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 2048, 128, 799.61},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 2048, 2048, 11968.50},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 2048, 9488.42},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 2048, 2048, 2424.16},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 5000, 500, 3987.79},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 5000, 500, 3559.36},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 5000, 500, 825.13},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 20000, 2000, 1804.10},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 20000, 2000, 1401.31},
    {"llama31_8b", "nvidia-a100-sxm4-80gb", 1, false, 20000, 2000, 330.04},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 4020.75},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 128, 128, 3378.03},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 4165.68},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 128, 2048, 911.62},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 4096, 2651.75},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 128, 4096, 426.32},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 500, 2000, 3018.39},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 500, 2000, 775.57},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 1000, 1000, 2823.45},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 1000, 1000, 839.97},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 465.99},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 128, 343.29},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 2048, 2048, 1913.80},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 5000, 500, 560.16},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 1, true, 5000, 500, 245.34},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 20000, 2000, 279.52},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 128, 128, 6823.01},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 128, 128, 6645.12},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 128, 128, 1313.96},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 128, 2048, 8290.35},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 128, 2048, 6169.58},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 128, 2048, 531.26},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 128, 4096, 6526.67},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 128, 4096, 3897.06},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 500, 2000, 6848.02},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 500, 2000, 4972.57},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 500, 2000, 439.41},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 1000, 1000, 5164.76},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 1000, 1000, 4390.53},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 1000, 1000, 472.94},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 2048, 128, 809.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 2048, 128, 772.66},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 2048, 128, 148.96},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 2048, 2048, 4183.88},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 2048, 2048, 2898.16},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 2048, 2048, 261.10},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 5000, 500, 1025.38},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 5000, 500, 919.73},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 2, false, 5000, 500, 121.47},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 2, true, 20000, 2000, 640.62},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 20000, 2000, 443.01},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 128, 128, 11098.63},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 128, 128, 11127.53},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 128, 128, 2733.48},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 128, 2048, 14156.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 128, 2048, 11511.93},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 128, 2048, 2811.27},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 128, 4096, 10574.06},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 128, 4096, 7439.41},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 128, 4096, 1976.49},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 500, 2000, 12452.79},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 500, 2000, 9836.70},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 500, 2000, 2275.79},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 1000, 1000, 8911.29},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 1000, 1000, 7430.99},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 1000, 1000, 1921.77},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 2048, 128, 1358.06},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 2048, 128, 1302.60},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 2048, 128, 325.15},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 2048, 2048, 7130.44},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 2048, 2048, 5480.03},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 2048, 2048, 1393.64},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 5000, 500, 1811.55},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 5000, 500, 1602.78},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 5000, 500, 392.62},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 4, true, 20000, 2000, 1199.68},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, true, 20000, 2000, 920.19},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 4, false, 20000, 2000, 212.08},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 128, 128, 15355.84},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 128, 128, 14730.69},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 128, 128, 4717.62},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 128, 2048, 21195.88},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 128, 2048, 17061.82},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 128, 2048, 5241.50},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 128, 4096, 16941.52},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 128, 4096, 14171.43},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 128, 4096, 3724.67},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 500, 2000, 17278.40},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 500, 2000, 14679.33},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 500, 2000, 4445.37},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 1000, 1000, 13181.24},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 1000, 1000, 11451.16},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 1000, 1000, 3320.41},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 2048, 128, 1983.03},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 128, 1923.41},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 2048, 128, 542.38},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 2048, 2048, 11142.47},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 2048, 8801.95},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 2048, 2048, 2553.71},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 5000, 500, 2717.83},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 5000, 500, 2457.42},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 5000, 500, 696.34},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 8, true, 20000, 2000, 1920.45},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 8, true, 20000, 2000, 1512.60},
    {"llama31_70b", "nvidia-a100-sxm4-80gb", 8, false, 20000, 2000, 413.38},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 128, 128, 3874.19},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 128, 2048, 5938.09},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 128, 4096, 5168.37},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 500, 2000, 5084.29},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 1000, 1000, 3399.69},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 2048, 128, 463.42},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 2048, 2048, 2940.62},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 5000, 500, 669.13},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 20000, 2000, 535.31},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 31938.12},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 128, 128, 31674.49},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 128, 128, 6982.53},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 27409.30},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 128, 2048, 23496.42},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 128, 2048, 5630.62},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 128, 4096, 18505.03},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 128, 4096, 14350.99},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 128, 4096, 3591.22},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 500, 2000, 22354.67},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 500, 2000, 18026.27},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 500, 2000, 4400.48},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 1000, 1000, 18426.16},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 1000, 1000, 16035.66},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 1000, 1000, 3896.58},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 3834.43},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 128, 3642.48},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 2048, 128, 808.58},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 2048, 2048, 12347.37},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 2048, 9958.17},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 2048, 2048, 2489.77},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 5000, 500, 4041.59},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 5000, 500, 3591.33},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 5000, 500, 844.64},
    {"mistral_7b", "nvidia-h200-sxm-141gb", 1, true, 20000, 2000, 1822.69},
    {"mistral_7b", "nvidia-h100-sxm5-80gb", 1, true, 20000, 2000, 1373.24},
    {"mistral_7b", "nvidia-a100-sxm4-80gb", 1, false, 20000, 2000, 332.30},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 17157.72},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 128, 128, 15962.49},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 15095.21},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 128, 2048, 8290.13},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 128, 4096, 9534.62},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 128, 4096, 4784.86},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 500, 2000, 12105.27},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 500, 2000, 6800.60},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 1000, 1000, 10371.36},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 1000, 1000, 6868.52},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 2009.67},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 128, 1892.81},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 2048, 2048, 6940.32},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 2048, 3983.10},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 5000, 500, 2309.10},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 5000, 500, 1764.70},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 1, true, 20000, 2000, 1151.78},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 1, true, 20000, 2000, 673.70},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 128, 128, 27825.34},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 128, 128, 27451.13},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 128, 128, 5541.47},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 128, 2048, 29584.05},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 128, 2048, 22830.08},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 128, 2048, 4169.78},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 128, 4096, 21564.68},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 128, 4096, 14237.01},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 128, 4096, 2608.05},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 500, 2000, 23410.63},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 500, 2000, 17036.04},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 500, 2000, 3446.37},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 1000, 1000, 19151.19},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 1000, 1000, 15770.89},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 1000, 1000, 3154.52},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 2048, 128, 3383.16},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 2048, 128, 3333.68},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 2048, 128, 649.00},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 2048, 2048, 14007.29},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 2048, 2048, 10685.85},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 2048, 2048, 2056.58},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 5000, 500, 4223.68},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 5000, 500, 3646.09},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 5000, 500, 724.44},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 2, true, 20000, 2000, 2299.21},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 2, true, 20000, 2000, 1757.45},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 2, false, 20000, 2000, 337.51},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 128, 128, 42551.59},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 128, 128, 41068.23},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 128, 128, 10324.28},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 128, 2048, 52291.78},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 128, 2048, 41164.73},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 128, 2048, 10911.86},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 128, 4096, 39513.73},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 128, 4096, 27912.48},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 128, 4096, 7666.51},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 500, 2000, 43818.99},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 500, 2000, 34489.34},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 500, 2000, 8456.21},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 1000, 1000, 33580.90},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 1000, 1000, 27784.74},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 1000, 1000, 7122.84},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 2048, 128, 5467.62},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 2048, 128, 5234.98},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 2048, 128, 1237.62},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 2048, 2048, 24980.93},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 2048, 2048, 19432.08},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 2048, 2048, 5222.98},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 5000, 500, 7084.94},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 5000, 500, 6401.56},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 5000, 500, 1500.55},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 4, true, 20000, 2000, 4236.84},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 4, true, 20000, 2000, 3303.83},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 4, false, 20000, 2000, 829.59},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 128, 128, 53212.55},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 128, 128, 50849.55},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 128, 128, 17043.54},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 128, 2048, 68608.45},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 128, 2048, 61607.70},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 128, 2048, 20277.88},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 128, 4096, 54827.78},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 128, 4096, 48280.37},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 128, 4096, 15282.89},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 500, 2000, 58706.39},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 500, 2000, 52583.65},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 500, 2000, 17184.24},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 1000, 1000, 44705.48},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 1000, 1000, 40631.71},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 1000, 1000, 12851.44},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 2048, 128, 7554.38},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 128, 6988.18},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 2048, 128, 2165.52},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 2048, 2048, 36193.64},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 2048, 30983.35},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 2048, 2048, 9809.76},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 5000, 500, 10271.80},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 5000, 500, 9210.11},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 5000, 500, 2761.28},
    {"mixtral_8x7b", "nvidia-h200-sxm-141gb", 8, true, 20000, 2000, 6835.53},
    {"mixtral_8x7b", "nvidia-h100-sxm5-80gb", 8, true, 20000, 2000, 5602.43},
    {"mixtral_8x7b", "nvidia-a100-sxm4-80gb", 8, false, 20000, 2000, 1592.53},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 128, 128, 22948.57},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 128, 128, 21876.08},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 128, 128, 6381.95},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 128, 2048, 32415.81},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 128, 2048, 25150.03},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 128, 2048, 6685.99},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 128, 4096, 25753.14},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 128, 4096, 18387.40},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 128, 4096, 4789.13},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 500, 2000, 27429.60},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 500, 2000, 21421.86},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 500, 2000, 5648.46},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 1000, 1000, 19712.35},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 1000, 1000, 16573.24},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 1000, 1000, 4549.46},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 2048, 128, 2899.84},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 128, 2794.97},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 2048, 128, 761.56},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 2048, 2048, 15798.59},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 2048, 12244.93},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 2048, 2048, 3521.98},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 5000, 500, 4031.79},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 5000, 500, 3645.27},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 5000, 500, 959.14},
    {"mixtral_8x22b", "nvidia-h200-sxm-141gb", 8, true, 20000, 2000, 2815.76},
    {"mixtral_8x22b", "nvidia-h100-sxm5-80gb", 8, true, 20000, 2000, 2227.63},
    {"mixtral_8x22b", "nvidia-a100-sxm4-80gb", 8, false, 20000, 2000, 575.02},
};

// TensorRT-LLM perf-overview.md @ 00f37686 (v1.0-era, PyTorch backend, FP8 checkpoints; Llama 3.3 70B
// has Llama 3.1 70B's architecture). Held out: no constant was fitted on it.
const Row kTrt10[] = {
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 3803.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 128, 128, 6378.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 4336.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 128, 2048, 6651.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 4096, 2872.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 128, 4096, 4199.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 500, 2000, 3666.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 500, 2000, 5222.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 1000, 1000, 2909.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 1000, 1000, 4205.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 1000, 2000, 2994.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 1000, 2000, 4146.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 442.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 2048, 128, 762.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 2048, 2048, 2003.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 2048, 2048, 3082.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 5000, 500, 566.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 5000, 500, 898.00},
    {"llama31_70b", "nvidia-h200-sxm-141gb", 1, true, 20000, 2000, 283.00},
    {"llama31_70b", "nvidia-h100-sxm5-80gb", 2, true, 20000, 2000, 437.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 128, 128, 3814.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 128, 128, 3627.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 128, 2048, 5348.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 128, 2048, 4340.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 128, 4096, 4741.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 128, 4096, 3116.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 500, 2000, 4724.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 500, 2000, 3994.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 1000, 1000, 3330.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 1000, 1000, 2919.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 1000, 2000, 3722.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 1000, 2000, 2895.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 2048, 128, 456.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 128, 453.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 2048, 2048, 2948.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 2048, 2048, 2296.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 5000, 500, 650.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 5000, 500, 610.00},
    {"llama31_405b", "nvidia-h200-sxm-141gb", 8, true, 20000, 2000, 505.00},
    {"llama31_405b", "nvidia-h100-sxm5-80gb", 8, true, 20000, 2000, 345.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 27911.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 128, 128, 28312.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 26221.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 128, 2048, 22714.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 128, 4096, 18027.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 128, 4096, 14325.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 500, 2000, 20770.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 500, 2000, 17660.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 1000, 1000, 17744.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 1000, 1000, 15220.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 1000, 2000, 16828.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 1000, 2000, 13899.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 3538.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 128, 3450.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 2048, 2048, 12194.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 2048, 2048, 9305.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 5000, 500, 3902.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 5000, 500, 3459.00},
    {"llama31_8b", "nvidia-h200-sxm-141gb", 1, true, 20000, 2000, 1804.00},
    {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, true, 20000, 2000, 1351.00},
};

struct GptFast {
    const char* model;
    int tp;
    const char* precision;
    double published;
    bool known_outlier;
};
// gpt-fast README.md @ 32971d31 ("Benchmarks", "Tensor Parallelism", "Tensor Parallelism +
// Quantization", Mixtral table): 8 x A100-80GB power-limited to 330 W, hybrid cube mesh, batch 1,
// 5-token prompt, 200 new tokens; "peak bandwidth is about 1700 GB/s" (same README).
const GptFast kGptFast[] = {
    {"llama2_7b", 1, "bf16", 104.9, false},
    {"llama2_7b", 1, "int8", 155.58, false},
    {"llama2_7b", 1, "int4", 196.8, false},
    {"llama2_70b", 1, "int8", 19.13, false},
    {"llama2_70b", 1, "int4", 25.25, false},
    {"llama31_8b", 1, "bf16", 93.89, false},
    {"llama31_8b", 1, "int8", 137.64, false},
    {"llama31_70b", 1, "int8", 18.04, false},
    {"llama2_7b", 2, "bf16", 168.84, false},
    {"llama2_7b", 4, "bf16", 254.02, false},
    {"llama2_7b", 8, "bf16", 328.43, false},
    {"llama2_70b", 2, "bf16", 21.32, false},
    {"llama2_70b", 4, "bf16", 38.01, false},
    {"llama2_70b", 8, "bf16", 62.5, false},
    {"llama31_8b", 2, "bf16", 149.10, false},
    {"llama31_8b", 4, "bf16", 217.21, false},
    {"llama31_8b", 8, "bf16", 276.01, false},
    // Slower than Llama-2-70B on 2 GPUs (21.32) with the same weights per GPU: not explained by bytes. The README's own
    // bandwidth column says so: 1,130.81 GB/s / 16.03 tok/s = 70.5 GB per GPU per token (the model streams 70.55 GB), at
    // 1,131 GB/s against Llama-2-70B's 1,482 GB/s on 2 GPUs and Llama-3.1-70B's own 1,361 GB/s on 4.
    {"llama31_70b", 2, "bf16", 16.03, true},
    {"llama31_70b", 4, "bf16", 37.45, false},
    {"llama31_70b", 8, "bf16", 58.78, false},
    {"llama2_70b", 8, "int8", 80.44, false},
    {"llama2_70b", 8, "int4", 90.77, false},
    {"llama31_70b", 8, "int8", 75.58, false},
    // 815.87 GB/s / 15.60 tok/s = 52.3 GB per GPU per token (the model streams 51.0 GB). The 70B int8 rows on 8 GPUs reach
    // 727-752 GB/s with 8.8 GB per GPU, where per-layer overheads dominate; for 405B the stream dominates and the model
    // expects it at 0.84 x 1,700 GB/s, while the run reaches 816 GB/s (one A100 streams int8 Llama-2-70B at 1,323 GB/s).
    // Same README setup as every row (8 x A100-80GB at 330 W, batch 1, compile, int8 weight-only): unexplained.
    {"llama31_405b", 8, "int8", 15.60, true},
    {"mixtral_8x7b", 2, "bf16", 96.67, false},
    {"mixtral_8x7b", 4, "bf16", 155.35, false},
    {"mixtral_8x7b", 8, "bf16", 227.82, false},
    {"mixtral_8x7b", 1, "int8", 97.92, false},
    {"mixtral_8x7b", 2, "int8", 155.03, false},
    {"mixtral_8x7b", 4, "int8", 216.87, false},
    {"mixtral_8x7b", 8, "int8", 279.35, false},
};

json trt_scenario(const Row& r) {
    const char* p = r.fp8 ? "fp8" : "fp16";
    return {{"model", model_json(r.model)},
            {"hardware", {{"device", r.device}, {"count", r.tp}}},
            {"inference", {{"tp", r.tp}, {"prompt_tokens", r.isl}, {"output_tokens", r.osl}, {"weight_precision", p}, {"kv_precision", p}}},
            {"explain", false}};
}

json gptfast_scenario(const GptFast& g) {
    return {
        {"model", model_json(g.model)},
        {"hardware",
         {{"device",
           {{"base", "nvidia-a100-sxm4-80gb"}, {"name", "A100 80GB at 330 W (gpt-fast)"}, {"memory_bandwidth_bytes_per_second", 1.7e12}}},
          {"count", g.tp}}},
        {"inference", {{"batch", 1}, {"tp", g.tp}, {"prompt_tokens", 5}, {"output_tokens", 200}, {"weight_precision", g.precision}}},
        {"explain", false}};
}

struct Stats {
    std::vector<double> abs_err;
    double median() const {
        std::vector<double> v = abs_err;
        std::sort(v.begin(), v.end());
        if (v.empty()) return 0;
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    }
    double max() const { return abs_err.empty() ? 0 : *std::max_element(abs_err.begin(), abs_err.end()); }
};

std::string pct(double e) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f%%", 100 * e);
    return b;
}
std::string apct(double e) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * e);
    return b;
}
std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

}  // namespace

TEST_CASE(
    "serving validation: gpt-fast batch-1 decode (1-8 A100, bf16/int8/int4) within 10%, TensorRT-LLM max throughput within 25% (median <= "
    "12%)") {
    std::string md;
    std::string summary = "| set | rows | fitted on it | median abs. error | max abs. error |\n|---|---|---|---|---|\n";
    // gpt-fast.
    Stats gf;
    std::string gf_table = "| model | GPUs | weights | published tok/s | predicted | error |\n|---|---|---|---|---|---|\n";
    for (const auto& g : kGptFast) {
        const json r = run(gptfast_scenario(g));
        INFO(g.model << " tp" << g.tp << " " << g.precision << " " << r.dump().substr(0, 300));
        REQUIRE_FALSE(r.contains("errors"));
        const double pred = r["inference"]["decode_tokens_per_second_per_user"].get<double>();
        const double e = (pred - g.published) / g.published;
        gf.abs_err.push_back(std::abs(e));
        CHECK(std::abs(e) < (g.known_outlier ? 0.35 : 0.10));
        gf_table += std::string("| ") + g.model + " | " + std::to_string(g.tp) + " | " + g.precision + " | " + num(g.published) + " | " +
                    num(pred) + " | " + pct(e) + (g.known_outlier ? " (outlier, see note)" : "") + " |\n";
    }
    CHECK(gf.median() < 0.06);
    summary += "| gpt-fast README @ 32971d31, batch-1 decode tok/s (A100 @ 1,700 GB/s) | " + std::to_string(gf.abs_err.size()) +
               " | memory, kernel, collective, dequantisation constants | " + apct(gf.median()) + " | " + apct(gf.max()) + " |\n";
    // TensorRT-LLM tables.
    auto trt = [&](const Row* rows, std::size_t n, const char* name, const char* fitted, double median_bound, std::string& table) {
        Stats s;
        std::map<std::string, Stats> groups;
        for (std::size_t i = 0; i < n; ++i) {
            const Row& row = rows[i];
            const json r = run(trt_scenario(row));
            INFO(row.model << " " << row.device << " tp" << row.tp << " " << row.isl << "/" << row.osl << " " << r.dump().substr(0, 300));
            REQUIRE_FALSE(r.contains("errors"));
            REQUIRE(r["inference"]["throughput_tokens_per_second_per_instance"].is_number());
            const double pred = r["inference"]["throughput_tokens_per_second_per_instance"].get<double>();
            const double e = (pred - row.published) / row.published;
            CHECK(std::abs(e) < 0.25);
            s.abs_err.push_back(std::abs(e));
            groups[std::string(row.model) + " | " + row.device + " | " + std::to_string(row.tp)].abs_err.push_back(std::abs(e));
            table += std::string("| ") + row.model + " | " + row.device + " | " + std::to_string(row.tp) + " | " +
                     (row.fp8 ? "fp8" : "fp16") + " | " + std::to_string(row.isl) + "/" + std::to_string(row.osl) + " | " +
                     num(row.published) + " | " + num(pred) + " | " + num(r["inference"]["batch"].get<double>()) + " | " + pct(e) + " |\n";
        }
        CHECK(s.median() <= median_bound);
        summary += std::string("| ") + name + " | " + std::to_string(n) + " | " + fitted + " | " + apct(s.median()) + " | " +
                   apct(s.max()) + " |\n";
    };
    std::string t017 =
        "| model | device | TP | precision | ISL/OSL | published tok/s | predicted | batch (predicted) | error "
        "|\n|---|---|---|---|---|---|---|---|---|\n";
    std::string t10 = t017;
    trt(kTrt017, sizeof kTrt017 / sizeof kTrt017[0], "TensorRT-LLM perf-overview @ 258c7540 (v0.17), max throughput",
        "GEMM efficiency (16-bit, 8-bit), width half-point, per-sequence step time", 0.12, t017);
    trt(kTrt10, sizeof kTrt10 / sizeof kTrt10[0], "TensorRT-LLM perf-overview @ 00f37686 (v1.0 era), max throughput", "nothing (held out)",
        0.12, t10);
    // TensorRT-LLM v0.5 blogs: static batching at a stated batch (held out).
    struct Fixed {
        const char* model;
        const char* device;
        int tp;
        bool fp8;
        int isl, osl, batch;
        double published_per_gpu;
        const char* source;
    };
    const char* h200 = "TensorRT-LLM docs/source/blogs/H200launch.md @ 1555478c, 'H200 FP8 Max throughput'";
    const char* h100 = "TensorRT-LLM docs/source/blogs/H100vsA100.md @ 15ed7809, 'Max Throughput & Min Latency'";
    const Fixed fixed[] = {
        {"llama2_13b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 1024, 11819, h200},
        {"llama2_13b", "nvidia-h200-sxm-141gb", 1, true, 128, 2048, 128, 4750, h200},
        {"llama2_13b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 64, 1349, h200},
        {"llama2_70b", "nvidia-h200-sxm-141gb", 1, true, 128, 128, 512, 3014, h200},
        {"llama2_70b", "nvidia-h200-sxm-141gb", 2, true, 128, 2048, 512, 1654, h200},
        {"llama2_70b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 64, 341, h200},
        {"llama2_70b", "nvidia-h200-sxm-141gb", 1, true, 2048, 128, 32, 303, h200},
        {"gptj_6b", "nvidia-h100-sxm5-80gb", 1, true, 128, 128, 64, 10907, h100},
        {"gptj_6b", "nvidia-a100-sxm4-80gb", 1, false, 128, 128, 64, 3679, h100},
    };
    Stats fs;
    std::string tf =
        "| model | device | TP | precision | ISL/OSL | batch | published tok/s/GPU | predicted | error | source "
        "|\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& f : fixed) {
        json sc = trt_scenario(Row{f.model, f.device, f.tp, f.fp8, f.isl, f.osl, 0});
        sc["inference"]["batch"] = f.batch;
        const json r = run(sc);
        INFO(f.model << " " << f.device << " batch " << f.batch << " " << r.dump().substr(0, 300));
        REQUIRE_FALSE(r.contains("errors"));
        REQUIRE(r["inference"]["throughput_tokens_per_second_per_gpu"].is_number());
        const double pred = r["inference"]["throughput_tokens_per_second_per_gpu"].get<double>();
        const double e = (pred - f.published_per_gpu) / f.published_per_gpu;
        fs.abs_err.push_back(std::abs(e));  // reported; an engine 14 months older than the fitted table
        tf += std::string("| ") + f.model + " | " + f.device + " | " + std::to_string(f.tp) + " | " + (f.fp8 ? "fp8" : "fp16") + " | " +
              std::to_string(f.isl) + "/" + std::to_string(f.osl) + " | " + std::to_string(f.batch) + " | " + num(f.published_per_gpu) +
              " | " + num(pred) + " | " + pct(e) + " | " + f.source + " |\n";
    }
    CHECK(fs.median() < 0.30);
    summary += "| TensorRT-LLM v0.5 blogs, static batch given (Llama 2 13B/70B H200, GPT-J H100/A100) | " +
               std::to_string(fs.abs_err.size()) + " | nothing (held out) | " + apct(fs.median()) + " | " + apct(fs.max()) + " |\n";
    // llama.cpp, batch 1 (held out): XiongjieDai/GPU-Benchmarks-on-LLM-Inference README @ aa72e0ec (2024-05-12),
    // "Average speed (tokens/s) of generating 1024 tokens by GPUs on LLaMA 3". Consumer, workstation and
    // Apple devices are within 40%; on data-center GPUs llama.cpp of that date stays far below the memory
    // bandwidth that gpt-fast and TensorRT-LLM reach (fixed per-token costs), so those rows are reported only.
    struct Cpp {
        const char* device;
        const char* model;
        bool q4km;
        double published;
        bool bounded;
    };
    const Cpp cpp[] = {
        {"nvidia-rtx-3090", "llama31_8b", true, 111.74, true},
        {"nvidia-rtx-3090", "llama31_8b", false, 46.51, true},
        {"nvidia-rtx-4090", "llama31_8b", true, 127.74, true},
        {"nvidia-rtx-4090", "llama31_8b", false, 54.34, true},
        {"nvidia-rtx-a6000", "llama31_8b", true, 102.22, true},
        {"nvidia-rtx-a6000", "llama31_8b", false, 40.25, true},
        {"nvidia-rtx-a6000", "llama31_70b", true, 14.58, true},
        {"nvidia-rtx-6000-ada", "llama31_8b", true, 130.99, true},
        {"nvidia-rtx-6000-ada", "llama31_8b", false, 51.97, true},
        {"nvidia-rtx-6000-ada", "llama31_70b", true, 18.36, true},
        {"apple-m2-ultra", "llama31_8b", true, 76.28, true},
        {"apple-m2-ultra", "llama31_8b", false, 36.25, true},
        {"apple-m2-ultra", "llama31_70b", true, 12.13, true},
        {"apple-m3-max", "llama31_8b", true, 50.74, true},
        {"apple-m3-max", "llama31_8b", false, 22.39, true},
        {"apple-m3-max", "llama31_70b", true, 7.53, true},
        {"nvidia-l40s", "llama31_8b", true, 113.6, true},
        {"nvidia-l40s", "llama31_8b", false, 43.42, true},
        {"nvidia-l40s", "llama31_70b", true, 15.31, true},
        {"nvidia-a100-sxm4-80gb", "llama31_8b", true, 133.38, false},
        {"nvidia-a100-sxm4-80gb", "llama31_8b", false, 53.18, false},
        {"nvidia-a100-sxm4-80gb", "llama31_70b", true, 24.33, false},
        {"nvidia-h100-pcie-80gb", "llama31_8b", true, 144.49, false},
        {"nvidia-h100-pcie-80gb", "llama31_8b", false, 67.79, false},
        {"nvidia-h100-pcie-80gb", "llama31_70b", true, 25.01, false},
    };
    Stats cs, cs_all;
    std::string tc = "| device | model | weights | published tok/s | predicted | error |\n|---|---|---|---|---|---|\n";
    for (const auto& c : cpp) {
        json inf = {{"batch", 1}, {"prompt_tokens", 16}, {"output_tokens", 1024}};
        if (c.q4km)
            inf["weight_format"] = "q4_k_m";
        else
            inf["weight_precision"] = "fp16";
        const json r = run({{"model", model_json(c.model)}, {"hardware", {{"device", c.device}}}, {"inference", inf}, {"explain", false}});
        INFO(c.device << " " << c.model << " " << r.dump().substr(0, 300));
        REQUIRE_FALSE(r.contains("errors"));
        REQUIRE(r["inference"]["decode_tokens_per_second_per_user"].is_number());
        const double pred = r["inference"]["decode_tokens_per_second_per_user"].get<double>();
        const double e = (pred - c.published) / c.published;
        cs_all.abs_err.push_back(std::abs(e));
        if (c.bounded) {
            cs.abs_err.push_back(std::abs(e));
            CHECK(std::abs(e) < 0.40);
        }
        tc += std::string("| ") + c.device + " | " + c.model + " | " + (c.q4km ? "Q4_K_M" : "F16") + " | " + num(c.published) + " | " +
              num(pred) + " | " + pct(e) + (c.bounded ? "" : " (data-center GPU, reported only)") + " |\n";
    }
    CHECK(cs.median() < 0.15);
    summary += "| llama.cpp batch-1 generation, consumer / workstation / Apple / L40S (XiongjieDai table @ aa72e0ec) | " +
               std::to_string(cs.abs_err.size()) + " | nothing (held out) | " + apct(cs.median()) + " | " + apct(cs.max()) + " |\n";
    summary += "| the same table, all rows incl. A100/H100 (llama.cpp far below their bandwidth) | " +
               std::to_string(cs_all.abs_err.size()) + " | nothing (held out) | " + apct(cs_all.median()) + " | " + apct(cs_all.max()) +
               " |\n";
    // Large-MoE serving layout (held out): SGLang's DeepSeek-V3 decode on 9 H100 nodes with expert
    // parallelism and DP attention, batch 256 per device at a 2,000-token KV cache: 22,282 output tok/s
    // per node (lm-sys blog 2025-05-05-large-scale-ep.md @ 2db4e404). EP72 used 32 redundant experts;
    // here ep = 64 (it must divide the 256 experts), prefill excluded (PD disaggregation).
    {
        const json sc = {{"model", {{"preset", "deepseek-v3"}}},
                         // 64 decode GPUs and as many for prefill (disaggregated needs both copies;
                         // the figures compared are per GPU of the decode copy)
                         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 128}}},
                         {"inference",
                          {{"tp", 1},
                           {"ep", 64},
                           {"batch", 256 * 64},
                           {"weight_precision", "fp8"},
                           {"kv_precision", "bf16"},
                           {"prompt_tokens", 1999},
                           {"output_tokens", 2},
                           {"disaggregated", true}}},
                         {"explain", false}};
        const json r = run(sc);
        REQUIRE_FALSE(r.contains("errors"));
        REQUIRE(r["inference"]["throughput_tokens_per_second_per_gpu"].is_number());
        const double pred = 8 * r["inference"]["throughput_tokens_per_second_per_gpu"].get<double>();
        const double e = (pred - 22282) / 22282;
        CHECK(std::abs(e) < 0.25);
        summary +=
            "| SGLang DeepSeek-V3 decode, EP + DP attention, 256 sequences per H100 (output tok/s per node) | 1 | nothing (held out) | " +
            apct(std::abs(e)) + " | " + apct(std::abs(e)) + " |\n";
    }
    // Large-MoE prefill (held out): the same blog's prefill nodes, 4 x 8 H100 with EP32, DP attention
    // and DP dense FFNs (one device per group: tp 1 x ep 32 here), FP8 weights: 57,674, 54,543 and
    // 50,302 prompt tokens/s per node for 1K, 2K and 4K prompts ("Evaluation", "Prefill Phase").
    {
        Stats ps;
        const double published[][2] = {{1000, 57674}, {2000, 54543}, {4000, 50302}};
        for (const auto& p : published) {
            const json sc = {{"model", {{"preset", "deepseek-v3"}}},
                             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},  // a prefill and a decode copy
                             {"inference",
                              {{"tp", 1},
                               {"ep", 32},
                               {"batch", 32},
                               {"weight_precision", "fp8"},
                               {"kv_precision", "bf16"},
                               {"prompt_tokens", p[0]},
                               {"output_tokens", 1},
                               {"disaggregated", true}}},
                             {"explain", false}};
            const json r = run(sc);
            REQUIRE_FALSE(r.contains("errors"));
            REQUIRE(r["inference"]["prefill_tokens_per_second_per_gpu"].is_number());
            const double e = (8 * r["inference"]["prefill_tokens_per_second_per_gpu"].get<double>() - p[1]) / p[1];
            CHECK(std::abs(e) < 0.25);
            ps.abs_err.push_back(std::abs(e));
        }
        summary +=
            "| SGLang DeepSeek-V3 prefill, EP32 + DP attention on 4 H100 nodes, 1K / 2K / 4K prompts (prompt tok/s per node) | 3 | "
            "nothing (held out) | " +
            apct(ps.median()) + " | " + apct(ps.max()) + " |\n";
    }
    // Online serving (held out, reported): TensorRT-LLM perf-overview @ 258c7540 "Online Serving
    // Measurements" (v0.14 through Triton, BF16, 467 input / 256 output tokens, 500 requests at a
    // Poisson rate). The batch is not printed: Little's law, rate x (TTFT + 256 x ITL) as published.
    // The published figures include Triton's HTTP front end and tokenisation, which the model has not.
    struct Online {
        const char* model;
        const char* device;
        int tp;
        double rate, ttft_ms, itl_ms;
    };
    const Online online[] = {
        {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, 2, 62, 21}, {"llama31_70b", "nvidia-h100-sxm5-80gb", 4, 7, 92, 32},
        {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, 2, 23, 8},   {"llama31_8b", "nvidia-h100-sxm5-80gb", 1, 8, 26, 9},
        {"llama31_70b", "nvidia-h200-sxm-141gb", 4, 2, 58, 18}, {"llama31_70b", "nvidia-h200-sxm-141gb", 4, 7, 84, 27},
        {"llama31_8b", "nvidia-h200-sxm-141gb", 1, 2, 21, 6},   {"llama31_8b", "nvidia-h200-sxm-141gb", 1, 8, 24, 7},
    };
    Stats ot, oi;
    std::string to =
        "| model | device | TP | requests/s | batch (Little) | TTFT published ms | predicted | error | ITL published ms | TPOT predicted | "
        "error |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& o : online) {
        const double batch = std::max(1.0, std::round(o.rate * (o.ttft_ms + 256 * o.itl_ms) / 1000));
        const json r = run({{"model", model_json(o.model)},
                            {"hardware", {{"device", o.device}, {"count", o.tp}}},
                            {"inference",
                             {{"tp", o.tp},
                              {"batch", batch},
                              {"prompt_tokens", 467},
                              {"output_tokens", 256},
                              {"requests_per_day", o.rate * 86400},
                              {"peak_to_average", 1}}},
                            {"explain", false}});
        REQUIRE_FALSE(r.contains("errors"));
        const double ttft = r["inference"]["ttft_seconds"].get<double>() * 1e3, tpot = r["inference"]["tpot_seconds"].get<double>() * 1e3;
        const double et = (ttft - o.ttft_ms) / o.ttft_ms, ei = (tpot - o.itl_ms) / o.itl_ms;
        ot.abs_err.push_back(std::abs(et));
        oi.abs_err.push_back(std::abs(ei));
        CHECK(std::abs(et) < 0.7);
        CHECK(std::abs(ei) < 0.5);
        to += std::string("| ") + o.model + " | " + o.device + " | " + std::to_string(o.tp) + " | " + num(o.rate) + " | " + num(batch) +
              " | " + num(o.ttft_ms) + " | " + num(ttft) + " | " + pct(et) + " | " + num(o.itl_ms) + " | " + num(tpot) + " | " + pct(ei) +
              " |\n";
    }
    summary += "| TensorRT-LLM online serving (Triton), TTFT per user at 2-8 requests/s (reported) | " + std::to_string(ot.abs_err.size()) +
               " | nothing (held out) | " + apct(ot.median()) + " | " + apct(ot.max()) + " |\n";
    summary += "| the same rows, time per output token vs inter-token latency | " + std::to_string(oi.abs_err.size()) +
               " | nothing (held out) | " + apct(oi.median()) + " | " + apct(oi.max()) + " |\n";
    md += "### Summary\n\n" + summary + "\n### gpt-fast, batch-1 decode\n\n" + gf_table +
          "\n### TensorRT-LLM v1.0-era table (held out)\n\n" + t10 + "\n### TensorRT-LLM v0.5 blogs, fixed batch (held out)\n\n" + tf +
          "\n### llama.cpp, batch-1 generation of 1,024 tokens (held out)\n\n" + tc +
          "\n### TensorRT-LLM online serving: TTFT and time per output token (held out, reported)\n\n" + to +
          "\n### TensorRT-LLM v0.17 table\n\n<details><summary>284 rows</summary>\n\n" + t017 + "\n</details>\n";
    std::ofstream("serving-validation-table.md") << md;
}

namespace {

// Fine-tuning throughput against torchtune's published tokens/s (the same READMEs as the memory rows;
// nothing fitted on them). The ladder's Llama 3.2 3B rows state their settings (A100, batch 2 x 4,096,
// compile, packed, chunked loss, activation checkpointing); the table's rows say batch 2, packed 2,048
// and compile, not the rest of each recipe. A published figure that asks more FLOP/s than the device's
// BF16 peak under gpucalc's FLOP count (6N with checkpointing and attention) cannot be the stated recipe:
// such rows are shown and flagged, not used as bounds. Returns the markdown table; checks the ladder.
std::string finetune_speed_table(const json& l32_3b, const char* ladder, const char* table) {
    struct Row {
        const char* what;
        json model;
        const char* device;
        int devices;
        json finetune;
        double published;  // tokens/s (all devices)
        const char* source;
    };
    const char* a100 = "nvidia-a100-sxm4-80gb";
    const json b2 = {{"batch", 2}, {"seq_len", 4096}};
    auto with = [&](json f) {
        f.update(b2);
        return f;
    };
    const Row rows[] = {
        {"3B full, checkpointing", l32_3b, a100, 1, with({{"method", "full"}}), 7210, ladder},
        {"3B full, + optimizer in backward", l32_3b, a100, 1, with({{"method", "full"}, {"optimizer_in_backward", true}}), 7309, ladder},
        {"3B full, + activation offload", l32_3b, a100, 1,
         with({{"method", "full"}, {"optimizer_in_backward", true}, {"activation_offload", true}}), 7301, ladder},
        {"3B full, + 8-bit AdamW", l32_3b, a100, 1,
         with({{"method", "full"}, {"optimizer_in_backward", true}, {"activation_offload", true}, {"optimizer", "adamw_8bit"}}), 6960,
         ladder},
        {"3B LoRA r64", l32_3b, a100, 1,
         with({{"method", "lora"}, {"lora_rank", 64}, {"lora_modules", "qvo_mlp"}, {"activation_offload", true}}), 8210, ladder},
        {"3B QLoRA r64", l32_3b, a100, 1,
         with({{"method", "qlora"}, {"lora_rank", 64}, {"lora_modules", "qvo_mlp"}, {"activation_offload", true}}), 8035, ladder},
        {"Llama 3.1 8B full",
         {{"preset", "llama3-8b"}},
         "nvidia-rtx-4090",
         1,
         {{"method", "full"}, {"optimizer", "paged_adamw_8bit"}, {"optimizer_in_backward", true}},
         1650,
         table},
        {"Llama 3.1 8B full",
         {{"preset", "llama3-8b"}},
         "nvidia-rtx-a6000",
         1,
         {{"method", "full"}, {"optimizer", "paged_adamw_8bit"}, {"optimizer_in_backward", true}},
         2579,
         table},
        {"Llama 3.1 8B LoRA", {{"preset", "llama3-8b"}}, "nvidia-rtx-4090", 1, {{"method", "lora"}}, 3083, table},
        {"Llama 3.1 8B LoRA", {{"preset", "llama3-8b"}}, "nvidia-rtx-a6000", 1, {{"method", "lora"}}, 4699, table},
        {"Llama 3.1 8B QLoRA",
         {{"preset", "llama3-8b"}},
         "nvidia-rtx-4090",
         1,
         {{"method", "qlora"}, {"lora_modules", "all_linear"}},
         2413,
         table},
        {"Llama 3.1 70B LoRA, FSDP",
         {{"preset", "llama3-70b"}},
         a100,
         8,
         {{"method", "lora"}, {"lora_rank", 16}, {"lora_modules", "qkv"}},
         3497,
         table},
        {"Llama 3.1 405B QLoRA, FSDP",
         {{"preset", "llama3.1-405b"}},
         a100,
         8,
         {{"method", "qlora"}, {"lora_rank", 16}, {"lora_modules", "all_linear"}},
         653,
         table},
    };
    Stats kept, lad;
    std::string t =
        "### Fine-tuning throughput\n\nPredicted tokens/s against torchtune's published figures (all devices; nothing fitted on "
        "them). *Flagged*: the published figure needs more than the device's BF16 peak under the FLOPs the recipe does (gpucalc's "
        "count, checkpointing and attention included), so the run cannot have been the stated recipe; shown, not counted. The 70B "
        "full fine-tune with CPU offload (1,568 tokens/s, 2.2x below the model) is left out: its time is the host's, which the "
        "model does not time (the report warns).\n\n"
        "| run | devices | published tokens/s | predicted | error | published / peak | source |\n|---|---|---|---|---|---|---|\n";
    for (const auto& r : rows) {
        const json rep = run(
            {{"model", r.model}, {"hardware", {{"device", r.device}, {"count", r.devices}}}, {"finetune", r.finetune}, {"explain", false}});
        INFO(r.what << " " << rep.dump().substr(0, 300));
        REQUIRE_FALSE(rep.contains("errors"));
        const json& f = rep["finetune"];
        const double pred = f["tokens_per_second"].get<double>();
        const double peak = gpucalc::find_device(r.device)->peak(gpucalc::Precision::bf16).value();
        const double needs = r.published * f["flops_per_token"].get<double>() / (r.devices * peak);  // share of the peak
        const double e = pred / r.published - 1.0;
        const bool flagged = needs > 1.0;
        if (!flagged) kept.abs_err.push_back(std::abs(e));
        if (r.source == ladder) lad.abs_err.push_back(std::abs(e));
        t += std::string("| ") + r.what + " | " + std::to_string(r.devices) + " x " + r.device + " | " + num(r.published) + " | " +
             num(pred) + " | " + pct(e) + (flagged ? " (flagged)" : "") + " | " + apct(needs) + " | " + r.source + " |\n";
    }
    // The ladder's stated settings: within 25 % (the model's GEMM efficiency sets the pace; median +11 %
    // on 2026-11-30: gpucalc is a little optimistic on single-GPU fine-tuning).
    CHECK(lad.max() < 0.25);
    CHECK(kept.median() < 0.30);
    return "Median absolute error " + apct(kept.median()) + " over the " + std::to_string(kept.abs_err.size()) +
           " rows not flagged (the ladder's " + std::to_string(lad.abs_err.size()) + ": " + apct(lad.median()) + ").\n\n" + t;
}

}  // namespace

TEST_CASE("fine-tuning validation: peak memory of full, LoRA and QLoRA runs (torchtune README, QLoRA paper)") {
    const json l32_3b = {
        {"name", "Llama 3.2 3B"}, {"layers", 28},           {"hidden", 3072},       {"heads", 24},       {"kv_heads", 8},
        {"ffn_hidden", 8192},     {"vocab", 128256},        {"ffn_kind", "swiglu"}, {"norm", "rmsnorm"}, {"position_embedding", "rope"},
        {"biases", false},        {"tied_embeddings", true}};
    struct Ft {
        const char* what;
        json model;
        const char* device;
        int devices;
        json finetune;
        double published_gib;  // torchtune: peak (active) memory per GPU
        const char* source;
        bool lora;
    };
    // What torchtune reports: "Peak Memory Active" = torch.cuda.memory_stats()["active_bytes.all.peak"] / 1024**3, logged
    // (and reset) every step (pytorch/torchtune@30b8519e torchtune/training/memory.py:210-214, same at 1814feb17): GiB, not
    // counting the allocator's reserve, so it is compared with peak_active_bytes.
    // Adapted matrices per row are the configs' at the commit that added the table: 3B (q, v, o, MLP) at 1814feb17
    // recipes/configs/llama3_2/3B_{lora,qlora}_single_device.yaml; 70B (q, k, v) at 30b8519e recipes/configs/llama3_1/70B_lora.yaml.
    // finetune.lora_modules names both sets: qvo_mlp and qkv.
    const char* ladder = "torchtune README @ bd2a0fc7, 'Optimization flags' (Llama 3.2 3B, batch 2, seq 4096, A100, compile, chunked CE)";
    const char* table = "torchtune README @ 30b8519e, 'Memory and training speed' (batch 2, packed seq 2048; configs at that commit)";
    const Ft rows[] = {
        {"3B full, checkpointing",
         l32_3b,
         "nvidia-a100-sxm4-80gb",
         1,
         {{"method", "full"}, {"batch", 2}, {"seq_len", 4096}},
         24.9,
         ladder,
         false},
        {"3B full, + optimizer in backward",
         l32_3b,
         "nvidia-a100-sxm4-80gb",
         1,
         {{"method", "full"}, {"batch", 2}, {"seq_len", 4096}, {"optimizer_in_backward", true}},
         23.1,
         ladder,
         false},
        {"3B full, + activation offload",
         l32_3b,
         "nvidia-a100-sxm4-80gb",
         1,
         {{"method", "full"}, {"batch", 2}, {"seq_len", 4096}, {"optimizer_in_backward", true}, {"activation_offload", true}},
         21.8,
         ladder,
         false},
        {"3B full, + 8-bit AdamW",
         l32_3b,
         "nvidia-a100-sxm4-80gb",
         1,
         {{"method", "full"},
          {"batch", 2},
          {"seq_len", 4096},
          {"optimizer_in_backward", true},
          {"activation_offload", true},
          {"optimizer", "adamw_8bit"}},
         17.6,
         ladder,
         false},
        {"3B LoRA r64 (q, v, o, MLP)",
         l32_3b,
         "nvidia-a100-sxm4-80gb",
         1,
         {{"method", "lora"},
          {"lora_rank", 64},
          {"lora_modules", "qvo_mlp"},
          {"batch", 2},
          {"seq_len", 4096},
          {"activation_offload", true}},
         8.5,
         ladder,
         true},
        {"3B QLoRA r64 (q, v, o, MLP)",
         l32_3b,
         "nvidia-a100-sxm4-80gb",
         1,
         {{"method", "qlora"},
          {"lora_rank", 64},
          {"lora_modules", "qvo_mlp"},
          {"batch", 2},
          {"seq_len", 4096},
          {"activation_offload", true}},
         4.6,
         ladder,
         true},
        {"Llama 3.1 8B full, paged 8-bit AdamW, optimizer in backward",
         {{"preset", "llama3-8b"}},
         "nvidia-rtx-4090",
         1,
         {{"method", "full"}, {"optimizer", "paged_adamw_8bit"}, {"optimizer_in_backward", true}},
         18.9,
         table,
         false},
        {"Llama 3.1 8B LoRA r8 (q, v)", {{"preset", "llama3-8b"}}, "nvidia-rtx-4090", 1, {{"method", "lora"}}, 16.2, table, true},
        {"Llama 3.1 8B QLoRA r8 (q, k, v, o, MLP)",
         {{"preset", "llama3-8b"}},
         "nvidia-rtx-4090",
         1,
         {{"method", "qlora"}, {"lora_modules", "all_linear"}},
         7.4,
         table,
         true},
        {"Llama 3.1 70B LoRA r16 (q, k, v), FSDP",
         {{"preset", "llama3-70b"}},
         "nvidia-a100-sxm4-80gb",
         8,
         {{"method", "lora"}, {"lora_rank", 16}, {"lora_modules", "qkv"}},
         27.6,
         table,
         true},
        // 70B_full.yaml at 30b8519e: fsdp_cpu_offload, AdamW fused=True ("fused optimizer"), no optimizer_in_bwd.
        {"Llama 3.1 70B full, FSDP + CPU offload",
         {{"preset", "llama3-70b"}},
         "nvidia-a100-sxm4-80gb",
         8,
         {{"method", "full"}, {"cpu_offload", true}},
         13.9,
         table,
         false},
        // Printed "44.8 GB" where the other rows say GiB; torchtune logs GiB only (memory.py above), so 44.8 GiB.
        {"Llama 3.1 405B QLoRA r16 (q, k, v, o, MLP), FSDP ('44.8 GB' printed: torchtune logs GiB)",
         {{"preset", "llama3.1-405b"}},
         "nvidia-a100-sxm4-80gb",
         8,
         {{"method", "qlora"}, {"lora_rank", 16}, {"lora_modules", "all_linear"}},
         44.8,
         table,
         true},
    };
    Stats all;
    std::string t = "| run | devices | published GiB | predicted GiB | error | source |\n|---|---|---|---|---|---|\n";
    for (const auto& r : rows) {
        const json rep = run(
            {{"model", r.model}, {"hardware", {{"device", r.device}, {"count", r.devices}}}, {"finetune", r.finetune}, {"explain", false}});
        INFO(r.what << " " << rep.dump().substr(0, 300));
        REQUIRE_FALSE(rep.contains("errors"));
        const double pred = rep["finetune"]["peak_active_bytes"].get<double>() / (1024.0 * 1024 * 1024);
        const double e = (pred - r.published_gib) / r.published_gib;
        all.abs_err.push_back(std::abs(e));
        CHECK(std::abs(e) < (r.lora ? 0.10 : 0.25));  // LoRA / QLoRA rows within 10 % (issue 15); full: 70B CPU offload -18 %
        t += std::string("| ") + r.what + " | " + std::to_string(r.devices) + " x " + r.device + " | " + num(r.published_gib) + " | " +
             num(pred) + " | " + pct(e) + " | " + r.source + " |\n";
    }
    CHECK(all.median() < 0.08);
    // QLoRA paper (arXiv:2305.14314) abstract: 65B fine-tuning in < 48 GB with NF4, double quantisation and paged
    // optimizers (LoRA r = 64 on all linear layers; batch 1, 512 tokens for the memory figure in its appendix).
    const json q65 = run({{"model", {{"preset", "llama-65b"}}},
                          {"hardware", {{"device", "nvidia-rtx-a6000"}}},
                          {"finetune",
                           {{"method", "qlora"},
                            {"lora_rank", 64},
                            {"lora_modules", "all_linear"},
                            {"batch", 1},
                            {"seq_len", 512},
                            {"optimizer", "paged_adamw_8bit"}}}});
    REQUIRE_FALSE(q65.contains("errors"));
    CHECK(q65["finetune"]["fits"] == true);
    const double q65_gib = q65["finetune"]["memory_per_gpu_bytes"]["total"].get<double>() / 1e9;
    CHECK(q65_gib < 48);
    t += "| LLaMA 65B QLoRA r64 all linear, batch 1 x 512, paged 8-bit AdamW (bound) | 1 x nvidia-rtx-a6000 | < 48 GB | " + num(q65_gib) +
         " GB | fits | Dettmers et al. 2023 (arXiv:2305.14314) abstract |\n";
    std::ofstream("finetune-validation-table.md")
        << "### Fine-tuning peak memory\n\nMedian absolute error " << apct(all.median()) << ", max " << apct(all.max()) << " over "
        << all.abs_err.size() << " rows (nothing fitted on them).\n\n"
        << t << "\n"
        << finetune_speed_table(l32_3b, ladder, table);
}

// Cross-validation of fitted serving constants: rows grouped by model family; for each family the
// constants are refitted on the other families by a grid search (least squares of the error, or of
// log(1 + error)) and the held-out family's error is reported.
namespace {

struct CvRow {
    gpucalc::ModelSpec m;
    gpucalc::Hardware hw;
    gpucalc::InferenceConfig cfg;
    double published;
    std::string family;
};
using CvError = double (*)(const CvRow&, const gpucalc::InferenceEfficiency&);
struct CvResult {
    std::string family;
    gpucalc::InferenceEfficiency chosen;
    Stats held;
};

template <class Rows, class MakeScenario>
std::vector<CvRow> cv_rows(const Rows& source, MakeScenario make) {
    std::vector<CvRow> rows;
    for (const auto& r : source) {
        gpucalc::Scenario sc;
        gpucalc::Errors errors;
        REQUIRE(gpucalc::parse_scenario(from_nlohmann(make(r)), sc, errors));
        rows.push_back({*sc.model, *sc.hardware, *sc.inference, r.published, r.model});
    }
    return rows;
}

std::vector<CvResult> leave_one_family_out(const std::vector<CvRow>& rows, const std::vector<gpucalc::InferenceEfficiency>& grid,
                                           CvError error, bool log_error) {
    std::vector<CvResult> out;
    for (const auto& p : rows)
        if (std::none_of(out.begin(), out.end(), [&](const CvResult& c) { return c.family == p.family; }))
            out.push_back({p.family, {}, {}});
    for (auto& c : out) {
        double best = 1e300;
        for (const auto& e : grid) {
            double sum = 0;
            for (const auto& p : rows)
                if (p.family != c.family) {
                    const double x = log_error ? std::log(1 + error(p, e)) : error(p, e);
                    sum += x * x;
                }
            if (sum < best) best = sum, c.chosen = e;
        }
        for (const auto& p : rows)
            if (p.family == c.family) c.held.abs_err.push_back(std::abs(error(p, c.chosen)));
    }
    return out;
}

double throughput_error(const CvRow& p, const gpucalc::InferenceEfficiency& e) {
    gpucalc::Trace off(false);
    const auto r = gpucalc::estimate_inference(p.m, p.hw, p.cfg, gpucalc::Costs{}, off, e);
    return (r.throughput_tokens_per_second_per_instance - p.published) / p.published;
}

double decode_error(const CvRow& p, const gpucalc::InferenceEfficiency& e) {
    gpucalc::Trace off(false);
    const auto r = gpucalc::estimate_inference(p.m, p.hw, p.cfg, gpucalc::Costs{}, off, e);
    return (r.decode_tokens_per_second_per_user - p.published) / p.published;
}

}  // namespace

TEST_CASE("serving cross-validation: TensorRT-LLM 0.17, leave one model family out") {
    // Refits gemm_max (16-bit, 8-bit), gemm_half_width and seconds_per_sequence_step.
    std::vector<gpucalc::InferenceEfficiency> grid;
    for (double g8 : {0.60, 0.65, 0.70, 0.75, 0.80})
        for (double g16 : {0.70, 0.75, 0.80, 0.85, 0.90})
            for (double w : {200.0, 400.0, 800.0})
                for (double seq : {2e-6, 4e-6, 6e-6, 8e-6}) {
                    gpucalc::InferenceEfficiency e;
                    e.gemm_max_8bit = g8;
                    e.gemm_max_16bit = g16;
                    e.gemm_half_width = w;
                    e.seconds_per_sequence_step = seq;
                    grid.push_back(e);
                }
    Stats held;
    std::string t =
        "| held-out family | rows | constants refitted on the others (g16, g8, half width, s/seq) | median abs. error | max abs. error "
        "|\n|---|---|---|---|---|\n";
    for (const auto& c : leave_one_family_out(cv_rows(kTrt017, trt_scenario), grid, throughput_error, true)) {
        held.abs_err.insert(held.abs_err.end(), c.held.abs_err.begin(), c.held.abs_err.end());
        char k[128];
        std::snprintf(k, sizeof k, "%.2f, %.2f, %.0f, %.0f us", c.chosen.gemm_max_16bit, c.chosen.gemm_max_8bit, c.chosen.gemm_half_width,
                      c.chosen.seconds_per_sequence_step * 1e6);
        t += "| " + c.family + " | " + std::to_string(c.held.abs_err.size()) + " | " + k + " | " + apct(c.held.median()) + " | " +
             apct(c.held.max()) + " |\n";
    }
    t += "| all, each held out once | " + std::to_string(held.abs_err.size()) + " | | " + apct(held.median()) + " | " + apct(held.max()) +
         " |\n";
    CHECK(held.median() < 0.12);
    std::ofstream("serving-cv-table.md") << "### Cross-validation of the TensorRT-LLM-fitted constants (leave one model family out)\n\n"
                                         << t;
}

TEST_CASE("serving cross-validation: gpt-fast, leave one model out") {
    // Refits the bandwidth fraction, kernel and collective latency and dequantisation constants.
    std::vector<gpucalc::InferenceEfficiency> grid;
    for (double mem : {0.80, 0.84, 0.88})
        for (double k : {15e-6, 20e-6, 25e-6})
            for (double a0 : {2e-6, 4e-6, 6e-6})
                for (double a1 : {4e-6, 6e-6, 8e-6})
                    for (double alu : {0.5, 0.7, 0.9})
                        for (double kq : {10e-6, 15e-6, 20e-6}) {
                            gpucalc::InferenceEfficiency e;
                            e.memory = mem;
                            e.kernel_seconds_per_layer = k;
                            e.collective_base_seconds = a0;
                            e.collective_per_hop_seconds = a1;
                            e.dequant_alu = alu;
                            e.dequant_kernel_seconds_per_layer = kq;
                            grid.push_back(e);
                        }
    Stats held;
    std::string t = "| held-out model | rows | median abs. error | max abs. error |\n|---|---|---|---|\n";
    for (const auto& c : leave_one_family_out(cv_rows(kGptFast, gptfast_scenario), grid, decode_error, false)) {
        held.abs_err.insert(held.abs_err.end(), c.held.abs_err.begin(), c.held.abs_err.end());
        t += "| " + c.family + " | " + std::to_string(c.held.abs_err.size()) + " | " + apct(c.held.median()) + " | " + apct(c.held.max()) +
             " |\n";
    }
    t += "| all, each held out once | " + std::to_string(held.abs_err.size()) + " | " + apct(held.median()) + " | " + apct(held.max()) +
         " |\n";
    CHECK(held.median() < 0.10);
    std::ofstream("gptfast-cv-table.md") << "### Cross-validation of the gpt-fast-fitted constants (leave one model out)\n\n" << t;
}
