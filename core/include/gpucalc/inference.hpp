// Inference / serving estimator: weights and KV cache, prefill and decode speed from the roofline,
// batch limits, throughput, GPUs and cost for a traffic profile.
#pragma once
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// Documented constants (see docs/MODEL.md).
struct InferenceEfficiency {
    double memory = 0.80;          // fraction of HBM bandwidth streamed by decode kernels
    double compute = 0.70;         // fraction of dense peak in prefill / large-batch GEMMs
    double network = 0.75;         // fraction of link bandwidth in TP all-reduces
    double kernel_seconds_per_layer = 30e-6;  // ~10 kernels per layer x ~3 us minimum kernel time
    double collective_latency_seconds = 10e-6;
};

struct BatchPoint {
    double batch, decode_seconds_per_token, tokens_per_second_per_user, tokens_per_second_per_gpu;
    bool memory_bound;
    bool fits;
};

struct InferenceResult {
    InferenceConfig config;
    double params_total = 0, params_active = 0;
    double weights_bytes = 0;               // whole model at the serving precision
    double weights_bytes_per_gpu = 0;
    double kv_cache_bytes_per_token = 0;
    double context_tokens = 0;              // prompt + output
    double kv_cache_bytes = 0;              // for the configured batch at full context
    double overhead_bytes_per_gpu = 0;
    double memory_per_gpu_bytes = 0;
    bool fits = true;
    std::string infeasible_reason;          // set when !fits: what does not fit, and what to change
    double max_batch = 0;                   // sequences that fit at full context
    double instances_per_gpu = 0;           // model copies (at the configured batch) per GPU (tp = 1)
    double instances_per_cluster = 0;
    double prefill_seconds = 0;             // time to first token for the batch
    double decode_seconds_per_token = 0;    // per decode step (one token for every sequence)
    bool decode_memory_bound = true;
    double turn_batch = 0;                  // batch where decode turns compute-bound
    double decode_tokens_per_second_per_user = 0;
    double throughput_tokens_per_second_per_gpu = 0;  // output tokens
    double request_seconds = 0;             // prefill + output_tokens x decode step
    // What the cluster can serve: one copy per tp GPUs, each at the configured batch.
    double replicas = 0;                    // floor(count / tp) when the model fits
    double cluster_throughput_tokens_per_second = 0;  // output tokens/s of all replicas
    double concurrent_sequences = 0;        // replicas x batch (users being answered at once)
    double gpus_needed = 0;
    double cost_per_day_usd = 0;
    double energy_per_day_kwh = 0;
    double cost_per_million_output_tokens_usd = 0;
    double cost_per_million_input_tokens_usd = 0;
    double gpu_hour_usd = 0;
    std::vector<BatchPoint> curve;          // tokens/s vs batch
    std::vector<std::string> warnings;
};

double kv_cache_bytes_per_token(const ModelSpec& m, Precision kv_precision);
InferenceResult estimate_inference(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs,
                                   Trace& trace);

}  // namespace gpucalc
