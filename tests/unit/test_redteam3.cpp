// A red-team pass of 2026-11-30 over the CLI and the module (MoE layouts, plan search, fleets, round
// trips): each test states an input that was accepted or answered wrongly, and what it now gives.
#include "helpers.hpp"

using nlohmann::json;

namespace {

const json kSmallMoe = {{"layers", 8},   {"hidden", 1024},         {"heads", 16},          {"kv_heads", 8},  {"vocab", 32000},
                        {"experts", 16}, {"experts_per_token", 2}, {"ffn_kind", "swiglu"}, {"seq_len", 4096}};

json on_h100(json model, double count, json training) {
    return {{"model", std::move(model)},
            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", count}}},
            {"training", std::move(training)},
            {"explain", false}};
}

json plan(const json& scenario) { return json::parse(gpucalc::plan_json(scenario.dump())); }

}  // namespace

TEST_CASE("an expert-parallel size the devices cannot hold is an error under layout auto, not a report that fits") {
    // ep 16 on 8 GPUs, tp/pp/dp left to the search: no layout tiles it (the experts' ranks are ranks
    // of one stage, so ep divides the count). Before, the estimate ran the unresolved layout.
    const json r = run(on_h100(kSmallMoe, 8, {{"tokens", 1e12}, {"ep", 16}}));
    CHECK(has_error(r, "training.ep", "divisibility"));
    // With pp given, ep must divide the devices of one stage: 16 GPUs in 4 stages leave 4 per stage.
    const json s = run(on_h100(kSmallMoe, 16, {{"tokens", 1e12}, {"ep", 8}, {"pp", 4}}));
    CHECK(has_error(s, "training.ep", "divisibility"));
    CHECK_FALSE(run(on_h100(kSmallMoe, 16, {{"tokens", 1e12}, {"ep", 4}, {"pp", 4}})).contains("errors"));
}

TEST_CASE("the plan search checks the layout fields it is given as an estimate under layout auto does") {
    const json base = on_h100(kSmallMoe, 8, {{"global_batch", 64}});
    auto with = [&](json model, json fields) {
        json s = base;
        s["model"] = std::move(model);
        s["training"].update(fields);
        return plan(s);
    };
    json llama = {{"preset", "llama3-8b"}};
    json mixtral = {{"preset", "mixtral-8x7b"}};
    CHECK(has_error(with(kSmallMoe, {{"expert_tp", 2}}), "training.expert_tp", "missing"));  // the search does not choose it
    CHECK(has_error(with(kSmallMoe, {{"shard_group", 3}}), "training.shard_group", "divisibility"));
    CHECK(has_error(with(llama, {{"ep", 8}}), "training.ep", "range"));            // a dense model
    CHECK(has_error(with(mixtral, {{"ep", 16}}), "training.ep", "divisibility"));  // 8 experts
    CHECK(has_error(with(kSmallMoe, {{"ep", 3}}), "training.ep", "divisibility"));
    CHECK(has_error(with(kSmallMoe, {{"cp", 3}}), "training.cp", "divisibility"));
    CHECK(has_error(with(kSmallMoe, {{"dualpipe", true}, {"pp", 1}}), "training.dualpipe", "range"));
    // Every plan it returns is a scenario the estimate accepts: with DualPipe asked for, only pipelines.
    json s = on_h100(kSmallMoe, 16, {{"global_batch", 64}, {"dualpipe", true}});
    s["plan"] = {{"top_k", 5}};
    const json p = plan(s);
    REQUIRE(p.contains("plan"));
    REQUIRE_FALSE(p["plan"]["best"].empty());
    for (const auto& b : p["plan"]["best"]) {
        CHECK(b["training"]["pp"].get<double>() > 1);
        json e = on_h100(kSmallMoe, 16, b["training"]);
        e["training"]["tokens"] = 1e12;
        CHECK_FALSE(run(e).contains("errors"));
    }
}

TEST_CASE("DualPipe on a layout without a pipeline is an error, not ignored") {
    CHECK(has_error(run(on_h100(kSmallMoe, 8, {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}, {"ep", 8}, {"dualpipe", true}})),
                    "training.dualpipe", "range"));
}

TEST_CASE("a device without a price reports gpu_hour_usd and the costs as null, never 0") {
    // The GB200 row of the catalog has no cloud price: training, fine-tuning and serving say null.
    const json scenario = {{"model", {{"preset", "llama3-8b"}}},       {"hardware", {{"device", "nvidia-gb200-per-gpu"}, {"count", 8}}},
                           {"training", {{"tokens", 1e12}}},           {"finetune", {{"method", "lora"}, {"tokens", 1e8}}},
                           {"inference", {{"requests_per_day", 1e5}}}, {"explain", false}};
    const json r = run(scenario);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["gpu_hour_usd"].is_null());
    CHECK(r["training"]["cost_usd"].is_null());
    CHECK(r["finetune"]["gpu_hour_usd"].is_null());
    CHECK(r["finetune"]["cost_usd"].is_null());
    CHECK(r["inference"]["gpu_hour_usd"].is_null());
    CHECK(r["inference"]["cost_per_day_usd"].is_null());
    // A price given, even 0 (owned hardware whose cost is sunk), is a price.
    json priced = scenario;
    priced["costs"] = {{"gpu_hour_usd", 0}};
    const json q = run(priced);
    CHECK(q["training"]["gpu_hour_usd"].get<double>() == 0);
    CHECK(q["finetune"]["cost_usd"].get<double>() == 0);
}

TEST_CASE("a network of under 1 kB/s per device is refused, as the custom device's own field is") {
    json s = on_h100({{"preset", "llama3-8b"}}, 16, {{"tokens", 1e12}});
    s["hardware"]["scale_out_bytes_per_second"] = 1e-300;
    CHECK(has_error(run(s), "hardware.scale_out_bytes_per_second", "range"));
    s["hardware"]["scale_out_bytes_per_second"] = 1e3;
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    all_finite(r);
}

TEST_CASE("a fleet of GPUs and TPUs defaults to a framework that runs on both, and its echo runs again unchanged") {
    // Megatron (the GPU default) does not run on TPUs and is refused there when given.
    const json s = {
        {"model", {{"preset", "llama3-8b"}}},
        {"hardware", {{"pools", {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}, {{"device", "google-tpu-v5p"}, {"count", 8}}}}}},
        {"training", {{"tokens", 1e12}}},
        {"explain", false}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inputs"]["training"]["framework"] == "maxtext");
    CHECK(run(r["inputs"]) == r);
}

TEST_CASE("the echoed expert_tp does not change the suggested layout when the echo runs again") {
    // The echo gives the resolved expert_tp, which then counts as given; the suggestion frees it with
    // every other layout field, so the report is the same.
    const json s = {{"model", {{"preset", "mixtral-8x7b"}}},
                    {"hardware", {{"device", "nvidia-b200"}, {"count", 32}}},
                    {"training", {{"tokens", 1e12}, {"tp", 1}, {"pp", 4}, {"cp", 2}, {"ep", 2}, {"zero", 0}}},
                    {"explain", false}};
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    REQUIRE(r["training"]["suggested_layout"].is_object());
    CHECK(r["training"]["suggested_layout"].contains("expert_tp"));
    CHECK(run(r["inputs"]) == r);
}

TEST_CASE("a WAN between nodes says that ZeRO shards inside each site, which is why the memory per device grows") {
    // A newcomer's review: DeepSeek-V3 under ZeRO-3 needed 63 GiB per H100 in one data centre and 814 GiB with
    // "Internet, 1 Gb/s" between nodes, and nothing said why (every node is then a site; shards stay in a site).
    json s = on_h100({{"preset", "deepseek-v3"}}, 2048, {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}, {"dp", 2048}, {"ep", 16}, {"zero", 3}});
    const json local = run(s);
    s["hardware"]["network"] = "internet-1g";
    const json wan = run(s);
    REQUIRE_FALSE(wan.contains("errors"));
    CHECK(wan["training"]["memory_per_gpu_bytes"]["total"].get<double>() >
          10 * local["training"]["memory_per_gpu_bytes"]["total"].get<double>());
    bool said = false;
    for (const auto& w : wan["warnings"]) said |= w.get<std::string>().find("shards inside each site only") != std::string::npos;
    CHECK(said);
    for (const auto& w : local["warnings"]) CHECK(w.get<std::string>().find("shards inside each site") == std::string::npos);
}

TEST_CASE("the plan search keeps folded expert parallelism open when tp is the search's: dp 2 and ep 8 on 16 GPUs") {
    // A second red-team pass: checking the given fields in the plan search refused ep 8 with dp 2 as
    // "dp x cp x tp (2)", counting the default tp 1 the search was free to raise (tp 4: 2 x 4 = 8 ranks).
    const json p = plan({{"model", {{"preset", "mixtral-8x7b"}}},
                         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                         {"training", {{"global_batch", 256}, {"dp", 2}, {"ep", 8}}},
                         {"plan", {{"top_k", 3}}}});
    REQUIRE(p.contains("plan"));
    REQUIRE_FALSE(p["plan"]["best"].empty());
    for (const auto& b : p["plan"]["best"]) {
        CHECK(b["training"]["dp"] == 2);
        CHECK(b["training"]["ep"] == 8);
        CHECK((b["training"]["tp"].get<int>() * b["training"]["cp"].get<int>() * 2) % 8 == 0);
    }
}

TEST_CASE("DualPipe plans have no interleaving: its two directions replace it, and vpp would be written for nothing") {
    const json p = plan({{"model", {{"preset", "deepseek-v3"}}},
                         {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 2048}}},
                         {"training", {{"global_batch", 4096}, {"pp", 16}, {"ep", 64}, {"dualpipe", true}}},
                         {"plan", {{"top_k", 5}}}});
    REQUIRE(p.contains("plan"));
    REQUIRE_FALSE(p["plan"]["best"].empty());
    for (const auto& b : p["plan"]["best"]) CHECK(b["training"]["vpp"] == 1);
}

TEST_CASE("a key given twice in one object is an error naming its path, not the last one silently") {
    // The red-team pass: {"ep": 8, "ep": 2} echoed ep 2, and a second "training" object replaced the first.
    const json r = json::parse(gpucalc::estimate_json(
        R"({"model":{"preset":"mixtral-8x7b"},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":16},"training":{"tokens":1e12,"tp":2,"ep":8,"ep":2}})"));
    CHECK(has_error(r, "training.ep", "duplicate_key"));
    const json s = json::parse(gpucalc::plan_json(
        R"({"model":{"preset":"llama3-8b"},"hardware":{"pools":[{"device":"nvidia-h100-sxm5-80gb","count":8,"count":9}]},"training":{},"training":{}})"));
    CHECK(has_error(s, "hardware.pools[0].count", "duplicate_key"));
    CHECK(has_error(s, "training", "duplicate_key"));
    // The same keys in different objects are not duplicates.
    CHECK_FALSE(
        json::parse(
            gpucalc::estimate_json(
                R"({"model":{"preset":"llama3-8b"},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},"training":{"tokens":1e12,"tp":8}})"))
            .contains("errors"));
}

TEST_CASE("a plan's MFU under FP8 is against the BF16 peak, as the training estimate of the same layout says") {
    // A page review: the Plan card said 38.7 % and the Train card 77.5 % "of BF16 peak" for one FP8 layout.
    json s = on_h100({{"preset", "llama3-70b"}}, 1024, {{"global_batch", 1024}, {"precision", "fp8"}});
    s["plan"] = {{"top_k", 1}};
    const json p = plan(s);
    REQUIRE(p.contains("plan"));
    REQUIRE_FALSE(p["plan"]["best"].empty());
    const json& b = p["plan"]["best"][0];
    json t = b["training"];
    t["tokens"] = 1e12;
    const json r = run(on_h100({{"preset", "llama3-70b"}}, 1024, t));
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["mfu"].get<double>() == Approx(b["mfu"].get<double>()).epsilon(1e-9));
    CHECK(r["training"]["mfu_peak_precision"] == "bf16");
}

TEST_CASE("serving copies need not divide the GPUs: 11 H100 hold two copies of four, and the three left over are said to be idle") {
    // A page review: 11 GPUs for a 70B read "does not fit" (the page fell back to one GPU per copy,
    // since the count had to be a multiple of the copy's GPUs).
    auto serve = [](double count) {
        return run({{"model", {{"preset", "llama3-70b"}}},
                    {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", count}}},
                    {"inference", {{"tp", 4}}},
                    {"explain", false}});
    };
    const json r = serve(11);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["replicas"] == 2);
    bool said = false;
    for (const auto& w : r["warnings"]) said |= w.get<std::string>().find("3 of the 11 GPUs are left idle") != std::string::npos;
    CHECK(said);
    CHECK(has_error(serve(2), "inference.tp", "range"));  // fewer GPUs than one copy
}
