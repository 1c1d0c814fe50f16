// Hardware catalog: parses the embedded core/data/devices.json (human units: TFLOPS, GB, GB/s)
// into SI Device records, and reads custom devices from scenarios (SI keys).
#include "gpucalc/catalog.hpp"

#include <cmath>

#include "gpucalc/json_read.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

const std::string& devices_json_text();  // generated from core/data/devices.json by CMake

using nlohmann::json;

namespace {

std::optional<double> opt_num(const json& o, const char* key) {
    if (!o.is_object()) return std::nullopt;
    auto it = o.find(key);
    if (it == o.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}
std::string opt_str(const json& o, const char* key) {
    if (!o.is_object()) return {};
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) return {};
    return it->get<std::string>();
}
std::optional<double> scaled(std::optional<double> v, double k) {
    if (!v) return std::nullopt;
    return *v * k;
}

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

Device parse_catalog_entry(const json& e, Errors& errors) {
    Device d;
    d.id = opt_str(e, "id");
    d.name = opt_str(e, "name");
    d.vendor = opt_str(e, "vendor");
    d.kind = opt_str(e, "kind");
    d.architecture = opt_str(e, "architecture");
    d.form_factor = opt_str(e, "form_factor");
    d.year = opt_num(e, "year");
    if (d.id.empty() || d.name.empty()) add_error(errors, "catalog", "devices", "catalog entry without id or name");
    const json& c = e.contains("cores") ? e["cores"] : json::object();
    d.simt_cores = opt_num(c, "simt_cores");
    d.simt_core_name = opt_str(c, "simt_core_name");
    d.units = opt_num(c, "units");
    d.unit_name = opt_str(c, "unit_name");
    d.matrix_units = opt_num(c, "matrix_units");
    d.matrix_unit_name = opt_str(c, "matrix_unit_name");
    d.full_die_simt_cores = opt_num(c, "full_die_simt_cores");
    d.cpu_cores = opt_num(c, "cpu_cores");
    d.cpu_threads = opt_num(c, "cpu_threads");
    d.simd = opt_str(c, "simd");
    d.boost_clock_hz = scaled(opt_num(e, "boost_clock_mhz"), units::mega);
    if (e.contains("peak_dense_tflops") && e["peak_dense_tflops"].is_object()) {
        const json& p = e["peak_dense_tflops"];
        for (int i = 0; i < kPrecisionCount; ++i)
            d.peak_flops_per_second[i] = scaled(opt_num(p, std::string(kPrecisionNames[i]).c_str()), units::tera);
    }
    d.vendor_prints_sparse = e.value("vendor_prints_sparse", false);
    if (e.contains("cpu_peak") && e["cpu_peak"].is_object()) {
        const json& cp = e["cpu_peak"];
        d.cpu_peak_derivation = opt_str(cp, "derivation");
        if (cp.contains("core_groups") && cp["core_groups"].is_array())
            for (const auto& g : cp["core_groups"])
                d.cpu_core_groups.push_back(CpuCoreGroup{opt_str(g, "name"), opt_num(g, "cores").value_or(0),
                                                         opt_num(g, "clock_ghz").value_or(0) * units::giga,
                                                         opt_num(g, "fp64_flops_per_cycle").value_or(0)});
        derive_cpu_peak(d);
    }
    // Accelerator memory is printed in binary units (an "80 GB" H100 holds 80 GiB = 85.9e9 bytes;
    // nvidia-smi shows 81,559 MiB of it after driver reservations): memory_gib; CPUs' figures are decimal.
    d.memory_bytes = e.contains("memory_gib") ? scaled(opt_num(e, "memory_gib"), units::GiB) : scaled(opt_num(e, "memory_gb"), units::giga);
    d.memory_type = opt_str(e, "memory_type");
    d.memory_bandwidth_bytes_per_second = scaled(opt_num(e, "memory_bandwidth_gbs"), units::giga);
    d.tdp_watts = opt_num(e, "tdp_watts");
    d.usable_memory_fraction = opt_num(e, "usable_memory_fraction");
    if (e.contains("scale_up") && e["scale_up"].is_object()) {
        const json& s = e["scale_up"];
        d.scale_up_name = opt_str(s, "name");
        d.scale_up_bytes_per_second_bidirectional = scaled(opt_num(s, "bandwidth_gbs_bidirectional"), units::giga);
        d.gpus_per_node = opt_num(s, "gpus_per_node").value_or(1);
    }
    if (e.contains("host_link") && e["host_link"].is_object()) {
        d.host_link_name = opt_str(e["host_link"], "name");
        d.host_link_bytes_per_second_bidirectional =
            scaled(opt_num(e["host_link"], "bandwidth_gbs_bidirectional"), units::giga);
    }
    d.scale_out_bytes_per_second = scaled(opt_num(e, "scale_out_gbs_per_direction"), units::giga);
    if (e.contains("price") && e["price"].is_object()) {
        d.price_usd = opt_num(e["price"], "usd");
        d.price_date = opt_str(e["price"], "date");
        d.price_what = opt_str(e["price"], "what");
    }
    if (e.contains("cloud_prices") && e["cloud_prices"].is_object()) {
        for (const char* basis : {"marketplace", "hyperscaler"}) {
            const json& p = e["cloud_prices"].contains(basis) ? e["cloud_prices"][basis] : json();
            if (auto usd = opt_num(p, "usd_per_hour"))
                d.cloud_prices.push_back(CloudPrice{basis, *usd, opt_str(p, "provider"), opt_str(p, "date"), opt_str(p, "source")});
        }
        // The device's headline price (cloud_usd_per_hour) is the marketplace basis, the default.
        for (const auto& p : d.cloud_prices)
            if (p.basis == "marketplace") d.cloud_usd_per_hour = p.usd_per_hour, d.cloud_provider = p.provider, d.cloud_date = p.date;
    }
    if (e.contains("node") && e["node"].is_object()) {
        d.node_system = opt_str(e["node"], "system");
        d.node_max_power_watts = opt_num(e["node"], "max_power_watts");
        d.node_devices = opt_num(e["node"], "devices").value_or(0);
    }
    if (e.contains("notes") && e["notes"].is_array())
        for (const auto& n : e["notes"])
            if (n.is_string()) d.notes.push_back(n.get<std::string>());
    if (e.contains("sources") && e["sources"].is_array())
        for (const auto& s : e["sources"]) d.sources.push_back(Source{opt_str(s, "id"), opt_str(s, "url"), opt_str(s, "what")});
    return d;
}

struct CatalogData {
    std::vector<Device> devices;
    Errors errors;
    CatalogData() {
        json root = json::parse(devices_json_text(), nullptr, /*allow_exceptions=*/false);
        if (root.is_discarded() || !root.contains("devices") || !root["devices"].is_array()) {
            add_error(errors, "catalog", "devices", "embedded catalog is not valid JSON");
            return;
        }
        for (const auto& e : root["devices"]) devices.push_back(parse_catalog_entry(e, errors));
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

void write_device(jw::Val j, const Device& d) {
    using jw::Scalar;
    j.set_object();
    j["id"] = d.id;
    j["name"] = d.name;
    j["vendor"] = d.vendor;
    j["kind"] = d.kind;
    j["architecture"] = d.architecture;
    j["form_factor"] = d.form_factor;
    j["year"] = d.year;
    j["custom"] = d.custom;
    jw::Val c = j["cores"];
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
    j["boost_clock_hz"] = d.boost_clock_hz;
    jw::Val p = j["peak_flops_per_second"], sp = j["sparse_peak_flops_per_second"];
    p.set_object();
    sp.set_object();
    for (int i = 0; i < kPrecisionCount; ++i) {
        const std::string_view k = kPrecisionNames[i];
        p[k] = d.peak_flops_per_second[i];
        const auto prec = static_cast<Precision>(i);
        const bool matrix = prec == Precision::tf32 || prec == Precision::bf16 || prec == Precision::fp16 ||
                            prec == Precision::fp8 || prec == Precision::int8 || prec == Precision::fp4 ||
                            prec == Precision::int4;
        if (d.vendor_prints_sparse && matrix && d.peak_flops_per_second[i])
            sp[k] = 2.0 * *d.peak_flops_per_second[i];
    }
    j["vendor_prints_sparse"] = d.vendor_prints_sparse;
    if (!d.cpu_core_groups.empty()) {
        jw::Val cp = j["cpu_peak"];
        jw::Val groups = cp["core_groups"];
        groups.set_array();
        for (const auto& g : d.cpu_core_groups)
            groups.append() = {{"name", g.name}, {"cores", g.cores}, {"clock_hz", g.clock_hz}, {"fp64_flops_per_cycle", g.fp64_flops_per_cycle}};
        cp["formula"] = "peak_fp64 = sum(cores x clock_hz x fp64_flops_per_cycle); peak_fp32 = 2 x peak_fp64";
        cp["derivation"] = d.cpu_peak_derivation;
    }
    j["memory_bytes"] = d.memory_bytes;
    j["memory_type"] = d.memory_type;
    j["memory_bandwidth_bytes_per_second"] = d.memory_bandwidth_bytes_per_second;
    j["tdp_watts"] = d.tdp_watts;
    j["usable_memory_fraction"] = d.usable_memory_fraction;
    j["scale_up"] = {{"name", d.scale_up_name},
                     {"bytes_per_second_bidirectional", d.scale_up_bytes_per_second_bidirectional},
                     {"bytes_per_second_per_direction", d.scale_up_bytes_per_second()},
                     {"devices_per_node", d.gpus_per_node}};
    j["host_link"] = {{"name", d.host_link_name}, {"bytes_per_second_bidirectional", d.host_link_bytes_per_second_bidirectional}};
    j["scale_out_bytes_per_second"] = d.scale_out_bytes_per_second;
    j["price_usd"] = d.price_usd;
    j["price_date"] = d.price_date;
    j["price_what"] = d.price_what;
    j["cloud_usd_per_hour"] = d.cloud_usd_per_hour;
    j["cloud_provider"] = d.cloud_provider;
    j["cloud_date"] = d.cloud_date;
    jw::Val prices = j["cloud_prices"];
    prices.set_array();
    for (const auto& cp : d.cloud_prices)
        prices.append() = {{"basis", cp.basis}, {"usd_per_hour", cp.usd_per_hour}, {"provider", cp.provider}, {"date", cp.date}, {"source", cp.source}};
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
