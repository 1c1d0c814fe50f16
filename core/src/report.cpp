// Report assembly: runs the estimators a scenario asks for and writes the report JSON
// (docs/SCHEMA.md). Every number is plain SI with the unit in the key. The report is written into
// the output document of json_out.hpp (one allocation-light pass, keys sorted when written out).
#include "gpucalc/report.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/catalog.hpp"
#include "gpucalc/cluster.hpp"
#include "gpucalc/decimal.hpp"
#include "gpucalc/finetune.hpp"
#include "gpucalc/fleet.hpp"
#include "gpucalc/inference.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/roofline.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/training.hpp"
#include "gpucalc/units.hpp"
#include "gpucalc/version.hpp"

namespace gpucalc {

using jw::Scalar;
using jw::Val;

namespace {

Scalar opt(const std::optional<double>& v) { return v ? Scalar(*v) : Scalar(nullptr); }

void peaks_json(Val j, const std::array<std::optional<double>, kPrecisionCount>& p) {
    j.set_object();
    for (int i = 0; i < kPrecisionCount; ++i)
        if (p[i]) j[kPrecisionNames[i]] = *p[i];
}

void training_config_json(Val j, const TrainingConfig& c) {
    write_fields(j, c, training_fields());
    write_fields(j["efficiency"], c.efficiency, efficiency_fields());
}

// The layout fields of a training config (what a "use this layout" button puts in a scenario).
void layout_json(Val j, const TrainingConfig& c) {
    j.set_object();
    for (const char* k : {"tp", "pp", "dp", "vpp", "micro_batch", "global_batch", "zero", "recompute", "sequence_parallel",
                          "overlap_dp_comm", "ep", "cp", "expert_tp"})
        j[k] = field_value(c, training_fields(), k);  // expert_tp null: its default rule (tp, or 1 when ep does not divide dp x cp)
}

std::string layout_text(const TrainingConfig& c) {
    std::string s;
    // cp and ep when they split the work (tp x pp x dp alone would not make the count).
    for (const char* k : {"tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "zero", "recompute"}) {
        if ((k == std::string_view("cp") && c.cp == 1) || (k == std::string_view("ep") && c.ep == 1)) continue;
        const Scalar v = field_value(c, training_fields(), k);
        jw::Doc d;
        d.root() = v;
        s += (s.empty() ? "" : ", ") + std::string(k) + " " + (v.type == Scalar::Type::string ? std::string(v.str()) : d.text());
    }
    return s;
}

// What the plan search, or the default of a layout given, made of the batch when it raised it to feed
// the pipeline (pipeline_fed_batch), or nothing: a batch of 33.5M tokens had been chosen without a
// word where ~4M is the default (and Llama 3 70B at TP 8, PP 16, DP 128 given took 2,048 sequences,
// 16.8M tokens, without one; a red team).
std::string raised_batch_text(const Scenario& s, const TrainingConfig& c) {
    const double seq = s.model->seq_len, dp = static_cast<double>(c.dp.value_or(1));
    const bool batch_given = s.training->global_batch && !s.training->batch_defaulted;
    if (batch_given || !batch_raised_to_feed(c, seq, target_batch_tokens(site_count(*s.hardware), dp, c.local_steps))) return "";
    const double gb = static_cast<double>(*c.global_batch);
    return "; global_batch " + jr::fmt_num(gb) + " sequences (" + decimal::format_general(gb * seq / 1e6, 3) +
           "M tokens), raised from about 4M tokens to one micro-batch per pipeline stage (dp x micro_batch x pp): give "
           "training.global_batch to fix it";
}

void hardware_json(Val j, const Hardware& h) {
    write_fields(j, h, hardware_fields());
    device_echo(j["device"], h.device);
    j["device_name"] = h.device.name;  // informational; accepted and ignored on input
    // The catalog's NIC is echoed as the figure used, unless a network preset says the bandwidth.
    if (!h.scale_out_bytes_per_second && !h.network) j["scale_out_bytes_per_second"] = opt(h.device.scale_out_bytes_per_second);
    if (!h.pools.empty()) {
        // A fleet: the pools say the devices; device is null (it cannot be combined with pools).
        Val pools = j["pools"];
        pools.set_array();
        for (const auto& p : h.pools) {
            Val e = pools.append();
            device_echo(e["device"], p.device);
            e["count"] = p.count;
            e["site"] = p.site;
            e["devices_per_node"] = p.devices_per_node;
            e["gpu_hour_usd"] = opt(p.gpu_hour_usd);
        }
        j["device"] = nullptr;
        j["device_name"] = nullptr;
        j["scale_out_bytes_per_second"] = opt(h.scale_out_bytes_per_second);
    }
}

void cluster_json(Val j, const ClusterResult& c) {
    j["devices"] = c.devices;
    j["nodes"] = c.nodes;
    j["cores"] = opt(c.simt_cores);
    j["full_die_cores"] = opt(c.full_die_simt_cores);
    j["matrix_units"] = opt(c.matrix_units);
    j["cpu_cores"] = opt(c.cpu_cores);
    j["memory_bytes"] = opt(c.memory_bytes);
    j["memory_bandwidth_bytes_per_second"] = opt(c.memory_bandwidth_bytes_per_second);
    peaks_json(j["peak_flops_per_second"], c.peak_flops_per_second);
    j["power_watts"] = opt(c.power_watts);
    j["node_power_watts"] = opt(c.node_power_watts);
    j["facility_power_watts"] = opt(c.facility_power_watts);
    j["price_usd"] = opt(c.price_usd);
    j["cloud_usd_per_hour"] = opt(c.cloud_usd_per_hour);
}

// A figure of time and money: null when the setup does not fit.
Scalar when_ok(bool ok, double v) { return ok ? Scalar(v) : Scalar(nullptr); }

// Traffic across sites (the WAN level): what one exchange costs, what the step waits for, and what
// synchronous data parallelism would have moved.
void communication_json(Val j, const TrainingResult& r) {
    const WanTraffic& w = r.wan;
    const bool ok = r.fits;
    auto when = [&](bool c, double v) { return when_ok(ok && c, v); };
    const bool dp = w.sites_dp > 1, pp = w.sites_pp > 1;
    const double comm = r.step.tp_comm + r.step.cp_comm + r.step.pp_comm + r.step.ep_comm + r.step.dp_comm + r.step.outer_comm;
    const double wan_exposed = w.exchange_exposed_seconds + w.pp_seconds;
    j = {
        {"sites_data_parallel", w.sites_dp},
        {"sites_per_pipeline", w.sites_pp},
        {"exposed_seconds_per_step", when(true, comm)},
        {"wan_exposed_seconds_per_step", when(true, wan_exposed)},
        {"compute_utilization", when(true, r.compute_utilization)},
        {"exchange_seconds", when(dp, w.exchange_seconds)},
        {"exchange_seconds_per_step", when(dp, w.exchange_seconds / r.config.local_steps)},
        {"exchange_hidden_fraction",
         // (At least 0: an exchange wholly exposed came out as -2.2e-16 from rounding; a red team.)
         when(dp, w.exchange_seconds > 0
                      ? std::max(0.0, 1.0 - w.exchange_exposed_seconds * (r.config.local_steps > 1 ? r.config.local_steps : 1) /
                                                w.exchange_seconds)
                      : 1.0)},
        {"exchange_bytes_per_site", when(dp, w.exchange_bytes_per_site)},
        {"wan_bytes_per_site_per_step", when(dp, w.bytes_per_site_per_step)},
        {"synchronous_bytes_per_site_per_step", when(dp, w.sync_bytes_per_site_per_step)},
        {"reduction_vs_synchronous", when(dp && w.bytes_per_site_per_step > 0, w.sync_bytes_per_site_per_step / w.bytes_per_site_per_step)},
        {"pipeline_wan_seconds_per_step", when(pp, w.pp_seconds)},
        {"pipeline_wan_bytes_per_microbatch", when(pp, w.pp_bytes_per_microbatch)},
        {"pipeline_wan_bound_tokens_per_second", when(pp, w.pp_bound_tokens_per_second)},
        {"inner_step_seconds", when(true, w.inner_step_seconds)}};
}

void local_sgd_json(Val j, const TrainingResult& r) {
    if (!r.convergence) {
        j = nullptr;
        return;
    }
    const Convergence& c = *r.convergence;
    const bool ok = r.fits && r.seconds;
    auto days = [&](const std::optional<double>& k) {
        return ok && k ? Scalar(*r.seconds * *k / units::seconds_per_day) : Scalar(nullptr);
    };
    j = {{"local_steps", c.local_steps},
         {"perplexity_change_low", c.perplexity_change_low},
         {"perplexity_change_high", c.perplexity_change_high},
         {"token_multiplier_low", c.token_multiplier_low},
         {"token_multiplier_high", c.token_multiplier_high},
         {"days_same_loss_low", days(c.token_multiplier_low)},
         {"days_same_loss_high", days(c.token_multiplier_high)},
         {"beyond_published", c.beyond_published},
         {"basis", c.basis}};
}

// A total that may be missing: null when the setup does not fit or the figure is absent.
Scalar total_ok(bool ok, const std::optional<double>& v) { return ok && v ? Scalar(*v) : Scalar(nullptr); }

// Size, time, money and utilisation of the run.
void training_totals_json(Val j, const TrainingResult& r) {
    const bool ok = r.fits;
    j["params"] = r.params_total;
    j["active_params"] = r.params_active;
    j["tokens"] = r.tokens > 0 ? Scalar(r.tokens) : Scalar(nullptr);
    j["flops"] = r.tokens > 0 ? Scalar(r.flops) : Scalar(nullptr);
    j["flops_6nd"] = r.tokens > 0 ? Scalar(r.flops_6nd) : Scalar(nullptr);
    j["model_flops_per_token"] = r.model_flops_per_token;
    j["hardware_flops_per_token"] = r.hardware_flops_per_token;
    j["seconds"] = total_ok(ok, r.seconds);
    j["days"] = ok && r.seconds ? Scalar(*r.seconds / units::seconds_per_day) : Scalar(nullptr);
    j["gpu_hours"] = total_ok(ok, r.gpu_hours);
    j["cost_usd"] = total_ok(ok, r.cost_usd);
    j["gpu_hour_usd"] = opt(r.gpu_hour_usd);
    j["energy_kwh"] = total_ok(ok, r.energy_kwh);
    j["co2_kg"] = total_ok(ok, r.co2_kg);
    j["mfu"] = when_ok(ok, r.mfu);
    j["mfu_source"] = r.mfu_given ? "given" : "predicted";
    j["mfu_predicted"] = when_ok(ok, r.mfu_predicted);
    j["hfu"] = when_ok(ok, r.hfu);
    j["step_seconds"] = when_ok(ok, r.step_seconds);
    j["tokens_per_step"] = r.tokens_per_step;
    j["tokens_per_second"] = when_ok(ok, r.tokens_per_second);
    j["achieved_flops_per_second_per_gpu"] = when_ok(ok, r.achieved_flops_per_second_per_gpu);
}

// Memory per device, whether it fits, and the step by cause.
void training_memory_and_step_json(Val j, const TrainingResult& r) {
    const bool ok = r.fits;
    j["memory_per_gpu_bytes"] = {{"weights", r.memory.weights},
                                 {"gradients", r.memory.gradients},
                                 {"optimizer", r.memory.optimizer},
                                 {"activations", r.memory.activations},
                                 {"overhead", r.memory.overhead},
                                 {"total", r.memory.total},
                                 {"outer_optimizer", r.memory.outer_optimizer}};
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["zero3_buffer_bytes"] = r.zero3_buffer_bytes;
    j["dp_comm_bytes_per_step"] = r.dp_comm_bytes_per_step;
    j["fits"] = r.fits;
    j["infeasible_reason"] = r.infeasible_reason;
    const StepTime& t = r.step;
    j["step_breakdown_seconds"] = {
        {"gemm", when_ok(ok, t.gemm)},           {"attention", when_ok(ok, t.attention)}, {"memory_bound", when_ok(ok, t.memory_bound)},
        {"tp_comm", when_ok(ok, t.tp_comm)},     {"pp_comm", when_ok(ok, t.pp_comm)},     {"ep_comm", when_ok(ok, t.ep_comm)},
        {"pp_bubble", when_ok(ok, t.pp_bubble)}, {"cp_comm", when_ok(ok, t.cp_comm)},     {"overhead", when_ok(ok, t.overhead)},
        {"dp_comm", when_ok(ok, t.dp_comm)},     {"optimizer", when_ok(ok, t.optimizer)}, {"outer_comm", when_ok(ok, t.outer_comm)},
        {"total", when_ok(ok, t.total)}};
}

// The uncertainty band and the goodput (failures, checkpoints, restarts).
void training_band_and_goodput_json(Val j, const TrainingResult& r) {
    const bool ok = r.fits;
    j["uncertainty"] = {{"seconds_low", total_ok(ok, r.seconds_low)},
                        {"seconds_high", total_ok(ok, r.seconds_high)},
                        {"cost_usd_low", total_ok(ok, r.cost_usd_low)},
                        {"cost_usd_high", total_ok(ok, r.cost_usd_high)},
                        {"mfu_low", ok && r.mfu_low ? Scalar(*r.mfu_low) : Scalar(nullptr)},
                        {"mfu_high", ok && r.mfu_high ? Scalar(*r.mfu_high) : Scalar(nullptr)},
                        {"band_basis", r.band_basis},
                        {"widened", r.band_widened}};
    j["goodput"] = r.goodput.value;
    j["goodput_breakdown"] = {{"failures_per_hour", r.goodput.failures_per_hour},
                              {"checkpoint_seconds", r.goodput.checkpoint_seconds},
                              {"checkpoint_interval_seconds", r.goodput.checkpoint_interval_seconds},
                              {"restart_seconds", r.goodput.restart_seconds},
                              {"source", r.goodput.given ? "training.goodput" : "failure/checkpoint model"}};
}

void training_json(Val j, const TrainingResult& r, const Hardware& hw) {
    // Figures of time and money exist only for a setup that runs: null when it does not fit.
    training_totals_json(j, r);
    training_memory_and_step_json(j, r);
    training_band_and_goodput_json(j, r);
    j["framework"] = r.framework;
    j["mfu_peak_precision"] = r.mfu_precision                        ? std::string(precision_name(*r.mfu_precision))
                              : r.config.precision == Precision::fp8 ? "bf16"
                                                                     : std::string(precision_name(r.config.precision));
    j["tokens_per_second_per_device"] = when_ok(r.fits, r.tokens_per_second / static_cast<double>(r.devices));
    if (r.fleet)
        j["network"] = {{"sites", r.fleet_sites}, {"pools", r.fleet_pools}};
    else
        write_network_levels(j["network"], hw, r.network);
    communication_json(j["communication"], r);
    local_sgd_json(j["local_sgd"], r);
}

// Model size, memory per device, whether it fits and how many copies do.
void inference_memory_json(Val j, const InferenceResult& r) {
    j["params"] = r.params_total;
    j["active_params"] = r.params_active;
    j["weights_bytes"] = r.weights_bytes;
    j["weights_bytes_per_gpu"] = r.weights_bytes_per_gpu;
    j["kv_cache_bytes_per_token"] = r.kv_cache_bytes_per_token;
    j["context_tokens"] = r.context_tokens;
    j["context_limit_tokens"] = opt(r.context_limit_tokens);
    j["kv_cache_bytes"] = r.kv_cache_bytes;
    j["overhead_bytes_per_gpu"] = r.overhead_bytes_per_gpu;
    j["memory_per_gpu_bytes"] = r.memory_per_gpu_bytes;
    j["fits"] = r.fits;
    j["infeasible_reason"] = r.infeasible_reason;
    j["fits_with_tp"] = opt(r.fits_with_tp);
    j["max_batch"] = r.max_batch;
    j["instances_per_gpu"] = r.instances_per_gpu;
    j["instances_per_cluster"] = r.instances_per_cluster;
}

// Speeds, what the cluster serves, and the deployment sized for the traffic.
void inference_speed_json(Val j, const InferenceResult& r) {
    const bool ok = r.fits;
    j["prefill_seconds"] = when_ok(ok, r.prefill_seconds);
    j["prefill_tokens_per_second_per_gpu"] = when_ok(ok, r.prefill_tokens_per_second_per_gpu);
    j["decode_seconds_per_token"] = when_ok(ok, r.decode_seconds_per_token);
    j["decode_bound"] = r.decode_memory_bound ? "memory" : "compute";
    j["turn_batch"] = r.turn_batch;
    j["decode_tokens_per_second_per_user"] = when_ok(ok, r.decode_tokens_per_second_per_user);
    j["throughput_tokens_per_second_per_gpu"] = when_ok(ok, r.throughput_tokens_per_second_per_gpu);
    j["request_seconds"] = when_ok(ok, r.request_seconds);
    j["replicas"] = r.replicas;
    j["cluster_throughput_tokens_per_second"] = when_ok(ok, r.cluster_throughput_tokens_per_second);
    j["concurrent_sequences"] = r.concurrent_sequences;
    if (r.at_traffic)
        j["at_traffic"] = {{"batch", r.at_traffic->batch},
                           {"tpot_seconds", r.at_traffic->tpot_seconds},
                           {"output_tokens_per_second_per_user", r.at_traffic->output_tokens_per_second_per_user},
                           {"utilization", r.at_traffic->utilization},
                           {"concurrent_sequences", r.at_traffic->concurrent_sequences},
                           {"ttft_seconds", r.at_traffic->ttft_seconds}};
    else
        j["at_traffic"] = nullptr;
    const bool sized = ok && r.requests_per_day_sized > 0;
    j["gpus_needed"] = sized ? Scalar(r.gpus_needed) : Scalar(nullptr);
    j["implied_requests_per_day"] = opt(r.implied_requests_per_day);
    j["cost_per_day_usd"] = sized && r.gpu_hour_usd ? Scalar(r.cost_per_day_usd) : Scalar(nullptr);
    j["energy_per_day_kwh"] = sized && r.energy_per_day_kwh ? Scalar(*r.energy_per_day_kwh) : Scalar(nullptr);
    j["cost_per_million_output_tokens_usd"] = ok && r.gpu_hour_usd ? Scalar(r.cost_per_million_output_tokens_usd) : Scalar(nullptr);
    j["cost_per_million_input_tokens_usd"] = ok && r.gpu_hour_usd ? Scalar(r.cost_per_million_input_tokens_usd) : Scalar(nullptr);
    j["gpu_hour_usd"] = opt(r.gpu_hour_usd);
}

// At batch 1, 2, 4, ...: the decode step alone and the served speeds (prefills included).
void batch_curve_json(Val curve, const std::vector<BatchPoint>& points) {
    curve.set_array();
    for (const auto& p : points)
        curve.append() = {{"batch", p.batch},
                          {"decode_seconds_per_token", p.decode_seconds_per_token},
                          {"tokens_per_second_per_user", p.tokens_per_second_per_user},
                          {"tokens_per_second_per_gpu", p.tokens_per_second_per_gpu},
                          {"bound", p.memory_bound ? "memory" : "compute"},
                          {"fits", p.fits},
                          {"tpot_seconds", p.tpot_seconds},
                          {"output_tokens_per_second_per_user", p.output_tokens_per_second_per_user},
                          {"throughput_tokens_per_second_per_gpu", p.throughput_tokens_per_second_per_gpu}};
}

// Serving (issue 15): the batch served, decode by cause, per-user latency, costs that add up.
void inference_serving_json(Val j, const InferenceResult& r) {
    const bool ok = r.fits;
    j["batch"] = r.batch;
    j["batch_source"] = r.batch_given ? "given" : "max_throughput";
    j["tp"] = r.tp;
    j["tp_source"] = r.tp_chosen ? "chosen" : "given";
    j["instance_gpus"] = r.instance_gpus;
    j["kv_cache_bytes_per_token_per_gpu"] = r.kv_cache_bytes_per_token_per_gpu;
    j["kv_cache_bytes_per_gpu"] = r.kv_cache_bytes_per_gpu;
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["host_weights_bytes"] = r.host_weights_bytes;
    const DecodeTerms& t = r.decode;
    j["decode_breakdown_seconds"] = {{"weights", when_ok(ok, t.weights)},
                                     {"dequantization", when_ok(ok, t.dequantization)},
                                     {"host_offload", when_ok(ok, t.host_offload)},
                                     {"compute", when_ok(ok, t.compute)},
                                     {"kv_cache", when_ok(ok, t.kv_cache)},
                                     {"attention", when_ok(ok, t.attention)},
                                     {"kernel_overhead", when_ok(ok, t.kernel_overhead)},
                                     {"sequence_overhead", when_ok(ok, t.sequence_overhead)},
                                     {"tp_comm", when_ok(ok, t.tp_comm)},
                                     {"ep_comm", when_ok(ok, t.ep_comm)},
                                     {"total", when_ok(ok, t.total)}};
    j["tpot_seconds"] = when_ok(ok, r.tpot_seconds);
    j["ttft_seconds"] = ok && r.ttft_defined ? Scalar(r.ttft_seconds) : Scalar(nullptr);
    j["output_tokens_per_second_per_user"] = when_ok(ok, r.output_tokens_per_second_per_user);
    j["throughput_tokens_per_second_per_instance"] = when_ok(ok, r.throughput_tokens_per_second_per_instance);
    j["input_tokens_per_second_per_gpu"] = when_ok(ok, r.input_tokens_per_second_per_gpu);
    j["requests_per_second_per_instance"] = when_ok(ok, r.requests_per_second_per_instance);
    const bool sized = ok && r.requests_per_day_sized > 0;
    j["instances_needed"] = sized ? Scalar(r.instances_needed) : Scalar(nullptr);
    j["input_tokens_per_day"] = sized ? Scalar(r.input_tokens_per_day) : Scalar(nullptr);
    j["output_tokens_per_day"] = sized ? Scalar(r.output_tokens_per_day) : Scalar(nullptr);
    j["input_cost_share"] = when_ok(ok, r.input_cost_share);
    j["cost_per_day_input_usd"] = sized && r.gpu_hour_usd ? Scalar(r.cost_per_day_usd * r.input_cost_share) : Scalar(nullptr);
    j["cost_per_day_output_usd"] = sized && r.gpu_hour_usd ? Scalar(r.cost_per_day_usd * (1.0 - r.input_cost_share)) : Scalar(nullptr);
    j["cost_split"] = r.cost_split;
}

// Speculative decoding and prefill/decode disaggregation: null when not used.
void inference_options_json(Val j, const InferenceResult& r) {
    const bool ok = r.fits;
    const bool sized = ok && r.requests_per_day_sized > 0;
    if (r.config.speculative)
        j["speculative"] = {{"tokens_per_step", when_ok(ok, r.speculative_tokens_per_step)},
                            {"speedup", when_ok(ok, r.speculative_speedup)},
                            {"draft_step_seconds", when_ok(ok, r.speculative_draft_step_seconds)},
                            {"verify_step_seconds", when_ok(ok, r.speculative_verify_step_seconds)},
                            {"draft_weights_bytes", r.speculative_draft_weights_bytes},
                            {"draft_kv_cache_bytes_per_gpu", r.speculative_draft_kv_cache_bytes_per_gpu}};  // as kv_cache_bytes_per_gpu
    else
        j["speculative"] = nullptr;
    if (r.config.disaggregated)
        j["disaggregation"] = {{"prefill_instances", sized ? Scalar(r.prefill_instances) : Scalar(nullptr)},
                               {"decode_instances", sized ? Scalar(r.decode_instances) : Scalar(nullptr)},
                               {"kv_transfer_seconds", when_ok(ok, r.kv_transfer_seconds)}};
    else
        j["disaggregation"] = nullptr;
}

// One configuration tried by the latency-target search.
void slo_candidate_json(Val v, const SloCandidate& c) {
    v = {{"weight_precision", precision_name(c.weight_precision)},
         {"kv_precision", precision_name(c.kv_precision)},
         {"tp", c.tp},
         {"batch", c.batch},
         {"gpus", c.met || c.gpus > 0 ? Scalar(c.gpus) : Scalar(nullptr)},
         {"ttft_seconds", c.ttft_seconds > 0 ? Scalar(c.ttft_seconds) : Scalar(nullptr)},
         {"tpot_seconds", c.tpot_seconds > 0 ? Scalar(c.tpot_seconds) : Scalar(nullptr)},
         {"met", c.met},
         {"reason", c.reason}};
}

// The latency-target search: the configuration chosen and every one tried; null without targets.
void slo_json(Val j, const std::optional<SloResult>& slo_result) {
    if (!slo_result) {
        j["slo"] = nullptr;
        return;
    }
    Val slo = j["slo"];
    slo["met"] = slo_result->met;
    if (slo_result->met)
        slo_candidate_json(slo["chosen"], slo_result->chosen);
    else
        slo["chosen"] = nullptr;
    Val all = slo["candidates"];
    all.set_array();
    for (const auto& c : slo_result->candidates) slo_candidate_json(all.append(), c);
}

void inference_json(Val j, const InferenceResult& r) {
    // Speeds, capacity and costs exist only for a setup that runs: null when it does not fit.
    inference_memory_json(j, r);
    inference_speed_json(j, r);
    batch_curve_json(j["batch_curve"], r.curve);
    inference_serving_json(j, r);
    inference_options_json(j, r);
    slo_json(j, r.slo);
}

void inference_inputs_json(Val j, const InferenceConfig& c) {
    write_fields(j, c, inference_fields());
    if (c.slo)
        write_fields(j["slo"], *c.slo, slo_fields());
    else
        j["slo"] = nullptr;
    if (c.speculative) {
        write_fields(j["speculative"], *c.speculative, speculative_fields());
        if (c.speculative->draft_model) write_model(j["speculative"]["draft_model"], *c.speculative->draft_model);
    } else
        j["speculative"] = nullptr;
}

void finetune_json(Val j, const FinetuneResult& r) {
    const bool ok = r.fits;
    auto when_ok = [&](double v) { return ok ? Scalar(v) : Scalar(nullptr); };
    auto total = [&](const std::optional<double>& v) { return ok && v ? Scalar(*v) : Scalar(nullptr); };
    const FinetuneMemory& m = r.memory;
    j["params"] = r.params_total;
    j["trainable_params"] = opt(r.trainable_params);  // null: LoRA sizes unknown without the architecture
    j["devices"] = r.devices;
    j["sharding"] = r.sharding;
    j["memory_per_gpu_bytes"] = {{"weights", m.weights},           {"master_weights", m.master},   {"gradients", m.gradients},
                                 {"optimizer", m.optimizer},       {"activations", m.activations}, {"logits", m.logits},
                                 {"fsdp_working", m.fsdp_working}, {"overhead", m.overhead},       {"total", m.total}};
    j["memory_per_gpu_bytes"]["head_gradient"] = m.head_gradient;
    // The parts at the peak (they add up to total): the fixed ones and those of the phase that peaks.
    const FinetunePeak& pk = r.peak;
    j["memory_at_peak_bytes"] = {{"phase", pk.phase},
                                 {"weights", m.weights},
                                 {"master_weights", m.master},
                                 {"optimizer", m.optimizer},
                                 {"fsdp_working", m.fsdp_working},
                                 {"overhead", m.overhead},
                                 {"activations", pk.activations},
                                 {"logits", pk.logits},
                                 {"head_gradient", pk.head_gradient},
                                 {"gradients", pk.gradients}};
    j["peak_active_bytes"] = r.peak_active_bytes;
    j["memory_capacity_bytes"] = r.memory_capacity_bytes;
    j["fits"] = r.fits;
    j["infeasible_reason"] = r.infeasible_reason;
    j["max_batch"] = opt(r.max_batch);  // null: unknown without the model's architecture
    j["max_seq_len"] = opt(r.max_seq_len);
    j["flops_per_token"] = r.flops_per_token;
    j["step_seconds"] = when_ok(r.step_seconds);
    j["tokens_per_second"] = when_ok(r.tokens_per_second);
    j["seconds"] = total(r.seconds);
    j["gpu_hours"] = total(r.gpu_hours);
    j["cost_usd"] = total(r.cost_usd);
    j["gpu_hour_usd"] = opt(r.gpu_hour_usd);
}

void roofline_json(Val j, const RooflineResult& r) {
    Val kernels = j["kernels"];
    kernels.set_array();
    for (const auto& k : r.kernels)
        kernels.append() = {
            {"id", k.id}, {"name", k.name}, {"flops", k.flops}, {"bytes", k.bytes}, {"intensity_flops_per_byte", k.intensity()}};
    Val devs = j["devices"];
    devs.set_array();
    for (const auto& d : r.devices) {
        Val dj = devs.append();
        dj = {{"id", d.id},
              {"name", d.name},
              {"precision", d.precision_used},
              {"peak_flops_per_second", d.peak_flops_per_second},
              {"bandwidth_bytes_per_second", d.bandwidth_bytes_per_second},
              {"ridge_flops_per_byte", d.ridge_flops_per_byte}};
        Val curve = dj["curve"];
        curve.set_array();
        for (const auto& [x, y] : d.curve) {
            Val p = curve.append();
            p.push_back(x);
            p.push_back(y);
        }
        Val ks = dj["kernels"];
        ks.set_array();
        for (const auto& k : d.kernels)
            ks.append() = {{"id", k.id},
                           {"intensity_flops_per_byte", k.intensity},
                           {"attainable_flops_per_second", k.attainable_flops_per_second},
                           {"seconds", k.seconds},
                           {"bound", k.bound}};
    }
}

void compare_json(Val j, const CompareRequest& req, const CompareResult& r) {
    write_device(j["a"], req.a);
    write_device(j["b"], req.b);
    j["precision_a"] = r.precision_a;
    j["precision_b"] = r.precision_b;
    j["peak_a_flops_per_second"] = r.peak_a;
    j["peak_b_flops_per_second"] = r.peak_b;
    j["compute_ratio"] = r.compute_ratio;
    j["same_precision"] = r.same_precision.empty() ? jw::Scalar(nullptr) : jw::Scalar(r.same_precision);
    j["compute_ratio_same_precision"] = opt(r.compute_ratio_same_precision);
    j["bandwidth_ratio"] = opt(r.bandwidth_ratio);
    j["flops_per_watt_a"] = opt(r.flops_per_watt_a);
    j["flops_per_watt_b"] = opt(r.flops_per_watt_b);
    j["flops_per_usd_a"] = opt(r.flops_per_usd_a);
    j["flops_per_usd_b"] = opt(r.flops_per_usd_b);
    j["cpu_cores_equivalent"] = opt(r.cpu_cores_equivalent);
}

}  // namespace

void write_plan(Val j, const Plan& p) {
    const auto& c = p.config;
    j = {{"tp", c.tp},
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
         {"hfu", p.hfu},
         {"tokens_per_second", p.tokens_per_second},
         {"bubble_fraction", p.bubble_fraction}};
    // The complete training section of this plan: drop it into a scenario to get the same layout.
    training_config_json(j["training"], c);
    j["recompute"] = field_value(c, training_fields(), "recompute");
}

jv::Value plan_to_json(const Plan& p) {
    jw::Doc doc;
    write_plan(doc.root(), p);
    return doc.to_json();
}

void write_plan_result(Val j, const PlanResult& r) {
    j = {{"considered", r.considered},
         {"feasible", r.feasible},
         {"search_seconds", r.search_seconds},
         {"plans_per_second", r.search_seconds > 0 ? r.considered / r.search_seconds : 0}};
    j["rejected"] = {{"out_of_memory", r.rejected_out_of_memory}, {"indivisible", r.rejected_indivisible}};
    // The layout needing the least memory per device, fitting or not: how far a search that found
    // nothing is from fitting.
    j["least_memory_per_gpu_bytes"] = r.least_memory ? Scalar(r.least_memory->memory_per_gpu_bytes) : Scalar(nullptr);
    Val best = j["best"], layouts = j["best_per_layout"];
    best.set_array();
    layouts.set_array();
    for (const auto& p : r.best) write_plan(best.append(), p);
    for (const auto& p : r.best_per_layout) write_plan(layouts.append(), p);
}

void device_echo(Val j, const Device& d) {
    if (d.custom)
        write_device_scenario(j, d);
    else
        j = d.id;
}

void write_errors(Val j, const Errors& errors) {
    Val arr = j["errors"];
    arr.set_array();
    // At most kMaxErrorsListed: a text of 70,000 unknown keys made 5.9 MB of errors (the last entry
    // says how many more there are).
    const std::size_t listed = errors.size() > kMaxErrorsListed ? kMaxErrorsListed - 1 : errors.size();
    for (std::size_t i = 0; i < listed; ++i)
        arr.append() = {{"code", errors[i].code}, {"field", errors[i].field}, {"message", errors[i].message}};
    if (listed < errors.size())
        arr.append() = {{"code", "too_many_errors"},
                        {"field", ""},
                        {"message", std::to_string(errors.size() - listed) + " more errors are not listed (the first " +
                                        std::to_string(listed) + " are)"}};
}

jv::Value errors_to_json(const Errors& errors) {
    jw::Doc doc;
    write_errors(doc.root(), errors);
    return doc.to_json();
}

namespace {

// The report being written: its root, the echo of its inputs, the derivations and the warnings
// gathered for its end.
struct ReportOut {
    Val report, inputs;
    Trace& trace;
    std::vector<std::string>& warnings;
};

// The cluster section (every scenario with hardware).
void cluster_section(ReportOut& o, const Scenario& s) {
    const ClusterResult c = estimate_cluster(*s.hardware, s.costs, o.trace);
    cluster_json(o.report["cluster"], c);
    // The links of each level (node, site, between sites) the training estimates use; a mixed fleet's are per pool.
    if (mixed_fleet(*s.hardware))
        o.report["cluster"]["network"] = nullptr;
    else
        write_network_levels(o.report["cluster"]["network"], *s.hardware, network_levels(*s.hardware, o.trace));
    for (const auto& w : c.warnings) o.warnings.push_back("cluster: " + w);
}

// A mixed fleet: per-pool layouts (training.fleet); the echo keeps only the layout fields given.
// The layout fields a scenario left to the search, echoed as null (automatic): for a fleet, whose
// pools each have their own layout, and when no layout satisfies the fields given (the search's
// placeholder would not parse back beside them: pp 1 with a given vpp 2).
void echo_searched_as_null(Val echo, const TrainingConfig& given) {
    for (const char* k : {"tp", "pp", "dp", "cp", "ep", "expert_tp", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel",
                          "overlap_dp_comm", "shard_group", "global_batch"})
        if (!training_field_given(given, k)) echo[k] = nullptr;
}

void fleet_training_section(ReportOut& o, const Scenario& s) {
    FleetResult f = estimate_fleet(*s.model, *s.hardware, *s.training, s.costs, o.trace);
    training_config_json(o.inputs["training"], f.total.config);
    echo_searched_as_null(o.inputs["training"], *s.training);
    Val t = o.report["training"];
    training_json(t, f.total, *s.hardware);
    t["layout_searched"] = true;
    t["suggested_layout"] = nullptr;
    write_fleet(t["fleet"], f);
    for (auto& w : f.total.warnings) o.warnings.push_back("training: " + w);
    if (s.scaling) {
        o.report["scaling"].set_array();
        o.report["scaling_level"] = nullptr;
        o.warnings.push_back("training: no scaling curve for a mixed fleet (the curve varies one device's count)");
    }
}

// Time and speedup of the same training on more or fewer devices.
void scaling_json(ReportOut& o, const Scenario& s, const TrainingResult& run) {
    const ScalingCurve sc = scaling_curve(*s.model, *s.hardware, run.config, s.costs, run);
    Val curve = o.report["scaling"];
    curve.set_array();
    for (const auto& p : sc.points)
        curve.append() = {{"gpus", p.gpus},       {"seconds", opt(p.seconds)}, {"mfu", p.mfu}, {"tokens_per_second", p.tokens_per_second},
                          {"speedup", p.speedup}, {"efficiency", p.efficiency}};
    o.report["scaling_level"] = opt(sc.level);
    if (!sc.level) o.warnings.push_back("training: the scaling curve is the step model's own, not levelled to training.mfu: " + sc.why);
}

// When no layout fits the count: whether fewer devices, the largest count of many factors of two below
// it (round_count_below), fit one, said after the reason (a count of few divisors tiles few layouts:
// 67 L4 fit none of Llama 3 8B's, "more devices" was the advice, and 64 fit tp 1, pp 16, dp 4).
std::string fewer_devices_fit(const ModelSpec& m, const Hardware& hw, const TrainingConfig& t) {
    if (hw.sites > 1 || !hw.pools.empty()) return "";
    const std::optional<Count> fewer = round_count_below(hw.count, hw.devices_per_node);
    if (!fewer) return "";
    Hardware h = hw;
    h.count = *fewer;
    const LayoutChoice c = resolve_layout(m, h, t);
    if (!c.found || !c.valid) return "";
    const auto n = [](Count v) { return jr::fmt_num(static_cast<double>(v)); };
    return "; " + n(*fewer) + " of them fit one (tp " + n(c.config.tp) + ", pp " + n(c.config.pp) + ", dp " + n(c.config.dp.value_or(1)) +
           "): " + n(hw.count) + " has few divisors, so few layouts tile it";
}

// When the plan search chose the layout of a count of few divisors: whether fewer devices, the largest
// count of many factors of two below it (round_count_below), train faster; a warning, the estimate
// being of the devices given (97 H100 for Llama 3 70B: pure data parallelism, 88,633 tokens/s, where
// 96 run tp 4, pp 4 at ~100,000).
std::string fewer_devices_faster(const Scenario& s, const TrainingResult& r) {
    const Hardware& hw = *s.hardware;
    if (hw.sites > 1 || !hw.pools.empty() || !(r.tokens_per_second > 0)) return "";
    const std::optional<Count> fewer = round_count_below(hw.count, hw.devices_per_node);
    if (!fewer) return "";
    Hardware h = hw;
    h.count = *fewer;
    const LayoutChoice c = resolve_layout(*s.model, h, *s.training);
    if (!c.found || !c.valid) return "";
    Trace none(false);
    const TrainingResult f = estimate_training(*s.model, h, c.config, s.costs, none);
    if (!f.fits || !(f.tokens_per_second > 1.02 * r.tokens_per_second)) return "";
    const auto n = [](double v) { return jr::fmt_num(std::round(v)); };
    return "training: " + n(static_cast<double>(*fewer)) + " of the " + n(static_cast<double>(hw.count)) + " devices train faster (" +
           n(f.tokens_per_second) + " tokens/s at " + layout_text(f.config) + ", against " + n(r.tokens_per_second) +
           "): " + n(static_cast<double>(hw.count)) +
           " has few divisors, so few parallel layouts tile it; the estimate is of every device given";
}

// Training on one device type: the layout given or searched, and a layout that fits when it does not.
void training_section(ReportOut& o, const Scenario& s) {
    const LayoutChoice layout = resolve_layout(*s.model, *s.hardware, *s.training);
    TrainingResult r = estimate_training(*s.model, *s.hardware, layout.config, s.costs, o.trace);
    if (!layout.valid) {
        // Nothing to estimate: the fields given admit no layout on these devices (parse_scenario
        // refuses the combinations it can name; this is the search's word for the rest).
        r.fits = false;
        r.infeasible_reason = !layout.reason.empty() ? layout.reason
                                                     : "no parallel layout of " + devices_text(static_cast<double>(s.hardware->count)) +
                                                           " satisfies the training fields given (" + given_layout_fields(*s.training) +
                                                           "): leave some of them to the plan search";
        // No layout, so no batch: the estimate's fallback config (every device data-parallel) is no run to warn about.
        r.warnings.erase(std::remove_if(r.warnings.begin(), r.warnings.end(), is_global_batch_warning), r.warnings.end());
    }
    std::optional<Plan> suggestion;
    if (!r.fits && layout.found) suggestion = suggest_layout(*s.model, *s.hardware, layout.config);
    if (!r.fits && !layout.found && layout.valid)
        r.infeasible_reason =
            "no parallel layout fits on " + jr::fmt_num(static_cast<double>(s.hardware->count)) + " x " + s.hardware->device.name +
            ": the layout needing the least memory needs " + jr::fmt_num(r.memory.total / units::GiB) + " GiB per device, which has " +
            jr::fmt_num(r.memory_capacity_bytes / units::GiB) + " GiB (more devices, a smaller model, or fewer training fields fixed)" +
            fewer_devices_fit(*s.model, *s.hardware, *s.training);
    training_config_json(o.inputs["training"], r.config);
    if (!layout.valid) echo_searched_as_null(o.inputs["training"], *s.training);
    Val t = o.report["training"];
    training_json(t, r, *s.hardware);
    t["layout_searched"] = layout.searched;
    if (suggestion)
        layout_json(t["suggested_layout"], suggestion->config);
    else
        t["suggested_layout"] = nullptr;
    t["fleet"] = nullptr;
    if (layout.searched && layout.found) {
        o.warnings.push_back("training: no parallel layout given: the plan search chose " + layout_text(r.config) +
                             raised_batch_text(s, r.config));
        if (const std::string w = fewer_devices_faster(s, r); !w.empty()) o.warnings.push_back(w);
    } else if (const std::string raised = raised_batch_text(s, r.config); !layout.searched && !raised.empty())
        o.warnings.push_back("training: the layout given has no training.global_batch: " + raised.substr(2));
    for (auto& w : r.warnings) o.warnings.push_back("training: " + w);
    if (s.scaling) scaling_json(o, s, r);
}

// Serving.
void inference_section(ReportOut& o, const Scenario& s) {
    InferenceResult r = estimate_inference(*s.model, *s.hardware, *s.inference, s.costs, o.trace);
    inference_inputs_json(o.inputs["inference"], r.config);
    inference_json(o.report["inference"], r);
    for (auto& w : r.warnings) o.warnings.push_back("inference: " + w);
}

// Fine-tuning.
void finetune_section(ReportOut& o, const Scenario& s) {
    FinetuneResult r = estimate_finetune(*s.model, *s.hardware, *s.finetune, s.costs, o.trace);
    write_fields(o.inputs["finetune"], r.config, finetune_fields());
    // Full fine-tuning has no LoRA rank or adapted layers: the echo leaves them out (given, they are a
    // conflict: parse_finetune).
    if (r.config.method == FinetuneMethod::full) {
        o.inputs["finetune"]["lora_rank"] = nullptr;
        o.inputs["finetune"]["lora_modules"] = nullptr;
    }
    finetune_json(o.report["finetune"], r);
    for (auto& w : r.warnings) o.warnings.push_back("finetune: " + w);
}

// Two devices side by side.
void compare_section(ReportOut& o, const Scenario& s) {
    compare_json(o.report["compare"], *s.compare, estimate_compare(*s.compare, o.trace));
    Val c = o.inputs["compare"];
    write_fields(c, *s.compare, compare_fields());
    device_echo(c["a"], s.compare->a);
    device_echo(c["b"], s.compare->b);
}

// Kernels on the roofline of each device.
void roofline_section(ReportOut& o, const Scenario& s) {
    roofline_json(o.report["roofline"], estimate_roofline(*s.roofline));
    Val r = o.inputs["roofline"];
    write_fields(r, *s.roofline, roofline_fields());
    Val devs = r["devices"];
    devs.set_array();
    for (const auto& d : s.roofline->devices) device_echo(devs.append(), d);
    if (s.roofline->model) write_model(r["model"], *s.roofline->model);
}

// Whether the report gives the figure at a dotted key as null (or under a null section): a figure
// that is not given has no derivation either (a red team: a serving copy that does not fit reported
// gpus_needed null, and explain derived 53 GPUs for it).
bool null_in_report(Val report, std::string_view key) {
    Val at = report;
    for (std::size_t from = 0;;) {
        if (at.is_null()) return true;
        const std::size_t dot = key.find('.', from);
        const std::string_view part = key.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from);
        if (!at.contains(part)) return false;  // a figure the report does not list (an intermediate): kept
        at = at[part];
        if (dot == std::string_view::npos) return at.is_null();
        from = dot + 1;
    }
}

// The last inputs, the derivations, non-finite numbers replaced by null, and the warnings.
void finish_report(ReportOut& o, const Scenario& s) {
    o.inputs["scaling"] = s.scaling;
    o.inputs["explain"] = s.explain;
    if (s.explain) o.trace.write(o.report["explain"], [&](const std::string& key) { return !null_in_report(o.report, key); });
    for (const auto& b : o.report.doc().replace_non_finite(o.report.index()))
        o.warnings.push_back("internal: a non-finite value at " + b + " was replaced by null");
    Val w = o.report["warnings"];
    w.set_array();
    for (const auto& x : o.warnings) w.push_back(x);
}

}  // namespace

void write_report(Val report, const Scenario& s) {
    report.set_object();
    report["gpucalc_version"] = kVersion;
    Trace trace(s.explain);
    std::vector<std::string> warnings;
    Val inputs = report["inputs"];
    inputs.set_object();
    if (s.model) write_model(inputs["model"], *s.model);
    if (s.hardware) hardware_json(inputs["hardware"], *s.hardware);
    write_fields(inputs["costs"], s.costs, costs_fields());
    ReportOut o{report, inputs, trace, warnings};
    if (s.hardware) cluster_section(o, s);
    if (s.training && s.hardware && s.model && mixed_fleet(*s.hardware))
        fleet_training_section(o, s);
    else if (s.training && s.hardware && s.model)
        training_section(o, s);
    if (s.inference && s.hardware && s.model) inference_section(o, s);
    if (s.finetune && s.hardware && s.model) finetune_section(o, s);
    if (s.compare) compare_section(o, s);
    if (s.roofline) roofline_section(o, s);
    finish_report(o, s);
}

jv::Value inputs_echo(const Scenario& s, const InverseQuestion& q) {
    jw::Doc doc;
    Val inputs = doc.root();
    inputs.set_object();
    if (s.model) write_model(inputs["model"], *s.model);
    if (s.hardware) hardware_json(inputs["hardware"], *s.hardware);
    write_fields(inputs["costs"], s.costs, costs_fields());
    // The training fields the scenario gave (training.tokens, a layout's sizes, ...), as read: all of
    // them, defaults written out, would fix the layout the answer chooses, and none left the echo of
    // gpus_needed without the tokens it needs when fed back (a red team).
    if (s.training) write_given_fields(inputs["training"], *s.training, training_fields(), s.training->given);
    write_fields(inputs["inverse"], q, inverse_fields());
    return doc.to_json();
}

jv::Value build_report(const Scenario& s) {
    jw::Doc doc;
    write_report(doc.root(), s);
    return doc.to_json();
}

}  // namespace gpucalc
