#include "gpucalc/cluster.hpp"

#include <cmath>

namespace gpucalc {

namespace {
std::optional<double> times(const std::optional<double>& v, double n) {
    if (!v) return std::nullopt;
    return *v * n;
}
}  // namespace

ClusterResult estimate_cluster(const Hardware& hw, const Costs& costs, Trace& trace) {
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
    if (r.power_watts) r.facility_power_watts = *r.power_watts * costs.pue;
    r.price_usd = times(d.price_usd, n);
    const std::optional<double> rate = costs.gpu_hour_usd ? costs.gpu_hour_usd : d.cloud_usd_per_hour;
    r.cloud_usd_per_hour = times(rate, n);
    r.nodes = std::ceil(n / (hw.devices_per_node > 0 ? hw.devices_per_node : 1));

    const std::string ds = d.name + " datasheet (catalog sources)";
    if (r.simt_cores)
        trace.add("cluster.cores", "devices x cores per device", {{"devices", n}, {"cores_per_device", *d.simt_cores}},
                  *r.simt_cores, "cores", ds + "; shipping SKU, not the full die");
    if (r.memory_bytes)
        trace.add("cluster.memory_bytes", "devices x memory per device", {{"devices", n}, {"memory_bytes_per_device", *d.memory_bytes}},
                  *r.memory_bytes, "bytes", ds);
    if (auto p = d.peak(Precision::bf16))
        trace.add("cluster.peak_flops_per_second.bf16", "devices x dense BF16 peak", {{"devices", n}, {"peak_per_device", *p}},
                  *p * n, "FLOP/s", ds + "; dense (vendor sparse figures are 2x)");
    if (r.power_watts)
        trace.add("cluster.power_watts", "devices x TDP", {{"devices", n}, {"tdp_watts", *d.tdp_watts}}, *r.power_watts, "W", ds);
    return r;
}

}  // namespace gpucalc
