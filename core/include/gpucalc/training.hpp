// Training estimator: memory per device and predicted step time under TP/CP/PP/DP/EP, ZeRO/FSDP,
// recomputation and FP8 (training_step.cpp); run totals with goodput and an uncertainty band
// (training.cpp).
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/efficiency.hpp"
#include "gpucalc/explain.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct MemoryPerGpu {
    double weights = 0, gradients = 0, optimizer = 0, activations = 0, overhead = 0, total = 0;  // bytes
    double outer_optimizer = 0;  // DiLoCo: fp32 anchor weights + outer Nesterov momentum (0 when synchronous or offloaded)
};

struct StepTime {             // seconds per optimizer step, by cause (the slowest pipeline stage)
    double gemm = 0;          // dense matrix multiplies (incl. recomputation)
    double attention = 0;     // attention scores / flash attention
    double memory_bound = 0;  // norms, activations, softmax, dropout, residuals, casts at HBM bandwidth
    double overhead = 0;      // kernel launches and small kernels (per layer per pass)
    double tp_comm = 0;       // exposed tensor-parallel all-reduce / all-gather + reduce-scatter
    double cp_comm = 0;       // exposed context-parallel KV exchange (ring attention)
    double pp_comm = 0;       // pipeline point-to-point
    double pp_bubble = 0;     // idle pipeline slots: (p-1)/v micro-batch times
    double dp_comm = 0;       // exposed data-parallel gradient reduction and ZeRO-3/FSDP gathers
    double ep_comm = 0;       // exposed expert-parallel all-to-all (MoE token dispatch and combine)
    double optimizer = 0;     // optimizer step (memory-bound)
    double outer_comm = 0;    // exposed exchange across sites every local_steps steps, per step (DiLoCo)
    double total = 0;
};

// Communication across sites (the WAN level), per optimizer step unless stated.
struct WanTraffic {
    double sites_dp = 1, sites_pp = 1;        // sites the data-parallel group and one pipeline span
    double exchange_seconds = 0;              // one exchange across sites (gradients, or DiLoCo pseudo-gradients), not hidden
    double exchange_exposed_seconds = 0;      // of it, per step, what the step waits for
    double exchange_bytes_per_site = 0;       // one exchange, each site's share of the payload (compressed)
    double sync_bytes_per_site_per_step = 0;  // what synchronous data parallelism would move per step (uncompressed gradients)
    double bytes_per_site_per_step = 0;       // what this configuration moves per step (exchange / local_steps)
    double pp_seconds = 0;                    // pipeline sends across sites, per step (fill/drain latency + bandwidth shortfall)
    double pp_bytes_per_microbatch = 0;       // activations one device sends across a site boundary per micro-batch
    double pp_bound_tokens_per_second = 0;    // the throughput the WAN links allow a pipeline across sites (0: none)
    double inner_step_seconds = 0;            // the step without the outer exchange (DiLoCo inner step)
};

// The model's dimensions as the step model uses them (layout-independent).
struct StepInputs {
    double layers, hidden, heads, kv_ratio, attn_params_per_layer, ffn_matmul_params_per_layer_active, params_total_layers,
        params_embedding, vocab, seq, attn_width_qk, attn_width_v, window, ffn_width_active, tied, mla, dropout, swiglu;
    // MoE: routed-expert parameters per layer (averaged over all layers), fraction of MoE layers,
    // experts per token and node-limited routing; zero for dense models.
    // A learned position table (GPT-2/3): held whole by every tensor-parallel rank of the first stage
    // (Megatron's position_embeddings is a plain nn.Embedding, not vocabulary-parallel); 0 with RoPE.
    double params_positions = 0;
    // The layers whose attention spans the whole sequence when `window` (the other layers') is
    // shorter: a hybrid of sliding-window and full attention (gpt-oss 0.5). 0: every layer sees `window`.
    double full_attention_fraction = 0;
    // The keys per query averaged over the layers (window where windowed, seq where full).
    double window_mean() const { return full_attention_fraction * seq + (1.0 - full_attention_fraction) * window; }
    double expert_params_per_layer = 0, moe_layer_fraction = 0, experts = 0, experts_per_token = 0, max_routed_nodes = 0,
           expert_ffn_width = 0, shared_experts = 0;
    // MoE: the layers as they are, for sizing a pipeline stage by the layers it holds (training_step.cpp
    // stage_weights): the leading layers with a dense MLP (DeepSeek-V3: 3 of 61), the parameters of such
    // a layer, an MoE layer's parameters outside its routed experts (attention, norms, shared experts,
    // router) and its routed experts'.
    double dense_mlp_layers = 0, dense_layer_params = 0, moe_layer_params = 0, routed_params_per_moe_layer = 0;
    // Stored attention tensors per token in units of hidden bytes: Q, K, V and the attention output
    // at their real widths (heads x head dims, kv heads for K and V), 2 bytes each.
    double attn_stored = 0;
    // Eager PyTorch (training.compile false, torchtitan): the forward's extra HBM bytes per token per
    // layer that torch.compile fuses away, unsplit (norms and residual adds, on h) and split by TP
    // (RoPE on Q and K, the SwiGLU gate); see eager_bytes() in training_step.cpp.
    double eager_unsplit = 0, eager_split = 0;
};

// Everything the step model computes, kept so that the derivations quote the very values used.
// What the derivations of the tensor- and data-parallel communication show beside the figures:
// written by the functions that compute them (tp_comm_seconds, data_parallel_comm), when asked.
struct StepTerms {
    // One ring collective as the step model times it (training_step.cpp Fabric::ring): f (1: an
    // all-gather or reduce-scatter, 2: an all-reduce), the bytes of each rank, the ranks, those of them
    // in one node (of the group's part in one site), the sites the group spans, and its seconds.
    struct Ring {
        double f = 0, bytes = 0, ranks = 0, ranks_per_node = 0, sites = 1, seconds = 0;
    };
    // The network the rings cross (network_levels): a site's devices and its WAN link (per site, per
    // direction) and latency, when the cluster spans sites.
    double devices_per_site = 0, wan = 0, wan_latency = 0;
    // Tensor-parallel communication (tp_comm_seconds): the tokens of a micro-batch on one device, and
    // one all-reduce-equivalent of the attention block's activations and of the MLP's (of which the
    // routed experts' ring over expert_tp ranks, per MoE layer).
    double tp_tokens = 0, tp_ring_attention_seconds = 0, tp_ring_mlp_seconds = 0, tp_ring_routed_seconds = 0;
    Ring tp_attention, tp_routed;  // the rings of those two
    // Data-parallel communication (data_parallel_comm): the compute of a micro-batch it hides behind,
    // the collectives before that overlap and what is exposed across sites.
    struct DpTerms {
        double compute_per_microbatch = 0;  // seconds
        double hidden_per_collective = 0;   // hidden behind each of `collectives` (FSDP: fsdp_overlap x compute; else dp_overlap x)
        double hidden_once = 0;             // hidden behind a once-per-step reduction (dp_overlap x compute)
        double collectives = 0;             // FSDP: one set per micro-batch; else 1
        double collective_seconds = 0;      // FSDP: a micro-batch's gathers and reduce-scatters; else the step's last reduction
        double earlier = 0;                 // ZeRO-2: reduce-scatters of the earlier micro-batches
        double reduce_scatter_seconds = 0;  // one of them
        double hybrid_seconds = 0;          // hybrid sharding's all-reduce across shard groups
        double across_sites_exposed = 0;    // the synchronous exchange across sites, exposed
        // The rings each collective is the sum of: the dense parameters' over the data-parallel group
        // ([0]) and the routed experts' over their expert-data-parallel group ([1]). ZeRO-3/FSDP: a
        // micro-batch's gathers and reduce-scatter (gather_scatter) and the latencies of its other
        // collective calls, fsdp_other_calls x ceil(log2(max(2, shard))); ZeRO-1/2: reduce_scatter and
        // all_gather; ZeRO-0: all_reduce; hybrid sharding: hybrid.
        enum Kind { gather_scatter, reduce_scatter, all_gather, all_reduce, hybrid, kinds };
        Ring rings[kinds][2];
        bool timed[kinds] = {};
        double fsdp_other_calls = 0, shard = 0;
        // Across sites: the exchange before overlap, the reductions inside the site before it
        // (raw_intra) and what hides it: max(0, hidden_once - raw_intra) + outer_overlap_steps x the step's compute.
        double across_sites_seconds = 0, intra_seconds = 0, across_sites_hidden = 0, outer_overlap_steps = 0;
    } dp;
};

struct StepEstimate {
    MemoryPerGpu memory;
    StepTime step;
    double recompute_flops_per_token = 0;
    // Intermediate terms.
    double params_per_gpu = 0;                  // parameters held by one device of the slowest stage (before ZeRO sharding)
    double expert_params_per_gpu = 0;           // of which routed experts (reduced over the expert-data-parallel group)
    double zero3_buffer_bytes = 0;              // ZeRO-3/FSDP gathered layers (in weights) and their unsharded gradients (in gradients)
    double layers_per_stage = 0;                // layers of the slowest stage (training_step.cpp stage_split)
    bool output_layer_on_slowest_stage = true;  // the slowest stage is the last, with the output layer and the loss
    // The stage whose device the memory sizes (memory_per_device): the first (the most micro-batches in
    // flight, the embedding), or another that needs more (an MoE model's, or under DualPipe any device's:
    // training_step.cpp size_other_devices).
    double sized_stage = 0;         // its index (0: the first)
    double first_stage_layers = 0;  // its layers: the first stage's carries one fewer with uneven stages
    double first_stage_params = 0;  // parameters its device holds (before ZeRO sharding; DualPipe: both stages)
    double root_unit_params = 0;    // FSDP's root unit kept gathered from forward to backward (0: none; root_gathered)
    double microbatches = 0;        // per step per pipeline
    double in_flight = 0;           // micro-batches whose activations the first stage holds
    double sized_in_flight = 0;     // micro-batches whose activations the sized stage holds
    double middle_stage_bytes = 0;  // uneven stages: about what a middle stage holds (not sized; warned above capacity)
    double activation_bytes_per_layer = 0;
    double gemm_efficiency = 0;       // fraction of the GEMM peak at this width
    double gemm_peak = 0;             // FLOP/s of the GEMM precision
    double attention_efficiency = 0;  // fraction of the 16-bit peak the attention kernel reaches at this sequence and head size
    // One layer's attention on one micro-batch: forward FLOPs per device, passes over them (forward 1,
    // backward 2.5 fused or 2 unfused, + 1 recomputed), the 16-bit peak, and unfused score traffic.
    double attention_forward_flops = 0, attention_passes = 0, attention_peak = 0, attention_score_seconds = 0;
    double microbatch_seconds = 0;  // compute + exposed TP/CP/EP/PP communication of one micro-batch on one stage
    double dp_bytes = 0;            // bytes one device sends in data-parallel collectives per step
    double scale_out_bytes_per_second = 0, scale_up_bytes_per_second = 0;
    bool scale_out_assumed = false;        // the catalog has no scale-out figure: 100 GbE assumed
    double devices_per_node = 0;           // devices a node's scale-up links join (network_levels)
    double scale_out_latency_seconds = 0;  // one hop across nodes (network_levels)
    std::optional<WanTraffic> wan;         // across sites (set only when the cluster spans several sites)
    // The terms the derivations of tp_comm and dp_comm show (StepTerms), recorded only when the caller
    // asks (estimate_step's `terms`: the estimate that is explained); null in the plan search, whose
    // every candidate would otherwise carry and write them (measured: 2-4 % slower per plan in wasm).
    struct StepTerms* terms = nullptr;
};

StepInputs step_inputs(const ModelSpec& m);

// The step model's view of any model: its architecture, or, for a bare parameter count, a GPT-like
// shape holding the stated counts (memory uses the total, compute the active count; the parameters
// beyond the active count are treated as routed experts: 16 experts, 2 per token, assumed).
struct TrainingModel {
    ModelSpec shape;  // the architecture the search and the time model use
    StepInputs in;
    bool assumed_shape = false;
    bool assumed_experts = false;
};

// The assumed shape of a bare parameter count in words: "69 layers, hidden 9216, vocabulary 50257".
std::string assumed_shape_words(const TrainingModel& tm);
TrainingModel training_model(const ModelSpec& m);
// Whether b divides a (a mod b = 0), as fmod says, by integers when both are whole and below 2^53
// (layout checks run for every plan the search sizes; libm's fmod costs ~90 instructions).
bool divides(double a, double b);
// The routed experts' tensor-parallel size: training.expert_tp, else tp, or 1 when ep does not divide
// dp x cp (the experts then fold over the tensor-parallel ranks whole; MoE parallel folding,
// Liu et al. 2025, arXiv:2504.14960).
double expert_tensor_parallel(const TrainingConfig& cfg);
// Expert parallelism tiles a stage's ranks: ep divides dp x cp (or, folded, dp x cp x tp), and a given
// expert_tp divides tp with ep x expert_tp dividing dp x cp x tp (Megatron-Core parallel_state: the
// expert grid is expert_tp x ep x expert-dp). The parser words the same rules as errors.
bool expert_layout_ok(Count tp, Count cp, Count dp, Count ep, std::optional<Count> expert_tp);
// Activation bytes stored per transformer layer per micro-batch (Korthikanti et al. 2022 Table 2,
// generalised: GQA, gated MLPs, no dropout, context parallelism).
double activation_bytes_per_layer(const StepInputs& in, const TrainingConfig& cfg);
// memory_only: stops once the memory per device is known (the plan search rejects a layout that
// does not fit before timing it); the other figures are then left at zero. terms: where the terms
// the derivations show are written (StepEstimate::terms), for the estimate that is explained.
StepEstimate estimate_step(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff,
                           bool memory_only = false, StepTerms* terms = nullptr);
// The same with the network levels already resolved (network_levels(hw)): the plan search resolves
// them once for all the layouts it evaluates.
StepEstimate estimate_step(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff,
                           const NetworkLevels& net, bool memory_only = false, StepTerms* terms = nullptr);
// A lower bound of estimate_step(...).step.total from the micro-batch terms that are never hidden
// (compute: GEMMs, attention, memory-bound ops, kernel overhead; tensor- and context-parallel
// communication): the step time is a sum of non-negative terms, of which the micro-batches' terms
// (and the pipeline bubble's share of them) are part. It depends on neither the ZeRO stage nor the
// overlap choice, and only falls as the interleaving grows (stages in one site). The plan search
// skips the rest of a layout's timing when this bound already loses to the best plan found.
double step_seconds_lower_bound(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff,
                                const NetworkLevels& net);
// The bound's parts that do not depend on the interleaving (cfg.vpp): the micro-batches, the
// never-hidden time of one, and the bubble's unit (that time, or DualPipe's compute); `wan` when
// stages cross sites (the bound then has WAN terms that grow with the interleaving).
struct StepFloor {
    double m = 0, t_mb = 0, bubble_unit = 0;
    bool wan = false;
    // t_mb with the most the combined 1F1B schedule can hide (every pass paired: moe_hidden's
    // paired = 1), whatever the micro-batches and interleaving: a floor of the layout's micro-batch
    // time (plan.cpp layout_loses). t_mb itself without that schedule.
    double t_mb_least = 0;
};
StepFloor step_floor(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff, const NetworkLevels& net);
// step_seconds_lower_bound of `cfg` from the floor of a config that differs from it at most in vpp and
// the global batch (floor.wan false): the micro-batches are cfg's own.
double step_seconds_lower_bound(const StepFloor& floor, const TrainingConfig& cfg);
// The derivations of the step model's figures, from the same intermediate values.
// Derivations of the memory per device and, with `time` (a run that fits: the report gives no step
// time otherwise), of the step time and its communication.
void explain_step(const StepInputs& in, const TrainingConfig& cfg, const Efficiency& eff, const StepEstimate& e, bool time, Trace& trace);

// Framework of a config (the default follows the device: maxtext on TPUs, megatron elsewhere).
Framework framework_of(const TrainingConfig& cfg, const Device& d);
// Whether the framework shards gradients (ZeRO-2/3, FSDP) together with pipeline parallelism:
// PyTorch FSDP + pipelining does (torchtitan; Llama 3, arXiv:2407.21783 Sec. 3.3.2); DeepSpeed rejects
// it (pipeline engine asserts ZeRO <= 1) and Megatron shards the optimizer only.
bool zero_sharding_with_pipeline(Framework f);
// Efficiency for a config on a device: generation and framework constants plus the scenario's overrides.
Efficiency training_efficiency(const TrainingConfig& cfg, const Device& d);
// The throughput band: factors on predicted tokens/s (lo <= 1 <= hi) holding the published figure
// for 90% of published runs out of sample (docs/VALIDATION.md), widened x extrapolation for a
// generation or framework without calibration runs and again for each dimension of `scope` beyond
// the calibration runs' range (extrapolations); a mixture-of-experts model (moe) carries the
// wider band of the MoE runs; basis says which.
struct ThroughputBand {
    double lo = 1.0, hi = 1.0;
    std::string basis;
    double widened = 1.0;  // the half-widths' factor for extrapolation (1: within the published runs' range)
};
// What an estimate covers, against the calibration runs' range (Band::max_*).
struct BandScope {
    double devices = 0, seq_len = 0, params = 0;
    double sites = 1, local_steps = 1;
    bool mixed_devices = false;
};
BandScope band_scope(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg);
// The dimensions in which `scope` lies beyond the calibration runs, each as words for the basis.
std::vector<std::string> extrapolations(const Band& band, const BandScope& scope);
// The band with its half-widths x extrapolation for each reason (compounded), the reasons in its basis.
ThroughputBand widened_band(const Band& band, bool moe, const std::vector<std::string>& reasons);
ThroughputBand throughput_band(const Efficiency& eff, bool moe, const BandScope& scope);
// The most of the peak MFU is measured against that a device's matmuls reach: the generation's fastest
// measured matmul (MAMF), in FP8 training the faster of its 16-bit and its FP8 matmuls (the FP8 one
// scaled from the FP8 peak to the 16-bit peak). No step's hardware FLOP/s exceed it, so MFU stays
// under it x model / hardware FLOPs. nullopt: not measured on this generation (no ceiling).
std::optional<double> matmul_ceiling(const GenerationEfficiency& g, const Device& d, Precision p);
// Cuts the band's high end where the MFU would pass `most` (the ceiling as an MFU), saying so in its
// basis with the device's name and the ceiling.
void cap_band(ThroughputBand& b, double mfu, double most, double ceiling, const std::string& device);

// Goodput: the fraction of wall time spent on useful steps, from the failure rate of large runs
// (Llama 3: 419 unexpected interruptions in 54 days on 16,384 H100), checkpoint write time and
// restart time, with the checkpoint interval at Young/Daly's optimum.
struct Goodput {
    double value = 1;
    double failures_per_hour = 0, mean_hours_between_failures = 0, checkpoint_seconds = 0, checkpoint_interval_seconds = 0,
           restart_seconds = 0;
    bool given = false;
};
Goodput goodput_for(double devices, double checkpoint_bytes_per_device, const std::optional<double>& given);
// Goodput of a run of a model with `params` parameters on `devices` (checkpoints of 14 bytes/param).
Goodput run_goodput(double devices, double params, const std::optional<double>& given);
// Its derivation (training.goodput), for one device type and a mixed fleet.
void explain_goodput(const Goodput& g, Trace& trace);

// The convergence caveat of local steps (DiLoCo): perplexity at the same tokens relative to
// synchronous data parallelism, as published, and the tokens that change is worth (derived).
struct Convergence {
    double local_steps = 1;
    double perplexity_change_low = 0, perplexity_change_high = 0;
    std::optional<double> token_multiplier_low, token_multiplier_high;  // tokens for the synchronous run's loss
    bool beyond_published = false;                                      // local_steps above the largest published H
    std::string basis;
};
Convergence diloco_convergence(double local_steps);

struct TrainingResult {
    TrainingConfig config;  // effective inputs (defaults filled in)
    std::string framework;
    double devices = 1;
    double params_total = 0, params_active = 0;
    double model_flops_per_token = 0;     // 6N + attention (MFU convention, non-causal as in PaLM App. B)
    double hardware_flops_per_token = 0;  // + recomputation (HFU)
    double tokens = 0;                    // 0 when not given
    double flops = 0;                     // model FLOPs for the run
    double flops_6nd = 0;                 // 6 x N_active x D
    MemoryPerGpu memory;
    double zero3_buffer_bytes = 0;      // ZeRO-3/FSDP gathered layers + their unsharded gradients (in memory)
    double dp_comm_bytes_per_step = 0;  // bytes one device sends in data-parallel collectives per step
    bool fits = true;
    double memory_capacity_bytes = 0;
    StepTime step;
    double step_seconds = 0;
    double tokens_per_step = 0;
    double tokens_per_second = 0;
    double mfu = 0, hfu = 0;   // against the dense 16-bit peak, also for FP8 training
    double mfu_predicted = 0;  // what the model predicts even when mfu was given
    bool mfu_given = false;
    double peak_flops_per_second = 0;              // the dense 16-bit peak per device MFU is measured against
    double achieved_flops_per_second_per_gpu = 0;  // hardware FLOP/s per GPU
    Goodput goodput;
    // Run totals: undefined (nullopt) without training.tokens or a rate; the report also leaves every
    // time and cost figure null when the setup does not fit (infeasible_reason says why).
    std::optional<double> seconds, gpu_hours, cost_usd, energy_kwh, co2_kg;
    std::optional<double> seconds_low, seconds_high, cost_usd_low, cost_usd_high, mfu_low, mfu_high;
    std::string band_basis;
    std::optional<Precision> mfu_precision;  // the peak MFU is measured against (Device::sixteen_bit)
    double band_widened = 1;                 // ThroughputBand::widened (1 with a given MFU)
    std::string infeasible_reason;
    std::optional<double> gpu_hour_usd;  // $/GPU-hour used (given or the catalog\'s); none: no price known, costs are null
    std::vector<std::string> warnings;
    // Networks and sites (network.hpp): the levels used (the report writes them as training.network
    // with the hardware's names; a mixed fleet writes its sites and pools instead), and the traffic
    // across sites.
    NetworkLevels network;
    bool fleet = false;
    double fleet_sites = 0, fleet_pools = 0;
    WanTraffic wan;
    double compute_utilization = 1;          // share of the step not waiting on the WAN (INTELLECT-1's "compute utilization")
    std::optional<Convergence> convergence;  // DiLoCo (local_steps > 1): the published convergence caveat
};

// With a given MFU the throughput is set and the step follows from it: this derivation of
// training.step_seconds replaces the step model's (whose time stays among its values). No-op otherwise.
// Derivation of training.memory_per_gpu_bytes.total: its six parts, the formula between `before` and `after`.
void explain_memory_total(Trace& trace, const MemoryPerGpu& m, std::string_view before, std::string_view after, std::string_view source);
void explain_step_at_given_mfu(const TrainingResult& r, double model_step_seconds, Trace& trace);
TrainingResult estimate_training(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs, Trace& trace);
// Warnings on the run's length and batch: a global batch above the largest published one, a run
// shorter than one step or than one DiLoCo exchange (single runs and mixed fleets alike).
void run_length_warnings(const TrainingConfig& cfg, TrainingResult& r);
// Whether a warning is run_length_warnings' "the global batch (...) is above the largest published ..."
// (a report whose scenario admits no layout drops it: the fallback config it was said of is no run).
bool is_global_batch_warning(const std::string& warning);

// DiLoCo (local_steps > 1) keeps its outer state (fp32 anchor + momentum, 8 bytes per parameter) in
// host memory unless training.outer_offload says otherwise: INTELLECT-1 does (arXiv:2412.01152 Sec. 2,
// the PRIME framework). Marks it given, so the echo carries it.
void resolve_diloco_defaults(TrainingConfig& c);
// The sites of hw: its pools' distinct sites, or hardware.sites (every node with a WAN preset).
double site_count(const Hardware& hw);
// The sites a data-parallel group of dp replicas spans (its peers one replica apart): each a DiLoCo
// worker when local_steps > 1.
// The largest published pretraining batch: DeepSeek-V3's 15,360 sequences of 4,096 tokens (arXiv:2412.19437
// Sec. 4.2); Llama 3 405B's was 16M tokens (arXiv:2407.21783 Sec. 3.4.1).
inline constexpr double kLargestPublishedBatchTokens = 15360.0 * 4096.0;

inline double sites_data_parallel(double dp, double sites) { return sites > 1 ? std::min(dp, sites) : 1.0; }
// The global batch's target in tokens: about 4M (Llama 2, arXiv:2307.09288 Sec. 2.2); with DiLoCo
// (local_steps > 1) 1M tokens per worker when that is more: each worker (a replica in its own sites;
// min(dp, sites) of them) takes its own batch.
double target_batch_tokens(double sites, double dp, Count local_steps);
// Default global batch: the target (target_batch_tokens), rounded to the nearest whole multiple of
// `granule` sequences (dp x micro_batch).
Count default_global_batch(double seq_len, Count granule, double target_tokens);
// The whole multiple of `granule` sequences nearest `target_sequences` (at least one granule).
Count nearest_batch(Count target_sequences, Count granule);
// The most sequences a batch the defaults or the plan search choose may hold: the largest published
// batch (kLargestPublishedBatchTokens), per worker with DiLoCo (local_steps > 1).
double largest_chosen_batch(double seq_len, double dp, double sites, Count local_steps);
// A chosen batch raised, where it gives a pipeline fewer micro-batches than stages, to one micro-batch
// per stage (dp x micro_batch x pp sequences; within `most`, in whole granules): fewer leave each stage
// idle more than half the step (1F1B's bubble (pp - 1) / (m + pp - 1)), and a deep pipeline is run at
// a batch that feeds it. Llama 3 405B on 16,384 H100 (arXiv:2407.21783 Table 4): PP 16, DP 128 and
// 16 sequences per data-parallel rank, 2,048 x 8,192 = 16M tokens (dp x pp); with long context
// (CP 16, DP 8) 128 sequences, again dp x pp. The interleaved schedule's granule is already that batch.
Count pipeline_fed_batch(Count batch, Count dp, Count micro_batch, Count pp, Count vpp, double most);
// The batch a layout given without one defaults to (dp given): the target's nearest whole multiple of
// its granule (default_global_batch), fed to its pipeline (pipeline_fed_batch) within the largest
// chosen batch; for an estimate's defaults and the scenario's resolved layout alike.
Count layout_default_batch(const TrainingConfig& c, double seq_len, double sites);
// Whether a layout's batch is above what the target alone makes of it (nearest_batch of dp x
// micro_batch) because pipeline_fed_batch raised it (no interleaving, pp > 1).
bool batch_raised_to_feed(const TrainingConfig& c, double seq_len, double target_tokens);
// The step a global batch grows by: dp x micro_batch sequences, in groups of pp micro-batches with
// interleaving (vpp > 1: Megatron's forward_backward_pipelining_with_interleaving).
Count batch_granule(Count dp, Count micro_batch, Count pp, Count vpp);
// The sequences of that target (at least one).
Count target_batch_sequences(double seq_len, double target_tokens);

// A GPT-like architecture for a bare parameter count (used when only `params` is known).
ModelSpec gpt_like_shape(double params, double seq_len);

// Scaling curve: step/run time and efficiency vs GPU count (same model, tokens, TP and PP); only
// counts whose layout fits in memory, efficiency relative to the smallest of them.
struct ScalingPoint {
    double gpus = 0;
    std::optional<double> seconds;  // null without training.tokens
    double mfu = 0, tokens_per_second = 0, speedup = 0, efficiency = 0;
};
// The curve is the step model's; with training.mfu given it is levelled to pass through the run
// at that MFU (`level` = given / predicted MFU at the run's own count; 1 otherwise): the model's
// shape of the curve at the reader's level, so the curve and the answer agree. It is not levelled
// (level null, `why` says why) when the run does not fit, spans several sites (the curve adds or
// removes whole sites, whose WAN cost one MFU does not carry) or a levelled point would pass 100 %.
struct ScalingCurve {
    std::vector<ScalingPoint> points;
    std::optional<double> level = 1.0;  // null: training.mfu given but the curve left the model's (why says why)
    std::string why;
};
// `run`: the estimate of the run itself (cfg), whose fit and predicted MFU set the level.
ScalingCurve scaling_curve(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs,
                           const TrainingResult& run);

}  // namespace gpucalc
