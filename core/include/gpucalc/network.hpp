// Networks: the presets of core/data/networks.json (hardware.network between nodes, hardware.wan
// between sites) and the bandwidth/latency of each level of a cluster's hierarchy (node, site,
// world) as the step model uses them (alpha-beta model: time = latency terms + bytes / bandwidth).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucalc/device.hpp"
#include "gpucalc/fields.hpp"
#include "gpucalc/json_value.hpp"

namespace gpucalc {

struct Hardware;
class Trace;

struct NetworkPreset {
    std::string id, name;
    std::string level;            // "datacenter" (between nodes of a site) or "wan" (between sites)
    std::string per;              // "device", "node" or "endpoint" (a site's uplink, or a node's)
    double bytes_per_second = 0;  // per direction
    double latency_seconds = 0;   // one-way, per message
    std::vector<std::string> notes;
    std::vector<Source> sources;
    bool wan() const { return level == "wan"; }
};

// Bandwidth time of a ring all-gather or reduce-scatter of S bytes per rank over n ranks, r of them in
// each node: over the scale-up links (up) inside a node; a ring spanning nodes crosses each node
// boundary once, and NCCL runs one ring per NIC rail, so each NIC (out) carries (n - r) / (n r) of
// the data instead of (n - 1) / n: inter-node bus bandwidth ~ r x NIC bandwidth (nccl-tests
// PERFORMANCE.md bus bandwidth; 4 x 8 B200: 382 GB/s bus bandwidth with ~37 GB/s per NIC,
// ml-engineering book, network chapter). Bandwidths per device, per direction.
inline double two_level_ring_seconds(double S, double n, double r, double up, double out) {
    const double intra = (n - 1.0) / n * S / up;
    return r >= n ? intra : std::max(intra, (n - r) / (n * r) * S / out);
}

// The presets, parsed once from the embedded data (their order is the choice values of the fields).
const std::vector<NetworkPreset>& network_presets();
// The preset at a choice value (nullptr when out of range).
const NetworkPreset* network_preset(int index);
// Choice list for hardware.network / hardware.wan (names live as long as the program).
Span<Choice> network_choices();  // the presets, in catalog order (static storage)
// `gpucalc networks`: the presets with their sources.
jv::Value networks_to_json();

// Bandwidth (per direction) and latency of each level, resolved from the catalog, the presets and
// the scenario's overrides. Cheap (no allocation): the plan search calls it for every layout.
struct NetworkLevels {
    double scale_up = 0;             // per device, inside a node (catalog: NVLink, Infinity Fabric, ICI, PCIe)
    double scale_out = 0;            // per device, between nodes of a site
    double scale_out_latency = 0;    // one-way, between nodes (0: only the calibrated per-call latency)
    bool scale_out_assumed = false;  // no figure anywhere: 100 GbE per device assumed
    double devices_per_node = 1;     // scale-up domain (never more than a site)
    double sites = 1;                // sites joined by the WAN (1: one site)
    double devices_per_site = 1;     // devices of one site (all of them when sites == 1)
    double wan = 0;                  // per site, per direction (0 when sites == 1)
    double wan_latency = 0;          // one-way between sites
    bool nodes_are_sites = false;    // hardware.network is a WAN preset: every node its own site
};
NetworkLevels network_levels(const Hardware& hw);
// The same for `devices` of hw's kind on hw's network (a part of a fleet), without copying hw.
NetworkLevels network_levels(const Hardware& hw, std::int64_t devices);
// The same, writing each figure's derivation (cluster.network.*) where it is computed.
NetworkLevels network_levels(const Hardware& hw, Trace& trace);
// What the report echoes under training.network (names, figures and where they come from).
void write_network_levels(jw::Val out, const Hardware& hw, const NetworkLevels& n);
// Bandwidth per device, per direction, between nodes: the scale-out network, or with a WAN preset
// between nodes (every node its own site) the node's link shared by its devices. Serving and
// fine-tuning, which have no sites, time their traffic between nodes over it.
inline double between_nodes_bytes_per_second(const NetworkLevels& n) {
    return n.nodes_are_sites && n.devices_per_site > 0 ? n.wan / n.devices_per_site : n.scale_out;
}

}  // namespace gpucalc
