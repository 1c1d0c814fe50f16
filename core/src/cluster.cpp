#include "gpucalc/cluster.hpp"

#include "gpucalc/pricing.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/scenario_fields.hpp"

namespace gpucalc {

namespace {
std::optional<double> times(const std::optional<double>& v, double n) {
    if (!v) return std::nullopt;
    return *v * n;
}
}  // namespace

namespace {
// A fleet's sum of one figure: null unless every pool has it (a partial sum read as the fleet's: 8
// H100 and 64 RTX 4090 gave node power 10.2 kW, the H100 nodes' alone, under the GPUs' own 34.4 kW;
// a red team). `said` collects, for the figures people add up (memory, power, prices), those left
// null with the pools that lack them; the cores and the peaks of a precision a device does not have
// are null without a word, as for one device.
struct FleetSum {
    std::vector<std::string> said;
    void add(std::optional<double>& a, const std::optional<double>& b, bool first, std::string_view name, const std::string& pool,
             bool say = false) {
        if (b && (first || a)) {
            a = a.value_or(0) + *b;
            return;
        }
        a.reset();
        if (!b && say) said.push_back(std::string(name) + " (" + pool + ")");
    }
};

// The fleet's figures that are a sum of its pools' besides devices and nodes, in the report's order:
// f(name under cluster, the figure of a ClusterResult, the derivation's formula, unit, whether a sum
// left null is said). add_pool sums them and explain_pool_sums derives them from this one list.
template <class F>
void for_each_pool_sum(F&& f) {
    f(
        "memory_bytes", [](auto& c) -> auto& { return c.memory_bytes; }, "sum over pools of devices x memory per device", "bytes", true);
    f(
        "cores", [](auto& c) -> auto& { return c.simt_cores; }, "sum over pools of devices x cores", "cores", false);
    f(
        "full_die_cores", [](auto& c) -> auto& { return c.full_die_simt_cores; }, "sum over pools of devices x cores of the full die",
        "cores", false);
    f(
        "matrix_units", [](auto& c) -> auto& { return c.matrix_units; }, "sum over pools of devices x tensor/matrix cores", "units", false);
    f(
        "cpu_cores", [](auto& c) -> auto& { return c.cpu_cores; }, "sum over pools of devices x cores", "cores", false);
    f(
        "memory_bandwidth_bytes_per_second", [](auto& c) -> auto& { return c.memory_bandwidth_bytes_per_second; },
        "sum over pools of devices x memory bandwidth", "B/s", false);
    for (int i = 0; i < kPrecisionCount; ++i)
        f(
            "peak_flops_per_second." + std::string(precision_name(static_cast<Precision>(i))),
            [i](auto& c) -> auto& { return c.peak_flops_per_second[i]; }, "sum over pools of devices x dense peak", "FLOP/s", false);
    f(
        "power_watts", [](auto& c) -> auto& { return c.power_watts; }, "sum over pools of devices x TDP", "W", true);
    f(
        "node_power_watts", [](auto& c) -> auto& { return c.node_power_watts; },
        "sum over pools of ceil(devices / devices per reference node) x node max power", "W", true);
    f(
        "price_usd", [](auto& c) -> auto& { return c.price_usd; }, "sum over pools of devices x price", "USD", true);
    f(
        "cloud_usd_per_hour", [](auto& c) -> auto& { return c.cloud_usd_per_hour; },
        "sum over pools of devices x $/GPU-hour (a pool's gpu_hour_usd, else costs.gpu_hour_usd, else the catalog's)", "USD/h", true);
}

// Adds one pool's figures to the fleet's.
void add_pool(ClusterResult& r, const ClusterResult& c, const std::string& device_name, bool first, FleetSum& sum) {
    r.devices += c.devices;
    r.nodes += c.nodes;
    for_each_pool_sum([&](const std::string& name, const auto& of, std::string_view, std::string_view, bool say) {
        sum.add(of(r), of(c), first, name, device_name, say);
    });
    for (const auto& w : c.warnings) r.warnings.push_back(device_name + ": " + w);
}

// A fleet's facility power on one basis: its nodes' power x PUE when every pool has a reference
// node's, else its devices' TDP x PUE (a sum of each pool's best had added node power for H100 to
// GPU power for RTX 4090, two bases read as one; a red team).
void fleet_facility_power(ClusterResult& r, const Costs& costs, Trace& trace) {
    if (r.node_power_watts) {
        r.facility_power_watts = *r.node_power_watts * costs.pue;
        trace.add("cluster.facility_power_watts", "node_power_watts x PUE (every pool's reference nodes)",
                  {{"node_power_watts", *r.node_power_watts}, {"pue", costs.pue}}, *r.facility_power_watts, "W", "PUE from costs.pue");
    } else if (r.power_watts) {
        r.facility_power_watts = *r.power_watts * costs.pue;
        r.warnings.push_back("facility_power_watts is the devices' TDP x PUE for every pool: not every pool has a reference node's power");
        trace.add("cluster.facility_power_watts", "power_watts x PUE (devices only: not every pool has a reference node's power)",
                  {{"power_watts", *r.power_watts}, {"pue", costs.pue}}, *r.facility_power_watts, "W", "PUE from costs.pue");
    }
}

// A fleet's sum of one figure: its derivation lists each pool's figure (`of` reads it from a pool's
// cluster, as add_pool summed it).
template <class Of>
void explain_pool_sum(Trace& trace, const std::vector<ClusterResult>& pools, std::string_view key, const std::optional<double>& total,
                      const Of& of, std::string_view formula, std::string_view unit) {
    if (!total) return;
    std::vector<std::pair<std::string, double>> v;
    for (std::size_t i = 0; i < pools.size(); ++i) v.emplace_back("pools[" + std::to_string(i) + "]", of(pools[i]).value_or(0));
    trace.add_list(key, formula, std::move(v), *total, unit,
                   "each pool's figure (devices x the catalog's per-device figure), hardware.pools");
}

// Derivations of a fleet's sums, each pool's figure listed.
GPUCALC_COLD void explain_pool_sums(Trace& trace, const std::vector<ClusterResult>& pools, const ClusterResult& r) {
    using C = const ClusterResult&;
    using O = std::optional<double>;
    explain_pool_sum(
        trace, pools, "cluster.devices", r.devices, [](C c) { return O(c.devices); }, "sum of the pools' counts", "devices");
    explain_pool_sum(
        trace, pools, "cluster.nodes", r.nodes, [](C c) { return O(c.nodes); }, "sum over pools of ceil(devices / devices per node)",
        "nodes");
    for_each_pool_sum([&](const std::string& name, const auto& of, std::string_view formula, std::string_view unit, bool) {
        explain_pool_sum(trace, pools, "cluster." + name, of(r), of, formula, unit);
    });
}

// A fleet of pools: the sum of its pools.
ClusterResult pools_cluster(const Hardware& hw, const Costs& costs, Trace& trace) {
    ClusterResult r;
    Trace none(false);
    FleetSum sum;
    std::vector<ClusterResult> pools;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        const Pool& p = hw.pools[i];
        Hardware h;
        h.device = p.device;
        h.count = p.count;
        h.devices_per_node = p.devices_per_node;
        pools.push_back(estimate_cluster(h, pool_costs(costs, p, i), none));
        add_pool(r, pools.back(), p.device.name, i == 0, sum);
    }
    std::string said;
    for (const auto& m : sum.said) said += (said.empty() ? "" : ", ") + m;
    if (!said.empty()) r.warnings.push_back("fleet totals left null, a pool having no figure for them: " + said);
    fleet_facility_power(r, costs, trace);
    if (trace.enabled()) explain_pool_sums(trace, pools, r);
    return r;
}

// Pools of one device in equal sites (not a mixed fleet) are estimated as one device type, whose
// nodes are whole per site: the pools a site holds as one pool, at their count-weighted rent
// (hardware_hour_cost). Two pools of 4 H100 in one site had been two nodes (20.4 kW) beside a
// training estimate that runs them as one 8-GPU node (10.2 kW); a red team.
Hardware pools_by_site(const Hardware& hw, const Costs& costs) {
    Hardware out = hw;
    out.pools.clear();
    for (const Pool& p : hw.pools) {
        auto it = std::find_if(out.pools.begin(), out.pools.end(), [&](const Pool& q) { return q.site == p.site; });
        if (it != out.pools.end()) continue;
        Hardware site = hw;
        site.pools.clear();
        for (const Pool& q : hw.pools)
            if (q.site == p.site) site.pools.push_back(q);
        Pool merged = p;
        merged.count = 0;
        for (const Pool& q : site.pools) merged.count += q.count;
        merged.gpu_hour_usd.reset();
        if (std::any_of(site.pools.begin(), site.pools.end(), [](const Pool& q) { return q.gpu_hour_usd.has_value(); }))
            merged.gpu_hour_usd = hardware_hour_cost(site, costs, "hardware.pools").usd;
        out.pools.push_back(merged);
    }
    return out;
}

// Devices x the per-device figures of one device type, power of whole nodes, prices.
ClusterResult device_cluster(const Hardware& hw, const Costs& costs, const HourlyRate& rate) {
    const Device& d = hw.device;
    const double n = hw.count;
    ClusterResult r;
    r.devices = n;
    r.simt_cores = times(d.simt_cores, n);
    r.full_die_simt_cores = times(d.full_die_simt_cores, n);
    r.matrix_units = times(d.matrix_units, n);
    r.cpu_cores = times(d.cpu_cores, n);
    r.memory_bytes = times(d.memory_bytes, n);
    r.memory_bandwidth_bytes_per_second = times(d.memory_bandwidth_bytes_per_second, n);
    for (int i = 0; i < kPrecisionCount; ++i) r.peak_flops_per_second[i] = times(d.peak_flops_per_second[i], n);
    r.power_watts = times(d.tdp_watts, n);
    // Whole nodes draw more than their GPUs: a DGX H100 is 10.2 kW for 8 x 700 W GPUs (catalog `node`).
    const double ref_nodes = d.node_devices > 0 ? std::ceil(n / d.node_devices) : 0;
    if (d.node_max_power_watts && ref_nodes > 0) r.node_power_watts = ref_nodes * *d.node_max_power_watts;
    if (r.node_power_watts)
        r.facility_power_watts = *r.node_power_watts * costs.pue;
    else if (r.power_watts)
        r.facility_power_watts = *r.power_watts * costs.pue;
    r.price_usd = times(d.price_usd, n);
    r.cloud_usd_per_hour = times(rate.usd, n);
    // The rent is shown beside owned hardware too; its advice (set costs.gpu_hour_usd) is not given there.
    if (!rate.note.empty() && costs.ownership != Ownership::owned) r.warnings.push_back(rate.note);
    r.nodes = std::ceil(n / static_cast<double>(hw.devices_per_node > 0 ? hw.devices_per_node : 1));
    return r;
}

// Derivations of the device, core, memory and peak totals.
void explain_device_totals(Trace& trace, const Hardware& hw, const ClusterResult& r, const std::string& ds) {
    const Device& d = hw.device;
    const double n = hw.count;
    if (r.simt_cores)
        trace.add("cluster.cores", "devices x cores per device", {{"devices", n}, {"cores_per_device", *d.simt_cores}}, *r.simt_cores,
                  "cores", ds + "; shipping SKU, not the full die");
    if (r.memory_bytes)
        trace.add("cluster.memory_bytes", "devices x memory per device", {{"devices", n}, {"memory_bytes_per_device", *d.memory_bytes}},
                  *r.memory_bytes, "bytes", ds);
    if (auto p = d.peak(Precision::bf16))
        trace.add("cluster.peak_flops_per_second.bf16", "devices x dense BF16 peak", {{"devices", n}, {"peak_per_device", *p}}, *p * n,
                  "FLOP/s", ds + "; dense (vendor sparse figures are 2x)");
    if (r.power_watts)
        trace.add("cluster.power_watts", "devices x TDP", {{"devices", n}, {"tdp_watts", *d.tdp_watts}}, *r.power_watts, "W", ds);
    trace.add("cluster.devices", "hardware.count", {{"count", n}}, n, "devices", "scenario");
    trace.add("cluster.nodes", "ceil(devices / devices per node)", {{"devices", n}, {"devices_per_node", hw.devices_per_node}}, r.nodes,
              "nodes", "reference system of the device (e.g. 8 GPUs per HGX board)");
    if (r.full_die_simt_cores)
        trace.add("cluster.full_die_cores", "devices x cores of the full die",
                  {{"devices", n}, {"full_die_cores_per_device", *d.full_die_simt_cores}}, *r.full_die_simt_cores, "cores",
                  ds + "; the full die is not a shipping product");
    if (r.matrix_units)
        trace.add("cluster.matrix_units", "devices x tensor/matrix cores", {{"devices", n}, {"per_device", *d.matrix_units}},
                  *r.matrix_units, "units", ds);
    if (r.cpu_cores)
        trace.add("cluster.cpu_cores", "devices x cores", {{"devices", n}, {"per_device", *d.cpu_cores}}, *r.cpu_cores, "cores", ds);
    if (r.memory_bandwidth_bytes_per_second)
        trace.add("cluster.memory_bandwidth_bytes_per_second", "devices x memory bandwidth",
                  {{"devices", n}, {"per_device", *d.memory_bandwidth_bytes_per_second}}, *r.memory_bandwidth_bytes_per_second, "B/s", ds);
    for (int i = 0; i < kPrecisionCount; ++i) {
        const auto prec = static_cast<Precision>(i);
        if (!d.peak_flops_per_second[i] || prec == Precision::bf16) continue;
        trace.add("cluster.peak_flops_per_second." + std::string(precision_name(prec)), "devices x dense peak",
                  {{"devices", n}, {"peak_per_device", *d.peak_flops_per_second[i]}}, *r.peak_flops_per_second[i], "FLOP/s",
                  d.cpu_core_groups.empty() ? ds : ds + "; CPU peak = cores x clock x FLOPs/cycle");
    }
}

// Derivations of the power and price totals.
void explain_power_and_price(Trace& trace, const Hardware& hw, const Costs& costs, const HourlyRate& rate, const ClusterResult& r) {
    const Device& d = hw.device;
    const double n = hw.count;
    if (r.node_power_watts)
        trace.add("cluster.node_power_watts", "ceil(devices / devices per reference node) x node max power",
                  {{"devices", n}, {"devices_per_node", d.node_devices}, {"node_max_power_watts", *d.node_max_power_watts}},
                  *r.node_power_watts, "W", d.node_system + " specification (catalog node source)");
    if (r.facility_power_watts && r.node_power_watts)
        trace.add("cluster.facility_power_watts", "node_power_watts x PUE", {{"node_power_watts", *r.node_power_watts}, {"pue", costs.pue}},
                  *r.facility_power_watts, "W", "PUE from costs.pue");
    else if (r.facility_power_watts)
        trace.add("cluster.facility_power_watts", "power_watts x PUE (no reference node power in the catalog: GPUs only)",
                  {{"power_watts", *r.power_watts}, {"pue", costs.pue}}, *r.facility_power_watts, "W", "PUE from costs.pue");
    if (r.price_usd)
        trace.add("cluster.price_usd", "devices x price", {{"devices", n}, {"price_usd", *d.price_usd}}, *r.price_usd, "USD",
                  "catalog price " + d.price_date + " (" + d.price_what + ")");
    if (r.cloud_usd_per_hour)
        trace.add("cluster.cloud_usd_per_hour", "devices x $/GPU-hour", {{"devices", n}, {"gpu_hour_usd", *r.cloud_usd_per_hour / n}},
                  *r.cloud_usd_per_hour, "USD/h", rate.what);
}
}  // namespace

ClusterResult estimate_cluster(const Hardware& hw, const Costs& costs, Trace& trace) {
    if (!hw.pools.empty()) return pools_cluster(mixed_fleet(hw) ? hw : pools_by_site(hw, costs), costs, trace);
    const HourlyRate rate = gpu_hour_rate(hw.device, costs);
    ClusterResult r = device_cluster(hw, costs, rate);
    const std::string ds = hw.device.name + " datasheet (catalog sources)";
    explain_device_totals(trace, hw, r, ds);
    explain_power_and_price(trace, hw, costs, rate, r);
    return r;
}

}  // namespace gpucalc
