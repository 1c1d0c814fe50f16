// The report: runs the estimators a scenario asks for and writes their results as JSON
// (docs/SCHEMA.md). Every number is plain SI with the unit in the key.
#pragma once
#include <nlohmann/json.hpp>

#include "gpucalc/errors.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// The whole report for a valid scenario; `inputs` echoes the effective scenario (defaults filled
// in), which parses back to the identical report.
nlohmann::json build_report(const Scenario& s);
nlohmann::json errors_to_json(const Errors& errors);
nlohmann::json device_echo(const Device& d);
nlohmann::json plan_to_json(const Plan& p);
nlohmann::json plan_result_json(const PlanResult& r);

}  // namespace gpucalc
