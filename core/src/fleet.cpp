// Mixed fleets (fleet.hpp): data parallelism across pools with load balancing, or one pipeline
// through the pools; the faster of the two is reported, with why the other was not chosen.
#include "gpucalc/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>

#include "gpucalc/json_read.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

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

double peak16(const Device& d, Precision p) { return d.peak(d.sixteen_bit(p)).value_or(0); }

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
    double dp_bytes = 0;  // bytes one device of the pool that sets dp_comm sends in its pool's data-parallel collectives per step
    std::vector<std::size_t> order;  // pipeline: the pools (indices as given) in stage order
};

// A mode's tokens per second, 0 when it does not train the model.
double mode_rate(const ModeResult& r) { return r.ok ? r.tokens_per_step / r.step : 0.0; }

std::string pool_label(const Pool& p) { return jr::fmt_num(static_cast<double>(p.count)) + " x " + p.device.name + " (" + p.site + ")"; }

// Each pool training alone at its best layout: its throughput and its resolved layout.
struct PoolsAlone {
    std::vector<double> alone;
    std::vector<TrainingConfig> layouts;
};

// Whether two pools' devices are the same catalog entry. A custom device is only ever itself: its id
// ("<base>-custom" unless given) does not say its figures, and two custom H100s of different peaks
// had shared one pool-alone estimate (data parallel across the pools at 79,505 tokens/s where it
// trains at 144,249).
bool same_catalog_device(const Device& a, const Device& b) { return !a.custom && !b.custom && a.id == b.id; }

// Pools alone at their best layouts, remembered by device, count and node size: the fleet without one
// of its pools (slower_than_without_a_pool) asks the same of every other pool again, a plan search each.
struct AloneMemo {
    struct Entry {
        Device device;
        Count count, per_node;
        TrainingResult result;
        TrainingConfig layout;
    };
    std::vector<Entry> entries;
};

// One pool alone at its best layout (its estimate and its layout as resolved).
const AloneMemo::Entry& pool_alone(const ModelSpec& m, const Hardware& hw, const Pool& p, const TrainingConfig& cfg, const Costs& costs,
                                   AloneMemo& memo) {
    for (const auto& e : memo.entries)
        if (same_catalog_device(e.device, p.device) && e.count == p.count && e.per_node == p.devices_per_node) return e;
    const auto& tf = training_fields();
    Trace none(false);
    const Hardware h = pool_hardware(hw, p);
    TrainingConfig c = cfg;
    c.outer_state = cfg.local_steps > 1;  // the pool holds DiLoCo's outer state: its layout must leave room for it
    c.local_steps = 1;
    c.outer_overlap_steps = 0;
    c.global_batch.reset();
    c.given &= ~field_bit(tf, "global_batch");
    c.layout = LayoutMode::automatic;
    const LayoutChoice lc = resolve_layout(m, h, c);
    memo.entries.push_back({p.device, p.count, p.devices_per_node, estimate_training(m, h, lc.config, costs, none), lc.config});
    return memo.entries.back();
}

// Every pool alone at its best layout (whole replicas); false, with the reason in out, if a pool cannot hold one.
bool pools_alone(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs, PoolsAlone& pa, ModeResult& out,
                 AloneMemo& memo) {
    for (const Pool& p : hw.pools) {
        const AloneMemo::Entry& e = pool_alone(m, hw, p, cfg, costs, memo);
        const TrainingResult& r = e.result;
        if (!r.fits || r.tokens_per_second <= 0) {
            out.reason = "data parallel across pools needs every pool to hold whole replicas: " + pool_label(p) + " needs " +
                         jr::fmt_num(r.memory.total / units::GiB) + " GiB per device at its best layout, and has " +
                         jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB";
            return false;
        }
        pa.alone.push_back(r.tokens_per_second);
        TrainingConfig resolved = e.layout;
        if (!resolved.dp) resolved.dp = std::max<Count>(1, p.count / std::max<Count>(1, resolved.tp * resolved.pp * resolved.cp));
        pa.layouts.push_back(resolved);
    }
    return true;
}

// A pool's figures on its share of the batch (data parallel).
FleetPool share_pool(const Pool& p, const TrainingConfig& c, double b, double alone, const TrainingResult& r, Precision precision) {
    FleetPool fp;
    fp.pool = p;
    fp.layout = c;
    fp.batch_sequences = b;
    fp.step_seconds = r.step_seconds;
    fp.tokens_per_second_alone = alone;
    fp.memory_per_gpu_bytes = r.memory.total;
    fp.memory = r.memory;
    fp.outer_optimizer_bytes = r.memory.outer_optimizer;
    fp.memory_capacity_bytes = r.memory_capacity_bytes;
    fp.fits = r.fits;
    fp.peak_flops_per_second = static_cast<double>(p.count) * peak16(p.device, precision);
    return fp;
}

// Each pool's step on its share of the batch; the slowest sets the inner step. False if a share does not fit.
// A pool's share of the batch in whole multiples of its dp x micro_batch, the micro-batch lowered
// from the one the pool chose alone until the share comes within a tenth of its speed's (a 16 x RTX
// 4090 pool alone at micro-batch 6 had to take at least 96 sequences, 8.7 % of the batch for 5.2 %
// of the speed, and adding GPUs to it made the fleet 26 % slower; a red team). Sets c.micro_batch.
double pool_share(double target, TrainingConfig& c) {
    const double dp = static_cast<double>(*c.dp);
    double best = 0, best_off = 0;
    Count best_mb = c.micro_batch;
    for (Count mb = c.micro_batch; mb >= 1; --mb) {
        const double granule = dp * static_cast<double>(mb);
        const double b = std::max(granule, std::round(target / granule) * granule);
        const double off = std::abs(b - target) / std::max(1.0, target);
        if (best == 0 || off < best_off - 1e-12) best = b, best_off = off, best_mb = mb;
        if (off <= 0.1) break;  // the largest micro-batch within a tenth: the fastest kernels
    }
    c.micro_batch = best_mb;
    return best;
}

bool share_batch(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs, const PoolsAlone& pa,
                 ModeResult& out) {
    Trace none(false);
    // The fleet's batch: the scenario's, or ~4M tokens; each pool's share by speed (or device count),
    // in whole multiples of its dp x micro_batch.
    // Data parallel across the pools' sites: each site a DiLoCo worker (target_batch_tokens).
    const double sites = site_count(hw);
    const double B = static_cast<double>(
        cfg.global_batch.value_or(default_global_batch(m.seq_len, 1, target_batch_tokens(sites, sites, cfg.local_steps))));
    double weight_sum = 0;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) weight_sum += cfg.load_balance ? pa.alone[i] : static_cast<double>(hw.pools[i].count);
    double inner = 0, tokens = 0;
    std::size_t slowest = 0;
    bool fits = true;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        const Pool& p = hw.pools[i];
        const double w = (cfg.load_balance ? pa.alone[i] : static_cast<double>(p.count)) / weight_sum;
        TrainingConfig c = pa.layouts[i];
        const double b = pool_share(B * w, c);
        c.global_batch = static_cast<Count>(b);
        const Hardware h = pool_hardware(hw, p);
        const TrainingResult r = estimate_training(m, h, c, costs, none);
        fits = fits && r.fits;
        if (r.step_seconds > inner) inner = r.step_seconds, slowest = i, out.breakdown = r.step, out.dp_bytes = r.dp_comm_bytes_per_step;
        tokens += b * m.seq_len;
        out.pools.push_back(share_pool(p, c, b, pa.alone[i], r, cfg.precision));
    }
    out.inner = inner;
    out.tokens_per_step = tokens;
    out.slowest = pool_label(hw.pools[slowest]);
    return fits;
}

// Gradients (synchronous) or pseudo-gradients (local_steps > 1) of the whole model between pools.
void pool_exchange(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const std::vector<Site>& sites, ModeResult& out) {
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
}

// Data parallelism across the pools: each pool trains whole replicas on its share of the batch, and
// the pools exchange (pseudo-)gradients, every step or every local_steps.
ModeResult data_parallel(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs,
                         const std::vector<Site>& sites, AloneMemo& memo) {
    ModeResult out;
    PoolsAlone pa;
    if (!pools_alone(m, hw, cfg, costs, pa, out, memo)) return out;
    const bool fits = share_batch(m, hw, cfg, costs, pa, out);
    pool_exchange(m, hw, cfg, sites, out);
    const double H = static_cast<double>(cfg.local_steps);
    const double tau = std::min(H, static_cast<double>(cfg.outer_overlap_steps));
    out.exposed = std::max(0.0, out.exchange - tau * out.inner) / H;
    out.step = out.inner + out.exposed;
    out.ok = fits;
    if (!fits) out.reason = "a pool's share of the batch does not fit";
    return out;
}

// Bytes and time of one pipeline stage on a pool: a model of `stages` x `layers_per_stage` layers
// on `stages` stages, so that the slowest-stage step model sees this stage's layers, in-flight
// micro-batches and embedding (conservatively on every stage). `memory_only`: its memory, untimed.
StepEstimate stage_estimate(const StepInputs& in0, const Hardware& h, const TrainingConfig& base, double layers_per_stage, double stages,
                            Count tp, Count dp, Count mb, Count gb, Recompute rc, const Efficiency& eff, bool memory_only = false) {
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
    // The step model reads the device and the network levels of these tp x stages x dp devices.
    return estimate_step(in, h, c, eff, network_levels(h, tp * static_cast<Count>(stages) * dp), memory_only);
}

// Whether `t`-way tensor parallelism divides the attention heads (and the KV heads, or they it).
bool heads_ok(const ModelSpec& shape, Count t) {
    return divides(shape.heads, static_cast<double>(t)) &&
           (shape.is_mla() || divides(shape.kv_heads, static_cast<double>(t)) || divides(static_cast<double>(t), shape.kv_heads));
}

// Data-parallel sizes: the divisors of the pools' gcd (found up to its square root), at most 128.
std::vector<Count> pipeline_dps(const Hardware& hw) {
    Count g = 0;
    for (const Pool& p : hw.pools) g = std::gcd(g, p.count);
    std::vector<Count> dps{};
    for (Count d = 1; d * d <= g && dps.size() < 128; ++d)
        if (g % d == 0) {
            dps.push_back(d);
            if (d * d != g) dps.push_back(g / d);
        }
    std::sort(dps.begin(), dps.end());
    return dps;
}

// Stage estimates remembered by their arguments across one fleet estimate's pipeline searches: the
// order given and the site-grouped one, and each fleet without a pool, ask the same of a pool's stages
// again (an 8-pool fleet ran 18 searches, 37,100 stage estimates). `pool` is the pool's identity
// (fleet_pool_ids): pools of one catalog device, count and node size are one cluster to the step
// model (pool_hardware, training_efficiency), a custom device only ever itself. The model, the
// scenario's training section and the network are the estimate's own, the same in every search.
// What is kept is what the search reads: one layer's time (layer_time), the layers a stage holds in
// memory (stage_capacity), or a timed stage's micro-batch time, reduction and optimizer step, dp bytes
// and memory.
struct StageMemo {
    enum Kind : int { layer, memory, timed };
    struct Key {
        std::size_t pool;
        Kind kind;
        double layers, stages;
        Count tp, dp, mb, gb;
        Recompute rc;
    };
    struct Value {
        double a = 0, b = 0, c = 0, d = 0;
    };
    struct Slot {
        Key key;
        Value value;
        bool used = false;
    };
    StageMemo(bool remember, std::size_t pools) : on(remember), clusters(pools) {}
    bool on;  // FleetSearch::remember
    std::vector<Slot> slots;
    std::size_t filled = 0;
    // site_wan by the site's devices (it copies the fleet's hardware, every pool's device included:
    // 422 calls, 7 % of an 8-pool fleet's time).
    std::vector<std::pair<double, std::pair<double, double>>> site_wans;
    // Each pool (by identity) as a cluster of its own and its efficiencies, made once: a Hardware
    // holds a copy of the pool's device (pool_hardware), and every search made one per pool. Sized
    // to the fleet's pools once, so the addresses searches keep stay valid.
    std::vector<std::optional<std::pair<Hardware, Efficiency>>> clusters;
};

std::uint64_t bits_of(double x) {
    std::uint64_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

// Arguments equal bit for bit (the layers and stages too): the same estimate.
bool same_key(const StageMemo::Key& a, const StageMemo::Key& b) {
    return a.pool == b.pool && a.kind == b.kind && bits_of(a.layers) == bits_of(b.layers) && bits_of(a.stages) == bits_of(b.stages) &&
           a.tp == b.tp && a.dp == b.dp && a.mb == b.mb && a.gb == b.gb && a.rc == b.rc;
}

// Each field mixed in, then MurmurHash3's finalizer: the table's index is the hash's low bits, and
// the layers and stages (whole numbers as doubles) differ only in their high bits.
std::uint64_t key_hash(const StageMemo::Key& k) {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (const std::uint64_t x : {static_cast<std::uint64_t>(k.pool), static_cast<std::uint64_t>(k.kind), bits_of(k.layers),
                                  bits_of(k.stages), static_cast<std::uint64_t>(k.tp), static_cast<std::uint64_t>(k.dp),
                                  static_cast<std::uint64_t>(k.mb), static_cast<std::uint64_t>(k.gb), static_cast<std::uint64_t>(k.rc)})
        h = (h ^ x) * 0x100000001b3ULL + (h >> 29);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

// The slot of `k` in the table (open addressing, linear probing): its own, or the empty one it goes in.
StageMemo::Slot& memo_slot(StageMemo& memo, const StageMemo::Key& k) {
    const std::size_t mask = memo.slots.size() - 1;
    for (std::size_t j = key_hash(k) & mask;; j = (j + 1) & mask)
        if (!memo.slots[j].used || same_key(memo.slots[j].key, k)) return memo.slots[j];
}

// The value remembered for `k`, else compute() remembered (or only computed, when memo.on is false).
template <class F>
StageMemo::Value remembered(StageMemo& memo, const StageMemo::Key& k, F compute) {
    if (!memo.on) return compute();
    if (2 * (memo.filled + 1) > memo.slots.size()) {  // at most half full
        std::vector<StageMemo::Slot> old(std::max<std::size_t>(1024, 2 * memo.slots.size()));
        old.swap(memo.slots);
        for (const auto& e : old)
            if (e.used) memo_slot(memo, e.key) = e;
    }
    StageMemo::Slot& slot = memo_slot(memo, k);
    if (slot.used) return slot.value;
    const StageMemo::Value v = compute();
    slot = {k, v, true};
    ++memo.filled;
    return v;
}

// What one fleet estimate remembers across its searches, and each pool's identity there (fleet_pool_ids).
struct FleetMemo {
    AloneMemo alone;
    StageMemo stages;
    std::vector<std::size_t> ids;
};

// Each pool's identity in the StageMemo: the first pool of the same catalog device, count and node
// size (a custom device: itself).
std::vector<std::size_t> fleet_pool_ids(const Hardware& hw) {
    std::vector<std::size_t> ids(hw.pools.size());
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        ids[i] = i;
        for (std::size_t j = 0; j < i && ids[i] == i; ++j) {
            const Pool &a = hw.pools[j], &b = hw.pools[i];
            if (same_catalog_device(a.device, b.device) && a.count == b.count && a.devices_per_node == b.devices_per_node) ids[i] = j;
        }
    }
    return ids;
}

// site_wan(hw, devices), remembered: the fleet's network is the same in every search.
std::pair<double, double> remembered_site_wan(StageMemo& memo, const Hardware& hw, double devices) {
    if (!memo.on) return site_wan(hw, devices);
    for (const auto& e : memo.site_wans)
        if (bits_of(e.first) == bits_of(devices)) return e.second;
    memo.site_wans.emplace_back(devices, site_wan(hw, devices));
    return memo.site_wans.back().second;
}

// One pipeline candidate: data-parallel size, micro-batch and batch; then per pool its recomputation,
// tensor- and pipeline-parallel sizes, one layer's micro-batch time, layer capacity and layers.
struct PipeTry {
    Count dp, mb, gb;
    std::vector<Recompute> rc;
    std::vector<Count> tp, pp;
    std::vector<double> t_layer, cap, layers;
    double stages = 0;
};

// The stages of a candidate: the slowest stage's micro-batch time and estimate, the slowest pool's
// data-parallel reduction and optimizer step, whether every stage fits, each pool's figures.
// The pools' figures (stage_pool, which copies the pool's device) and the slowest stage's estimate
// are written only for the candidate kept (keep_if_faster: copying them for every candidate was a
// third of an 8-pool fleet's time).
struct Stages {
    double t_mb = 0, dp_opt = 0, dp_bytes = 0;  // dp_bytes: of the stage whose reduction and optimizer step are slowest
    std::size_t slowest = SIZE_MAX;             // the pool whose stage sets t_mb (none: every stage 0 s)
    bool fits = true;
};

// Pool p (identity `id`) as a cluster of its own, and its efficiencies: pool_hardware and
// training_efficiency of the pool's device, which read the fleet's network and the scenario's
// training section, the same in every search of one estimate.
const std::pair<Hardware, Efficiency>& pool_cluster(StageMemo& memo, const Hardware& hw, const TrainingConfig& cfg, std::size_t id,
                                                    const Pool& p) {
    auto& c = memo.clusters[id];
    if (!c) c.emplace(pool_hardware(hw, p), training_efficiency(cfg, p.device));
    return *c;
}

// What every pipeline candidate shares: the model's step inputs, each pool as a cluster, its efficiencies.
struct PipeSearch {
    const ModelSpec& m;
    const Hardware& hw;
    const TrainingConfig& cfg;
    const std::vector<Site>& sites;
    const TrainingModel& tm;
    const std::vector<std::size_t>& ids;  // each pool's identity in the memo
    StageMemo& memo;
    std::vector<const Hardware*> hs;  // each pool as a cluster of its own (StageMemo::cluster)
    std::vector<const Efficiency*> effs;
    // Per boundary between pool i and pool i + 1 in different sites: the WAN bandwidth and latency of
    // pool i's site (site_wan), the same for every candidate.
    std::vector<std::pair<double, double>> wan;
    // Per boundary: whether both pools are in one site, and then pool i's network between nodes
    // (scale_out, its latency: network_levels of pool i), the same for every candidate.
    std::vector<char> same_site;
    std::vector<std::pair<double, double>> lan;
    // One layer's micro-batch time by pool, tensor-parallel size (1, 2, 4, 8), micro-batch (1, 2, 4)
    // and recomputation (layer_time), 0 until computed: the candidates of every data-parallel size
    // share them. Other sizes in `other_layer_times`.
    mutable std::vector<double> layer_times;
    struct LayerTime {
        std::size_t pool;
        Count tp, mb;
        Recompute rc;
        double seconds;
    };
    mutable std::vector<LayerTime> other_layer_times;
    // The fastest candidate so far and its stages (keep_if_faster): its pools' figures and the slowest
    // stage's estimate are written once, when the search ends (kept_figures). `work`: the candidate
    // try_pipeline fills, its vectors reused.
    mutable PipeTry kept{}, work{};
    // The search's data-parallel sizes (ascending), and each pool's tensor-parallel size by pool,
    // data-parallel size, micro-batch and recomputation (choose_tp).
    std::vector<Count> dps{};
    struct TpChoice {
        Count tp = 1, pp = 1;
        double t_layer = 0;
        bool valid = false, done = false;
    };
    mutable std::vector<TpChoice> tp_choices{};
    mutable Stages kept_stages{};
    // heads_ok(tm.shape, t) for t = 1, 2, 4, 8, the tensor-parallel sizes the search tries, once (84,428
    // calls in an 8-pool fleet, 8 % of its time).
    bool heads[4] = {false, false, false, false};
    bool heads_split(Count t) const {
        return t == 1 ? heads[0] : t == 2 ? heads[1] : t == 4 ? heads[2] : t == 8 ? heads[3] : heads_ok(tm.shape, t);
    }
};

// The index of (pool i, t, mb, rc) in PipeSearch::layer_times, or SIZE_MAX for other sizes.
std::size_t layer_slot(std::size_t i, Count t, Count mb, Recompute rc) {
    const int tc = t == 1 ? 0 : t == 2 ? 1 : t == 4 ? 2 : t == 8 ? 3 : -1, mc = mb == 1 ? 0 : mb == 2 ? 1 : mb == 4 ? 2 : -1;
    if (tc < 0 || mc < 0) return SIZE_MAX;
    return ((i * 4 + static_cast<std::size_t>(tc)) * 3 + static_cast<std::size_t>(mc)) * 3 + static_cast<std::size_t>(rc);
}

// One layer's micro-batch time on pool i at tensor-parallel size t: a stage of two layers less a
// stage of one (the logits and the stage's sends cancel out), in a pipeline of two stages. Only the
// micro-batch's own terms enter it (compute, TP communication within the node, the sends that
// cancel), none of the data-parallel size or the batch (dp_comm and the bubble are per step), so it is
// computed once per pool, t, micro-batch and recomputation and shared by every candidate (checked
// while writing it: the fresh and shared times agreed within 4e-16 relative on the unit tests, the
// fixtures and 114 random fleets; golden outputs identical). `dp` and `gb`: the first candidate's.
double layer_time(const PipeSearch& s, std::size_t i, Count t, Count dp, Count mb, Count gb, Recompute rc) {
    const std::size_t slot = layer_slot(i, t, mb, rc);
    if (slot < s.layer_times.size() && s.layer_times[slot] > 0) return s.layer_times[slot];
    if (slot >= s.layer_times.size())
        for (const auto& e : s.other_layer_times)
            if (e.pool == i && e.tp == t && e.mb == mb && e.rc == rc) return e.seconds;
    const double seconds = remembered(s.memo, {s.ids[i], StageMemo::layer, 0, 0, t, dp, mb, gb, rc}, [&] {
                               const StepEstimate e1 = stage_estimate(s.tm.in, *s.hs[i], s.cfg, 1, 2, t, dp, mb, gb, rc, *s.effs[i]);
                               const StepEstimate e2 = stage_estimate(s.tm.in, *s.hs[i], s.cfg, 2, 2, t, dp, mb, gb, rc, *s.effs[i]);
                               return StageMemo::Value{std::max(1e-12, e2.microbatch_seconds - e1.microbatch_seconds)};
                           }).a;
    if (slot < s.layer_times.size())
        s.layer_times[slot] = seconds;
    else
        s.other_layer_times.push_back({i, t, mb, rc, seconds});
    return seconds;
}

// Each pool's tensor-parallel size: the fastest per layer among the node-sized ones. False if a pool has none.
// Pool i's fastest tensor-parallel size in candidate c (tp 1, pp 1 and no time when it has none).
PipeSearch::TpChoice pool_tp(const PipeSearch& s, const PipeTry& c, std::size_t i) {
    PipeSearch::TpChoice out;
    double best_rate = 0;
    const Count node = std::max<Count>(1, s.hs[i]->devices_per_node);
    for (Count t = 1; t <= std::min<Count>(8, node); t *= 2) {
        if (!s.heads_split(t) || s.hw.pools[i].count % (c.dp * t) != 0) continue;
        const Count p = s.hw.pools[i].count / (c.dp * t);
        const double per_layer = layer_time(s, i, t, c.dp, c.mb, c.gb, c.rc[i]);
        const double rate = static_cast<double>(p) / per_layer;
        if (rate > best_rate) best_rate = rate, out.tp = t, out.pp = p, out.t_layer = per_layer;
    }
    out.valid = best_rate > 0;
    return out;
}

// Each pool's tensor-parallel size (pool_tp), remembered in the search by pool, data-parallel size,
// micro-batch and recomputation: all it reads (the batch follows from the data-parallel size and the
// micro-batch in one search), and the per_pool_recompute moves change one device type's at a time.
bool choose_tp(const PipeSearch& s, PipeTry& c) {
    bool ok = true;
    const auto d = std::lower_bound(s.dps.begin(), s.dps.end(), c.dp);
    const int mc = c.mb == 1 ? 0 : c.mb == 2 ? 1 : c.mb == 4 ? 2 : -1;
    const bool slotted = d != s.dps.end() && *d == c.dp && mc >= 0;
    for (std::size_t i = 0; i < s.hw.pools.size() && ok; ++i) {
        const std::size_t slot =
            slotted ? ((static_cast<std::size_t>(d - s.dps.begin()) * s.hw.pools.size() + i) * 3 + static_cast<std::size_t>(mc)) * 3 +
                          static_cast<std::size_t>(c.rc[i])
                    : SIZE_MAX;
        PipeSearch::TpChoice e;
        if (slot < s.tp_choices.size() && s.tp_choices[slot].done)
            e = s.tp_choices[slot];
        else {
            e = pool_tp(s, c, i);
            e.done = true;
            if (slot < s.tp_choices.size()) s.tp_choices[slot] = e;
        }
        c.tp[i] = e.tp, c.pp[i] = e.pp, c.t_layer[i] = e.t_layer;
        ok = e.valid;
        c.stages += static_cast<double>(c.pp[i]);
    }
    return ok;
}

// The fewest stages a candidate of data-parallel size `dp` can have (each pool at the largest
// tensor-parallel size choose_tp may pick), or 0 if a pool has none: whatever choose_tp picks has at
// least these, so the candidates of this dp are dropped untimed when they exceed the layers.
double fewest_stages(const PipeSearch& s, Count dp) {
    double stages = 0;
    for (std::size_t i = 0; i < s.hw.pools.size(); ++i) {
        Count fewest = 0;
        const Count node = std::max<Count>(1, s.hs[i]->devices_per_node);
        for (Count t = 1; t <= std::min<Count>(8, node); t *= 2)
            if (s.heads_split(t) && s.hw.pools[i].count % (dp * t) == 0) fewest = s.hw.pools[i].count / (dp * t);
        if (fewest == 0) return 0;
        stages += static_cast<double>(fewest);
    }
    return stages;
}

// The memory total of a stage of `layers` layers on pool i (memory_only), remembered.
double stage_memory(const PipeSearch& s, const PipeTry& c, std::size_t i, double layers) {
    return stage_estimate(s.tm.in, *s.hs[i], s.cfg, layers, c.stages, c.tp[i], c.dp, c.mb, c.gb, c.rc[i], *s.effs[i], true).memory.total;
}

// The layers one stage of pool i holds within its memory (from a stage of one layer and one of two),
// remembered.
double stage_capacity(const PipeSearch& s, const PipeTry& c, std::size_t i) {
    return remembered(s.memo, {s.ids[i], StageMemo::memory, 0, c.stages, c.tp[i], c.dp, c.mb, c.gb, c.rc[i]},
                      [&] {
                          const double cap_bytes = s.hw.pools[i].device.usable_memory_bytes().value_or(0);
                          const double m1 = stage_memory(s, c, i, 1), m2 = stage_memory(s, c, i, 2);
                          const double per_layer = m2 - m1;
                          return StageMemo::Value{per_layer > 0 ? std::floor(1.0 + (cap_bytes - m1) / per_layer) : s.tm.in.layers};
                      })
        .a;
}

// The layers each pool's memory holds on its stages; returns the pools' summed speed (stages per layer time).
double layer_caps(const PipeSearch& s, PipeTry& c) {
    double rate_sum = 0;
    for (std::size_t i = 0; i < s.hw.pools.size(); ++i) {
        const double per_stage = stage_capacity(s, c, i);
        c.cap[i] = std::max(0.0, per_stage) * static_cast<double>(c.pp[i]);
        rate_sum += static_cast<double>(c.pp[i]) / c.t_layer[i];
    }
    return rate_sum;
}

// Layers in proportion to speed, pools over their capacity capped at it (repeatedly), at least one
// per stage; returns the layers assigned.
double spread_layers(const PipeSearch& s, PipeTry& c, double rate_sum) {
    const std::size_t k = s.hw.pools.size();
    const double L = s.tm.in.layers;
    double left = L, free_rate = rate_sum;
    std::vector<bool> fixed(k, false);
    for (int round = 0; round < 64 && left > 0; ++round) {
        bool capped = false;
        for (std::size_t i = 0; i < k; ++i) {
            if (fixed[i]) continue;
            const double want = left * (static_cast<double>(c.pp[i]) / c.t_layer[i]) / free_rate;
            if (want > c.cap[i]) c.layers[i] = c.cap[i], fixed[i] = true, capped = true;
        }
        if (!capped) break;
        left = L, free_rate = 0;
        for (std::size_t i = 0; i < k; ++i) (fixed[i] ? left -= c.layers[i] : free_rate += static_cast<double>(c.pp[i]) / c.t_layer[i]);
        if (free_rate <= 0) break;
    }
    double assigned = 0;
    for (std::size_t i = 0; i < k; ++i) {
        if (!fixed[i]) c.layers[i] = free_rate > 0 ? std::floor(left * (static_cast<double>(c.pp[i]) / c.t_layer[i]) / free_rate) : 0;
        c.layers[i] = std::max(c.layers[i], static_cast<double>(c.pp[i]));
        assigned += c.layers[i];
    }
    return assigned;
}

// Brings the layers assigned to exactly the model's; false if the pools cannot hold them.
bool round_layers(const PipeSearch& s, PipeTry& c, double assigned) {
    const std::size_t k = s.hw.pools.size();
    const double L = s.tm.in.layers;
    // Rounding: the remaining layers go to the pools with room, fastest per layer first.
    for (int guard = 0; guard < 100000 && assigned < L; ++guard) {
        std::size_t pick = k;
        double best_t = 1e300;
        for (std::size_t i = 0; i < k; ++i) {
            const double t_stage = std::ceil((c.layers[i] + 1.0) / static_cast<double>(c.pp[i])) * c.t_layer[i];
            if (c.layers[i] + 1.0 <= c.cap[i] && t_stage < best_t) best_t = t_stage, pick = i;
        }
        if (pick == k) break;
        c.layers[pick] += 1.0, assigned += 1.0;
    }
    for (std::size_t i = 0; i < k && assigned > L; ++i)
        while (assigned > L && c.layers[i] > static_cast<double>(c.pp[i])) c.layers[i] -= 1.0, assigned -= 1.0;
    return assigned == L;
}

// Pool i's stage in candidate c: its share of the layers over its stages.
StepEstimate timed_stage(const PipeSearch& s, const PipeTry& c, std::size_t i) {
    const double ls = std::ceil(c.layers[i] / static_cast<double>(c.pp[i]));
    return stage_estimate(s.tm.in, *s.hs[i], s.cfg, ls, c.stages, c.tp[i], c.dp, c.mb, c.gb, c.rc[i], *s.effs[i]);
}

// Pool i's figures as stages of the pipeline (e: its stage's estimate).
FleetPool stage_pool(const PipeSearch& s, const PipeTry& c, std::size_t i, const StepEstimate& e) {
    const double capb = s.hw.pools[i].device.usable_memory_bytes().value_or(0);
    FleetPool fp;
    fp.pool = s.hw.pools[i];
    fp.layout = s.cfg;
    fp.layout.tp = c.tp[i], fp.layout.pp = c.pp[i], fp.layout.dp = c.dp, fp.layout.micro_batch = c.mb, fp.layout.global_batch = c.gb;
    fp.layout.zero = 1, fp.layout.recompute = c.rc[i], fp.layout.sequence_parallel = c.tp[i] > 1, fp.layout.vpp = 1;
    fp.layers = c.layers[i];
    fp.step_seconds = e.microbatch_seconds;
    fp.memory_per_gpu_bytes = e.memory.total;
    fp.memory = e.memory;
    fp.memory_capacity_bytes = capb;
    fp.fits = e.memory.total <= capb;
    fp.peak_flops_per_second = static_cast<double>(s.hw.pools[i].count) * peak16(s.hw.pools[i].device, s.cfg.precision);
    return fp;
}

// The pipeline: every micro-batch through every stage; the slowest stage sets the pace.
Stages run_stages(const PipeSearch& s, const PipeTry& c) {
    Stages st;
    for (std::size_t i = 0; i < s.hw.pools.size(); ++i) {
        const double ls = std::ceil(c.layers[i] / static_cast<double>(c.pp[i]));
        // a: the micro-batch's time, b: reduction + optimizer step, c: dp bytes, d: memory total.
        const StageMemo::Value e = remembered(s.memo, {s.ids[i], StageMemo::timed, ls, c.stages, c.tp[i], c.dp, c.mb, c.gb, c.rc[i]}, [&] {
            const StepEstimate x = timed_stage(s, c, i);
            return StageMemo::Value{x.microbatch_seconds, x.step.dp_comm + x.step.optimizer, x.dp_bytes, x.memory.total};
        });
        if (e.a > st.t_mb) st.t_mb = e.a, st.slowest = i;
        if (e.b > st.dp_opt) st.dp_opt = e.b, st.dp_bytes = e.c;
        st.fits = st.fits && e.d <= s.hw.pools[i].device.usable_memory_bytes().value_or(0);
    }
    return st;
}

// The sends between pools: the most exposed per micro-batch, the pipeline's fill, the largest send
// over the WAN and the throughput the WAN bounds.
struct Boundaries {
    double exposed_mb = 0, fill = 0, wan_bytes = 0, bound = 0;
};

// Devices of the site named `name`.
double site_devices(const std::vector<Site>& sites, const std::string& name) {
    double dev = 0;
    for (const Site& s : sites)
        if (s.name == name) dev = s.devices;
    return dev;
}

// Boundaries between pools: over the site network (same site) or the WAN (different sites).
Boundaries pool_boundaries(const PipeSearch& s, const PipeTry& c, double t_mb) {
    const StepInputs& in = s.tm.in;
    const Hardware& hw = s.hw;
    Boundaries b;
    for (std::size_t i = 0; i + 1 < hw.pools.size(); ++i) {
        const double bytes = 2.0 * static_cast<double>(c.mb) * in.seq * in.hidden / static_cast<double>(c.tp[i] > 1 ? c.tp[i] : 1);
        double x = 0, lat = 0;
        const double net_eff = s.effs[i]->gen.network;
        if (s.same_site[i]) {
            const auto [scale_out, scale_out_latency] = s.lan[i];
            x = bytes / (scale_out * net_eff);
            lat = std::max(s.effs[i]->gen.collective_latency_seconds, scale_out_latency);
        } else {
            const auto [bw, l] = s.wan[i];
            const double senders = static_cast<double>(c.tp[i] * c.dp);
            x = bytes / (bw * net_eff / senders);
            lat = l;
            b.wan_bytes = std::max(b.wan_bytes, bytes);
            const double bd = static_cast<double>(c.dp * c.mb) * in.seq / x;
            b.bound = b.bound > 0 ? std::min(b.bound, bd) : bd;
        }
        b.exposed_mb = std::max(b.exposed_mb, x - t_mb);
        b.fill += 2.0 * (x + lat);
    }
    return b;
}

// The candidate's step (its micro-batches through the slowest stage, the sends between pools, the
// data-parallel reduction); it replaces `best` if faster.
// Returns the candidate's tokens per second.
double keep_if_faster(const PipeSearch& s, const PipeTry& c, const Stages& st, const Boundaries& b, ModeResult& best) {
    const double m_count = static_cast<double>(c.gb / (c.dp * c.mb));
    const double pp_wan = m_count * std::max(0.0, b.exposed_mb) + b.fill;
    const double step = (m_count + c.stages - 1.0) * st.t_mb + pp_wan + st.dp_opt;
    const double tokens = static_cast<double>(c.gb) * s.m.seq_len;
    if (!(tokens / step > mode_rate(best))) return tokens / step;
    best.ok = true;
    best.step = step;
    best.inner = step;
    best.tokens_per_step = tokens;
    best.dp = static_cast<double>(c.dp);
    best.pp_wan = pp_wan;
    best.pp_wan_bytes = b.wan_bytes;
    best.pp_bound = b.bound;
    best.dp_bytes = st.dp_bytes;
    s.kept = c, s.kept_stages = st;
    return tokens / step;
}

// The kept candidate's pools' figures and its step by cause: the slowest stage's micro-batches by
// cause, the pipeline's bubble and sends between pools, and the slowest pool's data-parallel
// reduction and optimizer step.
void kept_figures(const PipeSearch& s, ModeResult& best) {
    if (!best.ok) return;
    const PipeTry& c = s.kept;
    const Stages& st = s.kept_stages;
    best.pools.clear();
    StepTime slowest;
    for (std::size_t i = 0; i < s.hw.pools.size(); ++i) {
        const StepEstimate e = timed_stage(s, c, i);  // as run_stages had it
        if (i == st.slowest) slowest = e.step;
        best.pools.push_back(stage_pool(s, c, i, e));
    }
    best.breakdown = slowest;
    best.breakdown.pp_bubble = (c.stages - 1.0) * st.t_mb;
    best.breakdown.pp_comm += best.pp_wan;
    best.breakdown.dp_comm = st.dp_opt;
    best.breakdown.optimizer = 0;
    best.breakdown.total = best.step;
}

// A candidate's tokens per second (kept in `best` if faster), or 0 when it has no valid tensor-parallel
// size in a pool, more stages than layers, layers the pools cannot hold, or a stage that does not fit.
double try_pipeline(const PipeSearch& s, const PipeTry& candidate, ModeResult& best) {
    const std::size_t k = s.hw.pools.size();
    PipeTry& c = s.work;
    c.dp = candidate.dp, c.mb = candidate.mb, c.gb = candidate.gb, c.rc = candidate.rc;
    c.tp.assign(k, 1), c.pp.assign(k, 1), c.t_layer.assign(k, 0), c.cap.assign(k, 0), c.layers.assign(k, 0), c.stages = 0;
    if (!choose_tp(s, c) || c.stages > s.tm.in.layers) return 0;
    // Layers by speed (stage time balanced), at least one per stage, within each pool's memory.
    const double rate_sum = layer_caps(s, c);
    if (!round_layers(s, c, spread_layers(s, c, rate_sum))) return 0;
    const Stages st = run_stages(s, c);
    if (!st.fits) return 0;
    return keep_if_faster(s, c, st, pool_boundaries(s, c, st.t_mb), best);
}

// Each device type's own recomputation, from a candidate that recomputes alike on every pool: one
// device type's pools at one recomputation at a time, kept when the pipeline is no slower (the
// slowest stage sets the pace, so lighter recomputation on one of two slow pools gains only once the
// other has it too), three rounds at most. Devices differ in memory: full recomputation on the pools
// that need it to hold their layers had been forced on every pool (RTX 4090 pools beside L40S ran at
// 0.86x the fleet without one of them). By device type, not pool: k pools cost k^2 stage estimates a
// move (64 pools took 0.2 s).
void per_pool_recompute(const PipeSearch& s, PipeTry c, double rate, const std::vector<Recompute>& recomputes, ModeResult& best) {
    // Each pool's type: the first pool of its catalog device (a custom device is a type of its own).
    const std::size_t k = s.hw.pools.size();
    std::vector<std::size_t> type(k);
    for (std::size_t i = 0; i < k; ++i) {
        type[i] = i;
        for (std::size_t j = 0; j < i && type[i] == i; ++j)
            if (same_catalog_device(s.hw.pools[j].device, s.hw.pools[i].device)) type[i] = j;
    }
    for (int round = 0; round < 3; ++round) {
        bool moved = false;
        for (std::size_t first = 0; first < k; ++first) {
            if (type[first] != first) continue;  // not the first pool of its type
            for (Recompute rc : recomputes) {
                PipeTry t = c;
                bool changed = false, lighter = true;
                for (std::size_t i = 0; i < k; ++i)
                    if (type[i] == first && t.rc[i] != rc) lighter = lighter && rc < t.rc[i], t.rc[i] = rc, changed = true;
                if (!changed) continue;
                const double r = try_pipeline(s, t, best);
                // Ties move towards less recomputation only (none before selective before full), so no round undoes another's move.
                if (r > rate || (r == rate && r > 0 && lighter)) rate = r, c = t, moved = true;
            }
        }
        if (!moved) return;
    }
}

// The figures of the boundaries between pools that every candidate reads (PipeSearch::wan, lan).
void pipe_boundaries(PipeSearch& s, StageMemo& memo) {
    const Hardware& hw = s.hw;
    for (std::size_t i = 0; i + 1 < hw.pools.size(); ++i) {
        const bool same = hw.pools[i].site == hw.pools[i + 1].site;
        s.same_site.push_back(same);
        s.wan.push_back(same ? std::pair<double, double>{0, 0} : remembered_site_wan(memo, hw, site_devices(s.sites, hw.pools[i].site)));
        const NetworkLevels n = same ? network_levels(*s.hs[i]) : NetworkLevels{};
        s.lan.emplace_back(n.scale_out, n.scale_out_latency);
    }
}

// One pipeline through the pools in the order given: over data-parallel sizes, micro-batches and
// recomputation, each pool's stages and layers balanced by speed within memory; the fastest that fits.
ModeResult pipeline_in_order(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const std::vector<Site>& sites,
                             const std::vector<std::size_t>& ids, StageMemo& memo) {
    ModeResult best;
    best.reason = "no pipeline layout fits";
    const TrainingModel tm = training_model(m);
    const std::size_t k = hw.pools.size();
    const std::vector<Count> dps = pipeline_dps(hw);
    PipeSearch s{m, hw, cfg, sites, tm, ids, memo, {}, {}, {}, {}, {}, std::vector<double>(k * 4 * 3 * 3, 0.0), {}};
    for (std::size_t i = 0; i < k; ++i) {
        const auto& [h, eff] = pool_cluster(memo, hw, cfg, ids[i], hw.pools[i]);
        s.hs.push_back(&h), s.effs.push_back(&eff);
    }
    for (std::size_t j = 0; j < 4; ++j) s.heads[j] = heads_ok(tm.shape, Count{1} << j);
    s.dps = dps, s.tp_choices.assign(dps.size() * k * 3 * 3, {});
    pipe_boundaries(s, memo);
    // One pipeline through the pools: one replica, one DiLoCo worker.
    const double B =
        static_cast<double>(cfg.global_batch.value_or(default_global_batch(m.seq_len, 1, target_batch_tokens(1, 1, cfg.local_steps))));
    // The recomputation given, or each: none first (Megatron-Core's selective repeats the attention
    // and saves no memory with fused attention; it did not try none, red-team), then selective, full.
    const std::vector<Recompute> recomputes = training_field_given(cfg, "recompute")
                                                  ? std::vector<Recompute>{cfg.recompute}
                                                  : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full};
    // Candidates that recompute alike on every pool, the fastest of each data-parallel size and micro-batch.
    std::vector<std::pair<double, PipeTry>> uniform;
    for (Count dp : dps) {
        // Every candidate of this dp has no valid tensor-parallel size in a pool, or more stages than layers.
        const double fewest = fewest_stages(s, dp);
        if (fewest == 0 || fewest > tm.in.layers) continue;
        for (Count mb : {1, 2, 4}) {
            const Count gb = std::max<Count>(dp * mb, static_cast<Count>(std::round(B / static_cast<double>(dp * mb))) * dp * mb);
            std::pair<double, PipeTry> fastest{0.0, PipeTry{dp, mb, gb, {}, {}, {}, {}, {}, {}, 0}};
            for (Recompute rc : recomputes) {
                PipeTry c{dp, mb, gb, std::vector<Recompute>(k, rc), {}, {}, {}, {}, {}, 0};
                const double r = try_pipeline(s, c, best);
                if (r > fastest.first) fastest = {r, c};
            }
            if (fastest.first > 0) uniform.push_back(fastest);
        }
    }
    // Each device type its own recomputation, from the two fastest (descending from every candidate
    // had 64 pools take 0.2 s natively; from the fastest alone, 16 H100 + 64 MI300X + 16 RTX 4090 over
    // a 10 Gb/s WAN lost 2.4 %; from two, in wasm: 3 pools 2-4 ms, 12 pools 5.6 ms, against 1-2 before).
    if (recomputes.size() >= 2 && k >= 2) {
        std::sort(uniform.begin(), uniform.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (std::size_t i = 0; i < std::min<std::size_t>(2, uniform.size()); ++i)
            per_pool_recompute(s, uniform[i].second, uniform[i].first, recomputes, best);
    }
    kept_figures(s, best);
    return best;
}

// The pools with each site's together, the sites in the order they first appear, the pools of a site
// in the order given: a pipeline crosses each site boundary once.
std::vector<std::size_t> site_grouped_order(const Hardware& hw) {
    std::vector<std::size_t> order;
    std::vector<bool> placed(hw.pools.size(), false);
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        if (placed[i]) continue;  // its site's pools are placed
        for (std::size_t j = i; j < hw.pools.size(); ++j)
            if (hw.pools[j].site == hw.pools[i].site) placed[j] = true, order.push_back(j);
    }
    return order;
}

// One pipeline through the pools: in the order given, and with each site's pools together when the
// order given crosses between sites more often (a red team: 16 H100 in site a, 64 MI300X and 16 RTX
// 4090 in b, and 16 more H100 in a, crossed the WAN twice and ran at 0.86x the fleet without the
// second H100 pool); the faster. Its pools' figures in the order given, the stages' order in `order`.
ModeResult pipeline(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const std::vector<Site>& sites,
                    const std::vector<std::size_t>& ids, StageMemo& memo) {
    ModeResult best = pipeline_in_order(m, hw, cfg, sites, ids, memo);
    std::vector<std::size_t> given(hw.pools.size());
    for (std::size_t i = 0; i < given.size(); ++i) given[i] = i;
    if (best.ok) best.order = given;  // no order when no pipeline fits
    const std::vector<std::size_t> grouped = site_grouped_order(hw);
    if (grouped == given) return best;
    Hardware h = hw;
    std::vector<std::size_t> grouped_ids(ids.size());
    for (std::size_t j = 0; j < grouped.size(); ++j) h.pools[j] = hw.pools[grouped[j]], grouped_ids[j] = ids[grouped[j]];
    ModeResult r = pipeline_in_order(m, h, cfg, sites, grouped_ids, memo);
    if (!(mode_rate(r) > mode_rate(best))) return best;
    std::vector<FleetPool> pools(r.pools.size());
    for (std::size_t j = 0; j < r.pools.size(); ++j) pools[grouped[j]] = r.pools[j];
    r.pools = pools;
    r.order = grouped;
    return r;
}

// Why the other mode was not chosen: its own reason, or its throughput against the chosen one's.
std::string why_not_other(bool use_dp, const ModeResult& r, const ModeResult& other) {
    return !other.ok ? other.reason
                     : (use_dp ? "one pipeline through the pools reaches " : "data parallel across pools reaches ") +
                           jr::fmt_num(mode_rate(other)) + " tokens/s, against " + jr::fmt_num(mode_rate(r));
}

// The model's figures of the run: parameters, tokens and FLOPs.
void fleet_model_figures(const ModelSpec& m, const TrainingConfig& cfg, const Efficiency& eff0, TrainingResult& t) {
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
}

// The fleet's devices, their mean peak and the goodput (of the devices and the parameters: a fleet
// that trains nothing has it too, as one device type that does not fit); returns the summed peak.
double fleet_devices(const Hardware& hw, const TrainingConfig& cfg, TrainingResult& t) {
    double devices = 0, peak = 0;
    for (const Pool& p : hw.pools)
        devices += static_cast<double>(p.count), peak += static_cast<double>(p.count) * peak16(p.device, cfg.precision);
    t.devices = devices;
    t.peak_flops_per_second = devices > 0 ? peak / devices : 0;
    t.goodput = run_goodput(devices, t.params_total, cfg.goodput);
    return peak;
}

// Neither mode trains the model: both reasons, and the fullest pool's memory, part by part.
void fleet_infeasible(const ModeResult& dpm, const ModeResult& ppm, const ModeResult& r, TrainingResult& t) {
    t.fits = false;
    t.infeasible_reason = "the mixed fleet cannot train this model: " + dpm.reason + "; " + ppm.reason;
    for (const auto& fp : r.pools)
        if (fp.memory_per_gpu_bytes > t.memory.total) t.memory = fp.memory;
}

// The fleet's memory per device: the fullest pool's (relative to its capacity), part by part, its outer
// state included (the parts were 0 beside their total: a red team; each pool's own are in pools[]).
void fleet_memory(const ModeResult& r, TrainingResult& t) {
    double worst_ratio = -1;
    for (const auto& fp : r.pools) {
        const double ratio = fp.memory_capacity_bytes > 0 ? fp.memory_per_gpu_bytes / fp.memory_capacity_bytes : 1e9;
        if (ratio > worst_ratio) worst_ratio = ratio, t.memory = fp.memory, t.memory_capacity_bytes = fp.memory_capacity_bytes;
    }
    t.fits = t.memory.total <= t.memory_capacity_bytes;
}

// The fleet's step, throughput and utilisation (or the throughput at a given MFU).
void fleet_throughput(const ModeResult& r, const TrainingConfig& cfg, double devices, double peak, TrainingResult& t) {
    t.step = r.breakdown;
    t.step.outer_comm = cfg.local_steps > 1 ? r.exposed : 0.0;
    if (cfg.local_steps == 1) t.step.dp_comm += r.exposed;
    // Inside the pools; the exchange between pools and sites is under wan (bytes per site).
    t.dp_comm_bytes_per_step = r.dp_bytes;
    t.step.total = r.step;
    t.step_seconds = r.step;
    t.tokens_per_step = r.tokens_per_step;
    t.tokens_per_second = r.tokens_per_step / r.step;
    t.mfu = peak > 0 ? t.model_flops_per_token * t.tokens_per_second / peak : 0;
    t.mfu_predicted = t.mfu;
    if (cfg.mfu) {
        t.mfu_given = true;
        t.mfu = *cfg.mfu;
        t.tokens_per_second = t.mfu * peak / t.model_flops_per_token;
        t.step_seconds = t.tokens_per_step / t.tokens_per_second;
    }
    // From the throughput in force (the given MFU's, when there is one).
    t.hfu = t.mfu;
    t.achieved_flops_per_second_per_gpu = t.model_flops_per_token * t.tokens_per_second / devices;
}

// The traffic between sites and pools of the chosen mode.
void fleet_wan(const ModeResult& r, bool use_dp, double sites, TrainingResult& t) {
    t.wan.sites_dp = use_dp ? sites : 1;
    t.wan.sites_pp = use_dp ? 1 : sites;
    t.wan.exchange_seconds = r.exchange;
    t.wan.exchange_bytes_per_site = r.exchange_bytes;
    t.wan.sync_bytes_per_site_per_step = r.sync_bytes;
    t.wan.bytes_per_site_per_step = r.moved_per_step;
    t.wan.exchange_exposed_seconds = r.exposed;
    t.wan.pp_seconds = r.pp_wan;
    t.wan.pp_bytes_per_microbatch = r.pp_wan_bytes;
    t.wan.pp_bound_tokens_per_second = r.pp_bound;
    t.wan.inner_step_seconds = r.inner;
}

// Factors of the MFU band (low, high) applied to the run's time and cost.
struct Band {
    double lo, hi;
};

// The MFU band of the fleet and its basis.
Band fleet_band(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Efficiency& eff0, TrainingResult& t) {
    if (t.mfu_given) {
        t.band_basis = "MFU given: no model uncertainty";
        return {1.0, 1.0};
    }
    // Calibrated only if every pool's generation and the framework are.
    const Calibration& cal = calibration();
    std::vector<std::string> reasons;
    for (const Pool& p : hw.pools) {
        const Efficiency e = training_efficiency(cfg, p.device);
        if (e.fallback_used || !listed(cal.calibrated_generations, e.gen.id) || !listed(cal.calibrated_frameworks, eff0.fw.id)) {
            reasons.push_back(e.gen.name + " with " + eff0.fw.name + " (a pool) has no calibration runs");
            break;
        }
    }
    BandScope scope = band_scope(m, hw, cfg);
    if (!t.convergence) scope.local_steps = 1;  // one pipeline through the pools: no DiLoCo
    const std::vector<std::string> more = extrapolations(cal.band, scope);
    reasons.insert(reasons.end(), more.begin(), more.end());
    ThroughputBand b = widened_band(cal.band, m.is_moe(), reasons);
    // The fleet's MFU is against the pools' peaks together: its ceiling is the pools' ceilings weighted
    // by their peaks (none if a pool's generation has no measurement).
    double weighted = 0, peaks = 0;
    bool measured = true;
    for (const Pool& p : hw.pools) {
        const std::optional<double> c = matmul_ceiling(training_efficiency(cfg, p.device).gen, p.device, cfg.precision);
        const double peak = peak16(p.device, cfg.precision) * static_cast<double>(p.count);
        measured = measured && c.has_value();
        weighted += c.value_or(0) * peak, peaks += peak;
    }
    if (measured && peaks > 0 && t.fits && t.hardware_flops_per_token > 0)
        cap_band(b, t.mfu, weighted / peaks * t.model_flops_per_token / t.hardware_flops_per_token, weighted / peaks,
                 hw.pools.size() == 1 ? hw.pools[0].device.name : "the fleet's devices (weighted by their peaks)");
    t.band_basis = b.basis;
    t.band_widened = b.widened;
    t.mfu_low = t.mfu * b.lo, t.mfu_high = t.mfu * b.hi;
    return {b.lo, b.hi};
}

// GPU-hours, energy and cost of the run summed over the pools: each sum known only when every pool's
// is (run_cost: no TDP, no price, no $/GPU-hour), with the warnings naming what is missing.
struct PoolTotals {
    double gpu_hours = 0, cost = 0, energy = 0;
    bool priced = true, powered = true;
    std::vector<std::string> missing;
    std::vector<std::pair<std::string, double>> energy_values;  // each pool's GPU-hours and TDP (the energy's derivation)
};

// The pools' GPU-hours, energy and cost for a run of `seconds` (owned: amortised price and power; else the hourly rate).
PoolTotals pool_totals(const Hardware& hw, const Costs& costs, double seconds) {
    PoolTotals s;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        const Pool& p = hw.pools[i];
        const double h = static_cast<double>(p.count) * seconds / units::seconds_per_hour;
        const std::string pool = "hardware.pools[" + std::to_string(i) + "]", path = pool + ".device";
        // The pool's own rent where it gives one (a price for one pool had to be costs.gpu_hour_usd,
        // which reprices every pool).
        const Costs c = pool_costs(costs, p, i);
        const HourlyRate rate = device_hour_cost(p.device, c, path);
        const RunCost rc = run_cost(p.device, c, rate, h, path);
        s.gpu_hours += h;
        s.energy += rc.energy_kwh.value_or(0);
        const std::string key = "pools[" + std::to_string(i) + "]";
        s.energy_values.emplace_back(key + ".gpu_hours", h);
        s.energy_values.emplace_back(key + ".tdp_watts", p.device.tdp_watts.value_or(0));
        s.cost += rc.cost_usd.value_or(0);
        s.powered = s.powered && rc.energy_kwh.has_value();
        s.priced = s.priced && rc.cost_usd.has_value();
        for (const std::string& m : rc.missing)
            if (std::find(s.missing.begin(), s.missing.end(), m) == s.missing.end()) s.missing.push_back(m);
    }
    return s;
}

// Derivations of the fleet's energy (pool_totals: each pool's GPU-hours at its TDP) and CO2.
GPUCALC_COLD void explain_fleet_energy(const PoolTotals& s, const Costs& costs, const TrainingResult& t, Trace& trace) {
    if (!t.energy_kwh || !t.co2_kg) return;
    std::vector<std::pair<std::string, double>> v = s.energy_values;
    v.emplace_back("pue", costs.pue);
    trace.add_list("training.energy_kwh", "sum over pools of gpu_hours x tdp_watts / 1000 x pue", std::move(v), *t.energy_kwh, "kWh",
                   "each pool's devices at their TDP (catalog); convention of LLaMA (arXiv:2302.13971) Sec. 6 and BLOOM");
    trace.add("training.co2_kg", "energy_kwh x grid intensity",
              {{"energy_kwh", *t.energy_kwh}, {"grid_kg_co2_per_kwh", costs.grid_kg_co2_per_kwh}}, *t.co2_kg, "kg CO2e",
              "LLaMA Sec. 6 (0.385 kg/kWh US average)");
}

// The run's time, GPU-hours, energy, CO2 and cost (with their band), when training.tokens is given.
void fleet_run_totals(const Hardware& hw, const Costs& costs, const Band& band, TrainingResult& t, Trace& trace) {
    if (t.tokens > 0 && t.tokens_per_second > 0) {
        const double seconds = t.tokens / t.tokens_per_second / t.goodput.value;
        const PoolTotals s = pool_totals(hw, costs, seconds);
        t.seconds = seconds;
        t.gpu_hours = s.gpu_hours;
        if (s.powered) t.energy_kwh = s.energy, t.co2_kg = s.energy * costs.grid_kg_co2_per_kwh;
        t.seconds_low = seconds / band.hi;
        t.seconds_high = seconds / band.lo;
        if (s.priced) t.gpu_hour_usd = s.gpu_hours > 0 ? s.cost / s.gpu_hours : 0;
        if (s.priced) t.cost_usd = s.cost, t.cost_usd_low = s.cost / band.hi, t.cost_usd_high = s.cost / band.lo;
        t.warnings.insert(t.warnings.end(), s.missing.begin(), s.missing.end());
        if (trace.enabled()) explain_fleet_energy(s, costs, t, trace);
    } else if (t.tokens <= 0) {
        t.warnings.push_back("no training.tokens: the run's time, GPU-hours, cost and energy need it");
    }
}

// The derivation of the fleet's step in the chosen mode.
void explain_fleet_step(const ModeResult& r, bool use_dp, const TrainingConfig& cfg, const Hardware& hw, double sites, Trace& trace) {
    trace.add("training.step_seconds",
              use_dp ? "max over pools (pool step on its share of the batch) + exposed exchange between pools / local_steps"
                     : "(micro-batches + stages - 1) x slowest stage's micro-batch + sends between pools + data-parallel reduction",
              {{"inner_step_seconds", r.inner},
               {"exchange_seconds", r.exchange},
               {"local_steps", static_cast<double>(cfg.local_steps)},
               {"pools", static_cast<double>(hw.pools.size())},
               {"sites", sites}},
              r.step, "s",
              use_dp
                  ? "synchronous data parallelism: the slowest member sets the step; shares of the batch by measured speed (load balancing)"
                  : "1F1B pipeline (Narayanan et al. 2021) with stages balanced by speed within memory (HetPipe, Park et al. 2020)");
}

// Derivations of the fleet's throughput, MFU, FLOPs, memory and run totals (a red team found only the
// step derived: the report gave these with none).
void explain_fleet_totals(const TrainingResult& t, Trace& trace) {
    const double n = t.devices, peak = t.peak_flops_per_second;
    trace.add("training.tokens_per_second",
              t.mfu_given ? "MFU x devices x mean peak / model_flops_per_token" : "tokens_per_step / step_seconds",
              {{"tokens_per_step", t.tokens_per_step},
               {"step_seconds", t.step_seconds},
               {"mfu", t.mfu},
               {"devices", n},
               {"peak_flops_per_second", peak},
               {"model_flops_per_token", t.model_flops_per_token}},
              t.tokens_per_second, "tokens/s", "the fleet's step (training.step_seconds) or the given MFU");
    trace.add("training.mfu", t.mfu_given ? "given in the scenario" : "model_flops_per_token x tokens_per_second / (devices x mean peak)",
              {{"model_flops_per_token", t.model_flops_per_token},
               {"tokens_per_second", t.tokens_per_second},
               {"devices", n},
               {"peak_flops_per_second", peak}},
              t.mfu, "fraction", "PaLM (arXiv:2204.02311) App. B; peak: the pools' dense 16-bit peaks summed, per device");
    if (t.tokens > 0)
        trace.add("training.flops", "model_flops_per_token x D", {{"model_flops_per_token", t.model_flops_per_token}, {"D", t.tokens}},
                  t.flops, "FLOP", "PaLM App. B convention");
    const MemoryPerGpu& m = t.memory;
    explain_memory_total(trace, m, "the fullest pool's (relative to its capacity): ", "",
                         "each pool's memory under its own layout (training.fleet.pools)");
    if (!t.seconds || !t.gpu_hours) return;
    trace.add("training.seconds", "D / tokens_per_second / goodput",
              {{"D", t.tokens}, {"tokens_per_second", t.tokens_per_second}, {"goodput", t.goodput.value}}, *t.seconds, "s",
              "goodput: training.goodput (time lost to failures, restarts and checkpoints)");
    trace.add("training.days", "seconds / 86400", {{"seconds", *t.seconds}}, *t.seconds / units::seconds_per_day, "days",
              "86,400 seconds a day");
    trace.add("training.gpu_hours", "devices (all pools) x seconds / 3600", {{"devices", n}, {"seconds", *t.seconds}}, *t.gpu_hours,
              "GPU-h", "every device held for the whole run");
    if (t.cost_usd && t.gpu_hour_usd)
        trace.add("training.cost_usd", "gpu_hours x gpu_hour_usd (each pool's GPU-hours at its own rate; gpu_hour_usd: their mean)",
                  {{"gpu_hours", *t.gpu_hours}, {"gpu_hour_usd", *t.gpu_hour_usd}}, *t.cost_usd, "USD",
                  "costs.gpu_hour_usd, else each pool device's catalog cloud price (owned: amortised price + energy)");
}

// The device whose default framework the fleet runs: it must run on every pool, so with a TPU pool
// the TPU's (MaxText runs on GPUs too; Megatron does not run on TPUs, and the parser refuses it there
// when given).
const Device& framework_device(const Hardware& hw) {
    const Device* d = &hw.pools.front().device;
    for (const Pool& p : hw.pools)
        if (p.device.kind == "tpu") d = &p.device;
    return *d;
}

}  // namespace

// The fleet answers for every device given; when one pool alone trains faster, said (a red team: 64
// MI300X alone 690,166 tokens/s, with 16 L40S added 543,555, each L40S having to take at least one
// sequence of the batch at a slower step).
void slower_than_a_pool(const Hardware& hw, const ModeResult& dpm, TrainingResult& t) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < dpm.pools.size(); ++i)
        if (dpm.pools[i].tokens_per_second_alone > dpm.pools[best].tokens_per_second_alone) best = i;
    if (!dpm.ok || best >= dpm.pools.size() || best >= hw.pools.size() ||
        !(dpm.pools[best].tokens_per_second_alone > 1.001 * t.tokens_per_second))
        return;
    t.warnings.push_back("mixed fleet: " + pool_label(hw.pools[best]) + " alone trains faster (" +
                         jr::fmt_num(dpm.pools[best].tokens_per_second_alone) + " tokens/s) than the whole fleet (" +
                         jr::fmt_num(t.tokens_per_second) + "): the other pools slow its steps more than they add; leave them out");
}

// With three pools or more, the fleet without one of them, in the faster of its modes: when that is
// faster than the whole fleet, said, naming the pool (a red team: 32 + 16 MI300X and 8 H100 in two
// sites trained Llama 2 70B at 6,052 tokens/s over a 1 Gb/s WAN, and at 5,296 with 32 more MI300X,
// whose stages asked for two pipelines that share the WAN). The fleet still answers for every pool.
// Up to 8 pools: each pool left out is a search of the fleet again, its stage estimates mostly
// remembered from the searches before (StageMemo; in wasm, scripts/fleet-bench.mjs: 8 pools 4.6-10
// ms of CPU, 20-43 before the memo; 64 pools would take seconds).
constexpr std::size_t kDropOneMaxPools = 8;
void slower_than_without_a_pool(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs, FleetMemo& memo,
                                TrainingResult& t) {
    if (hw.pools.size() < 3 || hw.pools.size() > kDropOneMaxPools || t.mfu_given) return;
    std::size_t drop = hw.pools.size();
    double fastest = 1.001 * t.tokens_per_second;
    // The fleet without pool i: without pool 0 first, then for each next i pool i - 1 back in place
    // i - 1 (one pool's device copied per fleet, not all of them).
    Hardware h = hw;
    h.pools.erase(h.pools.begin());
    std::vector<std::size_t> h_ids(memo.ids.begin() + 1, memo.ids.end());
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        if (i > 0) h.pools[i - 1] = hw.pools[i - 1], h_ids[i - 1] = memo.ids[i - 1];
        const std::vector<Site> sites = sites_of(h);
        const ModeResult a = data_parallel(m, h, cfg, costs, sites, memo.alone), b = pipeline(m, h, cfg, sites, h_ids, memo.stages);
        const double rate = std::max(mode_rate(a), mode_rate(b));
        if (rate > fastest) fastest = rate, drop = i;
    }
    if (drop == hw.pools.size()) return;
    t.warnings.push_back("mixed fleet: without " + pool_label(hw.pools[drop]) + " the other pools train faster (" + jr::fmt_num(fastest) +
                         " tokens/s) than the whole fleet (" + jr::fmt_num(t.tokens_per_second) +
                         "): its share of the work slows the rest more than it adds; leave it out");
}

// What the fleet's mode means for the run: local steps without effect in a pipeline, the mode and
// why, and a pool alone faster than the whole fleet.
void fleet_warnings(const Hardware& hw, const TrainingConfig& cfg, bool use_dp, const std::string& why_not_other, const ModeResult& dpm,
                    TrainingResult& t) {
    if (cfg.local_steps > 1 && !use_dp)
        t.warnings.push_back("training.local_steps (" + jr::fmt_num(static_cast<double>(cfg.local_steps)) +
                             ") has no effect: the fleet runs as one pipeline through the pools, which exchanges activations every "
                             "step (local steps need data parallelism across the pools)");
    t.warnings.push_back("mixed fleet: " + std::string(use_dp ? "data parallel across pools" : "one pipeline through the pools") + " (" +
                         why_not_other + ")");
    slower_than_a_pool(hw, dpm, t);
}

FleetResult estimate_fleet(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg_in, const Costs& costs, Trace& trace,
                           FleetSearch search) {
    FleetResult f;
    TrainingConfig cfg = cfg_in;
    const Device& d0 = hw.pools.front().device;
    if (!cfg.framework) cfg.framework = framework_of(cfg, framework_device(hw));
    const Efficiency eff0 = training_efficiency(cfg, d0);
    if (!cfg.fp32_gradients) cfg.fp32_gradients = eff0.fw.fp32_gradients;
    f.load_balanced = cfg.load_balance;
    const std::vector<Site> sites = sites_of(hw);
    f.sites = static_cast<double>(sites.size());
    FleetMemo memo{{}, StageMemo(search.remember, hw.pools.size()), fleet_pool_ids(hw)};
    const ModeResult dpm = data_parallel(m, hw, cfg, costs, sites, memo.alone);
    const ModeResult ppm = pipeline(m, hw, cfg, sites, memo.ids, memo.stages);
    const bool use_dp = dpm.ok && mode_rate(dpm) >= mode_rate(ppm);
    const ModeResult& r = use_dp ? dpm : ppm;
    f.mode = use_dp ? "data_parallel" : "pipeline";
    f.why_not_other = why_not_other(use_dp, r, use_dp ? ppm : dpm);
    f.pools = r.pools;
    f.slowest_pool = r.slowest;
    f.exchange_seconds = r.exchange;
    f.pipeline_dp = r.dp;
    f.pipeline_order = r.order;

    TrainingResult& t = f.total;
    fleet_model_figures(m, cfg, eff0, t);
    const double peak = fleet_devices(hw, cfg, t), devices = t.devices;
    t.fleet = true, t.fleet_sites = f.sites, t.fleet_pools = static_cast<double>(hw.pools.size());
    if (trace.enabled()) explain_goodput(t.goodput, trace);
    if (!r.ok) {
        fleet_infeasible(dpm, ppm, r, t);
        return f;
    }
    // The fleet as one run: the slowest pool's (data parallel) or stage's (pipeline) step, memory of
    // the fullest pool, peak and prices summed over the pools.
    fleet_memory(r, t);
    fleet_throughput(r, cfg, devices, peak, t);
    fleet_wan(r, use_dp, f.sites, t);
    t.compute_utilization = r.step > 0 ? std::max(0.0, r.step - r.exposed - r.pp_wan) / r.step : 1;
    if (cfg.local_steps > 1 && use_dp) t.convergence = diloco_convergence(static_cast<double>(cfg.local_steps));
    fleet_run_totals(hw, costs, fleet_band(m, hw, cfg, eff0, t), t, trace);
    run_length_warnings(cfg, t);
    fleet_warnings(hw, cfg, use_dp, f.why_not_other, dpm, t);
    slower_than_without_a_pool(m, hw, cfg, costs, memo, t);
    if (trace.enabled()) {
        explain_fleet_step(r, use_dp, cfg, hw, f.sites, trace);
        explain_step_at_given_mfu(t, r.step, trace);
        explain_fleet_totals(t, trace);
    }
    return f;
}

// A field of a pool's layout as the scenario's echo writes it (a choice by its name).
jw::Scalar layout_field(const TrainingConfig& c, std::string_view name) {
    for (const auto& row : training_fields())
        if (row.spec.name == name) return field_value(row.spec, row.get(c));
    return jw::Scalar();
}

void write_fleet(jw::Val out, const FleetResult& f) {
    using jw::Scalar;
    const bool dp = f.mode == "data_parallel", pipeline = f.mode == "pipeline";
    out = {{"mode", f.mode},
           {"sites", f.sites},
           {"load_balanced", f.load_balanced},
           {"slowest_pool", dp ? Scalar(f.slowest_pool) : Scalar(nullptr)},
           {"exchange_seconds", dp ? Scalar(f.exchange_seconds) : Scalar(nullptr)},
           {"pipeline_data_parallel", pipeline && f.pipeline_dp > 0 ? Scalar(f.pipeline_dp) : Scalar(nullptr)},
           {"why_not_other", f.why_not_other}};
    jw::Val order = out["pipeline_order"];
    if (pipeline && !f.pipeline_order.empty()) {
        order.set_array();
        for (std::size_t i : f.pipeline_order) order.append() = static_cast<double>(i);
    } else
        order = nullptr;
    jw::Val pools = out["pools"];
    pools.set_array();
    for (const auto& p : f.pools) {
        const TrainingConfig& c = p.layout;
        pools.append() = {{"device", p.pool.device.id},
                          {"device_name", p.pool.device.name},
                          {"count", p.pool.count},
                          {"site", p.pool.site},
                          {"tp", c.tp},
                          {"pp", c.pp},
                          {"dp", c.dp.value_or(1)},
                          {"cp", c.cp},
                          {"ep", c.ep},
                          {"micro_batch", c.micro_batch},
                          {"zero", c.zero},
                          {"recompute", layout_field(c, "recompute")},
                          {"layers", pipeline ? Scalar(p.layers) : Scalar(nullptr)},
                          {"batch_sequences", dp ? Scalar(p.batch_sequences) : Scalar(nullptr)},
                          {"step_seconds", p.step_seconds},
                          {"tokens_per_second_alone", dp ? Scalar(p.tokens_per_second_alone) : Scalar(nullptr)},
                          {"memory_per_gpu_bytes", p.memory_per_gpu_bytes},
                          {"memory_capacity_bytes", p.memory_capacity_bytes},
                          {"fits", p.fits},
                          {"peak_flops_per_second", p.peak_flops_per_second}};
    }
}

}  // namespace gpucalc
