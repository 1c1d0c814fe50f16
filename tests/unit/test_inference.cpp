// Inference: exact KV cache sizes and batch-1 decode speed against gpt-fast.
#include "gpucalc/inference.hpp"
#include "helpers.hpp"

using namespace gpucalc;
using nlohmann::json;

TEST_CASE("KV cache per token, exact") {
    // vLLM (arXiv:2309.06180) Sec. 3: OPT-13B 2 x 5120 x 40 x 2 = 800 KiB per token.
    ModelSpec opt13;
    opt13.has_architecture = true;
    opt13.layers = 40;
    opt13.hidden = 5120;
    opt13.heads = 40;
    opt13.kv_heads = 40;
    CHECK(kv_cache_bytes_per_token(opt13, Precision::fp16) == 819200.0);
    // Llama 2 70B (GQA, 8 KV heads): 2 x 80 x 8 x 128 x 2 = 327,680.
    CHECK(kv_cache_bytes_per_token(*find_model_preset("llama2-70b"), Precision::bf16) == 327680.0);
    // Llama 3.1 8B: 131,072 B/token; HF Llama 3.1 blog: 128k tokens = 15.62 GiB.
    ModelSpec l8 = *find_model_preset("llama3-8b");
    CHECK(kv_cache_bytes_per_token(l8, Precision::bf16) == 131072.0);
    CHECK(kv_cache_bytes_per_token(l8, Precision::bf16) * 128000 / (1024.0 * 1024 * 1024) == Approx(15.625));
    // Llama 3.1 70B: 2 x 80 x 8 x 128 x 2 = 327,680 (HF blog: 39.06 GiB at 128k).
    CHECK(kv_cache_bytes_per_token(*find_model_preset("llama3-70b"), Precision::bf16) * 128000 / (1024.0 * 1024 * 1024) == Approx(39.0625));
    // DeepSeek-V3 MLA: 61 x (512 + 64) x 2 bytes = 70,272 B/token.
    CHECK(kv_cache_bytes_per_token(*find_model_preset("deepseek-v3"), Precision::bf16) == 70272.0);
}

TEST_CASE("gpt-fast: Llama-2-7B batch-1 decode on A100 80GB = 104.9 tok/s (README, commit 0f925b5d), within 15%") {
    auto r = run({{"model", {{"preset", "llama2-7b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1}}},
                  {"inference", {{"batch", 1}, {"prompt_tokens", 5}, {"output_tokens", 200}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const double tps = r["inference"]["decode_tokens_per_second_per_user"].get<double>();
    INFO("predicted " << tps << " tok/s");
    CHECK(std::abs(tps - 104.9) / 104.9 < 0.15);
    CHECK(r["inference"]["decode_bound"] == "memory");
}

TEST_CASE("decode is memory-bound at batch 1 and turns compute-bound at a larger batch") {
    auto r = run({{"model", {{"preset", "llama3-8b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                  {"inference", {{"batch", 8}}}});
    const auto& inf = r["inference"];
    CHECK(inf["turn_batch"].get<double>() > 8);
    const auto& curve = inf["batch_curve"];
    REQUIRE(curve.size() > 4);
    CHECK(curve[0]["bound"] == "memory");
    // Throughput per GPU grows with batch while memory-bound.
    CHECK(curve[3]["tokens_per_second_per_gpu"].get<double>() > 3 * curve[0]["tokens_per_second_per_gpu"].get<double>());
}

TEST_CASE("Llama 2 70B does not fit one 80 GB GPU at bf16; fits with tp 2; int4 fits one") {
    json s = {{"model", {{"preset", "llama2-70b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 8}}},
              {"inference", {{"batch", 1}, {"tp", 1}}}};
    CHECK(run(s)["inference"]["fits"] == false);
    s["inference"]["tp"] = 2;
    CHECK(run(s)["inference"]["fits"] == true);
    s["inference"]["tp"] = 1;
    s["inference"]["weight_precision"] = "int4";
    auto r = run(s);
    CHECK(r["inference"]["fits"] == true);
    // int4 with a group-32 fp16 scale + zero: 0.5 + 4/32 bytes/param; the input embedding table
    // (32,000 x 8,192) stays in 16 bits (gpt-fast quantizes nn.Linear only).
    CHECK(r["inference"]["weights_bytes"].get<double>() == Approx((68976648192.0 - 32000.0 * 8192) * 0.625 + 32000.0 * 8192 * 2));
}

TEST_CASE("serving economics: GPUs and $ per day follow the traffic") {
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"inference", {{"batch", 32}, {"tp", 4}, {"requests_per_day", 1e6}, {"prompt_tokens", 1000}, {"output_tokens", 300}}},
              {"costs", {{"gpu_hour_usd", 2.5}}}};
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    const double g1 = r["inference"]["gpus_needed"].get<double>();
    CHECK(g1 >= 4);
    CHECK(r["inference"]["cost_per_day_usd"].get<double>() == Approx(g1 * 24 * 2.5));
    s["inference"]["requests_per_day"] = 1e7;
    const double g10 = run(s)["inference"]["gpus_needed"].get<double>();
    CHECK(g10 > 8 * g1);
    CHECK(r["inference"]["cost_per_million_output_tokens_usd"].get<double>() > 0);
}

TEST_CASE("what the cluster can serve: replicas, users answered at once, total tokens/s") {
    auto r = run({{"model", {{"preset", "llama3-70b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                  {"inference", {{"batch", 32}, {"tp", 4}}}});
    const auto& inf = r["inference"];
    CHECK(inf["replicas"] == 2.0);
    CHECK(inf["concurrent_sequences"] == 64.0);
    CHECK(inf["cluster_throughput_tokens_per_second"].get<double>() ==
          Approx(8 * inf["throughput_tokens_per_second_per_gpu"].get<double>()));
    auto none =
        run({{"model", {{"preset", "llama3-70b"}}}, {"hardware", {{"device", "nvidia-l4"}, {"count", 1}}}, {"inference", {{"batch", 1}}}});
    CHECK(none["inference"]["replicas"] == 0.0);  // 141 GB of weights on a 24 GB card
}

// inference.tp omitted: the fewest GPUs per copy (powers of two the heads allow, tp x ep within the
// count) whose weights take at most 80 % of a device's usable memory (inference.cpp automatic_tp).
// Hand check, Llama 3 70B in bf16 (70.55e9 parameters x 2 bytes = 141.1 GB): on an H100 (80 GiB =
// 85.9 GB usable; 80 % = 68.7 GB) tp 2 holds 70.6 GB per device, tp 4 35.3 GB: 4. On two H100s,
// tp 2 leaves (85.9 - 1.07 overhead - 70.6) x 0.9 = 12.8 GB for the KV cache: one sequence fits.
TEST_CASE("an omitted inference.tp is the fewest GPUs whose share of the weights leaves a fifth of the memory") {
    auto serve = [](const char* preset, const char* device, int count, json inference) {
        return run({{"model", {{"preset", preset}}}, {"hardware", {{"device", device}, {"count", count}}}, {"inference", inference}});
    };
    json r = serve("llama3-70b", "nvidia-h100-sxm5-80gb", 8, json::object());
    CHECK(r["inference"]["tp"] == 4);
    CHECK(r["inference"]["tp_source"] == "chosen");
    CHECK(r["inference"]["fits"] == true);
    CHECK(r["inputs"]["inference"]["tp"].is_null());  // echoed omitted, as the batch: chosen again from the echo
    CHECK(r["inference"]["weights_bytes_per_gpu"].get<double>() <= 0.8 * r["inference"]["memory_capacity_bytes"].get<double>());
    // A given tp is used as given.
    r = serve("llama3-70b", "nvidia-h100-sxm5-80gb", 8, {{"tp", 2}});
    CHECK(r["inference"]["tp"] == 2);
    CHECK(r["inference"]["tp_source"] == "given");
    CHECK(r["inputs"]["inference"]["tp"] == 2);
    // Llama 3 8B (16.1 GB) on one RTX 4090 (24 GB): 1.
    CHECK(serve("llama3-8b", "nvidia-rtx-4090", 1, json::object())["inference"]["tp"] == 1);
    // Two H100s only: tp 2 takes more than 80 % but one sequence still fits next to the weights: 2.
    r = serve("llama3-70b", "nvidia-h100-sxm5-80gb", 2, json::object());
    CHECK(r["inference"]["tp"] == 2);
    CHECK(r["inference"]["fits"] == true);
    // One H100: nothing fits; the largest tried (1), and the answer says it does not fit.
    r = serve("llama3-70b", "nvidia-h100-sxm5-80gb", 1, json::object());
    CHECK(r["inference"]["tp"] == 1);
    CHECK(r["inference"]["fits"] == false);
    // Experts over 8 GPUs with 8 available: tp x ep within the count, so 1.
    r = serve("mixtral-8x7b", "nvidia-h100-sxm5-80gb", 8, {{"ep", 8}});
    CHECK(r["inference"]["tp"] == 1);
    CHECK(r["inference"]["instance_gpus"] == 8);
    // A red-team pass (the cases it found):
    // - a given batch is held: Llama 3 8B on T4s with 300 sequences takes tp 4 (tp 2 holds 144);
    r = serve("llama3-8b", "nvidia-t4", 8, {{"batch", 300}});
    CHECK(r["inference"]["tp"] == 4);
    CHECK(r["inference"]["fits"] == true);
    // - heads no power of two divides far: LLaMA 33B (52 heads) on T4s takes 13, not a 4 that does not fit;
    r = serve("llama-33b", "nvidia-t4", 64, json::object());
    CHECK(r["inference"]["tp"] == 13);
    CHECK(r["inference"]["fits"] == true);
    // - a model given by parameters only (KV cache unknown) is sized by its weights: 1e9 on H100s takes 1;
    r = run(
        {{"model", {{"params", 1e9}}}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"inference", json::object()}});
    CHECK(r["inference"]["tp"] == 1);
    // - separate prefill and decode copies need two: on two H100s a 70B gets tp 1 (and does not fit), never a
    //   tp 2 that the check on given values refuses;
    r = serve("llama3-70b", "nvidia-h100-sxm5-80gb", 2, {{"disaggregated", true}, {"requests_per_day", 1e6}});
    CHECK(r["inference"]["tp"] == 1);
    CHECK(r["inference"]["fits"] == false);
    // - the latency-target search starts from the chosen size (it tried tp 1 only on T4s, which have no node size).
    r = serve("llama3-70b", "nvidia-t4", 16, {{"requests_per_day", 1e5}, {"slo", {{"tpot_seconds", 0.5}}}});
    CHECK(r["inference"]["tp"] == 16);
    CHECK(r["inference"]["slo"]["met"] == true);
    // The choice is derived (explain).
    json e = run({{"model", {{"preset", "llama3-70b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                  {"inference", json::object()},
                  {"explain", true}});
    REQUIRE(e["explain"].contains("inference.tp"));
    CHECK(e["explain"]["inference.tp"]["result"] == 4);
}

TEST_CASE("an FP8 model reads its output head in 16 bits every decode step (ModelOpt keeps lm_head unquantized)") {
    // Llama 3 8B on one H100, batch 1: the decode reads the 7,504,924,672 multiplied parameters,
    // of which the 128,256 x 4,096 = 525,336,576-parameter head stays in 16 bits: 6,979,588,096 x 1 B
    // + 525,336,576 x 2 B = 8,030,261,248 B against 2 x 7,504,924,672 B in BF16.
    json s = {{"model", {{"preset", "llama3-8b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
              {"inference", {{"tp", 1}, {"batch", 1}, {"prompt_tokens", 128}, {"output_tokens", 128}}}};
    const json bf16 = run(s);
    s["inference"]["weight_precision"] = "fp8";
    const json fp8 = run(s);
    REQUIRE_FALSE(fp8.contains("errors"));
    const double w16 = bf16["inference"]["decode_breakdown_seconds"]["weights"].get<double>();
    const double w8 = fp8["inference"]["decode_breakdown_seconds"]["weights"].get<double>();
    CHECK(w8 / w16 == Approx(8030261248.0 / (2 * 7504924672.0)));
}

TEST_CASE("prefill projects only the last prompt token through the output head") {
    // One small layer and a 256K-entry vocabulary: the head is 99 % of the multiplied parameters. A
    // 4,096-token prompt pays for the head once, so the vocabulary barely moves the prefill work.
    json s = {{"model", {{"layers", 1}, {"hidden", 1024}, {"heads", 8}, {"vocab", 1000}, {"seq_len", 8192}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
              {"inference", {{"tp", 1}, {"batch", 1}, {"prompt_tokens", 4096}, {"output_tokens", 1}}}};
    const double small = run(s)["inference"]["prefill_tokens_per_second_per_gpu"].get<double>();
    s["model"]["vocab"] = 256000;
    const double large = run(s)["inference"]["prefill_tokens_per_second_per_gpu"].get<double>();
    // The head's 2 x 256,000 x 1,024 FLOPs once against ~4,096 x 2 x 12.6 M for the layer: < 2 %.
    CHECK(large / small > 0.98);
}

TEST_CASE("DP attention keeps the attention weights whole on every rank (SGLang --enable-dp-attention)") {
    // DeepSeek-V3 FP8 on 8 H200, tp 8: 61 layers x the MLA block's parameters, 7/8 of them more per GPU.
    json s = {{"model", {{"preset", "deepseek-v3"}}},
              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 8}}},
              {"inference", {{"tp", 8}, {"weight_precision", "fp8"}, {"prompt_tokens", 1000}, {"output_tokens", 1000}}}};
    const json tp = run(s);
    s["inference"]["attention_dp"] = true;
    const json dp = run(s);
    REQUIRE_FALSE(dp.contains("errors"));
    const double attention = count_params(*find_model_preset("deepseek-v3")).attention_per_layer * 61;
    CHECK(dp["inference"]["weights_bytes_per_gpu"].get<double>() - tp["inference"]["weights_bytes_per_gpu"].get<double>() ==
          Approx(attention * 7.0 / 8.0));
    // ... and reads them whole every decode step.
    CHECK(dp["inference"]["decode_breakdown_seconds"]["weights"].get<double>() >
          tp["inference"]["decode_breakdown_seconds"]["weights"].get<double>());
}

TEST_CASE("MLA decodes in the absorbed form: 2 x heads x context x (2 x 512 + 64) FLOPs per layer") {
    // DeepSeek-V3, one device per EP group (tp 1, ep 64, FP8), 256 sequences per device at a 2,000-token
    // mean context: 256 x 2 x 61 x 128 x 2,000 x 1,088 FLOPs at the BF16 peak x attention efficiency;
    // the non-absorbed form (192 + 128 per head) would be 3.4 x less and hidden under the KV reads.
    const json r = run({{"model", {{"preset", "deepseek-v3"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 128}}},  // a decode and a prefill copy
                        {"inference",
                         {{"tp", 1},
                          {"ep", 64},
                          {"batch", 256 * 64},
                          {"weight_precision", "fp8"},
                          {"prompt_tokens", 1999},
                          {"output_tokens", 2},
                          {"disaggregated", true}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& d = r["inference"]["decode_breakdown_seconds"];
    const double flops = 256.0 * 2 * 61 * 128 * 2000 * 1088;
    const double implied_efficiency = flops / (d["attention"].get<double>() * 989.4e12);
    CHECK(d["attention"].get<double>() > 1.3 * d["kv_cache"].get<double>());
    CHECK(implied_efficiency > 0.3);
    CHECK(implied_efficiency < 0.7);
}

TEST_CASE("CPU offload: llama.cpp copies the host layers to the GPU once per 512-token ubatch of the prompt") {
    // Llama 3 70B Q4_K_M on an RTX 4090 with 36 of 80 layers on the card: the other 44 layers' weights
    // (about 23 GB) cross PCIe 4.0 x16 (32 GB/s per direction) 8 times for a 4,000-token prompt, ~6-7 s.
    json s = {
        {"model", {{"preset", "llama3-70b"}}},
        {"hardware", {{"device", "nvidia-rtx-4090"}}},
        {"inference", {{"batch", 1}, {"weight_format", "q4_k_m"}, {"gpu_layers", 36}, {"prompt_tokens", 4000}, {"output_tokens", 500}}}};
    const json a = run(s);
    REQUIRE_FALSE(a.contains("errors"));
    const double host_bytes = a["inference"]["host_weights_bytes"].get<double>();
    CHECK(host_bytes > 20e9);
    const double copies = 8 * host_bytes / 32e9;
    CHECK(a["inference"]["prefill_seconds"].get<double>() > copies);
    // 4,500 tokens need 9 ubatches: one more copy of the host layers.
    s["inference"]["prompt_tokens"] = 4500;
    const json b = run(s);
    CHECK(b["inference"]["prefill_seconds"].get<double>() - a["inference"]["prefill_seconds"].get<double>() > host_bytes / 32e9);
    // A prompt under 32 tokens stays on the CPU: the host layers read once at the host memory bandwidth.
    s["inference"]["prompt_tokens"] = 16;
    const json c = run(s);
    CHECK(c["inference"]["prefill_seconds"].get<double>() < a["inference"]["prefill_seconds"].get<double>() / 5);
}

TEST_CASE("a context longer than the model's is answered with a warning naming both fields") {
    json s = {{"model", {{"preset", "llama3-8b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"inference", {{"prompt_tokens", 100000}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["warnings"].dump().find("model.seq_len (8192)") != std::string::npos);
    CHECK(r["warnings"].dump().find("prompt_tokens + output_tokens (100256)") != std::string::npos);
    CHECK(r["inference"]["context_limit_tokens"] == 8192);
    s["model"]["seq_len"] = 131072;  // Llama 3.1's context
    CHECK(run(s)["warnings"].dump().find("model.seq_len") == std::string::npos);
    // Presets served beyond their pretraining sequence: Llama 3.1 405B (8K pretraining, 128K after the
    // long-context stage, arXiv:2407.21783 Sec. 3.4.2) and DeepSeek-V3 (4K, then 128K with YaRN,
    // arXiv:2412.19437 Sec. 4.3) take a 100K prompt without the warning.
    for (const char* preset : {"llama3.1-405b", "deepseek-v3"}) {
        const json big = run({{"model", {{"preset", preset}}},
                              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 16}}},
                              {"inference", {{"prompt_tokens", 100000}}}});
        REQUIRE_FALSE(big.contains("errors"));
        CHECK(big["inference"]["context_limit_tokens"] == 131072);
        CHECK(big["warnings"].dump().find("context length") == std::string::npos);
    }
    // A bare parameter count has no context to check against.
    CHECK(run({{"model", {{"params", 7e9}}},
               {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
               {"inference", json::object()}})["inference"]["context_limit_tokens"]
              .is_null());
}

TEST_CASE("serving energy is null with a warning when the device has no TDP, not 0") {
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "apple-m3-max"}, {"count", 1}}},
                        {"inference", {{"requests_per_day", 1000}, {"weight_precision", "int4"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["energy_per_day_kwh"].is_null());
    CHECK(r["warnings"].dump().find("hardware.device.tdp_watts") != std::string::npos);
    const json h = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                        {"inference", {{"requests_per_day", 1000}}}});
    CHECK(h["inference"]["energy_per_day_kwh"].get<double>() > 0);
}

TEST_CASE("a traffic too small to size is refused, and any traffic sized gets at least one copy") {
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"inference", {{"requests_per_day", 5e-324}}}};
    CHECK(has_error(run(s), "inference.requests_per_day", "range"));
    s["inference"]["requests_per_day"] = 1e-6;
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["gpus_needed"].get<double>() >= 1);
    all_finite(r);
}

TEST_CASE("disaggregated serving needs a prefill and a decode copy of tp x ep GPUs each") {
    json s = {{"model", {{"preset", "deepseek-v3"}}},
              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 16}}},
              {"inference", {{"ep", 16}, {"tp", 1}, {"disaggregated", true}, {"weight_precision", "fp8"}}}};
    CHECK(has_error(run(s), "inference.disaggregated", "range"));
    s["hardware"]["count"] = 32;
    CHECK_FALSE(run(s).contains("errors"));
}

TEST_CASE("every layer in host memory: the KV cache is there too, the batch is not bounded by the device") {
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-rtx-4090"}}},
                        {"inference", {{"gpu_layers", 0}, {"weight_format", "q4_k_m"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["max_batch"].get<double>() == 4096);  // inference.batch_limit's default
    CHECK(r["warnings"].dump().find("not even one sequence") == std::string::npos);
    CHECK(r["warnings"].dump().find("inference.gpu_layers 0") != std::string::npos);
}

TEST_CASE("FP4 weights store one 8-bit scale per group and no zero point: NVFP4 4.5 bits by default, MXFP4 4.25 at group 32") {
    // Llama 3 70B: 68,452,360,192 parameters in the layers' linear layers; the input embedding and the
    // output head are 128,256 x 8,192 = 1,050,673,152 each. ModelOpt's FP4 recipe keeps the head in
    // 16 bits (as the embedding); gpt-fast's int4 quantizes it (every nn.Linear). NVFP4 (E2M1 + an
    // E4M3 scale per 16) is 0.5 + 1/16 bytes per weight; int4 with an fp16 scale and zero per 32,
    // 0.5 + 4/32.
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 8}}},
              {"inference", {{"tp", 8}, {"weight_precision", "fp4"}}}};
    const json nv = run(s);
    REQUIRE_FALSE(nv.contains("errors"));
    CHECK(nv["inputs"]["inference"]["quant_group_size"] == 16);  // the effective group is echoed
    const double linear = 68452360192.0, table = 1050673152.0;
    CHECK(nv["inference"]["weights_bytes"].get<double>() == Approx(linear * (0.5 + 1.0 / 16) + 2 * table * 2).epsilon(1e-12));
    s["inference"]["quant_group_size"] = 32;  // OCP MXFP4: an E8M0 scale per 32
    CHECK(run(s)["inference"]["weights_bytes"].get<double>() == Approx(linear * (0.5 + 1.0 / 32) + 2 * table * 2).epsilon(1e-12));
    s["inference"]["weight_precision"] = "int4";
    s["inference"].erase("quant_group_size");
    const json i4 = run(s);
    CHECK(i4["inputs"]["inference"]["quant_group_size"] == 32);
    CHECK(i4["inference"]["weights_bytes"].get<double>() == Approx((linear + table) * (0.5 + 4.0 / 32) + table * 2).epsilon(1e-12));
}
