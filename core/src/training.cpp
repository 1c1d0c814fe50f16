// Training estimator. Sources of the formulas:
//  - FLOPs: Kaplan et al. 2020 (6N per token); PaLM App. B (attention term, MFU/HFU definitions);
//    Narayanan et al. 2021 (arXiv:2104.04473) Eq. 3 (per-layer GEMM FLOPs, recomputation).
//  - Memory: Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Sec. 3 (16 bytes/param mixed-precision
//    Adam; stages 1-3); Korthikanti et al. 2022 (arXiv:2205.05198) Sec. 4, Table 2 (activations under
//    TP, SP, selective and full recomputation; pipeline in-flight micro-batches).
//  - Time: per-layer roofline (GEMMs at a width-dependent fraction of peak, memory-bound ops at HBM
//    bandwidth), ring collectives 2(n-1)/n x bytes / bandwidth (Patarasuk & Yuan 2009; NCCL docs),
//    1F1B pipeline bubble (p-1)/(v m) (Narayanan et al. 2021 Sec. 2.2).
#include "gpucalc/training.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/json_read.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

Efficiency efficiency_for(const Device& d) {
    Efficiency e;
    const std::string& a = d.architecture;
    // Calibrated on the Megatron-LM 2021 A100 table (rows 1.7B, 7.5B, 39B, 145B, 530B; held out: the
    // other five) — see tests/unit/test_validation.cpp and docs/VALIDATION.md.
    if (a.find("Ampere") != std::string::npos) {
        // Calibrated by least squares on 5 of the 10 rows of Megatron-LM 2021 Table 1 (1.7B, 7.5B, 39B,
        // 145B, 530B; grid search, docs/VALIDATION.md); the other 5 rows are held out. The attention
        // value matches FlashAttention-2 on A100 (Dao 2023, arXiv:2307.08691 Fig. 4: ~70% of peak).
        e.gemm_max = 0.78;
        e.gemm_half_width = 50;
        e.attention = 0.70;
        e.memory = 0.80;
        e.network = 0.75;
        e.basis = "Ampere: calibrated on Megatron-LM 2021 Table 1 (5 of 10 rows)";
    } else if (a.find("Hopper") != std::string::npos || a.find("Blackwell") != std::string::npos) {
        // Not calibrated on a run: large BF16 GEMMs reach ~72% of the dense peak on H100 SXM, and
        // FlashAttention-2 ~35-50% (Shah et al. 2024, FlashAttention-3, arXiv:2407.08608 Sec. 4.1).
        e.gemm_max = 0.72;
        e.gemm_half_width = 100;
        e.attention = 0.45;
        e.memory = 0.80;
        e.network = 0.75;
        e.basis = "Hopper/Blackwell: GEMM and attention ceilings from published kernel benchmarks (not run-calibrated)";
    } else if (a.find("Volta") != std::string::npos) {
        e.gemm_max = 0.75;
        e.gemm_half_width = 50;
        e.attention = 0.50;
        e.memory = 0.80;
        e.network = 0.75;
        e.basis = "Volta: Ampere model with a lower tensor-core GEMM ceiling (not run-calibrated)";
    } else {
        e.gemm_max = 0.70;
        e.gemm_half_width = 100;
        e.attention = 0.45;
        e.memory = 0.75;
        e.network = 0.70;
        e.basis = "generic accelerator: uncalibrated defaults";
    }
    return e;
}

namespace {

double ffn_act_factor(const ModelSpec& m) {
    // Korthikanti et al. 2022 Sec. 4.1: MLP stores 19 sbh bytes for a 4h GELU MLP
    // (input 2, GELU input 8, GELU output 8, dropout mask 1); generalised to width f and gated MLPs.
    const double f = m.is_moe() ? (m.expert_ffn_hidden > 0 ? m.expert_ffn_hidden : m.ffn_hidden) *
                                      (m.experts_per_token + m.shared_experts)
                                : m.ffn_hidden;
    const double r = f / m.hidden;
    return m.ffn_kind == FfnKind::swiglu ? 3.0 + 8.0 * r : 3.0 + 4.0 * r;
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
    in.ffn_matmul_params_per_layer_active =
        (dense_layers * c.mlp_dense_per_layer + moe_layers * c.mlp_moe_per_layer_active) / m.layers;
    in.params_total_layers =
        c.attention_per_layer + c.norms_per_layer +
        (dense_layers * c.mlp_dense_per_layer + moe_layers * c.mlp_moe_per_layer_total) / m.layers;
    if (m.is_moe()) {
        // Routed experts (the part expert parallelism shards), averaged over all layers.
        in.expert_params_per_layer = moe_layers * c.expert_per_layer * m.experts / m.layers;
        in.moe_layer_fraction = moe_layers / m.layers;
        in.experts = m.experts;
        in.experts_per_token = m.experts_per_token;
    }
    in.vocab = m.vocab;
    in.seq = m.seq_len;
    in.attn_width_qk = m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : hd;
    in.attn_width_v = m.is_mla() ? m.v_head_dim : hd;
    in.window = m.sliding_window > 0 ? std::min(m.sliding_window, m.seq_len) : m.seq_len;
    in.ffn_act_factor = ffn_act_factor(m);
    in.params_embedding_per_stage = m.vocab * m.hidden;
    in.tied = m.tied_embeddings ? 1.0 : 0.0;
    in.mla = m.is_mla() ? 1.0 : 0.0;
    return in;
}

namespace {

// Korthikanti et al. 2022 Table 2, generalised: A = attention + MLP + 4 (norms) in units of s*b*h
// bytes (34 for a GPT layer: 11 + 19 + 4); 10 of them are not split by TP unless SP is on. `scores`
// is the 5as/h term (softmax 2 + mask 1 + dropout 2) of unfused attention.
struct LayerActivations {
    double base, scores;
};
LayerActivations layer_activations(const StepInputs& in, const TrainingConfig& cfg) {
    const double t = cfg.tp, s = in.seq, b = cfg.micro_batch, h = in.hidden;
    const bool sp = cfg.sequence_parallel.value_or(t > 1);
    const double A = 7.0 + 4.0 * in.kv_ratio + in.ffn_act_factor + 4.0;
    return {s * b * h * (sp ? A / t : 10.0 + (A - 10.0) / t), 5.0 * in.heads * in.window * s * b / t};
}

}  // namespace

double activation_bytes_per_layer(const StepInputs& in, const TrainingConfig& cfg) {
    // Full recomputation keeps only the layer input; selective recomputation or flash attention drop
    // the score term.
    const double t = cfg.tp;
    const bool sp = cfg.sequence_parallel.value_or(t > 1);
    const double sbh = in.seq * cfg.micro_batch * in.hidden;
    if (cfg.recompute == Recompute::full) return 2.0 * sbh / (sp ? t : 1.0);
    const LayerActivations act = layer_activations(in, cfg);
    const bool no_scores = cfg.attention == Attention::flash || cfg.recompute == Recompute::selective;
    return act.base + (no_scores ? 0.0 : act.scores);
}

StepEstimate estimate_step(const StepInputs& in, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff) {
    StepEstimate r;
    const Device& d = hw.device;
    const double t = cfg.tp, p = cfg.pp, v = cfg.vpp, b = cfg.micro_batch;
    const double dp = cfg.dp.value_or(1);
    const double s = in.seq, h = in.hidden, a = in.heads, L = in.layers, V = in.vocab;
    const double m = std::max(1.0, cfg.global_batch.value_or(dp * b) / (dp * b));  // micro-batches per step
    const double Ls = std::ceil(L / p);  // the slowest stage holds the most layers
    const bool sp = cfg.sequence_parallel.value_or(t > 1);
    const bool full = cfg.recompute == Recompute::full;
    const bool selective = cfg.recompute == Recompute::selective;
    const bool flash = cfg.attention == Attention::flash;
    const double wbytes = (cfg.precision == Precision::fp32 || cfg.precision == Precision::tf32) ? 4.0 : 2.0;

    // ---- memory per GPU (worst pipeline stage) ----
    const double emb_tables = (p == 1 && in.tied == 0.0) ? 2.0 : 1.0;
    // Expert parallelism shards the routed experts over ep ranks (each expert split by TP too).
    const double ep = cfg.ep;
    const double layer_params_gpu = (in.params_total_layers - in.expert_params_per_layer) / t + in.expert_params_per_layer / (t * ep);
    const double params_gpu = Ls * layer_params_gpu + emb_tables * in.params_embedding_per_stage / t;
    const double zero = cfg.zero;
    r.memory.weights = params_gpu * wbytes / (zero >= 3 ? dp : 1.0);
    r.memory.gradients = params_gpu * wbytes / (zero >= 2 ? dp : 1.0);
    // Mixed-precision Adam: fp32 master weights + 2 fp32 moments = 12 bytes/param (ZeRO Sec. 3.1);
    // pure fp32: 2 moments = 8. SGD with momentum: 4 (+4 master weights under mixed precision).
    const double opt_per_param = cfg.optimizer == Optimizer::adam ? (wbytes == 4.0 ? 8.0 : 12.0) : (wbytes == 4.0 ? 4.0 : 8.0);
    r.memory.optimizer = params_gpu * opt_per_param / (zero >= 1 ? dp : 1.0);
    const double sbh = s * b * h;
    const LayerActivations layer_act = layer_activations(in, cfg);
    const double base_layer = layer_act.base, scores_layer = layer_act.scores;
    const double act_layer = activation_bytes_per_layer(in, cfg);
    const double in_flight = p > 1 ? std::min(m, p) * (v > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0) : 1.0;
    double activations = act_layer * Ls * in_flight;
    if (full) activations += base_layer + (flash ? 0.0 : scores_layer);  // one layer being recomputed
    activations += 4.0 * s * b * V / t;  // fp32 logits for the loss on the last stage
    r.memory.activations = activations;
    const double sub = r.memory.weights + r.memory.gradients + r.memory.optimizer + r.memory.activations;
    r.memory.overhead = cfg.overhead_bytes + cfg.fragmentation * sub;
    r.memory.total = sub + r.memory.overhead;

    // ---- time per micro-batch on one stage ----
    const double peak = d.peak(cfg.precision).value_or(0);
    const double bw = d.memory_bandwidth_bytes_per_second.value_or(0) * eff.memory;
    const double x = h / t;
    const double e_gemm = eff.gemm_max * x / (x + eff.gemm_half_width);
    const double tokens = b * s;
    const double rc_mm = full ? 1.0 : 0.0;
    const double f_mm = 2.0 * tokens * (in.attn_params_per_layer + in.ffn_matmul_params_per_layer_active) / t;
    const double f_att = 2.0 * tokens * in.window * a * (in.attn_width_qk + in.attn_width_v) / t;
    const double f_logit = 2.0 * tokens * h * V / t;
    StepTime mb;
    if (peak > 0) {
        mb.gemm = (Ls * f_mm * (3.0 + rc_mm) + f_logit * 3.0) / (peak * e_gemm);
        if (flash) {
            // FlashAttention-2 backward recomputes the scores: 2.5x forward work (Dao 2023, Sec. 3).
            mb.attention = Ls * f_att * (3.5 + rc_mm) / (peak * eff.attention);
        } else {
            // Unfused attention: two batched GEMMs (QK^T, AV) with inner dimension head_dim at
            // eff.attention of peak, plus the s x s score tensors at HBM bandwidth.
            const double e_att = eff.attention;
            const double rc_att = (full || selective) ? 1.0 : 0.0;
            mb.attention = Ls * f_att * (3.0 + rc_att) / (peak * e_att);
            if (bw > 0) mb.attention += Ls * scores_layer * (2.0 * (1.0 + rc_att) + 4.0) / bw;
        }
    }
    if (bw > 0) mb.memory_bound = Ls * base_layer * (2.0 * (1.0 + rc_mm) + 4.0) / bw;
    const double dpn = hw.devices_per_node > 0 ? hw.devices_per_node : 1.0;
    const double scale_out = hw.scale_out_bytes_per_second.value_or(d.scale_out_bytes_per_second.value_or(12.5e9));
    const double scale_up = d.scale_up_bytes_per_second().value_or(scale_out);
    if (t > 1) {
        const double link = (t <= dpn ? scale_up : scale_out) * eff.network;
        const double bytes = 2.0 * sbh;  // 16-bit activations
        const double n_coll = Ls * (4.0 + 2.0 * rc_mm);
        mb.tp_comm = n_coll * (2.0 * (t - 1.0) / t * bytes / link + eff.collective_latency_seconds);
    }
    if (p > 1) {
        const double bytes = 2.0 * sbh / (sp ? t : 1.0);
        const double link = (t * p <= dpn ? scale_up : scale_out) * eff.network;
        mb.pp_comm = 2.0 * v * (bytes / link + eff.collective_latency_seconds);
    }
    if (ep > 1 && in.moe_layer_fraction > 0) {
        // All-to-all dispatch and combine per MoE layer, forward and backward (4; 6 with full
        // recomputation): each token's hidden state goes to top-k experts, (ep-1)/ep of them remote
        // (Lepikhin et al. 2020, GShard; Rajbhandari et al. 2022, DeepSpeed-MoE Sec. 5).
        const double link = (t * ep <= dpn ? scale_up : scale_out) * eff.network;
        const double bytes = 2.0 * sbh / (sp ? t : 1.0) * in.experts_per_token * (ep - 1.0) / ep;
        const double n_a2a = Ls * in.moe_layer_fraction * (4.0 + 2.0 * rc_mm);
        mb.ep_comm = n_a2a * (bytes / link + eff.collective_latency_seconds);
    }
    const double t_mb = mb.gemm + mb.attention + mb.memory_bound + mb.tp_comm + mb.pp_comm + mb.ep_comm;
    r.step.gemm = m * mb.gemm;
    r.step.attention = m * mb.attention;
    r.step.memory_bound = m * mb.memory_bound;
    r.step.tp_comm = m * mb.tp_comm;
    r.step.pp_comm = m * mb.pp_comm;
    r.step.ep_comm = m * mb.ep_comm;
    r.step.pp_bubble = p > 1 ? (p - 1.0) / v * t_mb : 0.0;
    if (dp > 1) {
        const double link = (t * p * dp <= dpn ? scale_up : scale_out) * eff.network;
        const double grad_bytes = params_gpu * 2.0;  // 16-bit gradient reduction
        double vol = 2.0 * (dp - 1.0) / dp * grad_bytes;
        if (zero >= 3) vol *= 1.5;  // ZeRO-3: 3 psi instead of 2 psi (Rajbhandari et al. 2020 Sec. 7)
        const double t_dp = vol / link + 2.0 * eff.collective_latency_seconds;
        const double hidden_by = cfg.overlap_dp_comm ? (2.0 / 3.0) * (mb.gemm + mb.attention + mb.memory_bound) : 0.0;
        r.step.dp_comm = std::max(0.0, t_dp - hidden_by);
    }
    if (bw > 0) {
        // Adam update touches ~28 bytes/param: read grad 2 + master 4 + m 4 + v 4, write 4+4+4 + weight 2.
        const double opt_params = params_gpu / (zero >= 1 ? dp : 1.0);
        r.step.optimizer = opt_params * (cfg.optimizer == Optimizer::adam ? 28.0 : 20.0) / bw;
    }
    r.step.total = r.step.gemm + r.step.attention + r.step.memory_bound + r.step.tp_comm + r.step.pp_comm + r.step.ep_comm +
                   r.step.pp_bubble + r.step.dp_comm + r.step.optimizer;

    // Recomputed FLOPs per token (HFU - MFU numerator): full recompute repeats each layer's forward
    // pass; selective recompute of unfused attention repeats the score GEMMs (Korthikanti Sec. 5).
    const double rc_att_hw = full || (!flash && selective) ? 1.0 : 0.0;
    r.recompute_flops_per_token = L * (2.0 * (in.attn_params_per_layer + in.ffn_matmul_params_per_layer_active) * rc_mm +
                                       2.0 * in.window * a * (in.attn_width_qk + in.attn_width_v) * rc_att_hw);
    return r;
}

Count default_global_batch(double seq_len, Count granule) {
    const auto target = static_cast<Count>(std::max(1.0, std::floor(4194304.0 / seq_len)));
    const Count g = std::max<Count>(1, granule);
    return (target + g - 1) / g * g;
}

// A GPT-like shape for a model given only its parameter count: N ~ 12 L h^2 with L = h / 128
// (aspect ratio of GPT-3 175B: h 12288, L 96), h rounded to a multiple of 128.
ModelSpec gpt_like_shape(double n, double seq_len) {
    ModelSpec m;
    m.has_architecture = true;
    m.name = "GPT-like shape for " + jr::fmt_num(n) + " parameters";
    double h = std::cbrt(n * 128.0 / 12.0);
    h = std::max(128.0, std::round(h / 128.0) * 128.0);
    m.hidden = h;
    m.layers = std::max(1.0, std::round(n / (12.0 * h * h)));
    m.heads = h / 128.0;
    m.kv_heads = m.heads;
    m.ffn_hidden = 4 * h;
    m.vocab = 50257;
    m.seq_len = seq_len;
    m.tied_embeddings = true;
    return m;
}

TrainingResult estimate_training(const ModelSpec& model, const Hardware& hw, const TrainingConfig& cfg_in,
                                 const Costs& costs, Trace& trace) {
    TrainingResult r;
    TrainingConfig cfg = cfg_in;
    if (!cfg.dp) cfg.dp = std::max(1.0, std::floor(hw.count / (cfg.tp * cfg.pp)));
    if (!cfg.sequence_parallel) cfg.sequence_parallel = cfg.tp > 1;
    if (!cfg.global_batch) cfg.global_batch = default_global_batch(model.seq_len, *cfg.dp * cfg.micro_batch);
    r.config = cfg;
    const Device& d = hw.device;
    const double n = hw.count;
    const double peak = d.peak(cfg.precision).value_or(0);
    const ParamCount pc = count_params(model);
    r.params_total = pc.total;
    r.params_active = pc.active;
    r.tokens = cfg.tokens.value_or(0);

    ModelSpec shaped = model;
    if (!model.has_architecture) {
        shaped = gpt_like_shape(pc.active, model.seq_len);
        r.warnings.push_back("model given by parameter count only: the time and memory model uses a GPT-like shape (" +
                             jr::fmt_num(shaped.layers) + " layers, hidden " + jr::fmt_num(shaped.hidden) + ")");
    }
    r.model_flops_per_token = model.has_architecture ? model_flops_per_token_training(model) : 6.0 * pc.active;
    r.flops_6nd = 6.0 * pc.active * r.tokens;
    r.flops = r.model_flops_per_token * r.tokens;

    Efficiency eff = efficiency_for(d);
    if (cfg.efficiency.gemm) eff.gemm_max = *cfg.efficiency.gemm;
    if (cfg.efficiency.gemm_half_width) eff.gemm_half_width = *cfg.efficiency.gemm_half_width;
    if (cfg.efficiency.attention) eff.attention = *cfg.efficiency.attention;
    if (cfg.efficiency.memory) eff.memory = *cfg.efficiency.memory;
    if (cfg.efficiency.network) eff.network = *cfg.efficiency.network;
    const StepInputs in = step_inputs(shaped);
    const StepEstimate est = estimate_step(in, hw, cfg, eff);
    r.memory = est.memory;
    r.memory_capacity_bytes = d.memory_bytes.value_or(0);
    r.fits = d.memory_bytes ? r.memory.total <= *d.memory_bytes : false;
    r.step = est.step;
    r.time_model = true;
    r.tokens_per_step = *cfg.global_batch * model.seq_len;
    const double hw_per_token =
        r.model_flops_per_token * (1.0 + est.recompute_flops_per_token / std::max(1.0, model_flops_per_token_training(shaped)));
    r.hardware_flops_per_token = hw_per_token;
    if (est.step.total > 0 && peak > 0) {
        const double tps = r.tokens_per_step / est.step.total;
        r.mfu_predicted = r.model_flops_per_token * tps / (n * peak);
    }
    if (cfg.mfu) {
        r.mfu_given = true;
        r.mfu = *cfg.mfu;
        r.tokens_per_second = peak > 0 ? r.mfu * n * peak / r.model_flops_per_token : 0;
        r.step_seconds = r.tokens_per_second > 0 ? r.tokens_per_step / r.tokens_per_second : 0;
    } else {
        r.mfu = r.mfu_predicted;
        r.step_seconds = est.step.total;
        r.tokens_per_second = est.step.total > 0 ? r.tokens_per_step / est.step.total : 0;
    }
    r.hfu = peak > 0 ? hw_per_token * r.tokens_per_second / (n * peak) : 0;
    r.achieved_flops_per_second_per_gpu = hw_per_token * r.tokens_per_second / n;

    // ---- run totals ----
    const HourlyRate hourly = gpu_hour_rate(d, costs);
    const double rate = hourly.usd.value_or(0);
    r.gpu_hour_usd = rate;
    if (r.tokens > 0 && r.tokens_per_second > 0) {
        const double seconds = r.tokens / r.tokens_per_second;
        const double gpu_hours = static_cast<double>(n) * seconds / units::seconds_per_hour;
        // Energy as published runs compute it (LLaMA, arXiv:2302.13971 Sec. 6; BLOOM): GPU-hours x TDP x PUE.
        const double energy = gpu_hours * d.tdp_watts.value_or(0) / 1000.0 * costs.pue;
        double cost = gpu_hours * rate;
        if (costs.ownership == Ownership::owned) {
            const double life_hours = costs.lifetime_years * units::hours_per_year;
            cost = gpu_hours * d.price_usd.value_or(0) / life_hours + energy * costs.electricity_usd_per_kwh;
        }
        r.seconds = seconds;
        r.gpu_hours = gpu_hours;
        r.energy_kwh = energy;
        r.co2_kg = energy * costs.grid_kg_co2_per_kwh;
        // Uncertainty band from the hold-out validation (docs/VALIDATION.md): predicted time was within
        // -15%/+20% of published runs; a given MFU carries no model uncertainty.
        const double lo = r.mfu_given ? 1.0 : 0.85, hi = r.mfu_given ? 1.0 : 1.2;
        r.seconds_low = seconds * lo;
        r.seconds_high = seconds * hi;
        if (rate > 0 || costs.ownership == Ownership::owned) {
            r.cost_usd = cost;
            r.cost_usd_low = cost * lo;
            r.cost_usd_high = cost * hi;
        } else {
            r.warnings.push_back(hourly.note.empty() ? "no $/GPU-hour: set costs.gpu_hour_usd" : hourly.note);
        }
    } else if (r.tokens <= 0) {
        r.warnings.push_back("no training.tokens: the run's time, GPU-hours, cost and energy need it");
    }
    if (!r.fits)
        r.infeasible_reason = "does not fit: needs " + jr::fmt_num(r.memory.total / units::GiB) + " GiB per device, " + d.name +
                              " has " + jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB";

    if (trace.enabled()) {
        if (model.has_architecture) {
            trace.add("training.model_flops_per_token", "6 x N_matmul + 12 x layers x heads x head_dim x seq_len",
                      {{"N_active", pc.active}, {"layers", model.layers}, {"heads", model.heads}, {"seq_len", model.seq_len}},
                      r.model_flops_per_token, "FLOP/token", "PaLM (arXiv:2204.02311) App. B; Megatron (arXiv:2104.04473) Eq. 3");
        }
        if (r.tokens > 0) {
            trace.add("training.flops_6nd", "6 x N x D", {{"N", pc.active}, {"D", r.tokens}}, r.flops_6nd, "FLOP",
                      "Kaplan et al. 2020 (arXiv:2001.08361) Sec. 2.1");
            trace.add("training.flops", "model_flops_per_token x D", {{"model_flops_per_token", r.model_flops_per_token}, {"D", r.tokens}},
                      r.flops, "FLOP", "PaLM App. B convention");
        }
        trace.add("training.memory_per_gpu_bytes.weights", "params_per_gpu x bytes_per_param / (ZeRO-3 ? dp : 1)",
                  {{"bytes_per_param", (cfg.precision == Precision::fp32 || cfg.precision == Precision::tf32) ? 4.0 : 2.0},
                   {"tp", cfg.tp}, {"pp", cfg.pp}, {"dp", *cfg.dp}, {"zero", cfg.zero}},
                  r.memory.weights, "bytes", "Rajbhandari et al. 2020 (ZeRO) Sec. 3.1, 5");
        trace.add("training.memory_per_gpu_bytes.optimizer", "params_per_gpu x 12 / (ZeRO>=1 ? dp : 1)  (fp32 master + Adam m, v)",
                  {{"dp", *cfg.dp}, {"zero", cfg.zero}}, r.memory.optimizer, "bytes", "ZeRO Sec. 3.1 (K = 12)");
        trace.add("training.memory_per_gpu_bytes.activations",
                  "s b h (10 + 24/t + 5 a s/(h t)) per layer (no SP), s b h 34/t (SP + selective), 2 s b h (full) x layers in flight",
                  {{"s", shaped.seq_len}, {"b", cfg.micro_batch}, {"h", shaped.hidden}, {"a", shaped.heads}, {"t", cfg.tp},
                   {"layers_per_stage", shaped.layers / cfg.pp}},
                  r.memory.activations, "bytes", "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2");
        trace.add("training.memory_per_gpu_bytes.overhead", "overhead_bytes + fragmentation x (other terms)",
                  {{"overhead_bytes", cfg.overhead_bytes}, {"fragmentation", cfg.fragmentation}}, r.memory.overhead, "bytes",
                  "user-adjustable allowance (CUDA context, NCCL buffers, allocator)");
        trace.add("training.step_seconds",
                  "m x (gemm + attention + memory + tp_comm + pp_comm) + bubble (p-1)/v x t_mb + exposed dp_comm + optimizer",
                  {{"microbatches", *cfg.global_batch / (*cfg.dp * cfg.micro_batch)}, {"gemm", r.step.gemm},
                   {"attention", r.step.attention}, {"memory_bound", r.step.memory_bound}, {"tp_comm", r.step.tp_comm},
                   {"pp_comm", r.step.pp_comm}, {"pp_bubble", r.step.pp_bubble}, {"dp_comm", r.step.dp_comm},
                   {"optimizer", r.step.optimizer}, {"gemm_efficiency_max", eff.gemm_max}, {"gemm_half_width", eff.gemm_half_width}},
                  r.step.total, "s", "Narayanan et al. 2021 Sec. 2-3; efficiency constants: " + eff.basis);
        trace.add("training.mfu", r.mfu_given ? "given in the scenario" : "model_flops_per_token x tokens_per_second / (devices x peak)",
                  {{"model_flops_per_token", r.model_flops_per_token}, {"tokens_per_second", r.tokens_per_second},
                   {"devices", n}, {"peak_flops_per_second", peak}},
                  r.mfu, "fraction", "PaLM (arXiv:2204.02311) Sec. 4.1 / App. B");
        trace.add("training.hfu", "hardware_flops_per_token x tokens_per_second / (devices x peak)",
                  {{"hardware_flops_per_token", hw_per_token}, {"tokens_per_second", r.tokens_per_second}, {"devices", n}, {"peak_flops_per_second", peak}},
                  r.hfu, "fraction", "PaLM (arXiv:2204.02311) App. B: HFU counts recomputation");
        trace.add("training.hardware_flops_per_token", "model_flops_per_token + recomputed FLOPs",
                  {{"model_flops_per_token", r.model_flops_per_token}, {"recompute_flops_per_token", est.recompute_flops_per_token}},
                  hw_per_token, "FLOP/token", "Korthikanti et al. 2022 Sec. 5 (what recomputation re-executes)");
        trace.add("training.tokens_per_second", r.mfu_given ? "MFU x devices x peak / model_flops_per_token" : "tokens_per_step / step_seconds",
                  {{"tokens_per_step", r.tokens_per_step}, {"step_seconds", r.step_seconds}, {"mfu", r.mfu}, {"devices", n}, {"peak_flops_per_second", peak}},
                  r.tokens_per_second, "tokens/s", "");
        trace.add("training.achieved_flops_per_second_per_gpu", "hardware_flops_per_token x tokens_per_second / devices",
                  {{"hardware_flops_per_token", hw_per_token}, {"tokens_per_second", r.tokens_per_second}, {"devices", n}},
                  r.achieved_flops_per_second_per_gpu, "FLOP/s", "Narayanan et al. 2021 Eq. 3 convention (recomputation counted)");
        trace.add("training.memory_per_gpu_bytes.gradients", "params_per_gpu x bytes_per_grad / (ZeRO>=2 ? dp : 1)",
                  {{"dp", *cfg.dp}, {"zero", cfg.zero}}, r.memory.gradients, "bytes", "ZeRO Sec. 5 (P_os+g)");
        trace.add("training.memory_per_gpu_bytes.total", "weights + gradients + optimizer + activations + overhead",
                  {{"weights", r.memory.weights}, {"gradients", r.memory.gradients}, {"optimizer", r.memory.optimizer},
                   {"activations", r.memory.activations}, {"overhead", r.memory.overhead}},
                  r.memory.total, "bytes", "");
        trace.add("training.fits", "memory_per_gpu.total <= device memory", {{"total", r.memory.total}, {"capacity", r.memory_capacity_bytes}},
                  r.fits ? 1.0 : 0.0, "boolean", d.name + " datasheet");
        if (r.seconds) {
            const double seconds = *r.seconds, gpu_hours = *r.gpu_hours, energy = *r.energy_kwh;
            trace.add("training.days", "seconds / 86400", {{"seconds", seconds}}, seconds / units::seconds_per_day, "days", "");
            trace.add("training.uncertainty", "seconds x [0.85, 1.2] (predicted) or x 1 (MFU given)", {{"seconds", seconds}},
                      *r.seconds_high, "s", "spread of the hold-out errors in docs/VALIDATION.md");
            trace.add("training.seconds", "D / tokens_per_second", {{"D", r.tokens}, {"tokens_per_second", r.tokens_per_second}},
                      seconds, "s", "");
            trace.add("training.gpu_hours", "devices x seconds / 3600", {{"devices", n}, {"seconds", seconds}}, gpu_hours, "GPU-h", "");
            if (r.cost_usd && costs.ownership == Ownership::owned)
                trace.add("training.cost_usd", "gpu_hours x price / (lifetime_years x 8760) + energy_kwh x electricity",
                          {{"gpu_hours", gpu_hours}, {"price_usd", d.price_usd.value_or(0)}, {"lifetime_years", costs.lifetime_years},
                           {"energy_kwh", energy}, {"electricity_usd_per_kwh", costs.electricity_usd_per_kwh}},
                          *r.cost_usd, "USD", "straight-line amortisation");
            else if (r.cost_usd)
                trace.add("training.cost_usd", "gpu_hours x gpu_hour_usd", {{"gpu_hours", gpu_hours}, {"gpu_hour_usd", rate}},
                          *r.cost_usd, "USD", hourly.what);
            trace.add("training.energy_kwh", "gpu_hours x TDP x PUE", {{"gpu_hours", gpu_hours}, {"tdp_watts", d.tdp_watts.value_or(0)}, {"pue", costs.pue}},
                      energy, "kWh", "convention of LLaMA (arXiv:2302.13971) Sec. 6 and BLOOM");
            trace.add("training.co2_kg", "energy_kwh x grid intensity", {{"energy_kwh", energy}, {"grid_kg_co2_per_kwh", costs.grid_kg_co2_per_kwh}},
                      *r.co2_kg, "kg CO2e", "LLaMA Sec. 6 (0.385 kg/kWh US average)");
        }
    }
    return r;
}

std::vector<ScalingPoint> scaling_curve(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs) {
    std::vector<ScalingPoint> out;
    const double mp = cfg.tp * cfg.pp;
    const double gb = cfg.global_batch.value_or(1024);
    double base_tps_per_gpu = 0;
    for (double k = 1; k <= 1e6; k *= 2) {
        const double dp = k;
        const double gpus = dp * mp;
        if (gpus > std::max(hw.count * 4.0, mp)) break;
        if (dp * cfg.micro_batch > gb) break;
        if (std::fmod(dp, cfg.ep) != 0) continue;  // expert parallelism needs ep | dp
        Hardware h = hw;
        h.count = gpus;
        TrainingConfig c = cfg;
        c.dp = dp;
        c.global_batch = std::ceil(gb / (dp * cfg.micro_batch)) * dp * cfg.micro_batch;
        c.mfu.reset();
        Trace none(false);
        TrainingResult r = estimate_training(m, h, c, costs, none);
        if (r.tokens_per_second <= 0) break;
        if (base_tps_per_gpu == 0) base_tps_per_gpu = r.tokens_per_second / gpus;
        ScalingPoint sp;
        sp.gpus = gpus;
        sp.seconds = r.seconds.value_or(0);
        sp.mfu = r.mfu;
        sp.tokens_per_second = r.tokens_per_second;
        sp.speedup = r.tokens_per_second / (base_tps_per_gpu * mp);
        sp.efficiency = r.tokens_per_second / (base_tps_per_gpu * gpus);
        out.push_back(sp);
    }
    return out;
}

}  // namespace gpucalc
