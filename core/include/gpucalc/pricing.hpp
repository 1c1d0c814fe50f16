// The price of one device-hour: the scenario's costs.gpu_hour_usd, else the catalog price on the
// chosen basis (costs.price_basis), else the other basis with a note saying so, else unknown.
#pragma once
#include <optional>
#include <string>

#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct HourlyRate {
    std::optional<double> usd;  // nullopt: no price known (figures that need it are null)
    std::string basis;          // "scenario", "marketplace", "hyperscaler", "custom device"
    std::string what;           // provider and date, for derivations
    std::string note;           // set when the chosen basis had no price (a warning for the report)
};

HourlyRate gpu_hour_rate(const Device& d, const Costs& c);

}  // namespace gpucalc
