// The field table of every scenario section (one row per key). Parsing (scenario_parse.cpp, model.cpp),
// the echoed `inputs` (report.cpp), `gpucalc schema` / wasm schema(), docs/SCHEMA.md and the
// page's forms all read these tables; adding a scalar field is one row here plus its struct member.
#pragma once
#include <vector>

#include "gpucalc/fields.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

FieldTable<ModelSpec> model_fields();
FieldTable<Hardware> hardware_fields();
FieldTable<TrainingConfig> training_fields();
FieldTable<EfficiencyOverrides> efficiency_fields();
FieldTable<InferenceConfig> inference_fields();
FieldTable<ServingSlo> slo_fields();
FieldTable<SpeculativeConfig> speculative_fields();
FieldTable<Costs> costs_fields();
FieldTable<FinetuneConfig> finetune_fields();
FieldTable<RooflineRequest> roofline_fields();
FieldTable<CompareRequest> compare_fields();
FieldTable<InverseQuestion> inverse_fields();
FieldTable<PlanOptions> plan_fields();
// Whether the scenario gave a training field (then a search holds it fixed and a default does not apply).
bool training_field_given(const TrainingConfig& t, std::string_view name);
// A custom device's scalar SI fields (its peaks are the nested object peak_flops_per_second).
FieldTable<Device> custom_device_fields();

// The whole input schema: every table, plus the structured keys (devices, claims, inverse
// questions, plan options) described in words. `gpucalc schema` prints it; docs/SCHEMA.md is
// generated from it (`gpucalc schema --markdown`).
jv::Value schema_json();
std::string schema_markdown();
std::string error_codes_markdown();  // docs/SCHEMA.md's error-code table

// The echo of a model and of a custom device in `inputs`: written from the tables, they parse back
// (scenario_parse.hpp) to the same model and device.
void write_model(jw::Val out, const ModelSpec& m);
jv::Value model_to_json(const ModelSpec& m);
void write_device_scenario(jw::Val out, const Device& d);
jv::Value device_to_scenario_json(const Device& d);

// Pools of different devices, node sizes or site sizes (the fleet estimator, fleet.cpp); pools of one
// device in equal sites are the single-device model with hardware.sites.
bool mixed_fleet(const Hardware& hw);
// What makes two devices the same: a catalog device's id; a custom device's whole scenario JSON (every
// custom device has the id "custom").
std::string device_identity(const Device& d);

}  // namespace gpucalc
