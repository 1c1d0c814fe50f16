// Cluster totals: N x device -> cores, memory, peak FLOP/s per precision, power, price.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct ClusterResult {
    double devices = 0;
    std::optional<double> simt_cores;           // CUDA cores / stream processors (shipping SKU)
    std::optional<double> full_die_simt_cores;  // what the full die would have (not shipped)
    std::optional<double> matrix_units;         // Tensor/Matrix cores
    std::optional<double> cpu_cores;
    std::optional<double> memory_bytes;
    std::optional<double> memory_bandwidth_bytes_per_second;
    std::array<std::optional<double>, kPrecisionCount> peak_flops_per_second{};
    std::optional<double> power_watts;           // sum of device TDPs (no host, network or cooling)
    std::optional<double> node_power_watts;      // reference nodes' max power (CPUs, NICs, switches, fans included)
    std::optional<double> facility_power_watts;  // (node power, else device power) x PUE
    std::optional<double> price_usd;             // devices only
    std::optional<double> cloud_usd_per_hour;
    double nodes = 0;
    std::vector<std::string> warnings;
};

ClusterResult estimate_cluster(const Hardware& hw, const Costs& costs, Trace& trace);

}  // namespace gpucalc
