// The training step model: memory per device and time per optimizer step on the slowest pipeline
// stage, for one layout. Allocation-free: the plan search evaluates it ~10^4 times per search.
// Sources of the formulas:
//  - Memory: Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Sec. 3, 5 (16 bytes/param mixed-precision
//    Adam; stages 1-3); experts sharded over the expert-data-parallel group (Rajbhandari et al. 2022,
//    DeepSpeed-MoE, arXiv:2201.05596 Sec. 5.2; Megatron-Core expert_data_parallel); Korthikanti et al.
//    2022 (arXiv:2205.05198) Sec. 4 and Table 2 (activations under TP, SP, selective and full
//    recomputation; pipeline in-flight micro-batches), generalised to GQA, gated MLPs, no dropout and CP.
//  - Time: GEMMs at a width-dependent fraction of peak; FlashAttention-2 backward = 2.5x forward (Dao
//    2023, arXiv:2307.08691 Sec. 3) with causal masking skipping half the blocks; memory-bound ops at HBM
//    bandwidth; ring collectives 2(n-1)/n x bytes / bandwidth + latency (Patarasuk & Yuan 2009; NCCL
//    docs); 1F1B pipeline bubble (p-1)/v (Narayanan et al. 2021, arXiv:2104.04473 Sec. 2.2); ring
//    attention KV exchange (Liu et al. 2023, arXiv:2310.01889); FSDP gathers per micro-batch (Zhao et
//    al. 2023, arXiv:2304.11277 Sec. 3.4).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gpucalc/fastmath.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/training.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

// Korthikanti et al. 2022 Sec. 4.1 MLP activations in units of s*b*h bytes: the first linear's input
// (2) plus the intermediate tensors: GELU MLP stores GELU input and output (2r + 2r, r = ffn/h);
// a gated MLP with fused SwiGLU (Megatron-Core, Transformer Engine) stores gate|up (4r) and the
// activation output (2r).
double mlp_intermediate(const StepInputs& in) {
    const double r = in.ffn_width_active / in.hidden;
    return in.swiglu > 0 ? 6.0 * r : 4.0 * r;
}

// Bytes per device of one transformer layer's stored activations, split into what TP divides
// (`split`) and what it does not without sequence parallelism (`unsplit`), and the attention score
// tensors of unfused attention (`scores`).
struct LayerActivations {
    double split, unsplit, scores;
};
LayerActivations layer_activations(const StepInputs& in, const TrainingConfig& cfg) {
    const double t = static_cast<double>(cfg.tp), cp = static_cast<double>(cfg.cp), b = static_cast<double>(cfg.micro_batch);
    const double tokens = in.seq / cp * b;  // tokens of one micro-batch on one device (sequence split by CP)
    const double sbh = tokens * in.hidden;
    // Attention: Q, K, V and the attention output (= the projection's input) at their real widths
    // (2 + 4 kv/heads + 2 when the head dimension is h / heads); MLP intermediates.
    // FP8 (Transformer Engine) keeps the inputs of FP8 GEMMs for backward in FP8: 1 byte instead of 2
    // for the QKV and MLP inputs and the second MLP matrix's input (r).
    const bool fp8 = cfg.precision == Precision::fp8;
    const double split = in.attn_stored + mlp_intermediate(in) - (fp8 ? in.ffn_width_active / in.hidden : 0.0);
    // Not split by TP without SP: QKV input (2), MLP input (2), two norm inputs (4), dropout masks (2).
    // Not counted: a routed MoE layer's k dispatched copies of each token and the k expert outputs
    // kept for the router probabilities' gradient (Megatron-Core permute / unpermute), which MoE
    // recipes trade against recomputation and FP8 caching (DeepSeek-V3 Sec. 3.2.3, 3.3.3) that the
    // model does not represent; counted alone they make DeepSeek-V3's published layout need 131 GiB
    // on an 80 GB H800 (docs/MODEL.md).
    const double unsplit = (fp8 ? 1.0 + 1.0 : 2.0 + 2.0) + 4.0 + (in.dropout > 0 ? 2.0 : 0.0);
    // Unfused attention keeps softmax output (2) and, with dropout, mask (1) and output (2) per score.
    const double scores = (2.0 + (in.dropout > 0 ? 3.0 : 0.0)) * in.heads * in.window_mean() * tokens / t;
    return {sbh * split / t, sbh * unsplit, scores};
}

// GEMM rows at which a GEMM reaches half of its width-limited efficiency (tile-quantisation: a
// 128 x 128 output tile per SM needs ~a hundred rows to fill the machine; CUTLASS/cuBLAS tile sizes).
constexpr double kGemmHalfRows = 128.0;

bool sequence_parallel(const TrainingConfig& cfg) { return cfg.sequence_parallel.value_or(cfg.tp > 1); }

// Ring collectives over a group of n ranks whose neighbours are `stride` devices apart (tensor
// parallelism innermost, then CP, DP, PP: Megatron-Core's rank order tp-cp-ep-dp-pp; across sites
// whole replicas per site). Inside a site the two-level ring (two_level_ring_seconds, network.hpp):
// the scale-up links inside a node, inter-node bus bandwidth ~ r x NIC with r ranks per node.
// Across sites (hierarchical, alpha-beta: Thakur, Rabenseifner & Gropp 2005, "Optimization of
// collective communication operations in MPICH", Sec. 4): the group reduces inside each site first,
// then each site sends f (s - 1) / s of the data over its WAN link, which all of the site's groups of
// this kind share, plus f log2(s) latency steps (recursive halving/doubling); f = 2 for an all-reduce.
struct Fabric {
    double up, out, per_node, latency, out_latency;
    double sites = 1, site_devices = 1, wan = 0, wan_latency = 0;
    // Of n ranks `stride` devices apart (in one site), those in one node.
    double ranks_per_node(double n, double stride) const { return std::clamp(std::floor(per_node / stride), 1.0, n); }
    // The sites a group of n ranks `stride` apart spans (the cluster spanning several).
    double group_sites(double n, double stride) const {
        return n * stride > site_devices ? std::min({sites, n, std::ceil(n * stride / site_devices)}) : 1.0;
    }
    // f = 1: all-gather or reduce-scatter of S bytes in total per rank; f = 2: all-reduce.
    double ring(double f, double S, double n, double stride) const {
        if (n <= 1 || S <= 0) return 0;
        if (sites <= 1) {  // one site: the two-level ring
            const double r = ranks_per_node(n, stride);
            return f * two_level_ring_seconds(S, n, r, up, out) + (r >= n ? latency : out_latency) * ceil_log2(n);
        }
        const double sg = group_sites(n, stride);
        const double ns = n / sg;  // ranks of the group inside one site
        double t = 0, lat = 0;
        if (ns > 1) {
            const double r = ranks_per_node(ns, stride);
            t = two_level_ring_seconds(S, ns, r, up, out);
            lat = (r >= ns ? latency : out_latency) * ceil_log2(ns);
        }
        if (sg > 1) {
            t = std::max(t, (sg - 1.0) / sg * S * (site_devices / ns) / wan);
            lat += f * wan_latency * ceil_log2(sg);
        }
        return f * t + lat;
    }
    // What the seconds t of ring(f, S, n, stride) are computed from, as ring() reads it: for the
    // derivation of the estimate that is explained (StepTerms), out of the plan search's path.
    [[gnu::noinline, gnu::cold]] StepTerms::Ring record(double f, double S, double n, double stride, double t) const {
        const double sg = sites <= 1 ? 1.0 : group_sites(n, stride);
        return StepTerms::Ring{f, S, n, ranks_per_node(std::max(1.0, n / sg), stride), sg, t};
    }
};

// Bytes per exchanged value across sites: the precision, and with top-k only the kept share, each
// with a 12-bit index into its chunk of 4,096 (SparseLoCo's chunked top-k: 64 of 4,096 values at 2
// bits = 1.5625% x (0.25 + 1.5) bytes = 4 / 146 of fp32, Covenant-72B's ">146x").
double exchanged_bytes_per_value(double precision_bytes, double topk) {
    return topk < 1.0 ? topk * (precision_bytes + 1.5) : precision_bytes;
}

}  // namespace

namespace {
// Eager PyTorch (torchtitan without torch.compile): HBM bytes per token per layer, forward, that
// the compiled block does not move, counted op by op from torchtitan's model at the commit of its
// Dec-2024 benchmarks (pytorch/torchtitan 9dec370: torchtitan/models/norms.py RMSNorm.forward,
// torchtitan/models/llama/model.py apply_rotary_emb, FeedForward.forward, TransformerBlock.forward).
// Inductor fuses each chain of element-wise ops between two matmuls (or attention) into one kernel
// that reads its inputs and writes its outputs once; eager runs every op as a kernel of its own.
// - RMSNorm with the residual add before it, bytes per element of h: eager x + branch (read 2 + 2,
//   write 2), x.float() (2 + 4), pow(2) (4 + 4), mean (4), x * rsqrt (4 + 4), type_as (4 + 2),
//   * weight (2 + 2) = 42; compiled: read x and the branch, write the sum and the normed = 8;
//   34 more, twice per layer (once with a parallel block). nn.LayerNorm is one kernel eagerly too:
//   the separate add (6) and the norm's read of it (2) against the fused 8: 2 more.
// - RoPE (complex multiply), per element of Q and K: .float() (2 + 4), complex product (4 + 4),
//   type_as (4 + 2) = 20 against 4 fused: 16 more.
// - SwiGLU, per element of the gated width: silu (2 + 2), silu x up (4 + 2) = 10 against 6: 4 more.
void eager_bytes(const ModelSpec& m, double hd, StepInputs& in) {
    const double norms = m.parallel_attention ? 1.0 : 2.0;
    in.eager_unsplit = norms * (m.rmsnorm ? 34.0 : 2.0) * m.hidden;
    const double rope_width = m.is_mla() ? (m.heads + 1.0) * m.qk_rope_head_dim : (m.heads + m.kv_heads) * hd;
    in.eager_split = (m.pos == PosEmbedding::rope ? 16.0 * rope_width : 0.0) + (in.swiglu > 0 ? 4.0 * in.ffn_width_active : 0.0);
}
}  // namespace

StepInputs step_inputs(const ModelSpec& m) {
    StepInputs in{};
    const ParamCount c = count_params(m);
    const double hd = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
    in.layers = m.layers;
    in.hidden = m.hidden;
    in.heads = m.heads;
    in.kv_ratio = m.is_mla() ? 1.0 : m.kv_heads / m.heads;
    in.attn_params_per_layer = c.attention_per_layer;
    const double moe_layers = m.is_moe() ? m.layers - std::min(m.dense_layers, m.layers) : 0.0;
    const double dense_layers = m.layers - moe_layers;
    in.ffn_matmul_params_per_layer_active = (dense_layers * c.mlp_dense_per_layer + moe_layers * c.mlp_moe_per_layer_active) / m.layers;
    in.params_total_layers = c.attention_per_layer + c.norms_per_layer +
                             (dense_layers * c.mlp_dense_per_layer + moe_layers * c.mlp_moe_per_layer_total) / m.layers;
    const double expert_width = m.expert_ffn_hidden > 0 ? m.expert_ffn_hidden : m.ffn_hidden;
    in.ffn_width_active =
        m.is_moe() ? (dense_layers * m.ffn_hidden + moe_layers * expert_width * (m.experts_per_token + m.shared_experts)) / m.layers
                   : m.ffn_hidden;
    if (m.is_moe()) {
        // Routed experts (the part expert parallelism shards), averaged over all layers.
        in.expert_params_per_layer = moe_layers * c.expert_per_layer * m.experts / m.layers;
        in.moe_layer_fraction = moe_layers / m.layers;
        in.experts = m.experts;
        in.experts_per_token = m.experts_per_token;
        in.max_routed_nodes = m.max_routed_nodes;
        in.shared_experts = m.shared_experts;
        in.expert_ffn_width = expert_width;
        in.dense_mlp_layers = dense_layers;
        in.dense_layer_params = c.attention_per_layer + c.norms_per_layer + c.mlp_dense_per_layer;
        in.routed_params_per_moe_layer = c.expert_per_layer * m.experts;
        in.moe_layer_params = c.attention_per_layer + c.norms_per_layer + c.mlp_moe_per_layer_total - in.routed_params_per_moe_layer;
    }
    in.vocab = m.vocab;
    in.seq = m.seq_len;
    in.attn_width_qk = m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : hd;
    in.attn_width_v = m.is_mla() ? m.v_head_dim : hd;
    // Korthikanti et al. 2022 Sec. 4.1 stores Q, K, V and the attention output (2 bytes each) at their
    // widths: heads x d_qk, kv heads x d_qk, kv heads x d_v, heads x d_v (2 + 4 kv/heads + 2 x h when
    // d = h / heads). MLA keeps 8 x h: its per-head K and V come from the latents, and the recipes
    // recompute those up-projections (DeepSeek-V3 Sec. 3.2.3) rather than keep them.
    in.attn_stored =
        m.is_mla()
            ? 8.0
            : 2.0 *
                  (m.heads * in.attn_width_qk + m.kv_heads * in.attn_width_qk + m.kv_heads * in.attn_width_v + m.heads * in.attn_width_v) /
                  m.hidden;
    in.window = m.sliding_window > 0 ? std::min(m.sliding_window, m.seq_len) : m.seq_len;
    in.full_attention_fraction = m.sliding_window > 0 && m.layers > 0 ? std::min(m.full_attention_layers, m.layers) / m.layers : 0.0;
    in.params_embedding = m.vocab * m.hidden;
    in.params_positions = m.pos == PosEmbedding::learned ? m.seq_len * m.hidden : 0.0;
    in.tied = m.tied_embeddings ? 1.0 : 0.0;
    in.mla = m.is_mla() ? 1.0 : 0.0;
    in.dropout = m.dropout ? 1.0 : 0.0;
    in.swiglu = m.ffn_kind == FfnKind::swiglu ? 1.0 : 0.0;
    eager_bytes(m, hd, in);
    return in;
}

double activation_bytes_per_layer(const StepInputs& in, const TrainingConfig& cfg) {
    // Full recomputation keeps only the layer input; selective recomputation or flash attention drop
    // the score tensors (Korthikanti et al. 2022 Sec. 5).
    const double t = static_cast<double>(cfg.tp);
    const bool sp = sequence_parallel(cfg);
    const double tokens = in.seq / static_cast<double>(cfg.cp) * static_cast<double>(cfg.micro_batch);
    if (cfg.recompute == Recompute::full) return 2.0 * tokens * in.hidden / (sp ? t : 1.0);
    const LayerActivations a = layer_activations(in, cfg);
    const bool no_scores = cfg.attention == Attention::flash || cfg.recompute == Recompute::selective;
    return a.split + a.unsplit / (sp ? t : 1.0) + (no_scores ? 0.0 : a.scores);
}

// Whether b divides a: by integers when both are whole and exact in a double (the plan search asks
// this of every layout it sizes, and libm's fmod costs ~90 instructions), else by fmod; the same answer.
bool divides(double a, double b) {
    constexpr double kExact = 9007199254740992.0;  // 2^53
    if (a >= 0 && a < kExact && b >= 1 && b < kExact && a == std::floor(a) && b == std::floor(b))
        return static_cast<std::uint64_t>(a) % static_cast<std::uint64_t>(b) == 0;
    return std::fmod(a, b) == 0;
}

double expert_tensor_parallel(const TrainingConfig& cfg) {
    if (cfg.expert_tp) return static_cast<double>(*cfg.expert_tp);
    const double dp = static_cast<double>(cfg.dp.value_or(1)), cp = static_cast<double>(cfg.cp), ep = static_cast<double>(cfg.ep);
    return ep > 1 && !divides(dp * cp, ep) ? 1.0 : static_cast<double>(cfg.tp);
}

bool expert_layout_ok(Count tp, Count cp, Count dp, Count ep, std::optional<Count> expert_tp) {
    if (!((dp * cp) % ep == 0 || (dp * cp * tp) % ep == 0)) return false;
    return !expert_tp || (tp % *expert_tp == 0 && (dp * cp * tp) % (ep * *expert_tp) == 0);
}

namespace {

// Bytes per stored weight: 4 in fp32/tf32, else 2 (16-bit weights, also when the GEMMs run in FP8).
// FP8: Transformer Engine's GEMMs read an FP8 copy of each weight and, on Hopper, of its transpose
// (TE docs, "Handling transposes"). NeMo's and Megatron-Bridge's FP8 recipes keep the parameters
// themselves in FP8 (bf16_with_fp8_mixed / bf16_with_mxfp8_mixed: fp8_param_gather = True, "keep
// params in FP8"), so the two FP8 copies replace the 16-bit weight: 2 bytes per parameter, as
// counted; the fp32 master stays in the optimizer state. Counting both copies beside a 16-bit weight
// (+2 B) would put 9 of the published FP8 runs over their devices' memory (Nemotron-4 340B on H100 at
// 114 %). Megatron-LM without --fp8-param-gather keeps both; not modelled.
double weight_bytes(const TrainingConfig& cfg) {
    return (cfg.precision == Precision::fp32 || cfg.precision == Precision::tf32) ? 4.0 : 2.0;
}

// Bytes per stored gradient: 4 when the config or the framework keeps fp32 gradients, else as the weights.
double gradient_bytes(const TrainingConfig& cfg, const FrameworkProfile& fw, double wbytes) {
    return cfg.fp32_gradients.value_or(fw.fp32_gradients) ? 4.0 : wbytes;
}

// The layout's sizes and switches that every part of the step model reads.
struct StepLayout {
    double t, p, v, b, cp, ep, dp;  // tp, pp, vpp, micro-batch, cp, ep and dp as numbers
    double et;                      // the routed experts' tensor-parallel size (expert_tensor_parallel)
    double sg_dp;                   // sites the data-parallel group spans
    double m;                       // micro-batches per step per pipeline
    double Ls;                      // layers of the slowest stage
    double logits;                  // 1 when the slowest stage also runs the output layer and the loss, else 0
    double Ls_last;                 // uneven stages: the last stage's layers (it runs the output layer too)
    bool uneven;                    // pp does not divide the layers: a middle stage or the last is the slowest
    double zero, wbytes, gbytes;    // ZeRO stage; bytes per weight and per gradient
    bool diloco, sp, full, selective, flash, fp8;
    bool op_sac;         // per-op selective checkpointing (torchtitan 'op' SAC: the framework's selective_gemm_recompute > 0)
    bool dualpipe;       // DeepSeek-V3's bidirectional pipeline schedule (training.dualpipe, pp > 1)
    bool moe_overlap;    // combined 1F1B (training.overlap_moe_comm, ep > 1, not DualPipe): all-to-all behind compute
    bool deepep;         // MoE dispatch once per destination node (training.moe_dispatcher deepep)
    bool eager;          // torchtitan without torch.compile (training.compile false)
    bool root_gathered;  // ZeRO-3 without pipelining on a framework whose root unit stays gathered (root_unit_gathered)
};

// Bytes per parameter of the sharded model states. PyTorch FSDP (and torchtitan, llm-foundry) under
// ZeRO-3 keeps the sharded parameter itself in fp32 as the master copy, casting to 16 bits only for
// the all-gather (torch.distributed.fsdp MixedPrecision / FSDP2 MixedPrecisionPolicy param_dtype),
// and casts the reduced gradient shard to that dtype: 4 + 4 + Adam's m, v 8 = 16 bytes, not a 16-bit
// copy beside a 12-byte optimizer state (18).
struct StateBytes {
    double weight, gradient, optimizer;
};
StateBytes state_bytes(const TrainingConfig& cfg, double wbytes, double gbytes) {
    const bool fsdp_master = cfg.framework && zero_sharding_with_pipeline(*cfg.framework) && cfg.zero >= 3 && wbytes == 2.0;
    const bool master_is_weight = wbytes == 4.0 || fsdp_master;
    // Mixed-precision Adam: fp32 master weights + 2 fp32 moments = 12 bytes/param (ZeRO Sec. 3.1); pure
    // fp32 (or the FSDP master above): the 2 moments = 8. SGD with momentum: 4 (+4 master weights under mixed precision).
    const double opt = cfg.optimizer == Optimizer::adam ? (master_is_weight ? 8.0 : 12.0) : (master_is_weight ? 4.0 : 8.0);
    return {fsdp_master ? 4.0 : wbytes, fsdp_master ? 4.0 : gbytes, opt};
}

// The layers of the pipeline stages. Layers that divide evenly: pp stages of layers / pp, the last one
// with the output layer and the loss (Megatron-Core's default split), which sets the time. Otherwise
// the embedding and the output layer each take a layer's slot: the first and last stages hold one
// layer fewer, ceil((layers + 2) / pp) - 1 (Megatron-Core account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split; DeepSpeed partition_method type:transformer|embedding, as
// BLOOM's 70 layers on 12 stages; Llama 3 405B's 126 layers on 16 stages, arXiv:2407.21783 Sec.
// 3.3.2), the middle stages the rest; slowest_stage() times a middle stage (L.Ls layers) and the last
// (L.Ls_last layers and the output layer) and keeps the slower.
void stage_split(const StepInputs& in, StepLayout& L) {
    L.Ls = std::ceil(in.layers / L.p);
    L.logits = 1.0;
    L.Ls_last = L.Ls;
    L.uneven = L.p > 1 && !divides(in.layers, L.p);
    if (!L.uneven) return;
    L.Ls_last = std::max(1.0, std::ceil((in.layers + 2.0) / L.p) - 1.0);
    L.Ls = std::max(1.0, L.p > 2 ? std::ceil(std::max(0.0, in.layers - 2.0 * L.Ls_last) / (L.p - 2.0)) : in.layers - L.Ls_last);
    L.logits = 0.0;
}

// Micro-batches per step on each data-parallel rank: the global batch over dp x micro-batch (at least one).
double microbatches_of(const TrainingConfig& cfg) {
    const double dp = static_cast<double>(cfg.dp.value_or(1));
    return std::max(1.0, static_cast<double>(cfg.global_batch.value_or(cfg.dp.value_or(1) * cfg.micro_batch)) /
                             (dp * static_cast<double>(cfg.micro_batch)));
}

// Resolves the layout once per estimate.
StepLayout step_layout(const StepInputs& in, const TrainingConfig& cfg, const FrameworkProfile& fw, const NetworkLevels& net) {
    StepLayout L;
    L.t = static_cast<double>(cfg.tp);
    L.p = static_cast<double>(cfg.pp);
    L.v = static_cast<double>(cfg.vpp);
    L.b = static_cast<double>(cfg.micro_batch);
    L.cp = static_cast<double>(cfg.cp);
    L.ep = static_cast<double>(cfg.ep);
    L.dp = static_cast<double>(cfg.dp.value_or(1));
    L.et = expert_tensor_parallel(cfg);
    // Sites the data-parallel group spans: its peers are one replica (tp x cp x pp devices) apart.
    L.sg_dp = sites_data_parallel(L.dp, net.sites);
    L.diloco = cfg.local_steps > 1 && L.sg_dp > 1;
    L.m = microbatches_of(cfg);
    stage_split(in, L);
    L.sp = sequence_parallel(cfg);
    L.full = cfg.recompute == Recompute::full;
    L.selective = cfg.recompute == Recompute::selective;
    L.flash = cfg.attention == Attention::flash;
    L.fp8 = cfg.precision == Precision::fp8;
    L.op_sac = L.selective && L.flash && fw.selective_gemm_recompute > 0;
    L.dualpipe = cfg.dualpipe && L.p > 1;
    L.moe_overlap = cfg.overlap_moe_comm && L.ep > 1 && !L.dualpipe;
    L.deepep = cfg.moe_dispatcher == MoeDispatcher::deepep;
    L.eager = !cfg.compile && cfg.framework == Framework::torchtitan;
    L.zero = static_cast<double>(cfg.zero);
    L.root_gathered = L.zero >= 3 && L.p == 1 && fw.root_unit_gathered;
    L.wbytes = weight_bytes(cfg);
    L.gbytes = gradient_bytes(cfg, fw, L.wbytes);
    return L;
}

// Where the parameters live: per device of the sized stage, and the ZeRO groups that shard them.
struct WeightPlacement {
    double dense_per_layer;        // parameters of a layer outside its routed experts (averaged over the layers)
    double per_layer_gpu;          // the largest layer's parameters on one device (dense / tp, experts / (expert_tp x ep))
    double first_extra;            // the first stage's embedding (and learned positions) on one device
    double expert_tp;              // tensor-parallel ranks that split an expert (1 under MoE parallel folding)
    double dense_gpu, expert_gpu;  // the sized device, before ZeRO sharding
    // MoE, on one device: a dense-MLP layer, an MoE layer outside its routed experts, its routed experts.
    double dense_layer_gpu = 0, moe_layer_gpu = 0, routed_layer_gpu = 0;
    double head_gpu = 0;                          // the last stage's output layer on one device
    double second_params = 0, second_layers = 0;  // the second stage's device (its parameters before ZeRO)
    // MoE, pp > 2 (place_stages_by_layer): the stage holding the first MoE layer (at least 1) and the
    // first past the dense layers (heaviest_expert_stage); 0 otherwise.
    double boundary_stage = 0, heavy_stage = 0;
    double shard_dense, shard_expert;  // ranks that shard them under ZeRO
    // Parameters per device once ZeRO shards what its stage shards (1: optimizer state, 2: gradients, 3: weights).
    double sharded(double zero, double stage) const {
        return zero >= stage ? dense_gpu / shard_dense + expert_gpu / shard_expert : dense_gpu + expert_gpu;
    }
};

// The layers of pipeline stage j as stage_split places them: the first stage's (one fewer with
// uneven stages), and with uneven stages the last's as many, the rest spread over the middle stages
// (L.Ls, the ceiling, on the earlier ones); an even split holds L.Ls everywhere.
struct StageLayers {
    double start, n;
};
// Uneven stages, pp > 2: the layers the middle stages share, q each and one more on the first `extra`.
struct MiddleStages {
    double middle, stages, q, extra;
};
[[gnu::always_inline]] inline MiddleStages middle_stages(const StepInputs& in, const StepLayout& L, double first) {
    MiddleStages ms;
    ms.middle = std::max(0.0, in.layers - 2.0 * first);
    ms.stages = L.p - 2.0;
    ms.q = std::floor(ms.middle / ms.stages);
    ms.extra = ms.middle - ms.q * ms.stages;
    return ms;
}
[[gnu::always_inline]] inline StageLayers stage_layers(const StepInputs& in, const StepLayout& L, double j) {
    const double first = std::min(in.layers, L.uneven ? L.Ls_last : L.Ls);
    if (j <= 0.0) return {0.0, first};
    if (!L.uneven || L.p <= 2.0) {
        const double start = std::min(in.layers, first + (j - 1.0) * L.Ls);
        return {start, std::min(j >= L.p - 1.0 ? in.layers : start + L.Ls, in.layers) - start};
    }
    const MiddleStages ms = middle_stages(in, L, first);
    if (j >= L.p - 1.0) return {first + ms.middle, in.layers - first - ms.middle};  // the last: what the middle stages leave
    const double k = j - 1.0;
    return {first + k * ms.q + std::min(k, ms.extra), ms.q + (k < ms.extra ? 1.0 : 0.0)};
}

// Interleaved (vpp > 1): device j holds model chunks j, j + p, j + 2p, ... of layers / (p vpp)
// layers each (Megatron-LM's virtual pipeline), so an MoE model's leading dense-MLP layers sit in the
// first chunks of the first devices, not in one block. The dense layers among device j's n.
double interleaved_dense_layers(const StepInputs& in, const StepLayout& L, double j, double n) {
    const double chunk = in.layers / (L.p * L.v), d = in.dense_mlp_layers;
    const double whole = std::floor(d / chunk);  // chunks all dense
    const double mine = whole > j ? std::floor((whole - 1.0 - j) / L.p) + 1.0 : 0.0;
    const double partial =
        whole < L.p * L.v && whole - L.p * std::floor(whole / L.p) == j ? d - whole * chunk : 0.0;  // chunk `whole` on device j
    return std::min(n, mine * chunk + partial);
}

// The parameters on one device of pipeline stage j, before ZeRO sharding: its layers as they are
// (an MoE model's leading dense-MLP layers sit on the first stages and hold no routed experts), the
// first stage's embedding and the last stage's output layer (a copy of a tied embedding: Megatron-LM
// keeps one on the last stage under pipelining).
struct StageWeights {
    double dense = 0, routed = 0, moe_layers = 0, layers = 0;
    StageWeights& operator+=(const StageWeights& o) {
        dense += o.dense, routed += o.routed, moe_layers += o.moe_layers, layers += o.layers;
        return *this;
    }
};
[[gnu::always_inline]] inline StageWeights stage_weights(const StepInputs& in, const StepLayout& L, const WeightPlacement& w, double j) {
    const StageLayers s = stage_layers(in, L, j);
    StageWeights sw;
    sw.layers = s.n;
    if (in.experts > 0) {
        const double dense = L.v > 1.0 ? interleaved_dense_layers(in, L, j, s.n) : std::clamp(in.dense_mlp_layers - s.start, 0.0, s.n);
        const double moe = sw.moe_layers = s.n - dense;
        sw.dense = (s.n - moe) * w.dense_layer_gpu + moe * w.moe_layer_gpu;
        sw.routed = moe * w.routed_layer_gpu;
    } else {
        sw.dense = s.n * w.per_layer_gpu;
    }
    if (j <= 0.0) sw.dense += w.first_extra;
    if (L.p > 1.0 && j >= L.p - 1.0) sw.dense += w.head_gpu;
    return sw;
}

// A device's stages: stage j, and under DualPipe stage p - 1 - j too (DeepSeek-V3, arXiv:2412.19437
// Sec. 3.2.1: each device holds a stage of each direction, two copies of the parameters, Table 2's 2x).
[[gnu::always_inline]] inline StageWeights device_weights(const StepInputs& in, const StepLayout& L, const WeightPlacement& w, double j) {
    StageWeights sw = stage_weights(in, L, w, j);
    if (L.dualpipe) sw += stage_weights(in, L, w, L.p - 1.0 - j);
    return sw;
}

// The layers whose activations device j keeps per micro-batch in flight. Under DualPipe its p + 1 in
// flight (Table 2) are each direction's 1F1B share: p - j micro-batches of stage j, j + 1 of stage
// p - 1 - j; the weighted mean of the two stages' layers.
[[gnu::always_inline]] inline double activation_layers(const StepInputs& in, const StepLayout& L, double j) {
    const double n = stage_layers(in, L, j).n;
    if (!L.dualpipe) return n;
    return ((L.p - j) * n + (j + 1.0) * stage_layers(in, L, L.p - 1.0 - j).n) / (L.p + 1.0);
}

// Whether some layer holds routed experts (an MoE model whose dense_layers are not all its layers).
bool routed_layers(const StepInputs& in) { return in.experts > 0 && in.dense_mlp_layers < in.layers; }

// The stage holding layer x (0-based), by stage_layers' split.
double stage_of_layer(const StepInputs& in, const StepLayout& L, double x) {
    if (L.v > 1.0) {  // interleaved_dense_layers' chunks: chunk k on device k mod p
        const double k = std::floor(x / (in.layers / (L.p * L.v)));
        return k - L.p * std::floor(k / L.p);
    }
    const double first = stage_layers(in, L, 0.0).n;
    if (x < first) return 0.0;
    const double y = x - first;
    double j;
    if (!L.uneven || L.p <= 2.0) {
        j = 1.0 + std::floor(y / std::max(1.0, L.Ls));
    } else {
        const MiddleStages ms = middle_stages(in, L, first);
        const double big = ms.extra * (ms.q + 1.0);  // the layers of the stages with one more
        j = y < big ? 1.0 + std::floor(y / (ms.q + 1.0)) : 1.0 + ms.extra + (ms.q > 0.0 ? std::floor((y - big) / ms.q) : ms.stages);
    }
    return std::min(j, L.p - 1.0);
}

// MoE: the first stage past the leading dense-MLP layers (the first to hold the most routed-expert
// layers: the middle stages' layers do not grow along the pipeline). `j`: the stage holding the first
// MoE layer, at least 1 (boundary_stage).
double heaviest_expert_stage(const StepInputs& in, const StepLayout& L, double j) {
    if (L.v > 1.0) return std::min(j + 1.0, L.p - 1.0);  // the device after the one holding the first MoE layer
    return stage_layers(in, L, j).start < in.dense_mlp_layers ? std::min(j + 1.0, L.p - 1.0) : j;
}

// DualPipe: the devices that can hold the most, device j holding stages j and p - 1 - j. Between two
// breaks (where stage j's or stage p - 1 - j's layers or their dense/MoE mix change: the middle
// stages' extra layer ends, the first MoE layer) both stages stay alike, so the device's states are
// constant and its activations, (p - j) n_j + (j + 1) n_{p-1-j} layer-micro-batches, linear in j:
// the largest sits at a break. Writes at most 16 devices (1 <= j < p / 2) to `out`, returns how many.
int dualpipe_devices(const StepInputs& in, const StepLayout& L, double out[16]) {
    const double half = L.p / 2.0;
    const double extra =
        L.uneven && L.p > 2.0 ? middle_stages(in, L, stage_layers(in, L, 0.0).n).extra : 0.0;  // stages 1..extra hold one more
    const double boundary = stage_of_layer(in, L, in.dense_mlp_layers);
    int n = 0;
    auto add = [&](double j) {
        if (!(j >= 1.0 && j < half)) return;
        for (int i = 0; i < n; ++i)
            if (out[i] == j) return;
        out[n++] = j;
    };
    for (const double k : {1.0, extra, extra + 1.0, boundary - 1.0, boundary, boundary + 1.0, half - 1.0, std::ceil(half) - 1.0}) {
        add(k);
        add(L.p - 1.0 - k);
    }
    return n;
}

// The first stage's device, and the data-parallel reduction's largest shard (params_per_gpu): the
// first stage's layers and embedding, the second stage's layers, the last stage's with the output
// layer, an MoE model's first stage past its dense layers, or under DualPipe the devices that can hold
// the most (dualpipe_devices). The second stage's parameters are kept for the middle-stage warning.
StageWeights place_stages_by_layer(const StepInputs& in, const StepLayout& L, WeightPlacement& w, StepEstimate& r);
StageWeights place_stages(const StepInputs& in, const StepLayout& L, WeightPlacement& w, StepEstimate& r) {
    const double p = L.p;
    if (!routed_layers(in) && !L.dualpipe) {
        // The plan search's common case, the same figures by a shorter path: a dense model's stages
        // differ only in their layers and the embedding or output layer, and the last stage (at most
        // the first's layers, an output layer no larger than the embedding) never exceeds the first.
        StageWeights first;
        first.layers = r.first_stage_layers = stage_layers(in, L, 0.0).n;
        first.dense = first.layers * w.per_layer_gpu + w.first_extra;
        r.params_per_gpu = first.dense;
        if (p > 1.0) {
            w.second_layers = stage_layers(in, L, 1.0).n;
            w.second_params = w.second_layers * w.per_layer_gpu + (p <= 2.0 ? w.head_gpu : 0.0);
            r.params_per_gpu = std::max(first.dense, w.second_params);
        }
        r.expert_params_per_gpu = 0.0;
        return first;
    }
    return place_stages_by_layer(in, L, w, r);
}

// place_stages for MoE models and DualPipe: each stage by the layers it holds (device_weights).
StageWeights place_stages_by_layer(const StepInputs& in, const StepLayout& L, WeightPlacement& w, StepEstimate& r) {
    const double p = L.p;
    const StageWeights first = device_weights(in, L, w, 0.0);
    StageWeights largest = first;
    auto consider = [&](double j) {
        const StageWeights sw = device_weights(in, L, w, j);
        if (sw.dense + sw.routed > largest.dense + largest.routed) largest = sw;
        return sw;
    };
    if (p > 1.0) {
        const StageWeights second = consider(1.0);
        w.second_params = second.dense + second.routed;
        w.second_layers = second.layers;
    }
    if (L.dualpipe) {
        double devices[16];
        const int n = dualpipe_devices(in, L, devices);  // those that can hold the most
        for (int i = 0; i < n; ++i) consider(devices[i]);
    } else if (p > 2.0) {
        consider(p - 1.0);
        if (routed_layers(in)) {
            w.boundary_stage = std::max(1.0, stage_of_layer(in, L, in.dense_mlp_layers));
            w.heavy_stage = heaviest_expert_stage(in, L, w.boundary_stage);
            consider(w.heavy_stage);
        }
    }
    r.params_per_gpu = largest.dense + largest.routed;
    r.expert_params_per_gpu = largest.routed;
    r.first_stage_layers = activation_layers(in, L, 0.0);
    return first;
}

// The ranks ZeRO shards the dense parameters over: the dp x cp ranks holding the same weights, or a
// hybrid-sharding group of them (training.shard_group); across sites, ZeRO/FSDP shards stay inside a
// site (hybrid sharding over the WAN, as MaxText multislice and INTELLECT-1's FSDP-within-node +
// DiLoCo-across-nodes). The memory and its derivation both read it here.
double zero_shard_ranks(const TrainingConfig& cfg, double dpc, double sites_dp) {
    double shard = std::min(dpc, static_cast<double>(cfg.shard_group.value_or(cfg.dp.value_or(1) * cfg.cp)));
    if (sites_dp > 1) shard = std::min(shard, dpc / sites_dp);
    return shard;
}

// Places the parameters on the stages and over the ZeRO groups; sizes the first stage's device
// (sized_stage 0) and the data-parallel reduction's largest shard.
WeightPlacement place_weights(const StepInputs& in, const TrainingConfig& cfg, const StepLayout& L, StepEstimate& r) {
    WeightPlacement w;
    const double t = L.t, p = L.p, cp = L.cp, ep = L.ep, dp = L.dp;
    const double emb_tables = (p == 1 && in.tied == 0.0) ? 2.0 : 1.0;
    w.dense_per_layer = in.params_total_layers - in.expert_params_per_layer;
    // Experts split over expert_tp ranks (tp, or 1 under MoE parallel folding) and sharded over ep
    // ranks (expert_tensor_parallel).
    w.expert_tp = L.et;
    // Time and traffic: the slowest stage. Memory: the first stage, which holds the most in-flight
    // micro-batches and the embedding; with uneven stages it carries one layer fewer, the embedding
    // taking a layer's slot (stage_split: ceil((layers + 2) / pp) - 1 layers). The second stage, a
    // middle one with one layer more and (at most) a micro-batch fewer in flight, is not sized: by
    // these activation formulas it would put Meta's Llama 3.1 405B layout (TP8 PP16, 16 micro-batches,
    // no recomputation, which ran on 80 GB H100s) at 82-87 GiB. An MoE model's other stages that can
    // need more, and under DualPipe the other devices, are sized too (size_other_devices).
    w.per_layer_gpu = w.dense_per_layer / t + in.expert_params_per_layer / (w.expert_tp * ep);
    if (in.experts > 0) {
        w.dense_layer_gpu = in.dense_layer_params / t;
        w.moe_layer_gpu = in.moe_layer_params / t;
        w.routed_layer_gpu = in.routed_params_per_moe_layer / (w.expert_tp * ep);
        const double moe_layer = w.moe_layer_gpu + w.routed_layer_gpu;
        w.per_layer_gpu = in.dense_mlp_layers >= in.layers ? w.dense_layer_gpu
                          : in.dense_mlp_layers > 0        ? std::max(moe_layer, w.dense_layer_gpu)
                                                           : moe_layer;
    }
    w.head_gpu = in.params_embedding / t;
    w.first_extra = emb_tables * in.params_embedding / t + in.params_positions;
    const StageWeights first = place_stages(in, L, w, r);
    w.dense_gpu = first.dense;
    w.expert_gpu = first.routed;
    r.sized_stage = 0.0;
    r.first_stage_params = w.dense_gpu + w.expert_gpu;
    r.root_unit_params = L.root_gathered ? w.first_extra : 0.0;
    // ZeRO shards over the data-parallel ranks holding the same weights: dense over dp x cp, routed
    // experts over the expert-data-parallel group dp x cp x tp / (ep x expert_tp).
    w.shard_dense = zero_shard_ranks(cfg, dp * cp, L.sg_dp);
    w.shard_expert = std::max(1.0, w.shard_dense * t / w.expert_tp / ep);
    return w;
}

// Weights, gradients and optimizer state per device under ZeRO, with ZeRO-3's gathered layers.
// Returns the ZeRO-3 gathered buffers' bytes (in the weights and gradients), 0 below ZeRO-3.
[[gnu::always_inline]] inline double weight_state_memory(const StepInputs& in, const TrainingConfig& cfg, const StepLayout& L,
                                                         const WeightPlacement& w, MemoryPerGpu& mem) {
    const double wbytes = L.wbytes, gbytes = L.gbytes;
    const StateBytes sb = state_bytes(cfg, wbytes, gbytes);
    mem.weights = w.sharded(L.zero, 3) * sb.weight;
    mem.gradients = w.sharded(L.zero, 2) * sb.gradient;
    mem.optimizer = w.sharded(L.zero, 1) * sb.optimizer;
    if (L.zero >= 3) {
        // FSDP/ZeRO-3 gathers whole layers: the current and the prefetched one, and one layer's unsharded gradients.
        const double layer_gpu = w.per_layer_gpu;
        mem.weights += 2.0 * layer_gpu * wbytes;
        mem.gradients += layer_gpu * gbytes;
        double buffer = layer_gpu * (2.0 * wbytes + gbytes);
        // PyTorch FSDP's root unit (the embeddings and output layer, with the final norm) is not
        // resharded after the forward (fully_shard: reshard_after_forward defaults to False for the
        // root; FSDP1 keeps the root's parameters for the backward too): gathered through the step,
        // with the output layer's unsharded gradient from the loss backward to the root's reduce-scatter.
        if (L.root_gathered) {
            const double root = w.first_extra;  // without pipelining: both tables unless tied
            const double head = in.params_embedding / L.t;
            mem.weights += root * wbytes;
            mem.gradients += head * gbytes;
            buffer += root * wbytes + head * gbytes;
        }
        return buffer;
    }
    return 0.0;
}

// Bytes per device one layer keeps under per-op selective checkpointing (torchtitan 'op' SAC,
// pytorch/torchtitan@9dec370:torchtitan/parallelisms/parallelize_llama.py _custom_policy and _save_list):
// the block's input (the checkpoint's argument) and the outputs of the ops it must save: attention
// (SDPA), reduce-scatters and every second matmul of the block (mm counter odd: wq, wv, w1, w2; wk,
// wo and w3 are recomputed), each 16-bit; the rest is recomputed from them in backward. Under TP the
// row-parallel w2 keeps its full-width partial sums (h per token) and SP also its reduce-scattered output.
double op_sac_bytes_per_layer(const StepInputs& in, const StepLayout& L) {
    const double tokens = in.seq / L.cp * L.b, h = in.hidden, t = L.t;
    const double q = in.heads * in.attn_width_qk, v = in.kv_ratio * in.heads * in.attn_width_v, att = in.heads * in.attn_width_v;
    const double split = (q + v + att + in.ffn_width_active) / t;  // wq, wv, attention and w1 outputs: column-parallel
    const double w2 = t > 1 ? h + (L.sp ? h / t : 0.0) : h;
    return 2.0 * tokens * (h / (L.sp ? t : 1.0) + split + w2);
}

// What every stage's device stores besides its layers' in-flight activations: the layer being
// recomputed, and the last stage's fp32 logits for the loss.
struct ActivationExtras {
    double recomputed, logits;
};

// Stored activations per device: the first stage's layers x its in-flight micro-batches, the layer
// being recomputed and the logits.
ActivationExtras activation_memory(const StepInputs& in, const TrainingConfig& cfg, const StepLayout& L, const LayerActivations& act,
                                   StepEstimate& r) {
    const double t = L.t, p = L.p, v = L.v, b = L.b, cp = L.cp, m = L.m;
    const bool sp = L.sp;
    // activation_bytes_per_layer(in, cfg), from the tensors just computed (the plan search's hot path).
    r.activation_bytes_per_layer =
        L.full     ? 2.0 * (in.seq / cp * b) * in.hidden / (sp ? t : 1.0)
        : L.op_sac ? op_sac_bytes_per_layer(in, L)
                   : act.split + act.unsplit / (sp ? t : 1.0) +
                         ((cfg.attention == Attention::flash || cfg.recompute == Recompute::selective) ? 0.0 : act.scores);
    // 1F1B: the first stage holds p micro-batches (interleaved: p + (p-1)/vpp), never more than the
    // step has (Korthikanti et al. 2022 Sec. 4.2.3 assumes m >= p).
    // DualPipe: p + 1 (DeepSeek-V3, arXiv:2412.19437 Table 2).
    r.in_flight = L.dualpipe ? std::min(m, p + 1.0) : p > 1 ? std::min(m, p * (v > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0)) : 1.0;
    r.sized_in_flight = r.in_flight;
    const double stage = r.activation_bytes_per_layer * r.first_stage_layers;
    ActivationExtras x;
    x.recomputed = L.full ? act.split + act.unsplit / (sp ? t : 1.0) + (L.flash ? 0.0 : act.scores) : 0.0;  // the layer being recomputed
    x.logits = 4.0 * in.seq / cp * b * in.vocab / t;  // fp32 logits for the loss on the last stage
    // The device that holds the most: the first stage (its in-flight micro-batches) or the last (one
    // micro-batch and the logits; the same device without pipelining, and under DualPipe, whose first
    // device holds the first stage and the last) (Korthikanti et al. 2022 Sec. 4.2.3, 4.3).
    const double first = stage * r.in_flight + x.recomputed, last = stage + x.recomputed + x.logits;
    r.memory.activations = p > 1 && !L.dualpipe ? std::max(first, last) : first + x.logits;
    return x;
}

// The total from the parts: DiLoCo's outer state, the overhead allowance.
[[gnu::always_inline]] inline void memory_total(const TrainingConfig& cfg, const StepLayout& L, const WeightPlacement& w,
                                                MemoryPerGpu& mem) {
    // DiLoCo keeps the weights of the last outer step (the anchor the pseudo-gradient is taken from)
    // and the outer Nesterov momentum, both fp32 (Douillard et al. 2023, arXiv:2311.08105, Algorithm 1),
    // sharded like the optimizer state; INTELLECT-1 keeps them in host memory (PRIME README, "CPU Off-Loading").
    if ((L.diloco || cfg.outer_state) && !cfg.outer_offload) mem.outer_optimizer = w.sharded(L.zero, 1) * 8.0;
    const double sub = mem.weights + mem.gradients + mem.optimizer + mem.activations + mem.outer_optimizer;
    mem.overhead = cfg.overhead_bytes + cfg.fragmentation * sub;
    mem.total = sub + mem.overhead;
}

// Micro-batches whose activations stage j holds under 1F1B: p - j (Narayanan et al. 2021 Sec. 2.2);
// interleaved, Megatron-LM's warm-up of rank j, 2 (p - j - 1) + (vpp - 1) p chunks and the one in
// flight, p + (p - 1 - 2j) / vpp stages' worth; never more than the step has.
double in_flight_1f1b(const StepLayout& L, double j) {
    return std::min(L.m, L.v > 1 ? L.p * (1.0 + (L.p - 1.0 - 2.0 * j) / (L.p * L.v)) : L.p - j);
}

// The memory of device j (stage j, and under DualPipe stage p - 1 - j too), sized like the first's:
// its states as placed, its layers' activations for the micro-batches it holds in flight, the layer
// being recomputed, and the logits where it computes the loss. Kept when it needs more.
void size_device(const StepInputs& in, const TrainingConfig& cfg, const StepLayout& L, const ActivationExtras& x, double j,
                 WeightPlacement& w, StepEstimate& r) {
    const StageWeights sw = device_weights(in, L, w, j);
    const double in_flight = L.dualpipe ? r.in_flight : in_flight_1f1b(L, j);
    const double layers = activation_layers(in, L, j);
    const bool loss = j >= L.p - 1.0;
    // No more parameters of either kind, activations or logits than the device sized: it needs no more.
    if (!loss && sw.dense <= w.dense_gpu && sw.routed <= w.expert_gpu && layers * in_flight <= r.first_stage_layers * r.sized_in_flight)
        return;
    const double dense = w.dense_gpu, routed = w.expert_gpu;  // the sized device's, restored unless this one needs more
    w.dense_gpu = sw.dense;
    w.expert_gpu = sw.routed;
    MemoryPerGpu mem;
    // Its ZeRO-3 buffers are the first stage's: the largest layer, and no root unit under pipelining.
    weight_state_memory(in, cfg, L, w, mem);
    mem.activations = r.activation_bytes_per_layer * layers * in_flight + x.recomputed + (loss ? x.logits : 0.0);
    memory_total(cfg, L, w, mem);
    if (!(mem.total > r.memory.total)) {
        w.dense_gpu = dense;
        w.expert_gpu = routed;
        return;
    }
    r.memory = mem;
    r.sized_stage = j;
    r.first_stage_layers = layers;
    r.first_stage_params = sw.dense + sw.routed;
    r.sized_in_flight = in_flight;
    r.middle_stage_bytes = 0.0;  // the warning is about a middle stage beside a sized first stage
}

// The devices sized besides the first, which holds the most micro-batches in flight and the
// embedding. DualPipe: every device that can hold the most (dualpipe_devices; two stages each, p + 1
// micro-batches in flight on all of them).
// An MoE model: the second stage, the one holding the first MoE layer and the first past the
// leading dense-MLP layers (the first to hold whole MoE layers, DeepSeek-V3's second at PP16),
// whose routed experts can outweigh the first stage's in-flight activations, and the last, with the
// output layer and the logits. A dense model
// sizes the first stage only (place_weights says why).
[[gnu::noinline]] void size_other_devices(const StepInputs& in, const TrainingConfig& cfg, const StepLayout& L, const ActivationExtras& x,
                                          WeightPlacement& w, StepEstimate& r) {
    if (L.dualpipe) {
        double devices[16];
        const int n = dualpipe_devices(in, L, devices);
        for (int i = 0; i < n; ++i) size_device(in, cfg, L, x, devices[i], w, r);
        return;
    }
    // Of the stages between, an all-dense one holds no more than stage 1 (its layers and micro-batches
    // in flight do not grow along the pipeline), a full MoE one no more than the first of them. With
    // two stages, stage 1 is the last.
    const double boundary = w.boundary_stage, heavy = w.heavy_stage;
    size_device(in, cfg, L, x, 1.0, w, r);
    if (boundary > 1.0 && boundary < L.p - 1.0) size_device(in, cfg, L, x, boundary, w, r);
    if (heavy > boundary && heavy < L.p - 1.0) size_device(in, cfg, L, x, heavy, w, r);
    if (L.p > 2.0) size_device(in, cfg, L, x, L.p - 1.0, w, r);
}

// Memory per device: the first pipeline stage (most in-flight micro-batches, plus an embedding), or
// an MoE model's heaviest expert stage.
WeightPlacement memory_per_device(const StepInputs& in, const TrainingConfig& cfg, const StepLayout& L, const LayerActivations& act,
                                  StepEstimate& r) {
    WeightPlacement w = place_weights(in, cfg, L, r);
    r.zero3_buffer_bytes = weight_state_memory(in, cfg, L, w, r.memory);
    const ActivationExtras x = activation_memory(in, cfg, L, act, r);
    memory_total(cfg, L, w, r.memory);
    // Uneven stages: a middle stage holds one layer more than the first and a micro-batch fewer in
    // flight (1F1B: stage i holds p - i; Narayanan et al. 2021 Sec. 2.2), and no embedding. It is
    // not what the memory sizes (place_weights says why); about what it holds (its states in
    // proportion to its parameters), for the warning that it may not fit.
    if (L.uneven && L.p > 2 && !L.dualpipe && r.first_stage_params > 0) {
        const double states = r.memory.weights + r.memory.gradients + r.memory.optimizer + r.memory.outer_optimizer;
        const double stage = r.activation_bytes_per_layer * r.first_stage_layers * r.in_flight;
        const double rest = std::max(0.0, r.memory.activations - stage);  // the layer being recomputed (or the logits' excess)
        const double mid = states * w.second_params / r.first_stage_params +
                           r.activation_bytes_per_layer * w.second_layers * std::max(1.0, r.in_flight - 1.0) + rest;
        r.middle_stage_bytes = mid * (1.0 + cfg.fragmentation) + cfg.overhead_bytes;
    }
    if (L.p > 1.0 && (L.dualpipe || routed_layers(in))) size_other_devices(in, cfg, L, x, w, r);
    return w;
}

// Derivations of the weights, gradients and optimizer state per device (weight_state_memory).
GPUCALC_COLD void explain_weight_state_memory(const TrainingConfig& cfg, const FrameworkProfile& fw, const StepEstimate& e, Trace& trace) {
    const double param_bytes = weight_bytes(cfg);
    const StateBytes sb = state_bytes(cfg, param_bytes, gradient_bytes(cfg, fw, param_bytes));
    const double wbytes = sb.weight, gbytes = sb.gradient;
    const double dp = static_cast<double>(cfg.dp.value_or(1)), cp = static_cast<double>(cfg.cp), ep = static_cast<double>(cfg.ep);
    // The ZeRO group the memory divides by (a red team: the formula said dp x cp, 1,000 ranks, where a
    // DiLoCo run over 125 sites shards over the 8 of one site, and a shard_group over its own ranks).
    const double shard = zero_shard_ranks(cfg, dp * cp, e.wan ? e.wan->sites_dp : 1.0);
    const std::string zero_src =
        "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Sec. 3.1, 5; experts over dp x cp x tp / (ep x expert_tp) (DeepSpeed-MoE "
        "Sec. 5.2; MoE parallel folding, arXiv:2504.14960)";
    trace.add("training.memory_per_gpu_bytes.weights",
              "stage_params x bytes_per_param / (zero >= 3 ? shard_ranks [experts: shard_ranks x tp / (ep x expert_tp)] : 1) (+ 2 "
              "gathered layers under ZeRO-3); shard_ranks = dp x cp, or training.shard_group, or the ranks in one site; the device that "
              "needs the most: the first stage's (sized_stage 0); for an MoE model also "
              "the stages up to the first holding whole MoE layers and the last; under DualPipe every device, two stages each",
              {{"stage_params", e.first_stage_params},
               {"sized_stage", e.sized_stage},
               {"bytes_per_param", wbytes},
               {"zero", static_cast<double>(cfg.zero)},
               {"dp", dp},
               {"cp", cp},
               {"shard_ranks", shard},
               {"tp", static_cast<double>(cfg.tp)},
               {"ep", ep},
               {"expert_tp", expert_tensor_parallel(cfg)}},
              e.memory.weights, "bytes", zero_src);
    // The values a reader needs to recompute each part (a red team could not: cp and the experts'
    // group were missing, and ZeRO-3's gathered layer unsaid).
    const double tp = static_cast<double>(cfg.tp), et = expert_tensor_parallel(cfg);
    const auto state_part = [&](std::string_view key, std::string_view formula, std::string_view per_param, double bytes, double result,
                                const std::string& source) {
        trace.add(key, formula,
                  {{"stage_params", e.first_stage_params},
                   {per_param, bytes},
                   {"zero", static_cast<double>(cfg.zero)},
                   {"dp", dp},
                   {"cp", cp},
                   {"shard_ranks", shard},
                   {"tp", tp},
                   {"ep", ep},
                   {"expert_tp", et}},
                  result, "bytes", source);
    };
    state_part("training.memory_per_gpu_bytes.gradients",
               "stage_params x bytes_per_gradient / (zero >= 2 ? shard_ranks [experts: shard_ranks x tp / (ep x expert_tp)] : 1) (+ "
               "one gathered layer's unsharded gradients under ZeRO-3); shard_ranks = dp x cp, or training.shard_group, or the ranks "
               "in one site  (fp32 gradients: 4 bytes, else 2)",
               "bytes_per_gradient", gbytes, e.memory.gradients, zero_src + "; Megatron bf16 keeps fp32 main_grad buffers");
    state_part("training.memory_per_gpu_bytes.optimizer",
               "stage_params x bytes_per_param_of_state / (zero >= 1 ? shard_ranks [experts: shard_ranks x tp / (ep x expert_tp)] : "
               "1); shard_ranks = dp x cp, or training.shard_group, or the ranks in one site  (Adam: fp32 master + m, v = 12; 8 when the "
               "weights are the fp32 master: fp32 training, FSDP's sharded parameters; "
               "SGD: 8 or 4)",
               "bytes_per_param_of_state", sb.optimizer, e.memory.optimizer, zero_src);
}

// Derivations of the activations, the overhead and the total per device (activation_memory, memory_per_device).
GPUCALC_COLD void explain_activation_memory(const StepInputs& in, const TrainingConfig& cfg, const StepEstimate& e, Trace& trace) {
    const double cp = static_cast<double>(cfg.cp);
    // The two terms besides the layers' (activation_memory): a red team could not recompute the figure
    // without them (2 GB of logits on Llama 3 8B at 32k tokens, a whole layer under full recompute).
    const double logits = 4.0 * in.seq / cp * static_cast<double>(cfg.micro_batch) * in.vocab / static_cast<double>(cfg.tp);
    TrainingConfig kept = cfg;
    kept.recompute = Recompute::none;
    const double recomputed = cfg.recompute == Recompute::full ? activation_bytes_per_layer(in, kept) : 0.0;
    trace.add(
        "training.memory_per_gpu_bytes.activations",
        "max(first stage: activation_bytes_per_layer x stage_layers x in_flight_microbatches, last stage: the same x 1 "
        "micro-batch + logits_bytes (fp32, 4 s/cp b V / tp)) + recomputed_layer_bytes (full recompute: the layer being recomputed) "
        "(one device without pipelining or with DualPipe: the sum; another device j sized instead: "
        "its layers x min(m, p - j) in flight, under DualPipe p - j of stage j's and j + 1 of stage p - 1 - j's); per layer s/cp x b x h x "
        "[(Q, K, V, attention output at their widths + MLP(GELU 4r | SwiGLU 6r)) / tp + (8 + 2 dropout) / (SP ? tp : 1)]; full "
        "recompute: 2 s/cp b h / (SP ? tp : 1)",
        {{"activation_bytes_per_layer", e.activation_bytes_per_layer},
         {"stage_layers", e.first_stage_layers},
         {"sized_stage", e.sized_stage},
         {"in_flight_microbatches", e.sized_in_flight},
         {"seq", in.seq},
         {"micro_batch", static_cast<double>(cfg.micro_batch)},
         {"hidden", in.hidden},
         {"tp", static_cast<double>(cfg.tp)},
         {"cp", cp},
         {"vocab", in.vocab},
         {"logits_bytes", logits},
         {"recomputed_layer_bytes", recomputed}},
        e.memory.activations, "bytes", "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2, generalised (GQA, SwiGLU, no dropout, CP)");
    // DiLoCo's outer state kept on the device is a part of its own (memory_total): a red team summed the
    // parts listed and missed it, and could not recompute the overhead without the terms it multiplies.
    const MemoryPerGpu& m = e.memory;
    const double others = m.weights + m.gradients + m.optimizer + m.activations + m.outer_optimizer;
    trace.add("training.memory_per_gpu_bytes.overhead",
              "overhead_bytes + fragmentation x other_terms; other_terms = weights + gradients + optimizer + activations + outer_optimizer",
              {{"overhead_bytes", cfg.overhead_bytes}, {"fragmentation", cfg.fragmentation}, {"other_terms", others}}, m.overhead, "bytes",
              "user-adjustable allowance (CUDA context, NCCL buffers, allocator)");
    explain_memory_total(trace, m, "",
                         " (outer_optimizer: DiLoCo's fp32 anchor weights and outer momentum on the device, 8 bytes per parameter "
                         "sharded as the optimizer state; 0 when synchronous or offloaded)",
                         "the parts above; DiLoCo outer state: Douillard et al. 2023 (arXiv:2311.08105) Algorithm 1");
}

// What the compute terms of one micro-batch share: the peaks, the HBM bandwidth reached, its tokens
// and what is recomputed.
struct ComputeTerms {
    double peak16, peak_gemm;  // FLOP/s: 16-bit (attention, MFU) and the GEMMs' precision
    double bw;                 // HBM bytes/s at the generation's memory efficiency
    double tokens;             // tokens of one micro-batch on one device (sequence split by CP)
    double rc;                 // 1 with full recomputation
    double rc_att;             // 1 when the attention's forward is recomputed (full, or selective where the framework repeats it)
    double rc_gemm, rc_mem;    // share of the forward GEMM FLOPs recomputed; 1 when element-wise ops are
};

// Peaks, bandwidth, tokens and recomputation factors of the layout on the device.
ComputeTerms compute_terms(const StepInputs& in, const TrainingConfig& cfg, const Device& d, const Efficiency& eff, const StepLayout& L) {
    ComputeTerms c;
    c.peak16 = d.peak(d.sixteen_bit(cfg.precision)).value_or(0);
    c.peak_gemm = L.fp8 ? d.peak(Precision::fp8).value_or(0) : c.peak16;
    c.bw = d.memory_bandwidth_bytes_per_second.value_or(0) * eff.gen.memory;
    c.tokens = L.b * in.seq / L.cp;
    c.rc = L.full ? 1.0 : 0.0;
    // Selective recomputation repeats the attention: the score GEMMs of unfused attention (Korthikanti
    // et al. 2022 Sec. 5), and in Megatron-Core the fused kernel as well, which it checkpoints as
    // 'core_attn' (megatron/core/transformer/attention.py: checkpoint_core_attention =
    // recompute_granularity == 'selective' and 'core_attn' in recompute_modules, the default list;
    // the framework's selective_recomputes_attention). Legacy Megatron-LM recomputed only its unfused
    // path, and torchtitan's per-op policy saves the attention's output.
    c.rc_att = L.full || (L.selective && (!L.flash || eff.fw.selective_recomputes_attention)) ? 1.0 : 0.0;
    // Torchtitan's per-op policy ('op' selective AC) saves the outputs of every second matmul and of
    // attention and recomputes the rest: the other matmuls' share of the forward GEMM FLOPs (the framework's
    // selective_gemm_recompute) and every element-wise op.
    const double rc_sel = L.selective && L.flash ? eff.fw.selective_gemm_recompute : 0.0;
    c.rc_gemm = L.full ? 1.0 : rc_sel;
    c.rc_mem = L.full || rc_sel > 0 ? 1.0 : 0.0;
    return c;
}

// Slowdowns of GEMMs by inner dimension K: a kernel reaches K / (K + K_half) of its long-K efficiency.
struct GemmSlowdown {
    double k_half;                                                          // K at half efficiency
    double fwd;                                                             // forward passes per step: 1 + the recomputed share
    double slow(double K) const { return K > 0 ? 1.0 + k_half / K : 1.0; }  // 1 / (K / (K + K_half))
    // One weight matrix of `params`: forward (repeated when recomputed), data- and weight-gradient GEMMs.
    double three(double params, double sf, double sd, double sw, double rows_slow) const {
        return params * ((fwd * sf + sd) * rows_slow + sw);
    }
};

// Routed-expert parameters one token passes through per layer (its top-k experts), averaged over all layers.
double active_expert_params(const StepInputs& in) {
    return in.experts > 0 ? in.moe_layer_fraction * in.experts_per_token * (in.expert_params_per_layer / std::max(1.0, in.experts)) /
                                std::max(1e-9, in.moe_layer_fraction)
                          : 0.0;
}

// Dense GEMM work of the slowest stage's layers (FLOPs x slowdowns): attention projections, dense MLPs.
double dense_gemm_work(const StepInputs& in, const StepLayout& L, const GemmSlowdown& s, double tokens, double expert_active) {
    const double h = in.hidden, a = in.heads, t = L.t;
    // Per layer: QKV (K = h forward, its output width per rank backward), the output projection
    // (K = attention width / tp forward, h backward), the MLP's first (K = h; gate + up / tp) and
    // second (K = ffn / tp; h) matrices; weight gradients K = tokens of the micro-batch. A forward
    // GEMM is repeated when recomputed. MLA's low-rank projections are counted as QKV.
    const double swiglu_in = in.swiglu > 0 ? 2.0 : 1.0;
    const double out_proj = h * a * in.attn_width_v;
    const double qkv = std::max(0.0, in.attn_params_per_layer - out_proj);
    const double ffn_dense = std::max(0.0, in.ffn_matmul_params_per_layer_active - expert_active);
    const double ffn_w = ffn_dense / (h * (1.0 + swiglu_in));  // dense MLP width (averaged over layers)
    // Inverse efficiencies (slowdowns) of the inner dimensions that recur, computed once: the plan
    // search evaluates this ~10^4 times.
    const double s_h = s.slow(h), s_tok = s.slow(tokens);
    double layer = s.three(qkv, s_h, s.slow(qkv / h / t), s_tok, 1.0) + s.three(out_proj, s.slow(a * in.attn_width_v / t), s_h, s_tok, 1.0);
    if (ffn_dense > 0)
        layer += s.three(ffn_w * h * swiglu_in, s_h, s.slow(swiglu_in * ffn_w / t), s_tok, 1.0) +
                 s.three(ffn_w * h, s.slow(ffn_w / t), s_h, s_tok, 1.0);
    layer *= 2.0 * tokens / t;
    return L.Ls * layer;
}

// The output layer's (logits') forward FLOPs per device of one micro-batch.
double output_flops(const StepInputs& in, const StepLayout& L, double tokens) { return 2.0 * tokens * in.hidden * in.vocab / L.t; }

// The output layer's GEMM work (FLOPs x slowdowns): forward K = h, data gradient K = vocab / tp,
// weight gradient K = tokens; never recomputed.
double logit_gemm_work(const StepInputs& in, const StepLayout& L, const GemmSlowdown& s, double tokens) {
    return output_flops(in, L, tokens) * (s.slow(in.hidden) + s.slow(in.vocab / L.t) + s.slow(tokens));
}

// Routed experts' GEMM work of one layer (FLOPs x slowdowns).
double expert_gemm_work(const StepInputs& in, const StepLayout& L, const GemmSlowdown& s, double tokens, double expert_active) {
    const double h = in.hidden, t = L.t;
    const double swiglu_in = in.swiglu > 0 ? 2.0 : 1.0;
    // Routed experts: each receives rows = tokens x top-k / experts (gathered over the EP
    // group); few rows leave tiles empty (M half-efficiency kGemmHalfRows), and its weight
    // gradient has K = rows.
    // Under MoE parallel folding (expert_tp et < tp) an expert is split over et ranks only, and the
    // ep x et ranks of its group gather the sequence-parallel shares of ep x et / tp micro-batches.
    const double fe = in.expert_ffn_width / L.et;
    const double rows = tokens * L.ep * L.et / t * in.experts_per_token / in.experts;
    const double m_slow = (rows + kGemmHalfRows) / rows;
    const double per_expert = expert_active / (in.expert_ffn_width * h * (1.0 + swiglu_in));  // expert matrices per token (k [+ shared])
    const double s_h = s.slow(h), s_rows = s.slow(rows), s_fe = s.slow(fe);
    return 2.0 * tokens / t * per_expert *
           (s.three(in.expert_ffn_width * h * swiglu_in, s_h, s.slow(swiglu_in * fe), s_rows, m_slow) +
            s.three(in.expert_ffn_width * h, s_fe, s_h, s_rows, m_slow));
}

// The output layer's (logits') GEMM time of one micro-batch. It stays in 16 bits under FP8 training:
// Megatron-Core's output_layer is a tensor_parallel.ColumnParallelLinear, not a Transformer Engine
// module, so fp8_autocast leaves it alone (megatron/core/models/gpt/gpt_model.py); torchtitan converts
// every nn.Linear but "output" to float8 (torchtitan/float8.py at 9dec370: module_filter_fn = fqn !=
// "output"); DeepSeek-V3 keeps "the output head" in BF16/FP32 (arXiv:2412.19437 Sec. 3.3.1). Its GEMMs
// run at the 16-bit peak and efficiency.
double output_gemm_seconds(const StepInputs& in, const Efficiency& eff, const StepLayout& L, const ComputeTerms& c) {
    const GemmKernel k16 = gemm_kernel(eff, false);
    const bool in16 = L.fp8 && c.peak16 > 0 && k16.e_long > 0;  // FP8 training: the output layer in 16 bits
    const GemmKernel k = in16 ? k16 : gemm_kernel(eff, L.fp8);
    const double peak = in16 ? c.peak16 : c.peak_gemm;
    if (!(peak > 0 && k.e_long > 0)) return 0.0;
    return logit_gemm_work(in, L, GemmSlowdown{k.k_half, 1.0}, c.tokens) / (peak * k.e_long);
}

// The loss over the vocab-parallel logits (tokens x vocab / tp per device, once per micro-batch):
// the framework's counted bytes per logit, forward and backward (calibration.json
// loss_bytes_per_logit; Megatron-Core's fused cross entropy moves 32, the unfused one 52), moved at
// HBM bandwidth, not scaled by memory_traffic.
double loss_bytes(const StepInputs& in, const FrameworkProfile& fw, const StepLayout& L, const ComputeTerms& c) {
    return fw.loss_bytes_per_logit * c.tokens * in.vocab / L.t;
}

// GEMM time of one micro-batch on the slowest stage, and the fraction of the GEMM peak it reaches.
void gemm_time(const StepInputs& in, const Efficiency& eff, const StepLayout& L, const ComputeTerms& c, StepTime& mb, StepEstimate& r) {
    // GEMMs: a kernel of inner dimension K reaches e_long x K / (K + K_half) of the peak (gemm_kernel,
    // efficiency.hpp; Hopper's constants measured on an H200 over these layer shapes,
    // tests/data/kernels/h200-2026-11-30.json). Forward GEMMs have K = the input width per rank,
    // data-gradient GEMMs K = the output width, weight-gradient GEMMs K = the tokens (calibration.json).
    const GemmKernel kernel = gemm_kernel(eff, L.fp8);
    const double e_long = kernel.e_long, k_half = kernel.k_half;
    r.gemm_peak = c.peak_gemm;
    if (!(c.peak_gemm > 0 && e_long > 0)) return;
    // Dense GEMMs (attention projections and dense MLPs) at the width-dependent efficiency; routed
    // experts' GEMMs at the efficiency of their own width and of the rows each expert receives
    // (tokens x top-k / experts per expert, gathered over the EP group): small experts run slowly.
    const double expert_active = active_expert_params(in);
    const double f_dense = 2.0 * c.tokens * (in.attn_params_per_layer + in.ffn_matmul_params_per_layer_active - expert_active) / L.t;
    const double f_expert = 2.0 * c.tokens * expert_active / L.t;
    const double f_logit = L.logits * output_flops(in, L, c.tokens);
    const GemmSlowdown s{k_half, 1.0 + c.rc_gemm};
    mb.gemm = dense_gemm_work(in, L, s, c.tokens, expert_active) / (c.peak_gemm * e_long);
    if (L.logits > 0) mb.gemm += output_gemm_seconds(in, eff, L, c);  // the output layer, on the last stage
    // Routed experts' grouped GEMMs at that efficiency too: measured on an H200 they match it within
    // ~10 % for the reference runs' large expert layers (tools/device/moe_layer.py; docs/VALIDATION.md);
    // the routing around them is memory traffic (memory_bound_seconds, moe_overhead).
    if (f_expert > 0) mb.gemm += L.Ls * expert_gemm_work(in, L, s, c.tokens, expert_active) / (c.peak_gemm * e_long);
    const double flops = L.Ls * (f_dense * (3.0 + c.rc_gemm) + f_expert * (3.0 + c.rc_gemm)) + f_logit * 3.0;
    r.gemm_efficiency = mb.gemm > 0 ? flops / (mb.gemm * c.peak_gemm) : e_long;
}

// Attention time of one micro-batch on the slowest stage, and the efficiency of its kernel.
void attention_time(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, const StepLayout& L, const ComputeTerms& c,
                    const LayerActivations& act, StepTime& mb, StepEstimate& r) {
    if (!(c.peak16 > 0)) return;
    const double cp = L.cp, Ls = L.Ls;
    // Attention: each query of a causal model sees on average half of its window; unfused attention
    // computes the whole score matrix and masks it. A hybrid model's full-attention layers (a
    // fraction `full` of them) see the whole sequence.
    const double full = in.full_attention_fraction;
    auto keys_causal = [&](double w) { return w >= in.seq ? in.seq / 2.0 : w * (1.0 - w / (2.0 * in.seq)); };
    const double per_key = 2.0 * c.tokens * in.heads * (in.attn_width_qk + in.attn_width_v) / L.t;
    const double f_full = full * per_key * keys_causal(in.seq), f_window = (1.0 - full) * per_key * keys_causal(in.window);
    const double f_att = L.flash ? f_full + f_window : per_key * in.window_mean();
    if (L.flash) {
        // Fused attention at the kernel's measured efficiency for the sequence each call sees (the
        // window, or the CP chunk: ring attention runs s/cp x s/cp blocks) and the head dimension:
        // FlashAttention-2 (Dao 2023, arXiv:2307.08691, Fig. 4: A100 causal head dim 128 forward +
        // backward 99 TFLOP/s at 512 tokens, 155 at 2K, 189 at 16K; FlashAttention in Triton 50-80),
        // FlashAttention-3 / cuDNN (Shah et al. 2024, arXiv:2407.08608, Fig. 5). efficiency.cpp.
        const AttentionKernel kernel = cfg.attention_kernel.value_or(eff.fw.attention_impl);
        // Ring attention (cp > 1) splits one kernel into 2 cp block calls whose partial outputs are
        // rescaled and merged in fp32, with the KV exchange competing for SMs (Liu et al. 2023,
        // arXiv:2310.01889; Megatron-Core / Transformer Engine context parallelism; torch
        // context_parallel): its time grows by ring_overhead x (1 - 1/cp), fitted on the CP runs.
        auto kernel_efficiency = [&](double w) {
            const double s_call = std::min(w, in.seq / cp);
            return ring_attention_efficiency(attention_efficiency(eff, kernel, s_call, 0.5 * (in.attn_width_qk + in.attn_width_v)), cp);
        };
        // Hybrid layers: each group at its own call length; the efficiency reported is the one that
        // gives their summed time on all the attention FLOPs (f_full / e_full + f_window / e_window).
        const double e_window = kernel_efficiency(in.window);
        r.attention_efficiency = f_full > 0 ? f_att / (f_full / kernel_efficiency(in.seq) + f_window / e_window) : e_window;
        r.attention_passes = 3.5 + c.rc_att;  // backward = 2.5 x forward
    } else {
        // Unfused: batched score GEMMs (QK^T, PV) at the generation's attention efficiency.
        r.attention_efficiency = eff.attention_given.value_or(eff.gen.attention * eff.fw.attention_kernel);
        r.attention_passes = 3.0 + c.rc_att;
        if (c.bw > 0) r.attention_score_seconds = act.scores * (2.0 * (1.0 + c.rc_att) + 4.0) / c.bw;  // score tensors at HBM bandwidth
    }
    r.attention_forward_flops = f_att;
    r.attention_peak = c.peak16;
    mb.attention = Ls * (f_att * r.attention_passes / (c.peak16 * r.attention_efficiency) + r.attention_score_seconds);
}

// Memory-bound time of one micro-batch on the slowest stage (element-wise ops, FP8 casts, MoE permutations).
double memory_bound_seconds(const StepInputs& in, const FrameworkProfile& fw, const StepLayout& L, const ComputeTerms& c,
                            const LayerActivations& act) {
    if (!(c.bw > 0)) return 0.0;
    const double t = L.t, h = in.hidden, tokens = c.tokens;
    // Norms, activations, residuals, dropout: each stored tensor written once and read twice forward,
    // read 4 times backward; FP8 adds casts of every GEMM input (read 2 + write 1 bytes per element).
    // A routed expert's first GEMM quantizes its own copy of each token it receives, after the
    // dispatch: top-k copies of h per token in MoE layers, not one (Transformer Engine GroupedLinear
    // quantizes the permuted input split by expert, transformer_engine/pytorch/module/grouped_linear.py;
    // DeepSeek-V3 arXiv:2412.19437 Sec. 3.3 quantizes before dispatch instead, which this does not model).
    const double base = act.split + act.unsplit / (L.sp ? t : 1.0);
    const double mlp_in = h * (1.0 + in.moe_layer_fraction * std::max(0.0, in.experts_per_token - 1.0));
    const double casts = L.fp8 ? 3.0 * 3.0 * tokens * (2.0 * h + mlp_in + in.ffn_width_active) / t : 0.0;
    // MoE: tokens permuted to their experts and back (read + write, forward and twice backward), x
    // moe_overhead for what the routing costs beyond these bytes (router, top-k, sorting, split sizes,
    // gathers; fitted: one rank's unfused PyTorch routing measured on an H200 took 5.3-11x them at the
    // datasheet bandwidth, tests/data/kernels/h200-moe-2026-11-30.json). It scales with tokens x
    // top-k, not with the experts' FLOPs: coarse experts (Mixtral) pay little, fine-grained ones
    // (top-8 of 128) much.
    const double permute = in.moe_layer_fraction * tokens * in.experts_per_token * h * 2.0 * 2.0 * 2.0 * 3.0 / t;
    // Eager PyTorch: the element-wise bytes torch.compile fuses away (eager_bytes), forward, again
    // when recomputed, and twice in backward (each op's backward reads its saved input and the
    // incoming gradient and writes its own, as the passes above); counted bytes, not scaled by
    // the framework's memory_traffic (fitted on compiled runs).
    const double eager = L.eager ? tokens * (in.eager_unsplit / (L.sp ? t : 1.0) + in.eager_split / t) * (1.0 + c.rc_mem + 2.0) : 0.0;
    // The loss, on the last stage (loss_bytes).
    return (L.Ls * ((base * (2.0 * (1.0 + c.rc_mem) + 4.0) + casts + fw.moe_overhead * permute) * fw.memory_traffic + eager) +
            (L.logits > 0 ? loss_bytes(in, fw, L, c) : 0.0)) /
           c.bw;
}

// The cluster's links as the step model sees them, at the generation's network efficiency.
struct Links {
    const NetworkLevels& net;
    double network;  // fraction of the nominal bandwidth reached (GenerationEfficiency::network)
    double lat;      // calibrated latency of one collective call
    Fabric fabric;   // ring collectives over the levels
    // Point-to-point bandwidth per device for a group spanning `span` devices: scale-up inside a node,
    // the NIC inside a site, a fair share of the site's WAN link beyond.
    double link(double span) const {
        if (net.sites > 1 && span > net.devices_per_site) return net.wan * network / net.devices_per_site;
        return (span <= net.devices_per_node ? net.scale_up : net.scale_out) * network;
    }
    // Latency of one point-to-point step for a group spanning `span` devices.
    double latency(double span) const {
        if (net.sites > 1 && span > net.devices_per_site) return std::max(lat, net.wan_latency);
        return span <= net.devices_per_node ? lat : std::max(lat, net.scale_out_latency);
    }
};

// The links of the resolved network levels.
Links links_of(const NetworkLevels& net, const GenerationEfficiency& g) {
    const double lat = g.collective_latency_seconds;
    return Links{net, g.network, lat,
                 Fabric{net.scale_up * g.network, net.scale_out * g.network, net.devices_per_node, lat,
                        std::max(lat, net.scale_out_latency), net.sites, net.devices_per_site, net.wan * g.network, net.wan_latency}};
}

// Exposed tensor-parallel communication of one micro-batch.
double tp_comm_seconds(const StepInputs& in, const FrameworkProfile& fw, const StepLayout& L, const ComputeTerms& c, const Links& links,
                       StepEstimate& r) {
    if (L.t <= 1) return 0.0;
    // 4 all-reduce-equivalents per layer (2 forward, 2 backward; +2 with full recomputation) of the
    // 16-bit activations; with SP each is an all-gather + reduce-scatter pair of the same volume, and
    // the backward gathers the sequence-sharded inputs of the two column-parallel GEMMs (QKV, MLP
    // first) again for their weight gradients: one more (Megatron-Core tensor_parallel/layers.py
    // LinearWithGradAccumulationAndAsyncCommunication.backward, sequence_parallel all-gather;
    // Korthikanti et al. 2022 Sec. 4.2.2).
    const double bytes = 2.0 * c.tokens * in.hidden;
    // Half of them are the attention block's, half the MLP's. In an MoE layer the shared experts keep
    // the attention's tensor-parallel group (Megatron-Core SharedExpertMLP), while the routed experts
    // gather their tokens after the all-to-all, each already copied top-k times, over the expert_tp
    // ranks and reduce-scatter them back (token_dispatcher.py, the expert-TP group): a ring over
    // expert_tp ranks of top-k x expert_tp / tp times the activations (none when expert_tp is 1).
    const double n_half = L.Ls * (2.0 + c.rc + (L.sp ? 0.5 : 0.0));
    const double ring_t = links.fabric.ring(2.0, bytes, L.t, 1.0);
    const double f = in.moe_layer_fraction;
    auto routed_bytes = [&] { return bytes * in.experts_per_token * L.et / L.t; };
    const double routed = L.et > 1 ? links.fabric.ring(2.0, routed_bytes(), L.et, 1.0) : 0.0;
    const double ring_mlp = (1.0 - f) * ring_t + f * ((in.shared_experts > 0 ? ring_t : 0.0) + routed);
    if (StepTerms* x = r.terms) {
        x->tp_tokens = c.tokens, x->tp_ring_attention_seconds = ring_t, x->tp_ring_mlp_seconds = ring_mlp;
        x->tp_ring_routed_seconds = routed, x->tp_attention = links.fabric.record(2.0, bytes, L.t, 1.0, ring_t);
        if (L.et > 1) x->tp_routed = links.fabric.record(2.0, routed_bytes(), L.et, 1.0, routed);
    }
    return (1.0 - fw.tp_overlap) * n_half * (ring_t + ring_mlp);
}

// Exposed exchange of one layer under torch's context_parallel (torch/distributed/tensor/experimental/
// _attention.py, _templated_ring_attention and its backward; the default rotate method ALL_GATHER,
// which torchtitan keeps: --experimental.context_parallel_rotate_method "allgather" at 9dec370).
// Each forward (and recomputed forward) all-gathers every rank's K and V once and waits for them
// after the first, local block: 1/cp of the layer's forward attention hides it. The backward
// all-gathers K and V again behind its first block and passes the K/V gradients around the ring
// in fp32 (_ContextParallelOptions.convert_to_f32, the gradient rotater all-to-all), each send
// hidden by the next block and the last one waited for after the loop.
double cp_allgather_exposed(const StepLayout& L, const ComputeTerms& c, const Links& links, double chunk, double attention) {
    const double cp = L.cp, span = L.t * cp;
    const double fwd = attention / (L.Ls * (3.5 + c.rc_att)), bwd = 2.5 * fwd;  // one layer's attention passes
    const double gather = links.fabric.ring(1.0, cp * chunk, cp, L.t);
    const double grad_step = 2.0 * chunk / links.link(span) + links.latency(span);
    return (1.0 + c.rc_att) * std::max(0.0, gather - fwd / cp) + std::max(0.0, gather - bwd / cp) +
           (cp - 1.0) * std::max(0.0, grad_step - bwd / cp) + grad_step;
}

// Exposed context-parallel KV exchange of one micro-batch (ring attention).
double cp_comm_seconds(const StepInputs& in, const FrameworkProfile& fw, const StepLayout& L, const ComputeTerms& c, const Links& links,
                       double attention) {
    if (L.cp <= 1) return 0.0;
    const double t = L.t, cp = L.cp, a = in.heads;
    // K and V of one rank's tokens in 16 bits; a framework that repeats the key/value heads to every
    // query head before attention (kv_repeated) exchanges the repeated tensors.
    const double kv_heads = fw.kv_repeated ? 1.0 : in.kv_ratio;
    const double kv_width = in.mla > 0 ? a * (in.attn_width_qk + in.attn_width_v) / t : 2.0 * kv_heads * a * in.attn_width_qk / t;
    const double chunk = 2.0 * c.tokens * kv_width;
    if (fw.cp_allgather) return L.Ls * cp_allgather_exposed(L, c, links, chunk, attention);
    // Ring attention: cp - 1 steps forward passing K and V chunks; backward passes them again with
    // their gradients (x2); exposed when it outlasts the attention it overlaps.
    const double bytes = chunk * (cp - 1.0) * (3.0 + c.rc_att);  // a recomputed attention passes them again
    const double t_cp = L.Ls * (bytes / links.link(t * cp) + (cp - 1.0) * links.latency(t * cp));
    return std::max(0.0, t_cp - fw.cp_overlap * attention);
}

// Pipeline sends of one micro-batch between stages inside a site (activations forward, gradients backward).
double pp_comm_seconds(const StepInputs& in, const FrameworkProfile& fw, const StepLayout& L, const ComputeTerms& c, const Links& links) {
    if (L.p <= 1) return 0.0;
    // Each tensor-parallel rank sends its own share: the sequence-parallel activations are already
    // split, and Megatron splits the replicated ones (its scatter/gather optimization: t chunks over
    // the t ranks' own links, all-gathered over NVLink on the other side; Narayanan et al. 2021,
    // arXiv:2104.04473 Sec. 4.1).
    const double bytes = 2.0 * c.tokens * in.hidden / (L.sp || fw.pp_scatter_gather ? L.t : 1.0);
    // Boundaries inside a site; those across sites are added per step (pipeline_across_sites). In one
    // site pipeline parallelism is the outermost dimension (Megatron-Core's rank order tp-cp-ep-dp-pp;
    // torchtitan's device mesh and DeepSpeed's pipe-data-model topology likewise): stage k holds ranks
    // [k s, (k + 1) s), s = tp x cp x dp, and rank r sends to r + s. That send stays in a node only
    // when s is under a node and the boundary falls inside one; the stages run in lock-step (1F1B), so
    // the slowest boundary sets the time: every send is in-node only when all pp x s ranks fit one node
    // (link(span) compares span with devices_per_node). Across sites each site holds whole replicas
    // (their stages contiguous, t x cp ranks apart): the same rule over one replica's t x cp x pp ranks.
    const double span = links.net.sites > 1 ? std::min(L.t * L.cp * L.p, links.net.devices_per_site) : L.t * L.cp * L.dp * L.p;
    return 2.0 * L.v * (bytes / links.link(span) + links.latency(span));
}

// Exposed expert-parallel all-to-all of one micro-batch (MoE token dispatch and combine).
double ep_comm_seconds(const StepInputs& in, const FrameworkProfile& fw, const StepLayout& L, const ComputeTerms& c, const Links& links) {
    if (!(L.ep > 1 && in.moe_layer_fraction > 0)) return 0.0;
    const double t = L.t, ep = L.ep, tokens = c.tokens, dpn = links.net.devices_per_node;
    // All-to-all dispatch and combine per MoE layer, forward and backward (4; 6 with full recompute):
    // each token's hidden state goes to its top-k experts, (ep-1)/ep of them on other ranks (GShard;
    // DeepSpeed-MoE Sec. 5). The alltoall dispatcher sends one copy per routed expert, whatever rank
    // or node holds it (Megatron-Core MoEAlltoAllTokenDispatcher: num_out_tokens = tokens x topk, the
    // splits summed per expert; moe_utils.permute one row per routing entry), group-limited routing
    // included. The deepep dispatcher sends a token once per node its experts fall on, n x (1 - (1 -
    // 1/n)^k) of n nodes under balanced routing (as inference.cpp ep_alltoall), at most
    // max_routed_nodes (DeepSeek-V3 node-limited routing, arXiv:2412.19437 Sec. 2.1.2), and inside a
    // node once per GPU its experts fall on; the IB sends and the NVLink forwarding run concurrently in
    // one kernel (deepseek-ai/DeepEP csrc/kernels internode.cu: per-node RDMA sends, per-rank
    // forwarding; "communications via IB and NVLink are fully overlapped", DeepSeek-V3 Sec. 3.2.2), so
    // the slower leg sets the time. Combine returns what dispatch sent (summed per node first).
    const double k = in.experts_per_token;
    const double span = L.et * ep;  // the expert-parallel group's ranks: ep x expert_tp consecutive ones
    const double bytes_token = 2.0 * in.hidden;
    auto hit = [&](double n) { return n * (1.0 - ipow(1.0 - 1.0 / n, k)); };  // of n equal holders, those k experts fall on
    const double ranks = L.deepep ? std::min(k, hit(ep)) : k;                 // copies sent to expert ranks
    double t_a2a = 0;
    if (span <= dpn) {
        t_a2a = tokens * bytes_token * ranks * (ep - 1.0) / ep / links.link(span);
    } else {
        const double nodes = std::ceil(span / dpn);
        double per_node = k;  // copies a token sends to other nodes, (nodes - 1)/nodes of them remote
        if (L.deepep) {
            per_node = hit(nodes);
            if (in.max_routed_nodes > 0) per_node = std::min({per_node, in.max_routed_nodes, nodes});
        }
        const double inter = tokens * bytes_token * per_node * (nodes - 1.0) / nodes;
        if (L.deepep) {
            const double forwarded = tokens * bytes_token * ranks * (dpn - 1.0) / dpn;  // copies moved inside the receiving nodes
            t_a2a = std::max(inter / links.link(span), forwarded / links.link(1.0));
        } else {
            const double intra = tokens * bytes_token * k * (dpn - 1.0) / span;
            t_a2a = inter / links.link(span) + intra / links.link(1.0);
        }
    }
    const double n_a2a = L.Ls * in.moe_layer_fraction * (4.0 + 2.0 * c.rc);
    return (1.0 - fw.ep_overlap) * n_a2a * (t_a2a / t + links.latency(span));
}

// The pipeline bubble in micro-batch times: (p - 1) / vpp of the micro-batch for 1F1B (Narayanan et
// al. 2021 Sec. 2.2), or DualPipe's (p/2 - 1) x 2/3 of its compute (dualpipe_step); 0 without a pipeline.
double bubble_microbatches(const StepLayout& L) {
    if (!(L.p > 1)) return 0.0;
    return L.dualpipe ? std::max(0.0, L.p / 2.0 - 1.0) * (2.0 / 3.0) : (L.p - 1.0) / L.v;
}

// Kernel launch and per-layer fixed time of one micro-batch on a stage (the framework's constant).
double kernel_overhead_seconds(const StepLayout& L, const ComputeTerms& c, const FrameworkProfile& fw) {
    return L.Ls * (3.0 + c.rc) * fw.kernel_seconds_per_layer;
}

// DualPipe (DeepSeek-V3, arXiv:2412.19437 Sec. 3.2.1, Table 2): a forward chunk of one micro-batch
// runs against a backward chunk of another, so the all-to-all and pipeline sends hide behind their
// computation ("both all-to-all and PP communication can be fully hidden"; exposed only beyond it),
// and the bubble is (p/2 - 1)(F&B + B - 3W) instead of (p - 1)(F + B): with F : B = 1 : 2 and the
// weight gradients W half of B (each a third of the micro-batch), F&B + B - 3W = 2/3 of it.
void dualpipe_step(const StepLayout& L, const StepTime& mb, double compute_mb, StepEstimate& r) {
    const double hidden_comm = mb.ep_comm + mb.pp_comm, exposed = std::max(0.0, hidden_comm - compute_mb);
    const double scale = hidden_comm > 0 ? exposed / hidden_comm : 0.0;
    r.step.ep_comm *= scale;
    r.step.pp_comm *= scale;
    r.microbatch_seconds -= hidden_comm - exposed;
    r.step.pp_bubble = bubble_microbatches(L) * compute_mb;
}

// Combined 1F1B (overlap_moe_comm): the all-to-all time of one micro-batch that the other's compute
// hides, averaged over the step. Only the steady state pairs a forward with a backward: the warm-up
// and cool-down run alone, on the first stage (pp - 1) x 2 + (vpp - 1) x pp + 1 of the step's m x vpp
// chunk passes each way (Megatron-LM megatron/core/pipeline_parallel/schedules.py, interleaved
// warm-up with overlap_moe_expert_parallel_comm: one more; combined_1f1b.py without a pipeline: the
// first forward and the last backward alone). Of the paired ones moe_overlap_hidden is hidden, the
// communication kernels sharing the SMs and the memory with the compute (calibration.json); what it
// hides is what the framework's ep_overlap left exposed.
double moe_hidden(const StepLayout& L, const FrameworkProfile& fw, double ep_comm, double compute) {
    const double alone = 2.0 * (L.p - 1.0) + (L.v - 1.0) * L.p + 1.0;
    const double paired = std::max(0.0, 1.0 - alone / (L.m * L.v));
    return paired * fw.moe_overlap_hidden * std::min(ep_comm, compute);
}

// The step's share of the micro-batches: m of them, and the 1F1B bubble of (p-1)/v micro-batch times
// (Narayanan et al. 2021 Sec. 2.2). Returns the compute time of one micro-batch.
double microbatches_in_step(const StepLayout& L, const FrameworkProfile& fw, const StepTime& mb, StepEstimate& r) {
    const double m = L.m, p = L.p;
    const double compute_mb = mb.gemm + mb.attention + mb.memory_bound + mb.overhead;
    r.microbatch_seconds = compute_mb + mb.tp_comm + mb.cp_comm + mb.pp_comm + mb.ep_comm;
    r.step.gemm = m * mb.gemm;
    r.step.attention = m * mb.attention;
    r.step.memory_bound = m * mb.memory_bound;
    r.step.overhead = m * mb.overhead;
    r.step.tp_comm = m * mb.tp_comm;
    r.step.cp_comm = m * mb.cp_comm;
    r.step.pp_comm = m * mb.pp_comm;
    r.step.ep_comm = m * mb.ep_comm;
    // The bubble is the warm-up and cool-down's, which run unpaired (moe_hidden): at the whole micro-batch time.
    r.step.pp_bubble = p > 1 ? bubble_microbatches(L) * r.microbatch_seconds : 0.0;
    if (L.moe_overlap) {
        // Combined 1F1B (Megatron-Core --overlap-moe-expert-parallel-comm, megatron/core/pipeline_parallel/
        // combined_1f1b.py): the forward of one micro-batch runs against the backward of another, each
        // one's all-to-all behind the other's compute, up to that compute (as under DualPipe), in the
        // steady state (moe_hidden).
        const double exposed = mb.ep_comm - moe_hidden(L, fw, mb.ep_comm, compute_mb);
        r.step.ep_comm = m * exposed;
        r.microbatch_seconds -= mb.ep_comm - exposed;
    }
    if (L.dualpipe) dualpipe_step(L, mb, compute_mb, r);
    return compute_mb;
}

// The data-parallel group as its collectives see it.
struct DpGroup {
    double local;     // ranks of the group inside one site
    double shard;     // ranks of one ZeRO shard group
    double replicas;  // shard groups inside a site (hybrid sharding)
    double stride;    // devices between neighbouring data-parallel ranks
    double overlap;   // seconds of compute a once-per-step reduction hides behind
    // The routed experts' expert-data-parallel group: shard x tp / (ep x expert_tp) ranks, ep x
    // expert_tp apart (Megatron-Core's expert rank order tp-ep-dp: the ep ranks of an expert-tp group
    // are neighbours, so the ranks holding the same experts are ep x expert_tp apart: with EP 8 in a
    // node, one per node, each reduction crossing the node's network through one GPU's NIC).
    double expert_shard, expert_stride;
    double expert_local;   // ranks holding the same experts inside one site
    double expert_params;  // of the device's parameters, those reduced over the expert group (0 across sites:
                           // every parameter goes through the data-parallel group's ring, as before)
};

// Seconds of one collective over the parameters of a device, `bytes_per_param` each: the dense part
// over the data-parallel group, the routed experts over their expert-data-parallel group (one site;
// across sites every parameter goes through the data-parallel group's ring, as before).
// Records collective k's two rings, the dense parameters' and the routed experts' (Fabric::record;
// their seconds t and expert_t), for the derivation of the estimate that is explained (r.terms): out
// of the plan search's path, which only tests r.terms.
[[gnu::noinline, gnu::cold]] void record_rings(const StepEstimate& r, StepTerms::DpTerms::Kind k, const Fabric& fab, double f, double S,
                                               double n, double stride, double t, double expert_S, double expert_n, double expert_stride,
                                               double expert_t) {
    StepTerms::DpTerms& d = r.terms->dp;
    d.timed[k] = true;
    d.rings[k][0] = fab.record(f, S, n, stride, t);
    d.rings[k][1] = fab.record(f, expert_S, expert_n, expert_stride, expert_t);
}

// k: the collective it is (the rings recorded when the estimate is explained).
double param_ring(const Links& links, const StepEstimate& r, const DpGroup& grp, double f, double bytes_per_param, double n,
                  double expert_n, StepTerms::DpTerms::Kind k) {
    const double dense = (r.params_per_gpu - grp.expert_params) * bytes_per_param, experts = grp.expert_params * bytes_per_param;
    // (ring() is 0 for no bytes: a dense model's second term.)
    const double t = links.fabric.ring(f, dense, n, grp.stride), expert_t = links.fabric.ring(f, experts, expert_n, grp.expert_stride);
    if (r.terms) record_rings(r, k, links.fabric, f, dense, n, grp.stride, t, experts, expert_n, grp.expert_stride, expert_t);
    return t + expert_t;
}

// Parameters a device sends per collective over its groups: (n - 1) / n of each part's.
double shard_share(const StepEstimate& r, const DpGroup& grp) {
    const double e = grp.expert_params, d = r.params_per_gpu - e;
    return d * (grp.shard - 1.0) / grp.shard + e * (grp.expert_shard - 1.0) / grp.expert_shard;
}

// ZeRO-3/FSDP: the gathers and reduce-scatters of every micro-batch; sets the step's bytes and exposed time.
void fsdp_comm(const TrainingConfig& cfg, const FrameworkProfile& fw, const Links& links, const StepLayout& L, const DpGroup& grp,
               double compute_mb, StepEstimate& r) {
    // ZeRO-3/FSDP: every micro-batch gathers the weights forward and backward and reduce-scatters
    // its gradients; prefetching overlaps them with compute. A full recomputation gathers nothing
    // more: the checkpointed block sits inside its FSDP unit (torchtitan applies activation
    // checkpointing, then fully_shard, per block), so its forward is recomputed inside the
    // backward's gather (facebookresearch/fairscale#777: "bwd during bwd - NO all gather").
    // The root unit (embeddings and output layer), kept gathered from forward to backward
    // (root_gathered: the memory holds it so), is not gathered again for the backward.
    const double per_param = 2.0 * L.wbytes + L.gbytes, root_gather = r.root_unit_params * L.wbytes;
    const double n_coll = L.Ls * 3.0;  // per layer: gather forward, gather backward, reduce-scatter
    const double dense = (r.params_per_gpu - grp.expert_params) * per_param - root_gather;
    const double experts = grp.expert_params * per_param;
    const double t = links.fabric.ring(1.0, dense, grp.shard, grp.stride),
                 expert_t = links.fabric.ring(1.0, experts, grp.expert_shard, grp.expert_stride);
    const double t_mb = t + expert_t + (n_coll - 1.0) * links.lat * ceil_log2(std::max(2.0, grp.shard));
    if (r.terms)
        record_rings(r, StepTerms::DpTerms::gather_scatter, links.fabric, 1.0, dense, grp.shard, grp.stride, t, experts, grp.expert_shard,
                     grp.expert_stride, expert_t);
    r.dp_bytes = L.m * (per_param * shard_share(r, grp) - root_gather * (grp.shard - 1.0) / grp.shard);
    const double hidden = cfg.overlap_dp_comm ? fw.fsdp_overlap * compute_mb : 0.0;
    if (StepTerms* x = r.terms)
        x->dp.collectives = L.m, x->dp.collective_seconds = t_mb, x->dp.hidden_per_collective = hidden,
        x->dp.fsdp_other_calls = n_coll - 1.0, x->dp.shard = grp.shard;
    r.step.dp_comm = L.m * std::max(0.0, t_mb - hidden);
}

// ZeRO-0/1/2: the gradient reduction inside a site; returns the time of the step's last one (the
// last micro-batch's, and the weights' all-gather) before overlap.
double gradient_reduction(const Links& links, const StepLayout& L, const DpGroup& grp, StepEstimate& r) {
    // ZeRO-0: all-reduce of the gradients; ZeRO-1/2: reduce-scatter of the gradients and all-gather
    // of the updated weights (Megatron's distributed optimizer), overlapped with the last
    // micro-batch's backward and the next forward. ZeRO-2 keeps only its shard of the gradients, so
    // every micro-batch's gradients are reduce-scattered, each behind that micro-batch's backward
    // (deepspeedai/DeepSpeed#2252: "for zero stage 2 (and 3), gradient reduction is required after
    // every backward because of gradient partitioning"; FSDP SHARD_GRAD_OP likewise).
    using K = StepTerms::DpTerms::Kind;
    const double t_rs = param_ring(links, r, grp, 1.0, L.gbytes, grp.shard, grp.expert_shard, K::reduce_scatter);
    const double t_dp = L.zero >= 1 ? t_rs + param_ring(links, r, grp, 1.0, L.wbytes, grp.shard, grp.expert_shard, K::all_gather)
                                    : param_ring(links, r, grp, 2.0, L.gbytes, grp.local, grp.expert_local, K::all_reduce);
    const double earlier = L.zero >= 2 ? L.m - 1.0 : 0.0;  // reductions before the step's last micro-batch
    r.dp_bytes = (L.zero >= 1 ? (1.0 + earlier) * L.gbytes + L.wbytes : 2.0 * L.gbytes) * shard_share(r, grp);
    if (StepTerms* x = r.terms) {
        x->dp.collectives = 1, x->dp.collective_seconds = t_dp, x->dp.hidden_per_collective = grp.overlap;
        x->dp.earlier = earlier, x->dp.reduce_scatter_seconds = t_rs;
    }
    r.step.dp_comm = std::max(0.0, t_dp - grp.overlap) + earlier * std::max(0.0, t_rs - grp.overlap);
    return t_dp;
}

// Hybrid sharding: each rank all-reduces its gradient shard with its peers in the other groups;
// returns its time before overlap.
double hybrid_shard_reduction(const Links& links, const StepLayout& L, const DpGroup& grp, StepEstimate& r) {
    // The routed experts' shards over their own replicas.
    const double e = grp.expert_params;
    const double grad_shard = (r.params_per_gpu - e) * L.gbytes / grp.shard, expert_shard = e * L.gbytes / grp.expert_shard;
    const double expert_replicas = grp.expert_local / grp.expert_shard;
    const double t = links.fabric.ring(2.0, grad_shard, grp.replicas, grp.stride * grp.shard),
                 expert_t = links.fabric.ring(2.0, expert_shard, expert_replicas, grp.expert_stride * grp.expert_shard);
    const double t_rep = t + expert_t;
    if (r.terms)
        record_rings(r, StepTerms::DpTerms::hybrid, links.fabric, 2.0, grad_shard, grp.replicas, grp.stride * grp.shard, t, expert_shard,
                     expert_replicas, grp.expert_stride * grp.expert_shard, expert_t);
    r.dp_bytes += 2.0 * grad_shard * (grp.replicas - 1.0) / grp.replicas + 2.0 * expert_shard * (expert_replicas - 1.0) / expert_replicas;
    if (r.terms) r.terms->dp.hybrid_seconds = t_rep;
    r.step.dp_comm += std::max(0.0, t_rep - grp.overlap);
    return t_rep;
}

// The data-parallel exchange across sites: its payload, its time, and (synchronous) what the step waits for.
void exchange_across_sites(const TrainingConfig& cfg, const Links& links, const StepLayout& L, const DpGroup& grp, double raw_intra,
                           double compute_mb, StepEstimate& r) {
    if (!r.wan) r.wan.emplace();
    // The exchange across sites: each site sends its copy of the model's values (its stages only,
    // when a replica spans several sites) in the outer precision, dense as an all-reduce
    // 2 (s-1)/s x bytes / bandwidth, top-k as an all-gather (s-1) x bytes / bandwidth (a sparse
    // sum is not sparse), + the latency steps; the site's link carries it.
    WanTraffic& w = *r.wan;
    const double sg_dp = L.sg_dp, dps = links.net.devices_per_site;
    w.sites_dp = sg_dp;
    const double site_params = r.params_per_gpu * L.t * L.p * std::min(1.0, dps / (L.t * L.cp * L.p));
    const double b_x = cfg.outer_precision ? outer_precision_bytes(*cfg.outer_precision) : (L.diloco ? 4.0 : L.gbytes);
    const double topk = cfg.outer_topk;
    w.exchange_bytes_per_site = site_params * exchanged_bytes_per_value(b_x, topk);
    w.sync_bytes_per_site_per_step = site_params * L.gbytes * 2.0 * (sg_dp - 1.0) / sg_dp;
    const double wan_bw = links.net.wan * links.network;
    const bool sparse = topk < 1.0;
    const double moved = w.exchange_bytes_per_site * (sparse ? sg_dp - 1.0 : 2.0 * (sg_dp - 1.0) / sg_dp);
    w.exchange_seconds = moved / wan_bw + (sparse ? 1.0 : 2.0) * links.net.wan_latency * ceil_log2(sg_dp);
    w.bytes_per_site_per_step = moved / static_cast<double>(cfg.local_steps);
    if (L.diloco) return;
    // Synchronous: every step, after the reduction inside the site (hierarchical), hidden behind
    // what is left of the backward pass the reduction overlaps; the streaming option delays it
    // by outer_overlap_steps steps (stale gradients), so it also runs during those steps.
    const double left = std::max(0.0, grp.overlap - raw_intra);
    const double hidden = left + static_cast<double>(cfg.outer_overlap_steps) * compute_mb * L.m;
    w.exchange_exposed_seconds = std::max(0.0, w.exchange_seconds - hidden);
    if (StepTerms* x = r.terms)
        x->dp.across_sites_exposed = w.exchange_exposed_seconds, x->dp.across_sites_seconds = w.exchange_seconds,
        x->dp.intra_seconds = raw_intra, x->dp.across_sites_hidden = hidden,
        x->dp.outer_overlap_steps = static_cast<double>(cfg.outer_overlap_steps);
    r.step.dp_comm += w.exchange_exposed_seconds;
}

// Exposed data-parallel communication per step: ZeRO/FSDP collectives inside a site, hybrid
// sharding's all-reduce across shard groups, and the exchange across sites.
void data_parallel_comm(const TrainingConfig& cfg, const FrameworkProfile& fw, const Links& links, const StepLayout& L, double compute_mb,
                        StepEstimate& r) {
    const double dpc = L.dp * L.cp;  // ranks that hold the same weights and reduce gradients together
    if (!(dpc > 1)) return;
    // ZeRO shards within groups of `shard` ranks (all of them unless hybrid sharding is set); with
    // hybrid sharding (HSDP; MaxText multislice) the groups' gradient shards are then all-reduced
    // across the replicas, once per step. Across sites the group reduces inside each site (its
    // dpc / sites ranks there) and the sites exchange over the WAN (below).
    DpGroup grp;
    grp.local = dpc / L.sg_dp;
    // ZeRO-0 shards nothing: a shard group has no effect there (training warns).
    grp.shard = L.zero >= 1 ? std::min(dpc, static_cast<double>(cfg.shard_group.value_or(static_cast<Count>(dpc)))) : dpc;
    if (L.sg_dp > 1) grp.shard = std::min(grp.shard, grp.local);
    grp.replicas = grp.local / grp.shard;
    // Neighbouring ranks of the dp x cp group (CP ranks reduce with the data-parallel ones): tp apart
    // in one site (rank order tp-cp-dp-pp: the CP ranks of a data-parallel rank are tp apart, the next
    // data-parallel rank's follow them, so a node of D devices holds D / tp of the group; tp x cp,
    // taken before, put CP groups that fit in one node across the network); across sites the group
    // spans its dp replicas of tp x cp x pp devices, n x tp x pp in all.
    grp.stride = links.net.sites > 1 ? L.t * L.p : L.t;
    grp.expert_shard = std::max(1.0, grp.shard * L.t / (L.et * L.ep));
    grp.expert_stride = L.et * L.ep;
    grp.expert_local = std::max(1.0, grp.local * L.t / (L.et * L.ep));
    grp.expert_params = links.net.sites > 1 ? 0.0 : r.expert_params_per_gpu;
    grp.overlap = cfg.overlap_dp_comm ? fw.dp_overlap * compute_mb : 0.0;
    if (r.terms) r.terms->dp.compute_per_microbatch = compute_mb, r.terms->dp.hidden_once = grp.overlap;
    double raw_intra = 0;  // ZeRO-0/1/2 reduction inside sites before overlap (FSDP's runs per micro-batch)
    if (L.zero >= 3)
        fsdp_comm(cfg, fw, links, L, grp, compute_mb, r);
    else
        raw_intra = gradient_reduction(links, L, grp, r);
    if (L.zero >= 1 && grp.replicas > 1) raw_intra += hybrid_shard_reduction(links, L, grp, r);
    if (L.sg_dp > 1) exchange_across_sites(cfg, links, L, grp, raw_intra, compute_mb, r);
}

// Pipelines across sites (SWARM-style, Ryabinin et al. 2023, arXiv:2301.11913): at each site
// boundary the stage's devices send their activations (and receive gradients) over their share of
// the WAN link. In steady state a micro-batch waits when sending takes longer than computing it;
// filling and draining the pipeline crosses every site boundary forward and backward once, latency
// included.
// A pipeline whose stages span sites: the sites one replica's stages cross, and the seconds of one
// micro-batch's activations over a site's WAN share (`applies` false when the stages stay in a site).
struct WanPipe {
    bool applies = false;
    double sites = 1, bytes = 0, x = 0;
};
WanPipe wan_pipe(const StepInputs& in, const Links& links, const StepLayout& L, const ComputeTerms& c) {
    const NetworkLevels& net = links.net;
    const double t = L.t, cp = L.cp, p = L.p, dps = net.devices_per_site;
    WanPipe w;
    if (!(p > 1 && net.sites > 1 && t * cp * p > dps)) return w;
    w.applies = true;
    w.sites = std::min({net.sites, p, std::ceil(t * cp * p / dps)});
    const double senders = dps * w.sites / p;  // devices of a site sending across at once (boundary stages of its replicas)
    const double share = net.wan * links.network / std::max(1.0, senders);
    w.bytes = 2.0 * c.tokens * in.hidden / (L.sp ? t : 1.0);
    w.x = w.bytes / share;
    return w;
}

void pipeline_across_sites(const StepInputs& in, const Links& links, const StepLayout& L, const ComputeTerms& c, StepEstimate& r) {
    const WanPipe p = wan_pipe(in, links, L, c);
    if (!p.applies) return;
    const double v = L.v, x = p.x;
    if (!r.wan) r.wan.emplace();
    WanTraffic& w = *r.wan;
    w.sites_pp = p.sites;
    w.pp_bytes_per_microbatch = p.bytes;
    w.pp_seconds = L.m * std::max(0.0, v * x - r.microbatch_seconds) + 2.0 * v * (p.sites - 1.0) * (x + links.net.wan_latency);
    w.pp_bound_tokens_per_second = L.dp * L.b * in.seq / (v * x);
    r.step.pp_comm += w.pp_seconds;
}

// The optimizer step at HBM bandwidth.
double optimizer_seconds(const TrainingConfig& cfg, const StepLayout& L, const WeightPlacement& w, double bw) {
    if (!(bw > 0)) return 0.0;
    // Adam touches ~16 bytes/param + the gradient and weight: read grad, master, m, v; write master, m, v, weight.
    const double opt_params = w.sharded(L.zero, 1);
    return opt_params * (cfg.optimizer == Optimizer::adam ? 24.0 + L.gbytes : 16.0 + L.gbytes) / bw;
}

// The step's total; with DiLoCo, plus the exposed share of the exchange every local_steps steps.
void step_total(const TrainingConfig& cfg, const StepLayout& L, StepEstimate& r) {
    r.step.total = r.step.gemm + r.step.attention + r.step.memory_bound + r.step.overhead + r.step.tp_comm + r.step.cp_comm +
                   r.step.pp_comm + r.step.ep_comm + r.step.pp_bubble + r.step.dp_comm + r.step.optimizer;
    if (r.wan) r.wan->inner_step_seconds = r.step.total;
    if (!L.diloco) return;
    // DiLoCo: one exchange every local_steps inner steps; streaming runs it during the next
    // outer_overlap_steps inner steps (Streaming DiLoCo, Douillard et al. 2025, arXiv:2501.18512),
    // so the step never beats the inner step alone.
    const double H = static_cast<double>(cfg.local_steps);
    const double tau = std::min(H, static_cast<double>(cfg.outer_overlap_steps));
    const double exposed = std::max(0.0, r.wan->exchange_seconds - tau * r.step.total);
    r.step.outer_comm = exposed / H;
    r.wan->exchange_exposed_seconds = r.step.outer_comm;
    r.step.total += r.step.outer_comm;
}

// Recomputed FLOPs per token (HFU - MFU numerator): full recompute repeats each layer's forward
// pass; selective recompute repeats the attention where compute_terms says so (rc_att).
double recomputed_flops_per_token(const StepInputs& in, double rc_gemm, double rc_att_hw) {
    return in.layers * (2.0 * (in.attn_params_per_layer + in.ffn_matmul_params_per_layer_active) * rc_gemm +
                        2.0 * in.window_mean() * in.heads * (in.attn_width_qk + in.attn_width_v) * rc_att_hw);
}

// How a ring collective is timed (Fabric::ring), as the derivations of tp_comm and dp_comm state it.
constexpr std::string_view kRingFormula =
    "ring(f, B, n, r, g), f = 1 for an all-gather or reduce-scatter, 2 for an all-reduce, of B bytes per rank over n ranks, r "
    "of them in a node, spanning g sites, ns = n / g of them in each: f x max((ns - 1) / ns x B / (scale_up x network_efficiency); "
    "if r < ns, (ns - r) / (ns r) x B / (scale_out x network_efficiency); if g > 1, (g - 1) / g x B x (devices_per_site / ns) / "
    "(wan x network_efficiency)) + (r >= ns ? collective_latency : scale_out_latency) x ceil(log2 ns) + (g > 1: f x wan_latency x "
    "ceil(log2 g)); 0 when n <= 1 or B = 0";

// The values a ring is computed from, named `name`.f, .bytes, .ranks, .ranks_per_node, .sites and .seconds.
void ring_values(std::vector<std::pair<std::string, double>>& v, const std::string& name, const StepTerms::Ring& g) {
    v.insert(v.end(), {{name + ".f", g.f},
                       {name + ".bytes", g.bytes},
                       {name + ".ranks", g.ranks},
                       {name + ".ranks_per_node", g.ranks_per_node},
                       {name + ".sites", g.sites},
                       {name + ".seconds", g.seconds}});
}

// The network values kRingFormula reads besides a ring's own.
void fabric_values(std::vector<std::pair<std::string, double>>& v, const Efficiency& eff, const StepEstimate& e) {
    v.insert(v.end(), {{"scale_up", e.scale_up_bytes_per_second},
                       {"scale_out", e.scale_out_bytes_per_second},
                       {"network_efficiency", eff.gen.network},
                       {"collective_latency", eff.gen.collective_latency_seconds},
                       {"scale_out_latency", std::max(eff.gen.collective_latency_seconds, e.scale_out_latency_seconds)},
                       {"devices_per_site", e.terms->devices_per_site},
                       {"wan", e.terms->wan},
                       {"wan_latency", e.terms->wan_latency}});
}

// The rings of the data-parallel collectives that were timed (DpTerms::rings): ring.<collective>.dense
// and, where the routed experts reduce over their own group, ring.<collective>.experts.
void dp_ring_values(std::vector<std::pair<std::string, double>>& v, const StepTerms::DpTerms& d) {
    static constexpr const char* kNames[] = {"gather_scatter", "reduce_scatter", "all_gather", "all_reduce", "hybrid"};
    for (int k = 0; k < StepTerms::DpTerms::kinds; ++k) {
        if (!d.timed[k]) continue;
        ring_values(v, std::string("ring.") + kNames[k] + ".dense", d.rings[k][0]);
        if (d.rings[k][1].bytes > 0) ring_values(v, std::string("ring.") + kNames[k] + ".experts", d.rings[k][1]);
    }
}

// Derivation of the data-parallel communication (data_parallel_comm): the collectives before overlap,
// the rings they are made of, and the compute they hide behind.
GPUCALC_COLD void explain_dp_comm(const TrainingConfig& cfg, const Efficiency& eff, const StepEstimate& e, Trace& trace) {
    if (!e.terms) return;  // not recorded: an estimate that is not explained
    const StepTerms::DpTerms& d = e.terms->dp;
    std::vector<std::pair<std::string, double>> v = {{"collectives", d.collectives},
                                                     {"collective", d.collective_seconds},
                                                     {"earlier", d.earlier},
                                                     {"reduce_scatter", d.reduce_scatter_seconds},
                                                     {"hybrid_allreduce", d.hybrid_seconds},
                                                     {"exposed_across_sites", d.across_sites_exposed},
                                                     {"hidden_per_collective", d.hidden_per_collective},
                                                     {"hidden_once", d.hidden_once},
                                                     {"compute_per_microbatch", d.compute_per_microbatch},
                                                     {"overlap_dp_comm", cfg.overlap_dp_comm ? 1.0 : 0.0},
                                                     {"zero", static_cast<double>(cfg.zero)},
                                                     {"fsdp_overlap", eff.fw.fsdp_overlap},
                                                     {"dp_overlap", eff.fw.dp_overlap},
                                                     {"bytes_per_step", e.dp_bytes},
                                                     {"params_per_gpu", e.params_per_gpu},
                                                     {"expert_params_per_gpu", e.expert_params_per_gpu},
                                                     {"root_unit_params", e.root_unit_params},
                                                     {"scale_out_bytes_per_second", e.scale_out_bytes_per_second},
                                                     {"fsdp_other_calls", d.fsdp_other_calls},
                                                     {"shard", d.shard},
                                                     {"microbatches", e.microbatches},
                                                     {"across_sites", d.across_sites_seconds},
                                                     {"intra_before_overlap", d.intra_seconds},
                                                     {"hidden_across_sites", d.across_sites_hidden},
                                                     {"outer_overlap_steps", d.outer_overlap_steps}};
    dp_ring_values(v, d);
    fabric_values(v, eff, e);
    trace.add_list("training.step_breakdown_seconds.dp_comm",
                   "collectives x max(0, collective - hidden_per_collective) + earlier x max(0, reduce_scatter - hidden_once) + max(0, "
                   "hybrid_allreduce - hidden_once) + exposed_across_sites; hidden_once = overlap_dp_comm x dp_overlap x "
                   "compute_per_microbatch; hidden_per_collective: zero >= 3 the same at fsdp_overlap (collectives: each micro-batch's "
                   "gathers and reduce-scatter), else hidden_once (collective: the step's last reduction; earlier: zero 2's earlier "
                   "reduce-scatters). Each collective is its rings' seconds, ring.<c>.dense + ring.<c>.experts (the routed experts "
                   "over their own group; 0 when not listed): zero >= 3: collective = ring.gather_scatter + fsdp_other_calls x "
                   "collective_latency x ceil(log2(max(2, shard))); zero 1, 2: collective = reduce_scatter + ring.all_gather, "
                   "reduce_scatter = ring.reduce_scatter; zero 0: collective = ring.all_reduce; hybrid_allreduce = ring.hybrid. "
                   "exposed_across_sites = max(0, across_sites - hidden_across_sites), hidden_across_sites = max(0, hidden_once - "
                   "intra_before_overlap) + outer_overlap_steps x compute_per_microbatch x microbatches (across_sites: "
                   "training.communication.exchange_seconds). Each ring.<c>.<part>.seconds = " +
                       std::string(kRingFormula),
                   std::move(v), e.step.dp_comm, "s", "ring collectives (NCCL); FSDP (Zhao et al. 2023, arXiv:2304.11277) Sec. 3.4");
}

// Derivations of the step time and its attention.
GPUCALC_COLD void explain_step_time(const Efficiency& eff, const StepEstimate& e, Trace& trace) {
    const StepTime& s = e.step;
    trace.add("training.step_seconds",
              "gemm + attention + memory_bound + overhead + tp_comm + cp_comm + pp_comm + ep_comm + pp_bubble + dp_comm + optimizer + "
              "outer_comm (each over the step: microbatches x its micro-batch time; the bubble (pp-1)/vpp micro-batch times; the "
              "exposed parts of communication)",
              {{"microbatches", e.microbatches},
               {"layers_on_slowest_stage", e.layers_per_stage},
               {"output_layer_on_slowest_stage", e.output_layer_on_slowest_stage ? 1.0 : 0.0},
               {"gemm", s.gemm},
               {"attention", s.attention},
               {"memory_bound", s.memory_bound},
               {"overhead", s.overhead},
               {"tp_comm", s.tp_comm},
               {"cp_comm", s.cp_comm},
               {"pp_comm", s.pp_comm},
               {"ep_comm", s.ep_comm},
               {"pp_bubble", s.pp_bubble},
               {"dp_comm", s.dp_comm},
               {"optimizer", s.optimizer},
               {"outer_comm", s.outer_comm},
               {"gemm_efficiency", e.gemm_efficiency},
               {"attention_efficiency", e.attention_efficiency},
               {"memory_efficiency", eff.gen.memory},
               {"network_efficiency", eff.gen.network}},
              s.total, "s",
              "Narayanan et al. 2021 Sec. 2-3; FlashAttention-2 (Dao 2023) Sec. 3; constants: " + eff.gen.name + " (" + eff.gen.basis +
                  "); " + eff.fw.name + " (" + eff.fw.basis + ")");
    trace.add("training.step_breakdown_seconds.attention",
              "microbatches x layers_on_slowest_stage x (forward_flops x passes / (peak_16bit x attention_efficiency) + "
              "score_traffic_seconds)",
              {{"microbatches", e.microbatches},
               {"layers_on_slowest_stage", e.layers_per_stage},
               {"forward_flops", e.attention_forward_flops},
               {"passes", e.attention_passes},
               {"peak_16bit", e.attention_peak},
               {"attention_efficiency", e.attention_efficiency},
               {"score_traffic_seconds", e.attention_score_seconds}},
              s.attention, "s",
              "per layer and micro-batch, on one device: causal attention FLOPs (fused kernels skip the masked half); passes: forward 1, "
              "backward 2.5 (fused; Dao 2023) or 2 (unfused score GEMMs), +1 when recomputed (full, or selective where the framework "
              "recomputes attention: Megatron-Core's core_attn); unfused attention also moves its score tensors at HBM bandwidth "
              "(Korthikanti et al. 2022 Sec. 4)");
}
// The terms of one micro-batch on a stage of L.Ls layers (and the output layer when L.logits) that
// are never hidden: its compute and its tensor- and context-parallel communication; the
// efficiencies reached go to r. The plan search's lower bound (floor_parts) stops here.
void unhidden_terms(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, const StepLayout& L, const ComputeTerms& c,
                    const LayerActivations& act, const Links& links, StepTime& mb, StepEstimate& r) {
    gemm_time(in, eff, L, c, mb, r);
    attention_time(in, cfg, eff, L, c, act, mb, r);
    mb.memory_bound = memory_bound_seconds(in, eff.fw, L, c, act);
    mb.overhead = kernel_overhead_seconds(L, c, eff.fw);
    mb.tp_comm = tp_comm_seconds(in, eff.fw, L, c, links, r);
    mb.cp_comm = cp_comm_seconds(in, eff.fw, L, c, links, mb.attention);
}

// The slowest stage's micro-batch: its unhidden terms, the pipeline sends and the all-to-alls. With
// uneven stages (stage_split) a middle stage (L.Ls layers) and the last stage (L.Ls_last layers and
// the output layer) are compared and the slower is kept (L becomes its layout).
void slowest_stage(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, StepLayout& L, const ComputeTerms& c,
                   const LayerActivations& act, const Links& links, StepTime& mb, StepEstimate& r) {
    unhidden_terms(in, cfg, eff, L, c, act, links, mb, r);
    mb.pp_comm = pp_comm_seconds(in, eff.fw, L, c, links);
    // Interleaved schedules that overlap the sends with the next chunk's compute expose only what the
    // micro-batch's compute cannot hide (Megatron-Core overlap_p2p_comm, on with virtual stages:
    // megatron/core/pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving;
    // Megatron-LM --no-overlap-p2p-communication to turn it off).
    if (eff.fw.pp_comm_overlap && L.v > 1 && !L.dualpipe)
        mb.pp_comm = std::max(0.0, mb.pp_comm - (mb.gemm + mb.attention + mb.memory_bound + mb.overhead));
    mb.ep_comm = ep_comm_seconds(in, eff.fw, L, c, links);
    if (!L.uneven) return;
    // The last stage: every term of a middle stage scales with its layers but the pipeline sends (per
    // micro-batch), so the last stage is those terms at its layers plus the output layer's GEMMs and
    // loss (tests/unit/test_training.cpp times both stages alone and compares). The plan search meets
    // uneven layouts by the thousand: this costs two small functions, not a second timing.
    const double k = L.Ls_last / L.Ls;
    StepTime last = mb;
    last.gemm = mb.gemm * k + output_gemm_seconds(in, eff, L, c);
    last.attention *= k;
    last.memory_bound = mb.memory_bound * k + (c.bw > 0 ? loss_bytes(in, eff.fw, L, c) / c.bw : 0.0);
    last.overhead *= k;
    last.tp_comm *= k;
    last.cp_comm *= k;
    last.ep_comm *= k;
    // The stage whose micro-batches take longer in the step (microbatches_in_step): their sum with the
    // bubble; under combined 1F1B the m micro-batches hide part of the all-to-all and the bubble keeps
    // the whole micro-batch time; under DualPipe the all-to-alls and sends hide behind the compute
    // (dualpipe_step).
    auto step_share = [&](const StepTime& t) {
        const double compute = t.gemm + t.attention + t.memory_bound + t.overhead;
        const double whole = compute + t.tp_comm + t.cp_comm + t.pp_comm + t.ep_comm;
        if (L.moe_overlap) return L.m * (whole - moe_hidden(L, eff.fw, t.ep_comm, compute)) + bubble_microbatches(L) * whole;
        if (!L.dualpipe) return whole;
        return L.m * (compute + t.tp_comm + t.cp_comm + std::max(0.0, t.ep_comm + t.pp_comm - compute)) + bubble_microbatches(L) * compute;
    };
    if (!(step_share(last) > step_share(mb))) return;
    const double gemm_flops = r.gemm_efficiency * mb.gemm * r.gemm_peak;  // the middle stage's GEMM FLOPs
    if (last.gemm > 0 && r.gemm_peak > 0)
        r.gemm_efficiency = (gemm_flops * k + output_flops(in, L, c.tokens) * 3.0) / (last.gemm * r.gemm_peak);
    mb = last;
    L.Ls = L.Ls_last;
    L.logits = 1.0;
}

}  // namespace

StepEstimate estimate_step(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff, bool memory_only,
                           StepTerms* terms) {
    return estimate_step(in, hw, cfg, eff, network_levels(hw), memory_only, terms);
}

StepEstimate estimate_step(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff,
                           const NetworkLevels& net, bool memory_only, StepTerms* terms) {
    StepEstimate r;
    r.terms = terms;
    StepLayout L = step_layout(in, cfg, eff.fw, net);
    r.microbatches = L.m;
    r.layers_per_stage = L.Ls;
    const LayerActivations act = layer_activations(in, cfg);
    const WeightPlacement wp = memory_per_device(in, cfg, L, act, r);
    if (memory_only) return r;

    // ---- time per micro-batch on the slowest stage ----
    const FrameworkProfile& fw = eff.fw;
    const ComputeTerms c = compute_terms(in, cfg, hw.device, eff, L);
    r.scale_out_bytes_per_second = net.scale_out;
    r.scale_up_bytes_per_second = net.scale_up;
    r.scale_out_assumed = net.scale_out_assumed;
    r.devices_per_node = net.devices_per_node;
    r.scale_out_latency_seconds = net.scale_out_latency;
    if (StepTerms* x = terms) x->devices_per_site = net.devices_per_site, x->wan = net.wan, x->wan_latency = net.wan_latency;
    const Links links = links_of(net, eff.gen);
    StepTime mb;
    slowest_stage(in, cfg, eff, L, c, act, links, mb, r);
    r.layers_per_stage = L.Ls;
    r.output_layer_on_slowest_stage = L.logits > 0;

    // ---- per optimizer step ----
    const double compute_mb = microbatches_in_step(L, fw, mb, r);
    data_parallel_comm(cfg, fw, links, L, compute_mb, r);
    pipeline_across_sites(in, links, L, c, r);
    r.step.optimizer = optimizer_seconds(cfg, L, wp, c.bw);
    step_total(cfg, L, r);
    r.recompute_flops_per_token = recomputed_flops_per_token(in, c.rc_gemm, c.rc_att);
    return r;
}

namespace {
// The lower bound's parts (step_floor), with the layout and the WAN pipeline they came from.
struct FloorParts {
    StepLayout L;
    WanPipe w;
    StepFloor f;
};
FloorParts floor_parts(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff,
                       const NetworkLevels& net) {
    StepEstimate r;
    const StepLayout L = step_layout(in, cfg, eff.fw, net);
    const ComputeTerms c = compute_terms(in, cfg, hw.device, eff, L);
    const LayerActivations act = layer_activations(in, cfg);
    const Links links = links_of(net, eff.gen);
    // The terms of a micro-batch that are never hidden, as estimate_step computes them: its compute
    // (GEMMs, attention, memory-bound ops, kernel overhead) and its tensor- and context-parallel
    // communication (the pipeline sends, which interleaving hides, are left out). With uneven stages,
    // of a middle stage: the stage timed (slowest_stage) has the larger step share, so the bound holds.
    StepTime mb;
    unhidden_terms(in, cfg, eff, L, c, act, links, mb, r);
    const double compute_mb = mb.gemm + mb.attention + mb.memory_bound + mb.overhead;
    // The expert all-to-all, as microbatches_in_step exposes it: whole, less what the combined 1F1B
    // schedule's steady state hides (the bubble at the whole time), none under DualPipe. An MoE step is
    // largely this: without it the bound skipped few MoE plans (DeepSeek-V3 on 1,024 H100: an automatic
    // layout sized 27,388 plans, 3.9 ms natively).
    const double ep = L.dualpipe ? 0.0 : ep_comm_seconds(in, eff.fw, L, c, links);
    const double hidden = L.moe_overlap ? moe_hidden(L, eff.fw, ep, compute_mb) : 0.0;
    const double whole = compute_mb + mb.tp_comm + mb.cp_comm + ep;
    const WanPipe w = wan_pipe(in, links, L, c);
    // microbatches_in_step: m micro-batch times, and the bubble's (bubble_microbatches) of the
    // micro-batch's whole time (1F1B) or of its compute (DualPipe). With moe_overlap the hidden part
    // grows with the interleaving (moe_hidden), so a floor taken at the largest interleaving stays
    // below the smaller ones' (lost_at_every_vpp).
    const double hidden_most = L.moe_overlap ? eff.fw.moe_overlap_hidden * std::min(ep, compute_mb) : 0.0;  // moe_hidden at paired 1
    return FloorParts{L, w, StepFloor{L.m, whole - hidden, L.dualpipe ? compute_mb : whole, w.applies, whole - hidden_most}};
}
}  // namespace

StepFloor step_floor(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff, const NetworkLevels& net) {
    return floor_parts(in, hw, cfg, eff, net).f;
}

double step_seconds_lower_bound(const StepFloor& f, const TrainingConfig& cfg) {
    StepLayout L{};  // what bubble_microbatches reads, as step_layout sets it
    L.p = static_cast<double>(cfg.pp);
    L.v = static_cast<double>(cfg.vpp);
    L.dualpipe = cfg.dualpipe && L.p > 1;
    // The micro-batches of cfg's own batch (step_layout's count): without interleaving the plan
    // search rounds the batch to a different granule (dp x micro-batch, not x pp), so the floor's
    // config (at the largest interleaving) may hold another batch. Its f.m skipped a plan that won the
    // full search (Llama 3 8B on 20 B200, FSDP, materialized attention: 510 sequences at vpp 1, 520 at 8).
    return microbatches_of(cfg) * f.t_mb + bubble_microbatches(L) * f.bubble_unit;
}

double step_seconds_lower_bound(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff,
                                const NetworkLevels& net) {
    const FloorParts fp = floor_parts(in, hw, cfg, eff, net);
    const StepFloor& f = fp.f;
    const StepLayout& L = fp.L;
    const WanPipe& w = fp.w;
    if (!w.applies) return f.m * f.t_mb + bubble_microbatches(L) * f.bubble_unit;
    // Stages across sites (pipeline_across_sites): m x t_mb + m x max(0, v x - t_mb) = m x max(t_mb, v x),
    // and 2 v (sites - 1) (x + latency) to fill and drain the pipeline over the WAN.
    return L.m * std::max(f.t_mb, L.v * w.x) + bubble_microbatches(L) * f.bubble_unit +
           2.0 * L.v * (w.sites - 1.0) * (w.x + net.wan_latency);
}

// Derivation of the tensor-parallel communication (tp_comm_seconds): its ring times and what they read.
GPUCALC_COLD void explain_tp_comm(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, const StepEstimate& e,
                                  Trace& trace) {
    const double rc = cfg.recompute == Recompute::full ? 1.0 : 0.0, et = expert_tensor_parallel(cfg);
    if (!(cfg.tp > 1 && e.terms)) return;
    const StepTerms& x = *e.terms;
    std::vector<std::pair<std::string, double>> v = {{"microbatches", e.microbatches},
                                                     {"layers_on_slowest_stage", e.layers_per_stage},
                                                     {"tp", static_cast<double>(cfg.tp)},
                                                     {"sequence_parallel", sequence_parallel(cfg) ? 1.0 : 0.0},
                                                     {"recompute", rc},
                                                     {"tp_overlap", eff.fw.tp_overlap},
                                                     {"ring_attention", x.tp_ring_attention_seconds},
                                                     {"ring_mlp", x.tp_ring_mlp_seconds},
                                                     {"ring_routed", x.tp_ring_routed_seconds},
                                                     {"tokens", x.tp_tokens},
                                                     {"hidden", in.hidden},
                                                     {"devices_per_node", e.devices_per_node},
                                                     {"expert_tp", et},
                                                     {"moe_layer_fraction", in.moe_layer_fraction},
                                                     {"experts_per_token", in.experts_per_token},
                                                     {"shared_experts", in.shared_experts}};
    fabric_values(v, eff, e);
    ring_values(v, "ring.attention", x.tp_attention);
    if (et > 1) ring_values(v, "ring.routed", x.tp_routed);
    trace.add_list("training.step_breakdown_seconds.tp_comm",
                   "microbatches x (1 - tp_overlap) x layers_on_slowest_stage x (2 + recompute + sequence_parallel / 2) x "
                   "(ring_attention + ring_mlp); ring_attention = ring(2, B, tp, r, g) (ring.attention), B = 2 x tokens x hidden, r = "
                   "min(tp, devices_per_node), g: the sites the group spans, min(sites, tp, ceil(tp / devices_per_site)) when tp > "
                   "devices_per_site (a WAN between nodes makes each node a site), else 1; in one site ring_attention = 2 x max((tp - "
                   "1) / tp x B / (scale_up x network_efficiency), (tp - r) / (tp r) x B / (scale_out x network_efficiency)) + latency "
                   "x ceil(log2 tp), latency: scale_out_latency if r < tp, else collective_latency; ring_mlp = (1 - moe_layer_fraction) "
                   "x ring_attention + moe_layer_fraction x ((shared_experts > 0 ? ring_attention : 0) + ring_routed), ring_routed = "
                   "ring(2, top-k x expert_tp / tp x B, expert_tp, ...) (ring.routed; 0 when expert_tp is 1); " +
                       std::string(kRingFormula),
                   std::move(v), e.step.tp_comm, "s",
                   "ring all-reduce (Patarasuk and Yuan 2009), two-level across nodes (nccl-tests bus bandwidth), hierarchical across "
                   "sites (Thakur, Rabenseifner & Gropp 2005); Korthikanti et al. 2022 Sec. 4.2.2 (sequence parallelism); Megatron-Core "
                   "token_dispatcher.py (expert-TP group), shared_experts.py; MoE parallel folding, arXiv:2504.14960");
}

// Derivations of the tensor- and expert-parallel communication (tp_comm_seconds, ep_comm_seconds).
GPUCALC_COLD void explain_tp_ep_comm(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, const StepEstimate& e,
                                     Trace& trace) {
    explain_tp_comm(in, cfg, eff, e, trace);
    const double rc = cfg.recompute == Recompute::full ? 1.0 : 0.0, et = expert_tensor_parallel(cfg);
    if (cfg.ep > 1 && in.moe_layer_fraction > 0)
        trace.add(
            "training.step_breakdown_seconds.ep_comm",
            "microbatches x (1 - ep_overlap) x MoE layers x (4 + 2 x recompute) all-to-alls of tokens / tp x 2 x hidden x top-k bytes, "
            "(ep - 1)/ep of them remote, over the group of ep x expert_tp ranks; across nodes one copy per routed expert (alltoall) "
            "or one per destination node, nodes x (1 - (1 - 1/nodes)^top-k) of them (at most max_routed_nodes) and one per "
            "destination GPU inside it, forwarded meanwhile (deepep), the rest over the scale-up links (DualPipe: hidden behind "
            "the compute, exposed beyond it; overlap_moe_comm, the combined 1F1B schedule: moe_overlap_hidden of what the "
            "compute can hide, in the steady state's share of the step)",
            {{"microbatches", e.microbatches},
             {"layers_on_slowest_stage", e.layers_per_stage},
             {"moe_layer_fraction", in.moe_layer_fraction},
             {"ep", static_cast<double>(cfg.ep)},
             {"expert_tp", et},
             {"group_ranks", static_cast<double>(cfg.ep) * et},
             {"experts_per_token", in.experts_per_token},
             {"max_routed_nodes", in.max_routed_nodes},
             {"hidden", in.hidden},
             {"recompute", rc},
             {"ep_overlap", eff.fw.ep_overlap},
             {"tp", static_cast<double>(cfg.tp)},
             {"pp", static_cast<double>(cfg.pp)},
             {"vpp", static_cast<double>(cfg.vpp)},
             {"tokens_per_microbatch", static_cast<double>(cfg.micro_batch) * in.seq / static_cast<double>(cfg.cp)},
             {"devices_per_node", e.devices_per_node},
             {"scale_out_bytes_per_second", e.scale_out_bytes_per_second},
             {"scale_up_bytes_per_second", e.scale_up_bytes_per_second},
             {"network_efficiency", eff.gen.network},
             {"collective_latency_seconds", eff.gen.collective_latency_seconds},
             {"scale_out_latency_seconds", e.scale_out_latency_seconds},
             {"compute_per_microbatch_seconds",
              e.microbatches > 0 ? (e.step.gemm + e.step.attention + e.step.memory_bound + e.step.overhead) / e.microbatches : 0.0},
             {"deepep_dispatcher", cfg.moe_dispatcher == MoeDispatcher::deepep ? 1.0 : 0.0},
             {"overlap_moe_comm", cfg.overlap_moe_comm ? 1.0 : 0.0},
             {"moe_overlap_hidden", eff.fw.moe_overlap_hidden}},
            e.step.ep_comm, "s",
            "GShard (Lepikhin et al. 2020); DeepSpeed-MoE Sec. 5; DeepSeek-V3 arXiv:2412.19437 Sec. 2.1.2, 3.2.1; deepseek-ai/DeepEP "
            "README (normal kernels); Megatron-Core combined_1f1b.py; MoE parallel folding, arXiv:2504.14960");
}

GPUCALC_COLD void explain_step(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, const StepEstimate& e, bool time,
                               Trace& trace) {
    if (!trace.enabled()) return;
    explain_weight_state_memory(cfg, eff.fw, e, trace);
    explain_activation_memory(in, cfg, e, trace);
    if (!time) return;
    explain_step_time(eff, e, trace);
    explain_dp_comm(cfg, eff, e, trace);
    explain_tp_ep_comm(in, cfg, eff, e, trace);
}

Framework framework_of(const TrainingConfig& cfg, const Device& d) {
    if (cfg.framework) return *cfg.framework;
    return d.kind == "tpu" ? Framework::maxtext : Framework::megatron;
}

bool zero_sharding_with_pipeline(Framework f) { return f == Framework::fsdp || f == Framework::torchtitan || f == Framework::llm_foundry; }

Efficiency training_efficiency(const TrainingConfig& cfg, const Device& d) {
    Efficiency e = efficiency_for(d, framework_of(cfg, d));
    // Async TP (torchtitan with torch.compile: torch._inductor micro-pipeline TP fuses each all-gather
    // with the matmul that consumes it and each matmul with its reduce-scatter, chunk by chunk) is the
    // decomposition of Wang et al. 2023 ("Overlap Communication with Dependent Computation via
    // Decomposition in Large Deep Learning Models", ASPLOS '23, doi:10.1145/3567955.3567959) that
    // Megatron-Core runs as --tp-comm-overlap (Transformer Engine userbuffers): it hides the share of
    // TP communication the megatron profile's tp_overlap (fitted on Megatron runs) says it hides.
    if (cfg.async_tp)
        for (const auto& p : calibration().frameworks)
            if (p.id == "megatron") e.fw.tp_overlap = std::max(e.fw.tp_overlap, p.tp_overlap);
    apply_overrides(e, cfg.efficiency);
    return e;
}

void explain_memory_total(Trace& trace, const MemoryPerGpu& m, std::string_view before, std::string_view after, std::string_view source) {
    if (!trace.enabled()) return;
    trace.add("training.memory_per_gpu_bytes.total",
              std::string(before) + "weights + gradients + optimizer + activations + outer_optimizer + overhead" + std::string(after),
              {{"weights", m.weights},
               {"gradients", m.gradients},
               {"optimizer", m.optimizer},
               {"activations", m.activations},
               {"outer_optimizer", m.outer_optimizer},
               {"overhead", m.overhead}},
              m.total, "bytes", source);
}

}  // namespace gpucalc
