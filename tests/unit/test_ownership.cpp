// costs.ownership owned: one device-hour costs the purchase price amortised straight-line over
// costs.lifetime_years plus its electricity (TDP x PUE x $/kWh), in every estimate that prices
// hours. Serving, fine-tuning and the inverse questions used the hourly rent whatever the ownership.
#include "helpers.hpp"

using nlohmann::json;

namespace {

// A device priced so the owned hour is exact: 35,040 USD over 4 years (35,040 h) is 1 USD/h, and
// 1,000 W x PUE 1.25 x 0.2 USD/kWh is 0.25 USD/h: 1.25 USD per device-hour (hand calculation).
json owned(json scenario) {
    scenario["hardware"]["device"] = {{"base", "nvidia-h100-sxm5-80gb"}, {"price_usd", 35040}, {"tdp_watts", 1000}};
    scenario["costs"] = {{"ownership", "owned"}, {"lifetime_years", 4}, {"pue", 1.25}, {"electricity_usd_per_kwh", 0.2}};
    return scenario;
}
constexpr double kOwnedHourUsd = 1.25;

json scenario(const char* section, json body, double count) {
    return {{"model", {{"preset", "llama3-8b"}}}, {"hardware", {{"count", count}}}, {section, std::move(body)}};
}

}  // namespace

TEST_CASE("an owned device-hour in serving costs its amortised price plus its electricity") {
    const json r = run(owned(scenario("inference", {{"requests_per_day", 1e6}}, 8)));
    REQUIRE_FALSE(r.contains("errors"));
    const json& i = r["inference"];
    CHECK(i["gpu_hour_usd"].get<double>() == Approx(kOwnedHourUsd).epsilon(1e-12));
    CHECK(i["cost_per_day_usd"].get<double>() == Approx(i["gpus_needed"].get<double>() * 24 * kOwnedHourUsd).epsilon(1e-12));
}

TEST_CASE("an owned device-hour in fine-tuning costs its amortised price plus its electricity") {
    const json r = run(owned(scenario("finetune", {{"method", "lora"}, {"batch", 2}, {"seq_len", 2048}, {"tokens", 5e7}}, 1)));
    REQUIRE_FALSE(r.contains("errors"));
    const json& f = r["finetune"];
    CHECK(f["gpu_hour_usd"].get<double>() == Approx(kOwnedHourUsd).epsilon(1e-12));
    CHECK(f["cost_usd"].get<double>() == Approx(f["gpu_hours"].get<double>() * kOwnedHourUsd).epsilon(1e-12));
}

TEST_CASE("an owned training run costs its GPU-hours at the owned hour, and says which hour it used") {
    const json r = run(owned(scenario("training", {{"tokens", 1e11}}, 8)));
    REQUIRE_FALSE(r.contains("errors"));
    const json& t = r["training"];
    CHECK(t["gpu_hour_usd"].get<double>() == Approx(kOwnedHourUsd).epsilon(1e-12));
    // The amortisation and the electricity, each from the GPU-hours (LLaMA's energy convention).
    const double h = t["gpu_hours"].get<double>();
    CHECK(t["cost_usd"].get<double>() == Approx(h * 35040 / (4 * 8760) + t["energy_kwh"].get<double>() * 0.2).epsilon(1e-12));
}

TEST_CASE("a budget question on owned devices buys hours at the owned rate") {
    json s = owned({{"hardware", {{"count", 64}}}, {"inverse", {{"question", "what_can_train"}, {"budget_usd", 1e6}}}});
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inverse"]["seconds"].get<double>() == Approx(1e6 / (64 * kOwnedHourUsd) * 3600).epsilon(1e-12));
}

TEST_CASE("an owned device without a purchase price gives null serving costs with a warning naming price_usd") {
    json s = owned(scenario("inference", {{"requests_per_day", 1e6}}, 8));
    s["hardware"]["device"].erase("price_usd");
    s["hardware"]["device"]["base"] = "google-tpu-v4";  // no price in the catalog
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["gpu_hour_usd"].is_null());
    CHECK(r["inference"]["cost_per_day_usd"].is_null());
    CHECK(r["warnings"].dump().find("price_usd") != std::string::npos);
}

TEST_CASE("a rent given beside owned hardware is an error on costs.gpu_hour_usd, not ignored") {
    json s = owned(scenario("inference", {{"requests_per_day", 1e6}}, 8));
    s["costs"]["gpu_hour_usd"] = 2;
    CHECK(has_error(run(s), "costs.gpu_hour_usd", "conflict"));
    s["costs"]["ownership"] = "cloud";
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["gpu_hour_usd"].get<double>() == 2);
}

TEST_CASE("serving without a rate derives no cost: the explain has no cost entry that would show 0") {
    json s = owned(scenario("inference", {{"requests_per_day", 1e6}}, 8));
    s["hardware"]["device"].erase("price_usd");
    s["hardware"]["device"]["base"] = "google-tpu-v4";
    s["explain"] = true;
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    for (const char* k :
         {"inference.cost_per_day_usd", "inference.cost_per_million_output_tokens_usd", "inference.cost_per_million_input_tokens_usd"})
        CHECK_FALSE(r["explain"].contains(k));
    CHECK(r["explain"].contains("inference.gpus_needed"));
}

TEST_CASE("owned devices: no advice to set a rent, and a budget without a price names the device's price") {
    // "set costs.gpu_hour_usd" under owned leads to the conflict error.
    json t = owned(scenario("training", {{"tokens", 1e11}}, 8));
    t["hardware"]["device"] = {{"name", "X"},           {"peak_flops_per_second", {{"bf16", 1e15}}},
                               {"memory_bytes", 192e9}, {"memory_bandwidth_bytes_per_second", 5e12},
                               {"price_usd", 20000},    {"tdp_watts", 700}};
    const json r = run(t);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["warnings"].dump().find("set costs.gpu_hour_usd") == std::string::npos);
    json b = t;
    b.erase("training");
    b.erase("model");
    b["hardware"]["device"].erase("price_usd");
    b["inverse"] = {{"question", "what_can_train"}, {"budget_usd", 1e6}};
    const json e = run(b);
    CHECK(has_error(e, "hardware.device", "missing"));
    CHECK(e.dump().find("price_usd") != std::string::npos);
}

TEST_CASE("an owned run longer than the devices' lifetime says the owned cost charges more than their price") {
    json s = owned(scenario("training", {{"tokens", 1e14}}, 8));
    s["costs"]["lifetime_years"] = 0.1;
    const json r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["days"].get<double>() > 36.5);
    CHECK(r["warnings"].dump().find("longer than costs.lifetime_years") != std::string::npos);
}
