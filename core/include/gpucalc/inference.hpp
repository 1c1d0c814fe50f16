// Inference / serving estimator: weights and KV cache per device, the decode step as a sum of
// physical terms (weight reads, KV reads, compute, dequantisation, kernel overhead, TP/EP
// communication), prefill, continuous batching at the largest batch that fits, time to first token
// per user under load, traffic sizing, costs split between input and output tokens, latency-target
// search, speculative decoding, prefill/decode disaggregation, CPU offload.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// Constants of the serving model. Fitted ones say on what; docs/VALIDATION.md (serving section)
// reports the error on the rows they were not fitted on.
struct InferenceEfficiency {
    // Fitted on gpt-fast batch-1 decode (README @ 32971d31, 31 rows, A100 at its stated ~1,700 GB/s
    // effective peak): memory, kernel_seconds_per_layer, collective_*, dequant_*.
    double memory = 0.84;                             // fraction of memory bandwidth streamed by GEMV/attention kernels
    double kernel_seconds_per_layer = 20e-6;          // launch + minimum kernel time of one layer's ~10 kernels
    double collective_base_seconds = 4e-6;            // latency of one small all-reduce...
    double collective_per_hop_seconds = 6e-6;         // ...+ this x log2(tp) (tree / LL protocol hops, NCCL)
    double dequant_alu = 0.70;                        // fraction of the FP32 SIMT peak spent on dequantisation ops
    double dequant_kernel_seconds_per_layer = 15e-6;  // extra per-layer time of weight-only-quantised kernels
    // Fitted on TensorRT-LLM 0.17 perf-overview max-throughput rows (284 rows, H100/H200 FP8, A100 FP16).
    double gemm_max_16bit = 0.80;             // GEMM fraction of the dense 16-bit peak
    double gemm_max_8bit = 0.70;              // GEMM fraction of the dense FP8/FP4 peak
    double gemm_half_width = 400;             // per-device width hidden/tp at which GEMM efficiency is halved
    double seconds_per_sequence_step = 6e-6;  // runtime work per sequence per decode step (sampling, scheduling)
    // Documented, not fitted.
    double attention = 0.50;      // fused attention: fraction of 16-bit peak (FlashAttention-2/3 on H100: 35-75%)
    double network = 0.75;        // fraction of link bandwidth in collectives (as training)
    double kv_block_tokens = 16;  // paged KV cache block (vLLM default block_size, arXiv:2309.06180 Sec. 4.2)
};

// One point of the batch curve: the decode step alone (decode_seconds_per_token and the two
// tokens_per_second figures; per accepted token with a speculative draft), and the served figures at that batch as the headline counts
// them, the other requests' prefills included (tpot_seconds and the output_ / throughput_ figures).
struct BatchPoint {
    double batch, decode_seconds_per_token, tokens_per_second_per_user, tokens_per_second_per_gpu;
    bool memory_bound;
    bool fits;
    double tpot_seconds, output_tokens_per_second_per_user, throughput_tokens_per_second_per_gpu;
};

// One decode step, by cause (seconds). total = weights + dequantization + host_offload + compute +
// attention + kernel_overhead + sequence_overhead + tp_comm + ep_comm; attention = max(kv_cache,
// attention FLOPs). Weight streaming and GEMM math are added, not overlapped: a decode GEMM has few
// rows per weight tile (fitted better than max() on the TensorRT-LLM rows: docs/VALIDATION.md).
struct DecodeTerms {
    double weights = 0, kv_cache = 0, compute = 0, attention = 0, dequantization = 0, kernel_overhead = 0, sequence_overhead = 0,
           tp_comm = 0, ep_comm = 0, host_offload = 0, total = 0;
    bool memory_bound = true;
};

// What the latency-target search chose (inference.slo).
struct SloCandidate {
    Precision weight_precision = Precision::bf16, kv_precision = Precision::bf16;
    double tp = 1, batch = 0, gpus = 0, ttft_seconds = 0, tpot_seconds = 0;
    bool met = false;
    std::string reason;  // why it fails (empty when met)
};
struct SloResult {
    bool met = false;
    SloCandidate chosen;
    std::vector<SloCandidate> candidates;  // every configuration tried, best first
};

struct InferenceResult {
    InferenceConfig config;
    double params_total = 0, params_active = 0;
    double batch = 0;  // the batch served (given, or the largest that fits)
    bool batch_given = false;
    double tp = 1;             // GPUs per copy in tensor parallel: inference.tp, or chosen when omitted
    bool tp_chosen = false;    // inference.tp was omitted and chosen (inference.cpp automatic_tp)
    double instance_gpus = 0;  // devices per model copy (tp x ep)
    double weights_bytes = 0;  // whole model at the serving precision
    double weights_bytes_per_gpu = 0;
    double host_weights_bytes = 0;  // CPU offload: weights kept in host memory
    double kv_cache_bytes_per_token = 0;
    double kv_cache_bytes_per_token_per_gpu = 0;  // with heads replicated under TP / MLA latent on every rank
    double context_tokens = 0;                    // prompt + output
    std::optional<double> context_limit_tokens;   // the model's context (null without an architecture)
    double kv_cache_bytes = 0;                    // the batch at full context, logical (one copy)
    double kv_cache_bytes_per_gpu = 0;
    double overhead_bytes_per_gpu = 0;
    double memory_per_gpu_bytes = 0;
    double memory_capacity_bytes = 0;  // usable device memory
    bool fits = true;
    std::string infeasible_reason;
    std::optional<double> fits_with_tp;  // a copy that does not fit: the fewest devices per copy on which one sequence does
    double max_batch = 0;                // sequences that fit at full context
    double instances_per_gpu = 0;
    double instances_per_cluster = 0;
    double prefill_seconds = 0;                    // one request's prompt on an idle instance
    double prefill_tokens_per_second_per_gpu = 0;  // prompt tokens per device prefilling at full load
    double decode_seconds_per_token = 0;           // one decode step of the batch
    DecodeTerms decode;
    bool decode_memory_bound = true;
    double turn_batch = 0;
    double decode_tokens_per_second_per_user = 0;
    double tpot_seconds = 0;   // time per output token with prefills interleaved
    double ttft_seconds = 0;   // one user's wait for the first token (queueing + prefill)
    bool ttft_defined = true;  // false when the instance is overloaded (queue grows without bound)
    double output_tokens_per_second_per_user = 0;
    double throughput_tokens_per_second_per_gpu = 0;       // output tokens
    double throughput_tokens_per_second_per_instance = 0;  // output tokens
    double input_tokens_per_second_per_gpu = 0;
    double requests_per_second_per_instance = 0;
    double request_seconds = 0;  // ttft + output_tokens x tpot
    double replicas = 0;
    double cluster_throughput_tokens_per_second = 0;
    double concurrent_sequences = 0;
    // The GPUs given at the traffic's peak: each copy runs the sequences the load brings, not the
    // largest batch (Little's law: concurrent sequences = arrival rate x time in the system). Set when
    // traffic is given, the model fits, prefill and decode share the copies, and the copies keep up.
    struct AtTraffic {
        double batch = 0;         // average concurrent sequences per copy at the peak (below 1: idle part of the time)
        double tpot_seconds = 0;  // time per output token at that batch (at least one sequence's)
        double output_tokens_per_second_per_user = 0;
        double utilization = 0;           // peak requests/s per copy over a copy's capacity at the batch served at full load
        double concurrent_sequences = 0;  // replicas x batch: users being answered at once at the peak
        double ttft_seconds = 0;          // one user's first token on these copies at the peak (as ttft_seconds, at this load)
    };
    std::optional<AtTraffic> at_traffic;
    // The traffic sized: requests_per_day, or implied by concurrent_requests (Little's law at the batch
    // served: concurrent / a request's time in a copy, over a day at peak_to_average); 0 = none.
    double requests_per_day_sized = 0;
    std::optional<double> implied_requests_per_day;  // set only when concurrent_requests sizes the traffic
    double concurrency_copies = 0;                   // the copies holding them: ceil(concurrent_requests / batch)
    double concurrency_request_seconds = 0;          // a request's time in a copy holding its share of them
    double gpus_needed = 0;
    double instances_needed = 0;
    double cost_per_day_usd = 0;
    std::optional<double> energy_per_day_kwh;  // null without the device's TDP
    double cost_per_million_output_tokens_usd = 0;
    double cost_per_million_input_tokens_usd = 0;
    double input_cost_share = 0;  // share of GPU time (and cost) spent on input tokens
    double input_tokens_per_day = 0, output_tokens_per_day = 0;
    std::string cost_split;              // how the split is made, in words
    std::optional<double> gpu_hour_usd;  // $/GPU-hour used (given or the catalog\'s); none: no price known, costs are null
    // Speculative decoding.
    double speculative_tokens_per_step = 0, speculative_speedup = 0;
    double speculative_draft_weights_bytes = 0;           // the draft model's weights, held beside the target's
    double speculative_draft_kv_cache_bytes_per_gpu = 0;  // the draft's KV cache per device (part of kv_cache_bytes_per_gpu)
    double speculative_draft_step_seconds = 0, speculative_verify_step_seconds = 0;  // one draft step, one verify step
    // Disaggregation.
    double prefill_instances = 0, decode_instances = 0, kv_transfer_seconds = 0;
    std::optional<SloResult> slo;
    std::vector<BatchPoint> curve;
    std::vector<std::string> warnings;
};

// KV cache bytes per token for the whole model (one copy), and per device under tensor
// parallelism: KV heads are split over tp ranks but never below one per rank (replicated when
// kv_heads < tp); MLA's compressed latent is needed whole by every rank.
double kv_cache_bytes_per_token(const ModelSpec& m, Precision kv_precision);
double kv_cache_bytes_per_token_per_gpu(const ModelSpec& m, Precision kv_precision, double tp, bool attention_dp);

InferenceResult estimate_inference(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs, Trace& trace);
// The same with other constants (cross-validation of the fitted ones: test_serving_validation.cpp).
InferenceResult estimate_inference(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs, Trace& trace,
                                   const InferenceEfficiency& eff);

}  // namespace gpucalc
