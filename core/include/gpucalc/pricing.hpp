// The price of one device-hour: the scenario's costs.gpu_hour_usd, else the catalog price on the
// chosen basis (costs.price_basis), else the other basis with a note saying so, else unknown.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct HourlyRate {
    std::optional<double> usd;  // nullopt: no price known (figures that need it are null)
    std::string basis;          // "scenario", "marketplace", "hyperscaler", "custom device", "owned"
    std::string what;           // provider and date, for derivations
    std::string note;           // set when the chosen basis had no price (a warning for the report)
};

HourlyRate gpu_hour_rate(const Device& d, const Costs& c);
// The costs pool `index` of a mixed fleet is priced with: its own gpu_hour_usd where it gives one, and
// a missing price asked for as that pool's (a red team: the cluster said costs.gpu_hour_usd, which
// reprices every pool, where training said the pool's own).
Costs pool_costs(const Costs& c, const Pool& p, std::size_t index);

// What one device-hour costs under costs.ownership: rented, gpu_hour_rate; owned, the purchase price
// amortised straight-line over costs.lifetime_years plus the hour's electricity (TDP x PUE x
// costs.electricity_usd_per_kwh), basis "owned". Unknown (nullopt, with `note` naming the missing
// device figure under `path`) when an owned device has no price or no TDP.
HourlyRate device_hour_cost(const Device& d, const Costs& c, const std::string& path);

// What one device-hour of a cluster of one device type costs: device_hour_cost of hw.device, or, when
// its pools (hardware.pools of one device in equal sites: the single-device model) give their own
// rents, each pool's hour (its gpu_hour_usd, else costs.gpu_hour_usd or the catalog's) weighted by its
// count, every device being held for the whole run; unknown when a pool's is (`note` names the pool).
HourlyRate hardware_hour_cost(const Hardware& hw, const Costs& c, const std::string& path);

// The energy and cost of `gpu_hours` device-hours of d. Energy as published runs compute it: GPU-hours
// x TDP x PUE (LLaMA, arXiv:2302.13971 Sec. 6; BLOOM). Cost: GPU-hours x `hourly` (device_hour_cost:
// the rent, or the owned hour; 0 is free). A figure whose input is unknown is null, never 0, and `missing` holds a
// warning naming the input (`path`: the device's scenario path, e.g. "hardware.device").
struct RunCost {
    std::optional<double> energy_kwh, cost_usd;
    std::vector<std::string> missing;
};
RunCost run_cost(const Device& d, const Costs& c, const HourlyRate& hourly, double gpu_hours, const std::string& path);

}  // namespace gpucalc
