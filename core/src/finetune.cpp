// Fine-tuning estimator (finetune.hpp). Memory per device:
//  - weights: 2 B/param (bf16). QLoRA stores the layers' linear weights in 4-bit NormalFloat with
//    double quantisation, 4 + 0.127 bits per parameter (Dettmers et al. 2023, arXiv:2305.14314,
//    Sec. 3: 64-weight blocks, 8-bit block constants, second-level constants per 256 blocks; torchao's
//    NF4Tensor, which torchtune uses, has the same layout: pytorch/ao@36027d82
//    torchao/quantization/quantize_/workflows/nf4/nf4_tensor.py:1077 to_nf4(block_size=64,
//    scaler_block_size=256)); embeddings, output head and norms stay 16-bit (bitsandbytes skips
//    lm_head; torchtune keeps its output projection in bf16: pytorch/torchtune@30b8519e
//    torchtune/models/llama3_1/_component_builders.py:247 "quantize_base is not applied to final output_proj").
//  - trainable: all parameters (full) or rank x (d_in + d_out) per adapted matrix (LoRA, Hu et al.
//    2021 Sec. 4). Gradients in the trainable dtype; AdamW keeps two states per parameter in the
//    parameter dtype (PyTorch) or 1 byte each (8-bit AdamW, Dettmers et al. 2022); paged optimizer
//    states live in CUDA unified memory and are paged to host RAM under pressure (QLoRA Sec. 3), so
//    they are counted on the device where they fit and on the host where they do not.
//  - activations: with gradient checkpointing each layer keeps its 16-bit input (2 s b h bytes) and
//    one layer is recomputed at a time; without it every layer keeps Korthikanti et al. 2022 Table 2's
//    activations (flash attention: no s x s scores) — training.cpp activation_bytes_per_layer. With
//    activation offload the inputs go to host memory and only the last 5 saved tensors are still on
//    the device when the forward pass ends (torchtune OffloadActivations max_fwd_stash_size = 5:
//    pytorch/torchtune@1814feb17 torchtune/training/_activation_offloading.py:71, 159).
//  - logits: chunked cross-entropy (torchtune CEWithChunkedOutputLoss, 8 chunks) keeps the 16-bit
//    logits of every chunk (2 B) and, in backward, one chunk's 16-bit gradient (2 B / 8): torchtune
//    compiles the upcast + cross-entropy of each chunk (pytorch/torchtune@1814feb17
//    torchtune/training/_compile.py:75 compile_loss), and the compiled graph saves its bf16 input rather
//    than the fp32 upcast (AOTAutograd min-cut partitioner: pointwise ops and casts are recomputed,
//    pytorch/pytorch torch/_functorch/partitioners.py min_cut_rematerialization_partition; the
//    cross-entropy gradient's scatter becomes a pointwise kernel, torch/_inductor/config.py
//    optimize_scatter_upon_const_tensor). Without chunking: 2 B + 8 B (fp32 logits and gradient).
//  - peak = weights + fp32 master + optimizer + FSDP gathers + max(loss phase, layer phase) + overhead.
//    Loss phase (end of forward, loss backward): checkpointed inputs + logits + the output
//    projection's weight gradient (full fine-tuning; unsharded until FSDP reduce-scatters it). The
//    recipe frees the logits before the layers' backward ("del logits  # free logits otherwise it
//    peaks backward memory", pytorch/torchtune@1814feb17 recipes/lora_finetune_single_device.py:651),
//    so the layer phase holds one recomputed layer + max(checkpointed inputs, gradients): inputs are
//    released as gradients accumulate, layer by layer (without checkpointing: every layer's
//    activations at its start, the first layer's beside every gradient at its end).
// Step time: hardware FLOPs (6N full, 4N LoRA: forward and input gradients only, +2N with
// checkpointing, + attention) at the training model's GEMM efficiency for the device, + NF4
// dequantisation in every pass (QLoRA), + FSDP / CPU-offload transfers.
#include "gpucalc/finetune.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/json_read.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/training.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

constexpr double kNf4BitsPerParam = 4.0 + 0.127;  // QLoRA Sec. 3: double quantisation, 0.127 bits of constants
constexpr double kChunks = 8;                     // torchtune CEWithChunkedOutputLoss num_output_chunks
constexpr double kDequantOpsPerWeight = 2;        // NF4 lookup + scale (as int4 in inference.cpp)
constexpr double kDequantAlu = 0.70;              // fraction of FP32 SIMT peak (inference.hpp dequant_alu)
constexpr double kLogitBytes = 2.0;               // bf16 logits of every chunk
constexpr double kLogitGradBytes = 2.0;           // bf16 gradient of the chunk in backward (compiled loss)
constexpr double kLogitFp32Bytes = 8.0;           // unchunked: fp32 logits and their gradient
constexpr double kOffloadStash = 5;               // torchtune OffloadActivations max_fwd_stash_size

double safe_div(double a, double b) { return b > 0 ? a / b : 0; }

// Trainable LoRA parameters of a layer width (lora_width): rank x width x layers.
double adapter_params(Count rank, double width, double layers) { return static_cast<double>(rank) * width * layers; }

}  // namespace

double lora_params(const ModelSpec& m, Count rank, LoraModules modules) { return adapter_params(rank, lora_width(m, modules), m.layers); }

double lora_width(const ModelSpec& m, LoraModules modules) {
    if (!m.has_architecture) return 0;
    const double h = m.hidden;
    const double hd = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
    double q = h + m.heads * hd, kv = h + m.kv_heads * hd, o = m.heads * hd + h;
    if (m.is_mla()) {  // adapt the up-projections: q (q_lora_rank or h -> heads x qk), kv latent -> heads x (nope + v)
        const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
        q = (m.q_lora_rank > 0 ? m.q_lora_rank : h) + m.heads * qk;
        kv = m.kv_lora_rank + m.heads * (m.qk_nope_head_dim + m.v_head_dim);
        o = m.heads * m.v_head_dim + h;
    }
    // torchtune names the matrices in lora_attn_modules (q_proj, k_proj, v_proj, output_proj) and adds
    // the MLP with apply_lora_to_mlp (torchtune/models/llama3_1/_component_builders.py lora_llama3_1).
    const double k = m.is_mla() ? 0.0 : kv;  // MLA: one latent kv projection, adapted as "v"
    double per_layer = 0;
    switch (modules) {
        case LoraModules::qv:
            per_layer = q + kv;
            break;
        case LoraModules::qkv:
            per_layer = q + k + kv;
            break;
        case LoraModules::attention:
            per_layer = q + k + kv + o;
            break;
        case LoraModules::all_linear:
        case LoraModules::qvo_mlp: {
            per_layer = q + (modules == LoraModules::all_linear ? k : 0.0) + kv + o;
            const double mats = m.ffn_kind == FfnKind::swiglu ? 3.0 : 2.0;
            if (m.is_moe()) {
                const double moe_layers = m.layers - std::min(m.dense_layers, m.layers);
                const double e = m.expert_ffn_hidden > 0 ? m.expert_ffn_hidden : m.ffn_hidden;
                const double moe = mats * (h + e) * (m.experts + m.shared_experts);
                const double dense = mats * (h + m.ffn_hidden);
                per_layer += (moe * moe_layers + dense * (m.layers - moe_layers)) / m.layers;
            } else {
                per_layer += mats * (h + m.ffn_hidden);
            }
            break;
        }
    }
    return per_layer;
}

namespace {

// The run being estimated: the model at the run's sequence length and the sizes every part needs.
struct Run {
    ModelSpec m;
    // The model, or without its architecture the GPT-like shape the training estimate assumes
    // (gpt_like_shape; said in the warning): its layers, width and vocabulary size FSDP's gathered
    // layer, the activations and the logits.
    ModelSpec shape;
    ParamCount pc;
    double N = 1, layers = 1, s = 0, b = 0, V = 0;  // devices, layers, sequence, batch per device, vocabulary
    bool full = false, qlora = false;
};

Run run_of(const ModelSpec& model, const Hardware& hw, const FinetuneConfig& cfg) {
    Run u;
    u.m = model;
    u.m.seq_len = static_cast<double>(cfg.seq_len);
    u.pc = count_params(u.m);
    u.N = static_cast<double>(hw.count);
    u.full = cfg.method == FinetuneMethod::full, u.qlora = cfg.method == FinetuneMethod::qlora;
    u.s = static_cast<double>(cfg.seq_len), u.b = static_cast<double>(cfg.batch);
    // Without the architecture, one layer had been the whole model, gathered twice (70B on 64 H100
    // needed 264 GiB each), and the activations 0 (a 406B QLoRA at batch 64 x 32K 'fit' 7.1 GiB on an
    // RTX 4090): the shape's (red teams).
    u.shape = u.m.has_architecture ? u.m : gpt_like_shape(u.pc.total, u.s);
    u.layers = u.shape.layers, u.V = u.shape.vocab;
    return u;
}

// Sizes shared by the memory, the step time and the derivations.
struct Sizes {
    double layer_linear = 0;    // parameters of the layers' linear weights
    double base = 0;            // bytes of the base weights, all devices
    double grads = 0;           // bytes of the gradients, all devices
    double state_bytes = 0;     // optimizer state bytes per trainable parameter
    double layer_full = 0;      // one layer's activations
    double kept = 0;            // activations held through the forward pass (checkpointed inputs, or every layer's)
    double working = 0;         // one recomputed layer's activations (checkpointing), else 0
    double head_grad = 0;       // the output projection's weight gradient during the loss backward (full)
    double fixed = 0;           // memory that does not grow with the tokens per device
    bool fp32_sharded = false;  // full fine-tuning with an FP32 master copy under FSDP: no 16-bit copy kept
    double lora_width = 0;      // LoRA: the sum of d_in + d_out over a layer's adapted matrices (lora_width)
    // The largest batch and sequence (fit_memory): the room for what grows with the tokens, each
    // phase's bytes per token and fixed bytes (max_tokens), the tokens that fit; with a learned
    // position table, the two lengths the longest sequence is solved from and their memory.
    struct TokenFit {
        double room = 0, pageable = 0, per_token[3] = {0, 0, 0}, fixed[3] = {0, 0, 0}, tokens = 0;
        double T = 0, T1 = 0, need_T = 0, need_T1 = 0;
    } fit;
};

// Bytes of optimizer state per trainable parameter.
double optimizer_state_bytes(const FinetuneConfig& cfg) {
    switch (cfg.optimizer) {
        case FinetuneOptimizer::adamw:
            return 2.0 * (cfg.master_weights ? 4.0 : 2.0);
        case FinetuneOptimizer::adamw_8bit:
            return 2.0;
        case FinetuneOptimizer::paged_adamw_8bit:
            return 2.0;  // resident until memory runs short (fit_memory pages them out then)
        case FinetuneOptimizer::sgd:
            return 0.0;
    }
    return 0;
}

// Weights, master copy, gradients, optimizer states and FSDP gathers per device.
Sizes weight_memory(const Run& u, const FinetuneConfig& cfg, double trainable, FinetuneMemory& mem) {
    Sizes z;
    const double norms = u.pc.norms_per_layer * u.layers;
    z.layer_linear = std::max(0.0, u.pc.total - u.pc.embedding - norms);
    z.base = u.qlora ? z.layer_linear * kNf4BitsPerParam / 8.0 + (u.pc.total - z.layer_linear) * 2.0 : u.pc.total * 2.0;
    const double adapters = u.full ? 0.0 : trainable * (cfg.master_weights ? 4.0 : 2.0);
    const double shard = cfg.cpu_offload ? 0.0 : 1.0 / u.N;  // FSDP shards parameters, gradients and states over N devices
    // Full fine-tuning with an FP32 master copy under FSDP: PyTorch FSDP's MixedPrecision
    // (param_dtype bf16) keeps the sharded parameters in FP32, the master, and casts a unit to 16 bits
    // only while it is gathered (fsdp_working): 4 + 4 + 8 = 16 B per parameter, as ZeRO's 2 + 2 + 12
    // (Rajbhandari et al. 2020, Sec. 3.1). On one device, autocast's cache holds 16-bit copies of the
    // weights through the forward pass (torch.autocast weight-cast cache), counted as weights.
    z.fp32_sharded = u.full && cfg.master_weights && u.N > 1 && !cfg.cpu_offload;
    mem.weights = z.fp32_sharded ? 0.0 : (z.base + adapters) * shard;
    mem.master = u.full && cfg.master_weights ? trainable * 4.0 * shard : 0.0;
    const double grad_bytes = cfg.master_weights ? 4.0 : 2.0;
    z.grads = trainable * grad_bytes * (cfg.optimizer_in_backward ? 1.0 / u.layers : 1.0);
    mem.gradients = z.grads * shard;
    z.state_bytes = optimizer_state_bytes(cfg);
    mem.optimizer = trainable * z.state_bytes * shard;
    if (u.N > 1 || cfg.cpu_offload) mem.fsdp_working = 2.0 * (z.base / std::max(1.0, u.layers));  // one layer gathered + one prefetched
    return z;
}

// Activations (checkpointed or not), logits and the output head's gradient per device.
void activation_memory(const Run& u, const FinetuneConfig& cfg, Sizes& z, FinetuneMemory& mem) {
    TrainingConfig tc;
    tc.tp = 1;
    tc.micro_batch = cfg.batch;
    tc.sequence_parallel = false;
    tc.attention = Attention::flash;
    tc.recompute = Recompute::selective;
    const StepInputs in = step_inputs(u.shape);
    const double h = u.shape.hidden, V = u.V;
    z.layer_full = activation_bytes_per_layer(in, tc);
    const double layer_input = 2.0 * u.s * u.b * h;
    if (!cfg.gradient_checkpointing) {
        z.kept = z.layer_full * u.layers, z.working = 0;
    } else {
        z.kept = layer_input * (cfg.activation_offload ? std::min(u.layers, kOffloadStash) : u.layers);
        z.working = z.layer_full;
    }
    mem.activations = z.kept + z.working;
    mem.logits = u.s * u.b * V * (cfg.chunked_cross_entropy ? kLogitBytes + kLogitGradBytes / kChunks : kLogitBytes + kLogitFp32Bytes);
    // Full fine-tuning: the output projection's (or tied embedding's) gradient, V x h in the gradient
    // dtype, is allocated in the loss backward while the logits are alive; FSDP reduce-scatters it after.
    // Under FSDP the unsharded gradient is in the 16-bit compute dtype even with an FP32 master copy
    // (MixedPrecision param_dtype); on one device it is the FP32 parameters' dtype.
    const bool fp32_grad = cfg.master_weights && (u.N == 1 || cfg.cpu_offload);
    z.head_grad = u.full ? V * h * (fp32_grad ? 4.0 : 2.0) : 0.0;
}

// What would shrink a run that does not fit, among what it does not already do.
std::string memory_remedies(const FinetuneConfig& cfg) {
    std::vector<std::string> r;
    if (cfg.method == FinetuneMethod::full) r.emplace_back("LoRA/QLoRA");
    if (cfg.method == FinetuneMethod::lora) r.emplace_back("QLoRA");
    if (!cfg.gradient_checkpointing) r.emplace_back("gradient checkpointing");
    if (cfg.method == FinetuneMethod::full && cfg.optimizer == FinetuneOptimizer::adamw) r.emplace_back("an 8-bit or paged optimizer");
    if (cfg.method == FinetuneMethod::full && cfg.master_weights) r.emplace_back("no FP32 master copy");
    if (cfg.batch > 1) r.emplace_back("a smaller batch");
    r.emplace_back("more devices");
    return jr::or_list(r);
}

// Largest tokens per device whose loss phase and layer phase both fit in room (all linear in tokens).
double max_tokens(Sizes& z, const FinetuneMemory& mem, double tokens, double room) {
    const double kept = safe_div(z.kept, tokens), work = safe_div(z.working, tokens), logits = safe_div(mem.logits, tokens);
    const double layer = safe_div(z.layer_full, tokens);  // the layer being differentiated, beside every gradient
    const struct { double per_token, fixed; } phases[] = {{kept + logits, z.head_grad}, {work + kept, 0.0}, {layer, mem.gradients}};
    for (int i = 0; i < 3; ++i) z.fit.per_token[i] = phases[i].per_token, z.fit.fixed[i] = phases[i].fixed;
    z.fit.room = room;
    double best = INFINITY;
    for (const auto& p : phases) {
        if (p.fixed >= room) return 0;
        if (p.per_token > 0) best = std::min(best, (room - p.fixed) / p.per_token);
    }
    return std::isfinite(best) ? std::floor(best) : 0;
}

// Peak memory, whether it fits, and the biggest batch and sequence that would.
void fit_memory(const Run& u, const FinetuneConfig& cfg, const Device& d, Sizes& z, FinetuneResult& r) {
    FinetuneMemory& mem = r.memory;
    mem.overhead = cfg.overhead_bytes;
    z.fixed = mem.weights + mem.master + mem.optimizer + mem.fsdp_working;
    const double loss_phase = z.kept + mem.logits + z.head_grad;
    // The layers' backward: at its start what the forward kept (and, checkpointing, the layer being
    // recomputed); at its end every gradient beside the last layer's activations, recomputed or kept
    // (without checkpointing the first layer's stay alive until its backward: red team, stop 44, found
    // checkpointing on needing more memory than off when the gradients set the peak).
    const double layer_phase = std::max(z.working + z.kept, z.layer_full + mem.gradients);
    mem.head_gradient = z.head_grad;
    mem.total = z.fixed + std::max(loss_phase, layer_phase) + mem.overhead;
    FinetunePeak& pk = r.peak;
    if (loss_phase >= layer_phase)
        pk = FinetunePeak{"loss", z.kept, mem.logits, z.head_grad, 0.0};
    else if (z.working + z.kept >= z.layer_full + mem.gradients)
        pk = FinetunePeak{"layers", z.working + z.kept, 0.0, 0.0, 0.0};
    else
        pk = FinetunePeak{"layers", z.layer_full, 0.0, 0.0, mem.gradients};
    r.peak_active_bytes = mem.total - mem.overhead;
    r.memory_capacity_bytes = d.usable_memory_bytes().value_or(0);
    r.fits = mem.total <= r.memory_capacity_bytes;
    // Paged states stay on the device until it runs short, then bitsandbytes pages them to host RAM
    // (QLoRA Sec. 3): counted where they fit (they took 0 on an 80 GB card with room; formula review),
    // else on the host, their page traffic per step not timed.
    if (!r.fits && cfg.optimizer == FinetuneOptimizer::paged_adamw_8bit && mem.optimizer > 0) {
        const double states = mem.optimizer;
        mem.optimizer = 0;
        z.state_bytes = 0;  // on the device (its derivation)
        z.fixed -= states;
        mem.total -= states;
        r.peak_active_bytes -= states;
        r.fits = mem.total <= r.memory_capacity_bytes;
        r.warnings.push_back("paged 8-bit AdamW: the optimizer states (" + jr::fmt_num(states / units::GiB) +
                             " GiB) do not fit beside the rest" +
                             (r.fits ? " and are paged to host memory; the transfers each step are not timed"
                                     : "; paging them to host memory does not make room enough either"));
    }
    if (!u.m.has_architecture)
        r.warnings.push_back(
            "model given by parameter count only: LoRA sizes unknown; the activations, logits and FSDP's gathered layer are a "
            "GPT-like shape's of " +
            jr::fmt_num(u.layers) + " layers (give the architecture)");
    // Biggest batch / sequence: activations and logits grow with the tokens per device (unknown
    // without the architecture). A run that fits holds its own tokens, whatever the rounding of the
    // quotient at exactly full memory.
    if (u.m.has_architecture) {
        // The largest batch pages the states out where they are pageable, whatever batch was given.
        const double pageable = cfg.optimizer == FinetuneOptimizer::paged_adamw_8bit ? mem.optimizer : 0.0;
        double tokens = max_tokens(z, mem, u.s * u.b, r.memory_capacity_bytes - (z.fixed - pageable) - mem.overhead);
        if (r.fits) tokens = std::max(tokens, u.s * u.b);
        z.fit.pageable = pageable, z.fit.tokens = tokens;
        r.max_batch = tokens > 0 ? std::floor(tokens / u.s) : 0.0;
        r.max_seq_len = tokens > 0 ? tokens : 0.0;  // flash attention: memory linear in tokens
    }
    if (!r.fits)
        r.infeasible_reason = "does not fit: needs " + jr::fmt_num(mem.total / units::GiB) + " GiB per device, " + d.name + " has " +
                              jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB usable (" + memory_remedies(cfg) + ")";
}

// Hardware FLOPs per token: 6N full, 4N LoRA, +2N with checkpointing, + attention.
double flops_per_token(const Run& u, const FinetuneConfig& cfg, double trainable) {
    const ModelSpec& m = u.m;
    const double matmul = std::max(0.0, u.pc.active - (m.tied_embeddings || !m.has_architecture ? 0.0 : m.vocab * m.hidden));
    const double attention = m.has_architecture ? attention_flops_per_token_training(m) : 0.0;  // forward + backward (3x forward)
    const double passes_matmul = u.full ? 6.0 : 4.0;  // LoRA: no weight gradients for the frozen base
    return passes_matmul * matmul + attention + 6.0 * (u.full ? 0.0 : trainable) +
           (cfg.gradient_checkpointing ? 2.0 * matmul + attention / 3.0 : 0.0);
}

// FSDP gathers and reduce-scatters, or CPU-offload transfers, per step.
double transfer_seconds(const Run& u, const FinetuneConfig& cfg, const Hardware& hw, const Efficiency& eff, const Sizes& z,
                        std::vector<std::string>& warnings) {
    const Device& d = hw.device;
    const double N = u.N;
    double comm = 0;
    if (N > 1 && !cfg.cpu_offload) {
        // Inside a node: the scale-up links, else PCIe peer traffic; across nodes: the NIC, or an
        // assumed 100 GbE NIC (12.5 GB/s) with a warning when the catalog has none.
        const double per_node = std::max(1.0, static_cast<double>(hw.devices_per_node));
        const bool one_node = N <= per_node;
        // Between nodes: the scenario's NIC, its network preset (hardware.network, ignored here before:
        // 16 A100 over 1 Gb/s internet ran as over InfiniBand; a red team), the catalog's, or assumed.
        const NetworkLevels lv = network_levels(hw);
        std::optional<double> up = d.scale_up_bytes_per_second();
        if (!up && d.host_link_bytes_per_second_bidirectional) up = *d.host_link_bytes_per_second_bidirectional / 2.0;
        if (!(one_node && up) && lv.scale_out_assumed) warnings.push_back(assumed_scale_out_warning(d.name));
        if (one_node && scale_up_unknown(d)) warnings.push_back(unknown_scale_up_warning(d));
        const double out = between_nodes_bytes_per_second(lv) * eff.gen.network;
        // FSDP: all-gather the weights twice (forward, backward) and reduce-scatter the gradients, in
        // rings over every device, NCCL's two-level ring across nodes as the training estimate times
        // it (one NIC per device: 16 A100 had been timed at one NIC's bandwidth for the whole ring, 2.2x
        // slower than 8; a red team).
        comm = two_level_ring_seconds(2.0 * z.base + z.grads, N, std::min(N, per_node), up ? *up * eff.gen.network : out, out);
    }
    if (cfg.cpu_offload) {
        const double pcie = d.host_link_bytes_per_second_bidirectional.value_or(64e9) / 2.0 * eff.gen.network;
        comm = safe_div(2.0 * z.base + 2.0 * z.grads, N * pcie);  // weights up twice, gradients down (per device's share)
        // What this leaves out, sized by a published run: the optimizer step on the host CPU and the
        // transfers FSDP does not hide behind compute. torchtune README @ 30b8519e: Llama 3.1 70B full
        // fine-tune, FSDP + CPU offload (70B_full.yaml: fsdp_cpu_offload, fused AdamW), 8 x A100,
        // batch 2 x 2,048: 1,568 tokens/s, where this model gives ~3,440 (2.2x; tests/unit/test_serving.cpp keeps the ratio true).
        warnings.push_back(
            "cpu_offload: the time leaves out the optimizer step on the host CPU and the transfers not hidden behind compute; "
            "torchtune's Llama 3.1 70B full fine-tune with CPU offload on 8 A100 ran 2.2x slower than this model gives for it "
            "(README @ 30b8519e: 1,568 tokens/s)");
    }
    return comm;
}

// The parts of one step's time.
struct StepParts {
    double tokens_step = 0, peak = 0, gemm = 0, dequant = 0, comm = 0;
};

// Step time: compute at the training model's GEMM efficiency + NF4 dequantisation, or the transfers.
StepParts step_time(const Run& u, const FinetuneConfig& cfg, const Hardware& hw, const Sizes& z, FinetuneResult& r) {
    const Device& d = hw.device;
    StepParts st;
    const Efficiency eff = efficiency_for(d, Framework::fsdp);  // torchtune / HF PEFT: PyTorch FSDP
    const double w = u.m.has_architecture ? u.m.hidden : 4096.0;
    st.gemm = eff.gen.gemm * w / (w + eff.gen.gemm_half_width);
    st.peak = d.peak(Precision::bf16).value_or(d.peak(Precision::fp16).value_or(d.peak(Precision::fp32).value_or(0)));
    st.tokens_step = u.s * u.b;  // per device
    const double compute = safe_div(r.flops_per_token * st.tokens_step, st.peak * st.gemm);
    const double passes = cfg.gradient_checkpointing ? 3.0 : 2.0;  // forward, recompute, backward each expand the NF4 weights
    // Each expansion is a kernel of its own: the whole weight becomes a 16-bit tensor (its NF4 bits
    // and constants read, 2 bytes written) that the matmul then reads again (torchtune: torchao
    // linear_nf4, weight.to(input.dtype); HF PEFT: bitsandbytes MatMul4Bit, F.dequantize_4bit).
    const double alu = safe_div(passes * z.layer_linear * kDequantOpsPerWeight, d.peak(Precision::fp32).value_or(0) * kDequantAlu);
    const double bytes = passes * z.layer_linear * (kNf4BitsPerParam / 8.0 + 2.0 + 2.0);
    st.dequant = u.qlora ? alu + safe_div(bytes, d.memory_bandwidth_bytes_per_second.value_or(0) * eff.gen.memory) : 0.0;
    st.comm = transfer_seconds(u, cfg, hw, eff, z, r.warnings);
    r.step_seconds = std::max(compute + st.dequant, st.comm);
    return st;
}

// Throughput, and the time and cost of the tokens to train on.
void run_time_and_cost(const Run& u, const FinetuneConfig& cfg, const Hardware& hw, const Costs& costs, const StepParts& st,
                       FinetuneResult& r) {
    const Device& d = hw.device;
    r.tokens_per_second = safe_div(st.tokens_step * u.N, r.step_seconds);
    const HourlyRate hourly = hardware_hour_cost(hw, costs, "hardware.device");
    r.gpu_hour_usd = hourly.usd;
    if (cfg.tokens && r.tokens_per_second > 0 && r.fits) {
        r.seconds = *cfg.tokens / r.tokens_per_second;
        r.gpu_hours = *r.seconds * u.N / units::seconds_per_hour;
        // A rate of 0 is free (cost 0); no price: no cost (null, with the warning), not a cost of 0.
        if (r.gpu_hour_usd)
            r.cost_usd = *r.gpu_hours * *r.gpu_hour_usd;
        else
            r.warnings.push_back(hourly.note.empty() ? "no $/GPU-hour for " + d.name + ": set costs.gpu_hour_usd" : hourly.note);
    }
}

// Derivations of the trainable parameters, the weights and the optimizer states per device.
void explain_finetune_states(Trace& trace, const Run& u, const FinetuneConfig& cfg, const Sizes& z, const FinetuneResult& r) {
    const FinetuneMemory& mem = r.memory;
    const double trainable = r.trainable_params.value_or(0);  // unknown (no architecture): no derivation of its own
    if (r.trainable_params)
        trace.add("finetune.trainable_params", u.full ? "all parameters: params" : "rank x d_in_plus_d_out x layers",
                  {{"params", u.pc.total},
                   {"rank", u.full ? 0.0 : static_cast<double>(cfg.lora_rank)},
                   {"d_in_plus_d_out", z.lora_width},
                   {"layers", u.m.layers}},
                  trainable, "parameters",
                  "Hu et al. 2021 (arXiv:2106.09685) Sec. 4; d_in_plus_d_out: the sum over a layer's adapted matrices (lora_modules; an "
                  "MoE's experts each, the mean over its layers)");
    // Sharded over the devices (FSDP), on the host with cpu_offload: a red team recomputed 8 times the
    // figure from a formula without the division and a value list without the devices.
    const double adapters = u.full ? 0.0 : trainable * (cfg.master_weights ? 4.0 : 2.0);
    trace.add("finetune.memory_per_gpu_bytes.weights",
              cfg.cpu_offload  ? "0: cpu_offload keeps the parameters in host memory (gathered a layer at a time)"
              : u.qlora        ? "(linear layer weights x 4.127 bits / 8 + (params - linear layer weights) x 2 B + adapters) / devices"
              : z.fp32_sharded ? "0: FSDP keeps the FP32 master shard only (16-bit while gathered)"
                               : "(params x 2 B + adapters) / devices",
              {{"params", u.pc.total}, {"layer_linear_params", z.layer_linear}, {"adapters_bytes", adapters}, {"devices", u.N}},
              mem.weights, "bytes",
              u.qlora ? "Dettmers et al. 2023 (arXiv:2305.14314) Sec. 3 (NF4, double quantisation); FSDP shards over the devices"
                      : "16-bit weights (2 B per parameter); adapters 4 B with master_weights, else 2; FSDP shards over the devices");
    trace.add("finetune.memory_per_gpu_bytes.optimizer",
              cfg.cpu_offload ? "0: cpu_offload keeps the optimizer states in host memory"
                              : "trainable x bytes of optimizer state per parameter / devices",
              {{"trainable_params", trainable}, {"state_bytes_per_param", z.state_bytes}, {"devices", u.N}}, mem.optimizer, "bytes",
              "AdamW: 2 states in the parameter dtype; 8-bit: 2 x 1 B (Dettmers et al. 2022); paged: host-backed (QLoRA Sec. 3)");
}

// Derivations of the master copy, gradients, FSDP gathers, output-head gradient and overhead per
// device (a red team: the report gave them with none).
void explain_finetune_buffers(Trace& trace, const Run& u, const FinetuneConfig& cfg, const Sizes& z, const FinetuneResult& r) {
    const FinetuneMemory& mem = r.memory;
    const double trainable = r.trainable_params.value_or(0), devices = cfg.cpu_offload ? 0.0 : u.N;
    const std::string on_host = cfg.cpu_offload ? "0: cpu_offload keeps them in host memory" : "";
    trace.add("finetune.memory_per_gpu_bytes.master_weights",
              !(u.full && cfg.master_weights) ? "0: no FP32 master copy (LoRA/QLoRA adapters, or master_weights false)"
              : cfg.cpu_offload               ? on_host
                                              : "trainable x 4 B / devices",
              {{"trainable_params", trainable}, {"devices", devices}}, mem.master, "bytes",
              "FP32 master weights of mixed-precision training (Micikevicius et al. 2018, arXiv:1710.03740 Sec. 3.1); FSDP shards them");
    trace.add(
        "finetune.memory_per_gpu_bytes.gradients",
        cfg.cpu_offload             ? on_host
        : cfg.optimizer_in_backward ? "trainable x gradient bytes / layers (optimizer in the backward: one layer's at a time) / devices"
                                    : "trainable x gradient bytes / devices",
        {{"trainable_params", trainable}, {"gradient_bytes", cfg.master_weights ? 4.0 : 2.0}, {"layers", u.layers}, {"devices", devices}},
        mem.gradients, "bytes", "gradients in the master dtype (FP32 with master_weights, else 16-bit); FSDP reduce-scatters them");
    trace.add("finetune.memory_per_gpu_bytes.fsdp_working",
              mem.fsdp_working > 0 ? "2 x base weights / layers (one layer gathered, one prefetched)" : "0: one device, nothing to gather",
              {{"base_weights_bytes", z.base}, {"layers", u.layers}}, mem.fsdp_working, "bytes",
              "PyTorch FSDP: one unit (a decoder layer) gathered for compute and the next prefetched (Zhao et al. 2023, arXiv:2304.11277 "
              "Sec. 3.4)");
    trace.add(
        "finetune.memory_per_gpu_bytes.head_gradient",
        u.full ? "V x h x gradient bytes (the output projection's gradient, unsharded, beside the logits)"
               : "0: the output projection is frozen (LoRA/QLoRA)",
        {{"V", u.V}, {"h", u.shape.hidden}, {"gradient_bytes", u.full ? mem.head_gradient / std::max(1.0, u.V * u.shape.hidden) : 0.0}},
        mem.head_gradient, "bytes", "allocated in the loss backward while the logits are alive; FSDP reduce-scatters it after");
    trace.add("finetune.memory_per_gpu_bytes.overhead", "finetune.overhead_bytes", {{"overhead_bytes", cfg.overhead_bytes}}, mem.overhead,
              "bytes", "the scenario's allowance for the CUDA context and allocator (finetune.overhead_bytes)");
}

// Derivations of the throughput and the run's time, GPU-hours and cost (a red team found none: the
// report gave them with no derivation).
void explain_finetune_totals(Trace& trace, const Run& u, const FinetuneConfig& cfg, const StepParts& st, const FinetuneResult& r) {
    trace.add("finetune.tokens_per_second", "tokens per device per step x devices / step_seconds",
              {{"tokens_per_device", st.tokens_step}, {"devices", u.N}, {"step_seconds", r.step_seconds}}, r.tokens_per_second, "tokens/s",
              "data parallelism: every device takes its own batch x seq_len tokens a step (FSDP)");
    if (!r.seconds || !r.gpu_hours) return;
    trace.add("finetune.seconds", "tokens / tokens_per_second",
              {{"tokens", cfg.tokens.value_or(0)}, {"tokens_per_second", r.tokens_per_second}}, *r.seconds, "s",
              "finetune.tokens at the throughput above; no failures or restarts counted");
    trace.add("finetune.gpu_hours", "devices x seconds / 3600", {{"devices", u.N}, {"seconds", *r.seconds}}, *r.gpu_hours, "GPU-h",
              "every device held for the whole run");
    if (r.cost_usd && r.gpu_hour_usd)
        trace.add("finetune.cost_usd", "gpu_hours x gpu_hour_usd", {{"gpu_hours", *r.gpu_hours}, {"gpu_hour_usd", *r.gpu_hour_usd}},
                  *r.cost_usd, "USD", "costs.gpu_hour_usd, else the catalog's cloud price of hardware.device");
}

// Derivations of the largest batch and sequence (fit_memory, max_tokens; with a learned position
// table longest_sequence_with_learned_positions).
GPUCALC_COLD void explain_finetune_fit(Trace& trace, const Run& u, const Sizes& z, const FinetuneResult& r) {
    if (!r.max_batch || !r.max_seq_len) return;
    const Sizes::TokenFit& f = z.fit;
    auto add = [&](std::string_view key, std::string_view formula, double result, std::string_view unit) {
        trace.add(key, formula,
                  {{"capacity", r.memory_capacity_bytes},
                   {"fixed", z.fixed},
                   {"pageable", f.pageable},
                   {"overhead", r.memory.overhead},
                   {"room", f.room},
                   {"loss_per_token", f.per_token[0]},
                   {"loss_fixed", f.fixed[0]},
                   {"backward_start_per_token", f.per_token[1]},
                   {"backward_start_fixed", f.fixed[1]},
                   {"backward_end_per_token", f.per_token[2]},
                   {"backward_end_fixed", f.fixed[2]},
                   {"s", u.s},
                   {"b", u.b},
                   {"fits", r.fits ? 1.0 : 0.0},
                   {"max_tokens", f.tokens},
                   {"T", f.T},
                   {"T1", f.T1},
                   {"need_T", f.need_T},
                   {"need_T1", f.need_T1}},
                  result, unit,
                  "the memory model above, linear in the tokens per device (flash attention); phases: the loss (kept activations + "
                  "logits, head gradient), the layers' backward at its start (recomputed layer + kept) and end (one layer, gradients)");
    };
    const char* tokens =
        "max_tokens = floor(min over the phases with a per-token cost of (room - phase_fixed) / phase_per_token) (0 "
        "when a phase's fixed >= room), at least s x b when the run fits; room = capacity - (fixed - pageable) - overhead";
    add("finetune.max_batch", std::string("floor(max_tokens / s); ") + tokens, *r.max_batch, "sequences");
    if (f.T > 0)
        add("finetune.max_seq_len",
            "learned position table (grows with the sequence): floor(T1 + (capacity - need_T1) / slope), slope = (need_T - need_T1) / "
            "(T - T1), then stepped down while its memory exceeds capacity (0 if none fits); T = max_tokens, T1 = floor(T / 2)",
            *r.max_seq_len, "tokens");
    else
        add("finetune.max_seq_len", std::string("max_tokens (batch 1); ") + tokens, *r.max_seq_len, "tokens");
}

// Derivations of the trainable parameters, the memory parts and the step time.
void explain_finetune(Trace& trace, const Run& u, const FinetuneConfig& cfg, const Sizes& z, const StepParts& st, const FinetuneResult& r) {
    const FinetuneMemory& mem = r.memory;
    const double s = u.s, b = u.b, layers = u.layers;
    explain_finetune_states(trace, u, cfg, z, r);
    explain_finetune_fit(trace, u, z, r);
    explain_finetune_buffers(trace, u, cfg, z, r);
    trace.add("finetune.memory_per_gpu_bytes.activations",
              !cfg.gradient_checkpointing ? "layers x one layer's activations"
              : cfg.activation_offload    ? "min(layers, 5) x 2 s b h (offloaded inputs still on the device) + one layer's activations"
                                          : "layers x 2 s b h (checkpointed inputs) + one layer's activations",
              {{"s", s}, {"b", b}, {"h", u.shape.hidden}, {"layers", layers}, {"one_layer_bytes", z.layer_full}}, mem.activations, "bytes",
              cfg.gradient_checkpointing && cfg.activation_offload
                  ? "Korthikanti et al. 2022 Table 2 (flash attention); torchtune OffloadActivations max_fwd_stash_size = 5"
                  : "Korthikanti et al. 2022 Table 2 (flash attention)");
    trace.add("finetune.memory_per_gpu_bytes.logits",
              cfg.chunked_cross_entropy ? "s b V x (2 B bf16 logits + 2 B / 8 chunks bf16 gradient)"
                                        : "s b V x (2 B + 8 B fp32 logits and gradient)",
              {{"s", s}, {"b", b}, {"V", u.V}}, mem.logits, "bytes",
              "torchtune CEWithChunkedOutputLoss (8 chunks, compiled upcast + cross-entropy)");
    trace.add("finetune.memory_per_gpu_bytes.total",
              "weights + master + optimizer + FSDP gathers + max(inputs + logits + head gradient, one layer + max(inputs, gradients)) + "
              "overhead",
              {{"fixed", z.fixed},
               {"kept_activations", z.kept},
               {"logits", mem.logits},
               {"head_gradient", z.head_grad},
               {"one_layer_bytes", z.working},
               {"gradients", mem.gradients},
               {"overhead", mem.overhead}},
              mem.total, "bytes",
              "torchtune recipes free the logits before the layers' backward (lora_finetune_single_device.py: del logits)");
    trace.add("finetune.step_seconds",
              "max(FLOPs per token x tokens / (peak x e) + NF4 dequantisation (passes x weights x (2 ops at the FP32 peak + 4.5 "
              "bytes at HBM bandwidth: NF4 read, 16-bit written and read)), FSDP / offload transfers)",
              {{"flops_per_token", r.flops_per_token},
               {"tokens_per_device", st.tokens_step},
               {"peak_flops_per_second", st.peak},
               {"gemm_efficiency", st.gemm},
               {"dequant_seconds", st.dequant},
               {"comm_seconds", st.comm}},
              r.step_seconds, "s", "training.cpp efficiency_for (GEMM constants per device generation)");
    explain_finetune_totals(trace, u, cfg, st, r);
}

// The memory of a run: weights, activations, the peak and what fits.
Sizes size_memory(const Run& u, const Hardware& hw, const FinetuneConfig& cfg, FinetuneResult& r) {
    r.devices = u.N;
    r.sharding = cfg.cpu_offload ? "fsdp_cpu_offload" : u.N > 1 ? "fsdp" : "none";
    r.params_total = u.pc.total;
    // LoRA's adapters are sized from the architecture's matrices: unknown (null, with fit_memory's
    // warning) for a model given by parameter count only, whose sizes below then leave them out.
    // (the width computed once: the trainable parameters and their derivation's d_in + d_out read it)
    const double width = u.full ? 0.0 : lora_width(u.m, cfg.lora_modules);
    const double trainable = u.full ? u.pc.total : adapter_params(cfg.lora_rank, width, u.m.layers);
    if (u.full || u.m.has_architecture) r.trainable_params = trainable;
    Sizes z = weight_memory(u, cfg, trainable, r.memory);
    z.lora_width = width;
    activation_memory(u, cfg, z, r.memory);
    fit_memory(u, cfg, hw.device, z, r);
    return z;
}

// A learned position table (seq_len x h parameters, GPT-2/GPT-3 style) grows with the sequence, so
// the longest sequence at batch 1 is below the extrapolation at fixed weights. Memory is linear in the
// sequence: solved from its values at two lengths, then checked (and stepped down if rounding needs it).
void longest_sequence_with_learned_positions(const ModelSpec& model, const Hardware& hw, const FinetuneConfig& cfg, Sizes& z,
                                             FinetuneResult& r) {
    if (model.pos != PosEmbedding::learned || !model.has_architecture || !r.max_seq_len || *r.max_seq_len < 2) return;
    const double cap = r.memory_capacity_bytes;
    auto need = [&](double seq) {
        FinetuneConfig c = cfg;
        c.batch = 1;
        c.seq_len = static_cast<Count>(seq);
        FinetuneResult t;
        size_memory(run_of(model, hw, c), hw, c, t);
        return t.memory.total;
    };
    double T = *r.max_seq_len;
    const double n0 = need(T);
    if (n0 <= cap) return;
    const double T1 = std::floor(T / 2), n1 = need(T1);
    z.fit.T = T, z.fit.T1 = T1, z.fit.need_T = n0, z.fit.need_T1 = n1;
    const double slope = (n0 - n1) / (T - T1);
    T = slope > 0 ? std::floor(T1 + (cap - n1) / slope) : 0.0;
    for (int i = 0; i < 4 && T >= 1 && need(T) > cap; ++i) T -= 1;
    r.max_seq_len = T >= 1 && need(T) <= cap ? T : 0.0;
}

}  // namespace

FinetuneResult estimate_finetune(const ModelSpec& model, const Hardware& hw, const FinetuneConfig& cfg, const Costs& costs, Trace& trace) {
    FinetuneResult r;
    r.config = cfg;
    const Run u = run_of(model, hw, cfg);
    Sizes z = size_memory(u, hw, cfg, r);
    longest_sequence_with_learned_positions(model, hw, cfg, z, r);
    r.flops_per_token = flops_per_token(u, cfg, r.trainable_params.value_or(0));  // unknown adapters: their FLOPs left out (warned)
    const StepParts st = step_time(u, cfg, hw, z, r);
    run_time_and_cost(u, cfg, hw, costs, st, r);
    if (trace.enabled()) explain_finetune(trace, u, cfg, z, st, r);
    return r;
}

}  // namespace gpucalc
