// Fixes of 2026-12-06 (review 15): the derivations ("show the work") still incomplete after review 13.
// Each test recomputes the figure from the derivation's own values and compares it with the figure.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json explained(json scenario) {
    scenario["explain"] = true;
    const json r = run(scenario);
    INFO(r.dump().substr(0, 2000));
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

json derivation_of(const json& report, const std::string& key) {
    INFO(key);
    REQUIRE(report["explain"].contains(key));
    return report["explain"][key];
}

double result(const json& d) { return d["result"].get<double>(); }

// A ring collective from the values a derivation lists under `name` (name.f, .bytes, .ranks,
// .ranks_per_node, .sites) and the network's (scale_up, scale_out, network_efficiency, latencies,
// devices_per_site, wan), as the derivation's formula states it.
double ring(const json& d, const std::string& name) {
    const double f = derivation_value(d, name + ".f"), B = derivation_value(d, name + ".bytes"), n = derivation_value(d, name + ".ranks");
    const double r = derivation_value(d, name + ".ranks_per_node"), g = derivation_value(d, name + ".sites");
    if (n <= 1 || B <= 0) return 0;
    const double ne = derivation_value(d, "network_efficiency"), ns = n / g;
    double t = 0, lat = 0;
    if (ns > 1) {
        t = (ns - 1.0) / ns * B / (derivation_value(d, "scale_up") * ne);
        if (r < ns) t = std::max(t, (ns - r) / (ns * r) * B / (derivation_value(d, "scale_out") * ne));
        lat = derivation_value(d, r >= ns ? "collective_latency" : "scale_out_latency") * std::ceil(std::log2(ns));
    }
    if (g > 1) {
        t = std::max(t, (g - 1.0) / g * B * (derivation_value(d, "devices_per_site") / ns) / (derivation_value(d, "wan") * ne));
        lat += f * derivation_value(d, "wan_latency") * std::ceil(std::log2(g));
    }
    return f * t + lat;
}

// A collective's rings, dense and (when listed) the routed experts', each recomputed and checked
// against the seconds listed: their sum.
double rings(const json& d, const std::string& collective) {
    double sum = 0;
    for (const char* part : {".dense", ".experts"}) {
        const std::string name = "ring." + collective + part;
        if (!d["values"].contains(name + ".seconds")) continue;
        INFO(name);
        CHECK(derivation_value(d, name + ".seconds") == Approx(ring(d, name)).epsilon(1e-12).margin(1e-18));
        sum += derivation_value(d, name + ".seconds");
    }
    return sum;
}

json training(const std::string& model, const std::string& device, int count, const json& t) {
    json tr = t;
    tr["tokens"] = 1e11;
    return {{"model", {{"preset", model}}}, {"hardware", {{"device", device}, {"count", count}}}, {"training", tr}};
}

}  // namespace

TEST_CASE("training dp_comm's derivation lists each collective's rings (bytes, ranks, ranks per node, sites), which give it") {
    // Review 15: the collectives were listed as single values. ZeRO 0, 1, 2 (several micro-batches), FSDP,
    // hybrid sharding, an MoE model whose routed experts reduce over their own group, and two sites.
    std::vector<json> scenarios = {
        training("llama3.2-1b", "nvidia-h100-sxm5-80gb", 32, {{"dp", 32}, {"zero", 0}, {"micro_batch", 1}}),
        training("llama3-8b", "nvidia-h100-sxm5-80gb", 32, {{"dp", 32}, {"zero", 1}, {"micro_batch", 1}, {"recompute", "full"}}),
        training("llama3-8b", "nvidia-h100-sxm5-80gb", 32, {{"dp", 32}, {"zero", 2}, {"micro_batch", 1}, {"global_batch", 256}}),
        training("llama3-8b", "nvidia-h100-sxm5-80gb", 32, {{"dp", 32}, {"zero", 3}, {"micro_batch", 1}, {"recompute", "full"}}),
        training("llama3-8b", "nvidia-h100-sxm5-80gb", 32,
                 {{"dp", 32}, {"zero", 3}, {"shard_group", 8}, {"micro_batch", 1}, {"recompute", "full"}}),
        training("mixtral-8x7b", "nvidia-h100-sxm5-80gb", 32,
                 {{"tp", 2}, {"dp", 16}, {"ep", 8}, {"zero", 1}, {"micro_batch", 1}, {"recompute", "full"}}),
        training("llama3-8b", "nvidia-h100-sxm5-80gb", 16, {{"dp", 16}, {"zero", 1}, {"micro_batch", 1}, {"recompute", "full"}})};
    scenarios.back()["hardware"]["sites"] = 2;
    int experts = 0, across = 0;
    for (const json& s : scenarios) {
        const json r = explained(s);
        INFO(s.dump());
        REQUIRE(r["training"]["fits"] == true);
        const json d = derivation_of(r, "training.step_breakdown_seconds.dp_comm");
        INFO(d.dump());
        const double zero = derivation_value(d, "zero");
        double collective = 0;
        if (zero >= 3)
            collective = rings(d, "gather_scatter") + derivation_value(d, "fsdp_other_calls") * derivation_value(d, "collective_latency") *
                                                          std::ceil(std::log2(std::max(2.0, derivation_value(d, "shard"))));
        else if (zero >= 1)
            collective = rings(d, "reduce_scatter") + rings(d, "all_gather");
        else
            collective = rings(d, "all_reduce");
        CHECK(derivation_value(d, "collective") == Approx(collective).epsilon(1e-12));
        if (zero == 1 || zero == 2) CHECK(derivation_value(d, "reduce_scatter") == Approx(rings(d, "reduce_scatter")).epsilon(1e-12));
        CHECK(derivation_value(d, "hybrid_allreduce") == Approx(rings(d, "hybrid")).epsilon(1e-12).margin(1e-18));
        // Across sites: the exchange, less what hides it.
        const double once = derivation_value(d, "hidden_once");
        const double intra = zero >= 3 ? derivation_value(d, "hybrid_allreduce") : collective + derivation_value(d, "hybrid_allreduce");
        if (derivation_value(d, "across_sites") > 0) {
            ++across;
            CHECK(derivation_value(d, "intra_before_overlap") == Approx(intra).epsilon(1e-12));
            const double hidden = std::max(0.0, once - intra) + derivation_value(d, "outer_overlap_steps") *
                                                                    derivation_value(d, "compute_per_microbatch") *
                                                                    derivation_value(d, "microbatches");
            CHECK(derivation_value(d, "hidden_across_sites") == Approx(hidden).epsilon(1e-12).margin(1e-18));
            CHECK(derivation_value(d, "exposed_across_sites") ==
                  Approx(std::max(0.0, derivation_value(d, "across_sites") - hidden)).epsilon(1e-12).margin(1e-18));
            CHECK(derivation_value(d, "across_sites") == r["training"]["communication"]["exchange_seconds"].get<double>());
        }
        // The figure from the collectives (review 13's formula).
        const double fig = derivation_value(d, "collectives") * std::max(0.0, collective - derivation_value(d, "hidden_per_collective")) +
                           derivation_value(d, "earlier") * std::max(0.0, derivation_value(d, "reduce_scatter") - once) +
                           std::max(0.0, derivation_value(d, "hybrid_allreduce") - once) + derivation_value(d, "exposed_across_sites");
        CHECK(result(d) == Approx(fig).epsilon(1e-9).margin(1e-15));
        CHECK(result(d) == r["training"]["step_breakdown_seconds"]["dp_comm"].get<double>());
        experts += d["values"].contains("ring.reduce_scatter.experts.bytes") ? 1 : 0;
    }
    CHECK(experts == 1);
    CHECK(across == 1);
}

TEST_CASE("training tp_comm's derivation of a tensor-parallel group across sites gives its ring over the WAN") {
    // Review 15: the formula did not spell out a group spanning sites. 16 H100 in nodes of 8 joined by
    // 1 Gb/s internet (every node its own site), TP 16: the ring crosses the two sites.
    json s = training("llama3-8b", "nvidia-h100-sxm5-80gb", 16, {{"tp", 16}, {"dp", 1}, {"micro_batch", 1}});
    s["hardware"]["network"] = "internet-1g";
    s["hardware"]["devices_per_node"] = 8;
    const json r = explained(s);
    const json d = derivation_of(r, "training.step_breakdown_seconds.tp_comm");
    INFO(d.dump());
    CHECK(derivation_value(d, "ring.attention.sites") == 2);
    CHECK(derivation_value(d, "devices_per_site") == 8);
    CHECK(derivation_value(d, "ring.attention.bytes") == 2.0 * derivation_value(d, "tokens") * derivation_value(d, "hidden"));
    CHECK(derivation_value(d, "ring.attention.ranks") == derivation_value(d, "tp"));
    CHECK(derivation_value(d, "ring_attention") == Approx(ring(d, "ring.attention")).epsilon(1e-12));
    CHECK(derivation_value(d, "ring_attention") == derivation_value(d, "ring.attention.seconds"));
    const double per_layer = 2.0 + derivation_value(d, "recompute") + derivation_value(d, "sequence_parallel") / 2.0;
    CHECK(result(d) == Approx(derivation_value(d, "microbatches") * (1.0 - derivation_value(d, "tp_overlap")) *
                              derivation_value(d, "layers_on_slowest_stage") * per_layer *
                              (derivation_value(d, "ring_attention") + derivation_value(d, "ring_mlp")))
                           .epsilon(1e-9));
    CHECK(result(d) == r["training"]["step_breakdown_seconds"]["tp_comm"].get<double>());
    // The WAN's share dominates: the same group in one site is far faster.
    json one = s;
    one["hardware"].erase("network");
    const json d1 = derivation_of(explained(one), "training.step_breakdown_seconds.tp_comm");
    CHECK(derivation_value(d1, "ring.attention.sites") == 1);
    CHECK(derivation_value(d1, "ring_attention") == Approx(ring(d1, "ring.attention")).epsilon(1e-12));
    CHECK(derivation_value(d, "ring_attention") > 10 * derivation_value(d1, "ring_attention"));
    // An MoE model's routed experts' ring over expert_tp ranks.
    const json m = derivation_of(explained(training("mixtral-8x7b", "nvidia-h100-sxm5-80gb", 32,
                                                    {{"tp", 2}, {"dp", 16}, {"zero", 3}, {"micro_batch", 1}, {"recompute", "full"}})),
                                 "training.step_breakdown_seconds.tp_comm");
    CHECK(derivation_value(m, "ring_routed") == Approx(ring(m, "ring.routed")).epsilon(1e-12));
    CHECK(derivation_value(m, "ring_attention") == Approx(ring(m, "ring.attention")).epsilon(1e-12));
}

TEST_CASE("inference prefill_seconds' compute is listed by its terms, which give it from tokens, parameters and peaks") {
    // Review 15: the compute was a single value. Dense with TP 2, an MoE with EP, DP attention on an MLA
    // model, layers in host memory, a speculative draft.
    const json dense = {{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
                        {"inference", {{"tp", 2}, {"prompt_tokens", 2000}, {"output_tokens", 200}, {"prefix_cache_hit_rate", 0.25}}}};
    const json moe = {{"model", {{"preset", "mixtral-8x7b"}}},
                      {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 4}}},
                      {"inference", {{"tp", 2}, {"ep", 2}, {"prompt_tokens", 512}, {"output_tokens", 200}}}};
    const json mla = {
        {"model", {{"preset", "deepseek-v3"}}},
        {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 32}}},
        {"inference",
         {{"tp", 8}, {"ep", 4}, {"attention_dp", true}, {"weight_precision", "fp8"}, {"prompt_tokens", 1000}, {"output_tokens", 100}}}};
    const json offload = {{"model", {{"preset", "llama3-8b"}}},
                          {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                          {"inference", {{"gpu_layers", 20}, {"prompt_tokens", 600}, {"output_tokens", 100}}}};
    json draft = dense;
    draft["inference"]["speculative"] = {{"draft_params", 1e9}, {"draft_tokens", 4}, {"acceptance_rate", 0.7}};
    int replicated = 0, routed = 0, host = 0;
    for (const json& s : {dense, moe, mla, offload, draft}) {
        const json r = explained(s);
        const json d = derivation_of(r, "inference.prefill_seconds");
        INFO(s["model"].dump() << ": " << d.dump());
        auto v = [&](const char* n) { return derivation_value(d, n); };
        const double tokens = v("prompt_tokens") * (1.0 - v("prefix_cache_hit_rate"));
        CHECK(v("tokens") == Approx(tokens).epsilon(1e-12));
        const double e = v("peak") * v("gemm_efficiency"), att = v("attention_flops") / (v("peak_16bit") * v("attention_efficiency"));
        const bool rep = v("params_replicated") > 0;
        CHECK(v("gemm_replicated") == Approx(2.0 * tokens * v("params_replicated") / e).epsilon(1e-12).margin(1e-18));
        CHECK(v("attention_rank") == Approx(rep ? att : 0.0).epsilon(1e-12).margin(1e-18));
        CHECK(v("gemm_split") == Approx(2.0 * tokens * v("params_split") / v("tp") / e * v("gpu_layer_fraction")).epsilon(1e-12));
        CHECK(v("gemm_head") == Approx(2.0 * v("params_head") / v("tp") / e).epsilon(1e-12));
        CHECK(v("attention_split") == Approx(rep ? 0.0 : att / v("tp")).epsilon(1e-12).margin(1e-18));
        CHECK(v("gemm_routed") ==
              Approx(2.0 * tokens * v("params_routed") / v("gpus") / e * v("gpu_layer_fraction")).epsilon(1e-12).margin(1e-18));
        CHECK(v("rank") == Approx(v("gemm_replicated") + v("attention_rank")).epsilon(1e-12).margin(1e-18));
        CHECK(v("group") ==
              Approx(v("gemm_split") + v("gemm_head") + v("attention_split") + v("host_offload") + v("tp_comm") + v("ep_comm"))
                  .epsilon(1e-12));
        CHECK(v("routed") == v("gemm_routed"));
        CHECK(v("compute") == Approx(v("rank") + v("group") + v("routed")).epsilon(1e-12));
        const double fig =
            (std::max(v("compute"), v("weights_pass")) + v("kernels") + v("tp_latency") + v("ep_latency")) * v("draft_prefill_factor");
        CHECK(result(d) == Approx(fig).epsilon(1e-12));
        CHECK(result(d) == r["inference"]["prefill_seconds"].get<double>());
        replicated += rep ? 1 : 0, routed += v("params_routed") > 0 ? 1 : 0, host += v("host_offload") > 0 ? 1 : 0;
    }
    CHECK(replicated == 1);
    CHECK(routed == 2);
    CHECK(host == 1);
}

TEST_CASE("every figure of cluster.network has a derivation whose values give it") {
    // Review 15: cluster.network.* had none. The catalog's links, a per-node Ethernet preset, figures
    // given, a WAN between nodes, and two sites over a WAN preset and over a given WAN.
    const json base = {{"model", {{"preset", "llama3-8b"}}},
                       {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 32}, {"devices_per_node", 8}}},
                       {"training", {{"tokens", 1e11}}}};
    std::vector<json> hws;
    hws.push_back(base["hardware"]);
    hws.push_back(base["hardware"]), hws.back()["network"] = "ethernet-100g";
    hws.push_back(base["hardware"]), hws.back()["network"] = "ib-ndr-400";
    hws.push_back(base["hardware"]), hws.back()["scale_out_bytes_per_second"] = 3e10, hws.back()["latency_seconds"] = 5e-6;
    hws.push_back(base["hardware"]), hws.back()["network"] = "internet-1g";
    hws.push_back(base["hardware"]), hws.back()["sites"] = 2, hws.back()["wan"] = "wan-100g";
    hws.push_back(base["hardware"]), hws.back()["sites"] = 4, hws.back()["wan_bytes_per_second"] = 1e9,
                                     hws.back()["wan_latency_seconds"] = 0.01;
    hws.push_back({{"device", "nvidia-rtx-4090"}, {"count", 2}});  // no scale-up link: PCIe
    for (const json& hw : hws) {
        json s = base;
        s["hardware"] = hw;
        const json r = explained(s);
        INFO(hw.dump());
        const json& net = r["cluster"]["network"];
        int n = 0;
        for (const auto& [k, x] : net.items()) {
            if (!x.is_number()) continue;
            const json d = derivation_of(r, "cluster.network." + k);
            CHECK(result(d) == x.get<double>());
            CHECK_FALSE(d["source"].get<std::string>().empty());
            ++n;
        }
        CHECK(n >= 6);
        const std::string f = derivation_of(r, "cluster.network.scale_out_bytes_per_second")["formula"];
        const json so = derivation_of(r, "cluster.network.scale_out_bytes_per_second");
        if (f.find("devices_per_node") != std::string::npos)
            CHECK(result(so) == Approx(derivation_value(so, "bytes_per_second") / derivation_value(so, "devices_per_node")).epsilon(1e-15));
        else
            CHECK(result(so) == so["values"].begin().value().get<double>());
        const json dps = derivation_of(r, "cluster.network.devices_per_node");
        CHECK(result(dps) == std::min(derivation_value(dps, "devices_per_node"), derivation_value(dps, "devices_per_site")));
        const json ps = derivation_of(r, "cluster.network.devices_per_site");
        const double sites = derivation_value(ps, "sites"), devices = derivation_value(ps, "devices");
        const std::string pf = ps["formula"];
        CHECK(result(ps) ==
              (pf.find("min") != std::string::npos ? std::min(derivation_value(ps, "devices_per_node"), devices) : devices / sites));
        if (net["wan_bytes_per_second"].is_number()) {
            const json w = derivation_of(r, "cluster.network.wan_bytes_per_second");
            const std::string wf = w["formula"];
            double expect = derivation_value(w, "given");
            if (wf.find("x devices_per_site") != std::string::npos)
                expect = derivation_value(w, "scale_out_bytes_per_second") * derivation_value(w, "devices");
            else if (wf.find("per endpoint") != std::string::npos)
                expect = derivation_value(w, "bytes_per_second");
            else if (wf.find("per node") != std::string::npos)
                expect = derivation_value(w, "bytes_per_second") *
                         std::max(1.0, std::ceil(derivation_value(w, "devices") / derivation_value(w, "devices_per_node")));
            else if (wf.find("per device") != std::string::npos)
                expect = derivation_value(w, "bytes_per_second") * derivation_value(w, "devices");
            CHECK(result(w) == Approx(expect).epsilon(1e-15));
            CHECK(derivation_of(r, "cluster.network.wan_latency_seconds")["result"] == net["wan_latency_seconds"]);
        }
    }
}

TEST_CASE("an infeasible mixed fleet's goodput is its failure model's, with a derivation") {
    // Review 15: a fleet where nothing fits reported goodput 1 with its breakdown all zero, said to come
    // from the failure/checkpoint model, and no derivation; a single device type that does not fit
    // reports the model's goodput (it depends on the devices and the parameters, not on the fit).
    const json s = {{"model", {{"preset", "llama3.1-405b"}}},
                    {"hardware",
                     {{"pools",
                       {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}, {"site", "a"}},
                        {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}, {"site", "a"}}}}}},
                    {"training", {{"tokens", 1e12}}}};
    const json r = explained(s);
    REQUIRE(r["training"]["fits"] == false);
    const json g = derivation_of(r, "training.goodput");
    const double mtbf = 3600.0 / derivation_value(g, "failures_per_hour"), ck = derivation_value(g, "checkpoint_seconds");
    const double interval = derivation_value(g, "checkpoint_interval_seconds");
    CHECK(interval == Approx(std::sqrt(2.0 * ck * mtbf)).epsilon(1e-12));
    CHECK(result(g) ==
          Approx(1.0 / (1.0 + ck / interval + (interval / 2.0 + derivation_value(g, "restart_seconds")) / mtbf)).epsilon(1e-12));
    CHECK(result(g) == r["training"]["goodput"].get<double>());
    CHECK(r["training"]["goodput"].get<double>() < 1);
    CHECK(r["training"]["goodput_breakdown"]["failures_per_hour"].get<double>() > 0);
    // The goodput of 128 devices of this model, as one device type that does not fit has it.
    const json one = run({{"model", {{"preset", "llama3.1-405b"}}},
                          {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 128}}},
                          {"training", {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}, {"dp", 128}, {"zero", 0}}}});
    REQUIRE(one["training"]["fits"] == false);
    CHECK(r["training"]["goodput"].get<double>() == Approx(one["training"]["goodput"].get<double>()).epsilon(1e-12));
}

TEST_CASE("fine-tuning's trainable parameters are the rank x the listed d_in + d_out x the layers, exactly") {
    // Review 15: lora_width was computed twice (for the figure and for its derivation); now once. Dense,
    // MoE and MLA models, every module choice.
    for (const char* model : {"llama3-8b", "mixtral-8x7b", "deepseek-v3"}) {
        for (const char* modules : {"qv", "qkv", "attention", "all_linear", "qvo_mlp"}) {
            const json r = explained({{"model", {{"preset", model}}},
                                      {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                                      {"finetune", {{"method", "lora"}, {"lora_modules", modules}, {"lora_rank", 16}, {"tokens", 1e8}}}});
            const json d = derivation_of(r, "finetune.trainable_params");
            INFO(model << " " << modules << ": " << d.dump());
            CHECK(derivation_value(d, "d_in_plus_d_out") > 0);
            CHECK(result(d) == derivation_value(d, "rank") * derivation_value(d, "d_in_plus_d_out") * derivation_value(d, "layers"));
            CHECK(result(d) == r["finetune"]["trainable_params"].get<double>());
        }
    }
}
