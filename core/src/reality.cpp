// Reality check: published runs vs our estimate, and claims with verdicts (core/data/reality.json).
#include "gpucalc/reality.hpp"

#include <cmath>

#include "gpucalc/claims.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/scenario_parse.hpp"
#include "gpucalc/version.hpp"

namespace gpucalc {

const std::string& reality_json_text();  // generated from core/data/reality.json by CMake

using json = jv::Value;

namespace {

const json& data() {
    static const json d = json::parse(reality_json_text());
    return d;
}

// The report of a scenario from the data file (explain off); errors in `errors`.
json run_scenario(const json& scenario, Errors& errors) {
    Scenario s;
    if (!parse_scenario(scenario, s, errors)) return nullptr;
    s.explain = false;
    return build_report(s);
}

}  // namespace

json reality_report() {
    const json& d = data();
    json runs = json::array();
    for (const auto& run : d["runs"]) {
        Errors errors;
        const json r = run_scenario(run["scenario"], errors);
        json rows = json::array();
        for (const auto& p : run["published"]) {
            const std::string metric = p["metric"].get<std::string>();
            bool found = false;
            const std::optional<double> got = r.is_null() ? std::nullopt : report_value(r, "training." + metric, found);
            const bool has_pred = got.has_value();
            const double pred = got.value_or(0);
            json row = {{"metric", metric},
                        {"published", p["value"]},
                        {"source", p["source"]},
                        {"from_assumptions", p.value("from_assumptions", false)},
                        {"unofficial", p.value("unofficial", false)},
                        {"note", p.value("note", std::string())}};
            row["estimate"] = has_pred ? json(pred) : json(nullptr);
            const double pub = p["value"].get<double>();
            row["error"] = (has_pred && pub != 0) ? json((pred - pub) / pub) : json(nullptr);
            rows.push_back(row);
        }
        json est = json::object();
        if (r.is_object() && r.contains("training"))
            for (const char* k : {"days", "gpu_hours", "cost_usd", "energy_kwh", "mfu", "mfu_source", "flops", "fits"})
                est[k] = r["training"][k];
        runs.push_back({{"id", run["id"]},
                        {"name", run["name"]},
                        {"scenario", run["scenario"]},
                        {"assumptions", run["assumptions"]},
                        {"estimate", est},
                        {"comparisons", rows},
                        {"errors", errors_to_json(errors)["errors"]}});
    }
    json claims = json::array();
    for (const auto& c : d["claims"]) {
        Errors errors;
        json claim_json = json::object();
        for (const char* k : {"checks", "vary", "depends", "unverifiable", "size_to_traffic"})
            if (c.contains(k)) claim_json[k] = c[k];
        Claim claim;
        json v = parse_claim(claim_json, "claim", claim, errors) ? evaluate_claim(c["scenario"], claim, errors) : json(nullptr);
        claims.push_back({{"id", c["id"]},
                          {"text", c["text"]},
                          {"scenario", c["scenario"]},
                          {"explanation", c.value("explanation", std::string())},
                          // The case "Open" loads (its index among the evaluations; null: the first that holds).
                          {"open_case", c.contains("open_case") ? c["open_case"] : json(nullptr)},
                          {"verdict", v.is_null() ? json("error") : v["verdict"]},
                          {"reason", v.is_null() ? json(errors.empty() ? "" : errors[0].message) : v["reason"]},
                          {"evaluations", v.is_null() ? json::array() : v["evaluations"]}});
    }
    return {{"gpucalc_version", kVersion}, {"runs", runs}, {"claims", claims}};
}

}  // namespace gpucalc
