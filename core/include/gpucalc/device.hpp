// A compute device (GPU, TPU, accelerator or CPU socket) with datasheet figures in SI units.
// Unknown figures are std::nullopt ("null" in JSON), never a guess.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/errors.hpp"
#include "gpucalc/precision.hpp"

namespace gpucalc {

struct Source {
    std::string id;
    std::string url;
    std::string what;  // what the source says / covers
};

// A rental price on one basis: "marketplace" (GPU clouds: RunPod, Lambda, TensorWave, ...) or
// "hyperscaler" (AWS, Azure, Google Cloud list prices), per device-hour.
struct CloudPrice {
    std::string basis;
    double usd_per_hour = 0;
    std::string provider, date, source;
};

struct CpuCoreGroup {
    std::string name;                 // "cores", "P-cores", "E-cores"
    double cores = 0;                 // count
    double clock_hz = 0;              // clock used for the peak (base clock unless stated)
    double fp64_flops_per_cycle = 0;  // per core: SIMD lanes x FMA units x 2
};

struct Device {
    std::string id;
    std::string name;
    std::string vendor;
    std::string kind;  // "gpu" | "tpu" | "accelerator" | "cpu"
    std::string architecture;
    std::string form_factor;
    std::optional<double> year;

    // Cores. GPUs: SIMT cores (CUDA cores / stream processors), the units that hold them (SMs/CUs)
    // and matrix units (Tensor/Matrix cores). CPUs: cores and hardware threads.
    std::optional<double> simt_cores;
    std::string simt_core_name;
    std::optional<double> units;
    std::string unit_name;
    std::optional<double> matrix_units;
    std::string matrix_unit_name;
    std::optional<double> full_die_simt_cores;  // the full die's count where the product ships fewer
    std::optional<double> cpu_cores;
    std::optional<double> cpu_threads;
    std::string simd;
    std::optional<double> boost_clock_hz;

    // Dense peak (no 2:4 sparsity) per precision, FLOP/s (int8: OP/s).
    std::array<std::optional<double>, kPrecisionCount> peak_flops_per_second{};
    bool vendor_prints_sparse = false;  // datasheet tensor figures are 2x these (structured sparsity)

    // CPU peak derivation: peak = sum(cores x clock x FLOPs/cycle) over core groups.
    std::vector<CpuCoreGroup> cpu_core_groups;
    std::string cpu_peak_derivation;

    std::optional<double> memory_bytes;
    std::string memory_type;
    std::optional<double> memory_bandwidth_bytes_per_second;
    std::optional<double> tdp_watts;
    // Unified-memory systems (Apple silicon): the share of memory_bytes the GPU may use
    // (Metal recommendedMaxWorkingSetSize); absent = all of it.
    std::optional<double> usable_memory_fraction;

    std::string scale_up_name;                                      // e.g. "NVLink 4.0 (18 links)"
    std::optional<double> scale_up_bytes_per_second_bidirectional;  // per device, both directions
    double gpus_per_node = 1;                                       // devices sharing the scale-up domain in the reference system
    // The step a count of these devices comes in, where it is smaller than the scale-up domain: a TPU
    // slice above 64 chips is whole 4x4x4 cubes inside a pod of thousands (absent: whole nodes).
    std::optional<double> count_granule;
    std::string host_link_name;
    std::optional<double> host_link_bytes_per_second_bidirectional;
    std::optional<double> scale_out_bytes_per_second;  // per device, per direction (NIC per GPU)

    std::optional<double> price_usd;
    std::string price_date;
    std::string price_what;
    std::optional<double> cloud_usd_per_hour;  // custom devices: the user's price; catalog: the marketplace price
    std::string cloud_provider;
    std::string cloud_date;
    std::vector<CloudPrice> cloud_prices;  // catalog prices by basis, each with provider, date and source

    // The reference node (e.g. DGX H100: 8 GPUs, 10.2 kW max): what a node draws with CPUs, NICs,
    // switches and fans, not only the GPUs' TDP.
    std::string node_system;
    std::optional<double> node_max_power_watts;
    double node_devices = 0;

    std::vector<std::string> notes;
    std::vector<Source> sources;
    bool custom = false;  // entered by the user, not from the catalog
    std::string base_id;  // custom devices: the catalog device they start from ("base"), if any

    // Memory a model may occupy: memory_bytes x usable_memory_fraction (unified memory), else memory_bytes.
    std::optional<double> usable_memory_bytes() const {
        if (!memory_bytes) return std::nullopt;
        return *memory_bytes * usable_memory_fraction.value_or(1.0);
    }
    std::optional<double> peak(Precision p) const { return peak_flops_per_second[static_cast<int>(p)]; }
    // The 16-bit precision training at `p` measures MFU against and runs its non-GEMM work in: p itself,
    // and for FP8 training bf16, or fp16 on a device that lists no bf16 peak.
    Precision sixteen_bit(Precision p) const {
        if (p != Precision::fp8) return p;
        return peak(Precision::bf16) || !peak(Precision::fp16) ? Precision::bf16 : Precision::fp16;
    }
    // Per-direction scale-up bandwidth (vendors print the bidirectional sum).
    std::optional<double> scale_up_bytes_per_second() const {
        if (!scale_up_bytes_per_second_bidirectional) return std::nullopt;
        return *scale_up_bytes_per_second_bidirectional / 2.0;
    }
};

// A device with no published NIC figure is assumed to have one 100 GbE NIC (12.5 GB/s per direction),
// the common cloud default; every report that uses it says so (assumed_scale_out_warning).
inline constexpr double kAssumedScaleOutBytesPerSecond = 12.5e9;
inline std::string assumed_scale_out_warning(const std::string& device_name) {
    return "no published scale-out bandwidth for " + device_name +
           ": a 100 GbE NIC per device (12.5 GB/s) is assumed between machines; set hardware.scale_out_bytes_per_second, or, for "
           "cards in one machine (they then talk over PCIe), hardware.devices_per_node";
}

// A device whose catalog entry names a scale-up link without its bandwidth (AMD Instinct MI325X:
// the platform's links are not published per GPU in the sources the catalog cites) talks to the
// devices of its node over PCIe in every model (half the bidirectional host link): a report that
// uses that link says so (red team, stop 44: MI325X served 30 % slower than MI300X with tensor
// parallelism, without a word).
inline bool scale_up_unknown(const Device& d) { return !d.scale_up_name.empty() && !d.scale_up_bytes_per_second(); }
inline std::string unknown_scale_up_warning(const Device& d) {
    return "no published bandwidth for " + d.name + "'s scale-up link (" + d.scale_up_name +
           "): the devices of a node are taken to talk over PCIe (half its bidirectional host link), likely slower than that link";
}

}  // namespace gpucalc
