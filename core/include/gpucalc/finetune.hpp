// Fine-tuning estimator: memory per device and step time of full fine-tuning, LoRA and QLoRA
// (Hu et al. 2021, arXiv:2106.09685; Dettmers et al. 2023, arXiv:2305.14314), with gradient
// checkpointing, 8-bit / paged optimizers, optimizer-in-backward, chunked cross-entropy,
// activation offload and FSDP sharding / CPU offload; "does it fit on N x device, and what is the
// biggest batch / sequence that does?"
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct FinetuneMemory {       // bytes per device (the parts; total takes the larger of the loss and layer phases)
    double weights = 0;       // frozen or trained weights (bf16; QLoRA: NF4 layers + 16-bit embeddings)
    double master = 0;        // fp32 copy of the trainable weights (master_weights)
    double gradients = 0;     // gradients of the trainable weights
    double optimizer = 0;     // optimizer states on the device
    double activations = 0;   // checkpointed layer inputs (offload: those still on the device) + one layer's working set (or every layer's)
    double logits = 0;        // bf16 logits + the loss's gradient (one chunk's with chunked cross-entropy)
    double fsdp_working = 0;  // gathered full-size layer weights (FSDP, current + prefetched)
    double overhead = 0;
    double head_gradient = 0;  // the output projection's weight gradient during the loss backward (full fine-tuning)
    double total = 0;          // weights + master + optimizer + fsdp_working + max(loss phase, layer phase) + overhead (finetune.cpp)
};

// Memory at the peak: the fixed parts and the parts of the phase that peaks, which add up to total.
struct FinetunePeak {
    const char* phase = "loss";  // "loss" (end of forward, loss backward) or "layers" (the layers' backward)
    double activations = 0;      // activations alive then (loss: kept inputs; layers: one layer + inputs not yet released)
    double logits = 0;           // loss phase only
    double head_gradient = 0;    // loss phase only (full fine-tuning)
    double gradients = 0;        // layers phase, when the accumulated gradients outweigh the inputs still kept
};

struct FinetuneResult {
    FinetuneConfig config;
    FinetunePeak peak;
    double params_total = 0;
    std::optional<double> trainable_params;  // null: LoRA/QLoRA on a model given by parameter count only (its matrices unknown)
    double devices = 1;
    // How the devices share the run: "none" (one device), "fsdp" (weights, gradients and optimizer
    // states fully sharded over the devices, as torchtune's and Hugging Face's multi-GPU recipes do),
    // "fsdp_cpu_offload" (the same, held in host memory).
    std::string sharding = "none";
    FinetuneMemory memory;
    double memory_capacity_bytes = 0;
    double peak_active_bytes = 0;  // total without the fixed overhead (what allocators report as "active")
    bool fits = true;
    std::string infeasible_reason;
    std::optional<double> max_batch;    // sequences per device that fit at seq_len (unknown without the architecture)
    std::optional<double> max_seq_len;  // tokens that fit at batch 1 (the same)
    double flops_per_token = 0;         // hardware FLOPs per trained token (incl. recomputation)
    double step_seconds = 0;
    double tokens_per_second = 0;  // all devices
    std::optional<double> seconds, gpu_hours, cost_usd;
    std::optional<double> gpu_hour_usd;  // $/GPU-hour used (given or the catalog\'s); none: no price known, costs are null
    std::vector<std::string> warnings;
};

// Trainable LoRA parameters: rank x (d_in + d_out) for every adapted matrix of every layer.
double lora_params(const ModelSpec& m, Count rank, LoraModules modules);
// The sum of d_in + d_out over a layer's adapted matrices (an MoE model's: the mean over its layers).
double lora_width(const ModelSpec& m, LoraModules modules);

FinetuneResult estimate_finetune(const ModelSpec& m, const Hardware& hw, const FinetuneConfig& cfg, const Costs& costs, Trace& trace);

}  // namespace gpucalc
