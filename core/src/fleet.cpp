// Mixed fleets (fleet.hpp): data parallelism across pools with load balancing, or one pipeline
// through the pools; the faster of the two is reported, with why the other was not chosen.
#include "gpucalc/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpucalc/json_read.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

using nlohmann::json;

namespace {

// A pool as a cluster of its own: its device and count, the fleet's network between its nodes.
Hardware pool_hardware(const Hardware& hw, const Pool& p) {
    Hardware h;
    h.device = p.device;
    h.count = p.count;
    h.devices_per_node = p.devices_per_node > 0 ? p.devices_per_node : static_cast<Count>(p.device.gpus_per_node);
    h.scale_out_bytes_per_second = hw.scale_out_bytes_per_second;
    h.network = hw.network;
    h.latency_seconds = hw.latency_seconds;
    return h;
}

struct Site {
    std::string name;
    double devices = 0;
    std::vector<std::size_t> pools;
};

std::vector<Site> sites_of(const Hardware& hw) {
    std::vector<Site> out;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        const Pool& p = hw.pools[i];
        auto it = std::find_if(out.begin(), out.end(), [&](const Site& s) { return s.name == p.site; });
        if (it == out.end()) out.push_back(Site{p.site, 0, {}}), it = out.end() - 1;
        it->devices += static_cast<double>(p.count);
        it->pools.push_back(i);
    }
    return out;
}

// WAN bandwidth (per direction) and one-way latency of a site of `devices` devices.
std::pair<double, double> site_wan(const Hardware& hw, double devices) {
    Hardware tmp = hw;
    tmp.pools.clear();
    tmp.network.reset();  // the WAN between sites: hardware.wan (or the default), not the network between nodes
    tmp.count = static_cast<Count>(std::max(1.0, devices)) * 2;
    tmp.sites = 2;
    const NetworkLevels n = network_levels(tmp);
    return {n.wan, n.wan_latency};
}

double peak16(const Device& d, Precision p) { return d.peak(p == Precision::fp8 ? Precision::bf16 : p).value_or(0); }

bool listed(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Exchange of `values` parameters between the pools: within each site among its pools (over the
// smaller pool's aggregate NIC bandwidth), then across sites over the WAN (dense all-reduce or top-k
// all-gather), as in training_step.cpp.
double exchange_seconds(const Hardware& hw, const std::vector<Site>& sites, double values, double bytes_per_value, double topk,
                        double network_efficiency) {
    const double b = topk < 1.0 ? topk * (bytes_per_value + 1.5) : bytes_per_value;
    const double S = values * b;
    double inside = 0;
    for (const Site& s : sites) {
        if (s.pools.size() < 2) continue;
        double slowest = 1e300;
        for (std::size_t i : s.pools) {
            const NetworkLevels n = network_levels(pool_hardware(hw, hw.pools[i]));
            slowest = std::min(slowest, n.scale_out * static_cast<double>(hw.pools[i].count) * network_efficiency);
        }
        const double k = static_cast<double>(s.pools.size());
        inside = std::max(inside, 2.0 * (k - 1.0) / k * S / slowest);
    }
    const double ns = static_cast<double>(sites.size());
    if (ns < 2) return inside;
    double wan = 1e300, lat = 0;
    for (const Site& s : sites) {
        const auto [bw, l] = site_wan(hw, s.devices);
        wan = std::min(wan, bw * network_efficiency);
        lat = std::max(lat, l);
    }
    const bool sparse = topk < 1.0;
    return inside + S * (sparse ? ns - 1.0 : 2.0 * (ns - 1.0) / ns) / wan + (sparse ? 1.0 : 2.0) * lat * std::ceil(std::log2(ns));
}

struct ModeResult {
    bool ok = false;
    std::string reason;  // when not ok
    double step = 0, tokens_per_step = 0, exchange = 0, exposed = 0, inner = 0;
    std::vector<FleetPool> pools;
    std::string slowest;
    double dp = 0;
    StepTime breakdown;
    double pp_wan = 0, pp_wan_bytes = 0, pp_bound = 0;
    double exchange_bytes = 0, sync_bytes = 0, moved_per_step = 0;  // across sites, per site (data parallel)
};

std::string pool_label(const Pool& p) { return jr::fmt_num(static_cast<double>(p.count)) + " x " + p.device.name + " (" + p.site + ")"; }

ModeResult data_parallel(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs,
                         const std::vector<Site>& sites) {
    ModeResult out;
    const auto& tf = training_fields();
    Trace none(false);
    std::vector<double> alone;
    std::vector<TrainingConfig> layouts;
    for (const Pool& p : hw.pools) {
        const Hardware h = pool_hardware(hw, p);
        TrainingConfig c = cfg;
        c.outer_state = cfg.local_steps > 1;  // the pool holds DiLoCo's outer state: its layout must leave room for it
        c.local_steps = 1;
        c.outer_overlap_steps = 0;
        c.global_batch.reset();
        c.given &= ~field_bit(tf, "global_batch");
        c.layout = LayoutMode::automatic;
        const LayoutChoice lc = resolve_layout(m, h, c);
        const TrainingResult r = estimate_training(m, h, lc.config, costs, none);
        if (!r.fits || r.tokens_per_second <= 0) {
            out.reason = "data parallel across pools needs every pool to hold whole replicas: " + pool_label(p) + " needs " +
                         jr::fmt_num(r.memory.total / units::GiB) + " GiB per device at its best layout, and has " +
                         jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB";
            return out;
        }
        alone.push_back(r.tokens_per_second);
        TrainingConfig resolved = lc.config;
        if (!resolved.dp) resolved.dp = std::max<Count>(1, p.count / std::max<Count>(1, resolved.tp * resolved.pp * resolved.cp));
        layouts.push_back(resolved);
    }
    // The fleet's batch: the scenario's, or ~4M tokens; each pool's share by speed (or device count),
    // in whole multiples of its dp x micro_batch.
    const double B = static_cast<double>(cfg.global_batch.value_or(default_global_batch(m.seq_len, 1)));
    double weight_sum = 0;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) weight_sum += cfg.load_balance ? alone[i] : static_cast<double>(hw.pools[i].count);
    double inner = 0, tokens = 0;
    std::size_t slowest = 0;
    bool fits = true;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        const Pool& p = hw.pools[i];
        const double w = (cfg.load_balance ? alone[i] : static_cast<double>(p.count)) / weight_sum;
        TrainingConfig c = layouts[i];
        const double granule = static_cast<double>(*c.dp * c.micro_batch);
        const double b = std::max(granule, std::round(B * w / granule) * granule);
        c.global_batch = static_cast<Count>(b);
        const Hardware h = pool_hardware(hw, p);
        const TrainingResult r = estimate_training(m, h, c, costs, none);
        FleetPool fp;
        fp.pool = p;
        fp.layout = c;
        fp.batch_sequences = b;
        fp.step_seconds = r.step_seconds;
        fp.tokens_per_second_alone = alone[i];
        fp.memory_per_gpu_bytes = r.memory.total;
        fp.outer_optimizer_bytes = r.memory.outer_optimizer;
        fp.memory_capacity_bytes = r.memory_capacity_bytes;
        fp.fits = r.fits;
        fp.peak_flops_per_second = static_cast<double>(p.count) * peak16(p.device, cfg.precision);
        fits = fits && r.fits;
        if (r.step_seconds > inner) inner = r.step_seconds, slowest = i, out.breakdown = r.step;
        tokens += b * m.seq_len;
        out.pools.push_back(fp);
    }
    // Gradients (synchronous) or pseudo-gradients (local_steps > 1) of the whole model between pools.
    const Efficiency eff = training_efficiency(cfg, hw.pools.front().device);
    const double gbytes = cfg.fp32_gradients.value_or(eff.fw.fp32_gradients) ? 4.0 : 2.0;
    const double b_x = cfg.outer_precision ? outer_precision_bytes(*cfg.outer_precision) : (cfg.local_steps > 1 ? 4.0 : gbytes);
    out.exchange = exchange_seconds(hw, sites, count_params(m).total, b_x, cfg.outer_topk, eff.gen.network);
    const double ns = static_cast<double>(sites.size());
    const bool sparse = cfg.outer_topk < 1.0;
    out.exchange_bytes = count_params(m).total * (sparse ? cfg.outer_topk * (b_x + 1.5) : b_x);
    out.sync_bytes = ns > 1 ? count_params(m).total * gbytes * 2.0 * (ns - 1.0) / ns : 0.0;
    out.moved_per_step =
        ns > 1 ? out.exchange_bytes * (sparse ? ns - 1.0 : 2.0 * (ns - 1.0) / ns) / static_cast<double>(cfg.local_steps) : 0.0;
    const double H = static_cast<double>(cfg.local_steps);
    const double tau = std::min(H, static_cast<double>(cfg.outer_overlap_steps));
    out.exposed = std::max(0.0, out.exchange - tau * inner) / H;
    out.inner = inner;
    out.step = inner + out.exposed;
    out.tokens_per_step = tokens;
    out.slowest = pool_label(hw.pools[slowest]);
    out.ok = fits;
    if (!fits) out.reason = "a pool's share of the batch does not fit";
    return out;
}

// Bytes and time of one pipeline stage on a pool: a model of `stages` x `layers_per_stage` layers
// on `stages` stages, so that the slowest-stage step model sees this stage's layers, in-flight
// micro-batches and embedding (conservatively on every stage).
StepEstimate stage_estimate(const StepInputs& in0, const Hardware& h, const TrainingConfig& base, double layers_per_stage, double stages,
                            Count tp, Count dp, Count mb, Count gb, Recompute rc, const Efficiency& eff) {
    StepInputs in = in0;
    in.layers = layers_per_stage * stages;
    TrainingConfig c = base;
    c.tp = tp;
    c.pp = static_cast<Count>(stages);
    c.dp = dp;
    c.cp = 1;
    c.ep = 1;
    c.vpp = 1;
    c.micro_batch = mb;
    c.global_batch = gb;
    c.zero = 1;
    c.recompute = rc;
    c.sequence_parallel = tp > 1;
    c.local_steps = 1;
    Hardware hh = h;
    hh.count = tp * static_cast<Count>(stages) * dp;
    return estimate_step(in, hh, c, eff);
}

ModeResult pipeline(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const std::vector<Site>& sites) {
    ModeResult best;
    best.reason = "no pipeline layout fits";
    const TrainingModel tm = training_model(m);
    const StepInputs& in = tm.in;
    const double L = in.layers;
    const std::size_t k = hw.pools.size();
    Count g = 0;
    for (const Pool& p : hw.pools) g = std::gcd(g, p.count);
    // Data-parallel sizes: the divisors of the pools' gcd (found up to its square root), at most 128.
    std::vector<Count> dps;
    for (Count d = 1; d * d <= g && dps.size() < 128; ++d)
        if (g % d == 0) {
            dps.push_back(d);
            if (d * d != g) dps.push_back(g / d);
        }
    std::sort(dps.begin(), dps.end());
    std::vector<Hardware> hs;
    std::vector<Efficiency> effs;
    for (const Pool& p : hw.pools) hs.push_back(pool_hardware(hw, p)), effs.push_back(training_efficiency(cfg, p.device));
    const double B = static_cast<double>(cfg.global_batch.value_or(default_global_batch(m.seq_len, 1)));
    auto heads_ok = [&](Count t) {
        return std::fmod(tm.shape.heads, static_cast<double>(t)) == 0 &&
               (tm.shape.is_mla() || std::fmod(tm.shape.kv_heads, static_cast<double>(t)) == 0 ||
                std::fmod(static_cast<double>(t), tm.shape.kv_heads) == 0);
    };
    for (Count dp : dps) {
        for (Count mb : {1, 2, 4}) {
            const Count gb = std::max<Count>(dp * mb, static_cast<Count>(std::round(B / static_cast<double>(dp * mb))) * dp * mb);
            for (Recompute rc : {Recompute::selective, Recompute::full}) {
                // Each pool's tensor-parallel size: the fastest per layer among the node-sized ones.
                std::vector<Count> tp(k, 1), pp(k, 1);
                std::vector<double> t_layer(k, 0);
                double stages = 0;
                bool ok = true;
                for (std::size_t i = 0; i < k && ok; ++i) {
                    double best_rate = 0;
                    const Count node = std::max<Count>(1, hs[i].devices_per_node);
                    for (Count t = 1; t <= std::min<Count>(8, node); t *= 2) {
                        if (!heads_ok(t) || hw.pools[i].count % (dp * t) != 0) continue;
                        const Count p = hw.pools[i].count / (dp * t);
                        // One layer's micro-batch time: two layers per stage minus one (the logits and the
                        // stage's sends cancel out).
                        const StepEstimate e1 = stage_estimate(in, hs[i], cfg, 1, 2, t, dp, mb, gb, rc, effs[i]);
                        const StepEstimate e2 = stage_estimate(in, hs[i], cfg, 2, 2, t, dp, mb, gb, rc, effs[i]);
                        const double per_layer = std::max(1e-12, e2.microbatch_seconds - e1.microbatch_seconds);
                        const double rate = static_cast<double>(p) / per_layer;
                        if (rate > best_rate) best_rate = rate, tp[i] = t, pp[i] = p, t_layer[i] = per_layer;
                    }
                    ok = best_rate > 0;
                    stages += static_cast<double>(pp[i]);
                }
                if (!ok || stages > L) continue;
                // Layers by speed (stage time balanced), at least one per stage, within each pool's memory.
                std::vector<double> cap(k, 0), layers(k, 0);
                double rate_sum = 0;
                for (std::size_t i = 0; i < k; ++i) {
                    const double cap_bytes = hw.pools[i].device.memory_bytes.value_or(0);
                    const StepEstimate e1 = stage_estimate(in, hs[i], cfg, 1, stages, tp[i], dp, mb, gb, rc, effs[i]);
                    const StepEstimate e2 = stage_estimate(in, hs[i], cfg, 2, stages, tp[i], dp, mb, gb, rc, effs[i]);
                    const double per_layer = e2.memory.total - e1.memory.total;
                    const double per_stage = per_layer > 0 ? std::floor(1.0 + (cap_bytes - e1.memory.total) / per_layer) : L;
                    cap[i] = std::max(0.0, per_stage) * static_cast<double>(pp[i]);
                    rate_sum += static_cast<double>(pp[i]) / t_layer[i];
                }
                double left = L, free_rate = rate_sum;
                std::vector<bool> fixed(k, false);
                for (int round = 0; round < 64 && left > 0; ++round) {
                    bool capped = false;
                    for (std::size_t i = 0; i < k; ++i) {
                        if (fixed[i]) continue;
                        const double want = left * (static_cast<double>(pp[i]) / t_layer[i]) / free_rate;
                        if (want > cap[i]) layers[i] = cap[i], fixed[i] = true, capped = true;
                    }
                    if (!capped) break;
                    left = L, free_rate = 0;
                    for (std::size_t i = 0; i < k; ++i)
                        (fixed[i] ? left -= layers[i] : free_rate += static_cast<double>(pp[i]) / t_layer[i]);
                    if (free_rate <= 0) break;
                }
                double assigned = 0;
                for (std::size_t i = 0; i < k; ++i) {
                    if (!fixed[i]) layers[i] = free_rate > 0 ? std::floor(left * (static_cast<double>(pp[i]) / t_layer[i]) / free_rate) : 0;
                    layers[i] = std::max(layers[i], static_cast<double>(pp[i]));
                    assigned += layers[i];
                }
                // Rounding: the remaining layers go to the pools with room, fastest per layer first.
                for (int guard = 0; guard < 100000 && assigned < L; ++guard) {
                    std::size_t pick = k;
                    double best_t = 1e300;
                    for (std::size_t i = 0; i < k; ++i) {
                        const double t_stage = std::ceil((layers[i] + 1.0) / static_cast<double>(pp[i])) * t_layer[i];
                        if (layers[i] + 1.0 <= cap[i] && t_stage < best_t) best_t = t_stage, pick = i;
                    }
                    if (pick == k) break;
                    layers[pick] += 1.0, assigned += 1.0;
                }
                for (std::size_t i = 0; i < k && assigned > L; ++i)
                    while (assigned > L && layers[i] > static_cast<double>(pp[i])) layers[i] -= 1.0, assigned -= 1.0;
                if (assigned != L) continue;
                // The pipeline: every micro-batch through every stage; the slowest stage sets the pace.
                double t_mb = 0, dp_opt = 0;
                StepEstimate slowest_stage;
                bool fits = true;
                std::vector<FleetPool> fps;
                for (std::size_t i = 0; i < k; ++i) {
                    const double ls = std::ceil(layers[i] / static_cast<double>(pp[i]));
                    const StepEstimate e = stage_estimate(in, hs[i], cfg, ls, stages, tp[i], dp, mb, gb, rc, effs[i]);
                    if (e.microbatch_seconds > t_mb) t_mb = e.microbatch_seconds, slowest_stage = e;
                    dp_opt = std::max(dp_opt, e.step.dp_comm + e.step.optimizer);
                    const double capb = hw.pools[i].device.memory_bytes.value_or(0);
                    fits = fits && e.memory.total <= capb;
                    FleetPool fp;
                    fp.pool = hw.pools[i];
                    fp.layout = cfg;
                    fp.layout.tp = tp[i], fp.layout.pp = pp[i], fp.layout.dp = dp, fp.layout.micro_batch = mb, fp.layout.global_batch = gb;
                    fp.layout.zero = 1, fp.layout.recompute = rc, fp.layout.sequence_parallel = tp[i] > 1, fp.layout.vpp = 1;
                    fp.layers = layers[i];
                    fp.step_seconds = e.microbatch_seconds;
                    fp.memory_per_gpu_bytes = e.memory.total;
                    fp.memory_capacity_bytes = capb;
                    fp.fits = e.memory.total <= capb;
                    fp.peak_flops_per_second = static_cast<double>(hw.pools[i].count) * peak16(hw.pools[i].device, cfg.precision);
                    fps.push_back(fp);
                }
                if (!fits) continue;
                // Boundaries between pools: over the site network (same site) or the WAN (different sites).
                const double m_count = static_cast<double>(gb / (dp * mb));
                double exposed_mb = 0, fill = 0, wan_bytes = 0, bound = 0;
                for (std::size_t i = 0; i + 1 < k; ++i) {
                    const double bytes = 2.0 * static_cast<double>(mb) * in.seq * in.hidden / static_cast<double>(tp[i] > 1 ? tp[i] : 1);
                    double x = 0, lat = 0;
                    const double net_eff = effs[i].gen.network;
                    if (hw.pools[i].site == hw.pools[i + 1].site) {
                        const NetworkLevels n = network_levels(hs[i]);
                        x = bytes / (n.scale_out * net_eff);
                        lat = std::max(effs[i].gen.collective_latency_seconds, n.scale_out_latency);
                    } else {
                        double dev = 0;
                        for (const Site& s : sites)
                            if (s.name == hw.pools[i].site) dev = s.devices;
                        const auto [bw, l] = site_wan(hw, dev);
                        const double senders = static_cast<double>(tp[i] * dp);
                        x = bytes / (bw * net_eff / senders);
                        lat = l;
                        wan_bytes = std::max(wan_bytes, bytes);
                        const double b = static_cast<double>(dp * mb) * in.seq / x;
                        bound = bound > 0 ? std::min(bound, b) : b;
                    }
                    exposed_mb = std::max(exposed_mb, x - t_mb);
                    fill += 2.0 * (x + lat);
                }
                const double pp_wan = m_count * std::max(0.0, exposed_mb) + fill;
                const double step = (m_count + stages - 1.0) * t_mb + pp_wan + dp_opt;
                const double tokens = static_cast<double>(gb) * m.seq_len;
                if (!best.ok || tokens / step > best.tokens_per_step / best.step) {
                    best.ok = true;
                    best.step = step;
                    best.inner = step;
                    best.tokens_per_step = tokens;
                    best.pools = fps;
                    best.dp = static_cast<double>(dp);
                    best.pp_wan = pp_wan;
                    best.pp_wan_bytes = wan_bytes;
                    best.pp_bound = bound;
                    // The slowest stage's micro-batches by cause, the pipeline's bubble and sends between
                    // pools, and the slowest pool's data-parallel reduction and optimizer step.
                    best.breakdown = slowest_stage.step;
                    best.breakdown.pp_bubble = (stages - 1.0) * t_mb;
                    best.breakdown.pp_comm += pp_wan;
                    best.breakdown.dp_comm = dp_opt;
                    best.breakdown.optimizer = 0;
                    best.breakdown.total = step;
                }
            }
        }
    }
    return best;
}

}  // namespace

FleetResult estimate_fleet(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg_in, const Costs& costs, Trace& trace) {
    FleetResult f;
    TrainingConfig cfg = cfg_in;
    const Device& d0 = hw.pools.front().device;
    if (!cfg.framework) cfg.framework = framework_of(cfg, d0);
    const Efficiency eff0 = training_efficiency(cfg, d0);
    if (!cfg.fp32_gradients) cfg.fp32_gradients = eff0.fw.fp32_gradients;
    f.load_balanced = cfg.load_balance;
    const std::vector<Site> sites = sites_of(hw);
    f.sites = static_cast<double>(sites.size());
    const ModeResult dpm = data_parallel(m, hw, cfg, costs, sites);
    const ModeResult ppm = pipeline(m, hw, cfg, sites);
    const bool use_dp = dpm.ok && (!ppm.ok || dpm.tokens_per_step / dpm.step >= ppm.tokens_per_step / ppm.step);
    const ModeResult& r = use_dp ? dpm : ppm;
    const ModeResult& other = use_dp ? ppm : dpm;
    f.mode = use_dp ? "data_parallel" : "pipeline";
    f.why_not_other = !other.ok ? other.reason
                                : (use_dp ? "one pipeline through the pools reaches " : "data parallel across pools reaches ") +
                                      jr::fmt_num(other.tokens_per_step / other.step) + " tokens/s, against " +
                                      jr::fmt_num(r.ok ? r.tokens_per_step / r.step : 0.0);
    f.pools = r.pools;
    f.slowest_pool = r.slowest;
    f.exchange_seconds = r.exchange;
    f.pipeline_dp = r.dp;

    TrainingResult& t = f.total;
    t.config = cfg;
    t.framework = eff0.fw.name;
    const ParamCount pc = count_params(m);
    t.params_total = pc.total;
    t.params_active = pc.active;
    t.tokens = cfg.tokens.value_or(0);
    t.model_flops_per_token = m.has_architecture ? model_flops_per_token_training(m) : 6.0 * pc.active;
    t.hardware_flops_per_token = t.model_flops_per_token;
    t.flops = t.model_flops_per_token * t.tokens;
    t.flops_6nd = 6.0 * pc.active * t.tokens;
    double devices = 0, peak = 0;
    for (const Pool& p : hw.pools)
        devices += static_cast<double>(p.count), peak += static_cast<double>(p.count) * peak16(p.device, cfg.precision);
    t.devices = devices;
    t.peak_flops_per_second = devices > 0 ? peak / devices : 0;
    t.network = {{"sites", f.sites}, {"pools", static_cast<double>(hw.pools.size())}};
    if (!r.ok) {
        t.fits = false;
        t.infeasible_reason = "the mixed fleet cannot train this model: " + dpm.reason + "; " + ppm.reason;
        double worst = 0;
        for (const auto& fp : r.pools) worst = std::max(worst, fp.memory_per_gpu_bytes);
        t.memory.total = worst;
        return f;
    }
    // The fleet as one run: the slowest pool's (data parallel) or stage's (pipeline) step, memory of
    // the fullest pool, peak and prices summed over the pools.
    double worst_ratio = -1;
    for (const auto& fp : r.pools) {
        const double ratio = fp.memory_capacity_bytes > 0 ? fp.memory_per_gpu_bytes / fp.memory_capacity_bytes : 1e9;
        if (ratio > worst_ratio)
            worst_ratio = ratio, t.memory.total = fp.memory_per_gpu_bytes, t.memory_capacity_bytes = fp.memory_capacity_bytes;
    }
    for (const auto& fp : r.pools) t.memory.outer_optimizer = std::max(t.memory.outer_optimizer, fp.outer_optimizer_bytes);
    t.fits = t.memory.total <= t.memory_capacity_bytes;
    t.step = r.breakdown;
    t.step.outer_comm = cfg.local_steps > 1 ? r.exposed : 0.0;
    if (cfg.local_steps == 1) t.step.dp_comm += r.exposed;
    t.step.total = r.step;
    t.step_seconds = r.step;
    t.tokens_per_step = r.tokens_per_step;
    t.tokens_per_second = r.tokens_per_step / r.step;
    t.mfu = peak > 0 ? t.model_flops_per_token * t.tokens_per_second / peak : 0;
    t.mfu_predicted = t.mfu;
    t.hfu = t.mfu;
    t.achieved_flops_per_second_per_gpu = t.model_flops_per_token * t.tokens_per_second / devices;
    if (cfg.mfu) {
        t.mfu_given = true;
        t.mfu = *cfg.mfu;
        t.tokens_per_second = t.mfu * peak / t.model_flops_per_token;
        t.step_seconds = t.tokens_per_step / t.tokens_per_second;
    }
    t.goodput = run_goodput(devices, pc.total, cfg.goodput);
    t.wan.sites_dp = use_dp ? f.sites : 1;
    t.wan.sites_pp = use_dp ? 1 : f.sites;
    t.wan.exchange_seconds = r.exchange;
    t.wan.exchange_bytes_per_site = r.exchange_bytes;
    t.wan.sync_bytes_per_site_per_step = r.sync_bytes;
    t.wan.bytes_per_site_per_step = r.moved_per_step;
    t.wan.exchange_exposed_seconds = r.exposed;
    t.wan.pp_seconds = r.pp_wan;
    t.wan.pp_bytes_per_microbatch = r.pp_wan_bytes;
    t.wan.pp_bound_tokens_per_second = r.pp_bound;
    t.wan.inner_step_seconds = r.inner;
    t.compute_utilization = r.step > 0 ? std::max(0.0, r.step - r.exposed - r.pp_wan) / r.step : 1;
    if (cfg.local_steps > 1 && use_dp) t.convergence = diloco_convergence(static_cast<double>(cfg.local_steps));
    // Band: calibrated only if every pool's generation and the framework are.
    const Calibration& cal = calibration();
    bool calibrated = listed(cal.calibrated_frameworks, eff0.fw.id);
    for (const Pool& p : hw.pools) {
        const Efficiency e = training_efficiency(cfg, p.device);
        calibrated = calibrated && !e.fallback_used && listed(cal.calibrated_generations, e.gen.id);
    }
    const double widen = calibrated ? 1.0 : cal.band.extrapolation;
    const double lo = t.mfu_given ? 1.0 : std::max(0.05, 1.0 - (1.0 - cal.band.low) * widen);
    const double hi = t.mfu_given ? 1.0 : 1.0 + (cal.band.high - 1.0) * widen;
    t.band_basis =
        t.mfu_given
            ? "MFU given: no model uncertainty"
            : cal.band.basis + (calibrated ? "" : " (widened x" + jr::fmt_num(widen) + ": a pool's generation has no calibration runs)");
    if (!t.mfu_given) t.mfu_low = t.mfu * lo, t.mfu_high = t.mfu * hi;
    if (t.tokens > 0 && t.tokens_per_second > 0) {
        const double seconds = t.tokens / t.tokens_per_second / t.goodput.value;
        double gpu_hours = 0, cost = 0, energy = 0;
        bool priced = true;
        for (const Pool& p : hw.pools) {
            const double h = static_cast<double>(p.count) * seconds / units::seconds_per_hour;
            const double e = h * p.device.tdp_watts.value_or(0) / 1000.0 * costs.pue;
            gpu_hours += h;
            energy += e;
            if (costs.ownership == Ownership::owned) {
                cost +=
                    h * p.device.price_usd.value_or(0) / (costs.lifetime_years * units::hours_per_year) + e * costs.electricity_usd_per_kwh;
            } else {
                const HourlyRate rate = gpu_hour_rate(p.device, costs);
                priced = priced && rate.usd.has_value();
                cost += h * rate.usd.value_or(0);
            }
        }
        t.seconds = seconds;
        t.gpu_hours = gpu_hours;
        t.energy_kwh = energy;
        t.co2_kg = energy * costs.grid_kg_co2_per_kwh;
        t.seconds_low = seconds / hi;
        t.seconds_high = seconds / lo;
        t.gpu_hour_usd = gpu_hours > 0 ? cost / gpu_hours : 0;
        if (priced)
            t.cost_usd = cost, t.cost_usd_low = cost / hi, t.cost_usd_high = cost / lo;
        else
            t.warnings.push_back("a pool's device has no $/GPU-hour: set costs.gpu_hour_usd");
    } else if (t.tokens <= 0) {
        t.warnings.push_back("no training.tokens: the run's time, GPU-hours, cost and energy need it");
    }
    t.warnings.push_back("mixed fleet: " + std::string(use_dp ? "data parallel across pools" : "one pipeline through the pools") + " (" +
                         f.why_not_other + ")");
    if (trace.enabled()) {
        trace.add(
            "training.step_seconds",
            use_dp ? "max over pools (pool step on its share of the batch) + exposed exchange between pools / local_steps"
                   : "(micro-batches + stages - 1) x slowest stage's micro-batch + sends between pools + data-parallel reduction",
            {{"inner_step_seconds", r.inner},
             {"exchange_seconds", r.exchange},
             {"local_steps", static_cast<double>(cfg.local_steps)},
             {"pools", static_cast<double>(hw.pools.size())},
             {"sites", f.sites}},
            r.step, "s",
            use_dp
                ? "synchronous data parallelism: the slowest member sets the step; shares of the batch by measured speed (load balancing)"
                : "1F1B pipeline (Narayanan et al. 2021) with stages balanced by speed within memory (HetPipe, Park et al. 2020)");
    }
    return f;
}

json fleet_json(const FleetResult& f) {
    json pools = json::array();
    for (const auto& p : f.pools) {
        const TrainingConfig& c = p.layout;
        pools.push_back({{"device", p.pool.device.custom ? json(p.pool.device.id) : json(p.pool.device.id)},
                         {"device_name", p.pool.device.name},
                         {"count", p.pool.count},
                         {"site", p.pool.site},
                         {"tp", c.tp},
                         {"pp", c.pp},
                         {"dp", c.dp.value_or(1)},
                         {"micro_batch", c.micro_batch},
                         {"zero", c.zero},
                         {"layers", f.mode == "pipeline" ? json(p.layers) : json(nullptr)},
                         {"batch_sequences", f.mode == "data_parallel" ? json(p.batch_sequences) : json(nullptr)},
                         {"step_seconds", p.step_seconds},
                         {"tokens_per_second_alone", f.mode == "data_parallel" ? json(p.tokens_per_second_alone) : json(nullptr)},
                         {"memory_per_gpu_bytes", p.memory_per_gpu_bytes},
                         {"memory_capacity_bytes", p.memory_capacity_bytes},
                         {"fits", p.fits},
                         {"peak_flops_per_second", p.peak_flops_per_second}});
    }
    return {{"mode", f.mode},
            {"pools", pools},
            {"sites", f.sites},
            {"load_balanced", f.load_balanced},
            {"slowest_pool", f.mode == "data_parallel" ? json(f.slowest_pool) : json(nullptr)},
            {"exchange_seconds", f.mode == "data_parallel" ? json(f.exchange_seconds) : json(nullptr)},
            {"pipeline_data_parallel", f.mode == "pipeline" && f.pipeline_dp > 0 ? json(f.pipeline_dp) : json(nullptr)},
            {"why_not_other", f.why_not_other}};
}

}  // namespace gpucalc
