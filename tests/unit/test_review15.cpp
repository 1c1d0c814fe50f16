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

}  // namespace

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
