// Training estimator: memory per GPU and predicted step time under TP/PP/DP/SP, ZeRO and
// recomputation; run totals (time, GPU-hours, cost, energy, CO2).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// Efficiency constants of the performance model, per hardware generation. See docs/MODEL.md and
// tests/unit/test_validation.cpp for how they were calibrated and what error remains.
struct Efficiency {
    double gemm_max = 0.8;         // fraction of dense peak a large GEMM reaches
    double gemm_half_width = 200;  // per-GPU GEMM width (hidden/tp) at which GEMMs reach half of gemm_max
    double attention = 0.5;        // fraction of peak reached by fused (flash) attention
    double memory = 0.8;           // fraction of HBM bandwidth reached by memory-bound kernels
    double network = 0.75;         // fraction of link bandwidth reached by NCCL collectives
    double collective_latency_seconds = 20e-6;  // fixed cost per collective call
    std::string basis;             // where the numbers come from
};
Efficiency efficiency_for(const Device& d);

struct MemoryPerGpu {
    double weights = 0, gradients = 0, optimizer = 0, activations = 0, overhead = 0, total = 0;  // bytes
};

struct StepTime {  // seconds per optimizer step, by cause (the slowest pipeline stage)
    double gemm = 0;          // dense matrix multiplies (incl. recomputation)
    double attention = 0;     // attention scores / flash attention
    double memory_bound = 0;  // norms, activations, softmax, dropout, residuals at HBM bandwidth
    double tp_comm = 0;       // tensor-parallel all-reduce / all-gather + reduce-scatter
    double pp_comm = 0;       // pipeline point-to-point
    double pp_bubble = 0;     // idle pipeline slots: (p-1)/v micro-batch times
    double dp_comm = 0;       // exposed data-parallel gradient reduction (and ZeRO-3 gathers)
    double ep_comm = 0;       // expert-parallel all-to-all (MoE token dispatch and combine)
    double optimizer = 0;     // optimizer step (memory-bound)
    double total = 0;
};

struct TrainingResult {
    TrainingConfig config;  // effective inputs (defaults filled in)
    double params_total = 0, params_active = 0;
    double model_flops_per_token = 0;     // 6N + attention (MFU convention)
    double hardware_flops_per_token = 0;  // + recomputation (HFU)
    double tokens = 0;                    // 0 when not given
    double flops = 0;                     // model FLOPs for the run
    double flops_6nd = 0;                 // 6 x N_active x D
    MemoryPerGpu memory;
    bool fits = true;
    double memory_capacity_bytes = 0;
    StepTime step;
    bool time_model = false;              // the layer-by-layer model ran (architecture known)
    double step_seconds = 0;
    double tokens_per_step = 0;
    double tokens_per_second = 0;
    double mfu = 0, hfu = 0;
    double mfu_predicted = 0;             // what the model predicts even when mfu was given
    bool mfu_given = false;
    double achieved_flops_per_second_per_gpu = 0;  // hardware FLOP/s per GPU
    // Run totals: undefined (nullopt) without training.tokens or a rate; the report also leaves every
    // time and cost figure null when the setup does not fit (infeasible_reason says why).
    std::optional<double> seconds, gpu_hours, cost_usd, energy_kwh, co2_kg;
    std::optional<double> seconds_low, seconds_high, cost_usd_low, cost_usd_high;
    std::string infeasible_reason;
    double gpu_hour_usd = 0;
    std::vector<std::string> warnings;
};

TrainingResult estimate_training(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs,
                                 Trace& trace);

// The inner, allocation-free model used by estimate_training and the plan search.
struct StepInputs {
    double layers, hidden, heads, kv_ratio, ffn_matmul_params_per_layer_active, attn_params_per_layer, vocab, seq,
        attn_width_qk, attn_width_v, window, ffn_act_factor, params_total_layers, params_embedding_per_stage,
        tied, mla;
    // MoE: routed-expert parameters per layer (averaged over all layers), fraction of MoE layers,
    // experts per token; zero for dense models.
    double expert_params_per_layer = 0, moe_layer_fraction = 0, experts = 0, experts_per_token = 0;
};
struct StepEstimate {
    MemoryPerGpu memory;
    StepTime step;
    double recompute_flops_per_token = 0;
};
StepInputs step_inputs(const ModelSpec& m);
// Activation bytes stored per transformer layer per micro-batch (Korthikanti et al. 2022 Table 2).
double activation_bytes_per_layer(const StepInputs& in, const TrainingConfig& cfg);
StepEstimate estimate_step(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff);

// Default global batch: about 4M tokens per step (Llama 2, arXiv:2307.09288 Sec. 2.2), rounded up to a
// whole multiple of `granule` sequences (dp x micro_batch, or the GPU count).
Count default_global_batch(double seq_len, Count granule);

// A GPT-like architecture for a bare parameter count (used when only `params` is known).
ModelSpec gpt_like_shape(double params, double seq_len);

// Scaling curve: step/run time and efficiency vs GPU count (same model, tokens, TP and PP).
struct ScalingPoint {
    double gpus, seconds, mfu, tokens_per_second, speedup, efficiency;
};
std::vector<ScalingPoint> scaling_curve(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs);

}  // namespace gpucalc
