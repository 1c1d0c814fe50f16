// Exact parameter counts from architecture, training/inference FLOPs per token, model presets.
#include "gpucalc/model.hpp"

#include <algorithm>
#include <cmath>

namespace gpucalc {

namespace {
double head_dim_of(const ModelSpec& m) { return m.head_dim > 0 ? m.head_dim : m.hidden / m.heads; }
double norm_vectors(const ModelSpec& m) { return m.rmsnorm ? 1.0 : 2.0; }
// Parameters of one FFN of inner width f (2 matrices for GELU/ReLU, 3 for gated SwiGLU).
double ffn_params(const ModelSpec& m, double f) {
    const double h = m.hidden;
    if (m.ffn_kind == FfnKind::swiglu) return 3.0 * h * f + (m.biases ? 2.0 * f + h : 0.0);
    return 2.0 * h * f + (m.biases ? f + h : 0.0);
}
}  // namespace

ParamCount count_params(const ModelSpec& m) {
    ParamCount c;
    if (!m.has_architecture) {
        c.total = m.params;
        c.active = m.active_params > 0 ? m.active_params : m.params;
        return c;
    }
    const double h = m.hidden;
    const double hd = head_dim_of(m);
    // Attention block.
    if (m.is_mla()) {
        // DeepSeek-V2 (arXiv:2405.04434) Sec. 2.1.2 / DeepSeek-V3 config: low-rank Q and joint KV
        // compression with a decoupled RoPE key.
        const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
        const double q = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * m.heads * qk : h * m.heads * qk;
        const double kv =
            h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank + m.kv_lora_rank * m.heads * (m.qk_nope_head_dim + m.v_head_dim);
        const double o = m.heads * m.v_head_dim * h;
        c.attention_per_layer = q + kv + o;
    } else {
        const double q = h * m.heads * hd, kv = 2.0 * h * m.kv_heads * hd, o = m.heads * hd * h;
        const double bias = m.biases ? m.heads * hd + 2.0 * m.kv_heads * hd + h : 0.0;
        const double sinks = m.attention_sinks ? m.heads : 0.0;
        const double qk_norm = m.qk_norm ? 2.0 * norm_vectors(m) * hd : 0.0;
        c.attention_per_layer = q + kv + o + bias + sinks + qk_norm;
    }
    c.norms_per_layer = (m.parallel_attention ? 1.0 : 2.0) * (m.sandwich_norms ? 2.0 : 1.0) * norm_vectors(m) * h;
    c.mlp_dense_per_layer = ffn_params(m, m.ffn_hidden);
    double moe_layers = 0, dense_layers = m.layers;
    if (m.is_moe()) {
        const double one = ffn_params(m, m.expert_ffn_hidden > 0 ? m.expert_ffn_hidden : m.ffn_hidden);
        const double router = h * m.experts + (m.router_bias ? m.experts : 0.0);
        c.expert_per_layer = one;
        c.mlp_moe_per_layer_total = (m.experts + m.shared_experts) * one + router;
        c.mlp_moe_per_layer_active = (m.experts_per_token + m.shared_experts) * one + router;
        dense_layers = std::min(m.dense_layers, m.layers);
        moe_layers = m.layers - dense_layers;
    }
    c.embedding = m.vocab * h * (m.tied_embeddings ? 1.0 : 2.0) + (m.pos == PosEmbedding::learned ? m.seq_len * h : 0.0);
    const double final_norm = norm_vectors(m) * h * (m.embedding_norm ? 2.0 : 1.0);
    const double common =
        m.layers * (c.attention_per_layer + c.norms_per_layer) + dense_layers * c.mlp_dense_per_layer + c.embedding + final_norm;
    c.total = common + moe_layers * c.mlp_moe_per_layer_total;
    c.active = common + moe_layers * c.mlp_moe_per_layer_active;
    return c;
}

// Parameters that take part in matrix multiplies per token: active parameters less the input
// embedding lookup when it is not shared with the output layer, and less a learned position table.
static double matmul_params(const ModelSpec& m) {
    const ParamCount c = count_params(m);
    if (!m.has_architecture) return c.active;
    double p = c.active;
    if (!m.tied_embeddings) p -= m.vocab * m.hidden;
    if (m.pos == PosEmbedding::learned) p -= m.seq_len * m.hidden;
    return p;
}

double attended_tokens(const ModelSpec& m, double ctx) {
    if (!(m.sliding_window > 0) || !(m.layers > 0)) return ctx;
    const double full = std::min(m.full_attention_layers, m.layers);
    return (full * ctx + (m.layers - full) * std::min(m.sliding_window, ctx)) / m.layers;
}

double pattern_full_attention_layers(const ModelSpec& m) { return std::floor(m.layers / m.full_attention_period); }

double attention_flops_per_token_training(const ModelSpec& m) {
    if (!m.has_architecture) return 0.0;
    // PaLM App. B: 6N + 12 L H Q T; generalised to qk/v head widths (MLA) and sliding windows.
    const double qk = m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : head_dim_of(m);
    const double v = m.is_mla() ? m.v_head_dim : head_dim_of(m);
    const double t = attended_tokens(m, m.seq_len);
    return 6.0 * m.layers * m.heads * (qk + v) * t;  // = 12 L H Q T when qk = v = Q
}

double model_flops_per_token_training(const ModelSpec& m) { return 6.0 * matmul_params(m) + attention_flops_per_token_training(m); }

double forward_flops_per_token(const ModelSpec& m, double context_tokens) {
    if (!m.has_architecture) return 2.0 * count_params(m).active;
    const double qk = m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : head_dim_of(m);
    const double v = m.is_mla() ? m.v_head_dim : head_dim_of(m);
    const double t = attended_tokens(m, context_tokens);
    return 2.0 * matmul_params(m) + 2.0 * m.layers * m.heads * (qk + v) * t;
}

namespace {

ModelSpec gpt(const char* name, double layers, double hidden, double heads, double vocab, double seq) {
    ModelSpec m;
    m.name = name;
    m.has_architecture = true;
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.ffn_hidden = 4 * hidden;
    m.vocab = vocab;
    m.seq_len = seq;
    m.tied_embeddings = true;
    m.biases = true;
    m.pos = PosEmbedding::learned;
    m.dropout = true;  // GPT-3, Megatron and OPT trained with dropout 0.1
    return m;
}

ModelSpec llama(const char* name, double layers, double hidden, double heads, double kv, double ffn, double vocab, double seq) {
    ModelSpec m;
    m.name = name;
    m.has_architecture = true;
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = kv;
    m.ffn_hidden = ffn;
    m.ffn_kind = FfnKind::swiglu;
    m.vocab = vocab;
    m.seq_len = seq;
    m.tied_embeddings = false;
    m.biases = false;
    m.rmsnorm = true;
    m.pos = PosEmbedding::rope;
    return m;
}

ModelSpec neox(const char* name, double layers, double hidden, double heads, double vocab) {
    ModelSpec m = gpt(name, layers, hidden, heads, vocab, 2048);
    m.dropout = false;  // Pythia: no dropout (EleutherAI configs)
    m.tied_embeddings = false;
    m.pos = PosEmbedding::rope;
    return m;
}

// GPT-style presets: GPT-3, the Megatron-LM 2021 benchmark models, OPT and BLOOM.
void add_gpt_presets(std::vector<ModelPreset>& p) {
    // GPT-3: Brown et al. 2020 (arXiv:2005.14165) Table 2.1; vocab 50257, learned positions.
    p.push_back(
        {"gpt3-175b", gpt("GPT-3 175B", 96, 12288, 96, 50257, 2048), 174.6e9, "Brown et al. 2020, arXiv:2005.14165, Table D.1 (174,600M)"});
    // Megatron-LM 2021 benchmark models: Narayanan et al. 2021 (arXiv:2104.04473) Table 1, vocab 51,200.
    struct Row {
        const char* id;
        const char* name;
        double heads, hidden, layers, published;
    };
    const Row rows[] = {{"megatron-1.7b", "GPT 1.7B (Megatron 2021)", 24, 2304, 24, 1.7e9},
                        {"megatron-3.6b", "GPT 3.6B (Megatron 2021)", 32, 3072, 30, 3.6e9},
                        {"megatron-7.5b", "GPT 7.5B (Megatron 2021)", 32, 4096, 36, 7.5e9},
                        {"megatron-18b", "GPT 18.4B (Megatron 2021)", 48, 6144, 40, 18.4e9},
                        {"megatron-39b", "GPT 39.1B (Megatron 2021)", 64, 8192, 48, 39.1e9},
                        {"megatron-76b", "GPT 76.1B (Megatron 2021)", 80, 10240, 60, 76.1e9},
                        {"megatron-145b", "GPT 145.6B (Megatron 2021)", 96, 12288, 80, 145.6e9},
                        {"megatron-310b", "GPT 310.1B (Megatron 2021)", 128, 16384, 96, 310.1e9},
                        {"megatron-530b", "GPT 529.6B (Megatron 2021)", 128, 20480, 105, 529.6e9},
                        {"megatron-1t", "GPT 1.008T (Megatron 2021)", 160, 25600, 128, 1008e9}};
    for (const auto& r : rows)
        p.push_back(
            {r.id, gpt(r.name, r.layers, r.hidden, r.heads, 51200, 2048), r.published, "Narayanan et al. 2021, arXiv:2104.04473, Table 1"});
    // OPT-175B: Zhang et al. 2022 (arXiv:2205.01068) Table 1; ReLU MLP (2 matrices), learned positions.
    {
        ModelSpec m = gpt("OPT-175B", 96, 12288, 96, 50272, 2048);
        p.push_back({"opt-175b", m, 175e9, "Zhang et al. 2022, arXiv:2205.01068, Table 1"});
    }
    // BLOOM-176B: BigScience 2022 (arXiv:2211.05100) Table 3; ALiBi, vocab 250,880, tied.
    {
        ModelSpec m = gpt("BLOOM-176B", 70, 14336, 112, 250880, 2048);
        m.pos = PosEmbedding::alibi;
        m.embedding_norm = true;
        m.dropout = false;  // BLOOM: hidden and attention dropout 0.0 (bigscience/bloom config.json)
        p.push_back({"bloom-176b", m, 176247271424.0, "BigScience 2022, arXiv:2211.05100 (176,247M parameters)"});
    }
}

// LLaMA 1, Llama 2 and Llama 3 / 3.1.
void add_llama_presets(std::vector<ModelPreset>& p) {
    // LLaMA 1: Touvron et al. 2023 (arXiv:2302.13971) Table 2.
    p.push_back({"llama-7b", llama("LLaMA 7B", 32, 4096, 32, 32, 11008, 32000, 2048), 6.7e9, "arXiv:2302.13971 Table 2"});
    p.push_back({"llama-13b", llama("LLaMA 13B", 40, 5120, 40, 40, 13824, 32000, 2048), 13.0e9, "arXiv:2302.13971 Table 2"});
    p.push_back({"llama-33b", llama("LLaMA 33B", 60, 6656, 52, 52, 17920, 32000, 2048), 32.5e9, "arXiv:2302.13971 Table 2"});
    p.push_back({"llama-65b", llama("LLaMA 65B", 80, 8192, 64, 64, 22016, 32000, 2048), 65.2e9, "arXiv:2302.13971 Table 2"});
    // Llama 2: HF configs; published totals from safetensors include 64 rotary inv_freq buffers per
    // layer, which are not parameters (7B: 6,738,417,664 - 32 x 64).
    p.push_back({"llama2-7b", llama("Llama 2 7B", 32, 4096, 32, 32, 11008, 32000, 4096), 6738417664.0 - 32 * 64,
                 "meta-llama/Llama-2-7b-hf safetensors total 6,738,417,664 less 2,048 rotary buffers"});
    p.push_back({"llama2-13b", llama("Llama 2 13B", 40, 5120, 40, 40, 13824, 32000, 4096), 13015866880.0 - 40 * 64,
                 "meta-llama/Llama-2-13b-hf safetensors total 13,015,866,880 less 2,560 rotary buffers"});
    p.push_back({"llama2-70b", llama("Llama 2 70B", 80, 8192, 64, 8, 28672, 32000, 4096), 68976653312.0 - 80 * 64,
                 "meta-llama/Llama-2-70b-hf safetensors total 68,976,653,312 less 5,120 rotary buffers"});
    // Llama 3 / 3.1: Dubey et al. 2024 (arXiv:2407.21783) Table 3 and HF configs.
    p.push_back({"llama3-8b", llama("Llama 3 8B", 32, 4096, 32, 8, 14336, 128256, 8192), 8030261248.0,
                 "meta-llama/Meta-Llama-3-8B (8,030,261,248)"});
    p.push_back({"llama3-70b", llama("Llama 3 70B", 80, 8192, 64, 8, 28672, 128256, 8192), 70553706496.0,
                 "meta-llama/Meta-Llama-3-70B (70,553,706,496)"});
    {
        // Served at 128K: the long-context stage after pretraining at 8K (arXiv:2407.21783 Sec. 3.4.2;
        // max_position_embeddings 131,072 in meta-llama/Llama-3.1-405B's config).
        ModelSpec m = llama("Llama 3.1 405B", 126, 16384, 128, 8, 53248, 128256, 8192);
        m.context_len = 131072;
        p.push_back({"llama3.1-405b", m, 405853388800.0, "meta-llama/Llama-3.1-405B (405,853,388,800)"});
    }
    // Llama 3.2 1B and 3B (meta-llama/Llama-3.2-1B and -3B config.json): GQA with 8 KV heads, tied
    // embeddings, 128K context; the small drafts of the Llama 3 family (speculative decoding).
    auto llama32 = [](const char* name, double layers, double hidden, double heads) {
        ModelSpec m = llama(name, layers, hidden, heads, 8, 8192, 128256, 8192);
        m.tied_embeddings = true;
        m.context_len = 131072;
        return m;
    };
    p.push_back({"llama3.2-1b", llama32("Llama 3.2 1B", 16, 2048, 32), 1235814400.0,
                 "meta-llama/Llama-3.2-1B config.json (1,235,814,400 in its safetensors)"});
    p.push_back({"llama3.2-3b", llama32("Llama 3.2 3B", 28, 3072, 24), 3212749824.0,
                 "meta-llama/Llama-3.2-3B config.json (3,212,749,824 in its safetensors)"});
}

// Mixture-of-experts presets: Mixtral 8x7B and DeepSeek-V3.
void add_moe_presets(std::vector<ModelPreset>& p) {
    // Mixtral 8x7B: Jiang et al. 2024 (arXiv:2401.04088) Table 1: 46.7B total, 12.9B active.
    {
        ModelSpec m = llama("Mixtral 8x7B", 32, 4096, 32, 8, 14336, 32000, 32768);
        m.experts = 8;
        m.experts_per_token = 2;
        m.expert_ffn_hidden = 14336;
        p.push_back({"mixtral-8x7b", m, 46702792704.0, "mistralai/Mixtral-8x7B-v0.1 (46,702,792,704); arXiv:2401.04088"});
    }
    // DeepSeek-V3: arXiv:2412.19437 Sec. 4.2: 61 layers, h 7168, MLA, 1 shared + 256 routed experts
    // (8 active), first 3 layers dense; 671B total, 37B active (MTP module excluded).
    {
        ModelSpec m = llama("DeepSeek-V3", 61, 7168, 128, 128, 18432, 129280, 4096);
        m.experts = 256;
        m.experts_per_token = 8;
        m.shared_experts = 1;
        m.expert_ffn_hidden = 2048;
        m.dense_layers = 3;
        m.router_bias = true;
        m.max_routed_nodes = 4;  // node-limited routing: each token to at most 4 nodes (arXiv:2412.19437 Sec. 2.1.2)
        m.q_lora_rank = 1536;
        m.kv_lora_rank = 512;
        m.qk_nope_head_dim = 128;
        m.qk_rope_head_dim = 64;
        m.v_head_dim = 128;
        m.context_len = 131072;  // extended from 4K to 32K and 128K with YaRN (arXiv:2412.19437 Sec. 4.3)
        m.released_weights = Precision::fp8;
        m.released_source =
            "DeepSeek-V3's weights are released in FP8 with 128 x 128 block scales (arXiv:2412.19437 Sec. 3.3; deepseek-ai/DeepSeek-V3 "
            "README)";
        p.push_back({"deepseek-v3", m, 671e9, "DeepSeek-AI 2024, arXiv:2412.19437 (671B total, 37B activated)"});
    }
}

// gpt-oss (OpenAI 2025): mixture of experts with biases everywhere (attention, router, experts), a
// learned sink logit per head, and 128-token sliding windows on every other layer (layer index even:
// gpt_oss/torch/model.py AttentionBlock, sliding_window = 128 if layer_idx % 2 == 0); SwiGLU experts
// as wide as the model, RMSNorm, untied embeddings, RoPE (YaRN to 131,072 from 4,096).
ModelSpec gpt_oss(const char* name, double layers, double experts) {
    ModelSpec m = llama(name, layers, 2880, 64, 8, 2880, 201088, 4096);
    m.head_dim = 64;
    m.biases = true;
    m.attention_sinks = true;
    m.sliding_window = 128;
    m.full_attention_period = 2;
    m.full_attention_layers = pattern_full_attention_layers(m);
    m.experts = experts;
    m.experts_per_token = 4;
    m.expert_ffn_hidden = 2880;
    m.router_bias = true;
    m.context_len = 131072;
    // Released with the MoE weights in MXFP4 (4-bit values, one 8-bit scale per 32): "gpt-oss-120b
    // ... fits on a single 80GB GPU" (OpenAI model card, arXiv:2508.10925 Sec. 2). Served here at fp4
    // throughout: the attention weights (~0.5B of 117B) are BF16 in the release, counted at 4 bits.
    m.released_weights = Precision::fp4;
    m.released_group = 32;
    m.released_source = "gpt-oss is released with its MoE weights in MXFP4 (arXiv:2508.10925 Sec. 2: 120b fits a single 80 GB GPU)";
    return m;
}

// Qwen3 (Qwen Team 2025, arXiv:2505.09388 Tables 1-2; Qwen/Qwen3-* config.json): GQA with head dim
// 128 and RMSNorm on queries and keys, no biases, untied embeddings; pretrained at 4,096 tokens, then
// 32,768 (Sec. 3.2; longer with YaRN, not the default).
ModelSpec qwen3(const char* name, double layers, double hidden, double kv, double ffn) {
    ModelSpec m = llama(name, layers, hidden, 64, kv, ffn, 151936, 4096);
    m.head_dim = 128;
    m.qk_norm = true;
    m.context_len = 32768;
    return m;
}

// Gemma 3 27B (Gemma Team 2025, arXiv:2503.19786; google/gemma-3-27b-it text_config): five local
// layers (1,024-token window) to one global, GQA 32/16 heads of 128, norms before and after attention
// and MLP plus q/k norms, gated GELU MLP (3 matrices), tied embeddings of 262,208 tokens; pretrained
// at 32K and extended to 128K (Sec. 2.3). The text model only: the 417M SigLIP encoder is not counted.
ModelSpec gemma3_27b() {
    ModelSpec m = llama("Gemma 3 27B", 62, 5376, 32, 16, 21504, 262208, 32768);
    m.head_dim = 128;
    m.tied_embeddings = true;
    m.qk_norm = true;
    m.sandwich_norms = true;
    m.sliding_window = 1024;
    m.full_attention_period = 6;
    m.full_attention_layers = pattern_full_attention_layers(m);  // 10: layers 5, 11, ..., 59
    m.context_len = 131072;
    return m;
}

// Open-weight models of 2025: gpt-oss, Qwen3 and Gemma 3.
void add_2025_presets(std::vector<ModelPreset>& p) {
    // Totals are the checkpoints' (safetensors metadata); the model card (arXiv:2508.10925 Table 1)
    // gives 116.83B / 20.91B total and 5.13B / 3.61B active (active there excludes the input embedding).
    p.push_back({"gpt-oss-120b", gpt_oss("gpt-oss-120b", 36, 128), 116829156672.0,
                 "openai/gpt-oss-120b (116,829,156,672); arXiv:2508.10925 Table 1 (116.83B total, 5.13B active)"});
    p.push_back({"gpt-oss-20b", gpt_oss("gpt-oss-20b", 24, 32), 20914757184.0,
                 "openai/gpt-oss-20b (20,914,757,184); arXiv:2508.10925 Table 1 (20.91B total, 3.61B active)"});
    p.push_back(
        {"qwen3-32b", qwen3("Qwen3 32B", 64, 5120, 8, 25600), 32762123264.0, "Qwen/Qwen3-32B (32,762,123,264); arXiv:2505.09388 Table 1"});
    {
        // Every layer MoE: 128 experts of width 1,536, 8 per token, no shared expert (Table 2).
        ModelSpec m = qwen3("Qwen3 235B-A22B", 94, 4096, 4, 12288);
        m.experts = 128;
        m.experts_per_token = 8;
        m.expert_ffn_hidden = 1536;
        p.push_back({"qwen3-235b-a22b", m, 235093634560.0,
                     "Qwen/Qwen3-235B-A22B (235,093,634,560); arXiv:2505.09388 Table 2 (235B, 22B activated)"});
    }
    p.push_back({"gemma3-27b", gemma3_27b(), 27e9,
                 "arXiv:2503.19786 Table 1 (27B: 1,416M embedding + 25,600M non-embedding parameters; vision encoder apart)"});
}

// PaLM, Pythia and MPT.
void add_other_presets(std::vector<ModelPreset>& p) {
    // PaLM 540B: Chowdhery et al. 2022 (arXiv:2204.02311) Table 1: parallel blocks, multi-query, SwiGLU,
    // shared embeddings, no biases, head dim 256.
    {
        ModelSpec m = llama("PaLM 540B", 118, 18432, 48, 1, 73728, 256000, 2048);
        m.head_dim = 256;
        m.tied_embeddings = true;
        m.parallel_attention = true;
        p.push_back({"palm-540b", m, 540.35e9, "arXiv:2204.02311 Table 1 / App. B (540.35B)"});
    }
    // Pythia (GPT-NeoX): Biderman et al. 2023 (arXiv:2304.01373) Table 1; untied, rotary.
    p.push_back({"pythia-1b", neox("Pythia 1B", 16, 2048, 8, 50304), 1011781632.0, "EleutherAI/pythia-1b (1,011,781,632)"});
    p.push_back({"pythia-6.9b", neox("Pythia 6.9B", 32, 4096, 32, 50432), 6857302016.0, "EleutherAI/pythia-6.9b (6,857,302,016)"});
    p.push_back({"pythia-12b", neox("Pythia 12B", 36, 5120, 40, 50688), 11846072320.0, "EleutherAI/pythia-12b (11,846,072,320)"});
    // MPT-7B: MosaicML model card: 32 layers, d 4096, 32 heads, vocab 50,432, ALiBi, no biases
    // (LayerNorm without bias = one vector per norm), tied embeddings.
    {
        ModelSpec m = gpt("MPT-7B", 32, 4096, 32, 50432, 2048);
        m.biases = false;
        m.rmsnorm = true;  // one vector per norm (bias-free LayerNorm)
        m.pos = PosEmbedding::alibi;
        m.dropout = false;  // MPT: attn_pdrop = resid_pdrop = 0 (mosaicml/mpt-7b config.json)
        p.push_back({"mpt-7b", m, 6649286656.0, "mosaicml/mpt-7b (6,649,286,656)"});
    }
}

// Every model preset, in the order `gpucalc presets` lists them; each spec knows its preset id.
std::vector<ModelPreset> build_presets() {
    std::vector<ModelPreset> p;
    add_gpt_presets(p);
    add_llama_presets(p);
    add_moe_presets(p);
    add_2025_presets(p);
    add_other_presets(p);
    for (auto& e : p) e.spec.preset = e.id;
    return p;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
    static const std::vector<ModelPreset> presets = build_presets();
    return presets;
}

const ModelSpec* find_model_preset(const std::string& id) {
    for (const auto& p : model_presets())
        if (p.id == id) return &p.spec;
    return nullptr;
}

}  // namespace gpucalc
