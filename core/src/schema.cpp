// The input schema, generated from the field tables: `gpucalc schema` (JSON, read by the page's
// forms) and `gpucalc schema --markdown` (docs/SCHEMA.md's scenario section, checked to be current
// by the test command).
#include <cmath>
#include <sstream>

#include "gpucalc/json_read.hpp"
#include "gpucalc/scenario_fields.hpp"

namespace gpucalc {

using json = jv::Value;

namespace {

struct Section {
    const char* path;
    const char* doc;
    json rows;
};

// Keys that are not scalar rows of a table: described in words.
struct Structured {
    const char* key;
    const char* type;
    const char* doc;
};
const Structured kStructured[] = {
    {"model.preset", "string", "a preset id (`gpucalc presets`); other model keys override its fields"},
    {"model.name", "string", "a display name"},
    {"hardware.device", "string or object",
     "a catalog id (`gpucalc devices`) or a custom device: `{\"base\": id, ...overrides}` or the SI fields under `hardware.device`"},
    {"hardware.device_name", "string", "the device's display name, echoed in `inputs`; ignored on input"},
    {"hardware.pools[]", "array",
     "a mixed fleet instead of device and count: 1 to 64 pools `{device, count, site, devices_per_node, gpu_hour_usd}` (device: id or "
     "custom device; "
     "count 1 to 1e8, at most 1e8 in all; site: a name of 1 to 64 characters, default \"site-1\"; pools naming the same site share it; "
     "gpu_hour_usd: this pool's rent, USD/h, 0 to 1e6, else costs.gpu_hour_usd or the catalog's; not with costs.ownership owned); "
     "pools of one device in equal sites are the single-device model with hardware.sites, others the fleet estimator (training.fleet)"},
    {"hardware.device.peak_flops_per_second", "object",
     "custom device: dense peak per precision (`fp64`, `fp64_matrix`, `fp32`, `tf32`, `bf16`, `fp16`, `fp8`, `int8`, `int4`, `fp4`), "
     "FLOP/s, each >= 1e6"},
    {"hardware.device.base, id, name, kind", "strings",
     "custom device: catalog device it starts from, id, display name, `gpu`|`tpu`|`accelerator`|`cpu`"},
    {"compare.a, compare.b", "device", "the two devices compared (id or custom device)"},
    {"roofline.devices", "array of devices", "1 to 32 devices drawn on the roofline"},
    {"roofline.model", "model", "adds one forward pass of this model to the workloads"},
    {"inference.speculative.draft_model", "model",
     "the draft's own architecture (`{\"preset\": id}` or architecture fields): its KV cache per token, its layers, and "
     "draft_params (its active parameters) when that is not given"},
    {"name, description", "strings", "free text, up to 200 / 2,000 characters"},
    {"claim.checks[]", "array",
     "1 to 32 checks `{metric, expected, tolerance}` or `{metric, min, max}`; `metric` is a dotted report path (an unknown or undefined "
     "figure is an error)"},
    {"claim.vary", "object or array",
     "`{path, values}` (1 to 16 values) or up to 3 of them (at most 64 cases); `path` is a dotted scenario path other than "
     "claim/inverse/plan"},
    {"claim.depends, claim.unverifiable", "strings",
     "the reason when the verdict depends on something the model cannot decide, or when the claim cannot fail"},
    {"claim.size_to_traffic", "boolean",
     "each serving case on the GPUs its traffic needs: hardware.count set to inference.gpus_needed (a claim about a service's "
     "cost, not about the GPUs given)"},
};

void table_markdown(std::ostringstream& out, const char* path, const json& rows) {
    for (const auto& r : rows) {
        std::string type = r["type"].get<std::string>();
        if (r.contains("choices")) {
            type.clear();
            for (const auto& c : r["choices"]) type += (type.empty() ? "`" : "`\\|`") + c.get<std::string>();
            type += "`";
        } else if (r["type"] == "number" || r["type"] == "integer") {
            const bool lo = !r["min"].is_null(), hi = !r["max"].is_null();
            if (lo || hi) {
                type += " ";
                type += lo ? (r["min_exclusive"].get<bool>() ? "(" : "[") + jr::fmt_num(r["min"].get<double>()) : "(-inf";
                type += ", ";
                type += hi ? jr::fmt_num(r["max"].get<double>()) + "]" : "inf)";
            }
        }
        std::string def = r["default_doc"].get<std::string>();
        if (def.empty()) def = r["default"].is_null() ? "—" : jr::to_text(r["default"]);
        const std::string unit = r["unit"].get<std::string>();
        out << "| `" << path << "." << r["name"].get<std::string>() << "` | " << type << " | " << (unit.empty() ? "" : unit) << " | " << def
            << " | " << r["doc"].get<std::string>() << " |\n";
    }
}

std::vector<Section> sections() {
    return {
        {"model", "the model: a preset, a bare parameter count, or an architecture", table_schema_json(model_fields())},
        {"hardware", "the devices", table_schema_json(hardware_fields())},
        {"hardware.device", "a custom device's scalar fields (SI)", table_schema_json(custom_device_fields())},
        {"training", "a training run", table_schema_json(training_fields())},
        {"training.efficiency", "overrides of the performance model's constants", table_schema_json(efficiency_fields())},
        {"inference", "serving", table_schema_json(inference_fields())},
        {"inference.slo", "latency targets: the search over precision, TP and batch for the fewest GPUs", table_schema_json(slo_fields())},
        {"inference.speculative", "speculative decoding with a draft model or MTP module", table_schema_json(speculative_fields())},
        {"finetune", "fine-tuning: full, LoRA or QLoRA on hardware.count devices", table_schema_json(finetune_fields())},
        {"costs", "prices, power and carbon", table_schema_json(costs_fields())},
        {"compare", "two devices side by side", table_schema_json(compare_fields())},
        {"roofline", "roofline curves and typical kernels", table_schema_json(roofline_fields())},
        {"inverse", "an inverse question (the report is then `{inverse: ...}`)", table_schema_json(inverse_fields())},
        {"plan", "options of `gpucalc plan` only", table_schema_json(plan_fields())},
    };
}

}  // namespace

json schema_json() {
    json secs = json::object();
    for (auto& s : sections()) secs[s.path] = {{"doc", s.doc}, {"fields", s.rows}};
    json structured = json::array();
    for (const auto& k : kStructured) structured.push_back({{"key", k.key}, {"type", k.type}, {"doc", k.doc}});
    secs[""] = {{"doc", "top level"},
                {"fields", json::array({field_schema_json(boolean_spec("scaling", "add the training scaling curve"), 0.0),
                                        field_schema_json(boolean_spec("explain", "add derivations (show the work)"), 1.0)})}};
    json codes = json::array();
    for (const auto& c : kErrorCodes) codes.push_back({{"code", std::string(c.code)}, {"meaning", std::string(c.meaning)}});
    return {{"sections", secs}, {"structured", structured}, {"error_codes", codes}};
}

std::string error_codes_markdown() {
    std::ostringstream out;
    out << "<!-- generated by `gpucalc schema --error-codes` from core/include/gpucalc/errors.hpp; the test command checks it is current "
           "-->\n"
        << "| code | meaning |\n|---|---|\n";
    for (const auto& c : kErrorCodes) out << "| `" << c.code << "` | " << c.meaning << " |\n";
    return out.str();
}

std::string schema_markdown() {
    std::ostringstream out;
    out << "<!-- generated by `gpucalc schema --markdown` from the field tables (core/src/scenario_fields.cpp); "
           "the test command checks it is current -->\n"
        << "| key | type | unit | default | meaning |\n|---|---|---|---|---|\n";
    const json top = schema_json()["sections"][""]["fields"];
    for (auto& s : sections()) table_markdown(out, s.path, s.rows);
    for (const auto& r : top)
        out << "| `" << r["name"].get<std::string>() << "` | boolean |  | " << jr::to_text(r["default"]) << " | "
            << r["doc"].get<std::string>() << " |\n";
    for (const auto& k : kStructured) out << "| `" << k.key << "` | " << k.type << " |  | — | " << k.doc << " |\n";
    return out.str();
}

}  // namespace gpucalc
