// The report: runs the estimators a scenario asks for and writes their results as JSON
// (docs/SCHEMA.md). Every number is plain SI with the unit in the key.
#pragma once
#include "gpucalc/errors.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// The whole report for a valid scenario, written into `out`; `inputs` echoes the effective scenario
// (defaults filled in), which parses back to the identical report. With s.explain, the
// derivations go under "explain".
void write_report(jw::Val out, const Scenario& s);
void write_errors(jw::Val out, const Errors& errors);  // {"errors": [{code, field, message}, ...]}
void device_echo(jw::Val out, const Device& d);        // catalog id, or the custom device's fields
void write_plan(jw::Val out, const Plan& p);
void write_plan_result(jw::Val out, const PlanResult& r);

// The same as input values (jv::Value), for code that reads them (claims, reality check, inverse questions).
jv::Value build_report(const Scenario& s);
// An inverse question's effective model, hardware, costs and question (defaults filled in): what the
// answer is for (the page says its count and days). Not its training fields: written out in full, their
// defaults would fix the layout the question leaves to the plan search.
jv::Value inputs_echo(const Scenario& s, const InverseQuestion& q);
jv::Value errors_to_json(const Errors& errors);
jv::Value plan_to_json(const Plan& p);

}  // namespace gpucalc
