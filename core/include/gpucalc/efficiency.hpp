// Efficiency constants of the training time model, as data: per hardware generation (what the
// kernels reach on that silicon: GEMM, attention, HBM, network) and per framework (what the software
// overlaps and fuses). core/data/calibration.json holds them with their sources; the fitted ones are
// written by tools/calibrate (leave-one-source-out, docs/VALIDATION.md). A device of no known
// generation gets an explicit, reported fallback.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/device.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct GenerationEfficiency {
    std::string id, name;
    std::vector<std::string> match;  // substrings of Device::architecture (or ids) that select it
    double gemm = 0.7;               // fraction of the dense 16-bit peak a large GEMM reaches
    double gemm_fp8 = 0.6;           // fraction of the dense FP8 peak an FP8 GEMM reaches
    double gemm_half_width = 100;    // per-device GEMM width (hidden / tp) at which GEMMs reach half of `gemm` (fine-tuning model)
    double gemm_k_half = 350;        // training: GEMM inner dimension K at which a 16-bit GEMM reaches half of `gemm`
    double gemm_fp8_k_half = 700;    // the same for FP8 GEMMs
    double mamf = 0;          // the fastest matmul measured on the generation (MAMF), fraction of the dense 16-bit peak (0: not measured)
    double mamf_fp8 = 0;      // the same for FP8 matmuls, fraction of the dense FP8 peak (0: not measured)
    double attention = 0.45;  // fraction of the 16-bit peak the generation's best fused attention kernel reaches
                              // (forward + backward, causal, head dim 128, long sequences)
    double attention_flash2 = 0;                // the same for FlashAttention-2 on this silicon (0 = `attention`: FA2 is the best kernel)
    double memory = 0.8;                        // fraction of HBM bandwidth reached by memory-bound kernels
    double network = 0.75;                      // fraction of link bandwidth reached by collectives (bus bandwidth / line rate)
    double collective_latency_seconds = 20e-6;  // fixed cost of one collective call
    std::string basis;                          // where the numbers come from
    // A generation measured only relative to another: gemm, gemm_fp8 and attention are the reference
    // generation's (fitted) values times these ratios (0 = the generation's own value).
    std::string relative_to;
    double rel_gemm = 0, rel_gemm_fp8 = 0, rel_attention = 0;
};

struct FrameworkProfile {
    std::string id, name;
    bool fp32_gradients = true;  // gradients accumulated and reduced in fp32 (+2 bytes/param)
    double tp_overlap = 0;       // fraction of tensor-parallel communication hidden behind GEMMs
    double dp_overlap = 0.9;     // fraction of ZeRO-0/1/2 gradient reduction hidden behind the last backward
    double fsdp_overlap = 0.8;   // fraction of ZeRO-3 gathers/scatters hidden behind each micro-batch's compute
    double ep_overlap = 0;       // fraction of expert all-to-all hidden behind computation
    // Combined 1F1B (training.overlap_moe_comm): fraction of the all-to-all, up to the compute, that
    // the other micro-batch's compute hides (1 = all; the rest stays exposed)
    double moe_overlap_hidden = 1.0;
    double cp_overlap = 0.9;                  // fraction of context-parallel KV exchange hidden behind attention
    bool root_unit_gathered = false;          // ZeRO-3: the root unit (embeddings, output layer) stays gathered through the step
    bool cp_allgather = false;                // torch context_parallel: K/V all-gathered per pass, gradients on an fp32 ring
    bool kv_repeated = false;                 // K/V heads repeated to every query head before attention (what CP exchanges)
    bool pp_scatter_gather = false;           // pipeline sends split over the tensor-parallel ranks (Megatron)
    bool pp_comm_overlap = false;             // interleaved pipeline sends overlapped with the next chunk's compute
    double kernel_seconds_per_layer = 50e-6;  // launch and small-kernel time per layer per pass
    double attention_kernel = 1.0;            // residual factor on the framework's attention kernel (1 = as measured by the kernel papers)
    AttentionKernel attention_impl = AttentionKernel::fused;  // the kernel the framework uses by default
    double gemm_kernel = 1.0;                                 // the framework's GEMM stack relative to the generation's constant
    double fp8_kernel = 1.0;                                  // the framework's FP8 recipe relative to the generation's FP8 GEMM constant
    double selective_gemm_recompute = 0;                      // forward GEMM FLOPs that `recompute: selective` repeats (flash attention)
    bool selective_recomputes_attention = false;              // `recompute: selective` checkpoints the fused attention kernel too
    double moe_overhead = 1.0;        // MoE routing time relative to the permutation bytes at HBM bandwidth (1 = just those bytes)
    double memory_traffic = 1.0;      // memory-bound traffic relative to fused kernels (1 = fully fused)
    double loss_bytes_per_logit = 0;  // HBM bytes the loss moves per logit (forward + backward), counted from the framework's source
    std::string basis;
};

// The uncertainty band of predicted throughput, from the out-of-sample (leave-one-source-out)
// ratios published / predicted: the true tokens/s lies in predicted x [low, high] for ~80% of runs;
// widened by `extrapolation` when the device's generation or the framework has no calibration runs,
// and again for each dimension in which the estimate lies beyond the calibration runs' range.
// Mixture-of-experts models carry a wider band: the published MoE runs disagree with the model (and
// with each other) more than dense ones, so their band also spans the MoE runs' own 5th-95th
// percentile (tools/calibrate; moe_high 0: no such band, MoE models get the common one).
struct Band {
    double low = 0.8, high = 1.25;
    double extrapolation = 1.5;  // the half-widths are multiplied by this outside the calibrated range
    // The calibration runs' range (tools/calibrate, over tests/data/training_runs.json): an estimate
    // beyond it extrapolates. 0: not recorded (no widening on that dimension).
    double max_devices = 0, max_seq_len = 0, max_params = 0;
    double max_sites = 1, max_local_steps = 1;  // every calibration run is one site, synchronous
    bool mixed_devices = false;                 // whether any calibration run mixes device types
    std::string basis = "not calibrated";
    double moe_low = 0, moe_high = 0;
    std::string moe_basis;
    bool has_moe() const { return moe_high > 0; }
    double low_for(bool moe) const { return moe && has_moe() ? moe_low : low; }
    double high_for(bool moe) const { return moe && has_moe() ? moe_high : high; }
    const std::string& basis_for(bool moe) const { return moe && has_moe() ? moe_basis : basis; }
    // The factors on predicted throughput with the half-widths multiplied by `widen` (1, or
    // extrapolation outside the calibrated range); the low end stays above 0.05.
    double widened_low(bool moe, double widen) const { return std::max(0.05, 1.0 - (1.0 - low_for(moe)) * widen); }
    double widened_high(bool moe, double widen) const { return 1.0 + (high_for(moe) - 1.0) * widen; }
};

// How a fused attention kernel's efficiency grows with the sequence each call sees and with the head
// dimension: e(s, d) = e_long x s / (s + seq_half) x [d / (d + head_dim_half)] / [128 / (128 + head_dim_half)]
// (fitted to the FlashAttention-2 and -3 papers' kernel benchmarks, not to training runs).
struct AttentionKernelShape {
    double seq_half = 512;     // tokens at which a causal kernel reaches half its long-sequence speed
    double head_dim_half = 0;  // head dimension at which it reaches half its large-head speed
};

struct Calibration {
    std::vector<GenerationEfficiency> generations;
    std::vector<FrameworkProfile> frameworks;
    GenerationEfficiency fallback;     // a device of no known generation
    AttentionKernelShape kernels[3];   // by AttentionKernel: fused, flash2, triton
    double triton_over_flash2 = 0.42;  // FlashAttention in Triton relative to FlashAttention-2 at long sequences
    double ring_overhead = 0.25;       // ring attention (context parallelism) time: x (1 + ring_overhead (1 - 1/cp))
    Band band;
    std::vector<std::string> calibrated_generations, calibrated_frameworks;  // with runs in the fit
    std::string fitted_on;                                                   // what the fitted constants were fitted on
};

// The embedded calibration (core/data/calibration.json), parsed once.
const Calibration& calibration();
// The calibration as parsed from the embedded data, ignoring any override.
const Calibration& embedded_calibration();
// Parses calibration JSON; `fitted` = use the fitted_* values tools/calibrate wrote (else the priors).
Calibration parse_calibration(const std::string& text, bool fitted);
// For tools/calibrate only: evaluate the model with candidate constants (nullptr restores the embedded).
void set_calibration_override(const Calibration* c);

// The resolved constants for a device and framework. `fallback_used` says the device matched no
// generation (the report then warns); `fallback_note` says which.
struct Efficiency {
    GenerationEfficiency gen;
    FrameworkProfile fw;
    bool fallback_used = false;
    std::optional<double> attention_given;    // training.efficiency.attention: used as the attention kernel's efficiency
    std::optional<double> gemm_k_half_given;  // training.efficiency.gemm_half_width: the K at half efficiency
};
Efficiency efficiency_for(const Device& d, Framework f, const Calibration& cal = calibration());
// Applies the scenario's training.efficiency overrides.
void apply_overrides(Efficiency& e, const EfficiencyOverrides& o);

const char* framework_name(Framework f);

// A GEMM of inner dimension K reaches e_long x K / (K + K_half) of the peak: each output tile pays a
// fixed prologue/epilogue besides its K loop. e_long is the generation's gemm (gemm_fp8 x the
// framework's fp8_kernel for FP8) x the framework's gemm_kernel; K_half the generation's gemm_k_half
// (gemm_fp8_k_half), or training.efficiency.gemm_half_width. Measured on an H200:
// tests/data/kernels/h200-2026-11-30.json (tests/unit/test_kernels.cpp).
struct GemmKernel {
    double e_long = 0;
    double k_half = 0;
    double at(double k) const { return k > 0 ? e_long * k / (k + k_half) : e_long; }
};
GemmKernel gemm_kernel(const Efficiency& e, bool fp8);

// Fraction of the 16-bit peak a fused attention kernel reaches on a call over `seq` query/key tokens
// with head dimension `head_dim` (forward + backward, FlashAttention-2's FLOP convention).
double attention_efficiency(const Efficiency& e, AttentionKernel k, double seq, double head_dim, const Calibration& cal = calibration());
// The same under context parallelism over cp ranks (ring attention), cp = 1: unchanged.
double ring_attention_efficiency(double single_kernel, double cp, const Calibration& cal = calibration());

}  // namespace gpucalc
