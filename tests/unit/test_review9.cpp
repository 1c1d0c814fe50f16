// Fixes of 2026-12-05 (third session): what this session's red teams found. Each test states what was shown before.
#include "helpers.hpp"

using nlohmann::json;

namespace {

json finetune_70b(double gpus, const char* method) {
    const json r = run({{"model", {{"params", 7e10}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", gpus}}},
                        {"finetune", {{"method", method}}}});
    REQUIRE_FALSE(r.contains("errors"));
    return r["finetune"];
}

}  // namespace

TEST_CASE("fine-tuning a model given by its parameter count gathers one layer of a GPT-like shape under FSDP, not the whole model") {
    // 70B by count on 64 H100 with LoRA needed 263.8 GiB per GPU, 260.8 of it 'fsdp_working' = twice
    // the whole model (the layer count was taken as 1), and more GPUs needed more memory than one.
    for (const char* method : {"lora", "full", "qlora"}) {
        const json one = finetune_70b(1, method), eight = finetune_70b(8, method), many = finetune_70b(64, method);
        const double base = std::string(method) == "qlora" ? 70e9 * 0.55 : 70e9 * 2;  // 16-bit or ~4.4-bit weights
        // One layer of a GPT-like 70B (69 layers of h 9,216, gpt_like_shape) gathered plus one prefetched.
        CHECK(eight["memory_per_gpu_bytes"]["fsdp_working"].get<double>() < base / 10);
        CHECK(many["memory_per_gpu_bytes"]["total"].get<double>() < eight["memory_per_gpu_bytes"]["total"].get<double>());
        CHECK(eight["memory_per_gpu_bytes"]["total"].get<double>() < one["memory_per_gpu_bytes"]["total"].get<double>());
    }
    CHECK(finetune_70b(8, "lora")["fits"] == true);
    const json r = run({{"model", {{"params", 7e10}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                        {"finetune", {{"method", "lora"}}}});
    bool said = false;
    for (const auto& w : r["warnings"]) said = said || w.get<std::string>().find("GPT-like shape's of 69 layers") != std::string::npos;
    CHECK(said);
}

TEST_CASE("fine-tuning across nodes times FSDP's rings as NCCL runs them, one ring per NIC rail: two nodes are not slower than one") {
    // LLaMA 65B full fine-tune on A100: 16 GPUs had been timed at one NIC's bandwidth for the whole
    // ring (19.6 s of transfers a step against 1.5 s on 8), so 2 nodes ran slower than 1 at 2.2x the cost.
    const auto ft = [](int gpus) {
        const json r = run({{"model", {{"preset", "llama-65b"}}},
                            {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", gpus}}},
                            {"finetune", {{"method", "full"}, {"batch", 2}, {"seq_len", 2048}, {"tokens", 1e9}}}});
        REQUIRE_FALSE(r.contains("errors"));
        return r["finetune"];
    };
    const json one = ft(8), two = ft(16);
    CHECK(two["tokens_per_second"].get<double>() >= 1.9 * one["tokens_per_second"].get<double>());
    // By hand: (2 x 130.6 GB + 130.6 GB) x (16 - 8) / (16 x 8) = 24.5 GB per NIC at 25 GB/s x the
    // network efficiency, ~1.3 s: hidden under the 8.7 s of compute, as on one node.
    CHECK(two["step_seconds"].get<double>() <= one["step_seconds"].get<double>() * 1.05);
}

TEST_CASE(
    "serving's automatic tensor parallelism stays inside a node while a size there holds the batch: more GPUs given never need more") {
    // DeepSeek-V3 on B200 at 1e6 requests a day: 8 GPUs given answered TP 8 and 16 GPUs for the
    // traffic; 16 given answered TP 16 over InfiniBand (460 ms per output token) and 64 GPUs.
    const auto serve = [](const char* device, int count, const char* precision) {
        const json r = run(
            {{"model", {{"preset", "deepseek-v3"}}},
             {"hardware", {{"device", device}, {"count", count}}},
             {"inference", {{"requests_per_day", 1e6}, {"prompt_tokens", 1000}, {"output_tokens", 300}, {"weight_precision", precision}}},
             {"costs", {{"gpu_hour_usd", 2.0}}}});
        REQUIRE_FALSE(r.contains("errors"));
        return r["inference"];
    };
    for (int count : {8, 16, 64}) {
        const json b200 = serve("nvidia-b200", count, "bf16");
        CHECK(b200["tp"] == 8);
        CHECK(b200["gpus_needed"] == 16);
    }
    // Nothing holds it inside a node of L4: across nodes the fewest that hold the batch (TP 32), also with 64 given.
    const json l4_32 = serve("nvidia-l4", 32, "fp8"), l4_64 = serve("nvidia-l4", 64, "fp8");
    CHECK(l4_64["tp"] == l4_32["tp"]);
    CHECK(l4_64["gpus_needed"].get<double>() <= l4_32["gpus_needed"].get<double>());
}

namespace {
json mixtral_tp2(const json& inference) {
    json s = {{"model", {{"preset", "mixtral-8x7b"}}}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}}};
    s["inference"] = inference;
    s["inference"]["tp"] = 2;
    s["inference"]["batch"] = 1;
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    return r["inference"];
}
}  // namespace

TEST_CASE("a mixture of experts' prompt reads the experts its tokens are routed to: a 64-token prompt is not timed as a 1-token one") {
    // Mixtral 8x7B, TP 2 on H100: 64 tokens reach all 8 experts (8 (1 - (6/8)^64) ~ 8), so each GPU
    // reads its whole ~46.6 GB share: >= 46.6e9 / (0.84 x 3.35e12) ~ 16.6 ms. It had been 5.8 ms,
    // the same as a 1-token prompt (one token's 2 experts).
    const json short_prompt = mixtral_tp2({{"prompt_tokens", 1}, {"output_tokens", 16}});
    const json prompt64 = mixtral_tp2({{"prompt_tokens", 64}, {"output_tokens", 16}});
    CHECK(prompt64["prefill_seconds"].get<double>() > 2.5 * short_prompt["prefill_seconds"].get<double>());
    CHECK(prompt64["prefill_seconds"].get<double>() >= 46.6e9 / (0.84 * 3.35e12) * 0.95);
}

TEST_CASE("speculative decoding of a mixture of experts verifies g + 1 tokens that read more experts than one token does") {
    // Mixtral 8x7B, TP 2, batch 1, a 1B draft proposing 4 tokens at acceptance 0.7: the verify step
    // had read one token's 2 experts a layer (speed-up 2.09x); 5 tokens reach ~6.1 of 8, and by hand
    // (4 x 0.45 ms + 14.2 ms) / 2.77 tokens ~ 5.8 ms per token against ~5.85 ms plain: ~1.0x.
    const json r = mixtral_tp2({{"prompt_tokens", 512},
                                {"output_tokens", 256},
                                {"speculative", {{"draft_params", 1e9}, {"draft_tokens", 4}, {"acceptance_rate", 0.7}}}});
    const double speedup = r["speculative"]["speedup"].get<double>();
    CHECK(speedup < 1.2);
    CHECK(speedup > 0.85);
}

TEST_CASE("a figure the report gives as null has no derivation in explain") {
    // Llama 3 70B in BF16 on one A100 80GB does not fit: the report gives gpus_needed, the cost and
    // TPOT as null, and explain had derived 53 GPUs, $2,544 a day and 88 ms for them.
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1}}},
              {"inference", {{"prompt_tokens", 2000}, {"output_tokens", 256}, {"requests_per_day", 100000}}},
              {"costs", {{"gpu_hour_usd", 2.0}}},
              {"explain", true}};
    const json r = run(s);
    REQUIRE(r["inference"]["fits"] == false);
    REQUIRE(r["inference"]["gpus_needed"].is_null());
    const json& ex = r["explain"];
    CHECK_FALSE(ex.contains("inference.gpus_needed"));
    CHECK_FALSE(ex.contains("inference.cost_per_day_usd"));
    // Every derivation left is of a figure the report gives, or of one it does not list.
    for (const auto& [key, d] : ex.items()) {
        const json* at = &r;
        bool null = false;
        for (std::size_t from = 0; from != std::string::npos;) {
            const std::size_t dot = key.find('.', from);
            const std::string part = key.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
            if (at->is_null()) {
                null = true;
                break;
            }
            if (!at->is_object() || !at->contains(part)) break;
            at = &(*at)[part];
            if (dot == std::string::npos) null = at->is_null();
            from = dot == std::string::npos ? dot : dot + 1;
        }
        CHECK_FALSE(null);
    }
    // The figures the report gives keep theirs (the weights that do not fit, the memory needed).
    CHECK(ex.contains("cluster.cloud_usd_per_hour"));
    CHECK(ex.size() > 10);
}

TEST_CASE("what_can_train answers the largest model that fits when the compute-optimal one does not, and says so") {
    // One RTX 4090 for 90 days: compute for a 2.07B model, whose training state (16 B a parameter,
    // 33 GB) cannot fit 24 GiB; the page had said "can train 2.07B" beside "largest that fits 1.45B".
    const json r =
        run({{"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}}, {"inverse", {{"question", "what_can_train"}, {"days", 90}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& a = r["inverse"];
    CHECK(a["limited_by"] == "memory");
    CHECK(a["compute_optimal_params"].get<double>() > a["largest_fitting_params"].get<double>());
    // The largest model a layout of the plan search holds (not the 16-bytes-a-parameter bound: 1.45B
    // at an assumed 40 % MFU had been answered, which an estimate does not fit; a red team).
    const double N = a["trainable_params"].get<double>();
    CHECK(N <= a["largest_fitting_params"].get<double>());
    CHECK(a["trainable_mfu"].get<double>() < 0.4);
    CHECK(a["plan"].is_object());
    // The compute goes into more tokens: more than 20 per parameter.
    CHECK(a["trainable_tokens"].get<double>() > 20 * N);
    CHECK(r["warnings"].dump().find("fits these devices' memory in no layout") != std::string::npos);
    // An estimate of that model (the same GPT-like shape) fits.
    const json est =
        run({{"model", {{"params", N}}}, {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}}, {"training", {{"tokens", 1e9}}}});
    CHECK(est["training"]["fits"] == true);
    // A cluster where it fits: the compute-optimal model is the answer.
    const json big = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}},
                          {"inverse", {{"question", "what_can_train"}, {"days", 30}}}});
    CHECK(big["inverse"]["limited_by"] == "compute");
    CHECK(big["inverse"]["trainable_params"] == big["inverse"]["compute_optimal_params"]);
}

TEST_CASE("what_can_train across slow sites names one site's larger answer when the other sites cost more than they add") {
    // 256 H100 in 4 sites over the default internet WAN answered 3.3B parameters where one site's 64
    // answer 27.1B, with no warning (a red team).
    const json r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}, {"sites", 4}}},
                        {"inverse", {{"question", "what_can_train"}, {"days", 30}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& a = r["inverse"];
    REQUIRE(a.contains("one_site"));
    CHECK(a["one_site"]["devices"] == 64);
    CHECK(a["one_site"]["trainable_params"].get<double>() > 5 * a["trainable_params"].get<double>());
    const json alone = run(
        {{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}}, {"inverse", {{"question", "what_can_train"}, {"days", 30}}}});
    CHECK(a["one_site"]["trainable_params"].get<double>() == Approx(alone["inverse"]["trainable_params"].get<double>()).epsilon(1e-9));
    CHECK(r["warnings"].dump().find("one site alone") != std::string::npos);
}

TEST_CASE("fine-tuning a model given by its parameter count counts the activations of a GPT-like shape, not 0") {
    // A 406B QLoRA at batch 64 x 32,768 tokens on 64 RTX 4090 'fit' in 7.1 GiB (red team).
    const json r = run({{"model", {{"params", 4.058e11}}},
                        {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 64}}},
                        {"finetune", {{"method", "qlora"}, {"batch", 64}, {"seq_len", 32768}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["finetune"]["fits"] == false);
    CHECK(r["finetune"]["memory_per_gpu_bytes"]["activations"].get<double>() > 100e9);
    CHECK(r["finetune"]["memory_per_gpu_bytes"]["logits"].get<double>() > 0);
}

TEST_CASE("an active parameter count the architecture does not have is a conflict on model.active_params, not ignored") {
    // Mixtral 8x7B with active_params 1e9 kept its 12.9e9 without a word (red team); the echo's own
    // active_params (the architecture's) still parses back.
    const json bad = run({{"model", {{"preset", "mixtral-8x7b"}, {"active_params", 1e9}}},
                          {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
                          {"inference", json::object()}});
    REQUIRE(bad.contains("errors"));
    CHECK(bad["errors"][0]["field"] == "model.active_params");
    CHECK(bad["errors"][0]["code"] == "conflict");
    // Published active counts, rounded and without the input embedding, are accepted (a red team had
    // these refused): DeepSeek-V3 37B, gpt-oss-120b 5.1B (model card 5.13B), Qwen3-235B-A22B 22B.
    for (const auto& [preset, active] : {std::pair{"deepseek-v3", 37e9}, {"gpt-oss-120b", 5.1e9}, {"qwen3-235b-a22b", 22e9}}) {
        const json ok_count = run({{"model", {{"preset", preset}, {"active_params", active}}},
                                   {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                                   {"inference", json::object()}});
        CHECK_FALSE(ok_count.contains("errors"));
    }
    json s = {{"model", {{"preset", "mixtral-8x7b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
              {"inference", json::object()}};
    const json ok = run(s);
    REQUIRE_FALSE(ok.contains("errors"));
    const json again = run(ok["inputs"]);
    CHECK_FALSE(again.contains("errors"));
    CHECK(again["inference"]["tpot_seconds"] == ok["inference"]["tpot_seconds"]);
}

TEST_CASE("serving at a tensor-parallel size that neither divides nor is divided by the key/value heads is an error on inference.tp") {
    // kv_heads 6 at tp 4 was served with 2 heads a rank (vLLM refuses it; the automatic search skips it).
    const json model = {{"layers", 32}, {"hidden", 3072}, {"heads", 24}, {"kv_heads", 6}, {"vocab", 32000}};
    const auto serve = [&](int tp) {
        return run({{"model", model}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"inference", {{"tp", tp}}}});
    };
    const json bad = serve(4);
    REQUIRE(bad.contains("errors"));
    CHECK(bad["errors"][0]["field"] == "inference.tp");
    CHECK_FALSE(serve(2).contains("errors"));  // 6 heads over 2 ranks: 3 each
    CHECK(serve(8).contains("errors"));        // 24 heads / 8 fine, but 6 KV heads over 8 ranks neither way
}

TEST_CASE("an exchange wholly exposed reports a hidden fraction of 0, never a rounding below it") {
    // Llama 3 8B on 32 RTX 4090 in 4 sites, PP 16 across them, DiLoCo: -2.2e-16 (red team).
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 32}, {"sites", 4}, {"wan_bytes_per_second", 1e11}}},
                        {"training",
                         {{"tokens", 1e11},
                          {"local_steps", 50},
                          {"outer_precision", "fp32"},
                          {"tp", 1},
                          {"pp", 16},
                          {"dp", 2},
                          {"micro_batch", 1},
                          {"zero", 0},
                          {"vpp", 2},
                          {"global_batch", 512},
                          {"recompute", "full"},
                          {"layout", "given"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& f = r["training"]["communication"]["exchange_hidden_fraction"];
    REQUIRE(f.is_number());
    CHECK(f.get<double>() >= 0.0);
    CHECK(f.get<double>() <= 1.0);
}

TEST_CASE("Gaudi 3's FP16 peak is the catalog note's 459 TFLOPS, not the BF16/FP8 figure") {
    const json d = run({{"compare", {{"a", "intel-gaudi3"}, {"b", "nvidia-h100-sxm5-80gb"}, {"precision", "fp16"}}}});
    REQUIRE_FALSE(d.contains("errors"));
    CHECK(d["compare"]["peak_a_flops_per_second"].get<double>() == Approx(459e12));
}

TEST_CASE("a mixed fleet's total is null, with a warning, when a pool has no figure for it, never the other pools' partial sum") {
    // 8 H100 + 64 RTX 4090: node power 10.2 kW (the H100 nodes' alone) under the GPUs' own 34.4 kW;
    // 8 H100 + 8 H800: a price of the H100s alone (red team).
    const json a = run(
        {{"hardware", {{"pools", {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}, {{"device", "nvidia-rtx-4090"}, {"count", 64}}}}}}});
    REQUIRE_FALSE(a.contains("errors"));
    CHECK(a["cluster"]["node_power_watts"].is_null());
    CHECK(a["cluster"]["power_watts"].get<double>() == Approx(8 * 700 + 64 * 450));
    CHECK(a["warnings"].dump().find("node_power_watts (GeForce RTX 4090)") != std::string::npos);
    const json b =
        run({{"hardware",
              {{"pools", {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}, {{"device", "nvidia-h800-sxm5-80gb"}, {"count", 8}}}}}}});
    CHECK(b["cluster"]["price_usd"].is_null());
    CHECK(b["cluster"]["memory_bytes"].is_number());
    CHECK(b["warnings"].dump().find("price_usd") != std::string::npos);
}

TEST_CASE(
    "a fleet pool's share of the batch lowers its micro-batch to come near its speed's share: more GPUs in a pool never slow the fleet "
    "here") {
    // Llama 2 7B on RTX 4090 (site c) + 64 A100 and 32 L40S (site b), DiLoCo: with 16 RTX 4090 the
    // pool kept micro-batch 6 and had to take 96 sequences (8.7 % of the batch for 5.2 % of the speed):
    // 210,883 tokens/s against 285,853 with 8 of them (red team).
    const auto fleet = [](int gpus_4090) {
        const json r = run({{"model", {{"preset", "llama2-7b"}}},
                            {"hardware",
                             {{"pools",
                               {{{"device", "nvidia-rtx-4090"}, {"count", gpus_4090}, {"site", "c"}},
                                {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}, {"site", "b"}},
                                {{"device", "nvidia-l40s"}, {"count", 32}, {"site", "b"}}}},
                              {"wan_bytes_per_second", 1.25e9}}},
                            {"training", {{"tokens", 1e11}, {"local_steps", 10}}}});
        REQUIRE_FALSE(r.contains("errors"));
        return r["training"]["tokens_per_second"].get<double>();
    };
    const double t8 = fleet(8), t16 = fleet(16), t32 = fleet(32);
    CHECK(t16 >= t8 * 0.999);
    CHECK(t32 >= t16 * 0.999);
}

TEST_CASE(
    "gpus_needed over slow links looks past the counts that are slower than one node: the fastest run it names agrees with longer "
    "deadlines' answers") {
    // Llama 2 7B on 2T tokens, H100 nodes on 1 Gb/s internet links: 30 days named 8 GPUs taking 263
    // days as the fastest run, while 100 days answered 25,568 GPUs taking 80 (red team).
    const auto ask = [](double days) {
        return run({{"model", {{"preset", "llama2-7b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"network", "internet-1g"}}},
                    {"training", {{"tokens", 2e12}}},
                    {"inverse", {{"question", "gpus_needed"}, {"days", days}}}})["inverse"];
    };
    const json hard = ask(30), easy = ask(100);
    REQUIRE(hard["gpus"].is_null());
    REQUIRE(easy["gpus"].is_number());
    const std::string why = hard["infeasible_reason"].get<std::string>(), key = "takes about ";
    const double fastest = std::stod(why.substr(why.find(key) + key.size()));
    CHECK(fastest <= easy["seconds_at_gpus"].get<double>() / 86400 * 1.1);
    CHECK(fastest > 30);
}

TEST_CASE("an inverse answer's batch note names the interleaved granule and the batch it makes when that is far above the aim") {
    const json a = run({{"model", {{"preset", "llama2-7b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"network", "internet-1g"}}},
                        {"training", {{"tokens", 2e12}}},
                        {"inverse", {{"question", "gpus_needed"}, {"days", 100}}}})["inverse"];
    REQUIRE(a["gpus"].is_number());
    const double tokens = a["global_batch_tokens"].get<double>();
    const std::string note = a["global_batch_note"].get<std::string>();
    if (a["plan"]["vpp"].get<double>() > 1 && a["plan"]["pp"].get<double>() > 1)
        CHECK(note.find("x pp (interleaved stages)") != std::string::npos);
    REQUIRE(tokens > 6e6);  // far above the ~4M aimed at
    CHECK(note.find("here at least") != std::string::npos);
}

TEST_CASE("a preset released in a low precision is served in it by default: gpt-oss-120b fits one 80 GB GPU as its model card says") {
    // gpt-oss-120b on one H100 with defaults: 'does not fit, 218.6 GiB' (BF16); its MXFP4 release
    // "fits on a single 80GB GPU" (arXiv:2508.10925 Sec. 2).
    const json r = run({{"model", {{"preset", "gpt-oss-120b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                        {"inference", json::object()}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inputs"]["inference"]["weight_precision"] == "fp4");
    CHECK(r["inputs"]["inference"]["quant_group_size"] == 32);
    CHECK(r["inference"]["fits"] == true);
    CHECK(r["inference"]["weights_bytes"].get<double>() < 70e9);
    // Given, BF16 is used (and does not fit); a model without a low-precision release stays BF16.
    const json bf16 = run({{"model", {{"preset", "gpt-oss-120b"}}},
                           {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                           {"inference", {{"weight_precision", "bf16"}}}});
    CHECK(bf16["inference"]["fits"] == false);
    const json llama = run({{"model", {{"preset", "llama3-8b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                            {"inference", json::object()}});
    CHECK(llama["inputs"]["inference"]["weight_precision"] == "bf16");
    const json ds = run({{"model", {{"preset", "deepseek-v3"}}},
                         {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 8}}},
                         {"inference", json::object()}});
    CHECK(ds["inputs"]["inference"]["weight_precision"] == "fp8");
    CHECK(ds["inference"]["fits"] == true);
    // The echo parses back to the same answer.
    CHECK(run(r["inputs"])["inference"]["tpot_seconds"] == r["inference"]["tpot_seconds"]);
}

TEST_CASE("a serving copy that does not fit names the fewest devices per copy it fits on, and only the ways out that apply") {
    // Llama 3 70B in BF16 on one RTX 4090: 'use more devices per copy, a smaller batch, ...' while the
    // weights alone need 132 GiB (a reviewer). 132.4 GiB / 24 GiB: 8 devices (powers of two).
    const json r = run(
        {{"model", {{"preset", "llama3-70b"}}}, {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}}, {"inference", {{"tp", 1}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["fits"] == false);
    CHECK(r["inference"]["fits_with_tp"] == 8);
    const std::string why = r["inference"]["infeasible_reason"].get<std::string>();
    CHECK(why.find("it fits with inference.tp = 8") != std::string::npos);
    CHECK(why.find("smaller batch") == std::string::npos);
    // At that size it runs.
    const json at8 = run(
        {{"model", {{"preset", "llama3-70b"}}}, {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 8}}}, {"inference", {{"tp", 8}}}});
    CHECK(at8["inference"]["fits"] == true);
    CHECK(run({{"model", {{"preset", "llama3-8b"}}},
               {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
               {"inference", json::object()}})["inference"]["fits_with_tp"]
              .is_null());
}

TEST_CASE("with traffic, serving's automatic tensor-parallel size is the one inside a node that needs the fewest GPUs for it") {
    // DeepSeek-V3 as released (FP8) on B200 at 1e6 requests a day: 4 given answered TP 4, 8 or more
    // given TP 8 and more GPUs (red team). Now the same answer whatever the count given, at least 4.
    double first = -1;
    for (int count : {4, 8, 16, 64}) {
        const json r = run({{"model", {{"preset", "deepseek-v3"}}},
                            {"hardware", {{"device", "nvidia-b200"}, {"count", count}}},
                            {"inference", {{"requests_per_day", 1e6}, {"prompt_tokens", 1000}, {"output_tokens", 300}}},
                            {"costs", {{"gpu_hour_usd", 2.0}}}});
        REQUIRE_FALSE(r.contains("errors"));
        const double g = r["inference"]["gpus_needed"].get<double>();
        if (first < 0) first = g;
        CHECK(g <= first);
        CHECK(r["inference"]["tp"] == 4);
    }
}

TEST_CASE("fits_with_tp tries every size the heads allow and needs the batch given to fit, not one sequence") {
    // LLaMA 33B (52 heads) on T4: no power of two up to 64 divides the heads except 1, 2, 4; 13 fits.
    const json t4 =
        run({{"model", {{"preset", "llama-33b"}}}, {"hardware", {{"device", "nvidia-t4"}, {"count", 1}}}, {"inference", {{"tp", 1}}}});
    REQUIRE_FALSE(t4.contains("errors"));
    CHECK(t4["inference"]["fits_with_tp"] == 13);
    // Llama 3 70B on RTX 4090 at batch 512 of 8,000-token prompts: 8 devices hold one sequence, not
    // the batch (the first version said "fits on 8"; at 8 it needed 178.7 GiB): none up to 64 does.
    const json big = run({{"model", {{"preset", "llama3-70b"}}},
                          {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 4}}},
                          {"inference", {{"tp", 4}, {"batch", 512}, {"prompt_tokens", 8000}}}});
    REQUIRE_FALSE(big.contains("errors"));
    const json& f = big["inference"]["fits_with_tp"];
    if (f.is_number()) {
        const json at = run({{"model", {{"preset", "llama3-70b"}}},
                             {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", f.get<int>()}}},
                             {"inference", {{"tp", f.get<int>()}, {"batch", 512}, {"prompt_tokens", 8000}}}});
        CHECK(at["inference"]["fits"] == true);
    } else {
        CHECK(big["inference"]["infeasible_reason"].get<std::string>().find("a smaller batch") != std::string::npos);
    }
}

TEST_CASE("an inverse answer's echoed inputs, fed back, ask the same question: the training fields given are echoed") {
    // gpus_needed's echo had no training section, so feeding it back failed with "gpus_needed needs
    // training.tokens" (194 of 194 cases; a red team).
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                        {"training", {{"tokens", 1.5e13}, {"tp", 8}}},
                        {"inverse", {{"question", "gpus_needed"}, {"days", 30}}}});
    REQUIRE_FALSE(r.contains("errors"));
    // (With layout auto since review 12: the answer searched the other layout fields.)
    CHECK(r["inputs"]["training"] == json({{"tokens", 1.5e13}, {"tp", 8}, {"layout", "auto"}}));
    const json again = run(r["inputs"]);
    REQUIRE_FALSE(again.contains("errors"));
    CHECK(again["inverse"]["gpus"] == r["inverse"]["gpus"]);
}

TEST_CASE("serving and fine-tuning time their traffic between nodes over hardware.network, not the catalog's NIC whatever it says") {
    // 16 A100 fine-tuning LLaMA 65B and Llama 3.1 405B served at TP 16 ran as fast over 1 Gb/s
    // internet as over InfiniBand (red team).
    const auto ft = [](const char* net) {
        json s = {{"model", {{"preset", "llama-65b"}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 16}}},
                  {"finetune", {{"method", "full"}, {"batch", 2}, {"seq_len", 2048}, {"tokens", 1e9}}}};
        if (net) s["hardware"]["network"] = net;
        return run(s)["finetune"]["tokens_per_second"].get<double>();
    };
    CHECK(ft("internet-1g") < ft(nullptr) / 10);
    CHECK(ft("ethernet-10g") < ft(nullptr) / 2);
    const auto serve = [](const char* net) {
        json s = {{"model", {{"preset", "llama3.1-405b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                  {"inference", {{"tp", 16}, {"batch", 1}}}};
        if (net) s["hardware"]["network"] = net;
        return run(s)["inference"]["tpot_seconds"].get<double>();
    };
    // Over the internet each of the 2 x 126 all-reduces a token waits the WAN's latency: seconds.
    CHECK(serve("internet-1g") > 1.0);
    CHECK(serve("ib-ndr-400") < 0.05);
    CHECK(serve(nullptr) < 0.05);
}

TEST_CASE("a mixed fleet slower than one of its pools alone says so") {
    // 64 MI300X alone: 690,166 tokens/s; with 16 L40S added, 543,555 (red team).
    const json r = run({{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"pools", {{{"device", "amd-mi300x"}, {"count", 64}}, {{"device", "nvidia-l40s"}, {"count", 16}}}}}},
                        {"training", {{"tokens", 1e11}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json alone = run(
        {{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"device", "amd-mi300x"}, {"count", 64}}}, {"training", {{"tokens", 1e11}}}});
    REQUIRE(alone["training"]["tokens_per_second"].get<double>() > 1.2 * r["training"]["tokens_per_second"].get<double>());
    CHECK(r["warnings"].dump().find("64 x Instinct MI300X (site-1) alone trains faster") != std::string::npos);
    // A fleet faster than each of its pools says nothing of the kind.
    const json pools =
        json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}, {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}}});
    const json both = run({{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"pools", pools}}}, {"training", {{"tokens", 1e11}}}});
    const json h100 = run({{"model", {{"preset", "llama3-8b"}}},
                           {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                           {"training", {{"tokens", 1e11}}}});
    REQUIRE(both["training"]["tokens_per_second"].get<double>() > h100["training"]["tokens_per_second"].get<double>());
    CHECK(both["warnings"].dump().find("alone trains faster") == std::string::npos);
}
