// Hostile input found in a red-team pass (deep nesting under every key, nested claims, unbounded
// variations, 0/0 in MoE, absurd custom devices, undefined figures) gives an error naming the field
// or an honest answer, never a crash, a NaN, or a 0 that hides "undefined". Run under ASan/UBSan too.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "gpucalc/api.hpp"
#include "gpucalc/errors.hpp"
#include "gpucalc/fields.hpp"

#include "helpers.hpp"

using nlohmann::json;

namespace {

std::string nested(const std::string& open, const std::string& close, std::size_t depth, const std::string& inner = "1") {
    std::string s;
    s.reserve(depth * (open.size() + close.size()) + inner.size());
    for (std::size_t i = 0; i < depth; ++i) s += open;
    s += inner;
    for (std::size_t i = 0; i < depth; ++i) s += close;
    return s;
}

json valid() {
    return {{"model", {{"preset", "llama2-7b"}}},
            {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
            {"training", {{"tokens", 1e12}, {"tp", 1}}}};
}

}  // namespace

TEST_CASE("nesting deeper than 64 levels under any key is rejected before parsing, in every entry point") {
    const std::string deep_arrays = nested("[", "]", 110000);
    const std::string deep_objects = nested("{\"a\":", "}", 20000);
    for (const char* key : {"claim", "inverse", "model", "hardware", "training", "inference", "plan", "compare", "zzz"}) {
        for (const std::string* inner : {&deep_arrays, &deep_objects}) {
            const std::string text = "{\"" + std::string(key) + "\": " + *inner + "}";
            INFO(key);
            for (const auto& out : {gpucalc::estimate_json(text), gpucalc::plan_json(text)}) {
                const auto r = json::parse(out);
                CHECK(has_error(r, "", "too_deep"));
            }
        }
    }
    // claim.vary.values holding a deep array (58,000 levels crashed the old code).
    const std::string vary = R"({"hardware": {"device": "nvidia-t4"}, "claim": {"checks": [{"metric": "cluster.devices", "expected": 1}],
        "vary": {"path": "hardware.count", "values": [)" +
                             nested("[", "]", 58000) + "]}}}";
    CHECK(has_error(json::parse(gpucalc::estimate_json(vary)), "", "too_deep"));
    // 64 levels is the limit, not an error by itself.
    CHECK(gpucalc::json_nesting_depth(nested("[", "]", 64)) == 64);
    CHECK(gpucalc::json_nesting_depth("{\"a\": \"[[[[{{{{\"}") == 1);  // brackets inside strings do not count
    const auto ok =
        json::parse(gpucalc::estimate_json("{\"hardware\": {\"device\": \"nvidia-t4\"}, \"name\": \"" + std::string(100, '[') + "\"}"));
    CHECK_FALSE(ok.contains("errors"));
}

TEST_CASE("a claim cannot vary the claim, an inverse question or the plan; its work is bounded") {
    json s = {{"hardware", {{"device", "nvidia-t4"}, {"count", 1}}},
              {"claim", {{"checks", {{{"metric", "cluster.devices"}, {"expected", 1}}}}, {"vary", {{"path", "claim"}, {"values", {1}}}}}}};
    CHECK(has_error(run(s), "claim.vary.path", "range"));
    s["claim"]["vary"]["path"] = "claim.vary.values";
    CHECK(has_error(run(s), "claim.vary.path", "range"));
    s["claim"]["vary"]["path"] = "inverse";
    CHECK(has_error(run(s), "claim.vary.path", "range"));
    // Three inputs of 16 values = 4,096 cases: refused (at most 64).
    json values = json::array();
    for (int i = 1; i <= 16; ++i) values.push_back(i);
    s["claim"]["vary"] = json::array({{{"path", "hardware.count"}, {"values", values}},
                                      {{"path", "costs.pue"}, {"values", values}},
                                      {{"path", "costs.gpu_hour_usd"}, {"values", values}}});
    CHECK(has_error(run(s), "claim.vary", "range"));
    // Two inputs of 4 values: 16 cases, every combination evaluated.
    s["claim"]["vary"] =
        json::array({{{"path", "hardware.count"}, {"values", {1, 2, 3, 4}}}, {{"path", "costs.pue"}, {"values", {1.1, 1.2, 1.3, 1.4}}}});
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["claim"]["evaluations"].size() == 16);
    CHECK(r["claim"]["verdict"] == "depends");
}

TEST_CASE("a claim on a figure the report does not have, or that is undefined, is an error") {
    json s = {{"hardware", {{"device", "nvidia-t4"}, {"count", 1}}},
              {"claim", {{"checks", {{{"metric", "cluster.no_such_figure"}, {"expected", 1}}}}}}};
    CHECK(has_error(run(s), "claim.checks[0].metric", "unknown_metric"));
    json t = valid();
    t["training"].erase("tokens");
    t["claim"] = {{"checks", {{{"metric", "training.days"}, {"max", 30}}}}};
    CHECK(has_error(run(t), "claim.checks[0].metric", "undefined"));
}

TEST_CASE("MoE with every expert active (top-k = experts) is a dense model in disguise: finite answers") {
    json s = {{"model", {{"layers", 4}, {"hidden", 512}, {"heads", 8}, {"vocab", 1000}, {"experts", 4}, {"experts_per_token", 4}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
              {"training", {{"tokens", 1e9}, {"tp", 1}}},
              {"inference", {{"batch", 4}}}};
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    all_finite(r);
    CHECK(r["training"]["days"].get<double>() > 0);
    CHECK(r["training"]["memory_per_gpu_bytes"]["total"].get<double>() > 0);
    CHECK(r["inference"]["decode_seconds_per_token"].get<double>() > 0);
    CHECK(r["warnings"].dump().find("non-finite") == std::string::npos);
}

TEST_CASE("absurd custom-device figures are rejected with the field named") {
    json s = {
        {"hardware",
         {{"device", {{"peak_flops_per_second", {{"bf16", 1e-300}}}, {"memory_bytes", 80e9}, {"memory_bandwidth_bytes_per_second", 3e12}}},
          {"count", 1}}}};
    CHECK(has_error(run(s), "hardware.device.peak_flops_per_second.bf16", "range"));
    s["hardware"]["device"]["peak_flops_per_second"]["bf16"] = 1e15;
    s["hardware"]["device"]["memory_bandwidth_bytes_per_second"] = 1e-3;
    CHECK(has_error(run(s), "hardware.device.memory_bandwidth_bytes_per_second", "range"));
}

TEST_CASE("without training.tokens the run totals are null with a warning, never 0") {
    json s = valid();
    s["training"].erase("tokens");
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    for (const char* k : {"seconds", "days", "gpu_hours", "cost_usd", "energy_kwh", "co2_kg"}) {
        INFO(k);
        CHECK(r["training"][k].is_null());
    }
    CHECK(r["training"]["tokens_per_second"].get<double>() > 0);  // the rate is still known
    CHECK(r["warnings"].dump().find("training.tokens") != std::string::npos);
}

TEST_CASE("a setup that does not fit says so in the figures a reader uses (CLI and page read the same report)") {
    json s = {{"model", {{"preset", "llama3.1-405b"}}},
              {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
              {"training", {{"tokens", 1e12}, {"tp", 1}, {"pp", 1}}},
              {"inference", {{"batch", 1}}}};
    auto r = run(s);
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["fits"] == false);
    for (const char* k : {"seconds", "days", "gpu_hours", "cost_usd", "energy_kwh", "tokens_per_second", "mfu", "step_seconds"}) {
        INFO(k);
        CHECK(r["training"][k].is_null());
    }
    CHECK_FALSE(r["training"]["infeasible_reason"].get<std::string>().empty());
    CHECK(r["inference"]["fits"] == false);
    for (const char* k : {"gpus_needed", "cost_per_day_usd", "cost_per_million_output_tokens_usd", "throughput_tokens_per_second_per_gpu",
                          "decode_tokens_per_second_per_user"}) {
        INFO(k);
        CHECK(r["inference"][k].is_null());
    }
    CHECK_FALSE(r["inference"]["infeasible_reason"].get<std::string>().empty());
}

TEST_CASE("a valid scenario answers identically before and after any sequence of hostile inputs") {
    const std::string good = valid().dump();
    const std::string before = gpucalc::estimate_json(good);
    const std::vector<std::string> hostile = {nested("[", "]", 200000),
                                              "{\"claim\": " + nested("{\"claim\":", "}", 5000) + "}",
                                              std::string(3 << 20, '{'),
                                              "{\"model\": {\"preset\": \"" + std::string(1000, '\xff') + "\"}}",
                                              "{\"hardware\": {\"device\": \"nvidia-t4\"}, \"claim\": {\"checks\": [{\"metric\": \"a.b\", "
                                              "\"min\": 1}], \"vary\": {\"path\": \"claim\", \"values\": [{}]}}}",
                                              "\"\\ud800\"",
                                              "[]",
                                              "null",
                                              "1e400",
                                              std::string("\0\0\0", 3)};
    for (const auto& h : hostile) {
        const auto r = json::parse(gpucalc::estimate_json(h), nullptr, false);
        CHECK_FALSE(r.is_discarded());
        CHECK(r.contains("errors"));
        CHECK_FALSE(json::parse(gpucalc::plan_json(h), nullptr, false).is_discarded());
    }
    CHECK(gpucalc::estimate_json(good) == before);
}

TEST_CASE("the committed hostile corpus gives valid JSON from every entry point") {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(GPUCALC_REGRESSIONS)) {
        std::ifstream f(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        INFO(entry.path().string());
        const auto a = json::parse(gpucalc::estimate_json(text), nullptr, false);
        const auto b = json::parse(gpucalc::plan_json(text), nullptr, false);
        CHECK_FALSE(a.is_discarded());
        CHECK_FALSE(b.is_discarded());
        ++n;
    }
    CHECK(n >= 8);
}

TEST_CASE("every error code the core emits is listed (and documented) in errors.hpp") {
    // Scans core/src for add_error(errors, "<code>", ...) and checks each code against kErrorCodes,
    // from which docs/SCHEMA.md's table is generated.
    int seen = 0;
    for (const auto& entry : std::filesystem::directory_iterator(GPUCALC_SOURCE "/core/src")) {
        const std::string file = entry.path().filename().string();
        std::ifstream in(entry.path());
        REQUIRE(in.good());
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::string key = "add_error(errors, \"";
        for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
            const std::size_t from = at + key.size();
            const std::string code = text.substr(from, text.find('"', from) - from);
            INFO(file << ": " << code);
            CHECK(gpucalc::known_error_code(code));
            ++seen;
        }
    }
    CHECK(seen > 50);
}

// The red-team pass of 2026-11-30 (CLI and wasm): each finding, as the input that showed it.
TEST_CASE("gpus_needed with a deadline no count can meet answers null with the reason, never a crash or a runaway count") {
    // 405B on 15T tokens in 0.001 days crashed natively (SIGFPE: ~1e19 GPUs overflowed the count);
    // in 1 day it answered 577 M GPUs at 0.02 % goodput.
    for (double days : {0.001, 1.0}) {
        auto r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}}},
                      {"inverse", {{"question", "gpus_needed"}, {"days", days}}},
                      {"model", {{"preset", "llama3.1-405b"}}},
                      {"training", {{"tokens", 1.5e13}}}});
        INFO(days);
        REQUIRE_FALSE(r.contains("errors"));
        CHECK(r["inverse"]["gpus"].is_null());
        CHECK(r["inverse"]["cost_usd"].is_null());
        const std::string why = r["inverse"]["infeasible_reason"].get<std::string>();
        if (days < 0.01) {
            // Beyond any count at the best MFU: the goodput as a rounded percentage, the limit named by
            // its field (a page review of 2026-12-02 read "goodput 0.00121476" and "GPUs's limit").
            CHECK(why.find("deadline cannot be met for 3.93817e+25 FLOPs of training") != std::string::npos);
            CHECK(why.find("(the most hardware.count takes)") != std::string::npos);
            CHECK(std::regex_search(why, std::regex(R"(\(goodput \d+(\.\d{1,3})? %\)$)")));
        } else {
            // Within the counts a run could use: the fastest run found (no automatic layout's batch
            // above the largest published one, so the devices a batch feeds are bounded).
            CHECK(why.find("the deadline (1 days) cannot be met") != std::string::npos);
            CHECK(why.find("the fastest of the counts tried takes about ") != std::string::npos);
        }
    }
    // 30 days is an answer, within hardware.count's limit, with no warning.
    auto ok = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}},
                   {"inverse", {{"question", "gpus_needed"}, {"days", 30}}},
                   {"model", {{"preset", "llama3.1-405b"}}},
                   {"training", {{"tokens", 1.5e13}}}});
    REQUIRE(ok["inverse"]["gpus"].is_number());
    CHECK(ok["inverse"]["gpus"].get<double>() <= 1e8);
    CHECK(ok["warnings"].empty());
}

TEST_CASE("gpus_needed says which inputs it does not use, and compares a budget given with its cost") {
    // Red team, 2026-12-05: hardware.count, inverse.budget_usd, tokens_per_param and compare_networks
    // were accepted with gpus_needed and dropped without a word.
    const auto warnings = [](const json& hardware, const json& inverse) {
        json q = inverse;
        q["question"] = "gpus_needed";
        q["days"] = 10;
        const json r = run({{"hardware", hardware},
                            {"inverse", q},
                            {"model", {{"preset", "llama3-8b"}}},
                            {"training", {{"tokens", 1e12}}},
                            {"explain", false}});
        REQUIRE(r["inverse"]["cost_usd"].is_number());
        std::string all;
        for (const auto& w : r["warnings"]) all += w.get<std::string>() + "\n";
        return all;
    };
    const json h100 = {{"device", "nvidia-h100-sxm5-80gb"}};
    CHECK(warnings(h100, json::object()).empty());
    CHECK(warnings({{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}, json::object()).find("hardware.count is not used") !=
          std::string::npos);
    const std::string w = warnings(h100, {{"tokens_per_param", 30}, {"compare_networks", false}, {"budget_usd", 1000}});
    CHECK(w.find("inverse.tokens_per_param is not used by gpus_needed") != std::string::npos);
    CHECK(w.find("inverse.compare_networks is not used by gpus_needed") != std::string::npos);
    CHECK(w.find(", above inverse.budget_usd ($1000)") != std::string::npos);
    CHECK(warnings(h100, {{"budget_usd", 1e9}}).find(", within inverse.budget_usd ($1000000000)") != std::string::npos);
    // Below $1,000 the figures keep their cents: never a $0 that reads as equal to another.
    CHECK(warnings(h100, {{"budget_usd", 0.4}}).find(", above inverse.budget_usd ($0.4)") != std::string::npos);
}

TEST_CASE("gpus_needed on a device that cannot hold the model says so; a given dp is refused") {
    auto r = run({{"hardware", {{"device", "nvidia-rtx-4090"}, {"count", 1}}},
                  {"inverse", {{"question", "gpus_needed"}, {"days", 30}}},
                  {"model", {{"preset", "llama3.1-405b"}}},
                  {"training", {{"tokens", 1e12}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inverse"]["gpus"].is_null());
    CHECK(r["inverse"]["mfu"].is_null());
    CHECK(r["inverse"]["infeasible_reason"].get<std::string>().find("no parallel layout fits") != std::string::npos);
    auto dp = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}}},
                   {"inverse", {{"question", "gpus_needed"}, {"days", 30}}},
                   {"model", {{"preset", "llama2-70b"}}},
                   {"training", {{"tokens", 2e12}, {"tp", 8}, {"pp", 4}, {"dp", 32}}}});
    CHECK(has_error(dp, "training.dp", "conflict"));
    // tp and pp given: the count is whole groups of tp x pp (and whole nodes).
    auto tp = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1024}}},
                   {"inverse", {{"question", "gpus_needed"}, {"days", 30}}},
                   {"model", {{"preset", "llama2-70b"}}},
                   {"training", {{"tokens", 2e12}, {"tp", 8}, {"pp", 4}}}});
    REQUIRE(tp["inverse"]["gpus"].is_number());
    CHECK(std::fmod(tp["inverse"]["gpus"].get<double>(), 32.0) == 0);
}

TEST_CASE("a mixed fleet refuses a pool that cannot train and layout fields it would not use") {
    const json pools = json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}, {"site", "a"}},
                                    {{"device", "nvidia-v100-sxm2-32gb"}, {"count", 64}, {"site", "b"}}});
    // The V100 has no BF16 peak: accepted before, with a pool at 0 FLOP/s faster than the H100.
    auto v100 = run({{"model", {{"preset", "llama2-13b"}}}, {"hardware", {{"pools", pools}}}, {"training", {{"tokens", 2.6e11}}}});
    CHECK(has_error(v100, "hardware.pools[1].device", "unsupported"));
    json a100 = pools;
    a100[1]["device"] = "nvidia-a100-sxm4-80gb";
    for (const char* k : {"tp", "pp", "global_batch"}) {
        auto r = run({{"model", {{"preset", "llama2-13b"}}}, {"hardware", {{"pools", a100}}}, {"training", {{"tokens", 2.6e11}, {k, 8}}}});
        CHECK(has_error(r, std::string("training.") + k, "conflict"));
    }
    auto fp8 = run(
        {{"model", {{"preset", "llama2-13b"}}}, {"hardware", {{"pools", a100}}}, {"training", {{"tokens", 2.6e11}, {"precision", "fp8"}}}});
    CHECK(has_error(fp8, "hardware.pools[1].device", "unsupported"));
    auto ok = run({{"model", {{"preset", "llama2-13b"}}}, {"hardware", {{"pools", a100}}}, {"training", {{"tokens", 2.6e11}}}});
    CHECK_FALSE(ok.contains("errors"));
}

TEST_CASE("serving where not one sequence fits in the KV cache pool does not fit") {
    auto r = run({{"model", {{"preset", "llama2-7b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                  {"inference", {{"kv_cache_memory_fraction", 1e-300}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["inference"]["fits"] == false);
    CHECK(r["inference"]["infeasible_reason"].get<std::string>().find("not even one sequence") != std::string::npos);
}

TEST_CASE("a claim check is expected (+ tolerance) or min/max, never both; min above max is refused") {
    const json base = {{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}};
    json both = base;
    both["claim"] = {{"checks", json::array({{{"metric", "cluster.devices"}, {"expected", 10}, {"tolerance", 0.1}, {"min", 1}}})}};
    CHECK(has_error(run(both), "claim.checks[0].expected", "conflict"));
    json never = base;
    never["claim"] = {{"checks", json::array({{{"metric", "cluster.devices"}, {"min", 10}, {"max", 1}}})}};
    CHECK(has_error(run(never), "claim.checks[0].min", "range"));
}

TEST_CASE(
    "settings that would be silently ignored are refused or warned: overlapping claim paths, sites in serving, one-GPU disaggregation, "
    "latency target without traffic") {
    const json h8 = {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}};
    json vary = {{"hardware", h8}, {"training", {{"tokens", 1e12}}}, {"model", {{"preset", "llama2-7b"}}}};
    vary["claim"] = {{"checks", json::array({{{"metric", "training.days"}, {"max", 1e6}}})},
                     {"vary", json::array({{{"path", "hardware.count"}, {"values", {16}}}, {{"path", "hardware"}, {"values", {h8}}}})}};
    CHECK(has_error(run(vary), "claim.vary", "conflict"));
    auto sites = run({{"model", {{"preset", "llama2-7b"}}},
                      {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}, {"sites", 2}}},
                      {"inference", json::object()}});
    CHECK(has_error(sites, "hardware.sites", "unsupported"));
    auto disagg = run({{"model", {{"preset", "llama2-7b"}}},
                       {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                       {"inference", {{"disaggregated", true}}}});
    CHECK(has_error(disagg, "inference.disaggregated", "range"));
    auto target = run({{"model", {{"preset", "llama2-7b"}}},
                       {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                       {"inference", {{"latency_target_seconds_per_token", 0.001}}}});
    REQUIRE_FALSE(target.contains("errors"));
    CHECK(target["warnings"].dump().find("exceeds the latency target") != std::string::npos);
}

namespace {
// The report value at a derivation's key ("training.step_seconds" -> report["training"]["step_seconds"]), or null.
const json* value_at(const json& report, const std::string& key) {
    const json* cur = &report;
    std::size_t from = 0;
    while (from <= key.size()) {
        const std::size_t dot = std::min(key.find('.', from), key.size());
        const std::string part = key.substr(from, dot - from);
        if (!cur->is_object() || !cur->contains(part)) return nullptr;
        cur = &(*cur)[part];
        from = dot + 1;
    }
    return cur;
}

void derivations_match(const json& scenario) {
    json s = scenario;
    s["explain"] = true;
    const json r = run(s);
    if (!r.contains("explain")) return;
    for (const auto& [key, d] : r["explain"].items()) {
        const json* v = value_at(r, key);
        if (!v || !v->is_number() || !d["result"].is_number()) continue;
        INFO(key);
        CHECK(d["result"].get<double>() == Approx(v->get<double>()).epsilon(1e-9));
    }
}
}  // namespace

TEST_CASE("every derivation's result is the figure the report shows at its key (fixtures, published runs, golden scenarios)") {
    for (const auto& e : std::filesystem::directory_iterator(GPUCALC_FIXTURES)) {
        if (e.path().extension() != ".json") continue;
        INFO(e.path().string());
        std::ifstream f(e.path());
        derivations_match(json::parse(f));
    }
    std::ifstream g(GPUCALC_DATA "/golden_scenarios.jsonl");
    std::string line;
    while (std::getline(g, line)) {
        const json s = json::parse(line, nullptr, false);
        if (s.is_discarded() || !s.is_object()) continue;
        INFO(line.substr(0, 300));
        derivations_match(s);
    }
    std::ifstream t(GPUCALC_DATA "/training_runs.json");
    const json runs = json::parse(t);
    for (const auto& row : runs["runs"]) {
        INFO(row["id"].get<std::string>());
        derivations_match(row["scenario"]);
    }
    // A given MFU sets the step time; its derivation says so.
    derivations_match({{"model", {{"preset", "llama3-8b"}}},
                       {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                       {"training", {{"tokens", 1e12}, {"mfu", 0.3}}}});
    derivations_match({{"model", {{"preset", "llama2-7b"}}},
                       {"hardware",
                        {{"pools",
                          {{{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}, {"site", "a"}},
                           {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 8}, {"site", "b"}}}}}},
                       {"training", {{"tokens", 1e12}, {"mfu", 0.35}}}});
}

TEST_CASE("a text field's length limit counts characters, as the schema says, not bytes of UTF-8") {
    // Red team, 2026-12-05: 150 x "é" (300 bytes) was refused as too long for name's 200 characters.
    std::string e150, e201;
    for (int i = 0; i < 150; ++i) e150 += "\xC3\xA9";
    for (int i = 0; i < 201; ++i) e201 += "\xC3\xA9";
    const json hw = {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}};
    CHECK_FALSE(run({{"name", e150}, {"hardware", hw}}).contains("errors"));
    const json r = run({{"name", e201}, {"hardware", hw}});
    REQUIRE(has_error(r, "name", "range"));
    CHECK(r["errors"][0]["message"].get<std::string>() == "name is too long (201 characters, at most 200)");
}

TEST_CASE("an unknown field close to a known one says which it probably meant") {
    // Page review, 2026-12-05: "overlap_moe_com" was "not a known field", with no hint.
    const json r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                        {"model", {{"preset", "llama3-8b"}}},
                        {"training", {{"overlap_moe_com", true}, {"xyz", 1}}}});
    REQUIRE(has_error(r, "training.overlap_moe_com", "unknown_field"));
    std::string messages;
    for (const auto& e : r["errors"]) messages += e["message"].get<std::string>() + "\n";
    CHECK(messages.find("training.overlap_moe_com is not a known field (did you mean training.overlap_moe_comm?)") != std::string::npos);
    CHECK(messages.find("training.xyz is not a known field\n") != std::string::npos);  // nothing near it: no guess
    // Likely typos only: at most 2 edits, fewer than half the name; case is no edit.
    CHECK(gpucalc::typo_distance("micro_batchs", "micro_batch") == 1);
    CHECK(gpucalc::typo_distance("cuont", "count") == 2);
    CHECK(gpucalc::typo_distance("COUNT", "count") == 0);
    CHECK(gpucalc::typo_distance("tpp", "tp") == 3);
    CHECK(gpucalc::typo_distance("recompute", "precision") == 3);
    // Red team, 2026-12-05: the top level, a pool's fields and a claim's had no hint.
    const json r2 = run({{"model", {{"preset", "llama3-8b"}}},
                         {"hardware", {{"pools", json::array({{{"device", "nvidia-h100-sxm5-80gb"}, {"cuont", 8}}})}}},
                         {"traning", {{"tokens", 1e9}}}});
    std::string m2;
    for (const auto& e : r2["errors"]) m2 += e["message"].get<std::string>() + "\n";
    CHECK(m2.find("traning is not a known field (did you mean training?)") != std::string::npos);
    CHECK(m2.find("hardware.pools[0].cuont is not a known field (did you mean hardware.pools[0].count?)") != std::string::npos);
}
