// Report assembly: runs the estimators a scenario asks for and writes the report JSON
// (docs/SCHEMA.md). Every number is plain SI with the unit in the key.
#include "gpucalc/report.hpp"

#include <cmath>

#include "gpucalc/catalog.hpp"
#include "gpucalc/cluster.hpp"
#include "gpucalc/finetune.hpp"
#include "gpucalc/fleet.hpp"
#include "gpucalc/inference.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/version.hpp"
#include "gpucalc/roofline.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/training.hpp"
#include "gpucalc/units.hpp"

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

json training_config_json(const TrainingConfig& c) {
    json j = write_fields(c, training_fields());
    j["efficiency"] = write_fields(c.efficiency, efficiency_fields());
    return j;
}


// The layout fields of a training config (what a "use this layout" button puts in a scenario).
json layout_json(const TrainingConfig& c) {
    json t = training_config_json(c);
    json j = json::object();
    for (const char* k : {"tp", "pp", "dp", "vpp", "micro_batch", "global_batch", "zero", "recompute", "sequence_parallel",
                          "overlap_dp_comm", "ep", "cp"})
        j[k] = t[k];
    return j;
}

std::string layout_text(const TrainingConfig& c) {
    const json t = training_config_json(c);
    std::string s;
    for (const char* k : {"tp", "pp", "dp", "vpp", "micro_batch", "zero", "recompute"})
        s += (s.empty() ? "" : ", ") + std::string(k) + " " + (t[k].is_string() ? t[k].get<std::string>() : jr::to_text(t[k]));
    return s;
}

json hardware_json(const Hardware& h) {
    json j = write_fields(h, hardware_fields());
    j["device"] = device_echo(h.device);
    j["device_name"] = h.device.name;  // informational; accepted and ignored on input
    // The catalog's NIC is echoed as the figure used, unless a network preset says the bandwidth.
    if (!h.scale_out_bytes_per_second && !h.network) j["scale_out_bytes_per_second"] = opt(h.device.scale_out_bytes_per_second);
    if (!h.pools.empty()) {
        // A fleet: the pools say the devices; device is null (it cannot be combined with pools).
        json pools = json::array();
        for (const auto& p : h.pools)
            pools.push_back({{"device", device_echo(p.device)}, {"count", p.count}, {"site", p.site}, {"devices_per_node", p.devices_per_node}});
        j["pools"] = pools;
        j["device"] = nullptr;
        j["device_name"] = nullptr;
        j["scale_out_bytes_per_second"] = opt(h.scale_out_bytes_per_second);
    }
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
    j["node_power_watts"] = opt(c.node_power_watts);
    j["facility_power_watts"] = opt(c.facility_power_watts);
    j["price_usd"] = opt(c.price_usd);
    j["cloud_usd_per_hour"] = opt(c.cloud_usd_per_hour);
    return j;
}

// Traffic across sites (the WAN level): what one exchange costs, what the step waits for, and what
// synchronous data parallelism would have moved.
json communication_json(const TrainingResult& r) {
    const WanTraffic& w = r.wan;
    const bool ok = r.fits;
    auto when = [&](bool c, double v) { return ok && c ? json(v) : json(nullptr); };
    const bool dp = w.sites_dp > 1, pp = w.sites_pp > 1;
    const double comm = r.step.tp_comm + r.step.cp_comm + r.step.pp_comm + r.step.ep_comm + r.step.dp_comm + r.step.outer_comm;
    const double wan_exposed = w.exchange_exposed_seconds + w.pp_seconds;
    return {{"sites_data_parallel", w.sites_dp},
            {"sites_per_pipeline", w.sites_pp},
            {"exposed_seconds_per_step", when(true, comm)},
            {"wan_exposed_seconds_per_step", when(true, wan_exposed)},
            {"compute_utilization", when(true, r.compute_utilization)},
            {"exchange_seconds", when(dp, w.exchange_seconds)},
            {"exchange_seconds_per_step", when(dp, w.exchange_seconds / r.config.local_steps)},
            {"exchange_hidden_fraction",
             when(dp, w.exchange_seconds > 0 ? 1.0 - w.exchange_exposed_seconds * (r.config.local_steps > 1 ? r.config.local_steps : 1) / w.exchange_seconds : 1.0)},
            {"exchange_bytes_per_site", when(dp, w.exchange_bytes_per_site)},
            {"wan_bytes_per_site_per_step", when(dp, w.bytes_per_site_per_step)},
            {"synchronous_bytes_per_site_per_step", when(dp, w.sync_bytes_per_site_per_step)},
            {"reduction_vs_synchronous", when(dp && w.bytes_per_site_per_step > 0, w.sync_bytes_per_site_per_step / w.bytes_per_site_per_step)},
            {"pipeline_wan_seconds_per_step", when(pp, w.pp_seconds)},
            {"pipeline_wan_bytes_per_microbatch", when(pp, w.pp_bytes_per_microbatch)},
            {"pipeline_wan_bound_tokens_per_second", when(pp, w.pp_bound_tokens_per_second)},
            {"inner_step_seconds", when(true, w.inner_step_seconds)}};
}

json local_sgd_json(const TrainingResult& r) {
    if (!r.convergence) return nullptr;
    const Convergence& c = *r.convergence;
    const bool ok = r.fits && r.seconds;
    auto days = [&](const std::optional<double>& k) { return ok && k ? json(*r.seconds * *k / units::seconds_per_day) : json(nullptr); };
    return {{"local_steps", c.local_steps},
            {"perplexity_change_low", c.perplexity_change_low},
            {"perplexity_change_high", c.perplexity_change_high},
            {"token_multiplier_low", c.token_multiplier_low ? json(*c.token_multiplier_low) : json(nullptr)},
            {"token_multiplier_high", c.token_multiplier_high ? json(*c.token_multiplier_high) : json(nullptr)},
            {"days_same_loss_low", days(c.token_multiplier_low)},
            {"days_same_loss_high", days(c.token_multiplier_high)},
            {"beyond_published", c.beyond_published},
            {"basis", c.basis}};
}

json training_json(const TrainingResult& r) {
    // Figures of time and money exist only for a setup that runs: null when it does not fit.
    const bool ok = r.fits;
    auto when_ok = [&](double v) { return ok ? json(v) : json(nullptr); };
    auto total = [&](const std::optional<double>& v) { return ok && v ? json(*v) : json(nullptr); };
    json j;
    j["params"] = r.params_total;
    j["active_params"] = r.params_active;
    j["tokens"] = r.tokens > 0 ? json(r.tokens) : json(nullptr);
    j["flops"] = r.tokens > 0 ? json(r.flops) : json(nullptr);
    j["flops_6nd"] = r.tokens > 0 ? json(r.flops_6nd) : json(nullptr);
    j["model_flops_per_token"] = r.model_flops_per_token;
    j["hardware_flops_per_token"] = r.hardware_flops_per_token;
    j["seconds"] = total(r.seconds);
    j["days"] = ok && r.seconds ? json(*r.seconds / units::seconds_per_day) : json(nullptr);
    j["gpu_hours"] = total(r.gpu_hours);
    j["cost_usd"] = total(r.cost_usd);
    j["gpu_hour_usd"] = r.gpu_hour_usd;
    j["energy_kwh"] = total(r.energy_kwh);
    j["co2_kg"] = total(r.co2_kg);
    j["mfu"] = when_ok(r.mfu);
    j["mfu_source"] = r.mfu_given ? "given" : "predicted";
    j["mfu_predicted"] = when_ok(r.mfu_predicted);
    j["hfu"] = when_ok(r.hfu);
    j["step_seconds"] = when_ok(r.step_seconds);
    j["tokens_per_step"] = r.tokens_per_step;
    j["tokens_per_second"] = when_ok(r.tokens_per_second);
    j["achieved_flops_per_second_per_gpu"] = when_ok(r.achieved_flops_per_second_per_gpu);
    j["memory_per_gpu_bytes"] = {{"weights", r.memory.weights},         {"gradients", r.memory.gradients},
                                 {"optimizer", r.memory.optimizer},     {"activations", r.memory.activations},
                                 {"overhead", r.memory.overhead},       {"total", r.memory.total},
                                 {"outer_optimizer", r.memory.outer_optimizer}};
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["zero3_buffer_bytes"] = r.zero3_buffer_bytes;
    j["dp_comm_bytes_per_step"] = r.dp_comm_bytes_per_step;
    j["fits"] = r.fits;
    j["infeasible_reason"] = r.infeasible_reason;
    j["step_breakdown_seconds"] = {{"gemm", when_ok(r.step.gemm)},         {"attention", when_ok(r.step.attention)},
                                   {"memory_bound", when_ok(r.step.memory_bound)}, {"tp_comm", when_ok(r.step.tp_comm)},
                                   {"pp_comm", when_ok(r.step.pp_comm)},   {"ep_comm", when_ok(r.step.ep_comm)},
                                   {"pp_bubble", when_ok(r.step.pp_bubble)},
                                   {"cp_comm", when_ok(r.step.cp_comm)},   {"overhead", when_ok(r.step.overhead)},
                                   {"dp_comm", when_ok(r.step.dp_comm)},   {"optimizer", when_ok(r.step.optimizer)},
                                   {"outer_comm", when_ok(r.step.outer_comm)},
                                   {"total", when_ok(r.step.total)}};
    j["uncertainty"] = {{"seconds_low", total(r.seconds_low)}, {"seconds_high", total(r.seconds_high)},
                        {"cost_usd_low", total(r.cost_usd_low)}, {"cost_usd_high", total(r.cost_usd_high)},
                        {"mfu_low", ok && r.mfu_low ? json(*r.mfu_low) : json(nullptr)},
                        {"mfu_high", ok && r.mfu_high ? json(*r.mfu_high) : json(nullptr)},
                        {"band_basis", r.band_basis}};
    j["goodput"] = r.goodput.value;
    j["goodput_breakdown"] = {{"failures_per_hour", r.goodput.failures_per_hour},
                              {"checkpoint_seconds", r.goodput.checkpoint_seconds},
                              {"checkpoint_interval_seconds", r.goodput.checkpoint_interval_seconds},
                              {"restart_seconds", r.goodput.restart_seconds},
                              {"source", r.goodput.given ? "training.goodput" : "failure/checkpoint model"}};
    j["framework"] = r.framework;
    j["mfu_peak_precision"] = r.config.precision == Precision::fp8 ? "bf16" : std::string(precision_name(r.config.precision));
    j["tokens_per_second_per_device"] = when_ok(r.tokens_per_second / static_cast<double>(r.devices));
    j["network"] = r.network;
    j["communication"] = communication_json(r);
    j["local_sgd"] = local_sgd_json(r);
    return j;
}

json inference_json(const InferenceResult& r) {
    // Speeds, capacity and costs exist only for a setup that runs: null when it does not fit.
    const bool ok = r.fits;
    auto when_ok = [&](double v) { return ok ? json(v) : json(nullptr); };
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
    j["infeasible_reason"] = r.infeasible_reason;
    j["max_batch"] = r.max_batch;
    j["instances_per_gpu"] = r.instances_per_gpu;
    j["instances_per_cluster"] = r.instances_per_cluster;
    j["prefill_seconds"] = when_ok(r.prefill_seconds);
    j["decode_seconds_per_token"] = when_ok(r.decode_seconds_per_token);
    j["decode_bound"] = r.decode_memory_bound ? "memory" : "compute";
    j["turn_batch"] = r.turn_batch;
    j["decode_tokens_per_second_per_user"] = when_ok(r.decode_tokens_per_second_per_user);
    j["throughput_tokens_per_second_per_gpu"] = when_ok(r.throughput_tokens_per_second_per_gpu);
    j["request_seconds"] = when_ok(r.request_seconds);
    j["replicas"] = r.replicas;
    j["cluster_throughput_tokens_per_second"] = when_ok(r.cluster_throughput_tokens_per_second);
    j["concurrent_sequences"] = r.concurrent_sequences;
    const bool sized = ok && r.config.requests_per_day > 0;
    j["gpus_needed"] = sized ? json(r.gpus_needed) : json(nullptr);
    j["cost_per_day_usd"] = sized ? json(r.cost_per_day_usd) : json(nullptr);
    j["energy_per_day_kwh"] = sized ? json(r.energy_per_day_kwh) : json(nullptr);
    j["cost_per_million_output_tokens_usd"] = ok && r.gpu_hour_usd > 0 ? json(r.cost_per_million_output_tokens_usd) : json(nullptr);
    j["cost_per_million_input_tokens_usd"] = ok && r.gpu_hour_usd > 0 ? json(r.cost_per_million_input_tokens_usd) : json(nullptr);
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
    // Serving (issue 15): the batch served, decode by cause, per-user latency, costs that add up.
    j["batch"] = r.batch;
    j["batch_source"] = r.batch_given ? "given" : "max_throughput";
    j["instance_gpus"] = r.instance_gpus;
    j["kv_cache_bytes_per_token_per_gpu"] = r.kv_cache_bytes_per_token_per_gpu;
    j["kv_cache_bytes_per_gpu"] = r.kv_cache_bytes_per_gpu;
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["host_weights_bytes"] = r.host_weights_bytes;
    const DecodeTerms& t = r.decode;
    j["decode_breakdown_seconds"] = {{"weights", when_ok(t.weights)},
                                     {"dequantization", when_ok(t.dequantization)},
                                     {"host_offload", when_ok(t.host_offload)},
                                     {"compute", when_ok(t.compute)},
                                     {"kv_cache", when_ok(t.kv_cache)},
                                     {"attention", when_ok(t.attention)},
                                     {"kernel_overhead", when_ok(t.kernel_overhead)},
                                     {"sequence_overhead", when_ok(t.sequence_overhead)},
                                     {"tp_comm", when_ok(t.tp_comm)},
                                     {"ep_comm", when_ok(t.ep_comm)},
                                     {"total", when_ok(t.total)}};
    j["tpot_seconds"] = when_ok(r.tpot_seconds);
    j["ttft_seconds"] = ok && r.ttft_defined ? json(r.ttft_seconds) : json(nullptr);
    j["output_tokens_per_second_per_user"] = when_ok(r.output_tokens_per_second_per_user);
    j["throughput_tokens_per_second_per_instance"] = when_ok(r.throughput_tokens_per_second_per_instance);
    j["input_tokens_per_second_per_gpu"] = when_ok(r.input_tokens_per_second_per_gpu);
    j["requests_per_second_per_instance"] = when_ok(r.requests_per_second_per_instance);
    j["instances_needed"] = sized ? json(r.instances_needed) : json(nullptr);
    j["input_tokens_per_day"] = sized ? json(r.input_tokens_per_day) : json(nullptr);
    j["output_tokens_per_day"] = sized ? json(r.output_tokens_per_day) : json(nullptr);
    j["input_cost_share"] = when_ok(r.input_cost_share);
    j["cost_per_day_input_usd"] = sized ? json(r.cost_per_day_usd * r.input_cost_share) : json(nullptr);
    j["cost_per_day_output_usd"] = sized ? json(r.cost_per_day_usd * (1.0 - r.input_cost_share)) : json(nullptr);
    j["cost_split"] = r.cost_split;
    j["speculative"] = r.config.speculative ? json{{"tokens_per_step", when_ok(r.speculative_tokens_per_step)},
                                                    {"speedup", when_ok(r.speculative_speedup)}}
                                            : json(nullptr);
    j["disaggregation"] = r.config.disaggregated ? json{{"prefill_instances", sized ? json(r.prefill_instances) : json(nullptr)},
                                                        {"decode_instances", sized ? json(r.decode_instances) : json(nullptr)},
                                                        {"kv_transfer_seconds", when_ok(r.kv_transfer_seconds)}}
                                                 : json(nullptr);
    if (r.slo) {
        auto cand = [&](const SloCandidate& c) {
            return json{{"weight_precision", precision_name(c.weight_precision)},
                        {"kv_precision", precision_name(c.kv_precision)},
                        {"tp", c.tp},
                        {"batch", c.batch},
                        {"gpus", c.met || c.gpus > 0 ? json(c.gpus) : json(nullptr)},
                        {"ttft_seconds", c.ttft_seconds > 0 ? json(c.ttft_seconds) : json(nullptr)},
                        {"tpot_seconds", c.tpot_seconds > 0 ? json(c.tpot_seconds) : json(nullptr)},
                        {"met", c.met},
                        {"reason", c.reason}};
        };
        json all = json::array();
        for (const auto& c : r.slo->candidates) all.push_back(cand(c));
        j["slo"] = {{"met", r.slo->met}, {"chosen", r.slo->met ? cand(r.slo->chosen) : json(nullptr)}, {"candidates", all}};
    } else {
        j["slo"] = nullptr;
    }
    return j;
}

json inference_inputs_json(const InferenceConfig& c) {
    json j = write_fields(c, inference_fields());
    j["slo"] = c.slo ? write_fields(*c.slo, slo_fields()) : json(nullptr);
    j["speculative"] = c.speculative ? write_fields(*c.speculative, speculative_fields()) : json(nullptr);
    return j;
}

json finetune_json(const FinetuneResult& r) {
    const bool ok = r.fits;
    auto when_ok = [&](double v) { return ok ? json(v) : json(nullptr); };
    auto total = [&](const std::optional<double>& v) { return ok && v ? json(*v) : json(nullptr); };
    const FinetuneMemory& m = r.memory;
    json j;
    j["params"] = r.params_total;
    j["trainable_params"] = r.trainable_params;
    j["devices"] = r.devices;
    j["memory_per_gpu_bytes"] = {{"weights", m.weights},       {"master_weights", m.master}, {"gradients", m.gradients},
                                 {"optimizer", m.optimizer},   {"activations", m.activations}, {"logits", m.logits},
                                 {"fsdp_working", m.fsdp_working}, {"overhead", m.overhead}, {"total", m.total}};
    j["peak_active_bytes"] = r.peak_active_bytes;
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["fits"] = r.fits;
    j["infeasible_reason"] = r.infeasible_reason;
    j["max_batch"] = r.max_batch;
    j["max_seq_len"] = r.max_seq_len;
    j["flops_per_token"] = r.flops_per_token;
    j["step_seconds"] = when_ok(r.step_seconds);
    j["tokens_per_second"] = when_ok(r.tokens_per_second);
    j["seconds"] = total(r.seconds);
    j["gpu_hours"] = total(r.gpu_hours);
    j["cost_usd"] = total(r.cost_usd);
    j["gpu_hour_usd"] = r.gpu_hour_usd;
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

json plan_to_json(const Plan& p) {
    const auto& c = p.config;
    json j = {{"tp", c.tp},
              {"pp", c.pp},
              {"dp", c.dp.value_or(1)},
              {"vpp", c.vpp},
              {"micro_batch", c.micro_batch},
              {"zero", c.zero},
              {"sequence_parallel", c.sequence_parallel.value_or(false)},
              {"overlap_dp_comm", c.overlap_dp_comm},
              {"global_batch", c.global_batch.value_or(0)},
              {"step_seconds", p.step_seconds},
              {"memory_per_gpu_bytes", p.memory_per_gpu_bytes},
              {"mfu", p.mfu},
              {"tokens_per_second", p.tokens_per_second},
              {"bubble_fraction", p.bubble_fraction}};
    // The complete training section of this plan: drop it into a scenario to get the same layout.
    j["training"] = training_config_json(c);
    j["recompute"] = j["training"]["recompute"];
    return j;
}

json plan_result_json(const PlanResult& r) {
    json best = json::array(), layouts = json::array();
    for (const auto& p : r.best) best.push_back(plan_to_json(p));
    for (const auto& p : r.best_per_layout) layouts.push_back(plan_to_json(p));
    return {{"considered", r.considered},
            {"feasible", r.feasible},
            {"rejected", {{"out_of_memory", r.rejected_out_of_memory}, {"indivisible", r.rejected_indivisible}}},
            {"search_seconds", r.search_seconds},
            {"plans_per_second", r.search_seconds > 0 ? r.considered / r.search_seconds : 0},
            {"best", best},
            {"best_per_layout", layouts}};
}

json device_echo(const Device& d) { return d.custom ? device_to_scenario_json(d) : json(d.id); }

json errors_to_json(const Errors& errors) {
    json arr = json::array();
    for (const auto& e : errors) arr.push_back({{"code", e.code}, {"field", e.field}, {"message", e.message}});
    return {{"errors", arr}};
}

json build_report(const Scenario& s) {
    json report;
    report["gpucalc_version"] = kVersion;
    Trace trace(s.explain);
    std::vector<std::string> warnings;
    json inputs = json::object();
    if (s.model) inputs["model"] = model_to_json(*s.model);
    if (s.hardware) inputs["hardware"] = hardware_json(*s.hardware);
    inputs["costs"] = write_fields(s.costs, costs_fields());
    if (s.hardware) {
        const ClusterResult c = estimate_cluster(*s.hardware, s.costs, trace);
        report["cluster"] = cluster_json(c);
        for (const auto& w : c.warnings) warnings.push_back("cluster: " + w);
    }
    if (s.training && s.hardware && s.model && mixed_fleet(*s.hardware)) {
        // A mixed fleet: per-pool layouts (training.fleet); the echo keeps only the layout fields given.
        FleetResult f = estimate_fleet(*s.model, *s.hardware, *s.training, s.costs, trace);
        json echo = training_config_json(f.total.config);
        const auto& tf = training_fields();
        for (const char* k : {"tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel", "overlap_dp_comm",
                              "shard_group", "global_batch"})
            if (!(s.training->given & field_bit(tf, k))) echo[k] = nullptr;
        inputs["training"] = echo;
        report["training"] = training_json(f.total);
        report["training"]["layout_searched"] = true;
        report["training"]["suggested_layout"] = nullptr;
        report["training"]["fleet"] = fleet_json(f);
        for (auto& w : f.total.warnings) warnings.push_back("training: " + w);
        if (s.scaling) {
            report["scaling"] = json::array();
            warnings.push_back("training: no scaling curve for a mixed fleet (the curve varies one device's count)");
        }
    } else if (s.training && s.hardware && s.model) {
        const LayoutChoice layout = resolve_layout(*s.model, *s.hardware, *s.training);
        TrainingResult r = estimate_training(*s.model, *s.hardware, layout.config, s.costs, trace);
        std::optional<Plan> suggestion;
        if (!r.fits && layout.found) suggestion = suggest_layout(*s.model, *s.hardware, layout.config);
        if (!r.fits && !layout.found)
            r.infeasible_reason = "no parallel layout fits on " + jr::fmt_num(static_cast<double>(s.hardware->count)) + " x " +
                                  s.hardware->device.name + ": the layout needing the least memory needs " +
                                  jr::fmt_num(r.memory.total / units::GiB) + " GiB per device, which has " +
                                  jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB (more devices, or a smaller model)";
        inputs["training"] = training_config_json(r.config);
        report["training"] = training_json(r);
        report["training"]["layout_searched"] = layout.searched;
        report["training"]["suggested_layout"] = suggestion ? layout_json(suggestion->config) : json(nullptr);
        report["training"]["fleet"] = nullptr;
        if (layout.searched && layout.found)
            warnings.push_back("training: no parallel layout given: the plan search chose " + layout_text(r.config));
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
        inputs["inference"] = inference_inputs_json(r.config);
        report["inference"] = inference_json(r);
        for (auto& w : r.warnings) warnings.push_back("inference: " + w);
    }
    if (s.finetune && s.hardware && s.model) {
        FinetuneResult r = estimate_finetune(*s.model, *s.hardware, *s.finetune, s.costs, trace);
        inputs["finetune"] = write_fields(r.config, finetune_fields());
        report["finetune"] = finetune_json(r);
        for (auto& w : r.warnings) warnings.push_back("finetune: " + w);
    }
    if (s.compare) {
        report["compare"] = compare_json(*s.compare, estimate_compare(*s.compare, trace));
        json c = write_fields(*s.compare, compare_fields());
        c["a"] = device_echo(s.compare->a);
        c["b"] = device_echo(s.compare->b);
        inputs["compare"] = c;
    }
    if (s.roofline) {
        report["roofline"] = roofline_json(estimate_roofline(*s.roofline));
        json r = write_fields(*s.roofline, roofline_fields());
        json devs = json::array();
        for (const auto& d : s.roofline->devices) devs.push_back(device_echo(d));
        r["devices"] = devs;
        if (s.roofline->model) r["model"] = model_to_json(*s.roofline->model);
        inputs["roofline"] = r;
    }
    inputs["scaling"] = s.scaling;
    inputs["explain"] = s.explain;
    report["inputs"] = inputs;
    if (s.explain) report["explain"] = trace.to_json();
    std::vector<std::string> bad, path;
    sanitize(report, path, bad);
    for (const auto& b : bad) warnings.push_back("internal: a non-finite value at " + b + " was replaced by null");
    report["warnings"] = warnings;
    return report;
}

}  // namespace gpucalc
