// The entry points shared by the CLI and the WebAssembly module: JSON text in, JSON text out.
// They never throw and never crash: every failure (size, nesting depth, syntax, validation, an
// internal fault) comes back as {"errors": [{"code", "field", "message"}, ...]}.
#pragma once
#include <cstddef>
#include <string>

#include "gpucalc/version.hpp"

namespace gpucalc {

constexpr std::size_t kMaxScenarioBytes = 1 << 20;  // 1 MiB of JSON is far more than any scenario
constexpr int kMaxNestingDepth = 64;                // a real scenario nests fewer than 10 levels

std::string estimate_json(const std::string& scenario_text);  // report (or inverse answer, claim verdict) or errors
// Derivations on demand: {"gpucalc_version", "explain": {key: {formula, values, result, unit, source}}}
// for the figure `key` of the scenario's report (e.g. "training.flops"; {} when it has none), or
// for every figure when `key` is empty, whatever the scenario's own "explain" flag. The same as
// the "explain" member of estimate_json's report with "explain": true. ("claim" and "inverse"
// are ignored: only the scenario's report is explained.)
std::string explain_json(const std::string& scenario_text, const std::string& key);
std::string plan_json(const std::string& scenario_text);  // parallel layouts for a training scenario
std::string devices_json();                               // the catalog (SI units)
std::string presets_json();                               // model presets with parameter counts
std::string reality_json();                               // famous runs and claims with verdicts
std::string schema_json_text();                           // every scenario field: type, unit, range, default, doc
std::string networks_json();                              // network presets (hardware.network, hardware.wan) with sources

// Depth of the deepest [ or { in JSON text, by a linear scan (no recursion); strings skipped.
int json_nesting_depth(const std::string& text);

}  // namespace gpucalc
