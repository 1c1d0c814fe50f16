// Network presets (core/data/networks.json, embedded) and the levels of a cluster's hierarchy.
#include "gpucalc/network.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/explain.hpp"
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

namespace {

// The source a preset's figure cites.
std::string preset_source(const NetworkPreset& p) { return "preset " + p.id + " (" + p.name + "), core/data/networks.json"; }

// Derivations of the bandwidth and latency between nodes (scale_out_level).
GPUCALC_COLD void explain_scale_out(const Hardware& hw, const NetworkPreset* net, double dpn, bool preset, const NetworkLevels& n,
                                    Trace& trace) {
    const std::string k = "cluster.network.scale_out_bytes_per_second";
    // (the echo writes the catalog's figure back as hardware.scale_out_bytes_per_second: the same source)
    const auto catalog_out = hw.device.scale_out_bytes_per_second;
    const bool given = hw.scale_out_bytes_per_second && *hw.scale_out_bytes_per_second != catalog_out.value_or(-1);
    if (preset && net->per == "device")
        trace.add(k, "the preset's bytes_per_second per device", {{"bytes_per_second", net->bytes_per_second}}, n.scale_out, "B/s",
                  preset_source(*net));
    else if (preset)
        trace.add(k, "bytes_per_second / devices_per_node (the preset's figure is per " + net->per + ", shared by its devices)",
                  {{"bytes_per_second", net->bytes_per_second}, {"devices_per_node", dpn}}, n.scale_out, "B/s", preset_source(*net));
    else if (!n.nodes_are_sites && given)
        trace.add(k, "given (per device, per direction)", {{"scale_out_bytes_per_second", n.scale_out}}, n.scale_out, "B/s",
                  "hardware.scale_out_bytes_per_second");
    else
        trace.add(k,
                  std::string(n.nodes_are_sites ? "inside a node's site (every node its own site): " : "") +
                      (catalog_out ? "the device's NIC per direction (catalog)"
                                   : "assumed: one 100 GbE NIC per device, 12.5e9 B/s (no catalog figure)"),
                  {{"nic_bytes_per_second", n.scale_out}}, n.scale_out, "B/s", hw.device.name + " (core/data/devices.json)");
    const bool latency_given = !n.nodes_are_sites && hw.latency_seconds;
    trace.add("cluster.network.scale_out_latency_seconds",
              n.nodes_are_sites ? "0: every node is its own site (the latency between them is wan_latency_seconds)"
              : latency_given   ? "given (one-way, per message)"
              : net             ? "the preset's one-way latency per message"
                                : "0: none given (each collective's calibrated latency applies)",
              {{"latency_seconds", n.scale_out_latency}}, n.scale_out_latency, "s",
              latency_given               ? "hardware.latency_seconds"
              : net && !n.nodes_are_sites ? preset_source(*net)
                                          : "core/src/network.cpp network_levels");
}

// A preset's bandwidth for an endpoint of `devices` (endpoint_bandwidth) in words, and its values.
std::string endpoint_words(const NetworkPreset& p) {
    return p.per == "device" ? "bytes_per_second x devices (the preset is per device)"
           : p.per == "node" ? "bytes_per_second x max(1, ceil(devices / devices_per_node)) (the preset is per node)"
                             : "bytes_per_second (the preset is per endpoint: a site's uplink)";
}

// Derivations of the sites, their devices and the WAN between them (site_levels).
GPUCALC_COLD void explain_site_levels(const Hardware& hw, const NetworkPreset* wan, double count, double dpn, const NetworkLevels& n,
                                      Trace& trace) {
    const bool each = n.nodes_are_sites;
    trace.add("cluster.network.sites",
              each ? "max(1, ceil(devices / devices_per_node)): a WAN preset between nodes (hardware.network) makes every node its own site"
              : n.sites > 1 ? "given"
                            : "1: one site",
              {{"devices", count}, {"devices_per_node", dpn}}, n.sites, "sites",
              each          ? "hardware.network"
              : n.sites > 1 ? "hardware.sites"
                            : "hardware.sites (default 1)");
    trace.add("cluster.network.devices_per_site",
              each          ? "min(devices_per_node, devices)"
              : n.sites > 1 ? "devices / sites"
                            : "devices (one site)",
              {{"devices", count}, {"devices_per_node", dpn}, {"sites", n.sites}}, n.devices_per_site, "devices", "hardware");
    if (!(n.sites > 1)) return;  // (no WAN: null in the report)
    const bool wan_given = each ? hw.scale_out_bytes_per_second.has_value() : hw.wan_bytes_per_second.has_value();
    std::string how = each && wan_given ? "scale_out_bytes_per_second x devices_per_site (hardware.scale_out_bytes_per_second per device)"
                      : wan_given       ? "given (per site, per direction)"
                      : wan             ? endpoint_words(*wan) + ", devices = devices_per_site"
                                        : "0: no WAN figure";
    trace.add("cluster.network.wan_bytes_per_second", how,
              {{"bytes_per_second", wan && !wan_given ? wan->bytes_per_second : 0.0},
               {"scale_out_bytes_per_second", each && wan_given ? *hw.scale_out_bytes_per_second : 0.0},
               {"devices", n.devices_per_site},
               {"devices_per_node", dpn},
               {"given", !each && wan_given ? *hw.wan_bytes_per_second : 0.0}},
              n.wan, "B/s",
              wan_given ? (each ? "hardware.scale_out_bytes_per_second" : "hardware.wan_bytes_per_second")
              : wan     ? preset_source(*wan)
                        : "");
    const bool lat_given = each ? hw.latency_seconds.has_value() : hw.wan_latency_seconds.has_value();
    trace.add("cluster.network.wan_latency_seconds", lat_given ? "given (one-way)" : "the preset's one-way latency per message",
              {{"latency_seconds", n.wan_latency}}, n.wan_latency, "s",
              lat_given ? (each ? "hardware.latency_seconds" : "hardware.wan_latency_seconds")
              : wan     ? preset_source(*wan)
                        : "");
}

// Between nodes: the bandwidth per device (per direction) and the latency of one hop, from
// hardware.scale_out_bytes_per_second, a datacenter preset, the catalog's NIC or the assumed 100 GbE;
// with a WAN preset between nodes (every node its own site) the catalog's NIC inside a node's site.
// Returns the bandwidth between nodes before that last case (a device without a scale-up figure reads
// it). `trace`: where the derivations (cluster.network.*) go, or null (the plan search).
double scale_out_level(const Hardware& hw, const NetworkPreset* net, double dpn, NetworkLevels& n, Trace* trace) {
    const auto catalog_out = hw.device.scale_out_bytes_per_second;
    const bool preset = !hw.scale_out_bytes_per_second && net && (!net->wan() || hw.sites > 1);
    double out = 0;
    bool assumed = false;
    if (hw.scale_out_bytes_per_second)
        out = *hw.scale_out_bytes_per_second;
    else if (preset)
        out = endpoint_bandwidth(*net, 1.0, dpn) / (net->per == "device" ? 1.0 : dpn);
    else
        out = catalog_out.value_or(kAssumedScaleOut), assumed = !catalog_out;
    n.scale_out = n.nodes_are_sites ? catalog_out.value_or(kAssumedScaleOut) : out;
    n.scale_out_assumed = !n.nodes_are_sites && assumed;
    n.scale_out_latency = n.nodes_are_sites ? 0.0 : hw.latency_seconds.value_or(net ? net->latency_seconds : 0.0);
    if (trace) explain_scale_out(hw, net, dpn, preset, n, *trace);
    return out;
}

// Inside a node: the device's scale-up link per direction (half its bidirectional figure), else half
// its host link's (PCIe peer traffic), else the bandwidth between nodes.
void scale_up_level(const Device& d, double out, NetworkLevels& n, Trace* trace) {
    const auto up = d.scale_up_bytes_per_second();
    const bool host = !up && d.host_link_bytes_per_second_bidirectional;
    n.scale_up = up ? *up : host ? *d.host_link_bytes_per_second_bidirectional / 2.0 : out;
    if (!trace) return;
    if (up || host)
        trace->add("cluster.network.scale_up_bytes_per_second",
                   std::string(up ? "the scale-up link's" : "no scale-up link: the host link's (PCIe peer traffic)") +
                       " bidirectional bytes per second / 2 (per direction)",
                   {{"bidirectional_bytes_per_second",
                     up ? *d.scale_up_bytes_per_second_bidirectional : *d.host_link_bytes_per_second_bidirectional}},
                   n.scale_up, "B/s", d.name + " (core/data/devices.json)");
    else
        trace->add("cluster.network.scale_up_bytes_per_second", "no scale-up or host link figure: the bandwidth between nodes",
                   {{"scale_out_bytes_per_second", out}}, n.scale_up, "B/s", d.name + " (core/data/devices.json)");
}

// The sites, their devices and the WAN between them: hardware.sites with hardware.wan (internet-1g
// by default), or a WAN preset between nodes (every node its own site); one site otherwise.
void site_levels(const Hardware& hw, const NetworkPreset* net, double count, double dpn, NetworkLevels& n, Trace* trace) {
    const NetworkPreset* wan = nullptr;
    if (n.nodes_are_sites) {
        n.sites = std::max(1.0, std::ceil(count / dpn));
        n.devices_per_site = std::min(dpn, count);
        n.wan = hw.scale_out_bytes_per_second ? *hw.scale_out_bytes_per_second * n.devices_per_site
                                              : endpoint_bandwidth(*net, n.devices_per_site, dpn);
        n.wan_latency = hw.latency_seconds.value_or(net->latency_seconds);
        wan = net;
    } else if (hw.sites > 1) {
        n.sites = static_cast<double>(hw.sites);
        n.devices_per_site = count / n.sites;
        wan = hw.wan ? network_preset(*hw.wan) : network_preset(preset_index(kDefaultWan));
        n.wan = hw.wan_bytes_per_second.value_or(wan ? endpoint_bandwidth(*wan, n.devices_per_site, dpn) : 0.0);
        n.wan_latency = hw.wan_latency_seconds.value_or(wan ? wan->latency_seconds : 0.0);
    } else {
        n.devices_per_site = count;
    }
    if (trace) explain_site_levels(hw, wan, count, dpn, n, *trace);
}

// The levels of hw's kind for `devices` of them, and their derivations where `trace` is given.
NetworkLevels levels_of(const Hardware& hw, std::int64_t devices, Trace* trace) {
    NetworkLevels n;
    const double count = static_cast<double>(std::max<Count>(1, devices));
    const double dpn = hw.devices_per_node > 0 ? static_cast<double>(hw.devices_per_node) : 1.0;
    const NetworkPreset* net = hw.network ? network_preset(*hw.network) : nullptr;
    // A WAN preset between nodes: every node is its own site on that link (io.net-style fleets).
    n.nodes_are_sites = net && net->wan() && hw.sites <= 1;
    const double out = scale_out_level(hw, net, dpn, n, trace);
    scale_up_level(hw.device, out, n, trace);
    site_levels(hw, net, count, dpn, n, trace);
    n.devices_per_node = std::min(dpn, n.devices_per_site);
    if (trace)
        trace->add("cluster.network.devices_per_node",
                   "min(devices_per_node, devices_per_site) (the scale-up domain, never more than a site)",
                   {{"devices_per_node", dpn}, {"devices_per_site", n.devices_per_site}}, n.devices_per_node, "devices",
                   "hardware.devices_per_node (default 1)");
    return n;
}

}  // namespace

NetworkLevels network_levels(const Hardware& hw) { return network_levels(hw, hw.count); }

NetworkLevels network_levels(const Hardware& hw, std::int64_t devices) { return levels_of(hw, devices, nullptr); }

NetworkLevels network_levels(const Hardware& hw, Trace& trace) { return levels_of(hw, hw.count, trace.enabled() ? &trace : nullptr); }

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
