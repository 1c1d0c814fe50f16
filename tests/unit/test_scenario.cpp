// Validation: every field checked for type, range and consistency; errors name the field path and
// come all at once; absurd but valid inputs stay finite.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gpucalc/errors.hpp"
#include "helpers.hpp"

using nlohmann::json;

static json base() {
    return {{"model", {{"preset", "llama2-7b"}}},
            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
            {"training", {{"tokens", 1e12}}}};
}

TEST_CASE("malformed JSON, non-object and too-large input give errors, not crashes") {
    auto r = json::parse(gpucalc::estimate_json("{\"model\": "));
    CHECK(has_error(r, "", "malformed_json"));
    CHECK(has_error(json::parse(gpucalc::estimate_json("[1,2]")), "", "type"));
    CHECK(has_error(json::parse(gpucalc::estimate_json("NaN")), "", "malformed_json"));
    CHECK(has_error(json::parse(gpucalc::estimate_json(std::string(2 << 20, ' '))), "", "too_large"));
    CHECK(has_error(json::parse(gpucalc::estimate_json("{}")), "", "missing"));
}

TEST_CASE("negative count, unknown device, wrong types, unknown fields name their field") {
    json s = base();
    s["hardware"]["count"] = -8;
    CHECK(has_error(run(s), "hardware.count", "range"));
    s = base();
    s["hardware"]["device"] = "nvidia-h1000";
    CHECK(has_error(run(s), "hardware.device", "unknown_device"));
    s = base();
    s["training"]["tokens"] = "lots";
    CHECK(has_error(run(s), "training.tokens", "type"));
    s = base();
    s["training"]["tokns"] = 5;
    CHECK(has_error(run(s), "training.tokns", "unknown_field"));
    s = base();
    s["training"]["mfu"] = 1.5;
    CHECK(has_error(run(s), "training.mfu", "range"));
    s = base();
    s["training"]["tp"] = 2.5;
    CHECK(has_error(run(s), "training.tp", "range"));
}

TEST_CASE("several errors are reported at once") {
    json s = base();
    s["hardware"]["count"] = 0;
    s["training"]["tokens"] = -1;
    s["costs"] = {{"pue", 0.5}};
    auto r = run(s);
    CHECK(has_error(r, "hardware.count"));
    CHECK(has_error(r, "training.tokens"));
    CHECK(has_error(r, "costs.pue"));
}

TEST_CASE("consistency rules: tp x pp x dp = count, heads % tp, layers % pp, batch % (dp x micro), precision") {
    json s = base();
    s["training"]["tp"] = 3;
    CHECK(has_error(run(s), "training.tp", "divisibility"));
    s = base();
    s["training"]["tp"] = 2;
    s["training"]["dp"] = 2;
    CHECK(has_error(run(s), "training.dp", "divisibility"));
    s = base();
    s["hardware"]["count"] = 64;
    s["training"]["pp"] = 16;
    s["training"]["vpp"] = 4;
    CHECK(has_error(run(s), "training.pp", "range"));  // 32 layers cannot fill 64 model chunks
    s = base();
    s["training"]["tp"] = 1;
    s["training"]["global_batch"] = 100;
    s["training"]["micro_batch"] = 3;
    CHECK(has_error(run(s), "training.global_batch", "divisibility"));
    s = base();
    s["training"]["pp"] = 2;
    s["training"]["zero"] = 3;  // ZeRO-2/3 with pipeline parallelism (DeepSpeed rejects it)
    CHECK(has_error(run(s), "training.zero", "conflict"));
    s = base();
    s["hardware"]["device"] = "nvidia-a100-sxm4-80gb";
    s["training"]["precision"] = "fp8";  // no FP8 on Ampere
    CHECK(has_error(run(s), "training.precision", "unsupported"));
}

TEST_CASE("absurd but valid inputs give finite answers or a clear does-not-fit") {
    json s = {{"model", {{"params", 1e12}}}, {"hardware", {{"device", "nvidia-l4"}, {"count", 1}}}, {"training", {{"tokens", 1e30}}}};
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["fits"] == false);
    all_finite(r);
    CHECK(r["warnings"].dump().find("non-finite") == std::string::npos);
    json s2 = {{"model", {{"preset", "llama3.1-405b"}}},
               {"hardware", {{"device", "nvidia-l4"}, {"count", 1}}},
               {"inference", {{"batch", 1000000}, {"prompt_tokens", 100000000}}}};
    auto r2 = run(s2);
    REQUIRE_FALSE(r2.contains("errors"));
    CHECK(r2["inference"]["fits"] == false);
    all_finite(r2);
}

TEST_CASE("the report echoes the effective inputs with defaults filled in") {
    json s = base();
    s["training"]["tp"] = 1;
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inputs"]["training"]["dp"] == 8);
    CHECK(r["inputs"]["training"]["layout"] == "given");
    CHECK(r["inputs"]["training"]["recompute"] == "none");     // Megatron-LM's own default (selective recomputes its attention)
    CHECK(r["inputs"]["training"]["global_batch"] == 1024.0);  // 4M tokens / 4096
    CHECK(r["inputs"]["costs"]["pue"] == 1.2);
    CHECK(r["inputs"]["model"]["params"] == 6738415616.0);
}

TEST_CASE("show the work: every headline figure has a derivation with formula, values and result") {
    auto r = run({{"model", {{"preset", "llama2-70b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                  {"training", {{"tokens", 2e12}, {"tp", 8}}},
                  {"inference", {{"tp", 4}, {"batch", 16}, {"requests_per_day", 1e6}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const auto& ex = r["explain"];
    for (const char* k : {"cluster.cores",
                          "cluster.memory_bytes",
                          "cluster.nodes",
                          "cluster.power_watts",
                          "cluster.peak_flops_per_second.bf16",
                          "cluster.peak_flops_per_second.fp8",
                          "cluster.facility_power_watts",
                          "training.flops",
                          "training.flops_6nd",
                          "training.days",
                          "training.seconds",
                          "training.gpu_hours",
                          "training.cost_usd",
                          "training.energy_kwh",
                          "training.co2_kg",
                          "training.mfu",
                          "training.hfu",
                          "training.tokens_per_second",
                          "training.achieved_flops_per_second_per_gpu",
                          "training.step_seconds",
                          "training.fits",
                          "training.memory_per_gpu_bytes.weights",
                          "training.memory_per_gpu_bytes.gradients",
                          "training.memory_per_gpu_bytes.optimizer",
                          "training.memory_per_gpu_bytes.activations",
                          "training.memory_per_gpu_bytes.overhead",
                          "training.memory_per_gpu_bytes.total",
                          "inference.weights_bytes",
                          "inference.kv_cache_bytes_per_token",
                          "inference.kv_cache_bytes",
                          "inference.max_batch",
                          "inference.prefill_seconds",
                          "inference.decode_seconds_per_token",
                          "inference.decode_tokens_per_second_per_user",
                          "inference.turn_batch",
                          "inference.throughput_tokens_per_second_per_gpu",
                          "inference.gpus_needed",
                          "inference.cost_per_day_usd",
                          "inference.cost_per_million_output_tokens_usd",
                          "inference.energy_per_day_kwh",
                          "inference.fits"}) {
        INFO(k);
        REQUIRE(ex.contains(k));
        CHECK_FALSE(ex[k]["formula"].get<std::string>().empty());
        CHECK(ex[k]["result"].is_number());
        CHECK(ex[k]["values"].is_object());
    }
    // The derivation's result is the reported figure.
    CHECK(ex["training.gpu_hours"]["result"] == r["training"]["gpu_hours"]);
    CHECK(ex["inference.kv_cache_bytes_per_token"]["result"] == r["inference"]["kv_cache_bytes_per_token"]);
}

TEST_CASE("fuzz regressions: every input found by the fuzzer now gives valid JSON") {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(GPUCALC_REGRESSIONS)) {
        std::ifstream f(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        INFO(entry.path().string());
        const auto out = json::parse(gpucalc::estimate_json(text), nullptr, false);
        CHECK_FALSE(out.is_discarded());
        ++n;
    }
    CHECK(n >= 2);
    // Found by libFuzzer: an unknown key whose 60-byte cut fell inside a UTF-8 character made the
    // error message invalid UTF-8, and serialising it threw. Keys are now cut at character boundaries.
    const std::string key = std::string(59, 'a') + "\xd0\x9d" + "tail";
    auto r = json::parse(gpucalc::estimate_json("{\"hardware\": {\"device\": \"nvidia-t4\", \"" + key + "\": 1}}"), nullptr, false);
    REQUIRE_FALSE(r.is_discarded());
    CHECK(r["errors"][0]["field"].get<std::string>().find("...") != std::string::npos);
}

TEST_CASE("report.inputs is itself a valid scenario that gives the identical report (every fixture)") {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(GPUCALC_FIXTURES)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream f(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        INFO(entry.path().string());
        const auto first = json::parse(gpucalc::estimate_json(text));
        if (first.contains("errors") || !first.contains("inputs")) continue;
        const auto second = json::parse(gpucalc::estimate_json(first["inputs"].dump()));
        REQUIRE_FALSE(second.contains("errors"));
        CHECK(second == first);
        ++n;
    }
    CHECK(n >= 10);
}

TEST_CASE(
    "a GPU-only framework on a TPU, FP8 with megatron-legacy and a GGUF format beside another weight precision are refused, naming the "
    "field") {
    const json tpu = run({{"model", {{"preset", "llama3-8b"}}},
                          {"hardware", {{"device", "google-tpu-v5p"}, {"count", 8}}},
                          {"training", {{"framework", "torchtitan"}, {"tokens", 1e9}}}});
    CHECK(has_error(tpu, "training.framework", "unsupported"));
    // The same through hardware.pools, and "nemo" (read as megatron) named in the message.
    const json pool = run({{"model", {{"preset", "llama2-7b"}}},
                           {"hardware", {{"pools", {{{"device", "google-tpu-v5p"}, {"count", 64}}}}}},
                           {"training", {{"framework", "nemo"}, {"tokens", 1e10}}}});
    REQUIRE(has_error(pool, "training.framework", "unsupported"));
    CHECK(pool["errors"][0]["message"].get<std::string>().find("NeMo") != std::string::npos);
    const json pool_fp8 = run({{"model", {{"preset", "llama2-7b"}}},
                               {"hardware", {{"pools", {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}}}}},
                               {"training", {{"framework", "megatron-legacy"}, {"precision", "fp8"}, {"tokens", 1e10}}}});
    CHECK(has_error(pool_fp8, "training.precision", "unsupported"));
    // MaxText and PyTorch/XLA FSDP run on TPUs.
    for (const char* f : {"maxtext", "fsdp"}) {
        const json ok = run({{"model", {{"preset", "llama3-8b"}}},
                             {"hardware", {{"device", "google-tpu-v5p"}, {"count", 8}}},
                             {"training", {{"framework", f}, {"tokens", 1e9}}}});
        CHECK_FALSE(ok.contains("errors"));
    }
    const json legacy = run({{"model", {{"preset", "llama3-8b"}}},
                             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                             {"training", {{"framework", "megatron-legacy"}, {"precision", "fp8"}, {"tokens", 1e9}}}});
    CHECK(has_error(legacy, "training.precision", "unsupported"));
    const json gguf = run({{"model", {{"preset", "llama3-8b"}}},
                           {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                           {"inference", {{"weight_format", "q4_k_m"}, {"weight_precision", "int4"}}}});
    CHECK(has_error(gguf, "inference.weight_precision", "conflict"));
    // The echo of a GGUF scenario (format + the default precision) parses back to the same report.
    const json one = run({{"model", {{"preset", "llama3-8b"}}},
                          {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                          {"inference", {{"weight_format", "q4_k_m"}}},
                          {"explain", false}});
    REQUIRE_FALSE(one.contains("errors"));
    const json again = run(one["inputs"]);
    REQUIRE_FALSE(again.contains("errors"));
    CHECK(again["inference"] == one["inference"]);
}

TEST_CASE("an answer lists at most 100 errors; the last then says how many more there are") {
    std::string text = R"({"hardware": {"device": "nvidia-h100-sxm5-80gb", "count": 8)";
    for (int i = 0; i < 500; ++i) text += ", \"typo" + std::to_string(i) + "\": 1";
    text += "}}";
    const auto errors = nlohmann::json::parse(gpucalc::estimate_json(text))["errors"];
    REQUIRE(errors.size() == gpucalc::kMaxErrorsListed);
    CHECK(errors[0]["code"] == "unknown_field");
    CHECK(errors[98]["code"] == "unknown_field");
    CHECK(errors[99]["code"] == "too_many_errors");
    CHECK(errors[99]["message"] == "401 more errors are not listed (the first 99 are)");
    // 100 errors exactly are all listed.
    std::string hundred = R"({"hardware": {"device": "nvidia-h100-sxm5-80gb", "count": 8)";
    for (int i = 0; i < 100; ++i) hundred += ", \"typo" + std::to_string(i) + "\": 1";
    hundred += "}}";
    const auto all = nlohmann::json::parse(gpucalc::estimate_json(hundred))["errors"];
    REQUIRE(all.size() == 100);
    CHECK(all[99]["code"] == "unknown_field");
}

TEST_CASE("a bare parameter count bounds the pipeline by the layers of the shape assumed for it") {
    // 7e9 parameters run on an assumed GPT-like shape of a few dozen layers: 200 stages cannot hold them.
    const json bad = run({{"model", {{"params", 7e9}}},
                          {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1600}}},
                          {"training", {{"pp", 200}, {"tp", 8}, {"tokens", 1e12}}}});
    CHECK(has_error(bad, "training.pp", "range"));
    const json ok = run({{"model", {{"params", 7e9}}},
                         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                         {"training", {{"pp", 4}, {"tp", 8}, {"tokens", 1e12}}}});
    CHECK_FALSE(ok.contains("errors"));
    CHECK(ok["training"]["mfu"].get<double>() > 0.05);
}
