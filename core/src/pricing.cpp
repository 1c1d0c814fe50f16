// Device-hour prices on one basis (pricing.hpp). The catalog holds each device's price per basis
// with provider, date and source (core/data/devices.json cloud_prices).
#include "gpucalc/pricing.hpp"

#include <algorithm>

#include "gpucalc/units.hpp"

namespace gpucalc {

HourlyRate gpu_hour_rate(const Device& d, const Costs& c) {
    HourlyRate r;
    if (c.gpu_hour_usd) {
        r.usd = c.gpu_hour_usd;
        r.basis = "scenario";
        r.what = "costs.gpu_hour_usd";
        return r;
    }
    if (d.custom && d.cloud_usd_per_hour) {
        r.usd = d.cloud_usd_per_hour;
        r.basis = "custom device";
        r.what = "hardware.device.cloud_usd_per_hour";
        return r;
    }
    const std::string want = c.price_basis == PriceBasis::hyperscaler ? "hyperscaler" : "marketplace";
    const CloudPrice* chosen = nullptr;
    const CloudPrice* other = nullptr;
    for (const auto& p : d.cloud_prices) (p.basis == want ? chosen : other) = &p;
    const CloudPrice* use = chosen ? chosen : other;
    if (!use) {
        r.note = "no catalog price for " + d.name + ": set " +
                 (c.rent_pool < 0 ? std::string("costs.gpu_hour_usd")
                                  : "hardware.pools[" + std::to_string(c.rent_pool) +
                                        "].gpu_hour_usd (this pool's), or costs.gpu_hour_usd (every pool's)");
        return r;
    }
    r.usd = use->usd_per_hour;
    r.basis = use->basis;
    r.what = use->basis + " price: " + use->provider + ", " + use->date;
    if (!chosen)
        r.note = "no " + want + " price for " + d.name + " in the catalog: the " + use->basis + " price (" + use->provider + ", " +
                 use->date + ") is used";
    return r;
}

Costs pool_costs(const Costs& c, const Pool& p, std::size_t index) {
    Costs out = c;
    if (p.gpu_hour_usd) out.gpu_hour_usd = p.gpu_hour_usd;
    out.rent_pool = static_cast<int>(index);
    return out;
}

namespace {
// How to give a device figure the catalog lacks: the custom device's own key, or a custom device
// on the catalog one as its base.
std::string how_to_give(const Device& d, const std::string& path, const char* key) {
    if (d.custom) return "set " + path + "." + key;
    return "give " + path + " as {\"base\": \"" + d.id + "\", \"" + key + "\": ...}";
}
}  // namespace

HourlyRate device_hour_cost(const Device& d, const Costs& c, const std::string& path) {
    if (c.ownership != Ownership::owned) return gpu_hour_rate(d, c);
    HourlyRate r;
    r.basis = "owned";
    r.what = "owned: purchase price / (costs.lifetime_years x 8760 h) + TDP x costs.pue x costs.electricity_usd_per_kwh";
    std::vector<std::string> lacking;
    if (!d.price_usd) lacking.push_back(d.name + " has no purchase price (" + how_to_give(d, path, "price_usd") + ")");
    if (!d.tdp_watts) lacking.push_back(d.name + " has no TDP (" + how_to_give(d, path, "tdp_watts") + ")");
    if (lacking.empty()) {
        r.usd = *d.price_usd / (c.lifetime_years * units::hours_per_year) + *d.tdp_watts / units::kilo * c.pue * c.electricity_usd_per_kwh;
        return r;
    }
    r.note = "the owned cost is null: ";
    for (std::size_t i = 0; i < lacking.size(); ++i) r.note += (i ? "; " : "") + lacking[i];
    r.note += "; or use costs.ownership cloud";
    return r;
}

HourlyRate hardware_hour_cost(const Hardware& hw, const Costs& c, const std::string& path) {
    const auto priced = [](const Pool& p) { return p.gpu_hour_usd.has_value(); };
    if (std::none_of(hw.pools.begin(), hw.pools.end(), priced)) return device_hour_cost(hw.device, c, path);
    // Pools' rents are refused beside owned hardware (scenario_parse.cpp): each pool's hour is a rent.
    HourlyRate r;
    r.basis = "scenario";
    r.what = "hardware.pools[].gpu_hour_usd (each pool's rent, else costs.gpu_hour_usd or the catalog's), weighted by the pools' counts";
    double usd = 0, devices = 0;
    for (std::size_t i = 0; i < hw.pools.size(); ++i) {
        const Pool& p = hw.pools[i];
        const HourlyRate own = gpu_hour_rate(p.device, pool_costs(c, p, i));
        if (!own.usd) {
            r.note = own.note;  // names the pool's own gpu_hour_usd (pool_costs)
            return r;
        }
        usd += *own.usd * static_cast<double>(p.count);
        devices += static_cast<double>(p.count);
    }
    r.usd = usd / devices;
    return r;
}

RunCost run_cost(const Device& d, const Costs& c, const HourlyRate& hourly, double gpu_hours, const std::string& path) {
    RunCost r;
    if (d.tdp_watts)
        r.energy_kwh = gpu_hours * *d.tdp_watts / units::kilo * c.pue;
    else
        r.missing.push_back(d.name + " has no TDP: energy_kwh and co2_kg are null; " + how_to_give(d, path, "tdp_watts"));
    if (hourly.usd)
        r.cost_usd = gpu_hours * *hourly.usd;
    else
        r.missing.push_back(hourly.note.empty() ? "no $/GPU-hour for " + d.name + ": set costs.gpu_hour_usd" : hourly.note);
    return r;
}

}  // namespace gpucalc
