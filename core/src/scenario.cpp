// Scenario parsing and validation: type, range and consistency of every field, all errors at once.
#include "gpucalc/scenario.hpp"

#include <cmath>

#include "gpucalc/catalog.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/training.hpp"

namespace gpucalc {

using nlohmann::json;
using namespace jr;

namespace {

std::optional<Precision> precision_field(const json& o, const char* key, const std::string& path, Errors& errors,
                                         std::initializer_list<std::string_view> allowed) {
    auto s = choice(o, key, path, errors, allowed);
    if (!s) return std::nullopt;
    return parse_precision(*s);
}

void parse_hardware(const json& h, Scenario& s, Errors& errors) {
    const std::string path = "hardware";
    check_keys(h, path, errors, {"device", "count", "devices_per_node", "scale_out_bytes_per_second"});
    Hardware hw;
    auto it = h.find("device");
    bool ok = true;
    if (it == h.end() || it->is_null()) {
        add_error(errors, "missing", "hardware.device", "hardware.device is required (a catalog id or a custom device)");
        ok = false;
    } else {
        ok = device_from_scenario(*it, "hardware.device", hw.device, errors);
    }
    if (auto c = number(h, "count", path, errors, Range{1, 1e8, false, true})) hw.count = *c;
    if (auto c = number(h, "devices_per_node", path, errors, Range{1, 1e6, false, true})) hw.devices_per_node = *c;
    if (auto c = number(h, "scale_out_bytes_per_second", path, errors, positive(1e15))) hw.scale_out_bytes_per_second = *c;
    if (ok) {
        if (hw.devices_per_node == 0) hw.devices_per_node = hw.device.gpus_per_node;
        s.hardware = hw;
    }
}

void parse_training(const json& t, Scenario& s, Errors& errors) {
    const std::string path = "training";
    check_keys(t, path, errors,
               {"tokens", "mfu", "precision", "global_batch", "micro_batch", "tp", "pp", "dp", "vpp", "zero",
                "sequence_parallel", "recompute", "optimizer", "attention", "overlap_dp_comm", "overhead_bytes", "ep",
                "fragmentation", "efficiency"});
    TrainingConfig c;
    if (const json* e = object(t, "efficiency", path, errors)) {
        const std::string ep = "training.efficiency";
        check_keys(*e, ep, errors, {"gemm", "gemm_half_width", "attention", "memory", "network"});
        c.gemm_efficiency = number(*e, "gemm", ep, errors, Range{0, 1, true, false});
        c.gemm_half_width = number(*e, "gemm_half_width", ep, errors, non_negative(1e6));
        c.attention_efficiency = number(*e, "attention", ep, errors, Range{0, 1, true, false});
        c.memory_efficiency = number(*e, "memory", ep, errors, Range{0, 1, true, false});
        c.network_efficiency = number(*e, "network", ep, errors, Range{0, 1, true, false});
    }
    c.tokens = number(t, "tokens", path, errors, Range{1, 1e30, false, false});
    if (t.contains("mfu")) {
        auto m = number(t, "mfu", path, errors, Range{0, 1, true, false});
        if (m) c.mfu = *m;
    }
    if (auto p = precision_field(t, "precision", path, errors, {"fp32", "tf32", "bf16", "fp16", "fp8"})) c.precision = *p;
    c.global_batch = number(t, "global_batch", path, errors, Range{1, 1e9, false, true});
    if (auto v = number(t, "micro_batch", path, errors, Range{1, 1e6, false, true})) c.micro_batch = *v;
    if (auto v = number(t, "tp", path, errors, Range{1, 1e5, false, true})) c.tp = *v;
    if (auto v = number(t, "pp", path, errors, Range{1, 1e5, false, true})) c.pp = *v;
    c.dp = number(t, "dp", path, errors, Range{1, 1e8, false, true});
    if (auto v = number(t, "vpp", path, errors, Range{1, 1e3, false, true})) c.vpp = *v;
    if (auto v = number(t, "ep", path, errors, Range{1, 1e5, false, true})) c.ep = *v;
    if (auto v = number(t, "zero", path, errors, Range{0, 3, false, true})) c.zero = *v;
    c.sequence_parallel = boolean(t, "sequence_parallel", path, errors);
    if (auto v = choice(t, "recompute", path, errors, {"none", "selective", "full"}))
        c.recompute = *v == "none" ? Recompute::none : (*v == "full" ? Recompute::full : Recompute::selective);
    if (auto v = choice(t, "optimizer", path, errors, {"adam", "adamw", "sgd"}))
        c.optimizer = *v == "sgd" ? Optimizer::sgd : Optimizer::adam;
    if (auto v = choice(t, "attention", path, errors, {"flash", "materialized"}))
        c.attention = *v == "materialized" ? Attention::materialized : Attention::flash;
    if (auto v = boolean(t, "overlap_dp_comm", path, errors)) c.overlap_dp_comm = *v;
    if (auto v = number(t, "overhead_bytes", path, errors, non_negative(1e15))) c.overhead_bytes = *v;
    if (auto v = number(t, "fragmentation", path, errors, between(0, 1))) c.fragmentation = *v;
    s.training = c;
}

void parse_inference(const json& t, Scenario& s, Errors& errors) {
    const std::string path = "inference";
    check_keys(t, path, errors,
               {"weight_precision", "kv_precision", "batch", "prompt_tokens", "output_tokens", "tp", "requests_per_day",
                "peak_to_average", "latency_target_seconds_per_token", "quant_group_size", "overhead_bytes"});
    InferenceConfig c;
    if (auto p = precision_field(t, "weight_precision", path, errors, {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"}))
        c.weight_precision = *p;
    if (auto p = precision_field(t, "kv_precision", path, errors, {"fp32", "bf16", "fp16", "fp8", "int8"})) c.kv_precision = *p;
    if (auto v = number(t, "batch", path, errors, Range{1, 1e7, false, true})) c.batch = *v;
    if (auto v = number(t, "prompt_tokens", path, errors, Range{1, 1e8, false, true})) c.prompt_tokens = *v;
    if (auto v = number(t, "output_tokens", path, errors, Range{1, 1e8, false, true})) c.output_tokens = *v;
    if (auto v = number(t, "tp", path, errors, Range{1, 1e4, false, true})) c.tp = *v;
    if (auto v = number(t, "requests_per_day", path, errors, non_negative(1e15))) c.requests_per_day = *v;
    if (auto v = number(t, "peak_to_average", path, errors, Range{1, 100, false, false})) c.peak_to_average = *v;
    c.latency_target_seconds_per_token = number(t, "latency_target_seconds_per_token", path, errors, positive(1e6));
    if (auto v = number(t, "quant_group_size", path, errors, Range{1, 1e6, false, true})) c.quant_group_size = *v;
    if (auto v = number(t, "overhead_bytes", path, errors, non_negative(1e15))) c.overhead_bytes = *v;
    s.inference = c;
}

void parse_costs(const json& c, Scenario& s, Errors& errors) {
    const std::string path = "costs";
    check_keys(c, path, errors,
               {"gpu_hour_usd", "electricity_usd_per_kwh", "pue", "grid_kg_co2_per_kwh", "ownership", "lifetime_years"});
    s.costs.gpu_hour_usd = number(c, "gpu_hour_usd", path, errors, non_negative(1e6));
    if (auto v = number(c, "electricity_usd_per_kwh", path, errors, non_negative(100))) s.costs.electricity_usd_per_kwh = *v;
    if (auto v = number(c, "pue", path, errors, Range{1, 10, false, false})) s.costs.pue = *v;
    if (auto v = number(c, "grid_kg_co2_per_kwh", path, errors, non_negative(10))) s.costs.grid_kg_co2_per_kwh = *v;
    if (auto v = choice(c, "ownership", path, errors, {"cloud", "owned"})) s.costs.ownership = *v;
    if (auto v = number(c, "lifetime_years", path, errors, Range{0.1, 50, false, false})) s.costs.lifetime_years = *v;
}

void parse_compare(const json& c, Scenario& s, Errors& errors) {
    const std::string path = "compare";
    check_keys(c, path, errors, {"a", "b", "precision"});
    CompareRequest r;
    bool ok = true;
    for (const char* k : {"a", "b"}) {
        auto it = c.find(k);
        const std::string f = join(path, k);
        if (it == c.end()) {
            add_error(errors, "missing", f, f + " is required (a device id or custom device)");
            ok = false;
        } else {
            ok = device_from_scenario(*it, f, k[0] == 'a' ? r.a : r.b, errors) && ok;
        }
    }
    if (auto p = precision_field(c, "precision", path, errors, {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"}))
        r.precision = *p;
    if (ok) s.compare = r;
}

void parse_roofline(const json& c, Scenario& s, Errors& errors) {
    const std::string path = "roofline";
    check_keys(c, path, errors, {"devices", "precision", "matmul_n", "model", "prompt_tokens"});
    RooflineRequest r;
    if (auto v = number(c, "matmul_n", path, errors, Range{1, 1e6, false, true})) r.matmul_n = *v;
    if (auto v = number(c, "prompt_tokens", path, errors, Range{1, 1e7, false, true})) r.prompt_tokens = *v;
    if (const json* m = object(c, "model", path, errors)) {
        ModelSpec spec;
        Errors model_errors;
        if (model_from_json(*m, spec, model_errors)) r.model = spec;
        for (auto& e : model_errors) {
            if (e.field.rfind("model", 0) == 0) e.field = "roofline." + e.field;
            e.message = "roofline." + e.message;
            errors.push_back(e);
        }
    }
    auto it = c.find("devices");
    if (it == c.end() || !it->is_array() || it->empty()) {
        add_error(errors, "missing", "roofline.devices", "roofline.devices must be a non-empty array of device ids or objects");
        return;
    }
    if (it->size() > 32) {
        add_error(errors, "range", "roofline.devices", "roofline.devices holds at most 32 devices");
        return;
    }
    bool ok = true;
    for (std::size_t i = 0; i < it->size(); ++i) {
        Device d;
        if (device_from_scenario((*it)[i], "roofline.devices[" + std::to_string(i) + "]", d, errors)) r.devices.push_back(d);
        else ok = false;
    }
    if (auto p = precision_field(c, "precision", path, errors, {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"}))
        r.precision = *p;
    if (ok) s.roofline = r;
}

// Cross-field rules (Megatron-LM constraints: Narayanan et al. 2021 Sec. 3; Korthikanti et al. 2022).
void check_consistency(Scenario& s, Errors& errors, bool check_layout) {
    if (s.training && !s.hardware) add_error(errors, "missing", "hardware", "training needs hardware (device and count)");
    if (s.training && !s.model && check_layout) add_error(errors, "missing", "model", "training needs a model");
    if (s.inference && !s.hardware) add_error(errors, "missing", "hardware", "inference needs hardware (device and count)");
    if (s.inference && !s.model) add_error(errors, "missing", "model", "inference needs a model");
    if (s.training && s.hardware) {
        auto& t = *s.training;
        const Device& d = s.hardware->device;
        if (!d.peak(t.precision))
            add_error(errors, "unsupported", "training.precision",
                      "training.precision " + std::string(precision_name(t.precision)) + " has no published peak on " + d.name);
        if (!t.sequence_parallel) t.sequence_parallel = t.tp > 1;
    }
    if (s.training && s.hardware && check_layout) {
        auto& t = *s.training;
        const double n = s.hardware->count;
        const double tp_pp = t.tp * t.pp;
        if (!t.dp) {
            if (std::fmod(n, tp_pp) != 0)
                add_error(errors, "divisibility", "training.tp",
                          "hardware.count (" + fmt_num(n) + ") must be divisible by training.tp x training.pp (" + fmt_num(tp_pp) + ")");
            else t.dp = n / tp_pp;
        } else if (*t.dp * tp_pp != n) {
            add_error(errors, "divisibility", "training.dp",
                      "training.tp x training.pp x training.dp (" + fmt_num(*t.dp * tp_pp) + ") must equal hardware.count (" +
                          fmt_num(n) + ")");
        }
        if (t.vpp > 1 && t.pp == 1)
            add_error(errors, "range", "training.vpp", "training.vpp > 1 (interleaved schedule) needs training.pp > 1");
        if (s.model && s.model->has_architecture) {
            const ModelSpec& m = *s.model;
            if (std::fmod(m.heads, t.tp) != 0)
                add_error(errors, "divisibility", "training.tp",
                          "model.heads (" + fmt_num(m.heads) + ") must be divisible by training.tp (" + fmt_num(t.tp) + ")");
            if (!m.is_mla() && std::fmod(m.kv_heads, t.tp) != 0 && std::fmod(t.tp, m.kv_heads) != 0)
                add_error(errors, "divisibility", "training.tp",
                          "model.kv_heads (" + fmt_num(m.kv_heads) + ") and training.tp (" + fmt_num(t.tp) +
                              ") must divide one another");
            // Uneven stages are allowed (the slowest stage holds ceil(layers / pp) layers, as in BLOOM's 70
            // layers on 12 stages or Llama 3's 126 on 16), but every model chunk needs a layer.
            if (m.layers < t.pp * t.vpp)
                add_error(errors, "range", "training.pp",
                          "model.layers (" + fmt_num(m.layers) + ") must be at least training.pp x training.vpp (" +
                              fmt_num(t.pp * t.vpp) + ")");
        } else if (s.model && (t.tp > 1 || t.pp > 1)) {
            // params-only models: parallel layout is accepted but the time model uses the 6ND path.
        }
        if (t.ep > 1) {
            if (!s.model || !s.model->is_moe())
                add_error(errors, "range", "training.ep", "training.ep > 1 (expert parallelism) needs a mixture-of-experts model");
            else if (std::fmod(s.model->experts, t.ep) != 0)
                add_error(errors, "divisibility", "training.ep",
                          "model.experts (" + fmt_num(s.model->experts) + ") must be divisible by training.ep (" + fmt_num(t.ep) + ")");
            if (t.dp && std::fmod(*t.dp, t.ep) != 0)
                add_error(errors, "divisibility", "training.ep",
                          "training.dp (" + fmt_num(*t.dp) + ") must be divisible by training.ep (" + fmt_num(t.ep) + ")");
        }
        if (t.dp && s.model) {
            const double per_step = *t.dp * t.micro_batch;
            if (!t.global_batch) {
                t.global_batch = default_global_batch(s.model->seq_len, per_step);
            } else if (std::fmod(*t.global_batch, per_step) != 0) {
                add_error(errors, "divisibility", "training.global_batch",
                          "training.global_batch (" + fmt_num(*t.global_batch) + ") must be divisible by training.dp x " +
                              "training.micro_batch (" + fmt_num(per_step) + ")");
            }
        }
    }
    if (s.inference && s.hardware) {
        auto& c = *s.inference;
        const Device& d = s.hardware->device;
        if (std::fmod(s.hardware->count, c.tp) != 0)
            add_error(errors, "divisibility", "inference.tp",
                      "hardware.count (" + fmt_num(s.hardware->count) + ") must be divisible by inference.tp (" + fmt_num(c.tp) + ")");
        if (s.model && s.model->has_architecture && std::fmod(s.model->heads, c.tp) != 0)
            add_error(errors, "divisibility", "inference.tp",
                      "model.heads (" + fmt_num(s.model->heads) + ") must be divisible by inference.tp (" + fmt_num(c.tp) + ")");
        if (!d.memory_bandwidth_bytes_per_second)
            add_error(errors, "unsupported", "hardware.device", d.name + " has no published memory bandwidth");
        if (!d.memory_bytes)
            add_error(errors, "unsupported", "hardware.device", d.name + " has no device memory size (CPU sockets use system RAM)");
    }
}

}  // namespace

bool parse_scenario(const json& j, Scenario& s, Errors& errors, bool check_layout) {
    const std::size_t before = errors.size();
    if (!j.is_object()) {
        add_error(errors, "type", "", "the scenario must be a JSON object");
        return false;
    }
    check_keys(j, "", errors,
               {"model", "hardware", "training", "inference", "costs", "compare", "roofline", "scaling", "explain", "name",
                "description"});
    if (const json* m = object(j, "model", "", errors)) {
        ModelSpec spec;
        if (model_from_json(*m, spec, errors)) s.model = spec;
    }
    if (const json* h = object(j, "hardware", "", errors)) parse_hardware(*h, s, errors);
    if (const json* t = object(j, "training", "", errors)) parse_training(*t, s, errors);
    if (const json* t = object(j, "inference", "", errors)) parse_inference(*t, s, errors);
    if (const json* c = object(j, "costs", "", errors)) parse_costs(*c, s, errors);
    if (const json* c = object(j, "compare", "", errors)) parse_compare(*c, s, errors);
    if (const json* c = object(j, "roofline", "", errors)) parse_roofline(*c, s, errors);
    if (auto v = boolean(j, "scaling", "", errors)) s.scaling = *v;
    if (auto v = boolean(j, "explain", "", errors)) s.explain = *v;
    string(j, "name", "", errors, false, 200);
    string(j, "description", "", errors, false, 2000);
    if (errors.size() == before) check_consistency(s, errors, check_layout);
    if (errors.size() == before && !s.hardware && !s.compare && !s.roofline && !s.model)
        add_error(errors, "missing", "", "the scenario asks for nothing: give hardware, model, training, inference, compare or roofline");
    return errors.size() == before;
}

}  // namespace gpucalc
