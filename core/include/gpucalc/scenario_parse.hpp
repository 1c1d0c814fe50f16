// Reading a scenario: JSON in, plain structs out (scenario.hpp), every problem as an error with its
// field path. The field tables (scenario_fields.hpp) say how each scalar is read and checked; the
// rules that tie fields together (layout and GPU count, sites and the WAN, pools) are here.
#pragma once
#include <string>

#include "gpucalc/errors.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// How the parallel layout's rules apply: as the scenario says (its layout given or auto), as the
// constraints of a plan search (the fields given are checked as under layout auto: the search
// chooses the rest from valid layouts only), against the model only (the fields given, not the
// device count: gpus_needed chooses the count), or not at all (what_can_train sizes its own).
enum class LayoutCheck { scenario, search, model, none };

// Parses and validates a scenario. Returns false with every problem in `errors` (field paths).
bool parse_scenario(const jv::Value& j, Scenario& out, Errors& errors, LayoutCheck check = LayoutCheck::scenario);

// The training precision's peak on d (training.precision's error when it has none, or fp8 without a
// 16-bit peak to measure MFU against): for estimates and inverse questions alike.
void check_precision_peaks(const Device& d, Precision p, Errors& errors);

// scenario.model: {"preset": id} | {"params": N} | architecture fields (errors name `path`.*); its
// echo (write_model, scenario_fields.hpp) parses back to the same model.
bool model_from_json(const jv::Value& j, const std::string& path, ModelSpec& out, Errors& errors);

// A device from a scenario: a catalog id (string) or a custom device object (SI keys, optionally
// {"base": id, ...overrides}); errors name `path`. Its echo (write_device_scenario) parses back to it.
bool device_from_scenario(const jv::Value& j, const std::string& path, Device& out, Errors& errors);

}  // namespace gpucalc
