// Training estimator: a run on a resolved layout (layout.cpp chooses it when the scenario does not):
// the step model (training_step.cpp), then throughput, MFU/HFU, goodput, run totals and their band.
// Sources: FLOPs per token and MFU/HFU: PaLM (Chowdhery et al. 2022, arXiv:2204.02311) App. B;
// Kaplan et al. 2020 (6N); energy as published runs compute it (LLaMA, arXiv:2302.13971 Sec. 6).
#include "gpucalc/training.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/decimal.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

// A fraction as a percentage with one decimal: "61.4 %".
std::string percent_text(double x) { return jr::fmt_num(std::round(x * 1000) / 10) + " %"; }

// Goodput constants (sourced; see docs/MODEL.md "Goodput"):
// Llama 3 405B: 419 unexpected interruptions in 54 days on up to 16,384 H100 (Dubey et al. 2024,
// arXiv:2407.21783 Sec. 3.3.4, Table 5) = 419 / (54 x 24 x 16,384) per GPU-hour.
constexpr double kFailuresPerDeviceHour = 419.0 / (54.0 * 24.0 * 16384.0);
// Restart after a failure: detection within ~10 minutes and recovery within ~15 (MegaScale, Jiang et
// al. 2024, arXiv:2402.15627 Sec. 4.1-4.2).
constexpr double kRestartSeconds = 25.0 * 60.0;
// A checkpoint holds the 16-bit weights and the fp32 master weights and Adam moments: 2 + 12 bytes
// per parameter (ZeRO Sec. 3.1), written in parallel by all devices.
constexpr double kCheckpointBytesPerParam = 14.0;
// Checkpoint write bandwidth per device: Llama 3's storage sustained 2 TB/s for 16,384 GPUs
// (arXiv:2407.21783 Sec. 3.3.1).
constexpr double kCheckpointBytesPerSecondPerDevice = 2e12 / 16384.0;

}  // namespace

// DiLoCo (Douillard et al. 2023, arXiv:2311.08105, v3): Table 2, 8 workers at H = 500 reach perplexity
// 15.02 against 15.30 for synchronous data parallelism with the same 8x batch (-1.8%); Sec. 3.1
// (Fig. 4), H = 1000 costs +2.9% perplexity relative to H = 50; H was tested from 50 to 2,000.
// Tokens for a perplexity change: Table 2's own scaling, 8x the updates take perplexity from 16.23 to
// 14.72, d ln(ppl) / d ln(tokens) = ln(16.23 / 14.72) / ln 8 = 0.047 (derived; 150M-parameter models).
Convergence diloco_convergence(double local_steps) {
    Convergence c;
    c.local_steps = local_steps;
    if (local_steps <= 1) return c;
    const double low = 15.02 / 15.30 - 1.0, high = 0.029;
    c.perplexity_change_low = low;
    c.perplexity_change_high = high;
    // exp(ln(1 + change) / 0.046962), with 0.046962 = ln(16.23 / 14.72) / ln 8; written out (4
    // significant digits) so that native and WebAssembly builds, whose exp and log may differ in the
    // last bit, give byte-identical reports.
    c.token_multiplier_low = 0.6748;  // exp(ln(15.02 / 15.30) / 0.046962)
    c.token_multiplier_high = 1.838;  // exp(ln(1.029) / 0.046962)
    c.beyond_published = local_steps > 2000;
    c.basis =
        "DiLoCo (arXiv:2311.08105) Table 2: 8 workers at H=500 reach perplexity 15.02 vs 15.30 for synchronous data parallelism "
        "at the same batch (-1.8%); Sec. 3.1: H=1000 costs +2.9% perplexity vs H=50 (H tested 50-2000, models 60M-400M); "
        "tokens for the same loss derived with Table 2's scaling (8x updates: 16.23 -> 14.72, d ln ppl / d ln tokens = 0.047). "
        "INTELLECT-1 (10B, H=100, int8) and Streaming DiLoCo (1B-4B) report no loss of quality";
    return c;
}

void resolve_diloco_defaults(TrainingConfig& c) {
    const std::uint64_t bit = field_bit(training_fields(), "outer_offload");
    if (c.local_steps <= 1 || (c.given & bit)) return;
    c.outer_offload = true;
    c.given |= bit;
}

double site_count(const Hardware& hw) {
    if (hw.pools.empty()) return network_levels(hw).sites;
    std::vector<std::string> sites;
    for (const Pool& p : hw.pools)
        if (std::find(sites.begin(), sites.end(), p.site) == sites.end()) sites.push_back(p.site);
    return static_cast<double>(sites.size());
}

double target_batch_tokens(double sites, double dp, Count local_steps) {
    constexpr double kTargetBatchTokens = 4194304.0;  // 4M tokens (Llama 2, arXiv:2307.09288 Sec. 2.2)
    // INTELLECT-1: 128 sequences of 8,192 tokens per worker (a node) per inner step (PRIME
    // configs/10B/H100_intellect1.toml); DiLoCo's workers each take their own batch (arXiv:2311.08105
    // Algorithm 1; Table 2 compares with synchronous training "with the same 8x batch").
    constexpr double kDilocoTokensPerWorker = 1048576.0;
    if (local_steps <= 1) return kTargetBatchTokens;
    // The workers: the sites the data-parallel group spans (as the step model counts them), a replica each.
    return std::max(kTargetBatchTokens, sites_data_parallel(dp, sites) * kDilocoTokensPerWorker);
}

Count target_batch_sequences(double seq_len, double target_tokens) {
    return static_cast<Count>(std::max(1.0, std::floor(target_tokens / seq_len)));
}

Count batch_granule(Count dp, Count micro_batch, Count pp, Count vpp) { return dp * micro_batch * (vpp > 1 && pp > 1 ? pp : 1); }

Count nearest_batch(Count target_sequences, Count granule) {
    const Count g = std::max<Count>(1, granule);
    // The nearest whole multiple (at least one): within half a granule of 4M tokens, never 1.5x it.
    return std::max<Count>(1, (target_sequences + g / 2) / g) * g;
}

Count default_global_batch(double seq_len, Count granule, double target_tokens) {
    return nearest_batch(target_batch_sequences(seq_len, target_tokens), granule);
}

Count layout_default_batch(const TrainingConfig& c, double seq_len, double sites) {
    const Count dp = c.dp.value_or(1);
    const double d = static_cast<double>(dp);
    return pipeline_fed_batch(
        default_global_batch(seq_len, batch_granule(dp, c.micro_batch, c.pp, c.vpp), target_batch_tokens(sites, d, c.local_steps)), dp,
        c.micro_batch, c.pp, c.vpp, largest_chosen_batch(seq_len, d, sites, c.local_steps));
}

bool batch_raised_to_feed(const TrainingConfig& c, double seq_len, double target_tokens) {
    if (c.pp <= 1 || c.vpp > 1 || !c.global_batch) return false;
    return nearest_batch(target_batch_sequences(seq_len, target_tokens), c.dp.value_or(1) * c.micro_batch) < *c.global_batch;
}

double largest_chosen_batch(double seq_len, double dp, double sites, Count local_steps) {
    return kLargestPublishedBatchTokens / seq_len * (local_steps > 1 ? std::max(1.0, sites_data_parallel(dp, sites)) : 1.0);
}

Count pipeline_fed_batch(Count batch, Count dp, Count micro_batch, Count pp, Count vpp, double most) {
    const Count fed = dp * micro_batch * pp;
    if (pp <= 1 || batch >= fed) return batch;
    // Within `most`: the largest whole multiple of the granule there (none: the batch as it was).
    const Count g = std::max<Count>(1, batch_granule(dp, micro_batch, pp, vpp));
    const Count cap = static_cast<Count>(std::floor(most / static_cast<double>(g))) * g;
    return std::max(batch, std::min(fed, cap));
}

constexpr double kGpt2Vocab = 50257;

// A GPT-like shape for a model given only its parameter count: N ~ 12 L h^2 with L = h / 128
// (aspect ratio of GPT-3 175B: h 12288, L 96), h rounded to a multiple of 128 (1,024 when large).
ModelSpec gpt_like_shape(double n, double seq_len) {
    ModelSpec m;
    m.has_architecture = true;
    m.name = "GPT-like shape for " + jr::fmt_num(n) + " parameters";
    double h = std::cbrt(n * 128.0 / 12.0);
    // Width a multiple of 1,024 (8 heads of 128) from 1,024 up, so that tensor parallelism up to 8
    // divides the heads (a 1e9 count was 17 heads: the plan search found no TP 2 layout).
    const double step = h >= 1024 ? 1024.0 : 128.0;
    h = std::max(128.0, std::round(h / step) * step);
    m.hidden = h;
    m.layers = std::max(1.0, std::round(n / (12.0 * h * h)));
    m.heads = h / 128.0;
    m.kv_heads = m.heads;
    m.ffn_hidden = 4 * h;
    // GPT-2's vocabulary (Radford et al. 2019: 50,257 tokens), or, for a count too small to hold
    // its embedding (below ~1e8 parameters), a vocabulary whose tied embedding holds half the count,
    // so the layers keep the other half (a 1e6 count had a 12.9M-parameter embedding and empty layers).
    m.vocab = std::min(kGpt2Vocab, std::max(1.0, std::floor(0.5 * n / h)));
    m.seq_len = seq_len;
    m.tied_embeddings = true;
    return m;
}

TrainingModel training_model(const ModelSpec& model) {
    TrainingModel t;
    const ParamCount pc = count_params(model);
    t.shape = model.has_architecture ? model : gpt_like_shape(pc.active, model.seq_len);
    t.in = step_inputs(t.shape);
    if (model.has_architecture) return t;
    t.assumed_shape = true;
    StepInputs& in = t.in;
    in.params_positions = 0;  // the stated count is the count: the shape adds no position table
    const double emb = in.params_embedding;
    const double layer_active = std::max(0.0, pc.active - emb) / in.layers;
    const double shaped_matmul = in.attn_params_per_layer + in.ffn_matmul_params_per_layer_active;
    const double k = shaped_matmul > 0 ? layer_active / shaped_matmul : 1.0;
    in.attn_params_per_layer *= k;
    in.ffn_matmul_params_per_layer_active *= k;
    in.params_total_layers = std::max(0.0, pc.total - emb) / in.layers;
    if (pc.total > 1.01 * pc.active) {
        // A mixture of experts given by its counts: the inactive parameters are routed experts that
        // expert parallelism can shard. 2 experts per token and 16 experts (more if the 2 active ones
        // would not fit in the active count): an assumption, reported as such.
        t.assumed_experts = true;
        // The two active experts hold at most 40 % of the active layer parameters (so the attention and
        // the rest keep 60 %): with more experts, each smaller. Doubling to 2^20 covers any ratio of
        // total to active parameters published (Switch-C, ~1,000x); the non-routed share below never
        // goes negative (a red-team input of 1e13 with 1e9 active capped at 4,096 experts and did).
        const double inactive = pc.total - pc.active, room = 0.4 * std::max(1.0, pc.active - emb);
        double experts = 16;
        while (inactive / (experts - 2.0) > room && experts < 1048576) experts *= 2;
        in.expert_params_per_layer = inactive * experts / (experts - 2.0) / in.layers;
        // Every layer an MoE layer (as step_inputs sets them for an architecture): what the memory
        // model places per stage, the routed experts sharded by ep. Before, left at 0, a 671B model
        // with 37B active held 0.67 GiB of weights per GPU on 8 H100 (page review, 2026-12-05).
        in.routed_params_per_moe_layer = in.expert_params_per_layer;
        in.moe_layer_params = std::max(0.0, in.params_total_layers - in.routed_params_per_moe_layer);
        in.dense_mlp_layers = 0;
        in.moe_layer_fraction = 1;
        in.experts = experts;
        in.experts_per_token = 2;
        in.expert_ffn_width = 4.0 * in.hidden;
    }
    return t;
}

Goodput goodput_for(double devices, double state_bytes_per_device, const std::optional<double>& given) {
    Goodput g;
    g.failures_per_hour = kFailuresPerDeviceHour * devices;
    g.mean_hours_between_failures = g.failures_per_hour > 0 ? 1.0 / g.failures_per_hour : 1e30;
    g.checkpoint_seconds = state_bytes_per_device / kCheckpointBytesPerSecondPerDevice;
    g.restart_seconds = kRestartSeconds;
    if (given) {
        g.value = *given;
        g.given = true;
        return g;
    }
    // Young (1974) / Daly (2006): checkpoint every sqrt(2 x checkpoint time x MTBF); the time lost is
    // the checkpoint writes plus, per failure, half an interval of recomputation and the restart.
    const double mtbf = g.mean_hours_between_failures * units::seconds_per_hour;
    g.checkpoint_interval_seconds = std::sqrt(2.0 * g.checkpoint_seconds * mtbf);
    const double lost = (g.checkpoint_interval_seconds > 0 ? g.checkpoint_seconds / g.checkpoint_interval_seconds : 0.0) +
                        (g.checkpoint_interval_seconds / 2.0 + g.restart_seconds) / mtbf;
    g.value = 1.0 / (1.0 + lost);
    return g;
}

Goodput run_goodput(double devices, double params, const std::optional<double>& given) {
    return goodput_for(devices, kCheckpointBytesPerParam * params / devices, given);
}

namespace {

bool listed(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The scenario's config with its defaults resolved: data parallelism from the device count, sequence
// parallelism with tensor parallelism, a global batch of ~4M tokens (one that feeds the pipeline where that
// is more: pipeline_fed_batch) and the device's framework.
TrainingConfig resolved_config(const TrainingConfig& cfg_in, const ModelSpec& model, const Hardware& hw) {
    TrainingConfig cfg = cfg_in;
    if (!cfg.dp) cfg.dp = std::max<Count>(1, hw.count / std::max<Count>(1, cfg.tp * cfg.pp * cfg.cp));
    if (!cfg.sequence_parallel) cfg.sequence_parallel = cfg.tp > 1;
    if (!cfg.global_batch) {
        cfg.global_batch = layout_default_batch(cfg, model.seq_len, site_count(hw));
    }
    if (!cfg.framework) cfg.framework = framework_of(cfg, hw.device);
    // The experts' tensor parallelism as the estimate resolves it (echoed: 1 where the layout folds).
    if (!cfg.expert_tp && cfg.ep > 1) cfg.expert_tp = static_cast<Count>(expert_tensor_parallel(cfg));
    return cfg;
}

}  // namespace

std::string assumed_shape_words(const TrainingModel& tm) {
    return jr::fmt_num(tm.shape.layers) + " layers, hidden " + jr::fmt_num(tm.shape.hidden) + ", vocabulary " + jr::fmt_num(tm.shape.vocab);
}

namespace {

// Warnings about what the estimate assumes: a GPT-like shape for a bare parameter count, generic efficiency constants.
void assumption_warnings(const TrainingModel& tm, const Efficiency& eff, const Device& d, TrainingResult& r) {
    const ModelSpec& shaped = tm.shape;
    if (tm.assumed_shape)
        r.warnings.push_back("model given by parameter count only: the time model uses a GPT-like shape (" + assumed_shape_words(tm) +
                             ", " + jr::fmt_num(shaped.seq_len) +
                             "-token sequences: model.seq_len) holding the stated parameter counts; a real architecture's shape and "
                             "sequence length change the time (attention grows with the sequence); FLOPs and MFU count 6 x N per "
                             "token, the convention of published compute figures, so the shape's attention lowers the MFU" +
                             (tm.assumed_experts ? "; the parameters beyond the active count are treated as " + jr::fmt_num(tm.in.experts) +
                                                       " routed experts, 2 per token"
                                                 : ""));
    if (eff.fallback_used)
        r.warnings.push_back(d.name + " matches no calibrated device generation: generic efficiency constants used (" + eff.gen.basis +
                             ")");
}

// Communication across sites: the WAN figures, the share of the step not waiting on the WAN, and
// what local steps (DiLoCo) do or would do.
void across_sites(const TrainingConfig& cfg, const NetworkLevels& levels, const StepEstimate& est, TrainingResult& r) {
    r.wan = est.wan.value_or(WanTraffic{});
    if (!est.wan) r.wan.inner_step_seconds = est.step.total;
    const WanTraffic& w = r.wan;
    if (est.step.total > 0)
        r.compute_utilization = std::max(0.0, est.step.total - w.exchange_exposed_seconds - w.pp_seconds) / est.step.total;
    if (cfg.local_steps > 1 && w.sites_dp <= 1)
        r.warnings.push_back(levels.sites <= 1
                                 ? "training.local_steps has no effect: the cluster is one site (set hardware.sites, pools in several "
                                   "sites, or a WAN preset as hardware.network); data parallelism synchronises every step"
                                 : "training.local_steps has no effect: the data-parallel group does not span sites (each replica spans " +
                                       jr::fmt_num(w.sites_pp) + " sites); nothing is exchanged across sites between local steps");
    if (cfg.local_steps > 1 && w.sites_dp > 1) {
        r.convergence = diloco_convergence(static_cast<double>(cfg.local_steps));
        r.warnings.push_back(
            "DiLoCo convergence: with " + jr::fmt_num(static_cast<double>(cfg.local_steps)) +
            " local steps, published perplexity at the same tokens ranges from -1.8% to +2.9% of synchronous training "
            "(DiLoCo Table 2 and Sec. 3.1, 60M-400M models): the same loss may take x" +
            jr::fmt_num(*r.convergence->token_multiplier_low) + " to x" + jr::fmt_num(*r.convergence->token_multiplier_high) +
            " the tokens (training.local_sgd)" +
            (r.convergence->beyond_published ? "; local_steps above the largest published H (2,000): no published figure" : ""));
    }
    if (w.sites_dp > 1 && cfg.zero >= 1) {
        // training_step.cpp weight_placement: ZeRO/FSDP shards stay inside a site (hybrid sharding).
        const double ranks = static_cast<double>(cfg.dp.value_or(1) * cfg.cp);
        r.warnings.push_back(
            "ZeRO-" + jr::fmt_num(static_cast<double>(cfg.zero)) +
            " shards inside each site only (hybrid sharding over the WAN, as MaxText multislice and INTELLECT-1): each of the " +
            jr::fmt_num(w.sites_dp) + " sites holds the whole sharded state over its " + jr::fmt_num(std::floor(ranks / w.sites_dp)) +
            " data-parallel ranks, not over all " + jr::fmt_num(ranks) + ", so the memory per device is larger than in one data centre");
    }
    if (levels.sites > 1 && w.sites_dp > 1 && cfg.local_steps == 1 && r.compute_utilization < 0.5)
        r.warnings.push_back("synchronous data parallelism: " + jr::fmt_num(w.sites_dp) + " replicas in " + jr::fmt_num(levels.sites) +
                             " sites wait " + jr::fmt_num(std::round(100.0 * (1.0 - r.compute_utilization))) +
                             "% of each step on the WAN: consider DiLoCo (training.local_steps above 1) and fewer bytes per exchange "
                             "(training.outer_precision int8)");
}

// Derivations of the data-parallel exchange across sites and, with DiLoCo, its exposed share per step.
GPUCALC_COLD void explain_exchange_across_sites(const TrainingConfig& cfg, const Efficiency& eff, const NetworkLevels& levels,
                                                const StepEstimate& est, const WanTraffic& w, Trace& trace) {
    if (w.sites_dp <= 1) return;
    const bool sparse = cfg.outer_topk < 1.0;
    trace.add("training.communication.exchange_seconds",
              sparse ? "(sites - 1) x exchange_bytes_per_site / (wan x network) + ceil(log2 sites) x wan_latency (top-k: all-gather)"
                     : "2 (sites - 1) / sites x exchange_bytes_per_site / (wan x network) + 2 ceil(log2 sites) x wan_latency (all-reduce)",
              {{"sites", w.sites_dp},
               {"exchange_bytes_per_site", w.exchange_bytes_per_site},
               {"wan_bytes_per_second", levels.wan},
               {"network", eff.gen.network},
               {"wan_latency_seconds", levels.wan_latency},
               {"outer_topk", cfg.outer_topk}},
              w.exchange_seconds, "s",
              "hierarchical all-reduce, alpha-beta model (Thakur, Rabenseifner & Gropp 2005, Int. J. HPC Appl. 19(1), Sec. 4); "
              "bytes per value: outer precision, top-k adds a 12-bit index (SparseLoCo chunks of 4,096)");
    if (cfg.local_steps > 1)
        trace.add("training.step_breakdown_seconds.outer_comm",
                  "max(0, exchange_seconds - min(outer_overlap_steps, local_steps) x inner_step) / local_steps",
                  {{"exchange_seconds", w.exchange_seconds},
                   {"outer_overlap_steps", static_cast<double>(cfg.outer_overlap_steps)},
                   {"local_steps", static_cast<double>(cfg.local_steps)},
                   {"inner_step_seconds", w.inner_step_seconds}},
                  est.step.outer_comm, "s",
                  "DiLoCo (Douillard et al. 2023, arXiv:2311.08105) Algorithm 1; Streaming DiLoCo overlap (arXiv:2501.18512)");
}

// Derivations of the pipeline sends across sites and of the share of the step not waiting on the WAN.
GPUCALC_COLD void explain_pipeline_across_sites(const NetworkLevels& levels, const StepEstimate& est, const TrainingResult& r,
                                                Trace& trace) {
    const WanTraffic& w = r.wan;
    if (w.sites_pp > 1)
        trace.add(
            "training.communication.pipeline_wan_seconds_per_step",
            "microbatches x max(0, vpp x x - t_microbatch) + 2 vpp (sites - 1)(x + wan_latency), x = bytes / (wan x network / senders)",
            {{"bytes_per_microbatch", w.pp_bytes_per_microbatch},
             {"wan_bytes_per_second", levels.wan},
             {"sites", w.sites_pp},
             {"wan_latency_seconds", levels.wan_latency},
             {"microbatches", est.microbatches},
             {"t_microbatch", est.microbatch_seconds}},
            w.pp_seconds, "s",
            "pipeline across sites: SWARM (Ryabinin et al. 2023, arXiv:2301.11913) bandwidth bound; 1F1B fill and drain");
    if (levels.sites > 1)
        trace.add("training.communication.compute_utilization", "(step - exposed exchange - pipeline sends across sites) / step",
                  {{"step_seconds", est.step.total}, {"exchange_exposed", w.exchange_exposed_seconds}, {"pipeline_wan", w.pp_seconds}},
                  r.compute_utilization, "fraction", "INTELLECT-1's compute utilization (arXiv:2412.01152): time not waiting on the WAN");
}

// The step model's memory and time as the report gives them, and whether the memory fits the device.
void step_figures(const Device& d, const StepEstimate& est, TrainingResult& r) {
    r.memory = est.memory;
    r.zero3_buffer_bytes = est.zero3_buffer_bytes;
    r.dp_comm_bytes_per_step = est.dp_bytes;
    // What a model may occupy: all of the memory, or on unified memory (Apple silicon) the share the
    // GPU may use (usable_memory_fraction), as serving and fine-tuning size it.
    const std::optional<double> cap = d.usable_memory_bytes();
    r.memory_capacity_bytes = cap.value_or(0);
    r.fits = cap ? r.memory.total <= *cap : false;
    r.step = est.step;
    if (r.fits && cap && est.middle_stage_bytes > *cap)
        r.warnings.push_back("a middle pipeline stage holds one layer more than the first and one micro-batch fewer in flight: about " +
                             jr::fmt_num(est.middle_stage_bytes / units::GiB) + " GiB by these formulas, above the " +
                             jr::fmt_num(*cap / units::GiB) + " GiB of " + d.name +
                             " (memory_per_gpu_bytes sizes the first stage, as Meta's Llama 3.1 405B layout, TP 8 PP 16 without "
                             "recomputation, ran on 80 GB H100s; with less slack, recompute or use more stages)");
}

// Throughput: tokens per step and per second, MFU (predicted, or given), HFU and FLOP/s per device.
void throughput(const ModelSpec& model, const ModelSpec& shaped, const TrainingConfig& cfg, const Device& d, const StepEstimate& est,
                TrainingResult& r) {
    const double n = r.devices;
    r.tokens_per_step = static_cast<double>(*cfg.global_batch) * model.seq_len;
    // MFU is measured against the dense 16-bit peak, also when the GEMMs run in FP8 (tokens/s is the
    // convention-free figure).
    const Precision mfu_precision = d.sixteen_bit(cfg.precision);
    const double peak = d.peak(mfu_precision).value_or(0);
    r.peak_flops_per_second = peak;
    r.mfu_precision = mfu_precision;
    const double hw_per_token =
        r.model_flops_per_token * (1.0 + est.recompute_flops_per_token / std::max(1.0, model_flops_per_token_training(shaped)));
    r.hardware_flops_per_token = hw_per_token;
    if (est.step.total > 0 && peak > 0) r.mfu_predicted = r.model_flops_per_token * r.tokens_per_step / est.step.total / (n * peak);
    if (cfg.mfu) {
        r.mfu_given = true;
        r.mfu = *cfg.mfu;
        r.tokens_per_second = peak > 0 ? r.mfu * n * peak / r.model_flops_per_token : 0;
        r.step_seconds = r.tokens_per_second > 0 ? r.tokens_per_step / r.tokens_per_second : 0;
        if (est.step.total > 0 && r.step_seconds > 0 && r.fits)  // a run that does not fit has no step to speak of
            r.warnings.push_back("training.mfu given: the step (" + jr::fmt_num(r.step_seconds) +
                                 " s) follows it; step_breakdown_seconds is the model's own step (" + jr::fmt_num(est.step.total) +
                                 " s, MFU " + percent_text(r.mfu_predicted) + "), split by what takes the time");
    } else {
        r.mfu = r.mfu_predicted;
        r.step_seconds = est.step.total;
        r.tokens_per_second = est.step.total > 0 ? r.tokens_per_step / est.step.total : 0;
    }
    r.hfu = peak > 0 ? hw_per_token * r.tokens_per_second / (n * peak) : 0;
    r.achieved_flops_per_second_per_gpu = hw_per_token * r.tokens_per_second / n;
}

// Derivations of the FLOPs per token and of the run's FLOPs.
GPUCALC_COLD void explain_flops(const ModelSpec& model, const TrainingResult& r, Trace& trace) {
    if (model.has_architecture)
        trace.add("training.model_flops_per_token",
                  "6 x N_matmul + attention, attention = 6 x layers x heads x (qk_head_dim + v_head_dim) x attended_tokens (= 12 L H Q "
                  "T; attended_tokens: seq_len, or with sliding windows the layers' mean of min(window, seq_len))",
                  {{"N_matmul", (r.model_flops_per_token - attention_flops_per_token_training(model)) / 6.0},
                   {"attention", attention_flops_per_token_training(model)},
                   {"layers", model.layers},
                   {"heads", model.heads},
                   {"attended_tokens", attended_tokens(model, model.seq_len)}},
                  r.model_flops_per_token, "FLOP/token",
                  "PaLM (arXiv:2204.02311) App. B; Korthikanti et al. 2022 (arXiv:2205.05198) App. A, without recomputation");
    else
        trace.add("training.model_flops_per_token",
                  "6 x N_active (a bare parameter count: the 6ND convention of published compute figures, no attention term)",
                  {{"N_active", r.params_active}}, r.model_flops_per_token, "FLOP/token",
                  "Kaplan et al. 2020 (arXiv:2001.08361) Sec. 2.1; GPT-3 (arXiv:2005.14165) Table D.1: 3.14e23 FLOPs");
    if (r.tokens > 0) {
        trace.add("training.flops_6nd", "6 x N x D", {{"N", r.params_active}, {"D", r.tokens}}, r.flops_6nd, "FLOP",
                  "Kaplan et al. 2020 (arXiv:2001.08361) Sec. 2.1");
        trace.add("training.flops", "model_flops_per_token x D", {{"model_flops_per_token", r.model_flops_per_token}, {"D", r.tokens}},
                  r.flops, "FLOP", "PaLM App. B convention");
    }
}

// Derivations of the throughput: MFU, HFU, hardware FLOPs per token, tokens/s and FLOP/s per device.
GPUCALC_COLD void explain_throughput(const StepEstimate& est, const TrainingResult& r, Trace& trace) {
    const double n = r.devices, peak = r.peak_flops_per_second, hw_per_token = r.hardware_flops_per_token;
    trace.add("training.mfu",
              r.mfu_given ? "given in the scenario" : "model_flops_per_token x tokens_per_second / (devices x dense 16-bit peak)",
              {{"model_flops_per_token", r.model_flops_per_token},
               {"tokens_per_second", r.tokens_per_second},
               {"devices", n},
               {"peak_flops_per_second", peak}},
              r.mfu, "fraction", "PaLM (arXiv:2204.02311) Sec. 4.1 / App. B; FP8 runs too are measured against the 16-bit peak");
    trace.add("training.hfu", "hardware_flops_per_token x tokens_per_second / (devices x peak)",
              {{"hardware_flops_per_token", hw_per_token},
               {"tokens_per_second", r.tokens_per_second},
               {"devices", n},
               {"peak_flops_per_second", peak}},
              r.hfu, "fraction", "PaLM (arXiv:2204.02311) App. B: HFU counts recomputation");
    trace.add("training.hardware_flops_per_token", "model_flops_per_token + recomputed FLOPs",
              {{"model_flops_per_token", r.model_flops_per_token}, {"recompute_flops_per_token", est.recompute_flops_per_token}},
              hw_per_token, "FLOP/token", "Korthikanti et al. 2022 Sec. 5 (what recomputation re-executes)");
    trace.add("training.tokens_per_second", r.mfu_given ? "MFU x devices x peak / model_flops_per_token" : "tokens_per_step / step_seconds",
              {{"tokens_per_step", r.tokens_per_step},
               {"step_seconds", r.step_seconds},
               {"mfu", r.mfu},
               {"devices", n},
               {"peak_flops_per_second", peak},
               {"model_flops_per_token", r.model_flops_per_token}},
              r.tokens_per_second, "tokens/s",
              r.mfu_given ? "the definition of MFU (PaLM, arXiv:2204.02311, App. B) solved for tokens/s"
                          : "the step time model (training.step_seconds)");
    explain_step_at_given_mfu(r, est.step.total, trace);
    trace.add("training.achieved_flops_per_second_per_gpu", "hardware_flops_per_token x tokens_per_second / devices",
              {{"hardware_flops_per_token", hw_per_token}, {"tokens_per_second", r.tokens_per_second}, {"devices", n}},
              r.achieved_flops_per_second_per_gpu, "FLOP/s", "Narayanan et al. 2021 Eq. 3 convention (recomputation counted)");
}

// Derivations of the fit and of the goodput (explain_goodput).
GPUCALC_COLD void explain_fit_and_goodput(const Device& d, const TrainingResult& r, Trace& trace) {
    trace.add("training.fits", "memory_per_gpu.total <= device memory", {{"total", r.memory.total}, {"capacity", r.memory_capacity_bytes}},
              r.fits ? 1.0 : 0.0, "boolean", d.name + " datasheet");
    explain_goodput(r.goodput, trace);
}

// Band: out-of-sample ratios published / predicted (docs/VALIDATION.md), widened outside the
// calibrated generations and frameworks; a given MFU carries no model uncertainty.
ThroughputBand uncertainty_band(const Device& d, const Efficiency& eff, bool moe, const BandScope& scope, TrainingResult& r) {
    const std::optional<double> ceiling = matmul_ceiling(eff.gen, d, r.config.precision);
    const double most = ceiling && r.hardware_flops_per_token > 0 ? *ceiling * r.model_flops_per_token / r.hardware_flops_per_token : 0;
    if (ceiling && r.fits && r.mfu > most)
        r.warnings.push_back(std::string(r.mfu_given ? "training.mfu" : "the predicted MFU") + " (" + percent_text(r.mfu) +
                             ") is more than the device can do: its hardware FLOP/s (HFU " + percent_text(r.hfu) +
                             ", recomputation counted) pass the fastest matmul measured on " + d.name + " (" + percent_text(*ceiling) +
                             " of its peak, MAMF); at most MFU " + percent_text(most));
    if (r.mfu_given) {
        r.band_basis = "MFU given: no model uncertainty";
        return {};
    }
    ThroughputBand band = throughput_band(eff, moe, scope);
    if (ceiling && r.fits) cap_band(band, r.mfu, most, *ceiling, d.name);
    r.band_basis = band.basis;
    r.band_widened = band.widened;
    r.mfu_low = r.mfu * band.lo;
    r.mfu_high = r.mfu * band.hi;
    return band;
}

// Run totals: wall time, GPU-hours, energy, CO2 and cost, with their band. Returns the $/GPU-hour used.
// An energy or cost whose input is unknown (the TDP, the price) is null with a warning (run_cost).
HourlyRate run_totals(const Hardware& hw, const Costs& costs, const ThroughputBand& band, TrainingResult& r) {
    const Device& d = hw.device;
    const HourlyRate hourly = hardware_hour_cost(hw, costs, "hardware.device");
    r.gpu_hour_usd = hourly.usd;
    if (r.tokens > 0 && r.tokens_per_second > 0) {
        const double seconds = r.tokens / r.tokens_per_second / r.goodput.value;
        const double gpu_hours = r.devices * seconds / units::seconds_per_hour;
        const RunCost rc = run_cost(d, costs, hourly, gpu_hours, "hardware.device");
        if (costs.ownership == Ownership::owned && seconds > costs.lifetime_years * units::hours_per_year * units::seconds_per_hour)
            r.warnings.push_back("the run lasts " + jr::fmt_num(seconds / (units::hours_per_year * units::seconds_per_hour)) +
                                 " years, longer than costs.lifetime_years (" + jr::fmt_num(costs.lifetime_years) +
                                 "): the owned cost charges each device more than its price");
        r.seconds = seconds;
        r.gpu_hours = gpu_hours;
        r.energy_kwh = rc.energy_kwh;
        if (rc.energy_kwh) r.co2_kg = *rc.energy_kwh * costs.grid_kg_co2_per_kwh;
        r.seconds_low = seconds / band.hi;
        r.seconds_high = seconds / band.lo;
        if (rc.cost_usd) {
            r.cost_usd = rc.cost_usd;
            r.cost_usd_low = *rc.cost_usd / band.hi;
            r.cost_usd_high = *rc.cost_usd / band.lo;
        }
        r.warnings.insert(r.warnings.end(), rc.missing.begin(), rc.missing.end());
    } else if (r.tokens <= 0) {
        r.warnings.push_back("no training.tokens: the run's time, GPU-hours, cost and energy need it");
    }
    return hourly;
}

// Derivations of the run totals (run_totals).
GPUCALC_COLD void explain_run_totals(const Device& d, const Costs& costs, const HourlyRate& hourly, const ThroughputBand& band,
                                     const TrainingResult& r, Trace& trace) {
    // A run that does not fit has no time, cost or energy (the report gives null): no derivation
    // shows one either; training.fits says why.
    if (!r.seconds || !r.fits) return;
    const double seconds = *r.seconds, gpu_hours = *r.gpu_hours, n = r.devices;
    trace.add("training.seconds", "D / tokens_per_second / goodput",
              {{"D", r.tokens}, {"tokens_per_second", r.tokens_per_second}, {"goodput", r.goodput.value}}, seconds, "s",
              "goodput: training.goodput (time lost to failures, restarts and checkpoints)");
    trace.add("training.days", "seconds / 86400", {{"seconds", seconds}}, seconds / units::seconds_per_day, "days", "86,400 seconds a day");
    trace.add("training.uncertainty",
              "seconds / [band high, band low] (throughput band from out-of-sample errors); the result: the slow end, seconds / band_low",
              {{"seconds", seconds}, {"band_low", band.lo}, {"band_high", band.hi}}, *r.seconds_high, "s", r.band_basis);
    trace.add("training.gpu_hours", "devices x seconds / 3600", {{"devices", n}, {"seconds", seconds}}, gpu_hours, "GPU-h",
              "every device held for the whole run");
    // Each only when known (run_cost): a derivation never shows a missing price or TDP as 0.
    if (r.cost_usd && costs.ownership == Ownership::owned)
        trace.add("training.cost_usd", "gpu_hours x price / (lifetime_years x 8760) + energy_kwh x electricity",
                  {{"gpu_hours", gpu_hours},
                   {"price_usd", *d.price_usd},
                   {"lifetime_years", costs.lifetime_years},
                   {"energy_kwh", *r.energy_kwh},
                   {"electricity_usd_per_kwh", costs.electricity_usd_per_kwh}},
                  *r.cost_usd, "USD", "straight-line amortisation");
    else if (r.cost_usd)
        trace.add("training.cost_usd", "gpu_hours x gpu_hour_usd", {{"gpu_hours", gpu_hours}, {"gpu_hour_usd", *r.gpu_hour_usd}},
                  *r.cost_usd, "USD", hourly.what);
    if (!r.energy_kwh) return;
    trace.add("training.energy_kwh", "gpu_hours x TDP x PUE", {{"gpu_hours", gpu_hours}, {"tdp_watts", *d.tdp_watts}, {"pue", costs.pue}},
              *r.energy_kwh, "kWh", "convention of LLaMA (arXiv:2302.13971) Sec. 6 and BLOOM");
    trace.add("training.co2_kg", "energy_kwh x grid intensity",
              {{"energy_kwh", *r.energy_kwh}, {"grid_kg_co2_per_kwh", costs.grid_kg_co2_per_kwh}}, *r.co2_kg, "kg CO2e",
              "LLaMA Sec. 6 (0.385 kg/kWh US average)");
}

}  // namespace

// Derivation of the goodput (goodput_for), for one device type and a mixed fleet.
GPUCALC_COLD void explain_goodput(const Goodput& g, Trace& trace) {
    trace.add("training.goodput",
              g.given ? "given in the scenario"
                      : "1 / (1 + checkpoint / interval + (interval / 2 + restart) / MTBF), interval = sqrt(2 x checkpoint x MTBF), "
                        "MTBF = 3600 / failures_per_hour s",
              {{"failures_per_hour", g.failures_per_hour},
               {"checkpoint_seconds", g.checkpoint_seconds},
               {"checkpoint_interval_seconds", g.checkpoint_interval_seconds},
               {"restart_seconds", g.restart_seconds}},
              g.value, "fraction",
              "failures: Llama 3 (arXiv:2407.21783 Table 5) 419 in 54 days on 16,384 GPUs; restart: MegaScale (arXiv:2402.15627); "
              "checkpoint interval: Young 1974 / Daly 2006");
}

namespace {
std::string millions(double x) { return jr::fmt_num(std::round(x / 1e5) / 10) + "M"; }  // 67.1M, as the 62.9M it is held against
constexpr std::string_view kGlobalBatchWarningStart = "the global batch (";
}  // namespace

bool is_global_batch_warning(const std::string& warning) { return warning.rfind(kGlobalBatchWarningStart, 0) == 0; }

// A batch above the largest published one, a run shorter than one step, or than one exchange of
// DiLoCo: its time is the time of a few steps of a batch it does not fill, which no published run resembles.
GPUCALC_COLD void run_length_warnings(const TrainingConfig& cfg, TrainingResult& r) {
    // With local steps in effect (DiLoCo) each worker (a site, or a fleet's pool) takes its own inner
    // batch: the sum is no one batch, and each inner batch is held against the published maximum.
    const bool diloco = r.convergence.has_value();
    const double workers = !diloco ? 1.0 : std::max(1.0, r.fleet ? r.fleet_pools : r.wan.sites_dp);
    const std::string who = r.fleet ? "pools" : "sites";
    const double batch = r.tokens_per_step / workers;
    if (batch > kLargestPublishedBatchTokens)
        r.warnings.push_back(
            (diloco ? "each of the " + jr::fmt_num(workers) + " " + who + "' inner batches (" + millions(batch) + " tokens per step)"
                    : std::string(kGlobalBatchWarningStart) + millions(batch) + " tokens per step)") +
            " is above the largest published pretraining batch (DeepSeek-V3: " + millions(kLargestPublishedBatchTokens) +
            " tokens, arXiv:2412.19437 Sec. 4.2): the step time holds, but the tokens the model then needs to reach the same loss are not "
            "modelled " +
            std::string(r.fleet ? "(a mixed fleet sizes its own batch from its devices: fewer devices give a smaller one)"
                                : "(give training.global_batch, or use fewer data-parallel copies)"));
    if (r.tokens <= 0 || r.tokens_per_step <= 0) return;
    const double steps = r.tokens / r.tokens_per_step;
    if (steps < 1)
        r.warnings.push_back("the tokens (" + jr::fmt_num(r.tokens) + ") are less than one step's batch (" +
                             jr::fmt_num(r.tokens_per_step) + " tokens): the time is a fraction of one step");
    else if (diloco && steps < static_cast<double>(cfg.local_steps))
        r.warnings.push_back("the run is " + jr::fmt_num(steps) + " steps, fewer than the " +
                             jr::fmt_num(static_cast<double>(cfg.local_steps)) + " local steps between exchanges: the " + who +
                             " never exchange");
}

GPUCALC_COLD void explain_step_at_given_mfu(const TrainingResult& r, double model_step_seconds, Trace& trace) {
    if (!r.mfu_given) return;
    trace.add(
        "training.step_seconds", "tokens_per_step / tokens_per_second (at the given MFU)",
        {{"tokens_per_step", r.tokens_per_step}, {"tokens_per_second", r.tokens_per_second}, {"step_model_seconds", model_step_seconds}},
        r.step_seconds, "s", "the tokens of one optimizer step at the throughput the given MFU sets");
}

namespace {

// The experts' tensor parallelism at 1 where ep does not divide dp x cp (the default there:
// Megatron-Core's MoE parallel folding): each GPU holds whole experts, several times the expert weights
// of tp-way sharding. Said (a red team: gpt-oss-20b on 32 A100, tp 8, pp 2, ep 2 -> 4 took the weights
// per GPU from 1.42 to 5.0 GB with only the echoed expert_tp showing why); said as well when given, so
// that the echoed inputs give the same report.
void folding_warning(const TrainingConfig& cfg, const ModelSpec& model, TrainingResult& r) {
    const Count dpc = cfg.dp.value_or(1) * cfg.cp;
    if (!model.is_moe() || cfg.ep <= 1 || cfg.tp <= 1 || cfg.expert_tp.value_or(cfg.tp) != 1 || dpc % cfg.ep == 0) return;
    r.warnings.push_back("training.expert_tp is 1: ep (" + jr::fmt_num(static_cast<double>(cfg.ep)) + ") does not divide dp x cp (" +
                         jr::fmt_num(static_cast<double>(dpc)) +
                         "), so the routed experts fold tensor parallelism into expert parallelism (Megatron-Core MoE parallel "
                         "folding, its default here) and each GPU holds whole experts, not 1/" +
                         jr::fmt_num(static_cast<double>(cfg.tp)) + " of each");
}

// Settings that have no effect, or rest on an assumption: said, never silent.
void setting_warnings(const TrainingConfig& cfg, const ModelSpec& model, const Efficiency& eff, const Device& d, TrainingResult& r) {
    folding_warning(cfg, model, r);
    if (cfg.shard_group && cfg.zero == 0)
        r.warnings.push_back(
            "training.shard_group has no effect at training.zero 0: nothing is sharded, the gradients are all-reduced over "
            "every data-parallel rank");
    if (cfg.precision == Precision::fp8 && !(eff.gen.gemm_fp8 > 0))
        r.warnings.push_back("no FP8 GEMM measurement for " + eff.gen.name + ": its FP8 GEMMs are taken at the 16-bit GEMM efficiency (" +
                             jr::fmt_num(eff.gen.gemm) + ") of " + d.name + "'s FP8 peak");
    // DeepEP forwards tokens inside a node over NVLink (its intranode kernels use NVLink peer memory).
    if (cfg.moe_dispatcher == MoeDispatcher::deepep && cfg.ep > 1 && d.scale_up_name.find("NVLink") == std::string::npos)
        r.warnings.push_back("training.moe_dispatcher deepep: DeepEP moves tokens inside a node over NVLink, which " + d.name + " lacks (" +
                             (d.scale_up_name.empty() ? std::string("no scale-up link") : d.scale_up_name) +
                             "): the forwarding is timed over its own scale-up link, and may be slower than alltoall");
}

// The links the step was timed over that the catalog does not give: an assumed NIC between nodes, a
// scale-up link without its bandwidth (PCIe taken instead).
void link_warnings(const Hardware& hw, const StepEstimate& est, TrainingResult& r) {
    const double n = static_cast<double>(hw.count);
    if (est.scale_out_assumed && n > static_cast<double>(hw.devices_per_node))
        r.warnings.push_back(assumed_scale_out_warning(hw.device.name));
    if (scale_up_unknown(hw.device) && n > 1 && hw.devices_per_node > 1) r.warnings.push_back(unknown_scale_up_warning(hw.device));
}

// The run's inputs and counts in the result: the layout in force, the framework, devices, parameters, tokens.
ParamCount result_inputs(const ModelSpec& model, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff, TrainingResult& r) {
    r.config = cfg;
    r.framework = eff.fw.name;
    r.devices = static_cast<double>(hw.count);
    const ParamCount pc = count_params(model);
    r.params_total = pc.total;
    r.params_active = pc.active;
    r.tokens = cfg.tokens.value_or(0);
    return pc;
}

}  // namespace

TrainingResult estimate_training(const ModelSpec& model, const Hardware& hw, const TrainingConfig& cfg_in, const Costs& costs,
                                 Trace& trace) {
    TrainingResult r;
    const Device& d = hw.device;
    TrainingConfig cfg = resolved_config(cfg_in, model, hw);
    const Efficiency eff = training_efficiency(cfg, d);
    if (!cfg.fp32_gradients) cfg.fp32_gradients = eff.fw.fp32_gradients;
    const ParamCount pc = result_inputs(model, hw, cfg, eff, r);
    const double n = r.devices;

    const TrainingModel tm = training_model(model);
    assumption_warnings(tm, eff, d, r);
    r.model_flops_per_token = model.has_architecture ? model_flops_per_token_training(model) : 6.0 * pc.active;
    r.flops_6nd = 6.0 * pc.active * r.tokens;
    r.flops = r.model_flops_per_token * r.tokens;

    StepTerms terms;  // what the derivations of the communication show (recorded only when explained)
    const StepEstimate est = estimate_step(tm.in, hw, cfg, eff, false, trace.enabled() ? &terms : nullptr);
    link_warnings(hw, est, r);
    setting_warnings(cfg, model, eff, d, r);
    const NetworkLevels levels = network_levels(hw);
    r.network = levels;
    across_sites(cfg, levels, est, r);
    if (r.convergence && cfg.outer_offload)
        r.warnings.push_back("DiLoCo's outer state (fp32 anchor + momentum, 8 bytes per parameter: " + jr::fmt_num(8.0 * pc.total / 1e9) +
                             " GB per replica) is in host memory (training.outer_offload), which is not sized");
    step_figures(d, est, r);
    throughput(model, tm.shape, cfg, d, est, r);
    run_length_warnings(cfg, r);
    r.goodput = run_goodput(n, pc.total, cfg.goodput);
    BandScope scope = band_scope(model, hw, cfg);
    if (!r.convergence) scope.local_steps = 1;  // local steps with no effect (one site; replicas spanning the sites)
    const ThroughputBand band = uncertainty_band(d, eff, model.is_moe(), scope, r);

    // ---- run totals ----
    const HourlyRate hourly = run_totals(hw, costs, band, r);
    if (!r.fits)
        r.infeasible_reason = "does not fit: needs " + jr::fmt_num(r.memory.total / units::GiB) + " GiB per device, " + d.name + " has " +
                              jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB" + (d.usable_memory_fraction ? " usable" : "");

    if (trace.enabled()) {
        // A run that does not fit has no step time, throughput or totals (the report gives null):
        // only its memory, FLOPs and why it does not fit are derived.
        explain_step(tm.in, cfg, eff, est, r.fits, trace);
        if (r.fits) {
            explain_exchange_across_sites(cfg, eff, levels, est, r.wan, trace);
            explain_pipeline_across_sites(levels, est, r, trace);
        }
        explain_flops(model, r, trace);
        if (r.fits) explain_throughput(est, r, trace);
        explain_fit_and_goodput(d, r, trace);
        explain_run_totals(d, costs, hourly, band, r, trace);
    }
    return r;
}

BandScope band_scope(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg) {
    BandScope s;
    s.seq_len = m.seq_len;
    s.params = count_params(m).total;
    s.local_steps = static_cast<double>(cfg.local_steps);
    s.sites = site_count(hw);
    if (s.sites <= 1) s.local_steps = 1;  // one site: local steps have no effect (across_sites)
    if (hw.pools.empty()) {
        s.devices = static_cast<double>(hw.count);
        return s;
    }
    std::vector<std::string> devices;
    for (const Pool& p : hw.pools) {
        s.devices += static_cast<double>(p.count);
        const std::string id = device_identity(p.device);
        if (std::find(devices.begin(), devices.end(), id) == devices.end()) devices.push_back(id);
    }
    s.mixed_devices = devices.size() > 1;
    return s;
}

std::vector<std::string> extrapolations(const Band& b, const BandScope& s) {
    std::vector<std::string> out;
    // Whole counts in full below a billion (4194304 tokens, not 4.1943e+06); parameters as %.6g.
    const auto text = [](double v) { return v < 1e9 ? decimal::format_general(v, 10) : jr::fmt_num(v); };
    const auto beyond = [&](double value, double most, const char* what) {
        if (most > 0 && value > most) out.push_back(text(value) + " " + what + " (the calibration runs reach " + text(most) + ")");
    };
    beyond(s.devices, b.max_devices, "devices");
    beyond(s.seq_len, b.max_seq_len, "tokens per sequence");
    beyond(s.params, b.max_params, "parameters");
    beyond(s.sites, b.max_sites, "sites");
    beyond(s.local_steps, b.max_local_steps, "local steps between synchronisations");
    if (s.mixed_devices && !b.mixed_devices) out.push_back("a fleet of mixed devices (every calibration run has one kind)");
    return out;
}

ThroughputBand widened_band(const Band& b, bool moe, const std::vector<std::string>& reasons) {
    const double widen = std::pow(b.extrapolation, static_cast<double>(reasons.size()));
    ThroughputBand band;
    band.lo = b.widened_low(moe, widen);
    band.hi = b.widened_high(moe, widen);
    band.basis = b.basis_for(moe);
    band.widened = widen;
    if (reasons.empty()) return band;
    band.basis += " (widened x" + jr::fmt_num(widen) + ", x" + jr::fmt_num(b.extrapolation) + " for each extrapolation: ";
    for (std::size_t i = 0; i < reasons.size(); ++i) band.basis += (i ? "; " : "") + reasons[i];
    if (1.0 - (1.0 - b.low_for(moe)) * widen < band.lo) band.basis += "; the low factor stops at " + jr::fmt_num(band.lo);
    band.basis += ")";
    return band;
}

std::optional<double> matmul_ceiling(const GenerationEfficiency& g, const Device& d, Precision p) {
    if (g.mamf <= 0) return std::nullopt;
    if (p != Precision::fp8) return g.mamf;
    const double bf16 = d.peak(d.sixteen_bit(p)).value_or(0), fp8 = d.peak(Precision::fp8).value_or(0);
    if (bf16 <= 0 || fp8 <= 0) return std::nullopt;
    // No FP8 measurement on the generation: its FP8 GEMMs are modelled at the 16-bit efficiency of the
    // FP8 peak (gemm_kernel), and so is their ceiling.
    return std::max(g.mamf, (g.mamf_fp8 > 0 ? g.mamf_fp8 : g.mamf) * fp8 / bf16);
}

void cap_band(ThroughputBand& b, double mfu, double most, double ceiling, const std::string& device) {
    if (!(mfu > 0) || mfu * b.hi <= most) return;
    b.hi = std::max(1.0, most / mfu);
    const std::string mamf = "the fastest matmul measured on " + device + " (" + percent_text(ceiling) +
                             " of its peak; MAMF, S. Bekman, ml-engineering, 'Maximum Achievable Matmul FLOPS comparison table')";
    b.basis += most >= mfu ? "; the high end stops at MFU " + percent_text(most) + ", where the step's hardware FLOP/s reach " + mamf
                           : "; no high end above the estimate, whose hardware FLOP/s already pass " + mamf;
}

ThroughputBand throughput_band(const Efficiency& eff, bool moe, const BandScope& scope) {
    const Calibration& cal = calibration();
    std::vector<std::string> reasons;
    if (eff.fallback_used || !listed(cal.calibrated_generations, eff.gen.id) || !listed(cal.calibrated_frameworks, eff.fw.id))
        reasons.push_back(eff.gen.name + " with " + eff.fw.name + " has no calibration runs");
    const std::vector<std::string> more = extrapolations(cal.band, scope);
    reasons.insert(reasons.end(), more.begin(), more.end());
    return widened_band(cal.band, moe, reasons);
}

namespace {

// Levels the model's curve to the given MFU (scaling_curve), unless a point would pass 100 % MFU.
void level_curve(ScalingCurve& curve) {
    if (!curve.level || *curve.level == 1.0) return;
    const double k = *curve.level;
    for (const ScalingPoint& p : curve.points)
        if (p.mfu * k > 1.0) {
            curve.level.reset();
            curve.why = "levelled, the point at " + jr::fmt_num(p.gpus) + " devices would pass 100 % MFU (" + jr::fmt_num(p.mfu * k) + ")";
            return;
        }
    for (ScalingPoint& p : curve.points) {
        if (p.seconds) p.seconds = *p.seconds / k;
        p.mfu *= k;
        p.tokens_per_second *= k;
    }
}

// The curve's data-parallel sizes: powers of two, and the run's own among them (1,000 GPUs at TP 8:
// dp 125), so that the run is a point of its curve.
std::vector<Count> curve_dps(const TrainingConfig& cfg) {
    std::vector<Count> dps;
    // Up to hardware.count's largest (1e8): the loop stops at 4x the run's count.
    for (Count dp = 1; dp <= 100000000; dp *= 2) dps.push_back(dp);
    const Count own = cfg.dp.value_or(0);
    if (own > 0 && (own & (own - 1)) != 0 && own <= 100000000) dps.insert(std::upper_bound(dps.begin(), dps.end(), own), own);
    return dps;
}

}  // namespace

ScalingCurve scaling_curve(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs,
                           const TrainingResult& run) {
    ScalingCurve curve;
    std::vector<ScalingPoint>& out = curve.points;
    // The run's own estimate predicts its MFU beside the one given (throughput()): no second estimate.
    if (cfg.mfu) {
        curve.level.reset();
        if (!run.fits)
            curve.why = "the run does not fit in memory";
        else if (hw.sites > 1)
            curve.why = "the curve adds or removes whole sites, whose WAN cost one MFU does not carry";
        else if (!(run.mfu_predicted > 0))
            curve.why = "the model predicts no MFU at the run's count";
        else
            curve.level = *cfg.mfu / run.mfu_predicted;
    }
    const Count mp = cfg.tp * cfg.pp * cfg.cp;
    const Count gb = cfg.global_batch.value_or(1024);
    double base_tps_per_gpu = 0;
    // One copy of each, changed per point: a Device copy (its strings and sources) per point was ~9 %
    // of an estimate with a curve.
    Hardware h = hw;
    TrainingConfig c = cfg;
    for (const Count dp : curve_dps(cfg)) {
        const Count gpus = dp * mp;
        if (static_cast<double>(gpus) > std::max(static_cast<double>(hw.count) * 4.0, static_cast<double>(mp))) break;
        if (dp * cfg.micro_batch > gb) break;
        if (!expert_layout_ok(cfg.tp, cfg.cp, dp, cfg.ep, cfg.expert_tp)) continue;
        h.count = gpus;
        if (hw.sites > 1) {
            // Sites keep their size: the curve adds (or removes) whole sites.
            const Count per_site = std::max<Count>(1, hw.count / hw.sites);
            if (gpus % per_site != 0) continue;
            h.sites = std::max<Count>(1, gpus / per_site);
        }
        c.dp = dp;
        // The batch rounded up to whole steps of dp x micro_batch (in groups of pp with interleaving:
        // scenario_parse.cpp check_interleaved_microbatches).
        const Count step = batch_granule(dp, cfg.micro_batch, cfg.pp, cfg.vpp);
        c.global_batch = (gb + step - 1) / step * step;
        c.mfu.reset();
        Trace none(false);
        TrainingResult r = estimate_training(m, h, c, costs, none);
        // A count whose layout does not fit in memory is no point of the curve: it starts where the
        // model fits (with this TP, PP and ZeRO stage), and efficiency is relative to that point.
        if (!r.fits) continue;
        if (r.tokens_per_second <= 0) break;
        if (base_tps_per_gpu == 0) base_tps_per_gpu = r.tokens_per_second / static_cast<double>(gpus);
        ScalingPoint sp;
        sp.gpus = static_cast<double>(gpus);
        sp.seconds = r.seconds;
        sp.mfu = r.mfu;
        sp.tokens_per_second = r.tokens_per_second;
        sp.speedup = r.tokens_per_second / (base_tps_per_gpu * static_cast<double>(mp));
        sp.efficiency = r.tokens_per_second / (base_tps_per_gpu * static_cast<double>(gpus));
        out.push_back(sp);
    }
    level_curve(curve);
    return curve;
}

}  // namespace gpucalc
