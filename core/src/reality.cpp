// Reality check: published runs vs our estimate, and claims with verdicts (core/data/reality.json).
#include "gpucalc/reality.hpp"

#include <cmath>

#include "gpucalc/api.hpp"
#include "gpucalc/json_read.hpp"

namespace gpucalc {

const std::string& reality_json_text();  // generated from core/data/reality.json by CMake

using nlohmann::json;

namespace {

const json& data() {
    static const json d = json::parse(reality_json_text(), nullptr, false);
    return d;
}

// Value at a dotted path ("training.days") of a report; booleans read as 1/0.
std::optional<double> at(const json& j, const std::string& path) {
    const json* cur = &j;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!cur->is_object()) return std::nullopt;
        auto it = cur->find(key);
        if (it == cur->end()) return std::nullopt;
        cur = &*it;
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    if (cur->is_boolean()) return cur->get<bool>() ? 1.0 : 0.0;
    if (cur->is_number()) return cur->get<double>();
    return std::nullopt;
}

void set_at(json& j, const std::string& path, const json& v) {
    json* cur = &j;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!cur->is_object()) *cur = json::object();
        if (dot == std::string::npos) {
            (*cur)[key] = v;
            return;
        }
        cur = &(*cur)[key];
        start = dot + 1;
    }
}

json run_scenario(const json& scenario) {
    json s = scenario;
    s["explain"] = false;
    return json::parse(estimate_json(jr::to_text(s)), nullptr, false);
}

// One check against one report: {"metric", "expected", "tolerance"} or {"metric", "min", "max"}.
bool check_passes(const json& report, const json& check, double& value) {
    const std::string metric = check.value("metric", std::string());
    auto v = at(report, metric);
    if (!v) return false;
    value = *v;
    if (check.contains("min") || check.contains("max")) {
        const double lo = check.value("min", -1e300), hi = check.value("max", 1e300);
        return value >= lo && value <= hi;
    }
    const double expected = check.value("expected", 0.0), tol = check.value("tolerance", 0.0);
    if (expected == 0) return std::abs(value) <= tol;
    return std::abs(value - expected) <= tol * std::abs(expected);
}

}  // namespace

json evaluate_claim(const json& scenario, const json& claim, Errors& errors) {
    if (!claim.is_object() || !claim.contains("checks") || !claim["checks"].is_array() || claim["checks"].empty()) {
        add_error(errors, "missing", "claim.checks", "claim.checks must be a non-empty array of {metric, expected, tolerance} or {metric, min, max}");
        return nullptr;
    }
    jr::check_keys(claim, "claim", errors, {"checks", "vary", "depends"});
    if (claim["checks"].size() > 32) add_error(errors, "range", "claim.checks", "claim.checks holds at most 32 checks");
    for (std::size_t i = 0; i < claim["checks"].size() && i < 32; ++i) {
        const json& c = claim["checks"][i];
        const std::string f = "claim.checks[" + std::to_string(i) + "]";
        if (!c.is_object()) {
            add_error(errors, "type", f, f + " must be an object {metric, expected, tolerance} or {metric, min, max}");
            continue;
        }
        jr::check_keys(c, f, errors, {"metric", "expected", "tolerance", "min", "max"});
        jr::string(c, "metric", f, errors, true, 100);
        const auto e = jr::number(c, "expected", f, errors, jr::Range{});
        jr::number(c, "tolerance", f, errors, jr::non_negative(1e6));
        const auto lo = jr::number(c, "min", f, errors, jr::Range{});
        const auto hi = jr::number(c, "max", f, errors, jr::Range{});
        if (!e && !lo && !hi) add_error(errors, "missing", f + ".expected", f + " needs expected (+ tolerance) or min/max");
    }
    if (claim.contains("vary")) {
        const json& v = claim["vary"];
        if (!v.is_object()) add_error(errors, "type", "claim.vary", "claim.vary must be {\"path\": \"training.mfu\", \"values\": [...]}");
        else {
            jr::check_keys(v, "claim.vary", errors, {"path", "values"});
            jr::string(v, "path", "claim.vary", errors, true, 100);
            if (!v.contains("values") || !v["values"].is_array() || v["values"].empty() || v["values"].size() > 16)
                add_error(errors, "range", "claim.vary.values", "claim.vary.values must be an array of 1 to 16 values");
        }
    }
    if (claim.contains("depends") && !claim["depends"].is_string())
        add_error(errors, "type", "claim.depends", "claim.depends must be a string (the reason)");
    if (!errors.empty()) return nullptr;
    // Evaluate at the scenario as given and at each value of the varied input, if any.
    std::vector<std::pair<std::string, json>> cases = {{"as given", scenario}};
    std::string vary_path;
    if (claim.contains("vary") && claim["vary"].is_object() && claim["vary"].contains("values") && claim["vary"]["values"].is_array()) {
        vary_path = claim["vary"].value("path", std::string());
        cases.clear();
        for (const auto& v : claim["vary"]["values"]) {
            json s = scenario;
            set_at(s, vary_path, v);
            cases.push_back({vary_path + " = " + jr::to_text(v), s});
        }
    }
    json evaluations = json::array();
    int pass = 0, fail = 0;
    for (const auto& [label, s] : cases) {
        const json r = run_scenario(s);
        if (r.is_discarded() || r.contains("errors")) {
            for (const auto& e : r.value("errors", json::array()))
                add_error(errors, e.value("code", std::string("invalid")), e.value("field", std::string()), e.value("message", std::string()));
            return nullptr;
        }
        bool all = true;
        json values = json::object();
        for (const auto& c : claim["checks"]) {
            double v = 0;
            const bool ok = check_passes(r, c, v);
            values[c["metric"].get<std::string>()] = v;
            all = all && ok;
        }
        (all ? pass : fail)++;
        evaluations.push_back({{"case", label}, {"values", values}, {"consistent", all}});
    }
    json out;
    out["evaluations"] = evaluations;
    if (claim.contains("depends") && claim["depends"].is_string()) {
        out["verdict"] = "depends";
        out["reason"] = claim["depends"];
    } else if (fail == 0) {
        out["verdict"] = "consistent";
        out["reason"] = "every check holds";
    } else if (pass == 0) {
        out["verdict"] = "inconsistent";
        out["reason"] = vary_path.empty() ? "a check fails" : "the checks fail across the whole range of " + vary_path;
    } else {
        out["verdict"] = "depends";
        out["reason"] = "holds for some values of " + vary_path + " and not for others";
    }
    return out;
}

json reality_report() {
    const json& d = data();
    json runs = json::array();
    for (const auto& run : d["runs"]) {
        const json r = run_scenario(run["scenario"]);
        json rows = json::array();
        for (const auto& p : run["published"]) {
            const std::string metric = p["metric"].get<std::string>();
            std::optional<double> pred = at(r, "training." + metric);
            json row = {{"metric", metric}, {"published", p["value"]}, {"source", p["source"]},
                        {"from_assumptions", p.value("from_assumptions", false)}, {"unofficial", p.value("unofficial", false)},
                        {"note", p.value("note", std::string())}};
            row["estimate"] = pred ? json(*pred) : json(nullptr);
            const double pub = p["value"].get<double>();
            row["error"] = (pred && pub != 0) ? json((*pred - pub) / pub) : json(nullptr);
            rows.push_back(row);
        }
        json est = json::object();
        if (r.contains("training"))
            for (const char* k : {"days", "gpu_hours", "cost_usd", "energy_kwh", "mfu", "mfu_source", "flops", "fits"}) est[k] = r["training"][k];
        runs.push_back({{"id", run["id"]}, {"name", run["name"]}, {"scenario", run["scenario"]}, {"assumptions", run["assumptions"]},
                        {"estimate", est}, {"comparisons", rows}, {"errors", r.value("errors", json::array())}});
    }
    json claims = json::array();
    for (const auto& c : d["claims"]) {
        Errors errors;
        json claim = json::object();
        for (const char* k : {"checks", "vary", "depends"})
            if (c.contains(k)) claim[k] = c[k];
        json v = evaluate_claim(c["scenario"], claim, errors);
        claims.push_back({{"id", c["id"]}, {"text", c["text"]}, {"scenario", c["scenario"]}, {"explanation", c.value("explanation", std::string())},
                          {"verdict", v.is_null() ? json("error") : v["verdict"]}, {"reason", v.is_null() ? json(errors.empty() ? "" : errors[0].message) : v["reason"]},
                          {"evaluations", v.is_null() ? json::array() : v["evaluations"]}});
    }
    return {{"gpucalc_version", kVersion}, {"runs", runs}, {"claims", claims}};
}

std::string reality_json() { return jr::to_text(reality_report()); }

}  // namespace gpucalc
