// The hardware catalog as plain rows, generated at build time from core/data/devices.json (the
// single source of truth) by cmake/catalog.cmake: only the fields the catalog reads, in the JSON's
// own units (TFLOPS, GiB, GB/s, MHz); catalog.cpp turns each row into an SI Device. Nothing is
// parsed at run time. A number that is missing, null or not a number is kNa; such a string is "".
#pragma once
#include <limits>

namespace gpucalc::catalog_rows {

constexpr double kNa = std::numeric_limits<double>::quiet_NaN();

struct PeakRow {
    const char* precision;  // key of peak_dense_tflops
    double tflops;
};
struct CoreGroupRow {
    const char* name;
    double cores, clock_ghz, fp64_flops_per_cycle;
};
struct CloudPriceRow {
    const char* basis;  // "marketplace" | "hyperscaler"
    double usd_per_hour;
    const char* provider;
    const char* date;
    const char* source;
};
struct SourceRow {
    const char* id;
    const char* url;
    const char* what;
};

struct DeviceRow {
    const char* id;
    const char* name;
    const char* vendor;
    const char* kind;
    const char* architecture;
    const char* form_factor;
    double year;
    // cores.*
    double simt_cores;
    const char* simt_core_name;
    double units;
    const char* unit_name;
    double matrix_units;
    const char* matrix_unit_name;
    double full_die_simt_cores;
    double cpu_cores;
    double cpu_threads;
    const char* simd;
    double boost_clock_mhz;
    const PeakRow* peaks;  // peak_dense_tflops
    int peak_count;
    bool vendor_prints_sparse;
    // cpu_peak.*
    const char* cpu_peak_derivation;
    const CoreGroupRow* core_groups;
    int core_group_count;
    bool has_memory_gib;  // memory_gib is present (even null): binary units, else memory_gb (decimal)
    double memory_gib;
    double memory_gb;
    const char* memory_type;
    double memory_bandwidth_gbs;
    double tdp_watts;
    double usable_memory_fraction;
    // scale_up.*, host_link.*
    const char* scale_up_name;
    double scale_up_gbs_bidirectional;
    double gpus_per_node;
    double count_granule;  // scale_up.count_granule (kNa: whole nodes)
    const char* host_link_name;
    double host_link_gbs_bidirectional;
    double scale_out_gbs_per_direction;
    // price.*
    double price_usd;
    const char* price_date;
    const char* price_what;
    const CloudPriceRow* cloud_prices;  // those with a usd_per_hour, marketplace first
    int cloud_price_count;
    // node.*
    const char* node_system;
    double node_max_power_watts;
    double node_devices;
    const char* const* notes;
    int note_count;
    const SourceRow* sources;
    int source_count;
};

extern const DeviceRow kDevices[];
extern const int kDeviceCount;

}  // namespace gpucalc::catalog_rows
