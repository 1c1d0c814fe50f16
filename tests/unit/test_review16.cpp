// Checks of 2026-12-06 (mixed fleets made faster to estimate without changing an answer). Each test
// states what it pins.
#include "helpers.hpp"

#include <cstring>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/fleet.hpp"
#include "gpucalc/scenario_parse.hpp"

using nlohmann::json;

namespace {

json pool16(const char* device, int count, const char* site) { return {{"device", device}, {"count", count}, {"site", site}}; }

gpucalc::Scenario parsed(const json& s) {
    gpucalc::Scenario out;
    gpucalc::Errors errors;
    const bool ok = gpucalc::parse_scenario(gpucalc::jv::Value::parse(s.dump()), out, errors);
    INFO(s.dump());
    REQUIRE(ok);
    return out;
}

gpucalc::FleetResult fleet16(const gpucalc::Scenario& s, bool remember, bool explain) {
    gpucalc::Trace trace(explain);
    return gpucalc::estimate_fleet(*s.model, *s.hardware, *s.training, s.costs, trace, gpucalc::FleetSearch{remember});
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Two fleet answers equal figure for figure, bit for bit.
void check_same(const gpucalc::FleetResult& a, const gpucalc::FleetResult& b) {
    CHECK(a.mode == b.mode);
    CHECK(a.why_not_other == b.why_not_other);
    CHECK(a.pipeline_order == b.pipeline_order);
    CHECK(same_bits(a.pipeline_dp, b.pipeline_dp));
    CHECK(a.slowest_pool == b.slowest_pool);
    CHECK(same_bits(a.total.tokens_per_second, b.total.tokens_per_second));
    CHECK(same_bits(a.total.step_seconds, b.total.step_seconds));
    CHECK(same_bits(a.total.step.total, b.total.step.total));
    CHECK(same_bits(a.total.step.pp_bubble, b.total.step.pp_bubble));
    CHECK(same_bits(a.total.step.dp_comm, b.total.step.dp_comm));
    CHECK(same_bits(a.total.memory.total, b.total.memory.total));
    CHECK(a.total.warnings == b.total.warnings);
    REQUIRE(a.pools.size() == b.pools.size());
    for (std::size_t i = 0; i < a.pools.size(); ++i) {
        const gpucalc::FleetPool &x = a.pools[i], &y = b.pools[i];
        CHECK(x.layout.tp == y.layout.tp);
        CHECK(x.layout.pp == y.layout.pp);
        CHECK(x.layout.dp == y.layout.dp);
        CHECK(x.layout.micro_batch == y.layout.micro_batch);
        CHECK(x.layout.recompute == y.layout.recompute);
        CHECK(same_bits(x.layers, y.layers));
        CHECK(same_bits(x.step_seconds, y.step_seconds));
        CHECK(same_bits(x.memory_per_gpu_bytes, y.memory_per_gpu_bytes));
        CHECK(same_bits(x.memory.activations, y.memory.activations));
    }
}

// Fleets of 2 to 9 pools: one site and several, repeated pools (one identity in the memo), a custom
// device beside its base, a 1 Gb/s WAN (a pool left out trains faster).
std::vector<json> fleets16() {
    const char *h100 = "nvidia-h100-sxm5-80gb", *a100 = "nvidia-a100-sxm4-80gb", *mi = "amd-mi300x", *l40 = "nvidia-l40s",
               *r4090 = "nvidia-rtx-4090";
    std::vector<json> out;
    auto add = [&](const char* preset, json pools, json hw = json::object(), json tr = json::object()) {
        hw["pools"] = std::move(pools);
        tr["tokens"] = 1e11;
        out.push_back({{"model", {{"preset", preset}}}, {"hardware", hw}, {"training", tr}, {"explain", false}});
    };
    add("llama2-70b", {pool16(h100, 64, "a"), pool16(a100, 32, "b")});
    add("llama2-70b", {pool16(h100, 16, "a"), pool16(a100, 16, "a"), pool16(h100, 8, "b")});
    add("llama2-70b", {pool16(mi, 32, "a"), pool16(mi, 16, "a"), pool16(h100, 8, "b")}, {{"wan", "internet-1g"}});
    add("llama2-7b", {pool16(h100, 16, "a"), pool16(mi, 64, "b"), pool16(r4090, 16, "b"), pool16(h100, 16, "a")});
    add("mixtral-8x7b", {pool16(a100, 64, "a"), pool16(h100, 32, "b"), pool16(a100, 64, "a"), pool16(l40, 32, "b")}, json::object(),
        {{"local_steps", 50}});
    add("llama2-70b", {pool16(h100, 64, "a"), pool16(a100, 32, "a"), pool16(mi, 32, "b"), pool16(l40, 32, "b"), pool16(h100, 16, "c"),
                       pool16(r4090, 16, "c"), pool16(h100, 64, "a"), pool16(a100, 32, "b")});
    add("llama2-13b", {pool16(h100, 16, "a"), pool16(a100, 16, "b"), pool16(mi, 16, "a"), pool16(l40, 16, "b"), pool16(h100, 16, "a"),
                       pool16(r4090, 16, "b"), pool16(h100, 8, "a"), pool16(a100, 8, "b"), pool16(mi, 8, "c")});
    json custom = pool16(h100, 16, "a");
    custom["device"] = {{"base", h100}, {"peak_flops_per_second", {{"bf16", 1.5e15}}}};
    add("llama2-70b", {pool16(h100, 16, "a"), custom, pool16(a100, 16, "b")}, json::object(), {{"recompute", "full"}});
    return out;
}

}  // namespace

TEST_CASE("A fleet estimate that remembers its stage estimates gives exactly the answers of one that computes each again") {
    for (const json& s : fleets16()) {
        INFO(s.dump());
        const gpucalc::Scenario sc = parsed(s);
        for (bool explain : {false, true}) check_same(fleet16(sc, true, explain), fleet16(sc, false, explain));
    }
}

TEST_CASE("The same fleet estimated twice gives the same answer, with derivations or without") {
    const gpucalc::Scenario sc = parsed(fleets16()[5]);
    check_same(fleet16(sc, true, false), fleet16(sc, true, false));
    check_same(fleet16(sc, true, false), fleet16(sc, true, true));
}
