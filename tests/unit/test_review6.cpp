// Fixes of 2026-12-02 (second session): Megatron-Core's selective recomputation repeats the fused
// attention, mixed fleets warn on a batch above the largest published one, and the CLI plan search
// covers the interleavings the automatic layout does. Each test states what was shown before.
#include "helpers.hpp"

using nlohmann::json;

namespace {

// Llama 3 8B at 32K tokens on 8 H100 (TP 2, CP 2, DP 2): attention-heavy, so recomputing it shows.
json llama3_8b_32k(const char* framework, const char* recompute) {
    return {
        {"model", {{"preset", "llama3-8b"}, {"seq_len", 32768}}},
        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
        {"training",
         {{"tp", 2}, {"pp", 1}, {"cp", 2}, {"micro_batch", 1}, {"global_batch", 16}, {"recompute", recompute}, {"framework", framework}}}};
}

double attention_seconds(const json& r) { return r["training"]["step_breakdown_seconds"]["attention"].get<double>(); }

bool has_warning(const json& r, const std::string& text) { return r["warnings"].dump().find(text) != std::string::npos; }

// A mixed fleet of n H100 at site a and n A100 at site b.
json two_site_fleet(const char* preset, int n, const json& training) {
    return run({{"model", {{"preset", preset}}},
                {"hardware",
                 {{"pools", json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", n}, {"site", "a"}},
                                         {{"device", "nvidia-a100-sxm4-80gb"}, {"count", n}, {"site", "b"}}})}}},
                {"training", training}});
}

}  // namespace

TEST_CASE("Megatron-Core's selective recomputation runs the fused attention's forward again; torchtitan's per-op policy does not") {
    // megatron/core/transformer/attention.py: checkpoint_core_attention = recompute_granularity ==
    // 'selective' and 'core_attn' in recompute_modules (the default list). Before, gpucalc charged
    // selective nothing with flash attention under Megatron: its step equalled recompute none's.
    const json none = run(llama3_8b_32k("megatron", "none"));
    const json sel = run(llama3_8b_32k("megatron", "selective"));
    const json full = run(llama3_8b_32k("megatron", "full"));
    REQUIRE_FALSE(sel.contains("errors"));
    // Forward 1 + backward 2.5 of the kernel's time, plus one forward recomputed: 4.5 / 3.5.
    CHECK(attention_seconds(sel) == Approx(attention_seconds(none) * 4.5 / 3.5).epsilon(1e-12));
    CHECK(attention_seconds(sel) == Approx(attention_seconds(full)).epsilon(1e-12));
    CHECK(sel["training"]["step_breakdown_seconds"]["gemm"].get<double>() ==
          Approx(none["training"]["step_breakdown_seconds"]["gemm"].get<double>()).epsilon(1e-12));
    // HFU counts the recomputed attention: 2 x 32,768 keys x 32 heads x (128 + 128) x 32 layers per
    // token, in the same non-causal convention as full recomputation's.
    CHECK(sel["training"]["hardware_flops_per_token"].get<double>() - none["training"]["hardware_flops_per_token"].get<double>() ==
          Approx(2.0 * 32768 * 32 * 256 * 32));

    // torchtitan's 'op' policy saves the attention's output: its attention time is recompute none's.
    const json tt_none = run(llama3_8b_32k("torchtitan", "none"));
    const json tt_sel = run(llama3_8b_32k("torchtitan", "selective"));
    CHECK(attention_seconds(tt_sel) == Approx(attention_seconds(tt_none)).epsilon(1e-12));
}

TEST_CASE("a mixed fleet warns on a global batch above the largest published pretraining batch, as a single pool does") {
    // A fleet sizes its own batch (training.global_batch is refused there): 16,384 H100 + 16,384 A100
    // on Llama 2 7B take 134M tokens per step, above DeepSeek-V3's 62.9M. Before, only the
    // one-device-type estimate said so; the advice names what a fleet can change.
    auto fleet = [](int n) {
        return run({{"model", {{"preset", "llama2-7b"}}},
                    {"hardware",
                     {{"pools", json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", n}},
                                             {{"device", "nvidia-a100-sxm4-80gb"}, {"count", n}}})}}},
                    {"training", {{"tokens", 1e12}}}});
    };
    const json big = fleet(16384);
    REQUIRE_FALSE(big.contains("errors"));
    REQUIRE(big["training"]["tokens_per_step"].get<double>() > 15360.0 * 4096);
    CHECK(has_warning(big, "above the largest published pretraining batch"));
    CHECK(has_warning(big, "a mixed fleet sizes its own batch from its devices"));
    CHECK_FALSE(has_warning(big, "give training.global_batch"));
    const json small = fleet(512);
    REQUIRE(small["training"]["tokens_per_step"].get<double>() < 15360.0 * 4096);
    CHECK_FALSE(has_warning(small, "above the largest published pretraining batch"));
}

TEST_CASE("the CLI plan search's defaults are the automatic layout's: interleaving up to 8, tensor parallelism within a node") {
    // Before, plan's default max_vpp was 4 (the estimate's own search 8) and its max_tp 8 whatever the
    // node (the estimate's: the devices per node, at most 8), so with the CLI's defaults the best plan
    // could differ from the layout an estimate runs: 16 L4 (one per node) ranked TP 2 first at
    // 13,868 tokens/s while the estimate ran TP 1 (red-team).
    auto same = [](const json& s) {
        const json plan = json::parse(gpucalc::plan_json(s.dump()));
        REQUIRE_FALSE(plan.contains("errors"));
        const json est = run(s);
        REQUIRE_FALSE(est.contains("errors"));
        const json& best = plan["plan"]["best"][0];
        const json& used = est["inputs"]["training"];
        for (const char* k : {"tp", "pp", "dp", "vpp", "micro_batch", "zero", "recompute"}) {
            INFO(k);
            CHECK(best[k] == used[k]);
        }
        CHECK(best["tokens_per_second"].get<double>() == Approx(est["training"]["tokens_per_second"].get<double>()).epsilon(1e-9));
    };
    same({{"model", {{"preset", "gpt3-175b"}}},
          {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
          {"training", {{"global_batch", 1536}}}});
    same({{"model", {{"preset", "llama2-7b"}}}, {"hardware", {{"device", "nvidia-l4"}, {"count", 16}}}, {"training", json::object()}});
    // Given explicitly, max_tp is searched as given.
    const json wide = json::parse(gpucalc::plan_json(json({{"model", {{"preset", "llama2-7b"}}},
                                                           {"hardware", {{"device", "nvidia-l4"}, {"count", 16}}},
                                                           {"training", json::object()},
                                                           {"plan", {{"max_tp", 8}, {"top_k", 100}}}})
                                                         .dump()));
    bool tp2 = false;
    for (const auto& p : wide["plan"]["best"]) tp2 |= p["tp"] == 2;
    CHECK(tp2);
}

TEST_CASE("a bare parameter count too small for GPT-2's vocabulary gets a vocabulary whose embedding holds half of it") {
    // 1e6 parameters: hidden 256, and GPT-2's 50,257-token embedding alone would be 12.9M parameters,
    // leaving the layers empty. Now: 1,953 tokens x 256 = 0.5M, the one layer the other 0.5M.
    const json s = {
        {"model", {{"params", 1e6}}}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"training", {{"tokens", 1e10}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["params"].get<double>() == 1e6);
    CHECK(has_warning(r, "(1 layers, hidden 256, vocabulary 1953, 2048-token sequences"));
    const json p = json::parse(gpucalc::plan_json(s.dump()));
    REQUIRE_FALSE(p.contains("errors"));
    CHECK(p["plan"]["assumed_shape"]["vocab"].get<double>() == 1953);
    // From ~1e8 up the vocabulary is GPT-2's, as before.
    const json big = json::parse(gpucalc::plan_json(json({{"model", {{"params", 1e9}}},
                                                          {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                                                          {"training", json::object()}})
                                                        .dump()));
    CHECK(big["plan"]["assumed_shape"]["vocab"].get<double>() == 50257);
}

TEST_CASE("with DualPipe the automatic layout finds the full plan search's best plan") {
    // The best-only search ruled plans out by their bound at interleaving 8, which DualPipe never runs:
    // Llama 3 8B at 64K tokens on 256 H100 ran micro-batch 1 at 937,038 tokens/s where the full search
    // found TP 8 PP 2 micro-batch 3 at 940,378 (red-team).
    const json s = {{"model", {{"preset", "llama3-8b"}, {"seq_len", 65536}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 256}}},
                    {"training", {{"dualpipe", true}}}};
    const json plan = json::parse(gpucalc::plan_json(s.dump()));
    REQUIRE_FALSE(plan.contains("errors"));
    const json est = run(s);
    REQUIRE_FALSE(est.contains("errors"));
    const json& best = plan["plan"]["best"][0];
    for (const char* k : {"tp", "pp", "dp", "vpp", "micro_batch", "global_batch", "zero", "recompute"}) {
        INFO(k);
        CHECK(best[k] == est["inputs"]["training"][k]);
    }
    CHECK(est["training"]["tokens_per_second"].get<double>() == Approx(best["tokens_per_second"].get<double>()).epsilon(1e-9));
}

TEST_CASE("local steps: a fleet run as one pipeline says they have no effect; each worker's inner batch is held against the largest") {
    // 16 H100 (site a) and 16 A100 (site b) cannot hold Llama 3 70B replicas: one pipeline, no DiLoCo.
    // Before, it warned that 'the sites never exchange' within 500 local steps, as if they applied.
    const json pipe = two_site_fleet("llama3-70b", 16, {{"tokens", 1e9}, {"local_steps", 500}});
    REQUIRE_FALSE(pipe.contains("errors"));
    REQUIRE(pipe["training"]["local_sgd"].is_null());
    CHECK(has_warning(pipe, "training.local_steps (500) has no effect: the fleet runs as one pipeline"));
    CHECK_FALSE(has_warning(pipe, "never exchange"));
    // With DiLoCo each worker's inner batch is one batch: 2 sites of 16,384 H100 at 134.2M tokens a
    // step take 67.1M each, above DeepSeek-V3's 62.9M. Before, DiLoCo was exempt altogether.
    // (The layout given, tp 1 and pp 1: dp 32,768; the automatic layout keeps each worker's batch
    // within the published maximum, as the fleet's pools below do.)
    const json sites = run({{"model", {{"preset", "llama2-7b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 32768}, {"sites", 2}}},
                            {"training", {{"tokens", 1e12}, {"local_steps", 50}, {"tp", 1}, {"pp", 1}}}});
    REQUIRE_FALSE(sites.contains("errors"));
    REQUIRE_FALSE(sites["training"]["local_sgd"].is_null());
    CHECK(has_warning(sites, "each of the 2 sites' inner batches (67.1M tokens per step) is above the largest published"));
    const json pools = two_site_fleet("llama2-7b", 16384, {{"tokens", 1e12}, {"local_steps", 50}});
    REQUIRE_FALSE(pools.contains("errors"));
    CHECK(pools["training"]["tokens_per_step"].get<double>() / 2 <= 15360.0 * 4096);
    CHECK_FALSE(has_warning(pools, "inner batches"));
    // Half the sites' devices: 33.6M per site, under the published maximum.
    const json half = run({{"model", {{"preset", "llama2-7b"}}},
                           {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16384}, {"sites", 2}}},
                           {"training", {{"tokens", 1e12}, {"local_steps", 50}}}});
    CHECK_FALSE(has_warning(half, "largest published pretraining batch"));
}

TEST_CASE("the step's attention time is derived, and its values and the step's terms give their results") {
    // Before, no derivation showed the attention time (the recomputed pass could not be seen), and
    // training.step_seconds read 'microbatches x (gemm + ...)' over terms that are already the step's.
    auto check = [](json s) {
        s["explain"] = true;
        const json r = run(s);
        REQUIRE_FALSE(r.contains("errors"));
        const json& a = r["explain"]["training.step_breakdown_seconds.attention"];
        const json& v = a["values"];
        const double per_layer = v["forward_flops"].get<double>() * v["passes"].get<double>() /
                                     (v["peak_16bit"].get<double>() * v["attention_efficiency"].get<double>()) +
                                 v["score_traffic_seconds"].get<double>();
        CHECK(a["result"].get<double>() ==
              Approx(v["microbatches"].get<double>() * v["layers_on_slowest_stage"].get<double>() * per_layer).epsilon(1e-12));
        CHECK(a["result"].get<double>() == Approx(r["training"]["step_breakdown_seconds"]["attention"].get<double>()).epsilon(1e-12));
        const json& st = r["explain"]["training.step_seconds"];
        double sum = 0;
        for (const char* k : {"gemm", "attention", "memory_bound", "overhead", "tp_comm", "cp_comm", "pp_comm", "ep_comm", "pp_bubble",
                              "dp_comm", "optimizer", "outer_comm"})
            sum += st["values"][k].get<double>();
        CHECK(st["result"].get<double>() == Approx(sum).epsilon(1e-12));
        return v["passes"].get<double>();
    };
    json sel = llama3_8b_32k("megatron", "selective");
    CHECK(check(sel) == 4.5);  // forward, backward 2.5, the recomputed forward
    CHECK(check(llama3_8b_32k("torchtitan", "selective")) == 3.5);
    json unfused = llama3_8b_32k("megatron-legacy", "none");
    unfused["model"]["seq_len"] = 4096;
    unfused["training"]["attention"] = "materialized";
    CHECK(check(unfused) == 3.0);
    // Uneven stages (the last one slowest), DiLoCo over sites.
    check({{"model", {{"preset", "llama2-7b"}}},
           {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 96}, {"sites", 2}}},
           {"training", {{"tp", 1}, {"pp", 3}, {"local_steps", 20}, {"tokens", 1e11}}}});
}

TEST_CASE("a mixed fleet run as one pipeline keeps a given recomputation, and tries none first when it is not given") {
    // 16 H100 + 16 A100 on Llama 3 70B: one pipeline, which fits only with full recomputation. Before,
    // a given recompute none ran full recomputation without a word (the search tried selective and full).
    auto fleet = [](const json& training) { return two_site_fleet("llama3-70b", 16, training); };
    const json chosen = fleet({{"tokens", 1e9}});
    const json full = fleet({{"tokens", 1e9}, {"recompute", "full"}});
    const json none = fleet({{"tokens", 1e9}, {"recompute", "none"}});
    REQUIRE(chosen["training"]["fits"].get<bool>());
    CHECK(chosen["training"]["tokens_per_second"].get<double>() == Approx(full["training"]["tokens_per_second"].get<double>()));
    CHECK_FALSE(none["training"]["fits"].get<bool>());
}

// ---- A formula review of serving (2026-12-02, second session) ----

TEST_CASE("speculative decoding at acceptance 0 is slower than plain decoding at every batch") {
    // One token per step, and the engine still pays a draft step and a 2-token verify. The verify step
    // took max(weights, compute) where a plain step adds them: a speed-up of 1.20 at batch 64 (Leviathan
    // et al. 2023 Eq. 1 with alpha 0 gives at most 1).
    for (int batch : {1, 12, 64, 128}) {
        INFO(batch);
        const json r = run({{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 2}}},
                            {"inference",
                             {{"tp", 2},
                              {"batch", batch},
                              {"prompt_tokens", 1000},
                              {"output_tokens", 1000},
                              {"speculative", {{"draft_params", 1000}, {"draft_tokens", 1}, {"acceptance_rate", 0}}}}}});
        REQUIRE_FALSE(r.contains("errors"));
        CHECK(r["inference"]["speculative"]["tokens_per_step"].get<double>() == Approx(1.0));
        CHECK(r["inference"]["speculative"]["speedup"].get<double>() < 1.0);
    }
}

TEST_CASE("a speculative draft model's weights take device memory") {
    // Llama 3 70B in bf16 on one H200 with an 8B draft: 141 GB of weights + 16 GB of draft do not fit
    // in 141 GiB. Before, memory and the largest batch ignored the draft (max batch 12, 2.04x faster).
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 1}}},
              {"inference", {{"prompt_tokens", 1000}, {"output_tokens", 1000}}}};
    const json plain = run(s);
    REQUIRE(plain["inference"]["fits"].get<bool>());
    s["inference"]["speculative"] = {{"draft_params", 8e9}, {"draft_tokens", 4}, {"acceptance_rate", 0.7}};
    const json spec = run(s);
    REQUIRE_FALSE(spec.contains("errors"));
    CHECK(spec["inference"]["speculative"]["draft_weights_bytes"].get<double>() == 8e9 * 2);
    CHECK_FALSE(spec["inference"]["fits"].get<bool>());
    // On two H200 at TP 2 it fits, with 8 GB of draft per device beside 70.6 GB of target weights.
    s["hardware"]["count"] = 2;
    s["inference"]["tp"] = 2;
    const json two = run(s);
    REQUIRE(two["inference"]["fits"].get<bool>());
    s.erase("inference");
    s["inference"] = {{"tp", 2}, {"prompt_tokens", 1000}, {"output_tokens", 1000}};
    const json two_plain = run(s);
    CHECK(two["inference"]["memory_per_gpu_bytes"].get<double>() - two["inference"]["kv_cache_bytes_per_gpu"].get<double>() ==
          Approx(two_plain["inference"]["memory_per_gpu_bytes"].get<double>() -
                 two_plain["inference"]["kv_cache_bytes_per_gpu"].get<double>() + 8e9));
    CHECK(has_warning(two, "its KV cache"));
}

TEST_CASE("a speculative draft's KV cache takes device memory: the largest batch is smaller by the draft's share") {
    // Llama 3 70B (80 layers, 8 KV heads of 128, bf16: 163,840 bytes per token per device at TP 2) on
    // two H200 with an 8B draft, 2,000-token contexts. The draft's depth is 8e9 / 70.55e9 active
    // parameters (hand count: 80 x (2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672 + 2 x 8192) +
    // 2 x 128,256 x 8192 + 8192 = 70.554e9); vLLM gives the draft as many KV blocks as the target, so a
    // sequence holds 2,000 x 163,840 x (1 + 0.11339) bytes per device. Before, the draft's KV was not
    // counted: max batch 197 instead of 177.
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 2}}},
                        {"inference",
                         {{"tp", 2},
                          {"prompt_tokens", 1000},
                          {"output_tokens", 1000},
                          {"speculative", {{"draft_params", 8e9}, {"draft_tokens", 4}, {"acceptance_rate", 0.7}}}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& i = r["inference"];
    const double params = 80 * (2 * 8192.0 * 8192 + 2 * 8192.0 * 1024 + 3 * 8192.0 * 28672 + 2 * 8192) + 2 * 128256.0 * 8192 + 8192;
    const double depth = 8e9 / params, per_token = 2 * 80 * 8 * 128 * 2 / 2.0;
    REQUIRE(i["kv_cache_bytes_per_token_per_gpu"].get<double>() == Approx(per_token));
    const double free =
        (i["memory_capacity_bytes"].get<double>() - i["overhead_bytes_per_gpu"].get<double>() - i["weights_bytes_per_gpu"].get<double>()) *
        0.9;  // kv_cache_memory_fraction: TensorRT-LLM free_gpu_memory_fraction, the default
    CHECK(i["max_batch"].get<double>() == std::floor(free / (per_token * 2000 * (1 + depth))));
    CHECK(i["max_batch"].get<double>() == 177);
    const double batch = i["batch"].get<double>();
    CHECK(i["speculative"]["draft_kv_cache_bytes_per_gpu"].get<double>() == Approx(per_token * 2000 * batch * depth).epsilon(1e-9));
    CHECK(i["kv_cache_bytes_per_gpu"].get<double>() == Approx(per_token * 2000 * batch * (1 + depth)).epsilon(1e-9));
    CHECK(i["memory_per_gpu_bytes"].get<double>() ==
          Approx(i["weights_bytes_per_gpu"].get<double>() + i["kv_cache_bytes_per_gpu"].get<double>() +
                 i["overhead_bytes_per_gpu"].get<double>()));
    // Both draft figures show their work, with the values that give them.
    const json& d = r["explain"]["inference.speculative.draft_kv_cache_bytes_per_gpu"];
    CHECK(d["result"].get<double>() == i["speculative"]["draft_kv_cache_bytes_per_gpu"].get<double>());
    CHECK(d["values"]["draft_kv_per_token_per_gpu"].get<double>() == Approx(per_token * depth));
    CHECK(d["values"]["draft_kv_per_token_per_gpu"].get<double>() * d["values"]["cached_tokens"].get<double>() *
              d["values"]["sequences_per_gpu"].get<double>() ==
          Approx(d["result"].get<double>()));
    CHECK(r["explain"]["inference.speculative.draft_weights_bytes"]["result"].get<double>() == 8e9 * 2);
}

TEST_CASE("disaggregated prefill copies are sized for a mean wait of at most one prefill, and each TP rank sends its own KV") {
    // Llama 3 70B fp8 at TP 4 on H100, 2,000-token prompts, 10M requests a day. Prefill copies sized to
    // 98 % load gave a 2.74 s TTFT against 0.21 s colocated; the KV of a prompt went over one link.
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                        {"inference",
                         {{"tp", 4},
                          {"weight_precision", "fp8"},
                          {"kv_precision", "fp8"},
                          {"prompt_tokens", 2000},
                          {"output_tokens", 400},
                          {"requests_per_day", 1e7},
                          {"disaggregated", true}}},
                        {"explain", true}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& i = r["inference"];
    CHECK(i["ttft_seconds"].get<double>() < 2.0 * i["prefill_seconds"].get<double>() + 0.05);
    // 2,000 tokens x 80 layers x 8 KV heads x 128 x 2 (K, V) x 1 byte / 4 ranks, over 50 GB/s x 0.75.
    const double per_rank = 2000.0 * 80 * 8 * 128 * 2 / 4;
    CHECK(i["disaggregation"]["kv_transfer_seconds"].get<double>() ==
          Approx(per_rank / r["explain"]["inference.disaggregation.kv_transfer_seconds"]["values"]["scale_out_bytes_per_second_x_network"]
                                .get<double>()));
    const json& pi = r["explain"]["inference.disaggregation.prefill_instances"];
    CHECK(pi["result"].get<double>() == std::ceil(pi["values"]["peak_requests_per_second"].get<double>() *
                                                  pi["values"]["S_prefill_work"].get<double>() / (2.0 / 3.0) * (1 - 1e-12)));
}

TEST_CASE("paged 8-bit AdamW states are counted on the device where they fit, and paged to the host where they do not") {
    // Llama 2 7B full fine-tuning: 6.74e9 trainable x 2 bytes = 12.6 GiB of states. bitsandbytes pages
    // them out only under memory pressure (QLoRA Sec. 3); before, they always counted 0 on the device.
    auto ft = [](const char* gpu) {
        return run({{"model", {{"preset", "llama2-7b"}}},
                    {"hardware", {{"device", gpu}, {"count", 1}}},
                    {"finetune", {{"method", "full"}, {"optimizer", "paged_adamw_8bit"}}},
                    {"explain", true}});
    };
    const json a100 = ft("nvidia-a100-sxm4-80gb");
    REQUIRE(a100["finetune"]["fits"].get<bool>());
    CHECK(a100["finetune"]["memory_per_gpu_bytes"]["optimizer"].get<double>() == Approx(6738415616.0 * 2));
    CHECK_FALSE(has_warning(a100, "paged to host memory"));
    const json rtx = ft("nvidia-rtx-4090");
    CHECK(rtx["finetune"]["memory_per_gpu_bytes"]["optimizer"].get<double>() == 0);
    CHECK(has_warning(rtx, "paged 8-bit AdamW: the optimizer states (12.5513 GiB) do not fit beside the rest"));
    // The derivation gives its result either way.
    for (const json* r : {&a100, &rtx}) {
        const json& e = (*r)["explain"]["finetune.memory_per_gpu_bytes.optimizer"];
        CHECK(e["result"].get<double>() ==
              Approx(e["values"]["trainable_params"].get<double>() * e["values"]["state_bytes_per_param"].get<double>()));
    }
}

TEST_CASE("a draft given as a model holds its own KV cache: Llama 3 8B beside Llama 3 70B, 64 KiB per token per device at TP 2") {
    // Llama 3 8B: 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 131,072 bytes per token, 65,536
    // per device at TP 2 (meta-llama/Meta-Llama-3-8B config.json). Taken at the 70B's width instead
    // (draft_params / active = 8.03e9 / 70.55e9 of its 327,680 bytes) it was 37,297: 3.5x too little
    // (a newcomer's review: the page's own Llama 3 8B row says 128 KiB per token).
    json s = {
        {"model", {{"preset", "llama3-70b"}}},
        {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 2}}},
        {"inference",
         {{"tp", 2}, {"prompt_tokens", 1000}, {"output_tokens", 1000}, {"speculative", {{"draft_model", {{"preset", "llama3-8b"}}}}}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    const json& i = r["inference"];
    const double batch = i["batch"].get<double>(), per_token = 163840, draft_per_token = 65536;
    CHECK(i["speculative"]["draft_kv_cache_bytes_per_gpu"].get<double>() == Approx(draft_per_token * 2000 * batch));
    CHECK(i["kv_cache_bytes_per_gpu"].get<double>() == Approx((per_token + draft_per_token) * 2000 * batch));
    const double free =
        (i["memory_capacity_bytes"].get<double>() - i["overhead_bytes_per_gpu"].get<double>() - i["weights_bytes_per_gpu"].get<double>()) *
        0.9;
    CHECK(i["max_batch"].get<double>() == std::floor(free / ((per_token + draft_per_token) * 2000)));
    // The step per accepted token is the draft's steps and the verify step over the tokens they yield.
    const json& sp = i["speculative"];
    CHECK((4 * sp["draft_step_seconds"].get<double>() + sp["verify_step_seconds"].get<double>()) / sp["tokens_per_step"].get<double>() ==
          Approx(i["decode_seconds_per_token"].get<double>()));
    CHECK(sp["draft_step_seconds"].get<double>() > 0);
    for (const char* k : {"draft_step_seconds", "verify_step_seconds"}) {  // each shows its parts, which add up to it
        const json& e = r["explain"][std::string("inference.speculative.") + k];
        double sum = 0;
        for (const auto& [name, v] : e["values"].items()) sum += v.get<double>();
        CHECK(sum == Approx(sp[k].get<double>()));
        CHECK(e["result"].get<double>() == sp[k].get<double>());
    }
    // draft_params defaults to the draft model's (active) parameters, and the echo parses back to the same answer.
    CHECK(i["speculative"]["draft_weights_bytes"].get<double>() == 8030261248.0 * 2);
    CHECK(r["inputs"]["inference"]["speculative"]["draft_params"].get<double>() == 8030261248.0);
    CHECK(r["inputs"]["inference"]["speculative"]["draft_model"]["preset"] == "llama3-8b");
    const json again = run(r["inputs"]);
    REQUIRE_FALSE(again.contains("errors"));
    CHECK(again["inference"] == i);
    // The KV cache's derivation adds the draft's part with its own values.
    const json& k = r["explain"]["inference.kv_cache_bytes"]["values"];
    CHECK((k["kv_cache_bytes_per_token"].get<double>() * k["cached_tokens"].get<double>() +
           k["draft_kv_cache_bytes_per_token"].get<double>() * k["draft_cached_tokens"].get<double>()) *
              k["batch"].get<double>() ==
          Approx(i["kv_cache_bytes"].get<double>()));
    // A bad draft model names its field.
    s["inference"]["speculative"] = {{"draft_model", {{"preset", "no-such-model"}}}};
    const json bad = run(s);
    REQUIRE(bad.contains("errors"));
    CHECK(bad["errors"][0]["field"] == "inference.speculative.draft_model.preset");
    s["inference"]["speculative"] = json::object();
    CHECK(run(s)["errors"][0]["field"] == "inference.speculative.draft_params");
}

TEST_CASE("a draft given as a model: red-team findings, each reproduced before its fix") {
    const json base = {{"model", {{"preset", "llama3-70b"}}},
                       {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 2}}},
                       {"inference", {{"tp", 2}, {"prompt_tokens", 1000}, {"output_tokens", 1000}}},
                       {"explain", false}};
    const auto with = [&](const json& speculative) {
        json s = base;
        s["inference"]["speculative"] = speculative;
        return run(s);
    };
    // draft_model null is not given: the missing draft is an error (it ran with no draft, and its echo did not parse).
    CHECK(with({{"draft_model", nullptr}})["errors"][0]["field"] == "inference.speculative.draft_params");
    // An MoE draft holds all its experts: Qwen3 235B-A22B is 470 GB in bf16 (it counted its 22B active: 44 GB, and fitted).
    const json moe = with({{"draft_model", {{"preset", "qwen3-235b-a22b"}}}});
    CHECK(moe["inference"]["speculative"]["draft_weights_bytes"].get<double>() == 235093634560.0 * 2);
    CHECK_FALSE(moe["inference"]["fits"].get<bool>());
    json shown = base;  // and its derivation gives those bytes (it multiplied draft_params, the active ones)
    shown["explain"] = true;
    shown["inference"]["speculative"] = {{"draft_model", {{"preset", "qwen3-235b-a22b"}}}};
    const json shown_r = run(shown);
    const json& w = shown_r["explain"]["inference.speculative.draft_weights_bytes"];
    CHECK(w["values"]["draft_params_held"].get<double>() * w["values"]["bytes_per_param"].get<double>() == w["result"].get<double>());
    CHECK(w["result"].get<double>() == 235093634560.0 * 2);
    // draft_params that is not the draft model's is a conflict (the figures came from two drafts).
    const json two = with({{"draft_model", {{"preset", "llama3.2-1b"}}}, {"draft_params", 7e9}});
    CHECK(two["errors"][0]["code"] == "conflict");
    CHECK(two["errors"][0]["field"] == "inference.speculative.draft_params");
    // A draft past its own context length, or with another vocabulary, is warned about.
    json longer = base;
    longer["inference"]["prompt_tokens"] = 3000;
    longer["inference"]["speculative"] = {{"draft_model", {{"preset", "pythia-1b"}}}};
    const json p = run(longer);
    CHECK(has_warning(p, "exceed the draft model's context length (2048)"));
    CHECK(has_warning(p, "the draft model's vocabulary (50304 tokens) is not the target's"));
    // A target given by its parameter count: the batch stays unsized (the draft's KV alone sized it: 2,172).
    json bare = base;
    bare["model"] = {{"params", 7e10}};
    bare["inference"]["speculative"] = {{"draft_model", {{"preset", "llama3.2-1b"}}}};
    const json b = run(bare);
    CHECK(b["inference"]["batch"].get<double>() == 1);
    CHECK(has_warning(b, "batch 1 assumed"));
    // The draft prefills every prompt too (vLLM sends the input to the proposer and the scorer): the
    // prefill is the target's x (1 + draft_params / active params); it was the target's alone.
    json pre = base;
    pre["inference"]["batch"] = 1;
    const json plain = run(pre);
    pre["inference"]["speculative"] = {{"draft_model", {{"preset", "llama3-8b"}}}};
    const json drafted = run(pre);
    CHECK(drafted["inference"]["prefill_seconds"].get<double>() ==
          Approx(plain["inference"]["prefill_seconds"].get<double>() * (1 + 8030261248.0 / 70553706496.0)));
    // DeepSeek-V3 with data-parallel attention: each rank holds its own sequences and the draft's KV of
    // them whole, so the devices' KV adds up to the whole (it split the draft's KV over heads too: 8x too little).
    const json ds = run({{"model", {{"preset", "deepseek-v3"}}},
                         {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 8}}},
                         {"inference",
                          {{"tp", 8},
                           {"attention_dp", true},
                           {"weight_precision", "fp8"},
                           {"prompt_tokens", 1000},
                           {"output_tokens", 1000},
                           {"speculative", {{"draft_model", {{"preset", "llama3.2-1b"}}}}}}},
                         {"explain", false}});
    REQUIRE_FALSE(ds.contains("errors"));
    const json& di = ds["inference"];
    CHECK(8 * di["kv_cache_bytes_per_gpu"].get<double>() == Approx(di["kv_cache_bytes"].get<double>()));
    CHECK(di["speculative"]["draft_kv_cache_bytes_per_gpu"].get<double>() == Approx(32768.0 * 2000 * di["batch"].get<double>() / 8));
}

TEST_CASE("a draft's memory counts everywhere the target's does: copies per GPU, host-resident layers, runs that do not fit") {
    // Red-team findings on the first version of the draft's KV cache (each reproduced before the fix).
    const auto inf = [](const json& s) { return run(s)["inference"]; };
    // Copies per GPU divide the memory by the whole copy, the draft's weights included: Llama 3 8B +
    // a 7B draft at batch 1 needs 31.6e9 bytes of 151.4e9, so 4 copies (the draft's 14 GB was left out: 8).
    const json one =
        inf({{"model", {{"preset", "llama3-8b"}}},
             {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 1}}},
             {"inference", {{"batch", 1}, {"prompt_tokens", 1000}, {"output_tokens", 1000}, {"speculative", {{"draft_params", 7e9}}}}}});
    CHECK(one["instances_per_gpu"].get<double>() ==
          std::floor(one["memory_capacity_bytes"].get<double>() / one["memory_per_gpu_bytes"].get<double>()));
    CHECK(one["instances_per_gpu"].get<double>() == 4);
    // Every layer in host memory (gpu_layers 0) but the draft on the device: the draft's KV bounds the
    // batch, and a context of which not one sequence's draft KV fits does not fit (it said fits: true).
    json off = {{"model", {{"preset", "llama3-70b"}, {"seq_len", 131072}}},
                {"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                {"inference",
                 {{"gpu_layers", 0},
                  {"weight_precision", "int4"},
                  {"prompt_tokens", 110000},
                  {"output_tokens", 1000},
                  {"speculative", {{"draft_params", 2e10}}}}}};
    const json r = run(off);
    CHECK(r["inference"]["max_batch"].get<double>() == 0);
    CHECK_FALSE(r["inference"]["fits"].get<bool>());
    off["inference"]["prompt_tokens"] = 1000;
    off["inference"]["output_tokens"] = 200;
    off["inference"]["speculative"]["draft_params"] = 1e9;
    const json small = run(off);
    CHECK(small["inference"]["fits"].get<bool>());
    CHECK(small["inference"]["max_batch"].get<double>() < 4096);
    CHECK(has_warning(small, "what the draft model's KV cache leaves on the device"));
    // The draft's KV is reported whenever the KV cache is, a run that does not fit included.
    const json over =
        inf({{"model", {{"preset", "llama3-70b"}}},
             {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 2}}},
             {"inference",
              {{"tp", 2}, {"batch", 300}, {"prompt_tokens", 1000}, {"output_tokens", 1000}, {"speculative", {{"draft_params", 8e9}}}}}});
    REQUIRE_FALSE(over["fits"].get<bool>());
    CHECK(over["speculative"]["draft_kv_cache_bytes_per_gpu"].get<double>() > 0);
    CHECK(over["speculative"]["draft_kv_cache_bytes_per_gpu"].get<double>() < over["kv_cache_bytes_per_gpu"].get<double>());
}

TEST_CASE("a speculative draft is timed as the dense model it is, on the device: as large as the target it gains nothing") {
    auto spec = [](const json& model, const char* device, int count, json inference) {
        return run({{"model", model}, {"hardware", {{"device", device}, {"count", count}}}, {"inference", inference}});
    };
    // A draft of 0.99 x Llama 3 70B at acceptance 0.999 and 16 draft tokens: each draft step costs
    // about a target step, so at most ~1x (it gave 1.53x: the draft's attention and all-reduces were
    // left out; red-team).
    const json big = spec({{"preset", "llama3-70b"}}, "nvidia-h200-sxm-141gb", 8,
                          {{"tp", 8},
                           {"batch", 1},
                           {"prompt_tokens", 1000},
                           {"output_tokens", 1000},
                           {"speculative", {{"draft_params", 69e9}, {"draft_tokens", 16}, {"acceptance_rate", 0.999}}}});
    REQUIRE_FALSE(big.contains("errors"));
    CHECK(big["inference"]["speculative"]["speedup"].get<double>() < 1.05);
    // Mixtral at batch 224: a 1e9-parameter dense draft reads 1 GB per step over 2 ranks, not a share
    // of every expert the target reads (it was 3.6x too slow). Each extra 1e9 draft parameters adds
    // its weights, its GEMMs and its KV reads at the draft's depth per draft step. (Batch 256 with the
    // 2e9 draft no longer fits in 80 GiB once the draft's own KV cache is counted.)
    json mixtral = {{"tp", 2}, {"batch", 224}, {"prompt_tokens", 1000}, {"output_tokens", 1000}};
    mixtral["speculative"] = {{"draft_params", 1e9}, {"draft_tokens", 4}, {"acceptance_rate", 0}};
    const json one = spec({{"preset", "mixtral-8x7b"}}, "nvidia-h100-sxm5-80gb", 2, mixtral);
    mixtral["speculative"]["draft_params"] = 2e9;
    const json two = spec({{"preset", "mixtral-8x7b"}}, "nvidia-h100-sxm5-80gb", 2, mixtral);
    const double per_draft_step =
        (two["inference"]["decode_seconds_per_token"].get<double>() - one["inference"]["decode_seconds_per_token"].get<double>()) / 4.0;
    CHECK(per_draft_step < 2.0e-3);
    CHECK(per_draft_step > 1e9 / (3.35e12 * 0.84));  // at least the extra weights, read over 2 ranks
    // The decode step's derivation gives its result with speculative decoding.
    json s = {{"model", {{"preset", "mixtral-8x7b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
              {"inference", mixtral},
              {"explain", true}};
    const json e = run(s)["explain"]["inference.decode_seconds_per_token"];
    const json& v = e["values"];
    CHECK(e["result"].get<double>() == Approx((v["gamma"].get<double>() * v["draft_step"].get<double>() + v["verify_step"].get<double>()) /
                                              v["tokens_per_step"].get<double>()));
}

TEST_CASE("fine-tuning's largest batch with paged states is one answer, whatever batch is given") {
    // Llama 2 7B full fine-tuning on one H100 with paged 8-bit AdamW: batch 2 said 71 at most, batch 72
    // then fit (the states paged out) and said 88 (red-team).
    double seen = -1;
    for (int batch : {2, 72}) {
        const json r = run({{"model", {{"preset", "llama2-7b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                            {"finetune", {{"method", "full"}, {"optimizer", "paged_adamw_8bit"}, {"batch", batch}}}});
        REQUIRE(r["finetune"]["fits"].get<bool>());
        if (seen >= 0) CHECK(r["finetune"]["max_batch"].get<double>() == seen);
        seen = r["finetune"]["max_batch"].get<double>();
    }
    CHECK(seen >= 72);
}

TEST_CASE("a given MFU says that the step follows it while the breakdown is the model's own step") {
    const json r = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                        {"training", {{"tp", 8}, {"pp", 2}, {"mfu", 0.4}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const json& t = r["training"];
    CHECK(t["step_seconds"].get<double>() != Approx(t["step_breakdown_seconds"]["total"].get<double>()));
    CHECK(has_warning(r, "training.mfu given: the step ("));
    CHECK(has_warning(r, "step_breakdown_seconds is the model's own step"));
}

TEST_CASE("explain asked for a derivation the scenario has none of says so") {
    const std::string s = R"({"model":{"preset":"llama3-70b"},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},
                             "training":{"tp":1,"pp":1,"zero":0}})";
    const json r = json::parse(gpucalc::explain_json(s, "training.step_breakdown_seconds.attention"));
    CHECK(r["explain"].empty());
    REQUIRE(r.contains("warnings"));
    CHECK(r["warnings"][0].get<std::string>().find("no derivation of the key asked for in this scenario") != std::string::npos);
}
