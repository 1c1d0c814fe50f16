// Transformer model description, exact parameter counts and FLOPs per token.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "gpucalc/precision.hpp"

namespace gpucalc {

enum class FfnKind { gelu, swiglu };  // 2-matrix MLP (GPT) vs 3-matrix gated MLP (Llama)
enum class PosEmbedding { learned, rope, alibi };

struct ModelSpec {
    std::string preset;  // preset id when built from one, else empty
    std::string name;
    bool has_architecture = false;  // false: only `params` is known (6ND and weight memory only)
    double params = 0;              // total parameters when !has_architecture (count)
    double active_params = 0;       // active parameters per token when !has_architecture (MoE); 0 = params

    double layers = 0;      // transformer blocks
    double hidden = 0;      // model width d_model
    double heads = 0;       // query heads
    double kv_heads = 0;    // key/value heads (== heads: MHA; 1: MQA; else GQA)
    double head_dim = 0;    // per-head width; default hidden / heads
    double ffn_hidden = 0;  // MLP inner width
    FfnKind ffn_kind = FfnKind::gelu;
    double vocab = 0;       // vocabulary size
    double seq_len = 2048;  // training / context length, tokens
    // The context the model serves, tokens, where it is longer than seq_len (the pretraining
    // sequence a preset's training runs use): Llama 3.1 and DeepSeek-V3 were extended to 128K after
    // pretraining. 0: seq_len. Not a scenario field (a stated model.seq_len is its context).
    double context_len = 0;
    // The precision a preset's weights are released in, where it is not 16-bit (gpt-oss: MXFP4,
    // DeepSeek-V3: FP8): serving's default inference.weight_precision. Not a scenario field.
    Precision released_weights = Precision::bf16;
    int released_group = 0;  // its scale group (MXFP4: 32), 0: the precision's default
    const char* released_source = "";
    bool tied_embeddings = false;
    bool biases = true;    // linear-layer biases (GPT) vs none (Llama)
    bool rmsnorm = false;  // RMSNorm (1 vector) vs LayerNorm (2 vectors)
    PosEmbedding pos = PosEmbedding::learned;
    double sliding_window = 0;  // tokens; 0 = full attention
    // With sliding_window: the layers that attend to the whole context, the others to the window
    // (gpt-oss: every other layer; Gemma 3: one in six). 0: every layer windowed.
    double full_attention_layers = 0;
    // A preset's pattern: the last layer of every `full_attention_period` attends fully (gpt-oss 2,
    // Gemma 3 6), so a changed `layers` keeps floor(layers / period) full. 0: no pattern.
    double full_attention_period = 0;
    bool sandwich_norms = false;      // norms after attention and MLP as well as before (Gemma 2/3: 4 per layer)
    bool attention_sinks = false;     // a learned sink logit per head and layer (gpt-oss: openai/gpt-oss model.py `sinks`)
    bool qk_norm = false;             // a norm on queries and on keys, head_dim wide each, per layer (Qwen3 q_norm, k_norm)
    bool parallel_attention = false;  // attention and MLP in parallel from one norm (GPT-J, PaLM)
    bool embedding_norm = false;      // LayerNorm after the embedding (BLOOM)
    bool dropout = false;             // trained with dropout (GPT-3/Megatron/OPT: 0.1); Llama-style models have none

    // Mixture of experts: MoE layers replace the MLP with `experts` FFNs of width expert_ffn_hidden,
    // `experts_per_token` routed per token, plus `shared_experts` always active.
    double experts = 0;
    double experts_per_token = 0;
    double shared_experts = 0;
    double expert_ffn_hidden = 0;
    double dense_layers = 0;  // leading layers with a dense MLP (DeepSeek-V3: 3)
    bool router_bias = false;
    double max_routed_nodes = 0;  // node-limited routing: a token's experts span at most this many nodes (DeepSeek-V3: 4); 0 = any

    // Multi-head latent attention (DeepSeek-V2/V3). kv_lora_rank > 0 switches it on.
    double q_lora_rank = 0;
    double kv_lora_rank = 0;
    double qk_nope_head_dim = 0;
    double qk_rope_head_dim = 0;
    double v_head_dim = 0;

    bool is_moe() const { return experts > 0; }
    bool is_mla() const { return kv_lora_rank > 0; }
};

struct ParamCount {
    double total = 0;      // all parameters
    double active = 0;     // parameters used per token (MoE: routed experts only count top-k)
    double embedding = 0;  // input (+ untied output) embedding and position tables
    double attention_per_layer = 0;
    double mlp_dense_per_layer = 0;  // dense MLP block
    double mlp_moe_per_layer_total = 0;
    double mlp_moe_per_layer_active = 0;
    double expert_per_layer = 0;  // one routed expert in one MoE layer
    double norms_per_layer = 0;
};

ParamCount count_params(const ModelSpec& m);

// Whether tp ranks split the key/value heads: each rank holds whole ones, or one is replicated over
// tp / kv_heads ranks; vLLM's QKVParallelLinear asserts one divides the other. Multi-head latent
// attention's KV has no heads to split.
inline bool kv_heads_split(const ModelSpec& m, double tp) {
    return m.is_mla() || std::fmod(m.kv_heads, tp) == 0 || std::fmod(tp, m.kv_heads) == 0;
}

// FLOPs per token for one forward+backward pass (training) under the MFU convention of PaLM
// (Chowdhery et al. 2022, App. B) and Megatron (Narayanan et al. 2021, Eq. 3):
//   6 x N_active + 12 x layers x (attention width) x seq_len   (full causal-unmasked attention counted)
double attention_flops_per_token_training(const ModelSpec& m);
// The keys one query attends to at context ctx, averaged over the layers: ctx where attention is
// full, min(sliding_window, ctx) in the windowed layers (hybrid models mix both).
double attended_tokens(const ModelSpec& m, double ctx);
// The full-attention layers of a preset's pattern at its current layers: floor(layers / period).
double pattern_full_attention_layers(const ModelSpec& m);
double model_flops_per_token_training(const ModelSpec& m);

// Forward-only FLOPs per token at a given context length (inference): 2 N_active + 4 l d ctx.
double forward_flops_per_token(const ModelSpec& m, double context_tokens);

// Presets: architectures of published models (each has a parameter-count test).
struct ModelPreset {
    std::string id;
    ModelSpec spec;
    double published_params;  // as published (see source)
    std::string published_source;
};
const std::vector<ModelPreset>& model_presets();
const ModelSpec* find_model_preset(const std::string& id);

}  // namespace gpucalc
