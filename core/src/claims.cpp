// Claims with verdicts (see claims.hpp). The scenario of each case is built by setting a path in
// the scenario JSON (iteratively; depth is bounded by the entry point) and run through the typed
// parser and estimators, never through JSON text.
#include "gpucalc/claims.hpp"

#include <cmath>
#include <utility>

#include "gpucalc/json_read.hpp"
#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/scenario_parse.hpp"

namespace gpucalc {

using json = jv::Value;

namespace {

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = path.find('.', start);
        parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) return parts;
        start = dot + 1;
    }
}

bool valid_path(const std::string& path) {
    if (path.empty() || path.size() > 100) return false;
    for (const auto& part : split_path(path)) {
        if (part.empty()) return false;
        for (char ch : part)
            if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) return false;
    }
    return true;
}

void set_at(json& j, const std::string& path, const json& v) {
    json* cur = &j;
    const auto parts = split_path(path);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!cur->is_object()) *cur = json::object();
        if (i + 1 == parts.size())
            (*cur)[parts[i]] = v;
        else
            cur = &(*cur)[parts[i]];
    }
}

bool check_passes(const ClaimCheck& c, double value) {
    if (c.min || c.max) return value >= c.min.value_or(-1e300) && value <= c.max.value_or(1e300);
    const double expected = c.expected.value_or(0), tol = c.tolerance.value_or(0);
    if (expected == 0) return std::abs(value) <= tol;
    return std::abs(value - expected) <= tol * std::abs(expected);
}

}  // namespace

std::optional<double> report_value(const json& report, const std::string& path, bool& found) {
    found = false;
    const json* cur = &report;
    for (const auto& key : split_path(path)) {
        // A section the report gives as null (inference.at_traffic without traffic it carries): the
        // figure is undefined for this scenario, not unknown (a red team).
        if (cur->is_null() && cur != &report) {
            found = true;
            return std::nullopt;
        }
        if (!cur->is_object()) return std::nullopt;
        auto it = cur->find(key);
        if (it == cur->end()) return std::nullopt;
        cur = &*it;
    }
    found = true;
    if (cur->is_boolean()) return cur->get<bool>() ? 1.0 : 0.0;
    if (cur->is_number()) return cur->get<double>();
    return std::nullopt;
}

namespace {

// One check {metric, expected, tolerance} or {metric, min, max} at path f.
ClaimCheck parse_check(const json& c, const std::string& f, Errors& errors) {
    using namespace jr;
    check_keys(c, f, errors, {"metric", "expected", "tolerance", "min", "max"});
    ClaimCheck k;
    if (auto m = string(c, "metric", f, errors, true, 100)) {
        if (!valid_path(*m))
            add_error(errors, "range", join(f, "metric"), join(f, "metric") + " must be a dotted report path such as training.days");
        k.metric = *m;
    }
    k.expected = number(c, "expected", f, errors, Range{});
    k.tolerance = number(c, "tolerance", f, errors, non_negative(1e6));
    k.min = number(c, "min", f, errors, Range{});
    k.max = number(c, "max", f, errors, Range{});
    if (!k.expected && !k.min && !k.max) add_error(errors, "missing", join(f, "expected"), f + " needs expected (+ tolerance) or min/max");
    if (k.expected && (k.min || k.max))
        add_error(errors, "conflict", join(f, "expected"), f + " gives expected (+ tolerance) and min/max: a check is one or the other");
    if (k.tolerance && !k.expected) add_error(errors, "conflict", join(f, "tolerance"), join(f, "tolerance") + " applies to expected only");
    if (k.min && k.max && *k.min > *k.max)
        add_error(errors, "range", join(f, "min"),
                  join(f, "min") + " (" + fmt_num(*k.min) + ") is above max (" + fmt_num(*k.max) + "): the check could never hold");
    return k;
}

// The claim's checks: an array of 1 to 32.
void parse_checks(const json& j, const std::string& path, Claim& out, Errors& errors) {
    const std::string cp = jr::join(path, "checks");
    auto checks = j.find("checks");
    if (checks == j.end() || !checks->is_array() || checks->empty() || checks->size() > kMaxClaimChecks) {
        add_error(errors, "missing", cp, cp + " must be an array of 1 to 32 checks {metric, expected, tolerance} or {metric, min, max}");
        return;
    }
    for (std::size_t i = 0; i < checks->size(); ++i) {
        const json& c = (*checks)[i];
        const std::string f = cp + "[" + std::to_string(i) + "]";
        if (!c.is_object()) {
            add_error(errors, "type", f, f + " must be an object {metric, expected, tolerance} or {metric, min, max}");
            continue;
        }
        out.checks.push_back(parse_check(c, f, errors));
    }
}

// One varied input {path, values} at path ip; multiplies `cases` by its number of values.
ClaimVary parse_vary_input(const json& item, const std::string& ip, std::size_t& cases, Errors& errors) {
    using namespace jr;
    check_keys(item, ip, errors, {"path", "values"});
    ClaimVary cv;
    if (auto p = string(item, "path", ip, errors, true, 100)) {
        const std::string first = p->substr(0, p->find('.'));
        if (!valid_path(*p))
            add_error(errors, "range", join(ip, "path"), join(ip, "path") + " must be a dotted scenario path such as training.mfu");
        else if (first == "claim" || first == "inverse" || first == "plan")
            add_error(errors, "range", join(ip, "path"),
                      join(ip, "path") + " cannot vary " + first + " (a claim varies scenario inputs only)");
        cv.path = *p;
    }
    auto vals = item.find("values");
    if (vals == item.end() || !vals->is_array() || vals->empty() || vals->size() > kMaxVaryValues)
        add_error(errors, "range", join(ip, "values"), join(ip, "values") + " must be an array of 1 to 16 values");
    else {
        for (const auto& x : *vals) cv.values.push_back(x);
        cases *= vals->size();
    }
    return cv;
}

// The claim's varied inputs (v: the "vary" value at path.vary); their cases multiply, at most 64.
void parse_vary(const json& v, const std::string& path, Claim& out, Errors& errors) {
    const std::string vp = jr::join(path, "vary");
    // One input {path, values}, or an array of up to three.
    std::vector<std::pair<const json*, std::string>> items;
    if (v.is_object())
        items.push_back({&v, vp});
    else if (v.is_array() && !v.empty() && v.size() <= kMaxVaryInputs)
        for (std::size_t i = 0; i < v.size(); ++i) items.push_back({&v[i], vp + "[" + std::to_string(i) + "]"});
    else
        add_error(errors, "type", vp, vp + " must be {\"path\": ..., \"values\": [...]} or an array of 1 to 3 of them");
    std::size_t cases = 1;
    for (const auto& [item, ip] : items) {
        if (!item->is_object()) {
            add_error(errors, "type", ip, ip + " must be {\"path\": \"training.mfu\", \"values\": [...]}");
            continue;
        }
        out.vary.push_back(parse_vary_input(*item, ip, cases, errors));
    }
    if (cases > kMaxClaimCases) add_error(errors, "range", vp, vp + " gives " + std::to_string(cases) + " cases; at most 64 are evaluated");
    // Two inputs on the same path, or one inside the other: the later would silently win.
    for (std::size_t i = 0; i < out.vary.size(); ++i)
        for (std::size_t k = i + 1; k < out.vary.size(); ++k) {
            const std::string &a = out.vary[i].path, &b = out.vary[k].path;
            if (a.empty() || b.empty()) continue;
            if (a == b || b.rfind(a + ".", 0) == 0 || a.rfind(b + ".", 0) == 0)
                add_error(errors, "conflict", vp, vp + " varies " + a + " and " + b + ": one would overwrite the other");
        }
}

}  // namespace

bool parse_claim(const json& j, const std::string& path, Claim& out, Errors& errors) {
    using namespace jr;
    const std::size_t before = errors.size();
    if (!j.is_object()) {
        add_error(errors, "type", path, path + " must be an object {checks, vary, depends, unverifiable}");
        return false;
    }
    check_keys(j, path, errors, {"checks", "vary", "depends", "unverifiable", "size_to_traffic"});
    if (j.contains("size_to_traffic")) {
        if (auto b = boolean(j, "size_to_traffic", path, errors)) out.size_to_traffic = *b;
    }
    parse_checks(j, path, out, errors);
    if (auto v = j.find("vary"); v != j.end()) parse_vary(*v, path, out, errors);
    if (j.contains("depends")) {
        if (auto d = string(j, "depends", path, errors, true, 2000)) out.depends = *d;
    }
    if (j.contains("unverifiable")) {
        if (auto d = string(j, "unverifiable", path, errors, true, 2000)) out.unverifiable = *d;
    }
    return errors.size() == before;
}

namespace {

// Cases: the scenario as given, or every combination of the varied inputs (each with its label).
std::vector<std::pair<std::string, json>> claim_cases(const json& scenario, const Claim& claim) {
    std::vector<std::pair<std::string, json>> cases = {{"as given", scenario}};
    for (const auto& v : claim.vary) {
        std::vector<std::pair<std::string, json>> next;
        for (const auto& [label, s] : cases)
            for (const auto& value : v.values) {
                json c = s;
                set_at(c, v.path, value);
                next.push_back({(label == "as given" ? "" : label + ", ") + v.path + " = " + jr::to_text(value), c});
            }
        cases = std::move(next);
    }
    return cases;
}

// The claim's checks on one case's report: each metric's value into `values`, and whether all pass.
// False (with an error) if a metric is undefined or unknown.
bool check_report(const json& report, const std::string& label, const Claim& claim, json& values, bool& all, Errors& errors) {
    for (std::size_t i = 0; i < claim.checks.size(); ++i) {
        const ClaimCheck& c = claim.checks[i];
        bool found = false;
        const auto v = report_value(report, c.metric, found);
        if (!v) {
            const std::string f = "claim.checks[" + std::to_string(i) + "].metric";
            if (found)
                add_error(errors, "undefined", f,
                          f + ": " + c.metric + " is undefined for this scenario (" + label + "); see the report's warnings");
            else
                add_error(errors, "unknown_metric", f, f + ": the report has no figure " + jr::shorten(c.metric));
            return false;
        }
        values[c.metric] = *v;
        all = check_passes(c, *v) && all;
    }
    return true;
}

// One case's report, or null (with errors) if its scenario does not parse.
json case_report(const std::string& label, const json& sj, Errors& errors) {
    Scenario s;
    Errors case_errors;
    if (!parse_scenario(sj, s, case_errors)) {
        for (auto& e : case_errors) {
            e.message = "claim case " + label + ": " + e.message;
            errors.push_back(e);
        }
        return nullptr;
    }
    s.explain = false;
    return build_report(s);
}

// Runs one case (its scenario sj) and checks it; false (with errors) if it does not parse or a metric
// is missing. With claim.size_to_traffic a serving case is judged on the GPUs its traffic needs
// (hardware.count = inference.gpus_needed), and its scenario says so: the case opened shows that
// fleet, neither a shortfall beside the verdict nor copies idling at a smaller batch (the ChatGPT
// claim opened on 8 GPUs: "the claim holds here" above "the 8 GPUs given are not enough: 16.1 k are
// needed", a newcomer's review).
bool evaluate_case(const std::string& label, json& sj, const Claim& claim, json& values, bool& all, Errors& errors) {
    json report = case_report(label, sj, errors);
    if (report.is_null()) return false;
    const json& needed = std::as_const(report)["inference"]["gpus_needed"];
    if (claim.size_to_traffic && needed.is_number() && needed != std::as_const(report)["inputs"]["hardware"]["count"]) {
        sj["hardware"]["count"] = needed.get<double>();
        report = case_report(label, sj, errors);
        if (report.is_null()) return false;
    }
    return check_report(report, label, claim, values, all, errors);
}

// The verdict and its reason: as the claim declares it, or from the cases that pass and fail.
void claim_verdict(const Claim& claim, int pass, int fail, json& out) {
    std::string vary_paths;
    for (const auto& v : claim.vary) vary_paths += (vary_paths.empty() ? "" : " and ") + v.path;
    if (!claim.unverifiable.empty()) {
        out["verdict"] = "unverifiable";
        out["reason"] = claim.unverifiable;
    } else if (!claim.depends.empty()) {
        out["verdict"] = "depends";
        out["reason"] = claim.depends;
    } else if (fail == 0) {
        out["verdict"] = "consistent";
        out["reason"] = vary_paths.empty() ? "every check holds" : "every check holds across the range of " + vary_paths;
    } else if (pass == 0) {
        out["verdict"] = "inconsistent";
        out["reason"] = vary_paths.empty() ? "a check fails" : "the checks fail across the whole range of " + vary_paths;
    } else {
        out["verdict"] = "depends";
        out["reason"] = "holds for some values of " + vary_paths + " and not for others";
    }
}

}  // namespace

json evaluate_claim(const json& scenario, const Claim& claim, Errors& errors) {
    std::vector<std::pair<std::string, json>> cases = claim_cases(scenario, claim);
    json evaluations = json::array();
    int pass = 0, fail = 0;
    for (auto& [label, sj] : cases) {
        bool all = true;
        json values = json::object();
        if (!evaluate_case(label, sj, claim, values, all, errors)) return nullptr;
        (all ? pass : fail)++;
        // The case's own scenario, so that a reader (the page's "Open") loads exactly what was judged.
        evaluations.push_back({{"case", label}, {"scenario", sj}, {"values", values}, {"consistent", all}});
    }
    json out;
    out["evaluations"] = evaluations;
    claim_verdict(claim, pass, fail, out);
    return out;
}

}  // namespace gpucalc
