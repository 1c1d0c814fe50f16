// Parallelism plan search: every valid layout (TP, PP with uneven stages, interleaving,
// micro-batch, ZeRO, recomputation, SP, overlap) of a training scenario, each evaluated with the
// training model and ranked by throughput. Layout fields the scenario gives are held fixed. Same
// role as Calculon's search (Isaev et al. 2023, SC'23): exhaustive and allocation-free.
#include "gpucalc/plan.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/scenario_fields.hpp"

namespace gpucalc {

namespace {

// The values one layout dimension takes: the given one, or the searched range.
struct Dim {
    Count values[64];
    int n = 0;
    void add(Count v) {
        if (n < 64) values[n++] = v;
    }
};

bool whole(double a, Count b) { return b > 0 && std::fmod(a, static_cast<double>(b)) == 0; }

}  // namespace

PlanResult search_plans(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, const PlanOptions& opt) {
    PlanResult out;
    const TrainingModel tm = training_model(m);
    const StepInputs& in = tm.in;
    const ModelSpec& shape = tm.shape;
    const Efficiency eff = training_efficiency(base, hw.device);
    const NetworkLevels net = network_levels(hw);
    const Count n = hw.count;
    const double cap = hw.device.memory_bytes.value_or(0);
    const double peak = hw.device.peak(base.precision).value_or(0);
    const double model_flops = m.has_architecture ? model_flops_per_token_training(m) : 6.0 * count_params(m).active;
    const auto& tf = training_fields();
    auto fixed = [&](const char* name) { return (base.given & field_bit(tf, name)) != 0; };
    const bool fsdp_pp = zero_sharding_with_pipeline(framework_of(base, hw.device));

    Dim tps, pps, vpps, mbs, zeros, rcs, sps, ovs, cps, eps;
    if (fixed("tp"))
        tps.add(base.tp);
    else
        for (Count t = 1; t <= opt.max_tp; t *= 2)
            if (!opt.only_tp || t == *opt.only_tp) tps.add(t);
    const bool pp_fixed = fixed("pp");
    // Context parallelism for long sequences (Megatron-Core / NeMo long-context recipes use cp 2-32).
    if (fixed("cp"))
        cps.add(base.cp);
    else
        for (Count c = 1; c <= 32; c *= 2)
            if (c == 1 || (m.seq_len >= 16384 && std::fmod(m.seq_len, 2.0 * static_cast<double>(c)) == 0)) cps.add(c);
    // Expert parallelism over the experts (powers of two dividing their count, up to 64).
    if (fixed("ep"))
        eps.add(base.ep);
    else
        for (Count e = 1; e <= 64; e *= 2)
            if (e == 1 || (in.experts > 0 && whole(in.experts, e))) eps.add(e);
    if (fixed("vpp"))
        vpps.add(base.vpp);
    else
        for (Count v = 1; v <= opt.max_vpp; ++v) vpps.add(v);
    if (fixed("micro_batch"))
        mbs.add(base.micro_batch);
    else
        for (Count b = 1; b <= opt.max_micro_batch; ++b) mbs.add(b);
    if (fixed("zero"))
        zeros.add(base.zero);
    else
        for (Count z = 0; z <= 3; ++z) zeros.add(z);
    if (fixed("recompute"))
        rcs.add(static_cast<Count>(base.recompute));
    else
        for (Count r = 0; r < 3; ++r) rcs.add(r);
    if (fixed("sequence_parallel"))
        sps.add(base.sequence_parallel.value_or(false) ? 1 : 0);
    else
        sps.add(0), sps.add(1);
    if (fixed("overlap_dp_comm"))
        ovs.add(base.overlap_dp_comm ? 1 : 0);
    else
        ovs.add(0), ovs.add(1);
    const bool gb_fixed = base.global_batch && fixed("global_batch");
    const bool sp_fixed = fixed("sequence_parallel"), dp_fixed = fixed("dp") && base.dp;

    TrainingConfig c = base;  // the layout under evaluation
    std::vector<Plan> layout_best;
    const auto k = static_cast<std::size_t>(opt.top_k);
    auto make_plan = [&](const TrainingConfig& c, const StepEstimate& e) {
        Plan p;
        p.config = c;
        p.step_seconds = e.step.total;
        p.memory_per_gpu_bytes = e.memory.total;
        p.tokens_per_second = static_cast<double>(*c.global_batch) * m.seq_len / e.step.total;
        p.mfu = peak > 0 ? model_flops * p.tokens_per_second / (static_cast<double>(n) * peak) : 0;
        p.bubble_fraction = e.step.total > 0 ? e.step.pp_bubble / e.step.total : 0;
        return p;
    };
    auto faster = [](const Plan& a, const Plan& b) { return a.tokens_per_second > b.tokens_per_second; };
    for (int ti = 0; ti < tps.n; ++ti) {
        const Count tp = tps.values[ti];
        const bool tp_ok = whole(shape.heads, tp) && (shape.is_mla() || whole(shape.kv_heads, tp) ||
                                                      whole(static_cast<double>(tp), static_cast<Count>(shape.kv_heads)));
        const Count pp_lo = pp_fixed ? base.pp : 1, pp_hi = pp_fixed ? base.pp : static_cast<Count>(shape.layers);
        for (int ci = 0; ci < cps.n; ++ci) {
            const Count cp = cps.values[ci];
            for (Count pp = pp_lo; pp <= pp_hi; ++pp) {
                if (n % (tp * cp * pp) != 0) continue;
                const Count dp = n / (tp * cp * pp);
                if (dp_fixed && dp != *base.dp) continue;
                for (int ei = 0; ei < eps.n; ++ei) {
                    const Count ep = eps.values[ei];
                    const bool layout_ok = tp_ok && ((dp * cp) % ep == 0 || (dp * cp * tp) % ep == 0);
                    bool have_layout = false;
                    Plan best_layout;
                    for (int vi = 0; vi < vpps.n; ++vi) {
                        const Count vpp = vpps.values[vi];
                        if (vpp > 1 && pp == 1) continue;
                        for (int bi = 0; bi < mbs.n; ++bi) {
                            const Count mb = mbs.values[bi];
                            const Count gb = gb_fixed ? *base.global_batch : default_global_batch(m.seq_len, dp * mb);
                            // Uneven stages are allowed (the slowest stage holds ceil(L / pp) layers), but
                            // every model chunk needs a layer (or the embedding or the loss).
                            const bool div_ok = layout_ok && shape.layers + 2 >= static_cast<double>(pp * vpp) && gb % (dp * mb) == 0;
                            for (int zi = 0; zi < zeros.n; ++zi) {
                                const Count zero = zeros.values[zi];
                                // ZeRO-2/3 shard gradients, which pipeline parallelism accumulates over
                                // micro-batches: DeepSpeed rejects the combination; Megatron shards the optimizer
                                // only; PyTorch FSDP with pipelining allows it (torchtitan; Llama 3 Sec. 3.3.2).
                                const bool zero_ok = !(zero >= 2 && pp > 1) || fsdp_pp;
                                for (int ri = 0; ri < rcs.n; ++ri)
                                    for (int si = 0; si < sps.n; ++si) {
                                        if (sps.values[si] == 1 && tp == 1 && !sp_fixed) continue;
                                        for (int oi = 0; oi < ovs.n; ++oi) {
                                            out.considered += 1;
                                            if (!div_ok || !zero_ok) {
                                                out.rejected_indivisible += 1;
                                                continue;
                                            }
                                            // Every field that varies is set here; the others stay the base's.
                                            c.tp = tp;
                                            c.pp = pp;
                                            c.dp = dp;
                                            c.cp = cp;
                                            c.ep = ep;
                                            c.vpp = vpp;
                                            c.micro_batch = mb;
                                            c.zero = zero;
                                            c.recompute = static_cast<Recompute>(rcs.values[ri]);
                                            c.sequence_parallel = sps.values[si] == 1;
                                            c.overlap_dp_comm = ovs.values[oi] == 1;
                                            c.global_batch = gb;
                                            c.mfu.reset();
                                            // Memory first: most layouts do not fit and need no timing (the
                                            // least-memory layout, rarely replaced, is timed in full).
                                            StepEstimate e = estimate_step(in, hw, c, eff, net, /*memory_only=*/true);
                                            const bool fits = !(e.memory.total > cap);
                                            const bool least = !out.least_memory || e.memory.total < out.least_memory->memory_per_gpu_bytes;
                                            if (fits || least) e = estimate_step(in, hw, c, eff, net);
                                            if (least) out.least_memory = make_plan(c, e);
                                            if (!fits) {
                                                out.rejected_out_of_memory += 1;
                                                continue;
                                            }
                                            out.feasible += 1;
                                            const double tps_now = static_cast<double>(gb) * m.seq_len / e.step.total;
                                            if (!have_layout || tps_now > best_layout.tokens_per_second) {
                                                best_layout = make_plan(c, e);
                                                have_layout = true;
                                            }
                                            if (out.best.size() < k || tps_now > out.best.back().tokens_per_second) {
                                                Plan p = make_plan(c, e);
                                                out.best.insert(std::upper_bound(out.best.begin(), out.best.end(), p, faster), p);
                                                if (out.best.size() > k) out.best.pop_back();
                                            }
                                        }
                                    }
                            }
                        }
                    }
                    if (have_layout) layout_best.push_back(best_layout);
                }
            }
        }
    }
    std::stable_sort(layout_best.begin(), layout_best.end(), faster);
    out.best_per_layout = layout_best;
    return out;
}

}  // namespace gpucalc
