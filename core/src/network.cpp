// Network presets (core/data/networks.json, embedded) and the levels of a cluster's hierarchy.
#include "gpucalc/network.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/scenario.hpp"

namespace gpucalc {

const std::string& networks_json_text();  // generated from core/data/networks.json by CMake

using json = jv::Value;

namespace {

// No published NIC figure for a device: kAssumedScaleOutBytesPerSecond (device.hpp), reported as an assumption.
constexpr double kAssumedScaleOut = kAssumedScaleOutBytesPerSecond;
// The WAN between sites when hardware.sites > 1 gives none: the commodity 1 Gb/s internet tier.
constexpr const char* kDefaultWan = "internet-1g";

std::vector<NetworkPreset> parse_presets() {
    std::vector<NetworkPreset> out;
    const json root = json::parse(networks_json_text());
    if (root.is_discarded() || !root.is_object() || !root.contains("presets")) return out;  // the catalog test checks it parses
    for (const auto& p : root["presets"]) {
        NetworkPreset n;
        n.id = p.value("id", std::string());
        n.name = p.value("name", std::string());
        n.level = p.value("level", std::string("datacenter"));
        n.per = p.value("per", std::string("device"));
        n.bytes_per_second = p.value("bytes_per_second", 0.0);
        n.latency_seconds = p.value("latency_seconds", 0.0);
        for (const auto& s : p.value("notes", json::array()))
            if (s.is_string()) n.notes.push_back(s.get<std::string>());
        for (const auto& s : p.value("sources", json::array()))
            if (s.is_object()) n.sources.push_back(Source{"", s.value("url", std::string()), s.value("what", std::string())});
        out.push_back(n);
    }
    return out;
}

int preset_index(const char* id) {
    const auto& all = network_presets();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].id == id) return static_cast<int>(i);
    return -1;
}

// A preset's bandwidth for one endpoint of the given size (devices): per device, per node or per endpoint.
double endpoint_bandwidth(const NetworkPreset& p, double devices, double devices_per_node) {
    if (p.per == "device") return p.bytes_per_second * devices;
    if (p.per == "node") return p.bytes_per_second * std::max(1.0, std::ceil(devices / std::max(1.0, devices_per_node)));
    return p.bytes_per_second;
}

}  // namespace

const std::vector<NetworkPreset>& network_presets() {
    static const std::vector<NetworkPreset> presets = parse_presets();
    return presets;
}

const NetworkPreset* network_preset(int index) {
    const auto& all = network_presets();
    if (index < 0 || static_cast<std::size_t>(index) >= all.size()) return nullptr;
    return &all[static_cast<std::size_t>(index)];
}

Span<Choice> network_choices() {
    static const std::vector<Choice> choices = [] {
        std::vector<Choice> out;
        const auto& all = network_presets();
        for (std::size_t i = 0; i < all.size(); ++i) out.push_back(Choice{all[i].id, static_cast<int>(i)});
        return out;
    }();
    return {choices.data(), choices.size()};
}

json networks_to_json() {
    json arr = json::array();
    for (const auto& p : network_presets()) {
        json src = json::array();
        for (const auto& s : p.sources) src.push_back({{"url", s.url.empty() ? json(nullptr) : json(s.url)}, {"what", s.what}});
        arr.push_back({{"id", p.id},
                       {"name", p.name},
                       {"level", p.level},
                       {"per", p.per},
                       {"bytes_per_second", p.bytes_per_second},
                       {"latency_seconds", p.latency_seconds},
                       {"notes", p.notes},
                       {"sources", src}});
    }
    return {{"networks", arr}};
}

NetworkLevels network_levels(const Hardware& hw) { return network_levels(hw, hw.count); }

NetworkLevels network_levels(const Hardware& hw, std::int64_t devices) {
    NetworkLevels n;
    const Device& d = hw.device;
    const double count = static_cast<double>(std::max<Count>(1, devices));
    const double dpn = hw.devices_per_node > 0 ? static_cast<double>(hw.devices_per_node) : 1.0;
    const NetworkPreset* net = hw.network ? network_preset(*hw.network) : nullptr;
    // Inside a node: the device's scale-up link; PCIe peer traffic for devices without one.
    const auto catalog_out = d.scale_out_bytes_per_second;
    double out = hw.scale_out_bytes_per_second.value_or(0);
    if (!hw.scale_out_bytes_per_second) {
        if (net && (!net->wan() || hw.sites > 1))
            out = endpoint_bandwidth(*net, 1.0, dpn) / (net->per == "device" ? 1.0 : dpn);
        else if (catalog_out)
            out = *catalog_out;
        else
            out = kAssumedScaleOut, n.scale_out_assumed = true;
    }
    n.scale_out = out;
    if (auto up = d.scale_up_bytes_per_second())
        n.scale_up = *up;
    else if (d.host_link_bytes_per_second_bidirectional)
        n.scale_up = *d.host_link_bytes_per_second_bidirectional / 2.0;
    else
        n.scale_up = n.scale_out;
    n.scale_out_latency = hw.latency_seconds.value_or(net ? net->latency_seconds : 0.0);
    n.devices_per_node = dpn;
    n.devices_per_site = count;
    if (net && net->wan() && hw.sites <= 1) {
        // A WAN preset between nodes: every node is its own site on that link (io.net-style fleets).
        n.nodes_are_sites = true;
        n.sites = std::max(1.0, std::ceil(count / dpn));
        n.devices_per_site = std::min(dpn, count);
        n.wan = hw.scale_out_bytes_per_second ? *hw.scale_out_bytes_per_second * n.devices_per_site
                                              : endpoint_bandwidth(*net, n.devices_per_site, dpn);
        n.wan_latency = hw.latency_seconds.value_or(net->latency_seconds);
        n.scale_out = catalog_out.value_or(kAssumedScaleOut);
        n.scale_out_assumed = false;
        n.scale_out_latency = 0;
    } else if (hw.sites > 1) {
        n.sites = static_cast<double>(hw.sites);
        n.devices_per_site = count / n.sites;
        const NetworkPreset* wan = hw.wan ? network_preset(*hw.wan) : network_preset(preset_index(kDefaultWan));
        n.wan = hw.wan_bytes_per_second.value_or(wan ? endpoint_bandwidth(*wan, n.devices_per_site, dpn) : 0.0);
        n.wan_latency = hw.wan_latency_seconds.value_or(wan ? wan->latency_seconds : 0.0);
    }
    n.devices_per_node = std::min(dpn, n.devices_per_site);
    return n;
}

void write_network_levels(jw::Val out, const Hardware& hw, const NetworkLevels& n) {
    using jw::Scalar;
    const NetworkPreset* net = hw.network ? network_preset(*hw.network) : nullptr;
    const NetworkPreset* wan =
        hw.wan ? network_preset(*hw.wan) : (n.sites > 1 && !n.nodes_are_sites ? network_preset(preset_index(kDefaultWan)) : nullptr);
    // (the echo writes the catalog's figure back as hardware.scale_out_bytes_per_second: the same source)
    const bool override =
        hw.scale_out_bytes_per_second && *hw.scale_out_bytes_per_second != hw.device.scale_out_bytes_per_second.value_or(-1);
    std::string out_from = override                      ? "hardware.scale_out_bytes_per_second"
                           : (net && !n.nodes_are_sites) ? "preset " + net->id
                           : n.scale_out_assumed         ? "assumed: 100 GbE per device (no catalog figure)"
                                                         : "catalog: " + hw.device.name + " NIC per device";
    std::string wan_from = n.sites <= 1        ? ""
                           : n.nodes_are_sites ? "hardware.network " + (net ? net->id : std::string()) + ": every node is its own site"
                           : hw.wan_bytes_per_second ? "hardware.wan_bytes_per_second"
                           : wan                     ? "preset " + wan->id
                                                     : "";
    out = {{"scale_up_bytes_per_second", n.scale_up},
           {"scale_up", hw.device.scale_up_name.empty() ? hw.device.host_link_name : hw.device.scale_up_name},
           {"scale_out_bytes_per_second", n.scale_out},
           {"scale_out_latency_seconds", n.scale_out_latency},
           {"scale_out_source", out_from},
           {"devices_per_node", n.devices_per_node},
           {"sites", n.sites},
           {"devices_per_site", n.devices_per_site},
           {"wan_bytes_per_second", n.sites > 1 ? Scalar(n.wan) : Scalar(nullptr)},
           {"wan_latency_seconds", n.sites > 1 ? Scalar(n.wan_latency) : Scalar(nullptr)},
           {"wan_source", n.sites > 1 ? Scalar(wan_from) : Scalar(nullptr)},
           {"network", net ? Scalar(net->id) : Scalar(nullptr)},
           {"wan",
            n.sites > 1 && !n.nodes_are_sites && wan ? Scalar(wan->id) : (n.nodes_are_sites && net ? Scalar(net->id) : Scalar(nullptr))}};
}

}  // namespace gpucalc
