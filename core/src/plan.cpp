// Parallelism plan search: every valid layout (TP, PP with uneven stages, interleaving,
// micro-batch, ZeRO, recomputation, SP, overlap) of a training scenario, each evaluated with the
// training model and ranked by throughput. Layout fields the scenario gives are held fixed. Same
// role as Calculon's search (Isaev et al. 2023, SC'23): exhaustive and allocation-free.
#include "gpucalc/plan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "gpucalc/json_read.hpp"
#include "gpucalc/order.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/units.hpp"

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

bool whole(double a, Count b) { return b > 0 && divides(a, static_cast<double>(b)); }

// The values of every searched dimension.
struct Dims {
    Dim tps, vpps, mbs, zeros, rcs, sps, ovs, cps, eps;
};

// The model-parallel dimensions: tensor, context and expert parallelism.
void parallel_dims(const ModelSpec& m, const StepInputs& in, const TrainingConfig& base, const PlanOptions& opt, Dims& d) {
    if (training_field_given(base, "tp"))
        d.tps.add(base.tp);
    else if (opt.only_tp)  // checked against max_tp, the count and the heads (check_plan_options)
        d.tps.add(*opt.only_tp);
    else
        for (Count t = 1; t <= opt.max_tp; t *= 2) d.tps.add(t);
    // Context parallelism for long sequences (Megatron-Core / NeMo long-context recipes use cp 2-32),
    // each rank holding at least kMinCpChunk tokens: the published runs hold 8K or more (Llama 3 405B:
    // 128K on cp 16, arXiv:2407.21783 Table 4; NeMo long-sequence recipes 16K-32K; torchtitan 32K;
    // Megatron-Core MoE zoo 16K), and thinner chunks only add ring steps (Mixtral 8x7B at 32K searched
    // cp 16 and 32 too: twice the layouts, none of them best).
    constexpr double kMinCpChunk = 4096;
    if (training_field_given(base, "cp"))
        d.cps.add(base.cp);
    else
        for (Count c = 1; c <= 32; c *= 2)
            if (c == 1 || (m.seq_len >= 16384 && divides(m.seq_len, 2.0 * static_cast<double>(c)) &&
                           m.seq_len / static_cast<double>(c) >= kMinCpChunk))
                d.cps.add(c);
    // Expert parallelism over the experts (powers of two dividing their count, up to 64).
    if (training_field_given(base, "ep"))
        d.eps.add(base.ep);
    else
        for (Count e = 1; e <= 64; e *= 2)
            if (e == 1 || (in.experts > 0 && whole(in.experts, e))) d.eps.add(e);
}

// The per-replica dimensions: interleaving, micro-batch, ZeRO, recomputation, SP and overlap.
void replica_dims(const TrainingConfig& base, const PlanOptions& opt, Dims& d) {
    if (training_field_given(base, "vpp"))
        d.vpps.add(base.vpp);
    else
        for (Count v = 1; v <= opt.max_vpp; ++v) d.vpps.add(v);
    if (training_field_given(base, "micro_batch"))
        d.mbs.add(base.micro_batch);
    else
        for (Count b = 1; b <= opt.max_micro_batch; ++b) d.mbs.add(b);
    if (training_field_given(base, "zero"))
        d.zeros.add(base.zero);
    else
        for (Count z = 0; z <= 3; ++z) d.zeros.add(z);
    // The combined 1F1B schedule (training.overlap_moe_comm) runs without full recomputation
    // (Megatron-Core asserts it; scenario_parse.cpp check_moe_overlap).
    if (training_field_given(base, "recompute"))
        d.rcs.add(static_cast<Count>(base.recompute));
    else
        for (Count r = 0; r < (base.overlap_moe_comm ? 2 : 3); ++r) d.rcs.add(r);
    if (training_field_given(base, "sequence_parallel"))
        d.sps.add(base.sequence_parallel.value_or(false) ? 1 : 0);
    else
        d.sps.add(0), d.sps.add(1);
    if (training_field_given(base, "overlap_dp_comm"))
        d.ovs.add(base.overlap_dp_comm ? 1 : 0);
    else
        d.ovs.add(0), d.ovs.add(1);
}

// What every plan of one search shares: the scenario, its step inputs, and the fields held fixed.
struct Search {
    const ModelSpec& m;
    const Hardware& hw;
    const TrainingConfig& base;
    const StepInputs& in;
    const ModelSpec& shape;
    Efficiency eff;
    NetworkLevels net;
    Count n;
    double cap, peak, model_flops;
    double sites;  // site_count(hw): the DiLoCo workers a layout's data parallelism can span
    std::size_t k;
    bool fsdp_pp, pp_fixed, gb_fixed, sp_fixed, dp_fixed;
    bool best_only;
    double shape_flops = 0;  // model_flops_per_token_training(shape): what recomputation is measured against
};

// The shared state of a search of `m` on `hw` (tm: m's training model, which must outlive it).
Search make_search(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, const PlanOptions& opt, const TrainingModel& tm) {
    Search s{m, hw, base, tm.in, tm.shape, training_efficiency(base, hw.device), network_levels(hw), hw.count,
             hw.device.usable_memory_bytes().value_or(0),  // unified memory: the GPU's share (as training.cpp)
             // MFU against the dense 16-bit peak, also under FP8 (as training.cpp throughput)
             hw.device.peak(hw.device.sixteen_bit(base.precision)).value_or(0),
             m.has_architecture ? model_flops_per_token_training(m) : 6.0 * count_params(m).active, site_count(hw),
             static_cast<std::size_t>(opt.top_k), zero_sharding_with_pipeline(framework_of(base, hw.device)),
             training_field_given(base, "pp"), base.global_batch && training_field_given(base, "global_batch"),
             training_field_given(base, "sequence_parallel"), training_field_given(base, "dp") && base.dp, opt.best_only};
    s.shape_flops = std::max(1.0, model_flops_per_token_training(tm.shape));
    return s;
}

// One (tp, cp, pp, ep) layout: its sizes, and whether the heads and the experts divide over them.
struct Layout {
    Count tp, cp, pp, dp, ep;
    bool ok;
};

// One interleaving and micro-batch of a layout: the global batch it implies and whether it divides.
struct Batching {
    Count vpp, mb, gb;
    bool div_ok;
};

// The best plan found for one layout, if any fits.
struct LayoutBest {
    Plan plan;
    bool have = false;
};

// Fastest first (the ranking of the plans).
struct Faster {
    bool operator()(const Plan& a, const Plan& b) const { return a.tokens_per_second > b.tokens_per_second; }
};

// A plan's figures from its step estimate.
Plan make_plan(const Search& s, const TrainingConfig& c, const StepEstimate& e) {
    Plan p;
    p.config = c;
    p.step_seconds = e.step.total;
    p.memory_per_gpu_bytes = e.memory.total;
    p.tokens_per_second = static_cast<double>(*c.global_batch) * s.m.seq_len / e.step.total;
    p.mfu = s.peak > 0 ? s.model_flops * p.tokens_per_second / (static_cast<double>(s.n) * s.peak) : 0;
    p.bubble_fraction = e.step.total > 0 ? e.step.pp_bubble / e.step.total : 0;
    p.hfu = p.mfu * (1.0 + e.recompute_flops_per_token / s.shape_flops);  // as training.cpp throughput
    return p;
}

// Whether the plan in `c` is slower than `tokens_per_second` even at its step-time lower bound (a
// relative margin of 1e-9 keeps rounding from ever skipping a plan that would tie or win).
// `bound`: the lower bound if already known; it depends on the layout, batching, recomputation and
// sequence parallelism, not on the ZeRO stage or the overlap choice, which share it.
// `floor`: the bound's parts that do not depend on the interleaving, if known (search_layout).
bool cannot_beat(const Search& s, const TrainingConfig& c, double tokens_per_second, std::optional<double>& bound,
                 const StepFloor* floor = nullptr) {
    if (!bound) bound = floor ? step_seconds_lower_bound(*floor, c) : step_seconds_lower_bound(s.in, s.hw, c, s.eff, s.net);
    const double lb = *bound;
    return lb > 0 && static_cast<double>(*c.global_batch) * s.m.seq_len / lb < tokens_per_second * (1.0 - 1e-9);
}

// Evaluates the layout in `c`, then ranks it: among all plans, and within its layout. `memory`:
// the layout's memory per device if already sized (it does not depend on overlap_dp_comm, so the
// two overlap choices share one sizing); set here otherwise.
// Returns whether the plan was skipped by its lower bound.
bool evaluate_plan(const Search& s, const TrainingConfig& c, PlanResult& out, LayoutBest& lb, std::optional<double>& memory,
                   std::optional<double>& bound, const StepFloor* floor) {
    // Best only, with k plans that fit found: one that cannot beat the k-th by its lower bound is
    // neither sized nor timed (the least-memory layout is read only when nothing fits).
    if (s.best_only && out.best.size() >= s.k && cannot_beat(s, c, out.best.back().tokens_per_second, bound, floor)) {
        out.skipped_by_bound += 1;
        return true;
    }
    // Memory first: most layouts do not fit and need no timing (the
    // least-memory layout, rarely replaced, is timed in full).
    if (!memory) memory = estimate_step(s.in, s.hw, c, s.eff, s.net, /*memory_only=*/true).memory.total;
    const bool fits = !(*memory > s.cap);
    const bool least = !out.least_memory || *memory < out.least_memory->memory_per_gpu_bytes;
    if (!fits && !least) {
        out.rejected_out_of_memory += 1;
        return false;
    }
    const StepEstimate e = estimate_step(s.in, s.hw, c, s.eff, s.net);
    if (least) out.least_memory = make_plan(s, c, e);
    if (!fits) {
        out.rejected_out_of_memory += 1;
        return false;
    }
    out.feasible += 1;
    const double tps_now = static_cast<double>(*c.global_batch) * s.m.seq_len / e.step.total;
    if (!lb.have || tps_now > lb.plan.tokens_per_second) {
        lb.plan = make_plan(s, c, e);
        lb.have = true;
    }
    if (out.best.size() < s.k || tps_now > out.best.back().tokens_per_second) {
        Plan p = make_plan(s, c, e);
        out.best.insert(std::upper_bound(out.best.begin(), out.best.end(), p, Faster{}), p);
        if (out.best.size() > s.k) out.best.pop_back();
    }
    return false;
}

// Sets every field of `c` that the search varies; the others stay the base's.
void set_plan(TrainingConfig& c, const Layout& l, const Batching& b, Count zero, Count rc, Count sp, Count ov) {
    c.tp = l.tp;
    c.pp = l.pp;
    c.dp = l.dp;
    c.cp = l.cp;
    c.ep = l.ep;
    c.vpp = b.vpp;
    c.micro_batch = b.mb;
    c.zero = zero;
    c.recompute = static_cast<Recompute>(rc);
    c.sequence_parallel = sp == 1;
    c.overlap_dp_comm = ov == 1;
    c.global_batch = b.gb;
    c.mfu.reset();
}

// Sequence parallelism needs tensor parallelism (unless the scenario fixes it).
bool sp_left_out(const Search& s, const Dims& d, const Layout& l, int si) { return d.sps.values[si] == 1 && l.tp == 1 && !s.sp_fixed; }

// The recomputation and SP choices (by index, replica_dims: at most 3 x 2) whose lower bound lost to
// the k-th best; and by ZeRO stage too (at most 4), those known not to fit in memory.
struct Lost {
    bool by[3][2] = {};
    bool oom[4][3][2] = {};
    StepFloor floor[3][2];  // the bound's parts that do not depend on the interleaving, where has_floor
    bool has_floor[3][2] = {};
};

// ZeRO-2/3 shard gradients, which pipeline parallelism accumulates over micro-batches: DeepSpeed
// rejects the combination; Megatron shards the optimizer only; PyTorch FSDP with pipelining allows it
// (torchtitan; Llama 3 Sec. 3.3.2).
bool zero_allowed(const Search& s, const Layout& l, Count zero) { return !(zero >= 2 && l.pp > 1) || s.fsdp_pp; }

// Every ZeRO stage, recomputation, SP and overlap choice of one layout and batching. `known`: the
// choices already known to lose, or (oom_known) not to fit (search_layout), skipped unvisited.
void search_options(const Search& s, const Dims& d, const Layout& l, const Batching& b, TrainingConfig& c, PlanResult& out, LayoutBest& lb,
                    const Lost& known, bool oom_known) {
    bool lost[3][2];  // by recomputation and SP: lost to the k-th best
    std::copy(&known.by[0][0], &known.by[0][0] + 3 * 2, &lost[0][0]);
    // Options counted as considered per ZeRO stage.
    int sps = 0;
    for (int si = 0; si < d.sps.n; ++si) sps += !sp_left_out(s, d, l, si);
    const Count per_zero = static_cast<Count>(d.rcs.n) * sps * d.ovs.n;
    bool all_lost = true;  // every recomputation and SP choice already lost: counted per ZeRO stage at once
    for (int ri = 0; ri < d.rcs.n; ++ri)
        for (int si = 0; si < d.sps.n; ++si) all_lost = all_lost && (sp_left_out(s, d, l, si) || lost[ri][si]);
    // Nothing to visit (most calls of a best-only search): every stage counted at once, as the loop
    // below would count it.
    if (!b.div_ok || all_lost) {
        Count allowed = 0;
        for (int zi = 0; zi < d.zeros.n; ++zi) allowed += b.div_ok && zero_allowed(s, l, d.zeros.values[zi]);
        out.considered += static_cast<double>(per_zero * d.zeros.n);
        out.rejected_indivisible += static_cast<double>(per_zero * (d.zeros.n - allowed));
        out.skipped_by_bound += static_cast<double>(per_zero * allowed);
        return;
    }
    std::optional<double> bounds[3][2];  // step-time lower bounds by recomputation and SP (replica_dims: at most 3 x 2)
    // A recomputation and SP choice whose bound lost to the k-th best loses at every later ZeRO stage
    // and overlap choice too (they share the bound, and the k-th best only gets faster): those are
    // counted as skipped without being visited.
    for (int zi = 0; zi < d.zeros.n; ++zi) {
        const Count zero = d.zeros.values[zi];
        const bool zero_ok = zero_allowed(s, l, zero);
        out.considered += per_zero;
        if (!b.div_ok || !zero_ok) {  // every option of this stage: counted at once
            out.rejected_indivisible += per_zero;
            continue;
        }
        if (all_lost) {
            out.skipped_by_bound += per_zero;
            continue;
        }
        for (int ri = 0; ri < d.rcs.n; ++ri)
            for (int si = 0; si < d.sps.n; ++si) {
                if (sp_left_out(s, d, l, si)) continue;
                if (lost[ri][si]) {
                    out.skipped_by_bound += d.ovs.n;
                    continue;
                }
                if (oom_known && known.oom[zi][ri][si]) {
                    out.rejected_out_of_memory += d.ovs.n;
                    continue;
                }
                std::optional<double> memory;  // shared by the overlap choices
                for (int oi = 0; oi < d.ovs.n && !lost[ri][si]; ++oi) {
                    set_plan(c, l, b, zero, d.rcs.values[ri], d.sps.values[si], d.ovs.values[oi]);
                    if (evaluate_plan(s, c, out, lb, memory, bounds[ri][si], known.has_floor[ri][si] ? &known.floor[ri][si] : nullptr)) {
                        // So do the choices recomputing more (lost_at_every_vpp): their floors only grow.
                        for (int rj = ri; rj < d.rcs.n; ++rj) lost[rj][si] = true;
                        out.skipped_by_bound += d.ovs.n - oi - 1;  // the overlap choices left
                    }
                }
            }
    }
}

// The interleavings and micro-batches of one layout: the batch each micro-batch implies, whether
// the search takes it, and whether an interleaving and micro-batch divide. The batch depends on the
// interleaving only through whether there is one (batch_granule), so each is computed once per
// layout and micro-batch, for both (the search asks ~200 times per layout, 50,000 times for Mixtral
// 8x7B on 128 GPUs: ~8 % of its automatic layout in integer divisions).
struct Batchings {
    const Search& s;
    const Layout& l;
    // The batch's target in tokens (DiLoCo: per worker, with this layout's workers) and in sequences.
    double tokens;
    Count target;
    double most;  // the most sequences a batch it chooses may hold (the largest published batch, per DiLoCo worker)
    // By interleaving (0: none, or one stage; 1: interleaved) and micro-batch index (Dim: at most 64).
    Count gbs[2][64];
    bool takes[2][64], divides[2][64];
    int above_published = 0;  // (interleaving kind, micro-batch) pairs whose batch is above `most`
    Batchings(const Search& s_, const Layout& l_, const Dim& mbs)
        : s(s_),
          l(l_),
          tokens(target_batch_tokens(s.sites, static_cast<double>(l.dp), s.base.local_steps)),
          target(target_batch_sequences(s.m.seq_len, tokens)),
          most(largest_chosen_batch(s.m.seq_len, static_cast<double>(l.dp), s.sites, s.base.local_steps)) {
        for (int k = 0; k < (l.pp > 1 ? 2 : 1); ++k) {
            const Count vpp = k == 1 ? 2 : 1;  // any interleaving > 1 has the same granule
            const double one = static_cast<double>(batch(1, vpp));
            for (int bi = 0; bi < mbs.n; ++bi) {
                const Count mb = mbs.values[bi], g = batch(mb, vpp);
                gbs[k][bi] = g;
                // A batch the search chooses stays near 4M tokens (default_global_batch): a micro-batch may
                // not inflate it past 1.5x that, or past the smallest batch the data-parallel size allows when
                // even that is larger (25,000-way data parallelism at micro-batch 7 would be 358M tokens a step);
                // and never past the largest published pretraining batch (DeepSeek-V3's 62.9M tokens; per
                // worker with DiLoCo): a layout whose data-parallel size alone needs more is no plan (45,840-way
                // data parallelism of Llama 3.1 405B was 376M tokens a step, where the published run kept 16M
                // with TP 8 and PP 16; more devices than a real batch feeds do not train faster).
                const double gd = static_cast<double>(g);
                takes[k][bi] = s.gb_fixed || (gd <= most && (mb == 1 || gd <= std::max(one, 1.5 * static_cast<double>(target))));
                above_published += !s.gb_fixed && gd > most;
                divides[k][bi] = g % batch_granule(l.dp, mb, l.pp, vpp) == 0;
            }
        }
    }
    int kind(Count vpp) const { return vpp > 1 && l.pp > 1 ? 1 : 0; }
    Count gb(int bi, Count vpp) const { return gbs[kind(vpp)][bi]; }
    bool batch_ok(int bi, Count vpp) const { return takes[kind(vpp)][bi]; }
    // Uneven stages are allowed (training_step.cpp stage_split), but every model
    // chunk needs a layer (or the embedding or the loss).
    // Interleaving needs the step's micro-batches in groups of pp (scenario_parse.cpp
    // check_interleaved_microbatches).
    bool div_ok(Count vpp, int bi) const { return l.ok && s.shape.layers + 2 >= static_cast<double>(l.pp * vpp) && divides[kind(vpp)][bi]; }

private:
    // With interleaving the chosen batch holds whole groups of pp micro-batches (div_ok): the nearest
    // whole multiple of them to the target (default_global_batch); without, at least pp micro-batches
    // per pipeline where the largest published batch allows (pipeline_fed_batch).
    Count batch(Count mb, Count vpp) const {
        return s.gb_fixed ? *s.base.global_batch
                          : pipeline_fed_batch(nearest_batch(target, batch_granule(l.dp, mb, l.pp, vpp)), l.dp, mb, l.pp, vpp, most);
    }
};

// What lost_at_every_vpp settled for a layout: the largest interleaving searched, whether the plans
// there that do not fit were sized already (sized_at_v_max), and whether any were (sized).
struct VppSizing {
    Count v_max = 0;
    bool sized = false, sized_at_v_max = false;
};

// Whether every plan of a layout is slower than `kth` tokens/s by a bound of the whole layout (best
// only, k plans found, one site, no DualPipe): a plan's step is at least its micro-batches' time
// m x t_mb, with m >= gb / (dp x mb) (step_layout), and t_mb is at least t_mb_least (under the
// combined 1F1B schedule, the most its pairing hides, whatever m and the interleaving). A
// micro-batch's floor time per sample only falls as the micro-batch grows (GEMMs reach a higher
// efficiency at more rows and tokens, kernel launches and collective latencies are per micro-batch,
// everything else is per token; the hidden part is a share of the smaller of two such terms), so no
// plan passes dp x seq x mb_max / t_mb_least(mb_max), at the largest micro-batch searched, the least
// recomputation and either sequence-parallel choice (tests/unit/test_plan.cpp checks the per-sample
// floor on dense, MoE, long-context and FP8 layouts). Layouts that lose by it are counted, not
// searched: their floors were most of an MoE model's automatic layout (Mixtral 8x7B on 128 H100:
// 3,600 of them).
bool layout_loses(const Search& s, const Dims& d, const Layout& l, Count v, double kth, TrainingConfig& c) {
    if (!l.ok || s.base.dualpipe || d.mbs.n == 0) return false;
    Count mb = 1;
    for (int bi = 0; bi < d.mbs.n; ++bi) mb = std::max(mb, d.mbs.values[bi]);
    double most = 0;  // tokens/s
    for (int si = 0; si < d.sps.n; ++si) {
        if (sp_left_out(s, d, l, si)) continue;
        set_plan(c, l, Batching{v, mb, l.dp * mb, true}, d.zeros.values[0], d.rcs.values[0], d.sps.values[si], d.ovs.values[0]);
        const double t_mb = step_floor(s.in, s.hw, c, s.eff, s.net).t_mb_least;
        if (!(t_mb > 0)) return false;
        most = std::max(most, static_cast<double>(l.dp * mb) * s.m.seq_len / t_mb);
    }
    return most > 0 && most < kth * (1.0 - 1e-9);
}

// Whether the recomputation and SP choice (ri, si) set in `c` at the largest interleaving loses to
// `kth` at every interleaving: by the bound from its floor (kept in `lost` for the search), and, where
// the batch without interleaving differs (Batchings: another granule), by the bound at interleaving 1
// with that batch, which could be the larger (the floor's other terms depend on neither).
bool loses_at_every_vpp(const Search& s, const Batchings& bs, int bi, bool one_tried, double kth, TrainingConfig& c, Lost& lost, int ri,
                        int si) {
    lost.floor[ri][si] = step_floor(s.in, s.hw, c, s.eff, s.net);  // stages in one site: no WAN terms
    lost.has_floor[ri][si] = true;
    std::optional<double> lb;
    if (!cannot_beat(s, c, kth, lb, &lost.floor[ri][si])) return false;
    if (!one_tried || !bs.batch_ok(bi, 1) || bs.gb(bi, 1) == *c.global_batch) return true;
    c.vpp = 1;
    c.global_batch = bs.gb(bi, 1);
    std::optional<double> lb1;
    return cannot_beat(s, c, kth, lb1, &lost.floor[ri][si]);
}

// Best only, with k plans that fit found, and no stage across sites (the step's WAN floor grows with
// the interleaving): a plan's lower bound only falls as the interleaving grows (its bubble (p - 1) / v
// shrinks; nothing else in it depends on v), so a micro-batch, recomputation and SP choice whose bound
// at the largest interleaving searched loses to the k-th best loses at every interleaving (the k-th
// best only gets faster). Those are marked in lost[micro-batch index]; the search skips them unsized.
// In every search, memory falls from v = 2 on (the first stage's in-flight micro-batches
// p (1 + (p - 1) / (p v)) shrink; nothing else in it depends on v; without interleaving they are p,
// fewer), so a plan that does not fit at the largest interleaving fits at no interleaving v > 1: when
// several of those are searched, it is sized there once, and the smaller interleavings count it out of
// memory unsized. The largest interleaving itself is sized again in the search, where the least-memory
// layout is kept (memory falls with v: no smaller interleaving needs less), except in a best-only
// search with k plans found, which never reads that layout.
VppSizing lost_at_every_vpp(const Search& s, const Dims& d, const Layout& l, const Batchings& bs, TrainingConfig& c, const PlanResult& out,
                            std::vector<Lost>& lost) {
    VppSizing sz;
    int vs = 0;  // interleavings v > 1 searched
    for (int vi = 0; vi < d.vpps.n; ++vi) {
        const Count v = d.vpps.values[vi];
        // The interleavings search_layout tries: none under DualPipe (a bound at v = 8 skipped plans
        // that only v = 1 runs: 937,038 tokens/s where the full search found 940,378).
        const bool tried = (v == 1 && !(l.pp > 1 && s.base.overlap_moe_comm)) || (v > 1 && l.pp > 1 && !s.base.dualpipe);
        if (tried && s.shape.layers + 2 >= static_cast<double>(l.pp * v)) sz.v_max = std::max(sz.v_max, v), vs += v > 1;
    }
    const bool bound = s.best_only && out.best.size() >= s.k && s.net.sites <= 1;
    const bool one_tried = !(l.pp > 1 && s.base.overlap_moe_comm);  // interleaving 1 is searched (search_layout)
    // Not for MoE models: which layers (and routed experts) a device holds moves with the interleaving,
    // and their memory does not only fall with it (DeepSeek-V3 on 1,024 H100: 12 plans that do not fit at
    // interleaving 8 fit at a smaller one).
    const bool size_once = vs > 1 && s.base.fragmentation >= 0 && d.zeros.n <= 4 && !(s.in.moe_layer_fraction > 0);
    if (sz.v_max == 0 || (!bound && !size_once)) return sz;
    sz.sized = size_once;
    sz.sized_at_v_max = size_once && bound;
    const double kth = bound ? out.best.back().tokens_per_second : 0.0;
    if (bound && layout_loses(s, d, l, sz.v_max, kth, c)) {
        for (int bi = 0; bi < d.mbs.n; ++bi) std::fill(&lost[bi].by[0][0], &lost[bi].by[0][0] + 3 * 2, true);
        return VppSizing{sz.v_max, false, false};
    }
    for (int bi = 0; bi < d.mbs.n; ++bi) {
        const Count mb = d.mbs.values[bi], gb = bs.gb(bi, sz.v_max);
        if (!bs.batch_ok(bi, sz.v_max) || !bs.div_ok(sz.v_max, bi)) continue;
        // The recomputation choices in ascending order (replica_dims): recomputing more only adds to
        // every term of the floor, so once one loses, the ones after it lose too, unsized and untimed.
        for (int si = 0; si < d.sps.n; ++si)
            for (int ri = 0; ri < d.rcs.n; ++ri) {
                if (sp_left_out(s, d, l, si)) continue;
                if (bound && ri > 0 && lost[bi].by[ri - 1][si]) {
                    lost[bi].by[ri][si] = true;
                    continue;
                }
                const Batching b{sz.v_max, mb, gb, true};
                set_plan(c, l, b, d.zeros.values[0], d.rcs.values[ri], d.sps.values[si], d.ovs.values[0]);
                if (bound) {
                    lost[bi].by[ri][si] = loses_at_every_vpp(s, bs, bi, one_tried, kth, c, lost[bi], ri, si);
                    if (lost[bi].by[ri][si]) continue;
                }
                if (!size_once) continue;
                for (int zi = 0; zi < d.zeros.n; ++zi) {
                    if (!zero_allowed(s, l, d.zeros.values[zi])) continue;
                    set_plan(c, l, b, d.zeros.values[zi], d.rcs.values[ri], d.sps.values[si], d.ovs.values[0]);
                    lost[bi].oom[zi][ri][si] = estimate_step(s.in, s.hw, c, s.eff, s.net, /*memory_only=*/true).memory.total > s.cap;
                }
            }
    }
    return sz;
}

// Every interleaving and micro-batch of one layout; its best plan, if any fits. `lost`: scratch,
// one entry per micro-batch (Dim: at most 64 values).
LayoutBest search_layout(const Search& s, const Dims& d, const Layout& l, TrainingConfig& c, PlanResult& out, std::vector<Lost>& lost) {
    LayoutBest lb;
    const Batchings bs(s, l, d.mbs);
    out.rejected_batch_above_published += bs.above_published;
    std::fill_n(lost.begin(), d.mbs.n, Lost{});
    const VppSizing sz = lost_at_every_vpp(s, d, l, bs, c, out, lost);
    for (int vi = 0; vi < d.vpps.n; ++vi) {
        const Count vpp = d.vpps.values[vi];
        if (vpp > 1 && (l.pp == 1 || s.base.dualpipe)) continue;        // DualPipe has no interleaving (its two directions instead)
        if (vpp == 1 && l.pp > 1 && s.base.overlap_moe_comm) continue;  // combined 1F1B with a pipeline: interleaved only
        for (int bi = 0; bi < d.mbs.n; ++bi) {
            const Count mb = d.mbs.values[bi], gb = bs.gb(bi, vpp);
            if (!bs.batch_ok(bi, vpp)) continue;
            // Without interleaving fewer micro-batches are in flight: sized here (and at the largest
            // interleaving, where the least-memory layout is kept, unless a best-only search has its plans).
            const bool oom_known = sz.sized && vpp > 1 && (vpp < sz.v_max || sz.sized_at_v_max);
            search_options(s, d, l, Batching{vpp, mb, gb, bs.div_ok(vpp, bi)}, c, out, lb, lost[bi], oom_known);
        }
    }
    return lb;
}

}  // namespace

void check_plan_options(const Scenario& s, const PlanOptions& opt, Errors& errors) {
    if (!opt.only_tp || !s.training || !s.hardware) return;
    const Count tp = *opt.only_tp;
    const TrainingConfig& t = *s.training;
    const std::string n = jr::fmt_num(static_cast<double>(tp));
    if (training_field_given(t, "tp") && t.tp != tp)
        add_error(errors, "conflict", "plan.tp",
                  "plan.tp (" + n + ") differs from training.tp (" + jr::fmt_num(static_cast<double>(t.tp)) +
                      "), which the search holds fixed: give one of them");
    if (tp > opt.max_tp)
        add_error(errors, "conflict", "plan.tp",
                  "plan.tp (" + n + ") is above plan.max_tp (" + jr::fmt_num(static_cast<double>(opt.max_tp)) +
                      "; the largest tensor-parallel size searched, " + jr::fmt_num(static_cast<double>(PlanOptions{}.max_tp)) +
                      " by default): raise plan.max_tp or lower plan.tp");
    // The sizes the scenario fixes (scenario_parse.cpp check_given_sizes) times plan.tp tile the count.
    Count fixed = tp;
    const std::pair<const char*, Count> sizes[] = {{"cp", t.cp}, {"pp", t.pp}, {"dp", t.dp.value_or(1)}};
    for (const auto& [f, v] : sizes)
        if (training_field_given(t, f)) fixed *= v;
    if (s.hardware->count % fixed != 0)
        add_error(errors, "divisibility", "plan.tp",
                  "hardware.count (" + jr::fmt_num(static_cast<double>(s.hardware->count)) + ") must be divisible by plan.tp" +
                      (fixed != tp ? " x the training sizes given (" : " (") + jr::fmt_num(static_cast<double>(fixed)) + ")");
    if (!s.model || !s.model->has_architecture) return;
    const ModelSpec& m = *s.model;
    if (!whole(m.heads, tp))
        add_error(errors, "divisibility", "plan.tp", "model.heads (" + jr::fmt_num(m.heads) + ") must be divisible by plan.tp (" + n + ")");
    else if (!m.is_mla() && !whole(m.kv_heads, tp) && !whole(static_cast<double>(tp), static_cast<Count>(m.kv_heads)))
        add_error(errors, "divisibility", "plan.tp",
                  "model.kv_heads (" + jr::fmt_num(m.kv_heads) + ") and plan.tp (" + n + ") must divide one another");
}

PlanResult search_plans(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, const PlanOptions& opt) {
    PlanResult out;
    const TrainingModel tm = training_model(m);
    const Search s = make_search(m, hw, base, opt, tm);
    Dims d;
    parallel_dims(m, tm.in, base, opt, d);
    replica_dims(base, opt, d);
    TrainingConfig c = base;  // the layout under evaluation
    std::vector<Plan> layout_best;
    std::vector<Lost> lost(64);  // search_layout's scratch
    for (int ti = 0; ti < d.tps.n; ++ti) {
        const Count tp = d.tps.values[ti];
        const bool tp_ok = whole(s.shape.heads, tp) && (s.shape.is_mla() || whole(s.shape.kv_heads, tp) ||
                                                        whole(static_cast<double>(tp), static_cast<Count>(s.shape.kv_heads)));
        const Count pp_lo = s.pp_fixed ? base.pp : 1, pp_hi = s.pp_fixed ? base.pp : static_cast<Count>(s.shape.layers);
        for (int ci = 0; ci < d.cps.n; ++ci) {
            const Count cp = d.cps.values[ci];
            for (Count pp = pp_lo; pp <= pp_hi; ++pp) {
                if (s.n % (tp * cp * pp) != 0) continue;
                const Count dp = s.n / (tp * cp * pp);
                if (s.dp_fixed && dp != *base.dp) continue;
                for (int ei = 0; ei < d.eps.n; ++ei) {
                    const Count ep = d.eps.values[ei];
                    // A given shard group tiles dp x cp; DualPipe needs a pipeline of an even number of stages;
                    // the combined 1F1B schedule (overlap_moe_comm) expert parallelism.
                    const bool groups_ok = (!base.shard_group || (dp * cp) % *base.shard_group == 0) &&
                                           (!base.dualpipe || (pp > 1 && pp % 2 == 0)) && (!base.overlap_moe_comm || ep > 1);
                    const bool layout_ok = tp_ok && groups_ok && expert_layout_ok(tp, cp, dp, ep, base.expert_tp);
                    const LayoutBest lb = search_layout(s, d, Layout{tp, cp, pp, dp, ep, layout_ok}, c, out, lost);
                    if (lb.have) layout_best.push_back(lb.plan);
                }
            }
        }
    }
    stable_sort_items(layout_best, [](const void* v, std::uint32_t a, std::uint32_t b) {
        const auto& plans = *static_cast<const std::vector<Plan>*>(v);
        return Faster{}(plans[a], plans[b]);
    });
    out.best_per_layout = layout_best;
    return out;
}

// The layout fields a scenario gives (what an automatic layout must keep), as a list for a message.
std::string given_layout_fields(const TrainingConfig& t) {
    std::string out;
    for (const char* f : {"tp", "pp", "dp", "cp", "ep", "expert_tp", "vpp", "micro_batch", "global_batch", "zero", "recompute",
                          "shard_group", "dualpipe", "overlap_moe_comm"})
        // dualpipe and overlap_moe_comm false are the schedule's default, echoed: not constraints on the layout.
        if (training_field_given(t, f) && (std::string_view(f) != "dualpipe" || t.dualpipe) &&
            (std::string_view(f) != "overlap_moe_comm" || t.overlap_moe_comm))
            out += (out.empty() ? "training." : ", training.") + std::string(f);
    return out.empty() ? "none" : out;
}

std::string devices_text(double n) { return jr::fmt_num(n) + (n == 1 ? " device" : " devices"); }

std::string no_plan_reason(const PlanResult& r, const Hardware& hw, const TrainingConfig& base) {
    if (!r.best.empty()) return "";
    const std::string devices = jr::fmt_num(static_cast<double>(hw.count)) + " x " + hw.device.name;
    if (r.least_memory)
        return "no parallel layout fits in the memory of " + devices + ": the layout needing the least memory needs " +
               jr::fmt_num(r.least_memory->memory_per_gpu_bytes / units::GiB) +
               " GiB per device (more devices, a smaller model, or fewer training fields fixed)";
    if (r.rejected_batch_above_published > 0)
        return "no parallel layout of " + devices_text(static_cast<double>(hw.count)) + " of " + hw.device.name +
               " trains with a global batch within the largest published pretraining batch (DeepSeek-V3: 62.9M tokens, "
               "arXiv:2412.19437): each layout's data-parallel copies need more sequences per step than that (fewer devices, a "
               "longer pipeline given in training.pp, or training.global_batch to train with a larger batch)";
    return "no parallel layout of " + devices_text(static_cast<double>(hw.count)) + " of " + hw.device.name +
           " satisfies the training fields given (" + given_layout_fields(base) + "): leave some of them to the plan search";
}

}  // namespace gpucalc
