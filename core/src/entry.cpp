// The entry points (api.hpp): the one place where JSON text comes in. Each checks the size and the
// nesting depth before parsing (so nothing later can recurse deeply over user JSON), dispatches to
// the typed code (report, claims, inverse, plan search, reality, schema), and catches anything
// unexpected so that no exception ever crosses into the CLI or the WebAssembly boundary.
#include "gpucalc/api.hpp"

#include <chrono>
#include <cmath>
#include <exception>

#include "gpucalc/catalog.hpp"
#include "gpucalc/claims.hpp"
#include "gpucalc/inverse.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/reality.hpp"
#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/scenario_parse.hpp"

namespace gpucalc {

using json = jv::Value;

namespace {

std::string errors_text(const Errors& errors) {
    jw::Doc doc;
    write_errors(doc.root(), errors);
    return doc.text();
}

// Size, depth and syntax of every scenario; a discarded value (with the error) on failure.
json parse_text(const std::string& text, Errors& errors) {
    if (text.size() > kMaxScenarioBytes) {
        add_error(errors, "too_large", "",
                  "the scenario is over " + std::to_string(kMaxScenarioBytes) +
                      " bytes, the most accepted");  // the CLI stops reading there: no size
        return json::discarded();
    }
    const int depth = json_nesting_depth(text);
    if (depth > kMaxNestingDepth) {
        add_error(errors, "too_deep", "",
                  "the scenario nests " + std::to_string(depth) + " levels of arrays/objects; at most " + std::to_string(kMaxNestingDepth) +
                      " are accepted");
        return json::discarded();
    }
    jv::ParseError where;
    std::vector<std::string> duplicates;
    json j = json::parse(text, &where, 512, &duplicates);
    if (j.is_discarded()) add_error(errors, "malformed_json", "", "the scenario is not valid JSON: " + where.message);
    for (const auto& d : duplicates)
        add_error(errors, "duplicate_key", d,
                  d + " is given more than once in its object: give it once (which one was meant is not guessed)");
    return duplicates.empty() ? j : json::discarded();
}

// Runs f; anything thrown becomes an "internal" error report instead of crossing the boundary.
template <class F>
std::string guarded(F&& f) {
    try {
        return f();
    } catch (const std::exception& e) {
        Errors errors;
        add_error(errors, "internal", "",
                  std::string("internal error (please report it with the scenario): ") + jr::shorten(e.what(), 200));
        return errors_text(errors);
    } catch (...) {
        Errors errors;
        add_error(errors, "internal", "", "internal error (please report it with the scenario)");
        return errors_text(errors);
    }
}

// Removes `key` from the scenario object and returns it (null when absent).
json take(json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    if (it == j.end()) return nullptr;
    json v = std::move(*it);
    j.erase(it);
    return v;
}

// Inputs that the question asked does not use, said in the answer's warnings rather than dropped
// silently: gpus_needed answers the count (hardware.count), sizes no model from a budget
// (inverse.tokens_per_param) and compares no networks; a budget given is compared with its cost.
void unused_inverse_inputs(const json& j, const json& q, const InverseQuestion& question, const json& answer, json& warnings) {
    if (question.question != InverseKind::gpus_needed || !q.is_object()) return;
    if (j.is_object() && j["hardware"].is_object() && j["hardware"].contains("count"))
        warnings.push_back("inverse: hardware.count is not used: gpus_needed answers the GPU count (inverse.gpus)");
    for (const char* k : {"tokens_per_param", "compare_networks"})
        if (q.contains(k))
            warnings.push_back(std::string("inverse: inverse.") + k + " is not used by gpus_needed (a what_can_train input)");
    if (!question.budget_usd) return;
    // Whole dollars from $1,000, every digit (%g would write $1e+06); below, six significant digits
    // ($0.4, not a rounded $0 that reads as equal to another).
    const auto usd = [](double v) {
        return "$" + (v >= 1000 && v < 1e15 ? std::to_string(static_cast<long long>(std::llround(v))) : jr::fmt_num(v));
    };
    const std::string budget = "inverse.budget_usd (" + usd(*question.budget_usd) + ")";
    const bool costed = answer.is_object() && answer["cost_usd"].is_number();
    const double cost = costed ? answer["cost_usd"].get<double>() : 0.0;
    if (!costed)
        warnings.push_back("inverse: " + budget + " is not compared: " +
                           (answer.is_object() && answer["gpus"].is_number() ? "the answer has no cost (no $/GPU-hour)"
                                                                             : "no GPU count meets the deadline"));
    else
        warnings.push_back("inverse: meeting the deadline costs " + usd(cost) + (cost > *question.budget_usd ? ", above " : ", within ") +
                           budget);
}

// An inverse question searches the layout at each device count it tries, holding the layout fields
// given fixed: training.layout auto. A scenario that gives tp, pp or dp reads as a layout given as is
// (scenario_parse), which the answer did not use: gpus_needed with tp 8 answered 3,064 H100 in 59.9
// days for Llama 3 70B at its searched layout, where an estimate of that scenario on 3,064 (the given
// layout: pp 1, its defaults) takes 97.5 days (a red team). The layout is auto, and the echo says so,
// so that an estimate of the echo on the count answered is the run answered; a layout given as is
// (training.layout given) is refused rather than ignored.
void inverse_layout(Scenario& s, Errors& errors) {
    if (!s.training) return;
    TrainingConfig& t = *s.training;
    const std::uint64_t bit = field_bit(training_fields(), "layout");
    if ((t.given & bit) && t.layout == LayoutMode::given)
        add_error(errors, "conflict", "training.layout",
                  "inverse questions search the layout at each device count, holding the layout fields given fixed: leave "
                  "training.layout out, or set it to auto (a layout given as is fixes dp, which the count answers)");
    if (t.layout == LayoutMode::given && !(t.given & bit)) t.layout = LayoutMode::automatic, t.given |= bit;
}

std::string answer_inverse_text(json j, const json& q) {
    Errors errors;
    InverseQuestion question;
    if (!q.is_object())
        add_error(errors, "type", "inverse", "inverse must be an object {question, days, budget_usd, tokens_per_param}");
    else {
        check_table_keys(q, "inverse", inverse_fields(), errors);
        if (!q.contains("question"))
            add_error(errors, "missing", "inverse.question", "inverse.question is required (what_can_train or gpus_needed)");
        read_fields(q, "inverse", inverse_fields(), question, errors);
    }
    Scenario s;
    if (j.is_object() && j.contains("claim")) {
        add_error(errors, "conflict", "claim", "a scenario asks either an inverse question or a claim, not both");
        j.erase("claim");  // said once, not again as an unknown field
    }
    // gpus_needed sizes the count for the model: the layout fields given must still suit the model
    // (model.heads divisible by training.tp, ...), or no count could answer and the reason would be lost.
    parse_scenario(j, s, errors, question.question == InverseKind::gpus_needed ? LayoutCheck::model : LayoutCheck::none);
    if (errors.empty()) inverse_layout(s, errors);
    if (!errors.empty()) return errors_text(errors);
    json answer = answer_inverse(s, question, errors);
    if (!errors.empty()) return errors_text(errors);
    // The answer's warnings sit at the top, as in every report.
    json warnings = answer.is_object() && answer.contains("warnings") ? answer["warnings"] : json::array();
    if (answer.is_object()) answer.erase("warnings");
    unused_inverse_inputs(j, q, question, answer, warnings);
    return jr::to_text(
        json{{"gpucalc_version", kVersion}, {"inputs", inputs_echo(s, question)}, {"inverse", answer}, {"warnings", warnings}});
}

}  // namespace

std::string estimate_json(const std::string& text) {
    return guarded([&] {
        Errors errors;
        json j = parse_text(text, errors);
        if (j.is_discarded()) return errors_text(errors);
        const json inverse = take(j, "inverse");
        if (!inverse.is_null()) return answer_inverse_text(std::move(j), inverse);
        const json claim_json = take(j, "claim");
        Claim claim;
        if (!claim_json.is_null()) parse_claim(claim_json, "claim", claim, errors);
        Scenario s;
        parse_scenario(j, s, errors);
        if (!errors.empty()) return errors_text(errors);
        jw::Doc doc;
        write_report(doc.root(), s);
        if (!claim_json.is_null()) {
            json verdict = evaluate_claim(j, claim, errors);
            if (!errors.empty()) return errors_text(errors);
            doc.root()["claim"] = verdict;
        }
        return doc.text();
    });
}

std::string explain_json(const std::string& text, const std::string& key) {
    return guarded([&] {
        Errors errors;
        json j = parse_text(text, errors);
        if (j.is_discarded()) return errors_text(errors);
        take(j, "inverse");
        take(j, "claim");
        Scenario s;
        parse_scenario(j, s, errors);
        if (!errors.empty()) return errors_text(errors);
        s.explain = true;
        jw::Doc report;
        write_report(report.root(), s);
        const jw::Val all = report.root()["explain"];
        jw::Doc doc;
        doc.root()["gpucalc_version"] = kVersion;
        jw::Val out = doc.root()["explain"];
        out.set_object();
        if (key.empty())
            out.copy(all);
        else if (all.contains(key))
            out[key].copy(report.root()["explain"][key]);
        else  // said, not an empty object with no reason (red-team)
            doc.root()["warnings"].append() =
                "no derivation of the key asked for in this scenario (not echoed: a key may be any "
                "length): a figure the report gives as null has none (a run that does not "
                "fit), nor does a part of a step the model does not time alone (a mixed fleet's "
                "breakdown); explain without a key lists the derivations there are";
        return doc.text();
    });
}

namespace {
// Tensor parallelism within a node unless plan.max_tp or plan.tp is given, as the estimate's automatic
// layout searches it (layout.cpp): 16 L4 (one per node) ranked TP 2 first, the estimate ran TP 1.
void default_max_tp(const json& plan, const Scenario& s, PlanOptions& opt) {
    if (!(plan.is_object() && plan.contains("max_tp")) && !opt.only_tp && s.hardware) opt.max_tp = max_tp_within_node(*s.hardware);
}
// Each plan's step time and MFU are central estimates: the band they carry (as a training estimate of
// the same device and framework does), and the most MFU the device reaches (the fastest matmul
// measured on it: a row's mfu x high stops there; with recomputation it is lower by model / hardware FLOPs).
void write_plan_band(jw::Val out, const Scenario& s) {
    const Efficiency eff = training_efficiency(*s.training, s.hardware->device);
    const ThroughputBand band = throughput_band(eff, s.model->is_moe(), band_scope(*s.model, *s.hardware, *s.training));
    const std::optional<double> ceiling = matmul_ceiling(eff.gen, s.hardware->device, s.training->precision);
    out = {{"low", band.lo},
           {"high", band.hi},
           {"basis", band.basis},
           {"widened", band.widened},
           {"mfu_ceiling", ceiling ? jw::Scalar(*ceiling) : jw::Scalar(nullptr)}};
}
}  // namespace

std::string plan_json(const std::string& text) {
    return guarded([&] {
        Errors errors;
        json j = parse_text(text, errors);
        if (j.is_discarded()) return errors_text(errors);
        PlanOptions opt;
        const json p = take(j, "plan");
        if (!p.is_null()) {
            if (!p.is_object())
                add_error(errors, "type", "plan", "plan must be an object {top_k, max_tp, max_vpp, max_micro_batch, tp}");
            else {
                check_table_keys(p, "plan", plan_fields(), errors);
                read_fields(p, "plan", plan_fields(), opt, errors);
            }
        }
        Scenario s;
        if (!parse_scenario(j, s, errors, LayoutCheck::search) || !errors.empty()) return errors_text(errors);
        default_max_tp(p, s, opt);
        check_plan_options(s, opt, errors);
        // The search sizes one device type; it searched the first pool's and said nothing.
        if (s.hardware && mixed_fleet(*s.hardware))
            add_error(errors, "unsupported", "hardware.pools",
                      "the plan search needs one device type (hardware.device); a mixed fleet's layout is searched by the estimate, "
                      "pool by pool (gpucalc estimate)");
        if (!s.model) add_error(errors, "missing", "model", "plan search needs a model (a preset, layers/hidden/heads, or params)");
        if (!s.training)
            add_error(errors, "missing", "training",
                      "plan search needs a training section: {} lets it choose the global batch, or give training.global_batch");
        if (!errors.empty()) return errors_text(errors);
        const auto t0 = std::chrono::steady_clock::now();
        PlanResult r = search_plans(*s.model, *s.hardware, *s.training, opt);
        r.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        jw::Doc doc;
        doc.root()["gpucalc_version"] = kVersion;
        write_plan_result(doc.root()["plan"], r);
        write_plan_band(doc.root()["plan"]["band"], s);
        // An empty plan says why, as an estimate of the same scenario does.
        jw::Val warnings = doc.root()["warnings"];
        warnings.set_array();
        if (const std::string why = no_plan_reason(r, *s.hardware, *s.training); !why.empty()) warnings.append() = why;
        // A bare parameter count is searched as the estimate times it: on a GPT-like shape (training.cpp).
        doc.root()["plan"]["assumed_shape"] = nullptr;
        if (!s.model->has_architecture) {
            const TrainingModel tm = training_model(*s.model);
            doc.root()["plan"]["assumed_shape"] = {{"layers", tm.shape.layers}, {"hidden", tm.shape.hidden}, {"vocab", tm.shape.vocab}};
            warnings.append() = "model given by parameter count only: the search lays out a GPT-like shape (" + assumed_shape_words(tm) +
                                ") holding the stated parameter counts" +
                                (tm.assumed_experts ? ", the parameters beyond the active count as " + jr::fmt_num(tm.in.experts) +
                                                          " routed experts, 2 per token"
                                                    : "") +
                                ", as the estimate does; a real architecture's layouts differ";
        }
        return doc.text();
    });
}

std::string devices_json() {
    return guarded([] {
        static const std::string text = [] {  // the catalog never changes
            jw::Doc doc;
            write_catalog(doc.root());
            return doc.text();
        }();
        return text;
    });
}

std::string presets_json() {
    return guarded([] {
        jw::Doc doc;
        jw::Val arr = doc.root()["models"];
        arr.set_array();
        for (const auto& p : model_presets()) {
            jw::Val m = arr.append();
            write_model(m, p.spec);
            m["id"] = p.id;
            m["published_params"] = p.published_params;
            m["published_source"] = p.published_source;
        }
        return doc.text();
    });
}

std::string reality_json() {
    return guarded([] { return jr::to_text(reality_report()); });
}

std::string networks_json() {
    return guarded([] { return jr::to_text(networks_to_json()); });
}

std::string schema_json_text() {
    return guarded([] { return jr::to_text(schema_json()); });
}

}  // namespace gpucalc
