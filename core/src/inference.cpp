// Inference / serving estimator. Formulas (docs/MODEL.md, "Inference"):
//  - KV cache per token: 2 x layers x kv_heads x head_dim x bytes (vLLM, arXiv:2309.06180 Sec. 3);
//    MLA caches the compressed latent + RoPE key: layers x (kv_lora_rank + rope_dim) x bytes
//    (DeepSeek-V2, arXiv:2405.04434 Sec. 2.1.3). Per device under TP: KV heads split over the ranks,
//    at least one per rank (TensorRT-LLM tuning.py: "Each GPU in TP group has at least 1 kv head");
//    the MLA latent is not split by heads, so every rank holds all of it unless attention is
//    data-parallel (DeepSeek-V3 serving, arXiv:2412.19437 Sec. 3.4).
//  - Decode step = weight reads + dequantisation + GEMM compute + max(KV reads, attention FLOPs)
//    + per-layer kernel time + per-sequence runtime work + TP all-reduces + EP all-to-alls: kernels run
//    one after another, so their times add; a decode GEMM (few rows per weight tile) does not hide
//    its math under its weight reads either (this fitted the TensorRT-LLM rows better than the
//    roofline max(); docs/VALIDATION.md).
//  - GEMM efficiency falls with the per-device width: e = e_max x w / (w + w_half), w = hidden / tp
//    (as training.cpp's gemm_half_width).
//  - Continuous batching (Orca, OSDI'22; vLLM): in steady state, for each batch of B requests the
//    instance runs output_tokens decode steps and B prefills; throughput = B x output / cycle.
//  - Time to first token of one user = prefill of their prompt + half a decode step in flight +
//    M/D/1 queueing for the prefill work (Kleinrock 1975, Pollaczek-Khinchine).
#include "gpucalc/inference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpucalc/fastmath.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/order.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

// llama.cpp with layers in host memory: an operation on at least 32 rows runs on the GPU, its weights
// copied over (ggml/src/ggml-cuda/ggml-cuda.cu ggml_backend_cuda_device_offload_op, min_batch_size
// 32); a prompt is processed in ubatches of 512 tokens (common/common.h, n_ubatch default).
constexpr double kLlamaCppOffloadMinBatch = 32;
constexpr double kLlamaCppUbatchTokens = 512;

double safe_div(double a, double b) { return b > 0 ? a / b : 0; }

// Copies for a load of `v` copies' worth: the ceiling, tolerant of rounding (a traffic that exactly
// fills n copies, as concurrent_requests makes it, came out n + 1e-15 and took n + 1).
double copies_for(double v) { return std::ceil(v * (1.0 - 1e-12)); }

// The busiest a disaggregated prefill copy is sized to be: at rho = 2/3 the M/D/1 mean queueing wait
// rho S / (2 (1 - rho)) equals one service time S (Pollaczek-Khinchine, deterministic service).
constexpr double kPrefillLoad = 2.0 / 3.0;

// Requests/s at the traffic's peak (requests_per_day x peak_to_average over a day).
double peak_requests_per_second(const InferenceConfig& c) { return c.requests_per_day * c.peak_to_average / units::seconds_per_day; }

// Bits per weight of llama.cpp GGUF formats. Whole-file figures of Llama-3.1-8B from llama.cpp
// tools/quantize/README.md @ 311c2c9f (Q4_K_M 4.89, Q5_K_M 5.70, Q6_K 6.56, Q8_0 8.50: the mixes keep
// some tensors at higher precision); Q4_0 = its block format, fp16 scale + 32 x 4 bits = 18 bytes per
// 32 weights (ggml-common.h block_q4_0).
double gguf_bits_per_weight(WeightFormat f) {
    switch (f) {
        case WeightFormat::q4_0:
            return 4.5;
        case WeightFormat::q4_k_m:
            return 4.89;
        case WeightFormat::q5_k_m:
            return 5.70;
        case WeightFormat::q6_k:
            return 6.56;
        case WeightFormat::q8_0:
            return 8.50;
        case WeightFormat::native:
            break;
    }
    return 16;
}

const char* weight_format_name(WeightFormat f) {
    switch (f) {
        case WeightFormat::q4_0:
            return "q4_0";
        case WeightFormat::q4_k_m:
            return "q4_k_m";
        case WeightFormat::q5_k_m:
            return "q5_k_m";
        case WeightFormat::q6_k:
            return "q6_k";
        case WeightFormat::q8_0:
            return "q8_0";
        case WeightFormat::native:
            break;
    }
    return "native";
}

}  // namespace

double kv_cache_bytes_per_token(const ModelSpec& m, Precision kv) {
    if (!m.has_architecture) return 0;
    const double bytes = bytes_per_element(kv);
    if (m.is_mla()) return m.layers * (m.kv_lora_rank + m.qk_rope_head_dim) * bytes;
    const double hd = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
    return 2.0 * m.layers * m.kv_heads * hd * bytes;
}

double kv_cache_bytes_per_token_per_gpu(const ModelSpec& m, Precision kv, double tp, bool attention_dp) {
    const double whole = kv_cache_bytes_per_token(m, kv);
    if (whole <= 0 || tp <= 1) return whole;
    if (m.is_mla()) return whole;  // latent needed whole by every rank; with attention_dp each rank holds its own sequences
    (void)attention_dp;
    const double heads_per_rank = std::max(1.0, std::ceil(m.kv_heads / tp));
    return whole * heads_per_rank / m.kv_heads;
}

namespace {

// The serving model for one configuration (precision, TP, EP, ...). Everything per device unless said.
struct Model {
    const ModelSpec& m;
    const Device& d;
    InferenceConfig cfg;
    InferenceEfficiency eff;
    ParamCount pc;
    double t = 1, ep = 1, gpus = 1;  // TP size, EP size, devices per instance
    double layers = 1, hidden = 1;
    double gpu_layer_fraction = 1;  // share of the layers on the device (CPU offload)
    double bytes_per_param = 2;     // stored weights
    double dequant_ops = 0;         // ALU ops per weight to expand to the compute precision
    double peak = 0, peak16 = 0, fp32 = 0, bw = 0, link = 0, ep_link = 0, host_bw = 0;
    double node = 1, out_link = 0, up_link = 0;  // devices per node, scale-out and scale-up bandwidth (x network)
    double out_latency = 0;                      // one message between nodes (a network preset's, or the scenario's)
    bool scale_out_assumed = false;              // no NIC figure: 100 GbE assumed (a warning when the network is used)
    double gemm_max = 0.85;
    double capacity = 0;              // usable memory per device
    double matmul_params = 0;         // parameters in matrix multiplies per token (active), whole model
    double expert_params_layers = 0;  // one routed expert across all MoE layers
    double moe_layers = 0;
    double kv_token = 0, kv_token_gpu = 0;  // KV bytes per token: whole model / per device
    double kept16_params = 0;               // parameters left in 16 bits by weight quantization
    double head_params = 0;                 // the output projection (vocab x hidden), tied or not
    double head16_params = 0;               // ... when it is one of the tables left in 16 bits
    double attn_replicated = 0;             // attention weights every rank holds whole (DP attention), whole model

    Model(const ModelSpec& mm, const Hardware& hw, const InferenceConfig& c, const InferenceEfficiency& e = {})
        : m(mm), d(hw.device), cfg(c), eff(e) {
        pc = count_params(m);
        t = static_cast<double>(cfg.tp.value_or(1));
        ep = m.is_moe() ? static_cast<double>(cfg.ep) : 1.0;
        gpus = t * ep;
        layers = m.has_architecture ? m.layers : std::max(1.0, std::round(std::cbrt(pc.active * 128.0 / 12.0) / 128.0));
        hidden = m.has_architecture ? m.hidden : 128.0 * layers;
        if (cfg.gpu_layers && m.has_architecture) gpu_layer_fraction = static_cast<double>(*cfg.gpu_layers) / m.layers;
        const Precision compute = set_storage();
        peak16 = d.peak(Precision::bf16).value_or(d.peak(Precision::fp16).value_or(d.peak(Precision::fp32).value_or(0)));
        peak = compute == Precision::bf16 ? peak16 : d.peak(compute).value_or(peak16);
        fp32 = d.peak(Precision::fp32).value_or(0);
        gemm_max = (compute == Precision::fp8 || compute == Precision::fp4) ? eff.gemm_max_8bit : eff.gemm_max_16bit;
        bw = d.memory_bandwidth_bytes_per_second.value_or(0);
        host_bw = cfg.host_memory_bandwidth_bytes_per_second;
        set_links(hw);
        capacity = d.usable_memory_bytes().value_or(0);
        set_params();
        kv_token = kv_cache_bytes_per_token(m, cfg.kv_precision);
        kv_token_gpu = kv_cache_bytes_per_token_per_gpu(m, cfg.kv_precision, t, cfg.attention_dp);
    }

    // Storage and compute precision: sets the bytes per stored weight and the dequantisation ops;
    // returns the precision the GEMMs run in.
    Precision set_storage() {
        const Precision wp = cfg.weight_precision;
        Precision compute = Precision::bf16;
        if (cfg.weight_format != WeightFormat::native) {
            bytes_per_param = gguf_bits_per_weight(cfg.weight_format) / 8.0;
            dequant_ops = cfg.weight_format == WeightFormat::q8_0 ? 1.0 : 2.0;
        } else {
            bytes_per_param = bytes_per_element(wp);
            bytes_per_param += group_scale_bytes(wp) / static_cast<double>(cfg.quant_group_size);
            if (wp == Precision::fp32)
                compute = Precision::fp32;
            else if ((wp == Precision::fp8 || wp == Precision::fp4) && d.peak(wp))
                compute = wp;  // native W8A8 / W4A4 tensor math
            // Weight-only formats are expanded to 16 bits before the multiply: int8 one convert per
            // weight (gpt-fast applies the per-channel scale to the output), int4/fp4 unpack +
            // scale/zero FMA (2 ops), fp8 on hardware without fp8 math one convert.
            if (wp == Precision::int8 || (wp == Precision::fp8 && compute != Precision::fp8)) dequant_ops = 1;
            if ((wp == Precision::int4 || wp == Precision::fp4) && compute != wp) dequant_ops = 2;
        }
        return compute;
    }

    // Scale-up and scale-out bandwidth seen by the TP all-reduces and the EP all-to-alls.
    void set_links(const Hardware& hw) {
        const double dpn = hw.devices_per_node > 0 ? static_cast<double>(hw.devices_per_node) : 1.0;
        // No published NIC figure: a 100 GbE NIC per device (12.5 GB/s), reported as an assumption
        // (training_step.cpp links_for does the same); no scale-up link: PCIe peer traffic (half the
        // bidirectional host link), else the network.
        // Between nodes: the scenario's NIC, its network preset (hardware.network: ignored here before,
        // so TP 16 over 1 Gb/s internet ran as over InfiniBand; a red team), the catalog's, or assumed.
        const NetworkLevels lv = network_levels(hw);
        scale_out_assumed = lv.scale_out_assumed;
        const double out = between_nodes_bytes_per_second(lv);
        out_latency = lv.nodes_are_sites ? lv.wan_latency : lv.scale_out_latency;
        const double up = d.scale_up_bytes_per_second().value_or(
            d.host_link_bytes_per_second_bidirectional ? *d.host_link_bytes_per_second_bidirectional / 2.0 : out);
        link = (t <= dpn ? up : out) * eff.network;
        ep_link = (gpus <= dpn ? up : out) * eff.network;
        node = dpn;
        out_link = out * eff.network;
        up_link = up * eff.network;
    }

    // Parameters multiplied per token, the routed experts, and the tables kept in 16 bits.
    void set_params() {
        const Precision wp = cfg.weight_precision;
        // Parameters read and multiplied per token: everything but an untied input embedding table
        // (a lookup of one row per token; a tied table is the output projection and is read whole).
        const double input_table = m.has_architecture && !m.tied_embeddings ? m.vocab * m.hidden : 0;
        matmul_params = std::max(0.0, pc.active - input_table);
        moe_layers = m.is_moe() ? m.layers - std::min(m.dense_layers, m.layers) : 0;
        expert_params_layers = pc.expert_per_layer * moe_layers;
        // Weight quantization replaces linear layers only: the input embedding table stays in 16 bits
        // (gpt-fast quantize.py and ModelOpt quantize nn.Linear modules), and ModelOpt's FP8/FP4
        // recipes also leave the output head in 16 bits (its default config disables "*lm_head*").
        // GGUF formats quantize both (llama.cpp token_embd / output tensors have their own types).
        const double table = m.has_architecture ? m.vocab * m.hidden : 0.0;
        head_params = table;
        if (cfg.weight_format == WeightFormat::native && bytes_per_param < 2 && m.has_architecture) {
            const bool head_kept = m.tied_embeddings || wp == Precision::fp8 || wp == Precision::fp4;
            kept16_params = table + (head_kept && !m.tied_embeddings ? table : 0.0);
            head16_params = head_kept ? table : 0.0;  // a tied table is the head: read in 16 bits every step
        }
        // Data-parallel attention (SGLang --enable-dp-attention): every rank runs the attention of its
        // own sequences, so each holds the attention weights whole; the rest stays split over tp.
        if (cfg.attention_dp && m.is_mla()) attn_replicated = pc.attention_per_layer * m.layers;
    }

    // Extra bytes of the tables kept in 16 bits, and all stored weights of the model.
    double kept16_extra_bytes() const { return kept16_params * std::max(0.0, 2.0 - bytes_per_param); }
    double weight_bytes() const { return pc.total * bytes_per_param + kept16_extra_bytes(); }
    // A speculative-decoding draft model in the target's weight precision, split over the same tp
    // ranks (vLLM's default draft_tensor_parallel_size: the target's).
    // Held in memory: every parameter of a draft given as a model (an MoE draft holds all its
    // experts), else draft_params.
    double draft_params_held() const {
        if (!cfg.speculative) return 0.0;
        const auto& dm = cfg.speculative->draft_model;
        return dm ? count_params(*dm).total : cfg.speculative->draft_params;
    }
    double draft_bytes() const { return draft_params_held() * bytes_per_param; }
    // The draft's depth as a share of the target's: draft_params / the target's active parameters
    // (at most 1). Its width is unknown, so its layers are the target's width: its KV cache per
    // token is this share of the target's, and so are its KV reads and all-reduces per step.
    double draft_depth() const {
        const double P = cfg.speculative ? cfg.speculative->draft_params : 0.0;
        return P > 0 && pc.active > 0 ? std::min(1.0, P / pc.active) : 0.0;
    }
    // The draft's own architecture (inference.speculative.draft_model), when given with its layers.
    const ModelSpec* draft_arch() const {
        return cfg.speculative && cfg.speculative->draft_model && cfg.speculative->draft_model->has_architecture
                   ? &*cfg.speculative->draft_model
                   : nullptr;
    }
    // The draft's KV cache, always on the device: vLLM gives the target and the draft the same number
    // of KV blocks from one memory budget (v0 vllm/spec_decode/spec_decode_worker.py
    // split_num_cache_blocks_evenly). Per token of the tokens it attends to, whole model and per
    // device: its own architecture's (over the same tp ranks), else the target's x draft_depth.
    double draft_kv_token() const {
        if (const ModelSpec* a = draft_arch()) return kv_cache_bytes_per_token(*a, cfg.kv_precision);
        return kv_token * draft_depth();
    }
    // With data-parallel attention each rank holds its own sequences (seqs_per_gpu), so the draft's
    // KV of them whole; otherwise split over its KV heads like the target's.
    double draft_kv_token_gpu() const {
        if (const ModelSpec* a = draft_arch())
            return dp_attention_ranks() > 1 ? kv_cache_bytes_per_token(*a, cfg.kv_precision)
                                            : kv_cache_bytes_per_token_per_gpu(*a, cfg.kv_precision, t, false);
        return kv_token_gpu * draft_depth();
    }
    // Tokens the draft caches per sequence for a context of ctx tokens (its own windows, if any).
    double draft_context(double ctx) const {
        const ModelSpec* a = draft_arch();
        return a ? attended_tokens(*a, ctx) : kv_context(ctx);
    }
    // Ranks that hold sequences of their own in one copy: tp with data-parallel attention (MLA), else 1.
    double dp_attention_ranks() const { return cfg.attention_dp && m.is_mla() ? t : 1.0; }
    // Disaggregated serving: one prompt's KV cache from a prefill to a decode instance, each tensor-
    // parallel rank sending its own share over its own scale-out link (it sent the whole over one);
    // the windowed layers hold only their window of the prompt.
    double kv_transfer_seconds() const {
        const double p = static_cast<double>(cfg.prompt_tokens);
        return (kv_context(p) * kv_token_gpu + draft_context(p) * draft_kv_token_gpu()) / out_link;  // the draft's KV too
    }
    // A speculative draft prefills each prompt too, for its own KV cache (vLLM v0 spec_decode_worker.py
    // _run_no_spec: "the input is sent to the proposer and scorer model so that the KV cache is
    // consistent"): the target's prefill x (1 + draft_params / its active parameters), i.e. 1 + depth
    // (validation keeps draft_params below the active parameters, so depth is never capped).
    double draft_prefill_factor() const { return 1.0 + draft_depth(); }

    double gemm_eff() const {
        const double w = hidden / t;
        return gemm_max * w / (w + eff.gemm_half_width);
    }
    // Sequences whose attention (and KV cache) one device handles, of a batch of b on the instance.
    double seqs_per_gpu(double b) const {
        double s = b / ep;          // each EP group serves its own share of the batch
        s /= dp_attention_ranks();  // and each rank its own share with DP attention
        return s;
    }
    // Tokens entering one TP group's non-expert GEMMs per step.
    double group_tokens(double b) const { return b / ep; }
    // Expected distinct routed experts hit by `tokens` tokens (uniform routing): E (1 - (1 - k/E)^tokens).
    double experts_touched(double tokens) const {
        if (!m.is_moe()) return 0;
        const double E = m.experts, k = m.experts_per_token;
        return E * (1.0 - ipow(1.0 - k / E, tokens));
    }
    // Parameters read per device per decode step (all layers, device and host together).
    double params_read_per_gpu(double b) const {
        if (!m.is_moe()) return matmul_params / t;
        const double routed_active = m.experts_per_token * expert_params_layers;
        const double non_expert = matmul_params - routed_active;
        const double touched_local = experts_touched(b) / ep;  // experts are sharded over ep ranks
        return (non_expert - attn_replicated) / t + attn_replicated + touched_local * expert_params_layers / t;
    }
    // Extra bytes per device per step for an output head stored in 16 bits among lower-precision weights.
    double head16_read_bytes() const { return head16_params * std::max(0.0, 2.0 - bytes_per_param) / t; }
    // TP all-reduces (after attention and after the MLP, 16-bit activations, ring) of `tokens`
    // tokens; `latency` false when the calls are shared with other work (prefill chunks ride on
    // decode steps, whose calls are already counted).
    // (`depth` layers of `width`: the target's unless a draft model's are given.)
    double tp_allreduce(double tokens, bool latency = true, double depth = 0, double width = 0) const {
        if (t <= 1) return 0;
        // Across nodes, each all-reduce also waits the network's latency at each of its 2 log2(nodes)
        // steps between nodes (recursive halving and doubling; a WAN's ~10 ms per message makes TP
        // across it a second or more per token).
        const double across = t > node ? 2.0 * std::ceil(std::log2(t / node)) * out_latency : 0.0;
        const double per_call = (latency ? eff.collective_base_seconds + eff.collective_per_hop_seconds * std::log2(t) + across : 0.0) +
                                2.0 * (t - 1.0) / t * tokens * (width > 0 ? width : hidden) * 2.0 / std::max(1.0, link);
        return (depth > 0 ? depth : layers) * 2.0 * per_call;
    }
    // EP all-to-alls per MoE layer: dispatch (FP8 when the weights are FP8, as DeepSeek-V3's serving
    // does; else 16-bit) and combine (16-bit) of tokens x k hidden vectors, (ep-1)/ep of them remote;
    // the share on other nodes crosses the scale-out network, the rest the scale-up links. With
    // node-limited routing and `per_node` (prefill), a token crosses the network once per node it is
    // routed to and is forwarded inside that node over the scale-up links (DeepSeek-V3, arXiv:2412.19437
    // Sec. 3.2.2; DeepEP's normal kernels; its low-latency decode kernels send every copy directly).
    double ep_alltoall(double tokens, bool latency = true, bool per_node = false) const {
        if (ep <= 1 || !m.is_moe()) return 0;
        const double dispatch_bytes = cfg.weight_precision == Precision::fp8 ? 1.0 : 2.0;
        const double vector = hidden * (dispatch_bytes + 2.0);
        const double remote = tokens * m.experts_per_token * vector * (ep - 1.0) / ep;
        const double cross = gpus > node ? 1.0 - node / gpus : 0.0;
        double cross_bytes = remote * cross;
        if (per_node && m.max_routed_nodes > 0 && cross > 0) {
            const double nodes = std::ceil(gpus / node);  // nodes hit by k uniform picks, at most max_routed_nodes
            const double hit = std::min(m.max_routed_nodes, nodes * (1.0 - ipow(1.0 - 1.0 / nodes, m.experts_per_token)));
            cross_bytes = std::min(cross_bytes, tokens * hit * (nodes - 1.0) / nodes * vector);
        }
        const double bytes_time = cross_bytes / std::max(1.0, out_link) + remote * (1.0 - cross) / std::max(1.0, up_link);
        const double lat = latency ? 2.0 * (eff.collective_base_seconds + eff.collective_per_hop_seconds * std::log2(ep)) : 0.0;
        return moe_layers * (lat + bytes_time);
    }
    double attention_flops_per_token(double ctx) const {
        if (!m.has_architecture) return 0;
        return forward_flops_per_token(m, ctx) - forward_flops_per_token(m, 0);
    }
    // Attention FLOPs of one decoded token at context ctx (a sliding window caps what its layers
    // attend to, once: attention_flops_per_token windows the context itself). MLA decodes in the absorbed form
    // (DeepSeek-V2, arXiv:2405.04434 Sec. 2.1.3: W_UK folded into the query, W_UV into the output):
    // each head scores the kv_lora_rank + rope wide latent key and mixes the kv_lora_rank wide latent
    // value, 2 x heads x ctx x (2 kv_lora_rank + rope) per layer (576 + 512 for DeepSeek-V3;
    // deepseek-ai/FlashMLA docs/20250422-new-kernel-deep-dive.md, "Theoretical Analysis").
    double decode_attention_flops_per_token(double ctx) const {
        if (!m.is_mla()) return attention_flops_per_token(ctx);
        return 2.0 * m.layers * m.heads * kv_context(ctx) * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
    }

    // The tokens a sequence's KV cache holds at context ctx, averaged over the layers (a sliding
    // window caps them in the windowed layers).
    double kv_context(double ctx) const { return attended_tokens(m, ctx); }
    // Attention FLOPs of one decode step for sg sequences on one device at the GPU's attention
    // efficiency: heads split over tp ranks, unless each rank attends to its own sequences (DP attention).
    // (ctx: the context, not yet windowed; windowing it twice halved a windowed model's attention.)
    double attention_flops_seconds(double sg, double ctx) const {
        const double head_split = cfg.attention_dp && m.is_mla() ? 1.0 : t;
        return safe_div(sg * decode_attention_flops_per_token(ctx) / head_split, peak16 * eff.attention);
    }

    // One decode step for b sequences at mean context ctx.
    DecodeTerms decode(double b, double ctx) const {
        DecodeTerms x;
        const double params = params_read_per_gpu(b);
        const double dev_params = params * gpu_layer_fraction, host_params = params - dev_params;
        x.weights = safe_div(dev_params * bytes_per_param + head16_read_bytes(), bw * eff.memory);
        x.host_offload = safe_div(host_params * bytes_per_param, host_bw * eff.memory);
        if (dequant_ops > 0)
            x.dequantization = safe_div(params * dequant_ops, fp32 * eff.dequant_alu) + layers * eff.dequant_kernel_seconds_per_layer;
        // Compute: non-expert GEMMs see the group's tokens; each routed expert sees tokens x k / E.
        const double gt = group_tokens(b);
        if (m.is_moe()) {
            const double routed = m.experts_per_token * expert_params_layers;
            const double non_expert = matmul_params - routed;
            x.compute = safe_div(gt * 2.0 * non_expert / t, peak * gemm_eff()) + safe_div(b * 2.0 * routed / gpus, peak * gemm_eff());
        } else {
            x.compute = safe_div(gt * 2.0 * matmul_params / t, peak * gemm_eff());
        }
        const double kv_ctx = kv_context(ctx);
        const double sg = seqs_per_gpu(b);
        x.kv_cache = safe_div(sg * kv_ctx * kv_token_gpu * gpu_layer_fraction, bw * eff.memory) +
                     safe_div(sg * kv_ctx * kv_token_gpu * (1 - gpu_layer_fraction), host_bw * eff.memory);
        x.attention = std::max(x.kv_cache, attention_flops_seconds(sg, ctx));
        x.kernel_overhead = layers * eff.kernel_seconds_per_layer;
        x.sequence_overhead = sg * eff.seconds_per_sequence_step;
        x.tp_comm = tp_allreduce(gt);
        x.ep_comm = ep_alltoall(gt);
        const double memory_side = x.weights + x.dequantization + x.host_offload;
        x.memory_bound = memory_side >= x.compute;
        x.total = memory_side + x.compute + x.attention + x.kernel_overhead + x.sequence_overhead + x.tp_comm + x.ep_comm;
        return x;
    }

    // One step of a speculative draft model: dense, in the target's weight precision, on the device,
    // split over the same tp ranks; its depth is draft_params / active parameters of the target's
    // (the assumption behind its layers, KV reads and all-reduces; its width is unknown), or its own
    // layers and width where draft_model gives its architecture. It was
    // timed as a share of the target's step, which at a large MoE batch read every expert (3.6x
    // too slow for Mixtral), left out the draft's attention and all-reduces (a draft as large as
    // the target gave a 1.5x speed-up) and read a device-resident draft from host memory (red-team).
    // `target`: the target's plain decode step at the same batch and context (its per-sequence runtime
    // work and all-reduces, which the draft shares or scales).
    DecodeTerms draft_step(double b, double ctx, const DecodeTerms& target) const {
        DecodeTerms d;
        const double depth = draft_depth();
        if (!(depth > 0)) return d;
        const ModelSpec* a = draft_arch();
        const double P = cfg.speculative->draft_params, draft_layers = a ? a->layers : std::max(1.0, std::round(layers * depth));
        d.weights = safe_div(P * bytes_per_param / t, bw * eff.memory);
        d.compute = safe_div(group_tokens(b) * 2.0 * P / t, peak * gemm_eff());
        if (dequant_ops > 0)
            d.dequantization = safe_div(P / t * dequant_ops, fp32 * eff.dequant_alu) + draft_layers * eff.dequant_kernel_seconds_per_layer;
        // Its KV cache on the device: its reads (its own KV per token, or the target's x depth), or the
        // target's attention FLOPs x depth where those take longer.
        const double sg = seqs_per_gpu(b);
        d.kv_cache = safe_div(sg * draft_context(ctx) * draft_kv_token_gpu(), bw * eff.memory);
        d.attention = std::max(d.kv_cache, attention_flops_seconds(sg, ctx) * depth);
        d.kernel_overhead = draft_layers * eff.kernel_seconds_per_layer;
        d.sequence_overhead = target.sequence_overhead;
        // Two all-reduces per draft layer on the same tp ranks (vLLM's draft_tensor_parallel_size
        // defaults to the target's): at the draft's own depth and width where its architecture is
        // known (a 32-layer 8B draft of an 80-layer 70B target pays 32 / 80 of the target's
        // latency-bound all-reduces, not its 11 % share of the parameters), else the target's x depth.
        d.tp_comm = a ? tp_allreduce(group_tokens(b), true, a->layers, a->hidden) : target.tp_comm * depth;
        d.total = d.weights + d.compute + d.dequantization + d.attention + d.kernel_overhead + d.sequence_overhead + d.tp_comm;
        return d;
    }

    // Prefill compute of one request's `tokens` new prompt tokens after `cached` tokens already in the
    // cache, batched with other work (weights already streaming): GEMMs at full efficiency, attention
    // over the context, TP/EP communication. Split by where it runs: `rank` on one device (attention
    // and its weights under DP attention), `group` on the request's TP group of t devices, `routed`
    // (the routed experts' GEMMs) spread over the whole instance.
    struct PrefillWork {
        double rank = 0, group = 0, routed = 0;
        double total() const { return rank + group + routed; }
    };
    // Their terms, which the prefill's derivation lists (recorded only for it: prefill_work's `terms`,
    // null on the search's path): the GEMMs of the weights DP attention replicates, of those split
    // over the group's tp ranks (at the share of layers on the device), of the output head (the last
    // token) and of the routed experts; the attention on the rank (DP attention) or split over tp; the
    // layers in host memory; TP/EP communication; and what they are computed from: the tokens, each
    // part's parameters, the attention's FLOPs.
    struct PrefillTerms {
        double gemm_replicated = 0, attention_rank = 0, gemm_split = 0, gemm_head = 0, attention_split = 0, host = 0, tp_comm = 0,
               ep_comm = 0, gemm_routed = 0;
        double tokens = 0, params_replicated = 0, params_split = 0, params_head = 0, params_routed = 0, attention_flops = 0;
    };
    PrefillWork prefill_work(double tokens, double cached, PrefillTerms* terms = nullptr) const {
        PrefillWork w;
        if (tokens <= 0) return w;
        // Logits for the last prompt token only: serving engines project that one hidden state (vLLM
        // LogitsProcessor on the sampled positions; SGLang's LogitsProcessor "last token" path).
        const double head = std::min(head_params, matmul_params);
        const double routed = m.is_moe() ? m.experts_per_token * expert_params_layers : 0.0;
        const double shared = matmul_params - routed - head - attn_replicated;  // split over the group's tp ranks
        const double e = peak * gemm_eff();
        const double attn_flops = tokens * attention_flops_per_token(cached + tokens / 2.0);
        const double gemm_replicated = safe_div(tokens * 2.0 * attn_replicated, e);
        const double attention_rank = attn_replicated > 0 ? safe_div(attn_flops, peak16 * eff.attention) : 0;
        const double gemm_split = safe_div(tokens * 2.0 * shared / t, e) * gpu_layer_fraction, gemm_head = safe_div(2.0 * head / t, e);
        const double attention_split = attn_replicated > 0 ? 0.0 : safe_div(attn_flops / t, peak16 * eff.attention);
        const double host = host_prefill(tokens), tp = tp_allreduce(tokens, false), ep = ep_alltoall(tokens, false, true);
        w.rank = gemm_replicated + attention_rank;
        w.group = gemm_split + gemm_head + attention_split + host + tp + ep;
        w.routed = safe_div(tokens * 2.0 * routed / gpus, e) * gpu_layer_fraction;
        if (terms)
            *terms = PrefillTerms{gemm_replicated, attention_rank,  gemm_split, gemm_head, attention_split, host,      tp, ep, w.routed,
                                  tokens,          attn_replicated, shared,     head,      routed,          attn_flops};
        return w;
    }
    // Instance time per request when every group (and, with DP attention, every rank) prefills its
    // own requests at once: device-seconds of the request / devices of the instance.
    double prefill_instance(const PrefillWork& w) const { return w.rank / gpus + w.group / ep + w.routed; }
    // The prompt through the layers left in host memory (CPU offload). llama.cpp runs a batch of at
    // least 32 tokens on the GPU, copying those layers' weights over the host link once per ubatch of
    // 512 tokens (ggml-cuda.cu ggml_backend_cuda_device_offload_op, min_batch_size 32; n_ubatch
    // default 512, common/common.h); fewer tokens run on the CPU, reading the weights once at
    // host_memory_bandwidth.
    double host_prefill(double tokens) const {
        const double host_bytes = matmul_params * (1.0 - gpu_layer_fraction) * bytes_per_param;
        if (!(host_bytes > 0)) return 0;
        if (tokens < kLlamaCppOffloadMinBatch) return safe_div(host_bytes, host_bw * eff.memory);
        const double link_bw = d.host_link_bytes_per_second_bidirectional ? *d.host_link_bytes_per_second_bidirectional / 2.0 : host_bw;
        return std::ceil(tokens / kLlamaCppUbatchTokens) * safe_div(host_bytes, link_bw * eff.network);
    }
    // One request's prompt on an idle instance: compute, but at least one pass over the weights its
    // tokens use: of a mixture of experts, the experts its tokens are routed to (experts_touched: 64
    // tokens of Mixtral reach all 8, where one token's 2 had timed a 64-token prompt as a 1-token one;
    // a red team). Terms that do not depend on the tokens (the layers' kernels) from one token's step.
    struct PrefillAlone {
        double compute = 0, weights_pass = 0, kernels = 0, tp_latency = 0, ep_latency = 0;
        double total() const { return std::max(compute, weights_pass) + kernels + tp_latency + ep_latency; }
    };
    // `w`: the prompt's compute (prefill_work).
    PrefillAlone prefill_alone(double tokens, double cached, const PrefillWork& w) const {
        const DecodeTerms one = decode(1, cached + tokens), all = m.is_moe() ? decode(std::max(1.0, tokens), cached + tokens) : one;
        return {w.total(), all.weights + all.dequantization + all.host_offload, one.kernel_overhead, tp_allreduce(0), ep_alltoall(0)};
    }
};

// Serving figures of one configuration at batch b: the steady-state cycle of continuous batching.
struct Cycle {
    DecodeTerms dec;
    double step = 0;                    // decode step incl. speculative decoding (per accepted token)
    double prefill_busy = 0;            // prefill compute per request, co-scheduled with decode
    double prefill_alone = 0;           // one prompt on an idle instance
    Model::PrefillAlone prefill_parts;  // its terms, before the draft's factor
    double seconds = 0;                 // output_tokens decode steps + b prefills
    double tpot = 0, rate = 0;          // time per output token, requests/s per instance
    double spec_tokens = 1, spec_speedup = 1;
    DecodeTerms draft, verify;  // one draft step and one verify step (speculative decoding), with their parts
};

// A request's prompt: the tokens found in the prefix cache, and the rest (prefilled).
struct PromptSplit {
    double cached = 0, fresh = 0;
};
PromptSplit prompt_split(const InferenceConfig& c) {
    const double isl = static_cast<double>(c.prompt_tokens), cached = isl * c.prefix_cache_hit_rate;
    return {cached, isl - cached};
}

Cycle cycle(const Model& x, double b) {
    const InferenceConfig& c = x.cfg;
    Cycle y;
    const double isl = static_cast<double>(c.prompt_tokens), osl = static_cast<double>(c.output_tokens);
    const auto [cached, fresh] = prompt_split(c);
    y.dec = x.decode(b, isl + osl / 2.0);
    y.step = y.dec.total;
    if (c.speculative && c.speculative->draft_params > 0 && x.pc.active > 0) {
        // Leviathan et al. 2023 (arXiv:2211.17192) Eq. 1: expected tokens per verification step
        // (1 - alpha^(gamma+1)) / (1 - alpha). The draft runs gamma decode steps; the target verifies
        // gamma + 1 tokens per sequence in one step (weights read once, compute and KV per token).
        const double a = c.speculative->acceptance_rate, g = static_cast<double>(c.speculative->draft_tokens);
        y.spec_tokens = (1.0 - ipow(a, g + 1.0)) / (1.0 - a);
        // The plain step, with the weights, compute and attention of g + 1 tokens per sequence: the same
        // weights for a dense model; of a mixture of experts, the experts all b (g + 1) tokens are routed
        // to (Mixtral verifying 5 tokens reads ~6.1 of 8 experts a layer, not one token's 2: the speed-up
        // had been 2.09x where ~1.0x is right; a red team). The KV cache is read once per sequence.
        DecodeTerms verify = y.dec;
        DecodeTerms wide = x.decode(b * (g + 1.0), isl + osl / 2.0);
        verify.weights = wide.weights, verify.dequantization = wide.dequantization, verify.host_offload = wide.host_offload;
        verify.compute = wide.compute;
        verify.attention = std::max(verify.kv_cache, wide.attention - wide.kv_cache + verify.kv_cache);
        // Weights and compute add, as in decode() (the fitted step: a decode GEMM with few rows per
        // weight tile does not hide its compute behind its loads); a max here let a verify step of
        // g + 1 tokens cost less than a plain step (speed-up 1.2 at acceptance 0; formula review).
        verify.tp_comm = wide.tp_comm, verify.ep_comm = wide.ep_comm;
        verify.total = verify.weights + verify.dequantization + verify.host_offload + verify.compute + verify.attention +
                       verify.kernel_overhead + verify.sequence_overhead + verify.tp_comm + verify.ep_comm;
        y.verify = verify;
        y.draft = x.draft_step(b, isl + osl / 2.0, y.dec);
        y.step = (g * y.draft.total + y.verify.total) / y.spec_tokens;
        y.spec_speedup = safe_div(y.dec.total, y.step);
    }
    const Model::PrefillWork work = x.prefill_work(fresh, cached);  // (computed once: the instance's share and the prompt alone)
    y.prefill_busy = x.prefill_instance(work) * x.draft_prefill_factor();
    y.prefill_parts = x.prefill_alone(fresh, cached, work);
    y.prefill_alone = y.prefill_parts.total() * x.draft_prefill_factor();
    if (c.disaggregated) {
        y.seconds = osl * y.step;  // decode instances only decode
        y.tpot = y.step;
    } else {
        y.seconds = osl * y.step + b * y.prefill_busy;
        y.tpot = safe_div(y.seconds, osl);
    }
    y.rate = safe_div(b, y.seconds);
    return y;
}

// Time to first token of one user at an arrival rate `lambda` per instance (requests/s):
// their prefill + half a decode step in flight + M/D/1 waiting for the prefill work.
// Returns nullopt when the prefill work alone exceeds the instance (queue grows without bound).
std::optional<double> ttft(const Cycle& y, double lambda, double kv_transfer) {
    const double service = y.prefill_busy;
    const double rho = lambda * service;
    if (rho >= 1.0) return std::nullopt;
    const double wait = service > 0 ? rho * service / (2.0 * (1.0 - rho)) : 0;
    return y.prefill_alone + y.step / 2.0 + wait + kv_transfer;
}

// Largest batch whose KV cache fits next to the weights, per instance.
struct Fit {
    double weights_per_gpu = 0, host_weights = 0, free_for_kv = 0, kv_seq_gpu = 0, max_batch = 0;
};
Fit fit(const Model& x) {
    Fit f;
    const double ctx = static_cast<double>(x.cfg.prompt_tokens + x.cfg.output_tokens);
    const double cached = x.kv_context(ctx);
    const double blocks = std::ceil(cached / x.eff.kv_block_tokens) * x.eff.kv_block_tokens;  // paged in blocks
    double weights = x.weight_bytes(), per_gpu;
    const double rep = x.attn_replicated * (1.0 - 1.0 / x.t) * x.bytes_per_param;  // DP attention: attention weights whole per rank
    if (x.m.is_moe()) {
        const double routed_total = x.m.experts * x.expert_params_layers;
        per_gpu = ((x.pc.total - routed_total) / x.t + routed_total / x.gpus) * x.bytes_per_param + x.kept16_extra_bytes() / x.t + rep;
    } else {
        per_gpu = weights / x.t + rep;
    }
    per_gpu += x.draft_bytes() / x.t;  // the draft's weights take device memory too (it took none; formula review)
    // CPU offload: the device keeps the embeddings and gpu_layers layers.
    const double layer_share = x.m.has_architecture ? std::max(0.0, 1.0 - x.pc.embedding / std::max(1.0, x.pc.total)) : 1.0;
    f.host_weights = weights * layer_share * (1.0 - x.gpu_layer_fraction);
    f.weights_per_gpu = per_gpu - f.host_weights / x.gpus;
    const double draft_blocks = std::ceil(x.draft_context(ctx) / x.eff.kv_block_tokens) * x.eff.kv_block_tokens;
    // A target given by its parameter count has no KV size: the batch stays unsized (a draft's own KV does not size it).
    f.kv_seq_gpu = x.m.has_architecture ? x.kv_token_gpu * blocks * x.gpu_layer_fraction + x.draft_kv_token_gpu() * draft_blocks : 0.0;
    f.free_for_kv = (x.capacity - x.cfg.overhead_bytes - f.weights_per_gpu) * x.cfg.kv_cache_memory_fraction;
    // Every layer in host memory (gpu_layers 0): each layer's KV cache stays with it there (llama.cpp),
    // so device memory does not bound the batch; host memory, which is not sized here, does.
    if (x.m.has_architecture && x.gpu_layer_fraction <= 0 && f.free_for_kv > 0) f.max_batch = static_cast<double>(x.cfg.batch_limit);
    if (f.free_for_kv > 0 && f.kv_seq_gpu > 0) {
        double per_gpu_seqs = std::floor(f.free_for_kv / f.kv_seq_gpu);
        // Sequences held per device -> per instance: EP groups (and DP-attention ranks) hold their own.
        f.max_batch = per_gpu_seqs * x.ep * x.dp_attention_ranks();
    }
    return f;
}

const char* precision_text(Precision p) { return precision_name(p).data(); }

// The weight and KV-cache precisions the latency-target search tries.
struct SloPrecisions {
    std::vector<Precision> weights, kvs;
};

// The configured precisions, and lower ones when search_precision (fp8 and fp4 weights only where
// the hardware multiplies them: fp4 is NVFP4 on Blackwell, its GEMMs at the FP4 peak).
SloPrecisions slo_precisions(const InferenceConfig& cfg, const Device& d) {
    SloPrecisions p{{cfg.weight_precision}, {cfg.kv_precision}};
    if (cfg.slo->search_precision && cfg.weight_format == WeightFormat::native) {
        for (Precision w : {Precision::bf16, Precision::fp8, Precision::int8, Precision::int4, Precision::fp4}) {
            if ((w == Precision::fp8 || w == Precision::fp4) && !d.peak(w)) continue;
            if (bytes_per_element(w) < bytes_per_element(cfg.weight_precision) &&
                std::find(p.weights.begin(), p.weights.end(), w) == p.weights.end())
                p.weights.push_back(w);
        }
        for (Precision k : {Precision::fp8})
            if (bytes_per_element(k) < bytes_per_element(cfg.kv_precision)) p.kvs.push_back(k);
    }
    return p;
}

// Whether the heads allow a TP size: the query heads split evenly, and the KV heads too or each
// replicated on tp / kv_heads ranks (MLA's latent is whole on every rank).
bool heads_allow_tp(const ModelSpec& m, double tp) {
    if (!m.has_architecture) return true;
    if (std::fmod(m.heads, tp) != 0) return false;
    return kv_heads_split(m, tp);
}

// A TP size the automatic choice and the way out of a copy that does not fit try: one the heads allow,
// and a power of two for a model given by its count (no heads to divide).
bool tp_size_tried(const ModelSpec& m, Count tp) {
    const bool power_of_two = (tp & (tp - 1)) == 0;
    return heads_allow_tp(m, static_cast<double>(tp)) && (m.has_architecture || power_of_two);
}

// TP sizes: powers of two within a node that the heads allow, and the configured one.
std::vector<double> slo_tp_sizes(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg) {
    const double dpn = std::max(1.0, static_cast<double>(hw.devices_per_node));
    const double given = static_cast<double>(cfg.tp.value_or(1));
    std::vector<double> tps;
    for (double tp = 1; tp <= std::max(dpn, given) && tp <= 64; tp *= 2)
        if (heads_allow_tp(m, tp)) tps.push_back(tp);
    if (std::find(tps.begin(), tps.end(), given) == tps.end()) tps.push_back(given);
    return tps;
}

// Batches tried: 1, 2, 3, 4, 6, 8, 12, ... below the largest that fits, and that one.
std::vector<double> slo_batches(double max_b) {
    std::vector<double> batches;
    for (double b = 1; b < max_b; b *= 2) {
        batches.push_back(b);
        if (b >= 2 && 1.5 * b < max_b) batches.push_back(1.5 * b);
    }
    batches.push_back(max_b);
    return batches;
}

// The latency targets and the peak traffic they are met at.
struct SloTargets {
    double peak_rps = 0, tpot_max = 1e300, ttft_max = 1e300;
};

// The lowest TPOT and queue-free TTFT seen over the batches tried (for the reason when none meets the targets).
struct SloSeen {
    double tpot = 1e300, ttft = 1e300;
};

// Instances that carry the peak traffic, added to until the queueing part of TTFT fits the slack
// the queue-free TTFT `fixed` leaves under the target.
double slo_instances(const Cycle& y, const SloTargets& g, double fixed, bool disaggregated) {
    double instances = 1;
    if (g.peak_rps > 0) {
        instances = std::ceil(g.peak_rps / y.rate);
        const double slack = std::min(g.ttft_max - fixed, 1e12);
        const double S = y.prefill_busy;
        if (S > 0) {
            const double rho_max = 2.0 * slack / (S + 2.0 * slack);  // rho S / (2 (1 - rho)) <= slack
            instances = std::max(instances, std::ceil(g.peak_rps * S / std::max(1e-12, rho_max) * (1 + 1e-12)));
        }
        if (disaggregated) instances += std::ceil(g.peak_rps * S);
    }
    return instances;
}

// One batch of one configuration: kept in `best` when it meets the targets with fewer GPUs (or as
// many and a larger batch). Returns whether it meets them.
bool try_slo_batch(const Model& x, double b, const SloTargets& g, SloSeen& seen, SloCandidate& best) {
    const InferenceConfig& c = x.cfg;
    const Cycle y = cycle(x, b);
    seen.tpot = std::min(seen.tpot, y.tpot);
    if (y.tpot > g.tpot_max || y.rate <= 0) return false;
    const double kv_transfer = c.disaggregated ? x.kv_transfer_seconds() : 0;
    const double fixed = y.prefill_alone + y.step / 2.0 + kv_transfer;  // TTFT without queueing
    seen.ttft = std::min(seen.ttft, fixed);
    if (fixed > g.ttft_max) return false;
    const double instances = slo_instances(y, g, fixed, c.disaggregated);
    const double gpus = instances * x.gpus;
    const double lambda = g.peak_rps / instances;
    const auto t = ttft(y, lambda, kv_transfer);
    if (!t || *t > g.ttft_max * (1 + 1e-9)) return false;
    if (!best.met || gpus < best.gpus || (gpus == best.gpus && b > best.batch)) {
        best.met = true;
        best.gpus = gpus;
        best.batch = b;
        best.tpot_seconds = y.tpot;
        best.ttft_seconds = *t;
    }
    return true;
}

// Every batch of the grid (1, 2, 3, 4, 6, 8, ...), then the integer batches between the largest that
// met the targets and the next one tried, which did not, bisected: TPOT and the queue-free TTFT grow
// with the batch while the requests each instance carries grow too, so the fewest GPUs are mostly at
// the largest batch within the targets, which the grid alone misses by up to a third of a step (Llama
// 3 70B on A100 40GB at 1e8 requests/day, TPOT <= 50 ms: batch 48 and 2,164 GPUs where 58 meets the
// target with ~2,030).
void try_slo_batches(const Model& x, double max_b, const SloTargets& g, SloSeen& seen, SloCandidate& best) {
    double met = 0, failed = 0;  // the largest batch that met the targets, the first after it that did not
    for (double b : slo_batches(max_b)) {
        if (try_slo_batch(x, b, g, seen, best))
            met = b, failed = 0;
        else if (met > 0 && failed == 0)
            failed = b;
    }
    while (failed - met > 1) {
        const double mid = std::floor((met + failed) / 2);
        (try_slo_batch(x, mid, g, seen, best) ? met : failed) = mid;
    }
}

// One configuration of the search: its fewest GPUs over the batches that fit, or why it fails.
SloCandidate slo_candidate(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, Precision wp, Precision kp, double tp,
                           const SloTargets& g) {
    InferenceConfig c = cfg;
    c.weight_precision = wp;
    c.kv_precision = kp;
    c.tp = static_cast<Count>(tp);
    c.batch.reset();
    const Model x(m, hw, c);
    const Fit f = fit(x);
    SloCandidate best;
    best.weight_precision = wp;
    best.kv_precision = kp;
    best.tp = tp;
    const double max_b = std::min(f.max_batch, static_cast<double>(c.batch_limit));
    if (max_b < 1) {
        best.reason = "does not fit: " + std::string(f.free_for_kv <= 0 ? "the weights alone exceed the device memory"
                                                                        : "no sequence's KV cache fits next to the weights");
        return best;
    }
    SloSeen seen;
    try_slo_batches(x, max_b, g, seen, best);
    if (!best.met) {
        if (seen.tpot > g.tpot_max)
            best.reason =
                "time per output token is at least " + jr::fmt_num(seen.tpot) + " s (batch 1), target " + jr::fmt_num(g.tpot_max) + " s";
        else
            best.reason = "time to first token is at least " + jr::fmt_num(seen.ttft) + " s with the TPOT target met, target " +
                          jr::fmt_num(g.ttft_max) + " s";
    }
    return best;
}

// Candidates that meet the targets first, fewest GPUs first (then the higher weight precision);
// the first is chosen, and the others that meet the targets say how many more GPUs they need.
void rank_slo_candidates(SloResult& out) {
    stable_sort_items(out.candidates, [](const void* v, std::uint32_t i, std::uint32_t j) {
        const auto& c = *static_cast<const std::vector<SloCandidate>*>(v);
        const SloCandidate &a = c[i], &b = c[j];
        if (a.met != b.met) return a.met;
        if (a.met)
            return a.gpus < b.gpus || (a.gpus == b.gpus && bytes_per_element(a.weight_precision) > bytes_per_element(b.weight_precision));
        return false;
    });
    if (!out.candidates.empty() && out.candidates.front().met) {
        out.met = true;
        out.chosen = out.candidates.front();
    }
    for (auto& c : out.candidates)
        if (c.met && (c.gpus > out.chosen.gpus))
            c.reason = "meets the targets with " + jr::fmt_num(c.gpus) + " GPUs, more than " + jr::fmt_num(out.chosen.gpus);
}

// The latency-target search: every weight / KV precision (lower ones only when search_precision),
// TP size (powers of two within a node that the heads allow) and batch; for each, the fewest GPUs
// that carry the peak traffic with TPOT and TTFT within the targets. Instances are added beyond the
// throughput minimum when that is what brings the queueing part of TTFT down.
SloResult search_slo(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg) {
    SloResult out;
    const ServingSlo& slo = *cfg.slo;
    const SloPrecisions precisions = slo_precisions(cfg, hw.device);
    const std::vector<double> tps = slo_tp_sizes(m, hw, cfg);
    SloTargets g;
    g.peak_rps = peak_requests_per_second(cfg);
    g.tpot_max = slo.tpot_seconds.value_or(1e300), g.ttft_max = slo.ttft_seconds.value_or(1e300);
    for (Precision wp : precisions.weights)
        for (Precision kp : precisions.kvs)
            for (double tp : tps) out.candidates.push_back(slo_candidate(m, hw, cfg, wp, kp, tp, g));
    rank_slo_candidates(out);
    return out;
}

// Model size, weights and KV cache per token, the memory and the largest batch that fits.
// What a speculative draft holds, and where it cannot serve as given.
void draft_warnings(InferenceResult& r, const Model& x) {
    if (!(r.speculative_draft_weights_bytes > 0)) return;
    r.warnings.push_back("speculative decoding: the draft model's weights (" + jr::fmt_num(r.speculative_draft_weights_bytes / units::GiB) +
                         " GiB) and its KV cache (" +
                         (x.draft_arch() ? std::string("its own architecture's")
                                         : "draft_params / active parameters = " + jr::fmt_num(x.draft_depth()) +
                                               " of the target's per token, its layers taken at the target's width: a narrower draft "
                                               "holds more, give the draft's architecture in inference.speculative.draft_model") +
                         ") are held beside the target's");
    const ModelSpec* a = x.draft_arch();
    if (!a) return;
    const double ctx = static_cast<double>(x.cfg.prompt_tokens + x.cfg.output_tokens), limit = std::max(a->seq_len, a->context_len);
    if (ctx > limit)
        r.warnings.push_back("prompt_tokens + output_tokens (" + jr::fmt_num(ctx) + ") exceed the draft model's context length (" +
                             jr::fmt_num(limit) +
                             "): it was not trained for it and will have few tokens accepted (set "
                             "inference.speculative.draft_model.seq_len if its is longer)");
    if (x.m.has_architecture && a->vocab != x.m.vocab)
        r.warnings.push_back("the draft model's vocabulary (" + jr::fmt_num(a->vocab) + " tokens) is not the target's (" +
                             jr::fmt_num(x.m.vocab) + "): draft-model speculation needs the target's tokenizer");
}

void memory_figures(InferenceResult& r, const Model& x, const Fit& f) {
    const InferenceConfig& cfg = x.cfg;
    r.params_total = x.pc.total;
    r.params_active = x.pc.active;
    r.instance_gpus = x.gpus;
    r.weights_bytes = x.weight_bytes();
    r.weights_bytes_per_gpu = f.weights_per_gpu;
    r.host_weights_bytes = f.host_weights;
    r.kv_cache_bytes_per_token = x.kv_token;
    r.kv_cache_bytes_per_token_per_gpu = x.kv_token_gpu;
    r.context_tokens = static_cast<double>(cfg.prompt_tokens + cfg.output_tokens);
    r.overhead_bytes_per_gpu = cfg.overhead_bytes;
    r.memory_capacity_bytes = x.capacity;
    r.max_batch = f.max_batch;
    r.speculative_draft_weights_bytes = x.draft_bytes();
    draft_warnings(r, x);
    if (x.scale_out_assumed && (x.gpus > x.node || cfg.disaggregated)) r.warnings.push_back(assumed_scale_out_warning(x.d.name));
    if (scale_up_unknown(x.d) && x.gpus > 1 && x.node > 1) r.warnings.push_back(unknown_scale_up_warning(x.d));
    // Dequantisation's arithmetic is timed at the FP32 (vector) peak; a device the catalog gives none
    // for (TPUs, Gaudi 2) would have timed it as free without a word (a red team).
    if (x.dequant_ops > 0 && !(x.fp32 > 0))
        r.warnings.push_back(
            "the weights are expanded to the compute precision on every read, and the catalog has no FP32 (vector) peak for " + x.d.name +
            ": that arithmetic is not timed, only its kernels' launch time (the decode time may be low)");
    if (!x.m.has_architecture && f.free_for_kv > 0)
        r.warnings.push_back("model given by parameter count only: KV cache unknown (give the architecture)");
    if (x.m.has_architecture) r.context_limit_tokens = std::max(x.m.seq_len, x.m.context_len);
    if (r.context_limit_tokens && r.context_tokens > *r.context_limit_tokens)
        r.warnings.push_back("prompt_tokens + output_tokens (" + jr::fmt_num(r.context_tokens) + ") exceed the model's context length " +
                             (*r.context_limit_tokens > x.m.seq_len ? "(" : "model.seq_len (") + jr::fmt_num(*r.context_limit_tokens) +
                             "): the model was not trained for it (set model.seq_len if your variant's is longer)");
}

// Derivations of the weights and of the KV cache per token.
GPUCALC_COLD void explain_weights_and_kv(Trace& trace, const Model& x, const InferenceResult& r) {
    const ModelSpec& m = x.m;
    const InferenceConfig& cfg = x.cfg;
    const std::string wp =
        cfg.weight_format != WeightFormat::native ? weight_format_name(cfg.weight_format) : precision_text(cfg.weight_precision);
    trace.add("inference.weights_bytes",
              "(params - params_kept_16bit) x bytes_per_param + params_kept_16bit x 2; bytes_per_param of " + wp +
                  ", its scales included (int4: 0.5 + 4 bytes (fp16 scale and zero) / quant_group_size, fp4: 0.5 + 1 byte (8-bit scale) / "
                  "quant_group_size; GGUF: bits per weight / 8)",
              {{"params", x.pc.total},
               {"bytes_per_param", x.bytes_per_param},
               {"quant_group_size", static_cast<double>(cfg.quant_group_size)},
               {"params_kept_16bit", x.kept16_params}},
              r.weights_bytes, "bytes",
              cfg.weight_format != WeightFormat::native
                  ? std::string("llama.cpp tools/quantize/README.md (Llama-3.1-8B bits per weight)")
                  : std::string("16-bit tables: gpt-fast quantize.py and NVIDIA ModelOpt quantize nn.Linear only; "
                                "ModelOpt FP8/FP4 configs disable *lm_head*") +
                        (m.released_weights != Precision::bf16 && cfg.weight_precision == m.released_weights
                             ? std::string("; ") + m.released_source + " (the default precision)"
                             : std::string()));
    if (m.is_mla())
        trace.add("inference.kv_cache_bytes_per_token", "layers x (kv_lora_rank + qk_rope_head_dim) x bytes",
                  {{"layers", m.layers},
                   {"kv_lora_rank", m.kv_lora_rank},
                   {"qk_rope_head_dim", m.qk_rope_head_dim},
                   {"bytes", bytes_per_element(cfg.kv_precision)}},
                  r.kv_cache_bytes_per_token, "bytes", "DeepSeek-V2 (arXiv:2405.04434) Sec. 2.1.3");
    else
        trace.add("inference.kv_cache_bytes_per_token", "2 x layers x kv_heads x head_dim x bytes",
                  {{"layers", m.layers},
                   {"kv_heads", m.kv_heads},
                   {"head_dim", m.head_dim > 0 ? m.head_dim : (m.heads > 0 ? m.hidden / m.heads : 0)},
                   {"bytes", bytes_per_element(cfg.kv_precision)}},
                  r.kv_cache_bytes_per_token, "bytes", "vLLM (arXiv:2309.06180) Sec. 3");
    trace.add(
        "inference.kv_cache_bytes_per_token_per_gpu",
        m.is_mla() ? "MLA latent: the whole per-token cache on every TP rank"
                   : "kv_cache_bytes_per_token x max(1, ceil(kv_heads / tp)) / kv_heads",
        {{"kv_cache_bytes_per_token", x.kv_token}, {"tp", x.t}, {"kv_heads", m.kv_heads}}, r.kv_cache_bytes_per_token_per_gpu, "bytes",
        "TensorRT-LLM tensorrt_llm/bench/build/tuning.py (at least one KV head per TP rank); DeepSeek-V3 (arXiv:2412.19437) Sec. 3.4");
}

// The batch: given (fixed), or the largest that fits, capped by the engine (continuous batching).
void choose_batch(InferenceResult& r, const Model& x, const Fit& f) {
    const InferenceConfig& cfg = x.cfg;
    r.batch_given = cfg.batch.has_value();
    if (x.m.has_architecture && x.gpu_layer_fraction <= 0)
        r.warnings.push_back(
            "inference.gpu_layers 0: every layer and its KV cache in host memory, which gpucalc does not size: the "
            "largest batch is " +
            std::string(x.draft_depth() > 0 ? "what the draft model's KV cache leaves on the device, at most " : "") +
            "inference.batch_limit (" + jr::fmt_num(static_cast<double>(cfg.batch_limit)) + ")");
    if (cfg.batch)
        r.batch = static_cast<double>(*cfg.batch);
    else if (f.max_batch >= 1)
        r.batch = std::min(f.max_batch, static_cast<double>(cfg.batch_limit));
    else {
        r.batch = 1;
        if (x.m.has_architecture && f.free_for_kv > 0)
            r.warnings.push_back("not even one sequence of " + jr::fmt_num(r.context_tokens) + " tokens fits next to the weights");
        else if (!x.m.has_architecture)
            r.warnings.push_back("batch 1 assumed: the largest batch needs the KV cache size (give the architecture)");
    }
}

// Derivations of the largest batch that fits and of the batch served.
GPUCALC_COLD void explain_batch(Trace& trace, const Model& x, const Fit& f, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    if (x.m.has_architecture && !(f.kv_seq_gpu > 0) && f.free_for_kv > 0)  // gpu_layers 0, no draft: nothing on the device bounds it
        trace.add("inference.max_batch",
                  "inference.batch_limit: every layer and its KV cache in host memory (gpu_layers 0), which is not sized",
                  {{"batch_limit", static_cast<double>(cfg.batch_limit)}}, r.max_batch, "sequences",
                  "llama.cpp: a layer's KV cache stays with it");
    else
        trace.add("inference.max_batch",
                  "floor((usable memory - overhead - weights per device) x kv_cache_memory_fraction / kv_bytes_per_sequence_per_gpu) x ep "
                  "x dp_attention_ranks; kv_bytes_per_sequence_per_gpu = kv per token per device x context rounded up to 16-token blocks x "
                  "share of layers on the device + the draft's kv per token per device x its context rounded up",
                  {{"memory_bytes", x.capacity},
                   {"overhead_bytes", cfg.overhead_bytes},
                   {"weights_bytes_per_gpu", f.weights_per_gpu},
                   {"kv_cache_memory_fraction", cfg.kv_cache_memory_fraction},
                   {"kv_bytes_per_sequence_per_gpu", f.kv_seq_gpu},
                   {"kv_per_token_per_gpu", x.kv_token_gpu},
                   {"layers_on_device", x.gpu_layer_fraction},
                   {"draft_kv_per_token_per_gpu", x.draft_kv_token_gpu()},
                   {"draft_cached_tokens", x.draft_context(static_cast<double>(cfg.prompt_tokens + cfg.output_tokens))},
                   {"ep", x.ep},
                   {"dp_attention_ranks", x.dp_attention_ranks()}},
                  r.max_batch, "sequences", "vLLM (arXiv:2309.06180) Sec. 4 (paged KV cache, block size 16)");
    trace.add("inference.batch",
              r.batch_given      ? "given"
              : r.max_batch >= 1 ? "min(max_batch, batch_limit): continuous batching at the largest batch that fits"
                                 : "1: not one sequence fits (max_batch < 1); the figures are for one sequence",
              {{"max_batch", r.max_batch}, {"batch_limit", static_cast<double>(cfg.batch_limit)}}, r.batch, "sequences",
              "batch_limit: TensorRT-LLM trtllm-bench caps max_batch_size at 4,096 (tensorrt_llm/bench/build/tuning.py)");
}

// What the memory holds at the batch served.
struct Occupancy {
    double cached_ctx = 0;      // tokens cached per sequence, averaged over the layers (kv_context)
    double draft_ctx = 0;       // ... by the speculative draft (draft_context)
    double instance_bytes = 0;  // weights + KV cache + overhead of one copy
};

// KV cache and memory per device at the batch served, whether it fits, copies per device and cluster.
Occupancy memory_use(InferenceResult& r, const Model& x, const Fit& f, const Hardware& hw) {
    const InferenceConfig& cfg = x.cfg;
    const double b = r.batch, G = x.gpus;
    Occupancy o;
    o.cached_ctx = x.kv_context(r.context_tokens);
    o.draft_ctx = x.draft_context(r.context_tokens);
    r.speculative_draft_kv_cache_bytes_per_gpu = x.draft_kv_token_gpu() * o.draft_ctx * x.seqs_per_gpu(b);
    r.kv_cache_bytes = (x.kv_token * o.cached_ctx + x.draft_kv_token() * o.draft_ctx) * b;
    r.kv_cache_bytes_per_gpu =
        x.kv_token_gpu * o.cached_ctx * x.seqs_per_gpu(b) * x.gpu_layer_fraction + r.speculative_draft_kv_cache_bytes_per_gpu;
    r.memory_per_gpu_bytes = r.weights_bytes_per_gpu + r.kv_cache_bytes_per_gpu + r.overhead_bytes_per_gpu;
    // Not even one sequence in the KV cache pool (architecture known, layers on the device): nothing runs.
    const bool no_sequence = x.m.has_architecture && (x.gpu_layer_fraction > 0 || x.draft_kv_token_gpu() > 0) && f.max_batch < 1;
    r.fits = r.memory_per_gpu_bytes <= x.capacity && f.free_for_kv > 0 && !no_sequence;
    o.instance_bytes = r.weights_bytes + r.speculative_draft_weights_bytes + r.kv_cache_bytes + G * r.overhead_bytes_per_gpu;
    r.instances_per_gpu = G == 1 && o.instance_bytes > 0 && cfg.gpu_layers == std::nullopt ? std::floor(x.capacity / o.instance_bytes) : 0;
    r.instances_per_cluster =
        G == 1 ? r.instances_per_gpu * static_cast<double>(hw.count) : std::floor(static_cast<double>(hw.count) / G) * (r.fits ? 1.0 : 0.0);
    if (!r.fits) {
        const std::string what =
            f.free_for_kv <= 0 ? std::string(x.draft_bytes() > 0 ? "the weights with the draft model's" : "the weights") + " and the " +
                                     jr::fmt_num(cfg.overhead_bytes / units::GiB) + " GiB overhead alone need " +
                                     jr::fmt_num((f.weights_per_gpu + cfg.overhead_bytes) / units::GiB) + " GiB per device"
            : no_sequence
                ? "not even one sequence of " + jr::fmt_num(r.context_tokens) + " tokens fits in the KV cache pool next to the weights"
                : "needs " + jr::fmt_num(r.memory_per_gpu_bytes / units::GiB) + " GiB per device";
        r.infeasible_reason = "does not fit: " + what + ", " + x.d.name + " has " + jr::fmt_num(x.capacity / units::GiB) + " GiB usable";
    }
    return o;
}

// Derivations of the memory in use and of whether it fits.
// The speculative draft's weights and KV cache on the device.
GPUCALC_COLD void explain_draft(Trace& trace, const Model& x, const Occupancy& o, const InferenceResult& r) {
    if (!(x.draft_depth() > 0)) return;
    trace.add("inference.speculative.draft_weights_bytes",
              "parameters held x bytes per weight (the target's weight precision); held: all of draft_model's (an MoE draft holds every "
              "expert), else draft_params",
              {{"draft_params_held", x.draft_params_held()}, {"bytes_per_param", x.bytes_per_param}}, r.speculative_draft_weights_bytes,
              "bytes", "vLLM runs the draft beside the target on the same GPUs (draft_tensor_parallel_size: the target's by default)");
    trace.add("inference.speculative.draft_kv_cache_bytes_per_gpu",
              std::string("draft kv per token per device x tokens it caches x sequences per device; ") +
                  (x.draft_arch() ? "its own architecture's KV per token (inference.speculative.draft_model)"
                                  : "its KV per token = the target's x draft_depth, draft_depth = min(1, draft_params / active params): "
                                    "the draft's layers at the target's width"),
              {{"draft_kv_per_token_per_gpu", x.draft_kv_token_gpu()},
               {"cached_tokens", o.draft_ctx},
               {"sequences_per_gpu", x.seqs_per_gpu(r.batch)},
               {"draft_depth", x.draft_depth()}},
              r.speculative_draft_kv_cache_bytes_per_gpu, "bytes",
              "vLLM (v0) vllm/spec_decode/spec_decode_worker.py split_num_cache_blocks_evenly: the target and the draft allocate the same "
              "number of blocks");
}

GPUCALC_COLD void explain_memory_use(Trace& trace, const Model& x, const Occupancy& o, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    const Device& d = x.d;
    const double b = r.batch, cached_ctx = o.cached_ctx, instance_bytes = o.instance_bytes;
    // The routed experts' bytes and the bytes per weight, which the formula reads (a red team: an MoE's
    // figure could not be recomputed from the values).
    const double routed_bytes = x.m.is_moe() ? x.m.experts * x.expert_params_layers * x.bytes_per_param : 0.0;
    trace.add("inference.weights_bytes_per_gpu",
              "(weights_bytes - routed_experts_bytes) / tp + routed_experts_bytes / (tp x ep) + draft_weights_bytes / tp - "
              "host_weights_bytes / (tp x ep) + attention_params_replicated x bytes_per_param x (1 - 1/tp) (DP attention: every rank "
              "holds the attention weights whole)",
              {{"weights_bytes", r.weights_bytes},
               {"routed_experts_bytes", routed_bytes},
               {"bytes_per_param", x.bytes_per_param},
               {"draft_weights_bytes", x.draft_bytes()},
               {"tp", x.t},
               {"ep", x.ep},
               {"host_weights_bytes", r.host_weights_bytes},
               {"attention_params_replicated", x.attn_replicated}},
              r.weights_bytes_per_gpu, "bytes",
              "Megatron-LM tensor parallelism (Shoeybi et al. 2019) splits every matrix over tp; expert parallelism the routed "
              "experts over ep (GShard); llama.cpp -ngl keeps the other layers in host memory");
    if (x.draft_depth() > 0)
        trace.add("inference.kv_cache_bytes",
                  "(kv_cache_bytes_per_token x cached tokens + the draft's kv per token x the tokens it caches) x batch",
                  {{"kv_cache_bytes_per_token", r.kv_cache_bytes_per_token},
                   {"cached_tokens", cached_ctx},
                   {"draft_kv_cache_bytes_per_token", x.draft_kv_token()},
                   {"draft_cached_tokens", o.draft_ctx},
                   {"batch", b}},
                  r.kv_cache_bytes, "bytes",
                  "vLLM (v0) vllm/spec_decode/spec_decode_worker.py split_num_cache_blocks_evenly: the target and the draft allocate the "
                  "same number of blocks");
    else
        trace.add("inference.kv_cache_bytes", "kv_cache_bytes_per_token x cached tokens x batch",
                  {{"kv_cache_bytes_per_token", r.kv_cache_bytes_per_token}, {"cached_tokens", cached_ctx}, {"batch", b}}, r.kv_cache_bytes,
                  "bytes", "vLLM (arXiv:2309.06180) Sec. 4: keys and values of every cached token of every sequence");
    trace.add("inference.memory_per_gpu_bytes", "weights per device + KV cache per device + overhead",
              {{"weights_bytes_per_gpu", r.weights_bytes_per_gpu},
               {"kv_cache_bytes_per_gpu", r.kv_cache_bytes_per_gpu},
               {"overhead_bytes", cfg.overhead_bytes}},
              r.memory_per_gpu_bytes, "bytes",
              "the parts above; overhead: inference.overhead_bytes (CUDA context, workspace, activations)");
    trace.add("inference.fits", "memory_per_gpu <= usable device memory",
              {{"memory_per_gpu_bytes", r.memory_per_gpu_bytes}, {"capacity", x.capacity}}, r.fits ? 1.0 : 0.0, "boolean",
              d.name + " datasheet" + (d.usable_memory_fraction ? " x usable_memory_fraction" : ""));
    trace.add("inference.instances_per_gpu",
              x.gpus > 1                   ? "0: a copy spans several devices (tp x ep)"
              : cfg.gpu_layers.has_value() ? "0: layers in host memory (inference.gpu_layers): one copy per device at most"
                                           : "floor(memory / (weights + the draft's weights + kv_cache + overhead))  (one device per copy)",
              {{"memory_bytes", x.capacity}, {"instance_bytes", instance_bytes}, {"instance_gpus", x.gpus}}, r.instances_per_gpu, "copies",
              "several copies of a small model share a device (e.g. NVIDIA MPS / MIG); the copy's memory as in memory_per_gpu_bytes");
}

// Decode, prefill and the continuous-batching cycle at the batch served.
void speed_figures(InferenceResult& r, const Model& x, const Cycle& y) {
    const double G = x.gpus;
    r.decode = y.dec;
    r.decode_seconds_per_token = y.step;
    r.decode_memory_bound = y.dec.memory_bound;
    r.decode_tokens_per_second_per_user = safe_div(1.0, y.step);
    r.prefill_seconds = y.prefill_alone;
    r.prefill_tokens_per_second_per_gpu = safe_div(static_cast<double>(x.cfg.prompt_tokens), y.prefill_busy * G);
    r.tpot_seconds = y.tpot;
    r.output_tokens_per_second_per_user = safe_div(1.0, y.tpot);
    r.speculative_tokens_per_step = y.spec_tokens;
    r.speculative_speedup = y.spec_speedup;
    r.speculative_draft_step_seconds = y.draft.total;
    r.speculative_verify_step_seconds = y.verify.total;
    const double isl = static_cast<double>(x.cfg.prompt_tokens), osl = static_cast<double>(x.cfg.output_tokens);
    r.requests_per_second_per_instance = y.rate;
    r.throughput_tokens_per_second_per_instance = y.rate * osl;
    r.throughput_tokens_per_second_per_gpu = safe_div(y.rate * osl, G);
    r.input_tokens_per_second_per_gpu = safe_div(y.rate * isl, G);
    // Disaggregated: KV of the prompt moves from a prefill to a decode instance over the network.
    if (x.cfg.disaggregated) {
        r.kv_transfer_seconds = x.kv_transfer_seconds();
    }
}

// The parts of one draft step and of one verify step (speculative decoding).
GPUCALC_COLD void explain_spec_steps(Trace& trace, const Cycle& y) {
    const DecodeTerms &d = y.draft, &v = y.verify;
    trace.add("inference.speculative.draft_step_seconds",
              "draft weights / (bandwidth x eff) + its GEMMs + dequantization + max(its KV reads, target attention FLOPs x depth) + "
              "its layers x kernel time + per-sequence work + target all-reduces x depth",
              {{"weights", d.weights},
               {"compute", d.compute},
               {"dequantization", d.dequantization},
               {"attention", d.attention},
               {"kernel_overhead", d.kernel_overhead},
               {"sequence_overhead", d.sequence_overhead},
               {"tp_comm", d.tp_comm}},
              d.total, "s", "dense, in the target's weight precision, on the same tp ranks (vLLM draft_tensor_parallel_size default)");
    trace.add("inference.speculative.verify_step_seconds",
              "the plain step with the weights (an MoE's experts the tokens reach), GEMMs, attention and communication of gamma + 1 "
              "tokens per sequence: weights + dequantization + "
              "host_offload + compute + attention + kernel_overhead + sequence_overhead + tp_comm + ep_comm",
              {{"weights", v.weights},
               {"dequantization", v.dequantization},
               {"host_offload", v.host_offload},
               {"compute", v.compute},
               {"attention", v.attention},
               {"kernel_overhead", v.kernel_overhead},
               {"sequence_overhead", v.sequence_overhead},
               {"tp_comm", v.tp_comm},
               {"ep_comm", v.ep_comm}},
              v.total, "s", "Leviathan et al. 2023 (arXiv:2211.17192) Sec. 3.3");
}

// Derivation of the decode step (per accepted token with speculative decoding).
GPUCALC_COLD void explain_decode_step(Trace& trace, const Model& x, const Cycle& y, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    const InferenceEfficiency& eff = x.eff;
    const double b = r.batch;
    const DecodeTerms& t = y.dec;
    if (cfg.speculative) {
        // Each verification step: gamma draft steps and one verify step of gamma + 1 tokens per
        // sequence, over the tokens it yields (the plain step's terms below are the target's alone).
        trace.add("inference.decode_seconds_per_token", "(gamma x draft_step + verify_step) / tokens_per_step",
                  {{"gamma", static_cast<double>(cfg.speculative->draft_tokens)},
                   {"draft_step", y.draft.total},
                   {"draft_tp_comm", y.draft.tp_comm},
                   {"verify_step", y.verify.total},
                   {"tokens_per_step", y.spec_tokens},
                   {"plain_step", t.total},
                   {"batch", b}},
                  r.decode_seconds_per_token, "s",
                  "Leviathan et al. 2023 (arXiv:2211.17192) Sec. 3.3; the verify step adds weights, compute, attention as a plain step; "
                  "the draft is dense, in the target's precision, on the same tp ranks");
        explain_spec_steps(trace, y);
        trace.add("inference.speculative.speedup",
                  "plain decode step / decode step per token with the draft, both at the batch served (the decode step alone: the "
                  "prefills that share the GPUs are not in it)",
                  {{"plain_step", t.total}, {"decode_seconds_per_token", r.decode_seconds_per_token}, {"batch", b}}, r.speculative_speedup,
                  "x",
                  "Leviathan et al. 2023 (arXiv:2211.17192) Sec. 3.4: speedup = tokens per step x plain step / (gamma x draft step + "
                  "verify step)");
        return;
    }
    trace.add("inference.decode_seconds_per_token",
              "weights + dequantization + host_offload + compute + max(kv_cache, attention FLOPs (MLA: absorbed, 2 heads ctx (2 "
              "kv_lora_rank + rope) per layer)) + kernel_overhead + "
              "sequence_overhead + tp_comm + ep_comm",
              {{"weights", t.weights},
               {"dequantization", t.dequantization},
               {"host_offload", t.host_offload},
               {"compute", t.compute},
               {"kv_cache", t.kv_cache},
               {"attention", t.attention},
               {"kernel_overhead", t.kernel_overhead},
               {"sequence_overhead", t.sequence_overhead},
               {"tp_comm", t.tp_comm},
               {"ep_comm", t.ep_comm},
               {"batch", b},
               {"eff_memory", eff.memory},
               {"gemm_max", x.gemm_max}},
              r.decode_seconds_per_token, "s",
              "roofline (Williams et al. 2009); constants fitted on gpt-fast and TensorRT-LLM 0.17 (docs/VALIDATION.md, serving)");
}

// Derivation of the decode step's GEMMs: an MoE's routed experts see batch x top-k / E tokens each.
void explain_decode_compute(Trace& trace, const Model& x, double seconds, double b) {
    trace.add("inference.decode_breakdown_seconds.compute",
              x.m.is_moe()
                  ? "(tokens x 2 x (matmul params - routed params) / tp + batch x 2 x routed params / (tp x ep)) / (peak x gemm_max "
                    "x w / (w + gemm_half_width)), w = hidden / tp, tokens = batch / ep, routed params = top-k experts' matmul "
                    "params"
                  : "tokens x 2 x matmul params / tp / (peak x gemm_max x w / (w + gemm_half_width)), w = hidden / tp, tokens = batch",
              {{"tokens", x.group_tokens(b)},
               {"batch", b},
               {"matmul_params", x.matmul_params},
               {"routed_params", x.m.is_moe() ? x.m.experts_per_token * x.expert_params_layers : 0.0},
               {"tp", x.t},
               {"ep", x.ep},
               {"hidden", x.hidden},
               {"peak_flops_per_second", x.peak},
               {"gemm_max", x.gemm_max},
               {"gemm_half_width", x.eff.gemm_half_width}},
              seconds, "s", "fitted on TensorRT-LLM 0.17 perf-overview");
}

// Derivations of the terms of the decode step: weights, dequantization, compute, KV cache, TP communication.
GPUCALC_COLD void explain_decode_terms(Trace& trace, const Model& x, const Cycle& y, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    const InferenceEfficiency& eff = x.eff;
    const double b = r.batch;
    const double isl = static_cast<double>(cfg.prompt_tokens), osl = static_cast<double>(cfg.output_tokens);
    const DecodeTerms& t = y.dec;
    trace.add("inference.decode_breakdown_seconds.weights",
              "(params read per device x bytes_per_param + output head kept in 16 bits x (2 - bytes_per_param) / tp) / (bandwidth x "
              "eff_memory)",
              {{"params_read_per_gpu", x.params_read_per_gpu(b) * x.gpu_layer_fraction},
               {"bytes_per_param", x.bytes_per_param},
               {"head_params_16bit", x.head16_params},
               {"tp", x.t},
               {"bandwidth", x.bw},
               {"eff_memory", eff.memory}},
              t.weights, "s", "gpt-fast README (A100 at ~1,700 GB/s): eff_memory fitted");
    trace.add("inference.decode_breakdown_seconds.dequantization",
              "params read per device x ops per weight / (FP32 peak x dequant_alu) + layers x dequant kernel time",
              {{"params_read_per_gpu", x.params_read_per_gpu(b)},
               {"layers", x.layers},
               {"ops_per_weight", x.dequant_ops},
               {"fp32_peak", x.fp32},
               {"dequant_alu", eff.dequant_alu},
               {"dequant_kernel_seconds_per_layer", eff.dequant_kernel_seconds_per_layer}},
              t.dequantization, "s", "fitted on gpt-fast int8/int4 rows (Llama-2-7B int8 155.6, int4 196.8 tok/s)");
    explain_decode_compute(trace, x, t.compute, b);
    // The context attended (a sliding window's share) and the layers in host memory, as decode() reads
    // them (a red team: the bandwidth was not among the values, nor the window nor the host's share).
    trace.add("inference.decode_breakdown_seconds.kv_cache",
              "sequences per device x attended context x kv per token per device x (layers_on_device / (bandwidth x eff_memory) + "
              "(1 - layers_on_device) / (host bandwidth x eff_memory)); attended context: mean context (prompt + output / 2), windowed "
              "layers at most their window",
              {{"sequences_per_gpu", x.seqs_per_gpu(b)},
               {"mean_context", isl + osl / 2.0},
               {"attended_context", x.kv_context(isl + osl / 2.0)},
               {"kv_per_token_per_gpu", x.kv_token_gpu},
               {"layers_on_device", x.gpu_layer_fraction},
               {"bandwidth", x.bw},
               {"host_bandwidth", x.host_bw},
               {"eff_memory", eff.memory}},
              t.kv_cache, "s",
              "every cached token's keys and values read once per step (memory-bound decode attention); eff_memory as weights");
    trace.add("inference.decode_breakdown_seconds.tp_comm",
              "layers x 2 x (base + per_hop x log2 tp + across_nodes_latency + 2(tp-1)/tp x tokens x hidden x 2 B / link); "
              "across_nodes_latency = 2 ceil(log2(tp / devices per node)) x one-way latency when tp spans nodes, else 0",
              {{"layers", x.layers},
               {"tokens", x.group_tokens(b)},
               {"hidden", x.hidden},
               {"across_nodes_latency", x.t > x.node ? 2.0 * std::ceil(std::log2(x.t / x.node)) * x.out_latency : 0.0},
               {"tp", x.t},
               {"collective_base_seconds", eff.collective_base_seconds},
               {"collective_per_hop_seconds", eff.collective_per_hop_seconds},
               {"link_bytes_per_second", x.link}},
              t.tp_comm, "s", "ring all-reduce (Patarasuk and Yuan 2009); latency terms fitted on gpt-fast TP rows");
}

// Turn batch: smallest batch at which the GEMMs become compute-bound (0 when none below 1e9).
double turn_batch(const Model& x) {
    const double isl = static_cast<double>(x.cfg.prompt_tokens), osl = static_cast<double>(x.cfg.output_tokens);
    auto compute_bound = [&](double bb) { return x.decode(bb, isl + osl / 2.0).memory_bound == false; };
    double lo = 0, hi = 1;
    while (hi < 1e9 && !compute_bound(hi)) lo = hi, hi *= 2;
    if (hi >= 1e9) return 0;
    while (hi - lo > 1) {
        const double mid = std::floor((lo + hi) / 2);
        if (compute_bound(mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

// Curve: at batch 1, 2, 4, ... up to the largest that fits (at most 2^16), and at the batch served
// and the largest that fits themselves, the decode step alone and the served speeds as the headline
// counts them (the cycle's prefills included, speculative decoding applied), so the curve passes
// through the headline's batch (a newcomer saw the chart mark 256 for a batch of 414).
std::vector<BatchPoint> batch_curve(const Model& x, double max_batch, double served) {
    const double osl = static_cast<double>(x.cfg.output_tokens);
    const double G = x.gpus;
    std::vector<double> batches;
    for (double bb = 1; bb <= 65536; bb *= 2) batches.push_back(bb);
    for (const double b : {served, max_batch})
        if (b >= 1 && b <= 65536 && b == std::floor(b) && std::find(batches.begin(), batches.end(), b) == batches.end())
            batches.insert(std::upper_bound(batches.begin(), batches.end(), b), b);
    std::vector<BatchPoint> curve;
    for (const double bb : batches) {
        const Cycle y = cycle(x, bb);
        const DecodeTerms& t = y.dec;
        const bool fits = bb <= std::max(1.0, max_batch);
        // The decode step per token: with a speculative draft, per accepted token (y.step), as decode_seconds_per_token.
        curve.push_back(BatchPoint{bb, y.step, safe_div(1.0, y.step), safe_div(bb, y.step * G), t.memory_bound, fits, y.tpot,
                                   safe_div(1.0, y.tpot), safe_div(y.rate * osl, G)});
        if (!fits) break;
    }
    return curve;
}

// Derivations of the decode bound, the turn batch and the decode speed per user.
GPUCALC_COLD void explain_decode_bound(Trace& trace, const Model& x, const Cycle& y, const InferenceResult& r) {
    const DecodeTerms& t = y.dec;
    trace.add("inference.decode_bound", "memory if weights + dequantization >= compute",
              {{"memory_side", t.weights + t.dequantization + t.host_offload}, {"compute", t.compute}}, r.decode_memory_bound ? 1.0 : 0.0,
              "1 = memory-bound, 0 = compute-bound", "roofline");
    trace.add("inference.turn_batch", "smallest batch with GEMM compute >= weight reads + dequantization", {{"gemm_max", x.gemm_max}},
              r.turn_batch, "sequences", "roofline ridge in tokens");
    trace.add("inference.decode_tokens_per_second_per_user", "1 / decode_seconds_per_token",
              {{"decode_seconds_per_token", r.decode_seconds_per_token}}, r.decode_tokens_per_second_per_user, "tokens/s",
              "the decode step alone: one token per sequence per step");
}

// Traffic sizing and prices: what the derivations of the costs and of TTFT refer to.
struct Traffic {
    double rate = 0;                             // USD per GPU-hour
    std::string rate_what;                       // where the rate comes from (derivations)
    double lambda = 0;                           // arrival rate per instance at the peak (requests/s)
    double prefill_gpu_s = 0, decode_gpu_s = 0;  // GPU-seconds per request
};

// Instances and GPUs provisioned for the peak traffic, the cost per day and its split by GPU time;
// returns the arrival rate per instance at the peak.
double provision(InferenceResult& r, const Model& x, const Cycle& y, const Costs& costs, double rate) {
    const InferenceConfig& cfg = x.cfg;
    const double G = x.gpus;
    const double isl = static_cast<double>(cfg.prompt_tokens), osl = static_cast<double>(cfg.output_tokens);
    const double peak_rps = peak_requests_per_second(cfg);
    double lambda = 0;
    if (cfg.disaggregated) {
        r.decode_instances = std::max(1.0, copies_for(peak_rps / y.rate));  // traffic given: at least one copy
        // Prefill copies at most kPrefillLoad busy, so that a prompt's mean wait in their queue (M/D/1,
        // rho S / (2 (1 - rho))) is at most one prefill: sized to 100 % they left it at 2.6 s against
        // a 0.2 s prefill (formula review). Latency targets (inference.slo) size them to the target.
        const double prefill_rate = safe_div(1.0, y.prefill_busy);
        r.prefill_instances = prefill_rate > 0 ? copies_for(peak_rps / (prefill_rate * kPrefillLoad)) : 0;
        r.instances_needed = r.decode_instances + r.prefill_instances;
        lambda = safe_div(peak_rps, std::max(1.0, r.prefill_instances));
        r.input_cost_share = safe_div(r.prefill_instances, r.instances_needed);
    } else {
        r.instances_needed = std::max(1.0, copies_for(peak_rps / y.rate));
        lambda = safe_div(peak_rps, r.instances_needed);
    }
    r.gpus_needed = r.instances_needed * G;
    r.cost_per_day_usd = r.gpus_needed * 24.0 * rate;
    if (x.d.tdp_watts)
        r.energy_per_day_kwh = r.gpus_needed * 24.0 * *x.d.tdp_watts / 1000.0 * costs.pue;
    else
        r.warnings.push_back("energy per day unknown: the device has no TDP (set hardware.device.tdp_watts)");
    r.input_tokens_per_day = cfg.requests_per_day * isl;
    r.output_tokens_per_day = cfg.requests_per_day * osl;
    r.cost_per_million_input_tokens_usd = r.cost_per_day_usd * r.input_cost_share / r.input_tokens_per_day * 1e6;
    r.cost_per_million_output_tokens_usd = r.cost_per_day_usd * (1.0 - r.input_cost_share) / r.output_tokens_per_day * 1e6;
    r.cost_split =
        "cost_per_day_usd (GPUs provisioned for the peak, idle headroom included) split by GPU time: " +
        std::string(cfg.disaggregated ? "prefill instances' share of the GPUs to input tokens, decode instances' to output tokens"
                                      : "each request's prefill (the instance for its prompt) to input tokens, its share of the "
                                        "decode steps to output tokens") +
        "; input x price_in + output x price_out = cost_per_day_usd";
    return lambda;
}

// Traffic sizing (peak provisioning) and costs; without traffic, the price per token at full utilisation.
Traffic traffic_and_costs(InferenceResult& r, const Model& x, const Cycle& y, const Hardware& hw, const Costs& costs) {
    const InferenceConfig& cfg = x.cfg;
    const double G = x.gpus, b = r.batch;
    const double isl = static_cast<double>(cfg.prompt_tokens), osl = static_cast<double>(cfg.output_tokens);
    Traffic tr;
    const HourlyRate hourly = hardware_hour_cost(hw, costs, "hardware.device");
    r.gpu_hour_usd = hourly.usd;
    tr.rate = r.gpu_hour_usd.value_or(0);  // the costs are null without a rate (report.cpp)
    tr.rate_what = hourly.what;
    if (!hourly.usd)
        r.warnings.push_back(hourly.note.empty() ? "no $/GPU-hour for " + x.d.name + ": the costs are null; set costs.gpu_hour_usd"
                                                 : hourly.note);
    const double rate = tr.rate;
    // GPU-seconds per request: prefill (the whole instance for its prompt) and decode (its share of the steps).
    tr.prefill_gpu_s = G * y.prefill_busy, tr.decode_gpu_s = G * osl * y.step / std::max(1.0, b);
    r.input_cost_share = safe_div(tr.prefill_gpu_s, tr.prefill_gpu_s + tr.decode_gpu_s);
    if (cfg.requests_per_day > 0 && y.rate > 0) {
        tr.lambda = provision(r, x, y, costs, rate);
    } else if (y.rate > 0) {
        // No traffic given: the price per token at full utilisation, split the same way.
        r.cost_per_million_input_tokens_usd = safe_div(rate / units::seconds_per_hour * tr.prefill_gpu_s, isl) * 1e6;
        r.cost_per_million_output_tokens_usd = safe_div(rate / units::seconds_per_hour * tr.decode_gpu_s, osl) * 1e6;
        r.cost_split =
            "no traffic given: GPU time per request at full utilisation (instance GPUs x cycle / batch) x gpu_hour_usd, "
            "its prefill part to input tokens, its decode part to output tokens";
    }
    return tr;
}

// Derivations of the prices per million input and output tokens (priced runs only).
void explain_token_prices(Trace& trace, const Model& x, const Traffic& tr, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    const double rate = tr.rate, prefill_gpu_s = tr.prefill_gpu_s, decode_gpu_s = tr.decode_gpu_s;
    // Every value either formula reads (a red team found neither the day's cost and tokens nor the
    // GPU-seconds and tokens of a request among them).
    const double isl = static_cast<double>(cfg.prompt_tokens), osl = static_cast<double>(cfg.output_tokens);
    trace.add("inference.cost_per_million_output_tokens_usd",
              cfg.requests_per_day > 0 ? "cost_per_day x (1 - input_cost_share) / output_tokens_per_day x 1e6"
                                       : "gpu_hour_usd / 3600 x decode_gpu_seconds / output_tokens x 1e6",
              {{"gpu_hour_usd", rate},
               {"input_cost_share", r.input_cost_share},
               {"cost_per_day", r.cost_per_day_usd},
               {"output_tokens_per_day", r.output_tokens_per_day},
               {"decode_gpu_seconds", decode_gpu_s},
               {"output_tokens", osl}},
              r.cost_per_million_output_tokens_usd, "USD", tr.rate_what);
    trace.add("inference.cost_per_million_input_tokens_usd",
              cfg.requests_per_day > 0 ? "cost_per_day x input_cost_share / input_tokens_per_day x 1e6"
                                       : "gpu_hour_usd / 3600 x prefill_gpu_seconds / prompt_tokens x 1e6",
              {{"gpu_hour_usd", rate},
               {"input_cost_share", r.input_cost_share},
               {"cost_per_day", r.cost_per_day_usd},
               {"input_tokens_per_day", r.input_tokens_per_day},
               {"prefill_gpu_seconds", prefill_gpu_s},
               {"prompt_tokens", isl}},
              r.cost_per_million_input_tokens_usd, "USD", tr.rate_what);
}

// Derivations of the cost split, the prices per token and the deployment sized for the traffic.
GPUCALC_COLD void explain_costs(Trace& trace, const Model& x, const Cycle& y, const Traffic& tr, const Costs& costs,
                                const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    const Device& d = x.d;
    const double G = x.gpus, rate = tr.rate, prefill_gpu_s = tr.prefill_gpu_s, decode_gpu_s = tr.decode_gpu_s;
    trace.add("inference.input_cost_share",
              cfg.disaggregated ? "prefill_instances / (prefill_instances + decode_instances)"
                                : "prefill GPU-s / (prefill GPU-s + decode GPU-s) per request",
              {{"prefill_gpu_seconds", prefill_gpu_s},
               {"decode_gpu_seconds", decode_gpu_s},
               {"prefill_instances", r.prefill_instances},
               {"decode_instances", r.decode_instances}},
              r.input_cost_share, "fraction", "GPU time by phase: prefill to input tokens, decode to output tokens");
    // Without a rate the costs are null (report.cpp): no derivation shows them as 0.
    const bool priced = r.gpu_hour_usd.has_value();
    if (priced) explain_token_prices(trace, x, tr, r);
    if (cfg.requests_per_day > 0) {
        // With separate prefill copies the count is both kinds of copies (a red team: the formula gave the
        // decode copies alone, half the figure).
        trace.add("inference.gpus_needed",
                  cfg.disaggregated ? "(decode_instances + prefill_instances) x devices per instance; decode_instances = "
                                      "max(1, ceil(requests_per_second x peak_to_average / requests per second per instance)), "
                                      "prefill_instances as inference.disaggregation.prefill_instances"
                                    : "max(1, ceil(requests_per_second x peak_to_average / requests per second per instance)) x devices "
                                      "per instance",
                  {{"requests_per_day", cfg.requests_per_day},
                   {"peak_to_average", cfg.peak_to_average},
                   {"requests_per_second_per_instance", y.rate},
                   {"decode_instances", cfg.disaggregated ? r.decode_instances : r.instances_needed},
                   {"prefill_instances", r.prefill_instances},
                   {"instance_gpus", G}},
                  r.gpus_needed, "GPUs",
                  "peak requests/s = requests_per_day / 86,400 x peak_to_average; a copy's requests/s at its batch (Little's law: "
                  "batch / seconds a request spends in it)");
        if (priced)
            trace.add("inference.cost_per_day_usd", "gpus_needed x 24 x gpu_hour_usd",
                      {{"gpus_needed", r.gpus_needed}, {"gpu_hour_usd", rate}}, r.cost_per_day_usd, "USD", tr.rate_what);
        if (r.energy_per_day_kwh)
            trace.add("inference.energy_per_day_kwh", "gpus_needed x 24 h x TDP x PUE",
                      {{"gpus_needed", r.gpus_needed}, {"tdp_watts", *d.tdp_watts}, {"pue", costs.pue}}, *r.energy_per_day_kwh, "kWh",
                      d.name + " datasheet TDP (catalog sources); PUE from costs.pue");
    }
}

// Time to first token at the peak arrival rate `lambda`, the whole request, and the latency-target search.
// `cfg` is the configuration used (inference.tp chosen when omitted).
void latency_figures(InferenceResult& r, const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Cycle& y,
                     double lambda) {
    const double osl = static_cast<double>(cfg.output_tokens);
    if (const auto t = ttft(y, lambda, r.kv_transfer_seconds))
        r.ttft_seconds = *t;
    else {
        r.ttft_defined = false;
        r.warnings.push_back("the prefill work exceeds an instance at this traffic: time to first token grows without bound");
    }
    r.request_seconds = r.ttft_seconds + osl * r.tpot_seconds;
    if (cfg.slo) {
        r.slo = search_slo(m, hw, cfg);
        if (!r.slo->met)
            r.warnings.push_back("no configuration tried meets the latency targets (inference.slo): see inference.slo.candidates");
    }
}

// The fixed point b = lambda x S(max(1, b)) in [0, b_max]: below one sequence when a copy idles part of
// the time; else the root of g(b) = lambda S(b) - b on [1, b_max] (g(1) > 0 >= g(b_max) below capacity)
// by regula falsi with the Illinois step, which converges where the plain iteration crawls (near
// full load its slope is ~1: 100 steps stopped at 718 of 1,000 sequences).
// `seconds_at_max`: S(b_max), which the caller has from its capacity check.
double traffic_batch(const Model& x, double lambda, double b_max, double seconds_at_max) {
    const double at_one = lambda * cycle(x, 1.0).seconds;
    if (at_one <= 1.0) return at_one;
    double lo = 1.0, hi = b_max;
    double g_lo = at_one - 1.0, g_hi = lambda * seconds_at_max - b_max;
    if (g_hi >= 0) return b_max;  // at capacity
    int side = 0;
    double best = hi, best_g = -g_hi;
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi && best_g > 1e-9 * best; ++i) {
        const double b = hi - g_hi * (hi - lo) / (g_hi - g_lo);
        const double g = lambda * cycle(x, b).seconds - b;
        if (std::abs(g) < best_g) best = b, best_g = std::abs(g);
        if (g > 0) {
            lo = b, g_lo = g;
            if (side == -1) g_hi /= 2;
            side = -1;
        } else {
            hi = b, g_hi = g;
            if (side == 1) g_lo /= 2;
            side = 1;
        }
    }
    return best;
}

// The copies on the GPUs given at the traffic's peak: the fixed point of b = lambda x S(b), where S(b)
// is the time a request spends in a copy serving b sequences (one continuous-batching cycle: its
// prompt's prefill among the b, and output_tokens decode steps; Little 1961). S grows with b, and the
// copy keeps up (lambda < b_max / S(b_max)), so iterating from one sequence rises to the fixed point.
std::optional<InferenceResult::AtTraffic> at_traffic(const Model& x, const InferenceResult& r) {
    const InferenceConfig& c = x.cfg;
    if (!r.fits || c.disaggregated || c.requests_per_day <= 0 || r.replicas < 1 || r.batch < 1) return std::nullopt;
    const double lambda = peak_requests_per_second(c) / r.replicas;
    const Cycle full = cycle(x, r.batch);
    const double capacity = full.rate;                           // requests/s of a copy at the batch served at full load
    if (lambda > capacity * (1.0 + 1e-12)) return std::nullopt;  // saturated: the page says how many GPUs are needed
    const double b = traffic_batch(x, lambda, r.batch, full.seconds);
    const Cycle y = cycle(x, std::max(1.0, b));
    InferenceResult::AtTraffic a;
    a.batch = b;
    a.tpot_seconds = y.tpot;
    a.output_tokens_per_second_per_user = safe_div(1.0, y.tpot);
    a.utilization = safe_div(lambda, capacity);
    a.concurrent_sequences = r.replicas * b;
    // Below the copy's capacity the prefill queue is stable: lambda x prefill <= b / S(b) x prefill < 1.
    a.ttft_seconds = ttft(y, lambda, r.kv_transfer_seconds).value_or(0);
    return a;
}

// Derivation of the traffic that concurrent requests imply (Little's law).
GPUCALC_COLD void explain_concurrency(Trace& trace, const Model& x, const InferenceResult& r) {
    if (!r.implied_requests_per_day) return;
    trace.add("inference.implied_requests_per_day",
              "concurrent_requests / seconds a request spends in a copy holding its share (concurrent_requests / "
              "ceil(concurrent_requests / batch)) x 86400 / peak_to_average",
              {{"concurrent_requests", r.config.concurrent_requests},
               {"copies", r.concurrency_copies},
               {"share_per_copy", r.config.concurrent_requests / r.concurrency_copies},
               {"request_seconds", r.concurrency_request_seconds},
               {"batch", r.batch},
               {"peak_to_average", x.cfg.peak_to_average}},
              *r.implied_requests_per_day, "requests/day",
              "Little's law (Little 1961, Operations Research 9(3)): requests in flight = arrival rate x time in the system");
}

// Derivation of the operating point at the traffic (at_traffic).
GPUCALC_COLD void explain_at_traffic(Trace& trace, const Model& x, const InferenceResult& r) {
    if (!r.at_traffic) return;
    const InferenceConfig& c = x.cfg;
    const double lambda = peak_requests_per_second(c) / r.replicas;
    trace.add("inference.at_traffic.batch",
              "b = lambda x S(b): peak requests/s per copy x seconds a request spends in a copy of b sequences",
              {{"requests_per_day", c.requests_per_day},
               {"peak_to_average", c.peak_to_average},
               {"replicas", r.replicas},
               {"lambda_per_copy", lambda},
               {"request_cycle_seconds", r.at_traffic->tpot_seconds * static_cast<double>(c.output_tokens)}},
              r.at_traffic->batch, "sequences",
              "Little's law (Little 1961, Operations Research 9(3)); continuous batching (Yu et al. 2022, Orca)");
}

// Derivations of the prefill copies and the KV cache's transfer with separate prefill and decode copies.
void explain_disaggregation(Trace& trace, const Model& x, const Cycle& y, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    trace.add("inference.disaggregation.prefill_instances", "ceil(peak requests/s x S_prefill_work / load_cap)",
              {{"peak_requests_per_second", peak_requests_per_second(cfg)}, {"S_prefill_work", y.prefill_busy}, {"load_cap", kPrefillLoad}},
              r.prefill_instances, "copies",
              "load_cap 2/3: the M/D/1 mean wait rho S / (2 (1 - rho)) is then at most one prefill S (Pollaczek-Khinchine)");
    trace.add("inference.disaggregation.kv_transfer_seconds",
              "(cached prompt tokens x KV bytes per token per device + the draft's) / scale-out link",
              {{"prompt_tokens", static_cast<double>(cfg.prompt_tokens)},
               {"cached_prompt_tokens", x.kv_context(static_cast<double>(cfg.prompt_tokens))},
               {"kv_cache_bytes_per_token_per_gpu", x.kv_token_gpu},
               {"draft_cached_prompt_tokens", x.draft_context(static_cast<double>(cfg.prompt_tokens))},
               {"draft_kv_cache_bytes_per_token_per_gpu", x.draft_kv_token_gpu()},
               {"scale_out_bytes_per_second_x_network", x.out_link}},
              r.kv_transfer_seconds, "s", "each tensor-parallel rank sends its own share of the KV cache over its own link");
}

// Derivation of one prompt's prefill on an idle instance (prefill_alone) and of its compute (prefill_work).
GPUCALC_COLD void explain_prefill(Trace& trace, const Model& x, const Cycle& y) {
    const InferenceConfig& cfg = x.cfg;
    const Model::PrefillAlone& p = y.prefill_parts;
    // The compute's terms, as prefill_alone computed them (p.compute = w.total()).
    Model::PrefillTerms w;
    const auto [cached, fresh] = prompt_split(cfg);
    const Model::PrefillWork work = x.prefill_work(fresh, cached, &w);
    trace.add("inference.prefill_seconds",
              "(max(compute, weights_pass) + kernels + tp_latency + ep_latency) x draft_prefill_factor; compute = rank + group + routed, "
              "rank = gemm_replicated + attention_rank, group = gemm_split + gemm_head + attention_split + host_offload + tp_comm + "
              "ep_comm, routed = gemm_routed; over tokens = prompt_tokens x (1 - prefix_cache_hit_rate) uncached tokens at "
              "gemm_flops = peak x gemm_efficiency: gemm_replicated = 2 x tokens x params_replicated / gemm_flops (the attention DP "
              "attention replicates), gemm_split = 2 x tokens x params_split / tp / gemm_flops x gpu_layer_fraction, gemm_head = 2 x "
              "params_head / tp / gemm_flops (the last token's logits), gemm_routed = 2 x tokens x params_routed / gpus / gemm_flops x "
              "gpu_layer_fraction (the routed experts' top-k), attention = attention_flops / (peak_16bit x attention_efficiency) on the "
              "rank with replicated attention (attention_rank), else / tp (attention_split); host_offload: the layers in host memory; "
              "tp_comm, ep_comm: the prompt's all-reduces and all-to-alls; weights_pass: one pass over the weights its tokens use (an "
              "MoE's experts they reach); kernels, latencies: one step's; draft_prefill_factor: 1 + draft_params / active params with a "
              "speculative draft, which prefills the prompt too",
              {{"prompt_tokens", static_cast<double>(cfg.prompt_tokens)},
               {"prefix_cache_hit_rate", cfg.prefix_cache_hit_rate},
               {"compute", p.compute},
               {"weights_pass", p.weights_pass},
               {"kernels", p.kernels},
               {"tp_latency", p.tp_latency},
               {"ep_latency", p.ep_latency},
               {"draft_prefill_factor", x.draft_prefill_factor()},
               {"rank", work.rank},
               {"group", work.group},
               {"routed", work.routed},
               {"gemm_replicated", w.gemm_replicated},
               {"attention_rank", w.attention_rank},
               {"gemm_split", w.gemm_split},
               {"gemm_head", w.gemm_head},
               {"attention_split", w.attention_split},
               {"host_offload", w.host},
               {"tp_comm", w.tp_comm},
               {"ep_comm", w.ep_comm},
               {"gemm_routed", w.gemm_routed},
               {"tokens", w.tokens},
               {"params_replicated", w.params_replicated},
               {"params_split", w.params_split},
               {"params_head", w.params_head},
               {"params_routed", w.params_routed},
               {"attention_flops", w.attention_flops},
               {"tp", x.t},
               {"gpus", x.gpus},
               {"gpu_layer_fraction", x.gpu_layer_fraction},
               {"peak", x.peak},
               {"gemm_efficiency", x.gemm_eff()},
               {"peak_16bit", x.peak16},
               {"attention_efficiency", x.eff.attention}},
              y.prefill_alone, "s",
              "2 FLOPs per parameter per token (Kaplan et al. 2020); draft: vLLM v0 spec_decode_worker.py _run_no_spec (the prompt goes "
              "to the proposer and the scorer)");
}

// Derivations of prefill, throughput, TPOT, TTFT and what the cluster serves.
GPUCALC_COLD void explain_speeds(Trace& trace, const Model& x, const Cycle& y, const Traffic& tr, const InferenceResult& r) {
    const InferenceConfig& cfg = x.cfg;
    const double b = r.batch, G = x.gpus, lambda = tr.lambda;
    const double isl = static_cast<double>(cfg.prompt_tokens), osl = static_cast<double>(cfg.output_tokens);
    explain_prefill(trace, x, y);
    trace.add("inference.prefill_tokens_per_second_per_gpu",
              "prompt_tokens / (prefill per request on the instance x instance devices); prefill per request = rank work / devices + "
              "group work / ep + routed experts' work (every EP group, and with DP attention every rank, prefills its own requests)",
              {{"prompt_tokens", isl}, {"prefill_compute_per_request", y.prefill_busy}, {"instance_gpus", G}, {"ep", x.ep}},
              r.prefill_tokens_per_second_per_gpu, "tokens/s", "SGLang large-scale EP prefill (lm-sys blog 2025-05-05)");
    trace.add("inference.throughput_tokens_per_second_per_instance",
              cfg.disaggregated ? "batch x output_tokens / (output_tokens x decode step)"
                                : "batch x output_tokens / (output_tokens x decode step + batch x prefill compute per request)",
              {{"batch", b}, {"output_tokens", osl}, {"decode_step", y.step}, {"prefill_compute_per_request", y.prefill_busy}},
              r.throughput_tokens_per_second_per_instance, "tokens/s", "continuous batching (Yu et al. 2022, Orca; vLLM)");
    trace.add("inference.throughput_tokens_per_second_per_gpu", "throughput per instance / devices per instance",
              {{"throughput_tokens_per_second_per_instance", r.throughput_tokens_per_second_per_instance}, {"instance_gpus", G}},
              r.throughput_tokens_per_second_per_gpu, "tokens/s", "a copy's throughput shared by its tp x ep devices");
    trace.add("inference.tpot_seconds",
              cfg.disaggregated ? "decode step" : "(output_tokens x decode step + batch x prefill per request) / output_tokens",
              {{"decode_step", y.step}, {"prefill_compute_per_request", y.prefill_busy}, {"batch", b}, {"output_tokens", osl}},
              r.tpot_seconds, "s",
              "continuous batching (Yu et al. 2022, Orca): the copy's steps also run its new requests' prefills (none with separate "
              "prefill copies)");
    trace.add("inference.ttft_seconds",
              "prefill of one prompt + decode step / 2 + rho x S / (2 (1 - rho)) + KV transfer; rho = arrivals/s x S",
              {{"prefill_seconds", r.prefill_seconds},
               {"S_prefill_work", y.prefill_busy},
               {"arrivals_per_second_per_instance", lambda},
               {"decode_step", y.step},
               {"kv_transfer_seconds", r.kv_transfer_seconds}},
              r.ttft_seconds, "s", "M/D/1 queue (Pollaczek-Khinchine mean waiting time)");
    // The whole request and one user's speed (the report gave them with no derivation).
    trace.add(
        "inference.request_seconds", "ttft_seconds + output_tokens x tpot_seconds",
        {{"ttft_seconds", r.ttft_seconds}, {"output_tokens", static_cast<double>(cfg.output_tokens)}, {"tpot_seconds", r.tpot_seconds}},
        r.request_seconds, "s", "the first token, then one token per step of the copy");
    trace.add("inference.output_tokens_per_second_per_user", "1 / tpot_seconds", {{"tpot_seconds", r.tpot_seconds}},
              r.output_tokens_per_second_per_user, "tokens/s", "one token per sequence per step, prefills interleaved");
    if (cfg.disaggregated) explain_disaggregation(trace, x, y, r);
    trace.add("inference.cluster_throughput_tokens_per_second", "replicas x throughput per instance",
              {{"replicas", r.replicas}, {"throughput_tokens_per_second_per_instance", r.throughput_tokens_per_second_per_instance}},
              r.cluster_throughput_tokens_per_second, "tokens/s", "replicas = floor(devices / (tp x ep))");
    trace.add("inference.concurrent_sequences", "replicas x batch", {{"replicas", r.replicas}, {"batch", b}}, r.concurrent_sequences,
              "sequences", "each copy runs batch sequences at once (continuous batching)");
}

// Derivation of the tokens per speculative-decoding step.
GPUCALC_COLD void explain_speculative(Trace& trace, const InferenceConfig& cfg, const InferenceResult& r) {
    if (cfg.speculative)
        trace.add("inference.speculative.tokens_per_step", "(1 - alpha^(gamma + 1)) / (1 - alpha)",
                  {{"alpha", cfg.speculative->acceptance_rate}, {"gamma", static_cast<double>(cfg.speculative->draft_tokens)}},
                  r.speculative_tokens_per_step, "tokens", "Leviathan et al. 2023 (arXiv:2211.17192) Eq. 1");
}

// inference.tp when omitted: the fewest GPUs per copy. The TP sizes tried are those the heads allow
// (heads_allow_tp) with tp x ep within hardware.count (twice that for separate prefill and decode
// copies) and at most 64: the powers of two smallest first, then the other sizes (a model whose
// heads no power of two divides beyond a point: 52 heads, 13 and 26). The first whose weights per
// device take at most kAutoTpWeightShare of the usable memory and whose KV-cache pool holds the batch
// (the given one, else one sequence; unknown without an architecture) is chosen: the rest of the
// memory holds the engine's overhead and a KV-cache pool of useful size. Failing that, the first that
// holds the batch at all; failing that, the largest power of two tried (the answer says it does not fit).
constexpr double kAutoTpWeightShare = 0.8;  // a design rule, not a measurement: a fifth of the memory left beyond the weights
Count automatic_tp(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const InferenceEfficiency& constants) {
    const double ep = m.is_moe() ? static_cast<double>(cfg.ep) : 1.0, copies = cfg.disaggregated ? 2.0 : 1.0;
    const double need = cfg.batch ? static_cast<double>(*cfg.batch) : 1.0;
    std::vector<Count> sizes, others;
    for (Count tp = 1; tp <= 64 && static_cast<double>(tp) * ep * copies <= static_cast<double>(hw.count); ++tp) {
        if (tp_size_tried(m, tp)) ((tp & (tp - 1)) == 0 ? sizes : others).push_back(tp);
    }
    const Count largest = sizes.empty() ? 1 : sizes.back();
    sizes.insert(sizes.end(), others.begin(), others.end());
    // Inside a node first: a size that holds the batch there, even above the weight share, before one
    // whose all-reduces cross the network (DeepSeek-V3 on 16 B200: TP 8 holds 238 sequences with 87 % of
    // the memory in weights, and TP 16 over InfiniBand ran at 460 ms per token where TP 8 runs at 46,
    // needing 64 GPUs for the traffic instead of 16; a red team). vLLM's guide likewise keeps tensor
    // parallelism inside a node and spans nodes with pipeline parallelism. Across nodes, the fewest
    // devices that hold the batch (DeepSeek-V3 in FP8 on L4: TP 32 holds it; with 64 given, TP 64 met
    // the weight share and needed 1,088 GPUs for the traffic instead of 864).
    const Count node = std::max<Count>(1, hw.devices_per_node);
    std::optional<Count> holds_in_node, holds_across;
    for (Count tp : sizes) {
        InferenceConfig c = cfg;
        c.tp = tp;
        const Model x(m, hw, c, constants);
        const Fit f = fit(x);
        const bool kv_known = m.has_architecture && x.gpu_layer_fraction > 0;
        const bool batch_fits = f.free_for_kv > 0 && (!kv_known || f.max_batch >= need);
        if (!batch_fits) continue;
        if (tp > node) {
            if (!holds_across) holds_across = tp;
            continue;
        }
        if (f.weights_per_gpu <= kAutoTpWeightShare * x.capacity) return tp;
        if (!holds_in_node) holds_in_node = tp;
    }
    return holds_in_node ? *holds_in_node : holds_across.value_or(largest);
}

// What the cluster can serve: whole copies of the GPUs given, and the GPUs left over said.
void cluster_figures(InferenceResult& r, const Model& x, const Hardware& hw) {
    r.replicas = r.fits ? std::floor(static_cast<double>(hw.count) / x.gpus) : 0;
    if (r.fits && r.replicas * x.gpus < static_cast<double>(hw.count))
        r.warnings.push_back(jr::fmt_num(static_cast<double>(hw.count) - r.replicas * x.gpus) + " of the " +
                             jr::fmt_num(static_cast<double>(hw.count)) + " GPUs are left idle: each copy takes " + jr::fmt_num(x.gpus) +
                             " (inference.tp x inference.ep)");
    r.cluster_throughput_tokens_per_second = r.replicas * r.throughput_tokens_per_second_per_instance;
    r.concurrent_sequences = r.replicas * r.batch;
}

// For a copy that does not fit: the fewest devices per copy (every size the heads allow, up to 64)
// on which the weights and the batch fit, and only the ways out that apply (a reviewer: "use ...
// a smaller batch" where the weights alone were over the memory, and no count named).
GPUCALC_COLD void what_would_fit(InferenceResult& r, const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg,
                                 const InferenceEfficiency& constants, const Fit& given) {
    // (Every size the heads allow, as automatic_tp tries them: 52 heads fit on 13 T4 where no power of
    // two does; the batch given must fit too; a copy is tp x ep devices, twice with separate prefill
    // and decode: the red team's checks of the first version.)
    const Count from = cfg.tp.value_or(1);
    const double need = static_cast<double>(cfg.batch.value_or(1));
    for (Count tp = from + 1; tp <= 64 && cfg.weight_format == WeightFormat::native && !cfg.gpu_layers; ++tp) {
        if (!tp_size_tried(m, tp)) continue;
        InferenceConfig c = cfg;
        c.tp = tp;
        Hardware h = hw;
        h.count = std::max<Count>(h.count, tp * cfg.ep * (cfg.disaggregated ? 2 : 1));
        const Model x(m, h, c, constants);
        const Fit f = fit(x);
        if (f.free_for_kv > 0 && (!m.has_architecture || f.max_batch >= need)) {
            r.fits_with_tp = static_cast<double>(tp);
            break;
        }
    }
    std::vector<std::string> others;
    for (const char* w : {"a smaller batch", "lower precision", "CPU offload"})
        if (std::string_view(w) != "a smaller batch" || ((given.free_for_kv > 0 || !r.fits_with_tp) && cfg.batch.value_or(2) > 1))
            others.emplace_back(w);
    const std::string use = "use " + jr::or_list(others);
    const std::string tp = r.fits_with_tp ? jr::fmt_num(*r.fits_with_tp) : "";
    r.infeasible_reason += r.fits_with_tp ? " (it fits with inference.tp = " + tp + "; or " + use + ")" : " (" + use + ")";
}

// With traffic to size, the automatic size is the one inside a node (a power of two the heads allow,
// within hardware.count) that needs the fewest GPUs for the traffic, else automatic_tp's: DeepSeek-V3
// in FP8 on B200 at 1e6 requests a day answered TP 4 and 4 GPUs with 4 given, and TP 8 and 8 GPUs
// with 8 or more given (a red team): the rule's weight share is not what the traffic costs.
Count fewest_gpus_tp(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs,
                     const InferenceEfficiency& constants, Count rule) {
    // (GPUs for the traffic, then the time per output token: as many GPUs, the faster answer.)
    const auto cost_of = [&](Count tp) {
        InferenceConfig c = cfg;
        c.tp = tp;
        Trace none(false);
        const InferenceResult r = estimate_inference(m, hw, c, costs, none, constants);
        const double inf = std::numeric_limits<double>::infinity();
        return r.fits && r.requests_per_day_sized > 0 ? std::pair{r.gpus_needed, r.tpot_seconds} : std::pair{inf, inf};
    };
    const double ep = m.is_moe() ? static_cast<double>(cfg.ep) : 1.0, copies = cfg.disaggregated ? 2.0 : 1.0;
    const Count node = std::max<Count>(1, hw.devices_per_node);
    Count best = rule;
    auto fewest = cost_of(rule);
    for (Count tp = 1; tp <= std::min<Count>(node, 64) && static_cast<double>(tp) * ep * copies <= static_cast<double>(hw.count); tp *= 2) {
        if (tp == rule || !heads_allow_tp(m, static_cast<double>(tp))) continue;
        const auto g = cost_of(tp);
        if (g < fewest) best = tp, fewest = g;
    }
    return best;
}

// Derivation of an automatic inference.tp.
GPUCALC_COLD void explain_tp(Trace& trace, const Model& x, const Fit& f, const InferenceResult& r, const Hardware& hw) {
    if (!r.tp_chosen) return;
    trace.add("inference.tp",
              "the first of the sizes the heads allow (1, 2, 4, ... then the others; tp x ep, x 2 with separate prefill and decode, "
              "<= hardware.count) with weights_per_gpu <= share x usable memory and the batch's KV cache in the pool (else the "
              "first that holds the batch) inside a node (devices_per_node); else the first across nodes that holds the batch; with "
              "traffic, the power of two inside a node that needs the fewest GPUs for it (then the shortest time per output token)",
              {{"share", kAutoTpWeightShare},
               {"weights_per_gpu_bytes", f.weights_per_gpu},
               {"usable_memory_bytes", x.capacity},
               {"ep", x.ep},
               {"count", static_cast<double>(hw.count)},
               {"devices_per_node", static_cast<double>(hw.devices_per_node)}},
              x.t, "devices", "gpucalc's rule (inference.cpp automatic_tp): a fifth of the memory beyond the weights");
}

}  // namespace

InferenceResult estimate_inference(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs, Trace& trace) {
    return estimate_inference(m, hw, cfg, costs, trace, InferenceEfficiency{});
}

// Traffic given as requests in flight: the copies that hold them (ceil(concurrent / batch)), each
// serving its share, and the arrival rate that keeps them in flight there (Little's law); it becomes
// the traffic (x.cfg.requests_per_day) that the sizing, costs and the operating point use.
void traffic_from_concurrency(InferenceResult& r, Model& x) {
    if (x.cfg.concurrent_requests > 0 && r.fits && r.batch >= 1) {
        const double copies = std::ceil(x.cfg.concurrent_requests / r.batch);
        const double seconds = cycle(x, std::max(1.0, x.cfg.concurrent_requests / copies)).seconds;
        if (seconds > 0) {
            r.concurrency_copies = copies;
            r.concurrency_request_seconds = seconds;
            r.implied_requests_per_day = x.cfg.concurrent_requests / seconds * units::seconds_per_day / x.cfg.peak_to_average;
            x.cfg.requests_per_day = *r.implied_requests_per_day;
        }
    }
}

InferenceResult estimate_inference(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs, Trace& trace,
                                   const InferenceEfficiency& constants) {
    InferenceResult r;
    r.config = cfg;
    // An omitted tp is chosen here and reported (inference.tp, tp_source); the echo keeps it omitted,
    // as the batch, so that it is chosen again from the echo.
    r.tp_chosen = !cfg.tp;
    InferenceConfig c = cfg;
    if (r.tp_chosen) c.tp = automatic_tp(m, hw, cfg, constants);
    if (r.tp_chosen && (cfg.requests_per_day > 0 || cfg.concurrent_requests > 0) && !cfg.slo)
        c.tp = fewest_gpus_tp(m, hw, cfg, costs, constants, *c.tp);
    r.tp = static_cast<double>(*c.tp);
    Model x(m, hw, c, constants);  // its traffic is set below when concurrency gives it
    const Fit f = fit(x);
    memory_figures(r, x, f);
    choose_batch(r, x, f);
    const Occupancy o = memory_use(r, x, f, hw);
    if (!r.fits) what_would_fit(r, m, hw, c, constants, f);

    // Decode, prefill, the continuous-batching cycle.
    const Cycle y = cycle(x, r.batch);
    speed_figures(r, x, y);
    r.turn_batch = turn_batch(x);
    r.curve = batch_curve(x, r.max_batch, r.batch);

    cluster_figures(r, x, hw);
    traffic_from_concurrency(r, x);
    r.requests_per_day_sized = x.cfg.requests_per_day;

    // Traffic sizing (peak provisioning), TTFT at the peak, costs.
    const Traffic tr = traffic_and_costs(r, x, y, hw, costs);
    latency_figures(r, m, hw, c, y, tr.lambda);
    r.at_traffic = at_traffic(x, r);
    // The latency target holds with or without traffic (the time per token is the batch's, not the load's).
    if (cfg.latency_target_seconds_per_token && r.tpot_seconds > *cfg.latency_target_seconds_per_token)
        r.warnings.push_back("time per output token " + jr::fmt_num(r.tpot_seconds) +
                             " s exceeds the latency target: lower the batch or raise inference.tp");

    if (trace.enabled()) {
        explain_weights_and_kv(trace, x, r);
        explain_tp(trace, x, f, r, hw);
        explain_batch(trace, x, f, r);
        explain_decode_step(trace, x, y, r);
        explain_decode_terms(trace, x, y, r);
        explain_speeds(trace, x, y, tr, r);
        explain_memory_use(trace, x, o, r);
        explain_draft(trace, x, o, r);
        explain_decode_bound(trace, x, y, r);
        explain_costs(trace, x, y, tr, costs, r);
        explain_speculative(trace, cfg, r);
        explain_at_traffic(trace, x, r);
        explain_concurrency(trace, x, r);
    }
    return r;
}

}  // namespace gpucalc
