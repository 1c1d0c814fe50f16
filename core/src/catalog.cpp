// Hardware catalog: the rows generated at build time from core/data/devices.json (human units:
// TFLOPS, GiB, GB/s; catalog_rows.hpp) as SI Device records, and the catalog written as JSON.
#include "gpucalc/catalog.hpp"

#include <cmath>

#include "gpucalc/catalog_rows.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

using json = jv::Value;

namespace {

using catalog_rows::DeviceRow;

std::optional<double> num(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }
std::optional<double> scaled(double v, double k) { return std::isnan(v) ? std::nullopt : std::optional<double>(v * k); }

// Dense peak for a CPU: sum over core groups of cores x clock x FLOPs/cycle (FP64); FP32 = 2x
// (twice the lanes per SIMD register).
void derive_cpu_peak(Device& d) {
    double fp64 = 0;
    for (const auto& g : d.cpu_core_groups) fp64 += g.cores * g.clock_hz * g.fp64_flops_per_cycle;
    if (fp64 > 0) {
        d.peak_flops_per_second[static_cast<int>(Precision::fp64)] = fp64;
        d.peak_flops_per_second[static_cast<int>(Precision::fp32)] = 2.0 * fp64;
    }
}

// Names, vendor, kind and year; a row without id or name is a catalog error.
void read_identity(const DeviceRow& e, Device& d, Errors& errors) {
    d.id = e.id;
    d.name = e.name;
    d.vendor = e.vendor;
    d.kind = e.kind;
    d.architecture = e.architecture;
    d.form_factor = e.form_factor;
    d.year = num(e.year);
    if (d.id.empty() || d.name.empty()) add_error(errors, "catalog", "devices", "catalog entry without id or name");
}

// Core counts, clock, dense peaks per precision and a CPU's core groups (its peak derived from them).
void read_compute(const DeviceRow& e, Device& d) {
    d.simt_cores = num(e.simt_cores);
    d.simt_core_name = e.simt_core_name;
    d.units = num(e.units);
    d.unit_name = e.unit_name;
    d.matrix_units = num(e.matrix_units);
    d.matrix_unit_name = e.matrix_unit_name;
    d.full_die_simt_cores = num(e.full_die_simt_cores);
    d.cpu_cores = num(e.cpu_cores);
    d.cpu_threads = num(e.cpu_threads);
    d.simd = e.simd;
    d.boost_clock_hz = scaled(e.boost_clock_mhz, units::mega);
    for (int i = 0; i < e.peak_count; ++i)
        if (const auto p = parse_precision(e.peaks[i].precision))
            d.peak_flops_per_second[static_cast<int>(*p)] = scaled(e.peaks[i].tflops, units::tera);
    d.vendor_prints_sparse = e.vendor_prints_sparse;
    d.cpu_peak_derivation = e.cpu_peak_derivation;
    for (int i = 0; i < e.core_group_count; ++i) {
        const auto& g = e.core_groups[i];
        d.cpu_core_groups.push_back(CpuCoreGroup{g.name, num(g.cores).value_or(0), num(g.clock_ghz).value_or(0) * units::giga,
                                                 num(g.fp64_flops_per_cycle).value_or(0)});
    }
    derive_cpu_peak(d);
}

// Memory, power and the links: scale-up, host link and scale-out.
void read_memory_and_links(const DeviceRow& e, Device& d) {
    // Accelerator memory is printed in binary units (an "80 GB" H100 holds 80 GiB = 85.9e9 bytes;
    // nvidia-smi shows 81,559 MiB of it after driver reservations): memory_gib; CPUs' figures are decimal.
    d.memory_bytes = e.has_memory_gib ? scaled(e.memory_gib, units::GiB) : scaled(e.memory_gb, units::giga);
    d.memory_type = e.memory_type;
    d.memory_bandwidth_bytes_per_second = scaled(e.memory_bandwidth_gbs, units::giga);
    d.tdp_watts = num(e.tdp_watts);
    d.usable_memory_fraction = num(e.usable_memory_fraction);
    d.scale_up_name = e.scale_up_name;
    d.scale_up_bytes_per_second_bidirectional = scaled(e.scale_up_gbs_bidirectional, units::giga);
    d.gpus_per_node = num(e.gpus_per_node).value_or(1);
    d.count_granule = num(e.count_granule);
    d.host_link_name = e.host_link_name;
    d.host_link_bytes_per_second_bidirectional = scaled(e.host_link_gbs_bidirectional, units::giga);
    d.scale_out_bytes_per_second = scaled(e.scale_out_gbs_per_direction, units::giga);
}

// The purchase price and the cloud prices, the marketplace one as the headline.
void read_prices(const DeviceRow& e, Device& d) {
    d.price_usd = num(e.price_usd);
    d.price_date = e.price_date;
    d.price_what = e.price_what;
    for (int i = 0; i < e.cloud_price_count; ++i) {
        const auto& p = e.cloud_prices[i];
        d.cloud_prices.push_back(CloudPrice{p.basis, p.usd_per_hour, p.provider, p.date, p.source});
    }
    // The device's headline price (cloud_usd_per_hour) is the marketplace basis, the default.
    for (const auto& p : d.cloud_prices)
        if (p.basis == "marketplace") d.cloud_usd_per_hour = p.usd_per_hour, d.cloud_provider = p.provider, d.cloud_date = p.date;
}

// One catalog row (devices.json, human units: TFLOPS, GiB, GB/s) as an SI Device.
Device from_row(const DeviceRow& e, Errors& errors) {
    Device d;
    read_identity(e, d, errors);
    read_compute(e, d);
    read_memory_and_links(e, d);
    read_prices(e, d);
    d.node_system = e.node_system;
    d.node_max_power_watts = num(e.node_max_power_watts);
    d.node_devices = num(e.node_devices).value_or(0);
    for (int i = 0; i < e.note_count; ++i) d.notes.push_back(e.notes[i]);
    for (int i = 0; i < e.source_count; ++i) d.sources.push_back(Source{e.sources[i].id, e.sources[i].url, e.sources[i].what});
    return d;
}

struct CatalogData {
    std::vector<Device> devices;
    Errors errors;
    CatalogData() {
        devices.reserve(static_cast<std::size_t>(catalog_rows::kDeviceCount));
        for (int i = 0; i < catalog_rows::kDeviceCount; ++i) devices.push_back(from_row(catalog_rows::kDevices[i], errors));
    }
};

const CatalogData& data() {
    static const CatalogData d;  // immutable after construction
    return d;
}

}  // namespace

const std::vector<Device>& catalog() { return data().devices; }
const Errors& catalog_errors() { return data().errors; }

const Device* find_device(std::string_view id) {
    for (const auto& d : catalog())
        if (d.id == id) return &d;
    return nullptr;
}

namespace {

// The "cores" object: SIMT cores, units, matrix units and a CPU's cores and SIMD width.
void write_cores(jw::Val c, const Device& d) {
    c["simt_cores"] = d.simt_cores;
    c["simt_core_name"] = d.simt_core_name;
    c["units"] = d.units;
    c["unit_name"] = d.unit_name;
    c["matrix_units"] = d.matrix_units;
    c["matrix_unit_name"] = d.matrix_unit_name;
    c["full_die_simt_cores"] = d.full_die_simt_cores;
    c["cpu_cores"] = d.cpu_cores;
    c["cpu_threads"] = d.cpu_threads;
    c["simd"] = d.simd;
}

// Dense peaks per precision, and the sparse ones (2x) for matrix precisions where the vendor prints them.
void write_peaks(jw::Val j, const Device& d) {
    jw::Val p = j["peak_flops_per_second"], sp = j["sparse_peak_flops_per_second"];
    p.set_object();
    sp.set_object();
    for (int i = 0; i < kPrecisionCount; ++i) {
        const std::string_view k = kPrecisionNames[i];
        p[k] = d.peak_flops_per_second[i];
        const auto prec = static_cast<Precision>(i);
        const bool matrix = prec == Precision::tf32 || prec == Precision::bf16 || prec == Precision::fp16 || prec == Precision::fp8 ||
                            prec == Precision::int8 || prec == Precision::fp4 || prec == Precision::int4;
        if (d.vendor_prints_sparse && matrix && d.peak_flops_per_second[i]) sp[k] = 2.0 * *d.peak_flops_per_second[i];
    }
}

// A CPU's core groups and the formula its peak is derived by (nothing for a device without them).
void write_cpu_peak(jw::Val j, const Device& d) {
    if (d.cpu_core_groups.empty()) return;
    jw::Val cp = j["cpu_peak"];
    jw::Val groups = cp["core_groups"];
    groups.set_array();
    for (const auto& g : d.cpu_core_groups)
        groups.append() = {
            {"name", g.name}, {"cores", g.cores}, {"clock_hz", g.clock_hz}, {"fp64_flops_per_cycle", g.fp64_flops_per_cycle}};
    cp["formula"] = "peak_fp64 = sum(cores x clock_hz x fp64_flops_per_cycle); peak_fp32 = 2 x peak_fp64";
    cp["derivation"] = d.cpu_peak_derivation;
}

// Memory, power and the links: scale-up, host link and scale-out.
void write_memory_and_links(jw::Val j, const Device& d) {
    j["memory_bytes"] = d.memory_bytes;
    j["memory_type"] = d.memory_type;
    j["memory_bandwidth_bytes_per_second"] = d.memory_bandwidth_bytes_per_second;
    j["tdp_watts"] = d.tdp_watts;
    j["usable_memory_fraction"] = d.usable_memory_fraction;
    j["scale_up"] = {{"name", d.scale_up_name},
                     {"bytes_per_second_bidirectional", d.scale_up_bytes_per_second_bidirectional},
                     {"bytes_per_second_per_direction", d.scale_up_bytes_per_second()},
                     {"devices_per_node", d.gpus_per_node},
                     {"count_granule", d.count_granule}};
    j["host_link"] = {{"name", d.host_link_name}, {"bytes_per_second_bidirectional", d.host_link_bytes_per_second_bidirectional}};
    j["scale_out_bytes_per_second"] = d.scale_out_bytes_per_second;
}

// The purchase price, the headline cloud price and every cloud price with its source.
void write_prices(jw::Val j, const Device& d) {
    j["price_usd"] = d.price_usd;
    j["price_date"] = d.price_date;
    j["price_what"] = d.price_what;
    j["cloud_usd_per_hour"] = d.cloud_usd_per_hour;
    j["cloud_provider"] = d.cloud_provider;
    j["cloud_date"] = d.cloud_date;
    jw::Val prices = j["cloud_prices"];
    prices.set_array();
    for (const auto& cp : d.cloud_prices)
        prices.append() = {
            {"basis", cp.basis}, {"usd_per_hour", cp.usd_per_hour}, {"provider", cp.provider}, {"date", cp.date}, {"source", cp.source}};
}

}  // namespace

void write_device(jw::Val j, const Device& d) {
    j.set_object();
    j["id"] = d.id;
    j["name"] = d.name;
    j["vendor"] = d.vendor;
    j["kind"] = d.kind;
    j["architecture"] = d.architecture;
    j["form_factor"] = d.form_factor;
    j["year"] = d.year;
    j["custom"] = d.custom;
    write_cores(j["cores"], d);
    j["boost_clock_hz"] = d.boost_clock_hz;
    write_peaks(j, d);
    j["vendor_prints_sparse"] = d.vendor_prints_sparse;
    write_cpu_peak(j, d);
    write_memory_and_links(j, d);
    write_prices(j, d);
    j["node"] = {{"system", d.node_system}, {"devices", d.node_devices}, {"max_power_watts", d.node_max_power_watts}};
    jw::Val notes = j["notes"];
    notes.set_array();
    for (const auto& n : d.notes) notes.push_back(n);
    jw::Val src = j["sources"];
    src.set_array();
    for (const auto& x : d.sources) src.append() = {{"id", x.id}, {"url", x.url}, {"what", x.what}};
}

void write_catalog(jw::Val j) {
    j["schema_version"] = 1;
    jw::Val arr = j["devices"];
    arr.set_array();
    for (const auto& d : catalog()) write_device(arr.append(), d);
}

json device_to_json(const Device& d) {
    jw::Doc doc;
    write_device(doc.root(), d);
    return doc.to_json();
}

json catalog_to_json() {
    jw::Doc doc;
    write_catalog(doc.root());
    return doc.to_json();
}

}  // namespace gpucalc
