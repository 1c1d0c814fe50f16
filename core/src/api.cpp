// Report assembly: runs the estimators a scenario asks for and writes the report JSON
// (docs/SCHEMA.md). Every number is plain SI with the unit in the key.
#include "gpucalc/api.hpp"

#include <cmath>

#include "gpucalc/catalog.hpp"
#include "gpucalc/cluster.hpp"
#include "gpucalc/inference.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/reality.hpp"
#include "gpucalc/roofline.hpp"
#include "gpucalc/training.hpp"

namespace gpucalc {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json peaks_json(const std::array<std::optional<double>, kPrecisionCount>& p) {
    json j = json::object();
    for (int i = 0; i < kPrecisionCount; ++i)
        if (p[i]) j[std::string(kPrecisionNames[i])] = *p[i];
    return j;
}

const char* recompute_name(Recompute r) { return r == Recompute::none ? "none" : (r == Recompute::full ? "full" : "selective"); }

json training_config_json(const TrainingConfig& c) {
    json j;
    j["tokens"] = opt(c.tokens);
    j["mfu"] = opt(c.mfu);
    j["precision"] = std::string(precision_name(c.precision));
    j["global_batch"] = opt(c.global_batch);
    j["micro_batch"] = c.micro_batch;
    j["tp"] = c.tp;
    j["pp"] = c.pp;
    j["dp"] = opt(c.dp);
    j["vpp"] = c.vpp;
    j["ep"] = c.ep;
    j["zero"] = c.zero;
    j["sequence_parallel"] = c.sequence_parallel.value_or(false);
    j["recompute"] = recompute_name(c.recompute);
    j["optimizer"] = c.optimizer == Optimizer::adam ? "adam" : "sgd";
    j["attention"] = c.attention == Attention::flash ? "flash" : "materialized";
    j["overlap_dp_comm"] = c.overlap_dp_comm;
    j["overhead_bytes"] = c.overhead_bytes;
    j["fragmentation"] = c.fragmentation;
    return j;
}

json inference_config_json(const InferenceConfig& c) {
    json j;
    j["weight_precision"] = std::string(precision_name(c.weight_precision));
    j["kv_precision"] = std::string(precision_name(c.kv_precision));
    j["batch"] = c.batch;
    j["prompt_tokens"] = c.prompt_tokens;
    j["output_tokens"] = c.output_tokens;
    j["tp"] = c.tp;
    j["requests_per_day"] = c.requests_per_day;
    j["peak_to_average"] = c.peak_to_average;
    j["latency_target_seconds_per_token"] = opt(c.latency_target_seconds_per_token);
    j["quant_group_size"] = c.quant_group_size;
    j["overhead_bytes"] = c.overhead_bytes;
    return j;
}

json costs_json(const Costs& c) {
    return {{"gpu_hour_usd", opt(c.gpu_hour_usd)},
            {"electricity_usd_per_kwh", c.electricity_usd_per_kwh},
            {"pue", c.pue},
            {"grid_kg_co2_per_kwh", c.grid_kg_co2_per_kwh},
            {"ownership", c.ownership},
            {"lifetime_years", c.lifetime_years}};
}

json hardware_json(const Hardware& h) {
    json j;
    j["device"] = h.device.custom ? device_to_json(h.device) : json(h.device.id);
    j["device_name"] = h.device.name;
    j["count"] = h.count;
    j["devices_per_node"] = h.devices_per_node;
    j["scale_out_bytes_per_second"] = opt(h.scale_out_bytes_per_second ? h.scale_out_bytes_per_second : h.device.scale_out_bytes_per_second);
    return j;
}

json cluster_json(const ClusterResult& c) {
    json j;
    j["devices"] = c.devices;
    j["nodes"] = c.nodes;
    j["cores"] = opt(c.simt_cores);
    j["full_die_cores"] = opt(c.full_die_simt_cores);
    j["matrix_units"] = opt(c.matrix_units);
    j["cpu_cores"] = opt(c.cpu_cores);
    j["memory_bytes"] = opt(c.memory_bytes);
    j["memory_bandwidth_bytes_per_second"] = opt(c.memory_bandwidth_bytes_per_second);
    j["peak_flops_per_second"] = peaks_json(c.peak_flops_per_second);
    j["power_watts"] = opt(c.power_watts);
    j["facility_power_watts"] = opt(c.facility_power_watts);
    j["price_usd"] = opt(c.price_usd);
    j["cloud_usd_per_hour"] = opt(c.cloud_usd_per_hour);
    return j;
}

json training_json(const TrainingResult& r) {
    json j;
    j["params"] = r.params_total;
    j["active_params"] = r.params_active;
    j["tokens"] = r.tokens;
    j["flops"] = r.flops;
    j["flops_6nd"] = r.flops_6nd;
    j["model_flops_per_token"] = r.model_flops_per_token;
    j["hardware_flops_per_token"] = r.hardware_flops_per_token;
    j["seconds"] = r.seconds;
    j["days"] = r.seconds / 86400.0;
    j["gpu_hours"] = r.gpu_hours;
    j["cost_usd"] = r.cost_usd;
    j["gpu_hour_usd"] = r.gpu_hour_usd;
    j["energy_kwh"] = r.energy_kwh;
    j["co2_kg"] = r.co2_kg;
    j["mfu"] = r.mfu;
    j["mfu_source"] = r.mfu_given ? "given" : "predicted";
    j["mfu_predicted"] = r.mfu_predicted;
    j["hfu"] = r.hfu;
    j["step_seconds"] = r.step_seconds;
    j["tokens_per_step"] = r.tokens_per_step;
    j["tokens_per_second"] = r.tokens_per_second;
    j["achieved_flops_per_second_per_gpu"] = r.achieved_flops_per_second_per_gpu;
    j["memory_per_gpu_bytes"] = {{"weights", r.memory.weights},         {"gradients", r.memory.gradients},
                                 {"optimizer", r.memory.optimizer},     {"activations", r.memory.activations},
                                 {"overhead", r.memory.overhead},       {"total", r.memory.total}};
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["fits"] = r.fits;
    j["step_breakdown_seconds"] = {{"gemm", r.step.gemm},         {"attention", r.step.attention},
                                   {"memory_bound", r.step.memory_bound}, {"tp_comm", r.step.tp_comm},
                                   {"pp_comm", r.step.pp_comm},   {"ep_comm", r.step.ep_comm},
                                   {"pp_bubble", r.step.pp_bubble},
                                   {"dp_comm", r.step.dp_comm},   {"optimizer", r.step.optimizer},
                                   {"total", r.step.total}};
    j["uncertainty"] = {{"seconds_low", r.seconds_low}, {"seconds_high", r.seconds_high},
                        {"cost_usd_low", r.cost_usd_low}, {"cost_usd_high", r.cost_usd_high}};
    return j;
}

json inference_json(const InferenceResult& r) {
    json j;
    j["params"] = r.params_total;
    j["active_params"] = r.params_active;
    j["weights_bytes"] = r.weights_bytes;
    j["weights_bytes_per_gpu"] = r.weights_bytes_per_gpu;
    j["kv_cache_bytes_per_token"] = r.kv_cache_bytes_per_token;
    j["context_tokens"] = r.context_tokens;
    j["kv_cache_bytes"] = r.kv_cache_bytes;
    j["overhead_bytes_per_gpu"] = r.overhead_bytes_per_gpu;
    j["memory_per_gpu_bytes"] = r.memory_per_gpu_bytes;
    j["fits"] = r.fits;
    j["max_batch"] = r.max_batch;
    j["instances_per_gpu"] = r.instances_per_gpu;
    j["instances_per_cluster"] = r.instances_per_cluster;
    j["prefill_seconds"] = r.prefill_seconds;
    j["decode_seconds_per_token"] = r.decode_seconds_per_token;
    j["decode_bound"] = r.decode_memory_bound ? "memory" : "compute";
    j["turn_batch"] = r.turn_batch;
    j["decode_tokens_per_second_per_user"] = r.decode_tokens_per_second_per_user;
    j["throughput_tokens_per_second_per_gpu"] = r.throughput_tokens_per_second_per_gpu;
    j["request_seconds"] = r.request_seconds;
    j["replicas"] = r.replicas;
    j["cluster_throughput_tokens_per_second"] = r.cluster_throughput_tokens_per_second;
    j["concurrent_sequences"] = r.concurrent_sequences;
    j["gpus_needed"] = r.gpus_needed;
    j["cost_per_day_usd"] = r.cost_per_day_usd;
    j["energy_per_day_kwh"] = r.energy_per_day_kwh;
    j["cost_per_million_output_tokens_usd"] = r.cost_per_million_output_tokens_usd;
    j["cost_per_million_input_tokens_usd"] = r.cost_per_million_input_tokens_usd;
    j["gpu_hour_usd"] = r.gpu_hour_usd;
    json curve = json::array();
    for (const auto& p : r.curve)
        curve.push_back({{"batch", p.batch},
                         {"decode_seconds_per_token", p.decode_seconds_per_token},
                         {"tokens_per_second_per_user", p.tokens_per_second_per_user},
                         {"tokens_per_second_per_gpu", p.tokens_per_second_per_gpu},
                         {"bound", p.memory_bound ? "memory" : "compute"},
                         {"fits", p.fits}});
    j["batch_curve"] = curve;
    return j;
}

json roofline_json(const RooflineResult& r) {
    json kernels = json::array();
    for (const auto& k : r.kernels)
        kernels.push_back({{"id", k.id}, {"name", k.name}, {"flops", k.flops}, {"bytes", k.bytes}, {"intensity_flops_per_byte", k.intensity()}});
    json devs = json::array();
    for (const auto& d : r.devices) {
        json curve = json::array();
        for (const auto& [x, y] : d.curve) curve.push_back({x, y});
        json ks = json::array();
        for (const auto& k : d.kernels)
            ks.push_back({{"id", k.id}, {"intensity_flops_per_byte", k.intensity},
                          {"attainable_flops_per_second", k.attainable_flops_per_second}, {"seconds", k.seconds}, {"bound", k.bound}});
        devs.push_back({{"id", d.id}, {"name", d.name}, {"precision", d.precision_used},
                        {"peak_flops_per_second", d.peak_flops_per_second},
                        {"bandwidth_bytes_per_second", d.bandwidth_bytes_per_second},
                        {"ridge_flops_per_byte", d.ridge_flops_per_byte}, {"curve", curve}, {"kernels", ks}});
    }
    return {{"kernels", kernels}, {"devices", devs}};
}

json compare_json(const CompareRequest& req, const CompareResult& r) {
    json j;
    j["a"] = device_to_json(req.a);
    j["b"] = device_to_json(req.b);
    j["precision_a"] = r.precision_a;
    j["precision_b"] = r.precision_b;
    j["peak_a_flops_per_second"] = r.peak_a;
    j["peak_b_flops_per_second"] = r.peak_b;
    j["compute_ratio"] = r.compute_ratio;
    j["bandwidth_ratio"] = opt(r.bandwidth_ratio);
    j["flops_per_watt_a"] = opt(r.flops_per_watt_a);
    j["flops_per_watt_b"] = opt(r.flops_per_watt_b);
    j["flops_per_usd_a"] = opt(r.flops_per_usd_a);
    j["flops_per_usd_b"] = opt(r.flops_per_usd_b);
    j["cpu_cores_equivalent"] = opt(r.cpu_cores_equivalent);
    return j;
}

// Safety net: no NaN or Inf ever leaves core. Replaces one with null and records where. The path is
// only spelled out when something is found (walking the report must stay cheap).
void sanitize(json& j, std::vector<std::string>& path, std::vector<std::string>& found) {
    if (j.is_number_float()) {
        if (!std::isfinite(j.get<double>())) {
            std::string p;
            for (const auto& k : path) p += (p.empty() || k[0] == '[' ? "" : ".") + k;
            found.push_back(p);
            j = nullptr;
        }
    } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!it.value().is_structured() && !it.value().is_number_float()) continue;
            path.push_back(it.key());
            sanitize(it.value(), path, found);
            path.pop_back();
        }
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (!j[i].is_structured() && !j[i].is_number_float()) continue;
            path.push_back("[" + std::to_string(i) + "]");
            sanitize(j[i], path, found);
            path.pop_back();
        }
    }
}

}  // namespace

json errors_to_json(const Errors& errors) {
    json arr = json::array();
    for (const auto& e : errors) arr.push_back({{"code", e.code}, {"field", e.field}, {"message", e.message}});
    return {{"errors", arr}};
}

json estimate(const Scenario& s) {
    json report;
    report["gpucalc_version"] = kVersion;
    Trace trace(s.explain);
    std::vector<std::string> warnings;
    json inputs = json::object();
    if (s.model) inputs["model"] = model_to_json(*s.model);
    if (s.hardware) inputs["hardware"] = hardware_json(*s.hardware);
    inputs["costs"] = costs_json(s.costs);
    if (s.hardware) report["cluster"] = cluster_json(estimate_cluster(*s.hardware, s.costs, trace));
    if (s.training && s.hardware && s.model) {
        TrainingResult r = estimate_training(*s.model, *s.hardware, *s.training, s.costs, trace);
        inputs["training"] = training_config_json(r.config);
        report["training"] = training_json(r);
        for (auto& w : r.warnings) warnings.push_back("training: " + w);
        if (s.scaling) {
            json curve = json::array();
            for (const auto& p : scaling_curve(*s.model, *s.hardware, r.config, s.costs))
                curve.push_back({{"gpus", p.gpus}, {"seconds", p.seconds}, {"mfu", p.mfu}, {"tokens_per_second", p.tokens_per_second},
                                 {"speedup", p.speedup}, {"efficiency", p.efficiency}});
            report["scaling"] = curve;
        }
    }
    if (s.inference && s.hardware && s.model) {
        InferenceResult r = estimate_inference(*s.model, *s.hardware, *s.inference, s.costs, trace);
        inputs["inference"] = inference_config_json(r.config);
        report["inference"] = inference_json(r);
        for (auto& w : r.warnings) warnings.push_back("inference: " + w);
    }
    if (s.compare) report["compare"] = compare_json(*s.compare, estimate_compare(*s.compare, trace));
    if (s.roofline) report["roofline"] = roofline_json(estimate_roofline(*s.roofline));
    report["inputs"] = inputs;
    if (s.explain) report["explain"] = trace.to_json();
    std::vector<std::string> bad, path;
    sanitize(report, path, bad);
    for (const auto& b : bad) warnings.push_back("internal: a non-finite value at " + b + " was replaced by null");
    report["warnings"] = warnings;
    return report;
}

json parse_scenario_text(const std::string& text, Errors& errors) {
    if (text.size() > kMaxScenarioBytes) {
        add_error(errors, "too_large", "", "the scenario is " + std::to_string(text.size()) + " bytes; at most " +
                                               std::to_string(kMaxScenarioBytes) + " are accepted");
        return json(json::value_t::discarded);
    }
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) add_error(errors, "malformed_json", "", "the scenario is not valid JSON");
    return j;
}

std::string estimate_json(const std::string& text) {
    Errors errors;
    json j = parse_scenario_text(text, errors);
    if (j.is_discarded()) return jr::to_text(errors_to_json(errors));
    // Inverse questions and claims are answered with the forward model on the rest of the scenario.
    if (j.is_object() && j.contains("inverse")) {
        json answer = answer_inverse(j, errors);
        if (!errors.empty()) return jr::to_text(errors_to_json(errors));
        return jr::to_text(json{{"gpucalc_version", kVersion}, {"inverse", answer}});
    }
    json claim;
    if (j.is_object() && j.contains("claim")) {
        claim = j["claim"];
        j.erase("claim");
    }
    Scenario s;
    if (!parse_scenario(j, s, errors)) return jr::to_text(errors_to_json(errors));
    json report = estimate(s);
    if (!claim.is_null()) {
        json verdict = evaluate_claim(j, claim, errors);
        if (!errors.empty()) return jr::to_text(errors_to_json(errors));
        report["claim"] = verdict;
    }
    return jr::to_text(report);
}

std::string devices_json() { return jr::to_text(catalog_to_json()); }

std::string presets_json() {
    json arr = json::array();
    for (const auto& p : model_presets()) {
        json m = model_to_json(p.spec);
        m["id"] = p.id;
        m["published_params"] = p.published_params;
        m["published_source"] = p.published_source;
        arr.push_back(m);
    }
    return jr::to_text(json{{"models", arr}});
}

}  // namespace gpucalc
