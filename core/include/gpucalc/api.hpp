// JSON-in / JSON-out entry points shared by the CLI and the WebAssembly module. They never throw:
// failures come back as {"errors": [{"code", "field", "message"}, ...]}.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/scenario.hpp"

namespace gpucalc {

constexpr const char* kVersion = "0.1.0";
constexpr std::size_t kMaxScenarioBytes = 1 << 20;  // 1 MiB of JSON is far more than any scenario

std::string estimate_json(const std::string& scenario_text);  // report or errors
std::string devices_json();                                   // the catalog (SI units)
std::string presets_json();                                   // model presets with parameter counts

// Building blocks (used by tests and the plan search).
nlohmann::json estimate(const Scenario& s);
nlohmann::json errors_to_json(const Errors& errors);
// Scenario text -> JSON with the size limit and syntax check of every entry point; on failure records
// the error and returns a discarded value.
nlohmann::json parse_scenario_text(const std::string& text, Errors& errors);

}  // namespace gpucalc
