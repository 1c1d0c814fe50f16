// Fixes of 2026-12-06 (the twelfth red team: inverse answers, mixed fleets, pools). Each test states what was shown before.
#include "helpers.hpp"

using nlohmann::json;

namespace {

json h100_pools(const json& pools, const json& work) {
    json s = {{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"pools", pools}}}, {"explain", false}};
    s.update(work);
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

json h100(double count, double usd) { return {{"device", "nvidia-h100-sxm5-80gb"}, {"count", count}, {"gpu_hour_usd", usd}}; }

}  // namespace

TEST_CASE("pools of one device are priced at their own rents in training, serving, fine-tuning and inverse answers") {
    // One pool of 8 H100 at $2/h: the cluster's rent said $16/h, while training, serving and
    // fine-tuning priced the hours at the catalog's $2.69 (training.gpu_hour_usd 2.69) and a $10,000
    // budget bought 465 hours instead of 625.
    const json pool = json::array({h100(8, 2)});
    const json t = h100_pools(pool, {{"training", {{"tokens", 1e10}}}})["training"];
    CHECK(t["gpu_hour_usd"] == 2.0);
    CHECK(t["cost_usd"].get<double>() == Approx(t["gpu_hours"].get<double>() * 2).epsilon(1e-12));
    CHECK(h100_pools(pool, {{"inference", {{"requests_per_day", 1e6}}}})["inference"]["gpu_hour_usd"] == 2.0);
    CHECK(h100_pools(pool, {{"finetune", {{"method", "lora"}, {"tokens", 1e8}}}})["finetune"]["gpu_hour_usd"] == 2.0);
    const json a = h100_pools(pool, {{"inverse", {{"question", "what_can_train"}, {"budget_usd", 1e4}}}})["inverse"];
    CHECK(a["seconds"].get<double>() == Approx(1e4 / (8 * 2.0) * 3600).epsilon(1e-12));
    // Two pools at $2 and $3 (run as one device type: every device held for the whole run): $2.50.
    const json two = h100_pools(json::array({h100(8, 2), h100(8, 3)}), {{"training", {{"tokens", 1e10}}}});
    CHECK(two["training"]["gpu_hour_usd"].get<double>() == Approx(2.5).epsilon(1e-12));
    CHECK(two["training"]["cost_usd"].get<double>() == Approx(two["training"]["gpu_hours"].get<double>() * 40 / 16).epsilon(1e-12));
    CHECK(two["cluster"]["cloud_usd_per_hour"] == 40.0);
}

TEST_CASE("pools of one device sharing a site are whole nodes of the site, as the training estimate runs them") {
    // Two pools of 4 H100 in one site run as one 8-GPU node (the single-device model); the cluster
    // had counted 2 nodes, 20.4 kW of node power and 24.5 kW of facility power.
    json half = h100(4, 2);
    half.erase("gpu_hour_usd");
    const json r = h100_pools(json::array({half, half}), {{"training", {{"tokens", 1e10}}}});
    const json one = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"explain", false}});
    CHECK(r["cluster"]["nodes"] == 1.0);
    CHECK(r["cluster"]["node_power_watts"] == one["cluster"]["node_power_watts"]);
    CHECK(r["cluster"]["facility_power_watts"] == one["cluster"]["facility_power_watts"]);
    // Half the site at $2/h, half at the catalog's: the rent is each half's.
    const json priced = h100_pools(json::array({h100(4, 2), half}), {{"training", {{"tokens", 1e10}}}});
    CHECK(priced["cluster"]["cloud_usd_per_hour"].get<double>() ==
          Approx(4 * 2 + one["cluster"]["cloud_usd_per_hour"].get<double>() / 2).epsilon(1e-12));
    CHECK(priced["training"]["cost_usd"].get<double>() ==
          Approx(priced["training"]["gpu_hours"].get<double>() * priced["cluster"]["cloud_usd_per_hour"].get<double>() / 8).epsilon(1e-12));
}

TEST_CASE("an inverse answer with tp given is the run an estimate of its echo makes, and a layout given as is is refused") {
    // gpus_needed for Llama 3 70B in 60 days with training.tp 8 answered 3,064 H100 at its searched
    // layout (59.9 days), while an estimate of its echo on 3,064 took the fields as a layout given
    // (pp 1 and the defaults): 97.5 days; with pp 8, no fit at all. training.layout given was ignored.
    for (const json& given : {json{{"tp", 8}}, json{{"pp", 8}}}) {
        json training = given;
        training["tokens"] = 15e12;
        const json r = run({{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                            {"training", training},
                            {"inverse", {{"question", "gpus_needed"}, {"days", 60}}},
                            {"explain", false}});
        REQUIRE(r["inverse"]["gpus"].is_number());
        CHECK(r["inputs"]["training"]["layout"] == "auto");
        json e = r["inputs"];
        e.erase("inverse");
        e["hardware"]["count"] = r["inverse"]["gpus"];
        e["explain"] = false;
        const json t = run(e)["training"];
        REQUIRE(t["fits"] == true);
        CHECK(t["seconds"].get<double>() == Approx(r["inverse"]["seconds_at_gpus"].get<double>()).epsilon(1e-9));
    }
    const json refused = run({{"model", {{"preset", "llama3-70b"}}},
                              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                              {"training", {{"tokens", 15e12}, {"tp", 8}, {"layout", "given"}}},
                              {"inverse", {{"question", "gpus_needed"}, {"days", 60}}}});
    CHECK(has_error(refused, "training.layout", "conflict"));
}

TEST_CASE("what_can_train on a device without the training precision's peak says which precision and which device, as an estimate does") {
    // A T4 (no BF16) or a CPU asked what it can train had answered "the device has no peak for the
    // training precision", naming neither the precision (bf16, the default) nor the device.
    const json r = run({{"hardware", {{"device", "nvidia-t4"}, {"count", 2}}}, {"inverse", {{"question", "what_can_train"}, {"days", 3}}}});
    REQUIRE(has_error(r, "training.precision", "unsupported"));
    CHECK(r["errors"][0]["message"] == "training.precision bf16 has no published peak on Tesla T4");
}

TEST_CASE("a layout given without a batch says when its default batch was raised to feed its pipeline, as the plan search's does") {
    // Llama 3 70B at TP 8, PP 16, DP 128 took 2,048 sequences (16.8M tokens, four times the ~4M
    // default) without a word; the automatic layout's warning said so.
    const auto warned = [](const json& training) {
        const json r = run({{"model", {{"preset", "llama3-70b"}}},
                            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16384}}},
                            {"training", training},
                            {"explain", false}});
        REQUIRE_FALSE(r.contains("errors"));
        for (const auto& w : r["warnings"])
            if (w.get<std::string>().find("raised from about 4M tokens") != std::string::npos) return true;
        return false;
    };
    CHECK(warned({{"tp", 8}, {"pp", 16}, {"dp", 128}}));
    CHECK_FALSE(warned({{"tp", 8}, {"pp", 16}, {"dp", 128}, {"global_batch", 2048}}));
    CHECK_FALSE(warned({{"tp", 8}, {"pp", 1}, {"dp", 2048}}));
}

TEST_CASE("what a cluster can train below a billion parameters takes the time given at its own goodput") {
    // One L4 for a day: 0.108B parameters, whose estimate took 0.99925 days: the tokens were bought
    // at the goodput of a 1e9-parameter model (the sizing's floor), whose checkpoints take longer.
    const json hw = {{"device", "nvidia-l4"}, {"count", 1}};
    const json a = run({{"hardware", hw}, {"inverse", {{"question", "what_can_train"}, {"days", 1}}}, {"explain", false}})["inverse"];
    REQUIRE(a["trainable_params"].get<double>() < 1e9);
    const json e = run({{"model", {{"params", a["trainable_params"]}, {"seq_len", 2048}}},
                        {"hardware", hw},
                        {"training", {{"tokens", a["trainable_tokens"]}}},
                        {"explain", false}});
    REQUIRE(e["training"]["fits"] == true);
    CHECK(e["training"]["mfu"].get<double>() == Approx(a["trainable_mfu"].get<double>()).epsilon(1e-9));
    CHECK(e["training"]["seconds"].get<double>() == Approx(86400.0).epsilon(1e-9));
}

TEST_CASE("what 100,000 RTX 4090 over 1 Gb/s internet can train is a model a layout runs, not nothing") {
    // The answer had been null ('no model of 10M parameters or more fits these devices' memory'): a
    // 10M model has too few layers to pipeline 100,000 devices within the largest published batch,
    // while larger models, deeper, have layouts (an estimate of 1B runs).
    const json hw = {{"device", "nvidia-rtx-4090"}, {"count", 100000}, {"network", "internet-1g"}};
    const json a = run({{"hardware", hw}, {"inverse", {{"question", "what_can_train"}, {"days", 300}}}, {"explain", false}})["inverse"];
    REQUIRE(a["trainable_params"].is_number());
    const json e = run({{"model", {{"params", a["trainable_params"]}, {"seq_len", 2048}}},
                        {"hardware", hw},
                        {"training", {{"tokens", a["trainable_tokens"]}}},
                        {"explain", false}});
    REQUIRE(e["training"]["fits"] == true);
    CHECK(e["training"]["seconds"].get<double>() == Approx(300 * 86400.0).epsilon(1e-9));
}
