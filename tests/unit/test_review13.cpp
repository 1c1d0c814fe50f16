// Fixes of 2026-12-06 (review 13): derivations ("show the work") whose figure could not be recomputed
// from their own values, and figures with none. Each test recomputes the figure from the derivation's
// own values and compares it with the reported figure.
#include <algorithm>
#include <cmath>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json explained(json scenario) {
    scenario["explain"] = true;
    const json r = run(scenario);
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

json derivation_of(const json& report, const std::string& key) {
    INFO(key);
    REQUIRE(report["explain"].contains(key));
    return report["explain"][key];
}

double result(const json& d) { return d["result"].get<double>(); }

// One ring collective over n ranks, r of them per node, of `bytes` per rank, as the tp_comm derivation
// states it (f = 2: an all-reduce).
double ring(const json& d, double f, double bytes, double n) {
    const double r = std::min(n, derivation_value(d, "devices_per_node")), ne = derivation_value(d, "network_efficiency");
    double t = (n - 1.0) / n * bytes / (derivation_value(d, "scale_up") * ne);
    if (r < n) t = std::max(t, (n - r) / (n * r) * bytes / (derivation_value(d, "scale_out") * ne));
    return f * t +
           (r >= n ? derivation_value(d, "collective_latency") : derivation_value(d, "scale_out_latency")) * std::ceil(std::log2(n));
}

}  // namespace

TEST_CASE("training tp_comm's derivation lists the tokens, width, bandwidths and ring times it multiplies, and they give the figure") {
    // Review 13: the formula named tokens, hidden size and bandwidths its values did not list. TP 2 in a
    // node and TP 16 across two nodes of 8 H100.
    for (const int tp : {2, 16}) {
        const json s = {{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                        {"training", {{"tokens", 1e11}, {"tp", tp}, {"dp", 16 / tp}}}};
        const json d = derivation_of(explained(s), "training.step_breakdown_seconds.tp_comm");
        INFO("tp " << tp << ": " << d.dump());
        const double per_layer = 2.0 + derivation_value(d, "recompute") + derivation_value(d, "sequence_parallel") / 2.0;
        CHECK(result(d) == Approx(derivation_value(d, "microbatches") * (1.0 - derivation_value(d, "tp_overlap")) *
                                  derivation_value(d, "layers_on_slowest_stage") * per_layer *
                                  (derivation_value(d, "ring_attention") + derivation_value(d, "ring_mlp")))
                               .epsilon(1e-9));
        // A dense model: the MLP's all-reduce is the attention block's, a ring of 2 x tokens x hidden bytes.
        const double bytes = 2.0 * derivation_value(d, "tokens") * derivation_value(d, "hidden");
        CHECK(derivation_value(d, "ring_attention") == Approx(ring(d, 2.0, bytes, derivation_value(d, "tp"))).epsilon(1e-9));
        CHECK(derivation_value(d, "ring_mlp") == Approx(derivation_value(d, "ring_attention")).epsilon(1e-12));
        CHECK(result(d) > 0);
    }
}

TEST_CASE("training dp_comm's derivation shows the collectives before overlap and the compute they hide behind, and they give the figure") {
    // Review 13: "max(0, reduce - dp_overlap x compute)" with no compute among the values. ZeRO 1, ZeRO 2
    // over several micro-batches, FSDP, hybrid sharding, and the overlap off.
    const json base = {{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 32}}}};
    std::vector<json> trainings = {{{"zero", 1}},
                                   {{"zero", 2}, {"global_batch", 256}},
                                   {{"zero", 3}},
                                   {{"zero", 3}, {"shard_group", 8}},
                                   {{"zero", 1}, {"overlap_dp_comm", false}}};
    bool some_hidden = false;
    for (json t : trainings) {
        t["tokens"] = 1e11, t["dp"] = 32, t["micro_batch"] = 1, t["recompute"] = "full";
        json s = base;
        s["training"] = t;
        const json r = explained(s);
        const json d = derivation_of(r, "training.step_breakdown_seconds.dp_comm");
        INFO(t.dump() << ": " << d.dump());
        const double hpc = derivation_value(d, "hidden_per_collective"), once = derivation_value(d, "hidden_once");
        const double fig = derivation_value(d, "collectives") * std::max(0.0, derivation_value(d, "collective") - hpc) +
                           derivation_value(d, "earlier") * std::max(0.0, derivation_value(d, "reduce_scatter") - once) +
                           std::max(0.0, derivation_value(d, "hybrid_allreduce") - once) + derivation_value(d, "exposed_across_sites");
        CHECK(result(d) == Approx(fig).epsilon(1e-9).margin(1e-15));
        CHECK(result(d) == Approx(r["training"]["step_breakdown_seconds"]["dp_comm"].get<double>()).epsilon(1e-12).margin(1e-15));
        const double overlap = derivation_value(d, "overlap_dp_comm"), compute = derivation_value(d, "compute_per_microbatch");
        CHECK(once == Approx(overlap * derivation_value(d, "dp_overlap") * compute).epsilon(1e-12).margin(1e-15));
        CHECK(hpc == Approx(overlap * derivation_value(d, derivation_value(d, "zero") >= 3 ? "fsdp_overlap" : "dp_overlap") * compute)
                         .epsilon(1e-12)
                         .margin(1e-15));
        // The compute is the step's, per micro-batch (training.step_seconds lists its parts).
        const json st = derivation_of(r, "training.step_seconds");
        CHECK(compute == Approx((derivation_value(st, "gemm") + derivation_value(st, "attention") + derivation_value(st, "memory_bound") +
                                 derivation_value(st, "overhead")) /
                                derivation_value(st, "microbatches"))
                             .epsilon(1e-9));
        CHECK(derivation_value(d, "collective") > 0);
        some_hidden = some_hidden || hpc > 0;
    }
    CHECK(some_hidden);
}

TEST_CASE("inference prefill_seconds' derivation lists its compute, weight pass, kernel time and latencies, which give the figure") {
    // Review 13: the derivation listed the prompt tokens, the cache hit rate and the draft's factor only.
    const json dense = {{"model", {{"preset", "llama3-8b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
                        {"inference", {{"tp", 2}, {"prompt_tokens", 2000}, {"output_tokens", 200}}}};
    const json moe = {{"model", {{"preset", "mixtral-8x7b"}}},
                      {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2}}},
                      {"inference", {{"tp", 2}, {"prompt_tokens", 16}, {"output_tokens", 200}}}};
    json draft = dense;
    draft["inference"]["speculative"] = {{"draft_params", 1e9}, {"draft_tokens", 4}, {"acceptance_rate", 0.7}};
    for (const json& s : {dense, moe, draft}) {
        const json r = explained(s);
        const json d = derivation_of(r, "inference.prefill_seconds");
        INFO(d.dump());
        const double fig = (std::max(derivation_value(d, "compute"), derivation_value(d, "weights_pass")) + derivation_value(d, "kernels") +
                            derivation_value(d, "tp_latency") + derivation_value(d, "ep_latency")) *
                           derivation_value(d, "draft_prefill_factor");
        CHECK(result(d) == Approx(fig).epsilon(1e-12));
        CHECK(result(d) == r["inference"]["prefill_seconds"].get<double>());
    }
    CHECK(derivation_value(derivation_of(explained(draft), "inference.prefill_seconds"), "draft_prefill_factor") > 1);
}

TEST_CASE("fine-tuning's trainable parameters show the sum of d_in + d_out over the adapted matrices") {
    // Review 13: "rank x sum(d_in + d_out) x layers" with only the rank and the layers listed.
    // Llama 3 8B, q and v: (4096 + 4096) + (4096 + 8 x 128) = 13,312 per layer.
    const json s = {{"model", {{"preset", "llama3-8b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                    {"finetune", {{"method", "lora"}, {"lora_modules", "qv"}, {"lora_rank", 16}, {"tokens", 1e8}}}};
    const json r = explained(s);
    const json d = derivation_of(r, "finetune.trainable_params");
    CHECK(derivation_value(d, "d_in_plus_d_out") == 13312);
    CHECK(result(d) == derivation_value(d, "rank") * derivation_value(d, "d_in_plus_d_out") * derivation_value(d, "layers"));
    CHECK(result(d) == r["finetune"]["trainable_params"].get<double>());
    for (const char* modules : {"all_linear", "attention"}) {
        json m = s;
        m["finetune"]["lora_modules"] = modules;
        const json e = derivation_of(explained(m), "finetune.trainable_params");
        CHECK(result(e) ==
              Approx(derivation_value(e, "rank") * derivation_value(e, "d_in_plus_d_out") * derivation_value(e, "layers")).epsilon(1e-12));
    }
    json full = s;
    full["finetune"] = {{"method", "full"}, {"tokens", 1e8}};
    const json f = derivation_of(explained(full), "finetune.trainable_params");
    CHECK(result(f) == derivation_value(f, "params"));
}

TEST_CASE("fine-tuning's largest batch and sequence each have a derivation whose values give them") {
    // Review 13: max_batch and max_seq_len came with none. LoRA on one H100 and on an RTX 4090 (a run
    // that does not fit at its own batch), full fine-tuning with paged 8-bit AdamW.
    const json lora = {{"model", {{"preset", "llama3-8b"}}},
                       {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                       {"finetune", {{"method", "lora"}, {"tokens", 1e8}}}};
    json small = lora;
    small["hardware"] = {{"device", "nvidia-rtx-4090"}, {"count", 1}};
    json paged = lora;
    paged["finetune"] = {{"method", "full"}, {"optimizer", "paged_adamw_8bit"}, {"tokens", 1e8}};
    paged["hardware"]["count"] = 4;
    for (const json& s : {lora, small, paged}) {
        const json r = explained(s);
        const json b = derivation_of(r, "finetune.max_batch"), q = derivation_of(r, "finetune.max_seq_len");
        INFO(b.dump());
        const double room = derivation_value(b, "capacity") - (derivation_value(b, "fixed") - derivation_value(b, "pageable")) -
                            derivation_value(b, "overhead");
        CHECK(derivation_value(b, "room") == Approx(room).epsilon(1e-12));
        double best = INFINITY;
        bool none = false;
        for (const char* p : {"loss", "backward_start", "backward_end"}) {
            const double per = derivation_value(b, std::string(p) + "_per_token"), fixed = derivation_value(b, std::string(p) + "_fixed");
            none = none || fixed >= room;
            if (per > 0) best = std::min(best, (room - fixed) / per);
        }
        double tokens = none || !std::isfinite(best) ? 0.0 : std::floor(best);
        if (derivation_value(b, "fits") == 1) tokens = std::max(tokens, derivation_value(b, "s") * derivation_value(b, "b"));
        CHECK(derivation_value(b, "max_tokens") == tokens);
        CHECK(result(b) == (tokens > 0 ? std::floor(tokens / derivation_value(b, "s")) : 0.0));
        CHECK(result(q) == tokens);
        CHECK(result(b) == r["finetune"]["max_batch"].get<double>());
        CHECK(result(q) == r["finetune"]["max_seq_len"].get<double>());
        CHECK_FALSE(b["source"].get<std::string>().empty());
    }
    // A learned position table (GPT-3) grows with the sequence: the longest one is solved from two lengths.
    const json gpt = explained({{"model", {{"preset", "gpt3-175b"}}},
                                {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                                {"finetune", {{"method", "qlora"}}}});
    const json q = derivation_of(gpt, "finetune.max_seq_len");
    INFO(q.dump());
    CHECK(derivation_value(q, "T") == derivation_value(q, "max_tokens"));
    CHECK(derivation_value(q, "T1") == std::floor(derivation_value(q, "T") / 2));
    const double slope =
        (derivation_value(q, "need_T") - derivation_value(q, "need_T1")) / (derivation_value(q, "T") - derivation_value(q, "T1"));
    const double solved =
        std::floor(derivation_value(q, "T1") + (derivation_value(q, "capacity") - derivation_value(q, "need_T1")) / slope);
    CHECK(result(q) <= solved);
    CHECK(result(q) >= solved - 4);  // stepped down at most 4 times
    CHECK(result(q) < derivation_value(q, "T"));
    CHECK(result(q) == gpt["finetune"]["max_seq_len"].get<double>());
}

TEST_CASE("a mixed fleet's cluster sums, energy, CO2 and goodput each have a derivation whose values give them") {
    // Review 13: of a fleet's cluster figures only the devices and the memory had a derivation (with the
    // pool count alone among their values), and its energy, CO2 and goodput none.
    const json s = {{"model", {{"preset", "llama2-70b"}}},
                    {"hardware",
                     {{"pools",
                       {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}, {"site", "a"}},
                        {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 32}, {"site", "a"}}}}}},
                    {"training", {{"tokens", 1e11}}}};
    const json r = explained(s);
    const json& e = r["explain"];
    // Every number of the cluster section has a derivation, and its values (each pool's figure) sum to it.
    int sums = 0;
    for (const auto& [name, v] : r["cluster"].items()) {
        if (v.is_object()) {
            for (const auto& [prec, p] : v.items()) {
                if (!p.is_number()) continue;
                const json d = derivation_of(r, "cluster." + name + "." + prec);
                double sum = 0;
                for (const auto& [k, x] : d["values"].items()) sum += x.get<double>();
                CHECK(result(d) == Approx(sum).epsilon(1e-12));
                CHECK(result(d) == p.get<double>());
                ++sums;
            }
            continue;
        }
        if (!v.is_number()) continue;
        const json d = derivation_of(r, "cluster." + name);
        CHECK(result(d) == v.get<double>());
        if (name == "facility_power_watts") continue;  // power x PUE, checked below
        double sum = 0;
        for (const auto& [k, x] : d["values"].items()) sum += x.get<double>();
        CHECK(d["values"].size() == 2);
        CHECK(result(d) == Approx(sum).epsilon(1e-12));
        ++sums;
    }
    CHECK(sums >= 8);
    const json en = derivation_of(r, "training.energy_kwh");
    const double energy = (derivation_value(en, "pools[0].gpu_hours") * derivation_value(en, "pools[0].tdp_watts") +
                           derivation_value(en, "pools[1].gpu_hours") * derivation_value(en, "pools[1].tdp_watts")) /
                          1000.0 * derivation_value(en, "pue");
    CHECK(result(en) == Approx(energy).epsilon(1e-12));
    CHECK(result(en) == r["training"]["energy_kwh"].get<double>());
    // The pools' GPU-hours are the run's.
    CHECK(derivation_value(en, "pools[0].gpu_hours") + derivation_value(en, "pools[1].gpu_hours") ==
          Approx(r["training"]["gpu_hours"].get<double>()).epsilon(1e-12));
    const json co2 = derivation_of(r, "training.co2_kg");
    CHECK(result(co2) == Approx(derivation_value(co2, "energy_kwh") * derivation_value(co2, "grid_kg_co2_per_kwh")).epsilon(1e-12));
    CHECK(result(co2) == r["training"]["co2_kg"].get<double>());
    const json g = derivation_of(r, "training.goodput");
    const double mtbf = 3600.0 / derivation_value(g, "failures_per_hour"), ck = derivation_value(g, "checkpoint_seconds"),
                 interval = std::sqrt(2.0 * ck * mtbf);
    CHECK(derivation_value(g, "checkpoint_interval_seconds") == Approx(interval).epsilon(1e-12));
    CHECK(result(g) ==
          Approx(1.0 / (1.0 + ck / interval + (interval / 2.0 + derivation_value(g, "restart_seconds")) / mtbf)).epsilon(1e-12));
    CHECK(result(g) == r["training"]["goodput"].get<double>());
    CHECK(e.contains("cluster.devices"));
}

TEST_CASE("training tp_comm's derivation of an MoE model gives its MLP ring from the attention's and the routed experts' rings") {
    // Mixtral 8x7B, TP 2: the routed experts gather their top-2 copies over expert_tp ranks (expert_tp 2;
    // none with EP 8 and expert_tp 1 given).
    for (const int ep : {1, 8}) {
        const json s = {
            {"model", {{"preset", "mixtral-8x7b"}}},
            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 32}}},
            {"training", {{"tokens", 1e11}, {"tp", 2}, {"dp", 16}, {"ep", ep}, {"zero", 3}, {"micro_batch", 1}, {"recompute", "full"}}}};
        json t = s;
        if (ep > 1) t["training"]["expert_tp"] = 1;
        const json d = derivation_of(explained(t), "training.step_breakdown_seconds.tp_comm");
        INFO("ep " << ep << ": " << d.dump());
        const double f = derivation_value(d, "moe_layer_fraction"), ra = derivation_value(d, "ring_attention");
        CHECK(f > 0);
        CHECK(derivation_value(d, "ring_mlp") ==
              Approx((1.0 - f) * ra + f * ((derivation_value(d, "shared_experts") > 0 ? ra : 0.0) + derivation_value(d, "ring_routed")))
                  .epsilon(1e-12));
        const double bytes = 2.0 * derivation_value(d, "tokens") * derivation_value(d, "hidden"), et = derivation_value(d, "expert_tp");
        const double routed =
            et > 1 ? ring(d, 2.0, bytes * derivation_value(d, "experts_per_token") * et / derivation_value(d, "tp"), et) : 0.0;
        CHECK(derivation_value(d, "ring_routed") == Approx(routed).epsilon(1e-9));
        CHECK((ep == 1 ? et == 2 : et == 1));
    }
}
