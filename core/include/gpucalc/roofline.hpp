// Roofline (Williams, Waterman & Patterson 2009, CACM 52(4)): attainable FLOP/s =
// min(peak, arithmetic intensity x memory bandwidth); ridge point = peak / bandwidth.
// Device comparison: side by side figures and "how many of B match one A".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct Kernel {
    std::string id, name;
    double flops;  // per invocation
    double bytes;  // moved to/from memory per invocation
    double intensity() const { return flops / bytes; }
};

// Typical kernels at 16-bit precision (n^3 GEMM, batch-1 LLM decode, elementwise add, ...), plus one
// forward pass of `model` (1 token, and a prompt of `prompt_tokens`) when given.
std::vector<Kernel> typical_kernels(double matmul_n = 8192, const ModelSpec* model = nullptr, double prompt_tokens = 2048);

struct KernelOnDevice {
    std::string id;
    double intensity, attainable_flops_per_second, seconds;
    std::string bound;  // "compute" | "memory"
};

struct RooflineDevice {
    std::string id, name;
    std::string precision_used;
    double peak_flops_per_second = 0, bandwidth_bytes_per_second = 0, ridge_flops_per_byte = 0;
    std::vector<std::pair<double, double>> curve;  // (intensity FLOP/byte, attainable FLOP/s)
    std::vector<KernelOnDevice> kernels;
};

struct RooflineResult {
    std::vector<Kernel> kernels;
    std::vector<RooflineDevice> devices;
};

RooflineResult estimate_roofline(const RooflineRequest& req);

struct CompareResult {
    std::string precision_a, precision_b;  // precision used on each side (B falls back when unsupported)
    double peak_a = 0, peak_b = 0;
    double compute_ratio = 0;  // peak A / peak B: how many B match one A in compute
    // The ratio with both at one precision, the fastest both list (the one asked for when both have
    // it): a GPU's BF16 against a CPU's FP32 (no CPU BF16 figure in the catalog) overstates the gap.
    std::string same_precision;  // empty: no precision listed on both
    std::optional<double> compute_ratio_same_precision;
    std::optional<double> bandwidth_ratio;  // bandwidth A / bandwidth B
    std::optional<double> flops_per_watt_a, flops_per_watt_b;
    std::optional<double> flops_per_usd_a, flops_per_usd_b;  // peak FLOP/s per purchase dollar
    std::optional<double> cpu_cores_equivalent;              // when B is a CPU: compute_ratio x B's cores
};

CompareResult estimate_compare(const CompareRequest& req, Trace& trace);

}  // namespace gpucalc
