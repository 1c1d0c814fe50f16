// Training memory (ZeRO, Korthikanti) reproduced exactly; time model behaviour.
#include "gpucalc/catalog.hpp"
#include "gpucalc/training.hpp"
#include "helpers.hpp"

using namespace gpucalc;
using nlohmann::json;

static Hardware hw(const char* id, double n) {
    Hardware h;
    h.device = *find_device(id);
    h.count = n;
    h.devices_per_node = h.device.gpus_per_node;
    return h;
}

TEST_CASE("ZeRO (Rajbhandari et al. 2020, Fig. 1): 7.5B params, 64 GPUs: 120 / 31.4 / 16.6 / 1.9 GB") {
    StepInputs in{};
    in.layers = 1;
    in.hidden = 4096;
    in.heads = 32;
    in.kv_ratio = 1;
    in.seq = 1024;
    in.window = 1024;
    in.vocab = 0;
    in.params_total_layers = 7.5e9;
    in.params_embedding = 0;
    in.tied = 1;
    TrainingConfig c;
    c.dp = 64;
    c.global_batch = 64;
    c.fp32_gradients = false;  // the ZeRO paper's 16-bit gradients (DeepSpeed)
    const double expected[4] = {120e9, 31.4e9, 16.6e9, 1.9e9};
    for (int z = 0; z < 4; ++z) {
        c.zero = z;
        const auto e = estimate_step(in, hw("nvidia-a100-sxm4-80gb", 64), c,
                                     efficiency_for(*find_device("nvidia-a100-sxm4-80gb"), Framework::deepspeed));
        // The paper's model states exclude ZeRO-3's gathered-layer buffers (reported separately).
        const double states = e.memory.weights + e.memory.gradients + e.memory.optimizer - e.zero3_buffer_bytes;
        INFO("ZeRO stage " << z);
        CHECK(states == Approx(expected[z]).epsilon(0.02));
    }
    c.zero = 0;
    const auto e =
        estimate_step(in, hw("nvidia-a100-sxm4-80gb", 64), c, efficiency_for(*find_device("nvidia-a100-sxm4-80gb"), Framework::deepspeed));
    CHECK(e.memory.weights + e.memory.gradients + e.memory.optimizer == 16.0 * 7.5e9);  // the 16 psi rule
}

TEST_CASE("Korthikanti et al. 2022 Table 2, GPT-3 175B layer (s 2048, b 1, h 12288, a 96, t 8)") {
    const StepInputs in = step_inputs(*find_model_preset("gpt3-175b"));
    const double s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h;
    TrainingConfig c;
    c.tp = t;
    c.attention = Attention::materialized;
    c.recompute = Recompute::none;
    c.sequence_parallel = false;
    CHECK(activation_bytes_per_layer(in, c) == Approx(sbh * (10 + 24 / t + 5 * a * s / (h * t))));
    c.sequence_parallel = true;
    CHECK(activation_bytes_per_layer(in, c) == Approx(sbh / t * (34 + 5 * a * s / h)));
    c.sequence_parallel = false;
    c.recompute = Recompute::selective;
    CHECK(activation_bytes_per_layer(in, c) == Approx(sbh * (10 + 24 / t)));
    c.sequence_parallel = true;
    CHECK(activation_bytes_per_layer(in, c) == Approx(sbh * 34 / t));
    // 0.0996 GiB per layer: the worked example in the reference data (sbh 34/t).
    CHECK(activation_bytes_per_layer(in, c) / (1024.0 * 1024 * 1024) == Approx(0.09961).epsilon(0.001));
    c.recompute = Recompute::full;
    c.sequence_parallel = false;
    CHECK(activation_bytes_per_layer(in, c) == Approx(2 * sbh));
    TrainingConfig n1;
    n1.attention = Attention::materialized;
    n1.recompute = Recompute::none;
    CHECK(activation_bytes_per_layer(in, n1) == Approx(sbh * (34 + 5 * a * s / h)));  // no parallelism
}

TEST_CASE("predicted utilisation: a given MFU is used and labelled; the prediction still reported") {
    json s = {{"model", {{"preset", "llama2-70b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 512}}},
              {"training", {{"tokens", 2e12}, {"tp", 8}, {"pp", 4}, {"goodput", 1}}}};
    auto pred = run(s);
    REQUIRE_FALSE(pred.contains("errors"));
    CHECK(pred["training"]["mfu_source"] == "predicted");
    const double mfu = pred["training"]["mfu"].get<double>();
    CHECK((mfu > 0.2 && mfu < 0.7));
    CHECK(pred["training"]["hfu"].get<double>() >= mfu * (1 - 1e-12));  // equal without recomputation
    s["training"]["mfu"] = 0.5;
    auto given = run(s);
    CHECK(given["training"]["mfu_source"] == "given");
    CHECK(given["training"]["mfu"] == 0.5);
    CHECK(given["training"]["mfu_predicted"].get<double>() == Approx(mfu));
    // Time = FLOPs / (N x peak x MFU).
    const double flops = given["training"]["flops"].get<double>();
    CHECK(given["training"]["seconds"].get<double>() == Approx(flops / (512 * 989.4e12 * 0.5)));
}

TEST_CASE("run totals: GPU-hours, cost, energy = GPU-hours x TDP x PUE, CO2") {
    auto r = run({{"model", {{"params", 175e9}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
                  {"training", {{"tokens", 300e9}, {"mfu", 0.4}, {"tp", 8}, {"pp", 8}, {"goodput", 1}}},
                  {"costs", {{"gpu_hour_usd", 2.0}, {"pue", 1.1}, {"grid_kg_co2_per_kwh", 0.4}}}});
    const auto& t = r["training"];
    const double secs = 3.15e23 / (1024 * 312e12 * 0.4);
    CHECK(t["seconds"].get<double>() == Approx(secs));
    CHECK(t["gpu_hours"].get<double>() == Approx(1024 * secs / 3600));
    CHECK(t["cost_usd"].get<double>() == Approx(2.0 * 1024 * secs / 3600));
    CHECK(t["energy_kwh"].get<double>() == Approx(1024 * secs / 3600 * 0.4 * 1.1));
    CHECK(t["co2_kg"].get<double>() == Approx(1024 * secs / 3600 * 0.4 * 1.1 * 0.4));
}

TEST_CASE("more GPUs do not make it proportionally faster: scaling efficiency falls") {
    // On a 10 GbE network the gradient reduction outgrows the backward pass it overlaps as the batch
    // per device shrinks.
    json s = {{"model", {{"preset", "llama2-7b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}, {"scale_out_bytes_per_second", 1.25e9}}},
              {"training", {{"tokens", 2e12}, {"global_batch", 1024}, {"tp", 8}, {"pp", 1}, {"zero", 1}, {"micro_batch", 1}}},
              {"scaling", true}};
    auto r = run(s);
    REQUIRE(r["scaling"].size() >= 5);
    CHECK(r["scaling"][0]["gpus"].get<double>() == 8);  // TP 8 and ZeRO-1 fit on one node
    const auto& c = r["scaling"];
    CHECK(c[0]["efficiency"].get<double>() == Approx(1.0));
    CHECK(c[c.size() - 1]["efficiency"].get<double>() < 0.95);
    for (std::size_t i = 1; i < c.size(); ++i)
        CHECK(c[i]["tokens_per_second"].get<double>() > c[i - 1]["tokens_per_second"].get<double>() * 0.99);
}

TEST_CASE("the scaling curve starts where the layout fits: no point for a GPU count that cannot hold the model") {
    // Llama 3 70B with the plan search's layout for 1,024 H100 (TP 8, ZeRO-3): on 8 to 64 GPUs the
    // sharded state does not fit in 80 GB; those counts are no points of the curve.
    json s = {{"model", {{"preset", "llama3-70b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}}},
              {"training", {{"tokens", 15e12}}},
              {"scaling", true}};
    auto r = run(s);
    REQUIRE(r["scaling"].size() >= 2);
    const json& in = r["inputs"];
    for (const auto& p : r["scaling"]) {
        json one = in;
        one["hardware"]["count"] = p["gpus"];
        one["training"]["dp"] = p["gpus"].get<double>() / (in["training"]["tp"].get<double>() * in["training"]["pp"].get<double>());
        one["training"]["global_batch"] = nullptr;
        one.erase("scaling");
        INFO(p["gpus"]);
        CHECK(run(one)["training"]["fits"] == true);
    }
    // One count below the curve's first does not fit.
    json below = in;
    below["hardware"]["count"] = r["scaling"][0]["gpus"].get<double>() / 2;
    below["training"]["dp"] =
        below["hardware"]["count"].get<double>() / (in["training"]["tp"].get<double>() * in["training"]["pp"].get<double>());
    below["training"]["global_batch"] = nullptr;
    below.erase("scaling");
    CHECK(run(below)["training"]["fits"] == false);
    CHECK(r["scaling"][0]["efficiency"].get<double>() == Approx(1.0));
}

TEST_CASE("memory decreases with ZeRO stage, TP, recomputation; fits flag follows capacity") {
    json s = {{"model", {{"preset", "llama2-70b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 64}}},
              {"training", {{"tokens", 1e12}, {"tp", 1}, {"zero", 0}, {"recompute", "none"}}}};
    const double m0 = run(s)["training"]["memory_per_gpu_bytes"]["total"].get<double>();
    s["training"]["zero"] = 3;
    const double m3 = run(s)["training"]["memory_per_gpu_bytes"]["total"].get<double>();
    s["training"]["recompute"] = "full";
    auto r = run(s);
    const double m3f = r["training"]["memory_per_gpu_bytes"]["total"].get<double>();
    CHECK(m3 < m0);
    CHECK(m3f < m3);
    CHECK(r["training"]["fits"] == (m3f <= 80e9));
}

// torchtitan's Dec-2024 benchmark setup: Llama 3 8B at 8K on 8 devices, FSDP, local batch 2.
static json torchtitan_llama3_8b(const char* device, const char* recompute) {
    return {{"model", {{"preset", "llama3-8b"}, {"seq_len", 8192}}},
            {"hardware", {{"device", device}, {"count", 8}}},
            {"training",
             {{"framework", "torchtitan"},
              {"tp", 1},
              {"pp", 1},
              {"dp", 8},
              {"micro_batch", 2},
              {"global_batch", 16},
              {"zero", 3},
              {"recompute", recompute},
              {"precision", "bf16"},
              {"layout", "given"}}}};
}

TEST_CASE("torchtitan eager (compile false): the element-wise bytes torch.compile fuses away") {
    // Llama 3 8B, 8 H200, one micro-batch of 2 x 8192 tokens per device, no recomputation. Eager
    // moves, per token per layer forward, 2 x 34 h (RMSNorm + residual add), 16 x (h + h/4) (RoPE on
    // Q and 8 KV heads' K) and 4 x 14,336 (SwiGLU) bytes more = 102 h; backward twice that.
    json s = torchtitan_llama3_8b("nvidia-h200-sxm-141gb", "none");
    auto compiled = run(s);
    s["training"]["compile"] = false;
    auto eager = run(s);
    REQUIRE_FALSE(eager.contains("errors"));
    const double h = 4096, tokens = 2 * 8192;
    const double extra = 32 * tokens * (2 * 34 * h + 16 * (h + h / 4) + 4 * 14336) * 3;
    const double bw = *find_device("nvidia-h200-sxm-141gb")->memory_bandwidth_bytes_per_second * 0.85;  // Hopper memory efficiency
    const double d = eager["training"]["step_breakdown_seconds"]["memory_bound"].get<double>() -
                     compiled["training"]["step_breakdown_seconds"]["memory_bound"].get<double>();
    CHECK(d == Approx(extra / bw).epsilon(1e-6));
    // Other frameworks are calibrated on their usual mode: no effect.
    s["training"]["framework"] = "megatron";
    const double m_eager = run(s)["training"]["step_seconds"].get<double>();
    s["training"]["compile"] = true;
    CHECK(run(s)["training"]["step_seconds"].get<double>() == Approx(m_eager));
}

TEST_CASE("torchtitan eager vs compiled: the published torch.compile speedup (torchtitan Dec-2024 Table 1)") {
    // benchmarks/llama3_h100_202412_torchtitan.md (pytorch/torchtitan 9dec370) Table 1: Llama 3.1 8B,
    // 8 H100 (500 W), FSDP, local batch 2, selective checkpointing: 5,762 tokens/s eager, 6,667 with
    // torch.compile (1.157x; Table 3, 128 GPUs: 1.162x). The counted bytes alone give the speedup.
    json s = torchtitan_llama3_8b("nvidia-h100-sxm5-80gb", "selective");
    const double compiled = run(s)["training"]["tokens_per_second_per_device"].get<double>();
    s["training"]["compile"] = false;
    const double eager = run(s)["training"]["tokens_per_second_per_device"].get<double>();
    CHECK(compiled / eager == Approx(6667.0 / 5762).epsilon(0.05));
}

TEST_CASE("expert parallelism: shards the routed experts, adds all-to-all time, validates its size") {
    // H200 (141 GB): without EP each device holds all of Mixtral's experts (weights + gradients 93 GB).
    json s = {{"model", {{"preset", "mixtral-8x7b"}, {"seq_len", 4096}}},
              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 64}}},
              {"training", {{"tokens", 1e12}, {"tp", 2}, {"global_batch", 512}, {"zero", 1}, {"fp32_gradients", false}}}};
    auto r1 = run(s);
    s["training"]["ep"] = 8;
    auto r8 = run(s);
    REQUIRE_FALSE(r8.contains("errors"));
    const double w1 = r1["training"]["memory_per_gpu_bytes"]["weights"].get<double>();
    const double w8 = r8["training"]["memory_per_gpu_bytes"]["weights"].get<double>();
    // Mixtral: 45.1B of its 46.7B parameters are routed experts; with EP 8 each GPU keeps 1/8 of them.
    const ModelSpec& m = *find_model_preset("mixtral-8x7b");
    const ParamCount pc = count_params(m);
    const double experts = 32 * 8 * 3.0 * 4096 * 14336;
    CHECK(w1 - w8 == Approx(2.0 * experts / 2 * (1 - 1.0 / 8)).epsilon(0.001));
    CHECK(pc.total > experts);
    CHECK(r1["training"]["step_breakdown_seconds"]["ep_comm"] == 0.0);
    CHECK(r8["training"]["step_breakdown_seconds"]["ep_comm"].get<double>() > 0);
    s["training"]["ep"] = 3;
    CHECK(has_error(run(s), "training.ep", "divisibility"));
    json dense = {
        {"model", {{"preset", "llama2-7b"}}}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"training", {{"ep", 2}}}};
    CHECK(has_error(run(dense), "training.ep", "range"));
}

TEST_CASE("the loss over the logits: the framework's counted bytes per logit at HBM bandwidth") {
    // Llama 3 8B, 8 H200, tp 2, one micro-batch of 8192 tokens per device. Doubling the vocabulary
    // adds 8192 x 128,256 / 2 logits per device, each moving 32 bytes under Megatron-Core's fused
    // cross entropy (22 forward, 10 backward) and 48 under torchtitan's eager F.cross_entropy on
    // fp32 logits; the per-layer memory-bound terms do not depend on the vocabulary.
    json s = {{"model", {{"preset", "llama3-8b"}, {"seq_len", 8192}}},
              {"hardware", {{"device", "nvidia-h200-sxm-141gb"}, {"count", 8}}},
              {"training",
               {{"framework", "megatron"},
                {"tp", 2},
                {"pp", 1},
                {"dp", 4},
                {"micro_batch", 1},
                {"global_batch", 4},
                {"zero", 1},
                {"recompute", "none"},
                {"precision", "bf16"},
                {"layout", "given"}}}};
    const double bw = *find_device("nvidia-h200-sxm-141gb")->memory_bandwidth_bytes_per_second * 0.85;  // Hopper memory efficiency
    const double logits = 8192.0 * 128256 / 2;
    for (const auto& [framework, bytes] : {std::pair{"megatron", 32.0}, std::pair{"torchtitan", 48.0}}) {
        INFO(framework);
        s["training"]["framework"] = framework;
        s["model"]["vocab"] = 128256;
        auto one = run(s);
        REQUIRE_FALSE(one.contains("errors"));
        s["model"]["vocab"] = 2 * 128256;
        auto two = run(s);
        REQUIRE_FALSE(two.contains("errors"));
        const double d = two["training"]["step_breakdown_seconds"]["memory_bound"].get<double>() -
                         one["training"]["step_breakdown_seconds"]["memory_bound"].get<double>();
        CHECK(d == Approx(bytes * logits / bw).epsilon(1e-6));
    }
}

namespace {
// Uneven stages (training_step.cpp stage_split): L layers on p stages that do not divide them put
// ceil((L + 2) / p) - 1 layers on the first and last stages and the rest on the middle ones. Each
// stage as a model of its own, evenly split over p stages: a middle stage (no output layer) and the
// last (with it).
std::pair<StepInputs, StepInputs> stage_stand_ins(const StepInputs& in, double L, Count p) {
    const double last = std::max(1.0, std::ceil((L + 2) / static_cast<double>(p)) - 1);
    const double middle = std::ceil((L - 2 * last) / static_cast<double>(p - 2));
    StepInputs im = in, il = in;
    im.layers = middle * static_cast<double>(p);
    im.vocab = 0;  // a middle stage: no output layer
    il.layers = last * static_cast<double>(p);
    return {im, il};
}
}  // namespace

TEST_CASE("uneven pipeline stages run at the slower of a middle stage and the last stage with the output layer, each timed alone") {
    // training_step.cpp stage_split / slowest_stage: with L layers on pp stages that do not divide
    // them, the first and last stages hold ceil((L + 2) / pp) - 1 layers and the middle ones the rest;
    // the last also runs the output layer. Each candidate is timed here as a model of its own (its
    // layers x pp, evenly split; the middle one without the output layer) and the estimate must be the
    // slower of the two: this also checks that the last stage's time, which slowest_stage scales from
    // the middle stage's, equals a full timing.
    int cases = 0, last_slower = 0;
    for (const char* preset : {"llama3.1-405b", "deepseek-v3", "bloom-176b", "mixtral-8x7b", "palm-540b"}) {
        const ModelSpec& m = *find_model_preset(preset);
        for (const bool fp8 : {false, true})
            for (const Count cp : {Count{1}, Count{4}})
                for (Count p = 3; p <= 24; p += 3) {
                    if (divides(m.layers, static_cast<double>(p))) continue;
                    TrainingConfig c;
                    c.tp = 8;
                    c.pp = p;
                    c.cp = cp;
                    c.dp = 4;
                    c.micro_batch = 1;
                    c.global_batch = 4 * 2 * p;
                    c.recompute = Recompute::selective;
                    c.precision = fp8 ? Precision::fp8 : Precision::bf16;
                    if (m.is_moe()) c.ep = 4;
                    StepInputs in = step_inputs(m);
                    if (cp > 1) in.seq = 65536;
                    Hardware hw;
                    hw.device = *find_device("nvidia-h100-sxm5-80gb");
                    hw.count = 8 * p * cp * 4;
                    hw.devices_per_node = 8;
                    const Efficiency e = training_efficiency(c, hw.device);
                    const auto [im, il] = stage_stand_ins(in, m.layers, p);
                    const double t_mid = estimate_step(im, hw, c, e).microbatch_seconds;
                    const double t_last = estimate_step(il, hw, c, e).microbatch_seconds;
                    const StepEstimate s = estimate_step(in, hw, c, e);
                    INFO(preset << " pp " << p << " cp " << cp << " fp8 " << fp8);
                    CHECK(s.microbatch_seconds == Approx(std::max(t_mid, t_last)).epsilon(1e-9));
                    CHECK(s.output_layer_on_slowest_stage == (t_last > t_mid));
                    ++cases;
                    last_slower += t_last > t_mid;
                }
    }
    CHECK(cases > 100);
    CHECK(last_slower > 10);  // both candidates occur
    CHECK(last_slower < cases - 10);
}

TEST_CASE("under the combined 1F1B schedule uneven stages run at the slower stage's step share, its bubble at the whole micro-batch time") {
    // The same stand-ins as above, with the all-to-all overlapped (training.overlap_moe_comm): a
    // stage's share of the step is m x (its micro-batch time less the hidden all-to-all) + the bubble
    // at its whole micro-batch time (microbatches_in_step), so the stage to time is the one whose
    // share is larger, not the one whose micro-batch is slower after hiding. (The two orders agree on
    // this grid and on every published run: the middle stage hides more, having more MoE layers; they
    // part only where the output layer outweighs the extra layers' unhidden time.)
    int cases = 0, last_slower = 0;
    for (const char* preset : {"deepseek-v3", "mixtral-8x7b", "qwen3-235b-a22b"}) {
        const ModelSpec* mp = find_model_preset(preset);
        REQUIRE(mp != nullptr);
        const ModelSpec& m = *mp;
        for (const Count p : {Count{3}, Count{5}, Count{6}, Count{7}, Count{9}, Count{12}})
            for (const Count mbs : {Count{1}, Count{2}, Count{8}})
                for (const Count ep : {Count{8}, Count{32}}) {
                    if (divides(m.layers, static_cast<double>(p))) continue;
                    TrainingConfig c;
                    c.tp = 2;
                    c.pp = p;
                    c.vpp = 2;
                    c.dp = ep;
                    c.ep = ep;
                    c.micro_batch = 1;
                    c.global_batch = ep * mbs * p;
                    c.recompute = Recompute::selective;
                    c.overlap_moe_comm = true;
                    StepInputs in = step_inputs(m);
                    Hardware hw;
                    hw.device = *find_device("nvidia-h100-sxm5-80gb");
                    hw.count = 2 * p * ep;
                    hw.devices_per_node = 8;
                    const Efficiency e = training_efficiency(c, hw.device);
                    const auto [im, il] = stage_stand_ins(in, m.layers, p);
                    const auto share = [](const StepEstimate& s) { return s.microbatches * s.microbatch_seconds + s.step.pp_bubble; };
                    const StepEstimate sm = estimate_step(im, hw, c, e), sl = estimate_step(il, hw, c, e);
                    const StepEstimate s = estimate_step(in, hw, c, e);
                    INFO(preset << " pp " << p << " microbatches " << mbs << " ep " << ep);
                    REQUIRE(s.step.ep_comm > 0.0);
                    CHECK(share(s) == Approx(std::max(share(sm), share(sl))).epsilon(1e-9));
                    CHECK(s.output_layer_on_slowest_stage == (share(sl) > share(sm)));
                    ++cases;
                    last_slower += share(sl) > share(sm);
                }
    }
    CHECK(cases >= 12);
    CHECK(last_slower > 0);
    CHECK(last_slower < cases);
}

TEST_CASE("a mixed fleet's memory parts add up to its total; a run that does not fit quotes no step") {
    // A red team: a fleet reported every part of memory_per_gpu_bytes as 0 beside a 77.4 GB total,
    // and a run that does not fit, with training.mfu given, still quoted "the step (79.7 s) ... MFU".
    const json fleet = run({{"model", {{"preset", "llama3-8b"}}},
                            {"hardware",
                             {{"pools", json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}, {"site", "a"}},
                                                     {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 16}, {"site", "b"}}})}}},
                            {"training", {{"tokens", 1e11}}}});
    REQUIRE_FALSE(fleet.contains("errors"));
    const json& m = fleet["training"]["memory_per_gpu_bytes"];
    double parts = 0;
    for (const auto& [k, v] : m.items())
        if (k != "total") parts += v.get<double>();
    CHECK(m["weights"].get<double>() > 0);
    CHECK(parts == Approx(m["total"].get<double>()));
    const json big = run({{"model", {{"preset", "llama3-70b"}}},
                          {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                          {"training", {{"tokens", 1e12}, {"mfu", 0.4}, {"tp", 1}, {"pp", 1}}}});
    REQUIRE(big["training"]["fits"] == false);
    CHECK(big["training"]["days"].is_null());
    CHECK(big["warnings"].dump().find("the step (") == std::string::npos);
}

TEST_CASE("experts folded to expert_tp 1 where ep does not divide dp x cp are said; sharded experts are not") {
    const auto has_warning = [](const json& r, const std::string& text) { return r["warnings"].dump().find(text) != std::string::npos; };
    // A red team: gpt-oss-20b on 32 A100, tp 8, pp 2 (dp 2): ep 2 -> 4 switched the experts' tensor
    // parallelism from 8 to 1 (ep no longer divides dp x cp), weights per GPU 1.42 -> 5.0 GB, silently.
    json s = {{"model", {{"preset", "gpt-oss-20b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 32}}},
              {"training", {{"tokens", 1e11}, {"tp", 8}, {"pp", 2}, {"ep", 4}}}};
    const json folded = run(s);
    REQUIRE_FALSE(folded.contains("errors"));
    CHECK(folded["inputs"]["training"]["expert_tp"] == 1);
    CHECK(has_warning(folded, "training.expert_tp is 1: ep (4) does not divide dp x cp (2)"));
    s["training"]["ep"] = 2;  // divides dp x cp: the experts keep tp 8
    const json sharded = run(s);
    CHECK_FALSE(has_warning(sharded, "training.expert_tp is 1"));
    CHECK(sharded["training"]["memory_per_gpu_bytes"]["weights"].get<double>() <
          folded["training"]["memory_per_gpu_bytes"]["weights"].get<double>());
    s["training"]["ep"] = 4;
    s["training"]["expert_tp"] = 4;  // sharded, as given (ep x expert_tp divides dp x cp x tp)
    const json given = run(s);
    REQUIRE_FALSE(given.contains("errors"));
    CHECK_FALSE(has_warning(given, "training.expert_tp is 1"));
}

TEST_CASE("the dp x cp gradient group inside one node never goes through the network card") {
    // Megatron-Core's rank order tp-cp-dp-pp puts a data-parallel rank's CP ranks tp apart and the
    // next data-parallel rank's after them, so the group that reduces the gradients (dp x cp ranks)
    // has D / tp ranks in a node of D devices. Taken tp x cp apart, MPT-7B on 2 H100 with cp 2 and
    // ZeRO-3 ran its 26.6 GB of gathers per micro-batch (8 B x 6.65e9 parameters / 2) over the NIC:
    // 2,983 tokens/s at the default 50 GB/s NIC, 62 at 1 GB/s. Over NVLink (450 GB/s x 0.8) they take
    // 0.074 s, hidden behind the micro-batch's compute: the answer does not depend on the NIC.
    json s = {
        {"model", {{"preset", "mpt-7b"}}},
        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
        {"training",
         {{"tokens", 1e11}, {"tp", 1}, {"pp", 1}, {"cp", 2}, {"zero", 3}, {"global_batch", 512}, {"micro_batch", 1}, {"goodput", 1}}}};
    const json base = run(s);
    REQUIRE_FALSE(base.contains("errors"));
    s["hardware"]["scale_out_bytes_per_second"] = 1e9;
    const json slow_nic = run(s);
    CHECK(slow_nic["training"]["tokens_per_second"].get<double>() == Approx(base["training"]["tokens_per_second"].get<double>()));
    CHECK(base["training"]["step_breakdown_seconds"]["dp_comm"].get<double>() == 0.0);
    // One node of 8 with tp 2 x cp 2 and ZeRO-1: the four ranks of each gradient group share the node.
    json z1 = {
        {"model", {{"preset", "llama3-8b"}, {"seq_len", 32768}}},
        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
        {"training",
         {{"tokens", 1e11}, {"tp", 2}, {"pp", 1}, {"cp", 2}, {"zero", 1}, {"global_batch", 64}, {"micro_batch", 1}, {"goodput", 1}}}};
    const double fast = run(z1)["training"]["tokens_per_second"].get<double>();
    z1["hardware"]["scale_out_bytes_per_second"] = 1e9;
    CHECK(run(z1)["training"]["tokens_per_second"].get<double>() == Approx(fast));
}

TEST_CASE("torchtitan context parallelism exchanges the repeated K/V: all-gathered per pass, fp32 gradients on a ring") {
    // Llama 3 70B (80 layers, 64 heads, 8 KV heads, head dim 128) on 2 nodes of 8 H100, tp 8 x cp 2,
    // 65,536 tokens, full recomputation. torchtitan repeats K/V to all 64 heads before attention
    // (models/llama/model.py repeat_kv), so one rank's K and V are 2 B x 32,768 tokens x 2 x 64 x 128
    // / 8 = 134,217,728 B. The CP peers sit in different nodes: 50 GB/s NIC x network efficiency 0.8.
    // torch's context_parallel (experimental/_attention.py): the all-gather of the other rank's chunk
    // (3.4 ms) hides behind the first block of each forward (a quarter of the layer's 17 ms forward
    // attention here), the backward's K/V gradients (fp32: 2 x the chunk) go to the next rank after
    // each block and the last is waited for: 2 x 134,217,728 B / 40 GB/s + 20 us collective latency
    // per layer, 80 layers.
    json s = {{"model", {{"preset", "llama3-70b"}, {"seq_len", 65536}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
              {"training",
               {{"framework", "torchtitan"},
                {"tp", 8},
                {"pp", 1},
                {"cp", 2},
                {"dp", 1},
                {"micro_batch", 1},
                {"global_batch", 1},
                {"recompute", "full"},
                {"zero", 3},
                {"goodput", 1},
                {"tokens", 1e9},
                {"sequence_parallel", true},
                // (FSDP's root unit held gathered puts the default 1 GiB overhead 0.3 GiB over the
                // device; this test is about the exchange, not the fit.)
                {"overhead_bytes", 0.5 * 1073741824.0}}}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["training"]["fits"] == true);
    const double chunk = 2.0 * 32768 * 2 * 64 * 128 / 8;
    const double link = 50e9 * 0.8, latency = 20e-6;
    const json& t = r["training"]["step_breakdown_seconds"];
    CHECK(t["cp_comm"].get<double>() == Approx(80 * (2 * chunk / link + latency)));
    // The forward hides the gather: the layer's forward attention over cp exceeds it.
    const double fwd = t["attention"].get<double>() / (80 * 4.5);
    CHECK(fwd / 2 > chunk / link + latency);
    // On a 10x slower network the gathers outlast their blocks: each of the forward, the recomputed
    // forward and the backward exposes what its first block does not hide, and every gradient send
    // what the next block does not.
    s["hardware"]["scale_out_bytes_per_second"] = 5e9;
    const json slow = run(s);
    REQUIRE_FALSE(slow.contains("errors"));
    const double slow_link = 5e9 * 0.8, gather = chunk / slow_link + latency, grad = 2 * chunk / slow_link + latency;
    const double f = slow["training"]["step_breakdown_seconds"]["attention"].get<double>() / (80 * 4.5), b = 2.5 * f;
    const double per_layer = 2 * std::max(0.0, gather - f / 2) + std::max(0.0, gather - b / 2) + std::max(0.0, grad - b / 2) + grad;
    CHECK(slow["training"]["step_breakdown_seconds"]["cp_comm"].get<double>() == Approx(80 * per_layer));
    // Megatron-Core's ring (Transformer Engine) passes the 8 KV heads only, each block hiding the next
    // chunk (20 of the layers, so that Megatron's fp32 gradients and optimizer fit in 80 GB).
    s["training"]["framework"] = "megatron";
    s["model"]["layers"] = 20;
    s["hardware"].erase("scale_out_bytes_per_second");
    const json mc = run(s);
    REQUIRE_FALSE(mc.contains("errors"));
    CHECK(mc["training"]["step_breakdown_seconds"]["cp_comm"].get<double>() / 20 < t["cp_comm"].get<double>() / 80 / 8);
}

// ZeRO-3 with experts parallel inside a node: the ranks holding the same experts (the
// expert-data-parallel group, Megatron-Core's expert rank order tp-ep-dp) are ep = 8 apart, one per
// node, so a node's 8 GPUs gather 8 different expert shards: each GPU's share crosses its own NIC,
// (n-1)/n x its expert bytes at the NIC's line rate at least, where the dense weights (all 8 GPUs of
// a node in one group) cross the node's 8 NICs once. The old model sent the experts through the
// dense group (1/8 of that time): GPT-4-sized runs on A100 came out with no exposed traffic.
TEST_CASE("ZeRO-3 gathers the routed experts over their expert-data-parallel group, one GPU per node, at that GPU's NIC") {
    const double nic = 50e9;  // bytes/s per GPU (400 Gb/s)
    const json s = {{"model", {{"preset", "mixtral-8x7b"}, {"seq_len", 4096}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}, {"scale_out_bytes_per_second", nic}}},
                    {"training",
                     {{"tokens", 1e12},
                      {"tp", 1},
                      {"pp", 1},
                      {"dp", 64},
                      {"ep", 8},
                      {"zero", 3},
                      {"micro_batch", 1},
                      {"global_batch", 64},
                      {"recompute", "none"},
                      {"overlap_dp_comm", false}}}};
    const json t = run(s)["training"];
    REQUIRE(t["fits"].get<bool>());
    const ModelSpec& m = *find_model_preset("mixtral-8x7b");
    const double experts = 32 * 8 * 3.0 * 4096 * 14336 / 8;  // routed experts held per GPU (EP 8)
    // Dense: the rest less the final norm's 4,096 (not in the stages' per-layer and embedding
    // parameters the reduction sizes; 0.00001 % of them).
    const double dense = count_params(m).total - 32 * 8 * 3.0 * 4096 * 14336 - 4096;
    const double per_param = 2 + 2 + 4;  // gather bf16 forward and backward, reduce-scatter fp32 gradients
    // Dense over dp 64, experts over 64 / 8 = 8 expert-data-parallel ranks; one micro-batch per step.
    CHECK(t["dp_comm_bytes_per_step"].get<double>() == Approx(per_param * (dense * 63 / 64 + experts * 7 / 8)).epsilon(1e-9));
    CHECK(t["step_breakdown_seconds"]["dp_comm"].get<double>() >= per_param * experts * 7 / 8 / nic);
}

// Hybrid sharding (shard_group 8) with EP 8: the experts' expert-data-parallel group is 64 / 8 = 8
// ranks, sharded over max(1, 8 x 1 / 8) = 1, so their fp32 gradients (4 B) are all-reduced whole
// across its 8 replicas: 2 x 7/8 x 4 x experts. The dense part reduce-scatters inside its group of 8
// (ZeRO-1: 4 B gradients + 2 B weights, 7/8 of them) and all-reduces its shard across 8 replicas.
// The red team found the experts charged at 1/8 of their gradients.
TEST_CASE("hybrid sharding all-reduces the routed experts over their own replicas") {
    const json t = run(
        json{{"model", {{"preset", "mixtral-8x7b"}}},
             {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
             {"training",
              {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}, {"ep", 8}, {"zero", 1}, {"shard_group", 8}, {"recompute", "full"}}}})["training"];
    const ModelSpec& m = *find_model_preset("mixtral-8x7b");
    const double experts = 32 * 8 * 3.0 * 4096 * 14336 / 8;
    const double dense = count_params(m).total - 8 * experts - 4096;  // the final norm: see above
    const double expected = (4 + 2) * dense * 7 / 8 + 2 * (dense * 4 / 8) * 7 / 8 + 2 * (experts * 4) * 7 / 8;
    CHECK(t["dp_comm_bytes_per_step"].get<double>() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("a plan's HFU is the training estimate's for the same layout") {
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                    {"training", {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}, {"zero", 1}, {"micro_batch", 1}, {"recompute", "full"}}}};
    json q = s;
    q["plan"] = {{"top_k", 1}};
    const json p = json::parse(gpucalc::plan_json(q.dump()))["plan"]["best"][0];
    const json t = run(s)["training"];
    CHECK(p["hfu"].get<double>() == Approx(t["hfu"].get<double>()).epsilon(1e-9));
    CHECK(p["hfu"].get<double>() > p["mfu"].get<double>());  // recomputation counted
}
