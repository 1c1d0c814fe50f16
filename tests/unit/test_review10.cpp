// Fixes of 2026-12-05 (review 10): derivations ("show the work") that a reader could not trust: the
// formula with the values shown did not give the figure, or a value it reads was not shown. Each test
// recomputes the figure from the derivation's own values.
#include <filesystem>
#include <fstream>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;

namespace {

// The derivation of `key` in the report of `scenario` (derivations on).
json derivation(json scenario, const std::string& key) {
    scenario["explain"] = true;
    const json r = run(scenario);
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["explain"].contains(key));
    return r["explain"][key];
}

}  // namespace

TEST_CASE("the ZeRO memory derivations divide by the ranks that really shard: one site's under DiLoCo, a shard_group's when given") {
    // 16 A100 on a WAN preset (every node its own site), ZeRO-2, dp 2: the derivation said / dp x cp
    // (2) while each site shards alone (1 rank); 16 H100, dp 16, shard_group 4: / 16 shown, / 4 used.
    const json wan = {{"model", {{"preset", "mpt-7b"}}},
                      {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 16}, {"network", "wan-100g"}}},
                      {"training", {{"tokens", 2e12}, {"tp", 8}, {"dp", 2}, {"zero", 2}, {"mfu", 0.4}}}};
    const json group = {{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                        {"training", {{"tokens", 1e11}, {"dp", 16}, {"zero", 2}, {"shard_group", 4}}}};
    for (const json& s : {wan, group}) {
        const json g = derivation(s, "training.memory_per_gpu_bytes.gradients");
        const json o = derivation(s, "training.memory_per_gpu_bytes.optimizer");
        CHECK(g["result"].get<double>() ==
              Approx(derivation_value(g, "stage_params") * derivation_value(g, "bytes_per_gradient") / derivation_value(g, "shard_ranks"))
                  .epsilon(1e-9));
        CHECK(o["result"].get<double>() == Approx(derivation_value(o, "stage_params") * derivation_value(o, "bytes_per_param_of_state") /
                                                  derivation_value(o, "shard_ranks"))
                                               .epsilon(1e-9));
        CHECK(o["formula"].get<std::string>().find("shard_ranks") != std::string::npos);
    }
    CHECK(derivation_value(derivation(wan, "training.memory_per_gpu_bytes.optimizer"), "shard_ranks") == 1);
    CHECK(derivation_value(derivation(group, "training.memory_per_gpu_bytes.optimizer"), "shard_ranks") == 4);
}

TEST_CASE(
    "the training memory total's derivation adds DiLoCo's outer state kept on the device, and the overhead shows what it multiplies") {
    // DiLoCo over 1 Gb/s internet with outer_offload false: the parts listed (weights + gradients +
    // optimizer + activations + overhead) summed to 124 GiB, the total shown was 136 GiB.
    const json s = {{"model", {{"preset", "llama2-13b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}, {"network", "internet-1g"}}},
                    {"training",
                     {{"tokens", 1e11},
                      {"dp", 64},
                      {"zero", 1},
                      {"local_steps", 100},
                      {"outer_precision", "int8"},
                      {"outer_offload", false},
                      {"global_batch", 1024}}}};
    const json t = derivation(s, "training.memory_per_gpu_bytes.total");
    CHECK(derivation_value(t, "outer_optimizer") > 0);
    const double sum = derivation_value(t, "weights") + derivation_value(t, "gradients") + derivation_value(t, "optimizer") +
                       derivation_value(t, "activations") + derivation_value(t, "outer_optimizer") + derivation_value(t, "overhead");
    CHECK(t["result"].get<double>() == Approx(sum).epsilon(1e-9));
    const json o = derivation(s, "training.memory_per_gpu_bytes.overhead");
    CHECK(o["result"].get<double>() ==
          Approx(derivation_value(o, "overhead_bytes") + derivation_value(o, "fragmentation") * derivation_value(o, "other_terms"))
              .epsilon(1e-9));
}

TEST_CASE(
    "training tokens per second at a given MFU shows the FLOPs per token it divides by, and the uncertainty says which end it gives") {
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                    {"training", {{"tokens", 1e11}, {"tp", 2}, {"dp", 8}, {"mfu", 0.4}}}};
    const json t = derivation(s, "training.tokens_per_second");
    CHECK(t["result"].get<double>() == Approx(derivation_value(t, "mfu") * derivation_value(t, "devices") *
                                              derivation_value(t, "peak_flops_per_second") / derivation_value(t, "model_flops_per_token"))
                                           .epsilon(1e-9));
    CHECK_FALSE(t["source"].get<std::string>().empty());
    // The band is [seconds / high, seconds / low]; the derivation's one result is the slow end.
    const json u = derivation({{"model", {{"preset", "llama3-8b"}}},
                               {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                               {"training", {{"tokens", 1e11}, {"tp", 2}, {"dp", 8}}}},
                              "training.uncertainty");
    CHECK(u["result"].get<double>() == Approx(derivation_value(u, "seconds") / derivation_value(u, "band_low")).epsilon(1e-9));
    CHECK(u["formula"].get<std::string>().find("slow end") != std::string::npos);
}

TEST_CASE("fine-tuning's weights and optimizer derivations divide by the devices FSDP shards over, and show them") {
    // LoRA on 8 H100: "params x 2 B + adapters" gave 16.1 GB against the 2.0 GB shown, and the
    // optimizer's "/ devices" had no devices among its values.
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                    {"finetune", {{"method", "lora"}, {"tokens", 1e8}}}};
    const json w = derivation(s, "finetune.memory_per_gpu_bytes.weights");
    CHECK(
        w["result"].get<double>() ==
        Approx((derivation_value(w, "params") * 2 + derivation_value(w, "adapters_bytes")) / derivation_value(w, "devices")).epsilon(1e-9));
    CHECK(w["formula"].get<std::string>().find("/ devices") != std::string::npos);
    CHECK_FALSE(w["source"].get<std::string>().empty());
    const json o = derivation(s, "finetune.memory_per_gpu_bytes.optimizer");
    CHECK(o["result"].get<double>() ==
          Approx(derivation_value(o, "trainable_params") * derivation_value(o, "state_bytes_per_param") / derivation_value(o, "devices"))
              .epsilon(1e-9));
    // With cpu_offload both are in host memory: the formulas say 0, as the figures.
    json off = s;
    off["finetune"] = {{"method", "full"}, {"cpu_offload", true}, {"tokens", 1e8}};
    for (const char* key : {"finetune.memory_per_gpu_bytes.weights", "finetune.memory_per_gpu_bytes.optimizer"}) {
        const json d = derivation(off, key);
        CHECK(d["result"].get<double>() == 0);
        CHECK(d["formula"].get<std::string>().rfind("0:", 0) == 0);
    }
}

TEST_CASE("with separate prefill and decode copies, the derivation of the GPUs needed counts both kinds of copies") {
    // Llama 3 8B, TP 2, 5M requests a day, disaggregated: the formula (decode copies alone) gave 4 GPUs,
    // the figure was 8 (2 decode + 2 prefill copies of 2); the cost share named instances its values lacked.
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                    {"inference", {{"tp", 2}, {"requests_per_day", 5e6}, {"disaggregated", true}}},
                    {"costs", {{"gpu_hour_usd", 2.5}}}};
    const json g = derivation(s, "inference.gpus_needed");
    CHECK(g["result"].get<double>() ==
          (derivation_value(g, "decode_instances") + derivation_value(g, "prefill_instances")) * derivation_value(g, "instance_gpus"));
    CHECK(derivation_value(g, "prefill_instances") > 0);
    CHECK_FALSE(g["source"].get<std::string>().empty());
    const json c = derivation(s, "inference.input_cost_share");
    CHECK(c["result"].get<double>() == Approx(derivation_value(c, "prefill_instances") /
                                              (derivation_value(c, "prefill_instances") + derivation_value(c, "decode_instances")))
                                           .epsilon(1e-12));
}

TEST_CASE("serving's batch and copies per device say when their figure is not their formula's (nothing fits, a copy spans devices)") {
    // Llama 2 70B on two RTX 4090: max_batch 0, the formula min(max_batch, batch_limit) gave 0, the
    // batch shown was 1.
    const json none = derivation({{"model", {{"preset", "llama2-70b"}}},
                                  {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 2}}},
                                  {"inference", {{"prompt_tokens", 1000}, {"output_tokens", 200}}}},
                                 "inference.batch");
    CHECK(derivation_value(none, "max_batch") < 1);
    CHECK(none["result"].get<double>() == 1);
    const bool says_one = none["formula"].get<std::string>().rfind("1:", 0) == 0;
    CHECK(says_one);
    // Llama 3 8B q4_k_m with 10 layers on the device: floor(memory / copy) gave 14, the figure 0.
    const json offload = derivation({{"model", {{"preset", "llama3-8b"}}},
                                     {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                                     {"inference", {{"weight_format", "q4_k_m"}, {"gpu_layers", 10}, {"batch", 1}}}},
                                    "inference.instances_per_gpu");
    const json tp2 = derivation({{"model", {{"preset", "llama3-8b"}}},
                                 {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                                 {"inference", {{"tp", 2}}}},
                                "inference.instances_per_gpu");
    for (const json& d : {offload, tp2}) {
        CHECK(d["result"].get<double>() == 0);
        const bool says_zero = d["formula"].get<std::string>().rfind("0:", 0) == 0;
        CHECK(says_zero);
        const bool sourced = !d["source"].get<std::string>().empty();
        CHECK(sourced);
    }
    const json one = derivation({{"model", {{"preset", "llama3-8b"}}},
                                 {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                                 {"inference", {{"tp", 1}, {"batch", 1}}}},
                                "inference.instances_per_gpu");
    CHECK(one["result"].get<double>() == std::floor(derivation_value(one, "memory_bytes") / derivation_value(one, "instance_bytes")));
}

TEST_CASE("the derivation of the weights per device adds the draft model's weights that the figure holds") {
    // Llama 3 8B with a 1B-parameter draft on one H100: the formula gave 16.1 GB, the figure 18.1 GB.
    const json d = derivation({{"model", {{"preset", "llama3-8b"}}},
                               {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                               {"inference", {{"tp", 1}, {"speculative", {{"draft_params", 1e9}}}}}},
                              "inference.weights_bytes_per_gpu");
    CHECK(derivation_value(d, "draft_weights_bytes") > 0);
    CHECK(d["result"].get<double>() ==
          Approx((derivation_value(d, "weights_bytes") + derivation_value(d, "draft_weights_bytes")) / derivation_value(d, "tp"))
              .epsilon(1e-12));
    const bool sourced = !d["source"].get<std::string>().empty();
    CHECK(sourced);
}

TEST_CASE("serving's decode and price derivations show every value their formulas read, and the values give the figures") {
    const json ds = {{"model", {{"preset", "deepseek-v3"}}},
                     {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 8}}},
                     {"inference", {{"tp", 8}, {"requests_per_day", 1e6}}},
                     {"costs", {{"gpu_hour_usd", 2}}}};
    // FP8 weights, 16-bit output head split over tp 8: the head's term divides by tp, which was not shown.
    const json w = derivation(ds, "inference.decode_breakdown_seconds.weights");
    CHECK(w["result"].get<double>() ==
          Approx((derivation_value(w, "params_read_per_gpu") * derivation_value(w, "bytes_per_param") +
                  derivation_value(w, "head_params_16bit") * (2 - derivation_value(w, "bytes_per_param")) / derivation_value(w, "tp")) /
                 (derivation_value(w, "bandwidth") * derivation_value(w, "eff_memory")))
              .epsilon(1e-9));
    // The GEMMs: tokens, parameters and widths were not among the values (an MoE's routed experts too).
    for (const json& s : {ds, json{{"model", {{"preset", "llama3-8b"}}},
                                   {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                                   {"inference", {{"tp", 2}}}}}) {
        const json c = derivation(s, "inference.decode_breakdown_seconds.compute");
        const double w_ = derivation_value(c, "hidden") / derivation_value(c, "tp");
        const double rate = derivation_value(c, "peak_flops_per_second") * derivation_value(c, "gemm_max") * w_ /
                            (w_ + derivation_value(c, "gemm_half_width"));
        const double flops = derivation_value(c, "tokens") * 2 *
                                 (derivation_value(c, "matmul_params") - derivation_value(c, "routed_params")) / derivation_value(c, "tp") +
                             derivation_value(c, "batch") * 2 * derivation_value(c, "routed_params") /
                                 (derivation_value(c, "tp") * derivation_value(c, "ep"));
        CHECK(c["result"].get<double>() == Approx(flops / rate).epsilon(1e-9));
    }
    // Llama 3 8B on an RTX 4090 with 10 layers on the device: the KV cache of the others is read from
    // host memory; neither bandwidth was shown.
    const json k = derivation({{"model", {{"preset", "llama3-8b"}}},
                               {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                               {"inference", {{"weight_format", "q4_k_m"}, {"gpu_layers", 10}, {"batch", 1}, {"prompt_tokens", 8000}}}},
                              "inference.decode_breakdown_seconds.kv_cache");
    const double on = derivation_value(k, "layers_on_device");
    CHECK(on < 1);
    CHECK(k["result"].get<double>() == Approx(derivation_value(k, "sequences_per_gpu") * derivation_value(k, "attended_context") *
                                              derivation_value(k, "kv_per_token_per_gpu") *
                                              (on / (derivation_value(k, "bandwidth") * derivation_value(k, "eff_memory")) +
                                               (1 - on) / (derivation_value(k, "host_bandwidth") * derivation_value(k, "eff_memory"))))
                                           .epsilon(1e-9));
    // The prices per million tokens: with traffic, the day's cost and tokens; without, a request's GPU-seconds and tokens.
    const json out = derivation(ds, "inference.cost_per_million_output_tokens_usd");
    CHECK(out["result"].get<double>() == Approx(derivation_value(out, "cost_per_day") * (1 - derivation_value(out, "input_cost_share")) /
                                                derivation_value(out, "output_tokens_per_day") * 1e6)
                                             .epsilon(1e-9));
    json idle = ds;
    idle["inference"].erase("requests_per_day");
    const json in = derivation(idle, "inference.cost_per_million_input_tokens_usd");
    CHECK(in["result"].get<double>() == Approx(derivation_value(in, "gpu_hour_usd") / 3600 * derivation_value(in, "prefill_gpu_seconds") /
                                               derivation_value(in, "prompt_tokens") * 1e6)
                                            .epsilon(1e-9));
}

TEST_CASE("every derivation names a source: the fixtures and serving with traffic, disaggregation and a draft model") {
    // Fourteen figures (training's seconds, days, GPU-hours; serving's tpot, KV cache, memory, costs
    // per day, ...) had an empty source.
    std::vector<json> scenarios;
    for (const auto& e : std::filesystem::directory_iterator(GPUCALC_FIXTURES)) {
        if (e.path().extension() != ".json") continue;
        std::ifstream in(e.path());
        scenarios.push_back(json::parse(in));
    }
    for (const bool disaggregated : {false, true})
        scenarios.push_back(
            {{"model", {{"preset", "llama3-8b"}}},
             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
             {"inference",
              {{"tp", 1}, {"requests_per_day", 1e6}, {"disaggregated", disaggregated}, {"speculative", {{"draft_params", 1e9}}}}},
             {"training", {{"tokens", 1e11}, {"dp", 16}, {"mfu", 0.4}}},
             {"costs", {{"gpu_hour_usd", 2}}}});
    int derivations = 0;
    for (json s : scenarios) {
        s["explain"] = true;
        const json r = run(s);
        if (!r.contains("explain")) continue;
        for (const auto& [key, d] : r["explain"].items()) {
            INFO(key);
            const bool sourced = !d["source"].get<std::string>().empty();
            CHECK(sourced);
            ++derivations;
        }
    }
    CHECK(derivations > 500);
}

TEST_CASE("fine-tuning's throughput, time, GPU-hours and cost each have a derivation that gives the figure") {
    // The report gave them with no derivation at all.
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                    {"finetune", {{"method", "lora"}, {"tokens", 1e8}}},
                    {"costs", {{"gpu_hour_usd", 2}}}};
    const json t = derivation(s, "finetune.tokens_per_second");
    CHECK(t["result"].get<double>() ==
          Approx(derivation_value(t, "tokens_per_device") * derivation_value(t, "devices") / derivation_value(t, "step_seconds"))
              .epsilon(1e-12));
    const json sec = derivation(s, "finetune.seconds");
    CHECK(sec["result"].get<double>() ==
          Approx(derivation_value(sec, "tokens") / derivation_value(sec, "tokens_per_second")).epsilon(1e-12));
    const json h = derivation(s, "finetune.gpu_hours");
    CHECK(h["result"].get<double>() == Approx(derivation_value(h, "devices") * derivation_value(h, "seconds") / 3600).epsilon(1e-12));
    const json c = derivation(s, "finetune.cost_usd");
    CHECK(c["result"].get<double>() == Approx(derivation_value(c, "gpu_hours") * derivation_value(c, "gpu_hour_usd")).epsilon(1e-12));
    const json r = run(s);
    CHECK(c["result"].get<double>() == Approx(r["finetune"]["cost_usd"].get<double>()).epsilon(1e-12));
}

TEST_CASE("serving's whole-request time and a user's output speed each have a derivation that gives the figure") {
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                    {"inference", {{"requests_per_day", 1e6}}}};
    const json q = derivation(s, "inference.request_seconds");
    CHECK(q["result"].get<double>() ==
          Approx(derivation_value(q, "ttft_seconds") + derivation_value(q, "output_tokens") * derivation_value(q, "tpot_seconds"))
              .epsilon(1e-12));
    const json u = derivation(s, "inference.output_tokens_per_second_per_user");
    CHECK(u["result"].get<double>() == Approx(1 / derivation_value(u, "tpot_seconds")).epsilon(1e-12));
    CHECK(u["result"].get<double>() == Approx(run(s)["inference"]["output_tokens_per_second_per_user"].get<double>()).epsilon(1e-12));
}

TEST_CASE("a mixed fleet's throughput and MFU and memory and run totals each have a derivation that gives the figure") {
    // 64 H100 at one site and 64 A100 at another: only the step had a derivation.
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware",
                     {{"pools",
                       {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}, {"site", "a"}},
                        {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}, {"site", "b"}}}}}},
                    {"training", {{"tokens", 1e12}}},
                    {"costs", {{"gpu_hour_usd", 2}}}};
    const json t = derivation(s, "training.tokens_per_second");
    CHECK(t["result"].get<double>() == Approx(derivation_value(t, "tokens_per_step") / derivation_value(t, "step_seconds")).epsilon(1e-12));
    const json m = derivation(s, "training.mfu");
    CHECK(m["result"].get<double>() == Approx(derivation_value(m, "model_flops_per_token") * derivation_value(m, "tokens_per_second") /
                                              (derivation_value(m, "devices") * derivation_value(m, "peak_flops_per_second")))
                                           .epsilon(1e-12));
    const json sec = derivation(s, "training.seconds");
    CHECK(
        sec["result"].get<double>() ==
        Approx(derivation_value(sec, "D") / derivation_value(sec, "tokens_per_second") / derivation_value(sec, "goodput")).epsilon(1e-12));
    const json c = derivation(s, "training.cost_usd");
    CHECK(c["result"].get<double>() == Approx(derivation_value(c, "gpu_hours") * derivation_value(c, "gpu_hour_usd")).epsilon(1e-12));
    const json mem = derivation(s, "training.memory_per_gpu_bytes.total");
    CHECK(mem["result"].get<double>() ==
          Approx(derivation_value(mem, "weights") + derivation_value(mem, "gradients") + derivation_value(mem, "optimizer") +
                 derivation_value(mem, "activations") + derivation_value(mem, "outer_optimizer") + derivation_value(mem, "overhead"))
              .epsilon(1e-12));
}

TEST_CASE("the training activations' derivation shows the logits and the layer being recomputed that the figure adds") {
    // Llama 3 8B, tp 2: the layers' activations shown summed to less than the figure by the fp32
    // logits (no pipeline) and, under full recomputation, by the layer being recomputed.
    for (const char* recompute : {"none", "selective", "full"}) {
        const json d = derivation({{"model", {{"preset", "llama3-8b"}}},
                                   {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                                   {"training", {{"tokens", 1e11}, {"tp", 2}, {"dp", 4}, {"recompute", recompute}}}},
                                  "training.memory_per_gpu_bytes.activations");
        const double layers = derivation_value(d, "activation_bytes_per_layer") * derivation_value(d, "stage_layers") *
                              derivation_value(d, "in_flight_microbatches");
        CHECK(derivation_value(d, "logits_bytes") ==
              Approx(4 * derivation_value(d, "seq") / derivation_value(d, "cp") * derivation_value(d, "micro_batch") *
                     derivation_value(d, "vocab") / derivation_value(d, "tp")));
        CHECK((derivation_value(d, "recomputed_layer_bytes") > 0) == (std::string(recompute) == "full"));
        CHECK(d["result"].get<double>() ==
              Approx(layers + derivation_value(d, "recomputed_layer_bytes") + derivation_value(d, "logits_bytes")).epsilon(1e-12));
    }
}

TEST_CASE("the derivation of the weights' bytes counts the 16-bit tables apart and the quantisation scales once") {
    // Llama 3 8B in int4 (group 32): the formula read params x 0.625 + 4 bytes per 32 weights + the
    // tables, 6.68 GB; the figure, 5.74 GB, counts the scales once (in bytes_per_param) and the 16-bit
    // tables instead of, not besides, their quantised bytes. In fp8 the same reading gave 6 % too much.
    for (const char* precision : {"int4", "fp8", "fp4", "bf16"}) {
        const json d = derivation({{"model", {{"preset", "llama3-8b"}}},
                                   {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                                   {"inference", {{"weight_precision", precision}, {"batch", 1}}}},
                                  "inference.weights_bytes");
        const double kept = derivation_value(d, "params_kept_16bit");
        CHECK(d["result"].get<double>() ==
              Approx((derivation_value(d, "params") - kept) * derivation_value(d, "bytes_per_param") + kept * 2).epsilon(1e-12));
        const bool apart = d["formula"].get<std::string>().rfind("(params - params_kept_16bit) x bytes_per_param", 0) == 0;
        CHECK(apart);
    }
}

TEST_CASE("the derivation of an MoE's weights per device shows the routed experts' bytes it divides by tp x ep") {
    // Mixtral 8x7B at tp 2, ep 4; DeepSeek-V3 with DP attention: neither the experts' bytes nor the
    // bytes per weight of the replicated attention were among the values.
    const json mixtral = {{"model", {{"preset", "mixtral-8x7b"}}},
                          {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                          {"inference", {{"tp", 2}, {"ep", 4}}}};
    const json deepseek = {{"model", {{"preset", "deepseek-v3"}}},
                           {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 16}}},
                           {"inference", {{"tp", 8}, {"ep", 2}, {"attention_dp", true}}}};
    for (const json& s : {mixtral, deepseek}) {
        const json d = derivation(s, "inference.weights_bytes_per_gpu");
        const double t = derivation_value(d, "tp"), ep = derivation_value(d, "ep"), routed = derivation_value(d, "routed_experts_bytes");
        CHECK(routed > 0);
        CHECK(d["result"].get<double>() ==
              Approx((derivation_value(d, "weights_bytes") - routed) / t + routed / (t * ep) +
                     derivation_value(d, "draft_weights_bytes") / t - derivation_value(d, "host_weights_bytes") / (t * ep) +
                     derivation_value(d, "attention_params_replicated") * derivation_value(d, "bytes_per_param") * (1 - 1 / t))
                  .epsilon(1e-12));
    }
}

TEST_CASE("serving's tensor-parallel all-reduce and dequantization derivations show the layers and tokens and widths they multiply") {
    // Llama 3 70B in int4 at tp 16 over two nodes: layers, tokens, width and the latency between nodes
    // were not among the values; the dequantization's parameters and layers neither.
    const json s = {{"model", {{"preset", "llama3-70b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}, {"network", "ib-ndr-400"}}},
                    {"inference", {{"tp", 16}, {"batch", 8}, {"weight_precision", "int4"}}}};
    const json c = derivation(s, "inference.decode_breakdown_seconds.tp_comm");
    const double t = derivation_value(c, "tp");
    CHECK(derivation_value(c, "across_nodes_latency") > 0);
    CHECK(c["result"].get<double>() ==
          Approx(derivation_value(c, "layers") * 2 *
                 (derivation_value(c, "collective_base_seconds") + derivation_value(c, "collective_per_hop_seconds") * std::log2(t) +
                  derivation_value(c, "across_nodes_latency") +
                  2 * (t - 1) / t * derivation_value(c, "tokens") * derivation_value(c, "hidden") * 2 /
                      derivation_value(c, "link_bytes_per_second")))
              .epsilon(1e-9));
    const json q = derivation(s, "inference.decode_breakdown_seconds.dequantization");
    CHECK(q["result"].get<double>() == Approx(derivation_value(q, "params_read_per_gpu") * derivation_value(q, "ops_per_weight") /
                                                  (derivation_value(q, "fp32_peak") * derivation_value(q, "dequant_alu")) +
                                              derivation_value(q, "layers") * derivation_value(q, "dequant_kernel_seconds_per_layer"))
                                           .epsilon(1e-9));
}
