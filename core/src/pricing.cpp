// Device-hour prices on one basis (pricing.hpp). The catalog holds each device's price per basis
// with provider, date and source (core/data/devices.json cloud_prices).
#include "gpucalc/pricing.hpp"

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
        r.note = "no catalog price for " + d.name + ": set costs.gpu_hour_usd";
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

}  // namespace gpucalc
