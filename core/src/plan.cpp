#include "gpucalc/plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "gpucalc/api.hpp"
#include "gpucalc/json_read.hpp"

namespace gpucalc {

using nlohmann::json;

namespace {

bool divides(double a, double b) { return b > 0 && std::fmod(a, b) == 0; }  // b | a

}  // namespace

PlanResult search_plans(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, const PlanOptions& opt) {
    PlanResult out;
    const StepInputs in = step_inputs(m);
    const Efficiency eff = efficiency_for(hw.device);
    const double n = hw.count;
    const double cap = hw.device.memory_bytes.value_or(0);
    const double gb = base.global_batch.value_or(default_global_batch(m.seq_len, 1));
    const double peak = hw.device.peak(base.precision).value_or(0);
    const double model_flops = model_flops_per_token_training(m);
    const Recompute modes[3] = {Recompute::none, Recompute::selective, Recompute::full};

    std::vector<Plan> all_best;  // top-k kept sorted
    std::vector<Plan> layout_best;
    const auto k = static_cast<std::size_t>(opt.top_k);
    auto make_plan = [&](const TrainingConfig& c, const StepEstimate& e) {
        Plan p;
        p.config = c;
        p.step_seconds = e.step.total;
        p.memory_per_gpu_bytes = e.memory.total;
        p.tokens_per_second = gb * m.seq_len / e.step.total;
        p.mfu = peak > 0 ? model_flops * p.tokens_per_second / (n * peak) : 0;
        p.bubble_fraction = e.step.total > 0 ? e.step.pp_bubble / e.step.total : 0;
        return p;
    };
    for (double tp = 1; tp <= opt.max_tp; tp *= 2) {
        if (opt.only_tp > 0 && tp != opt.only_tp) continue;
        for (double pp = 1; pp <= m.layers; ++pp) {
            if (!divides(n, tp * pp)) continue;
            const double dp = n / (tp * pp);
            const bool layout_ok = divides(m.heads, tp) && divides(m.layers, pp) && divides(dp, base.ep);
            bool have_layout = false;
            Plan best_layout;
            for (double vpp = 1; vpp <= opt.max_vpp; ++vpp) {
                if (vpp > 1 && pp == 1) continue;
                for (double mb = 1; mb <= opt.max_micro_batch; ++mb) {
                    const bool div_ok = layout_ok && divides(m.layers, pp * vpp) && divides(gb, dp * mb);
                    for (double zero = 0; zero <= 3; ++zero) {
                        for (Recompute rc : modes) {
                            for (int sp = 0; sp < (tp > 1 ? 2 : 1); ++sp) {
                                for (int ov = 0; ov < 2; ++ov) {
                                    out.considered += 1;
                                    if (!div_ok) {
                                        out.rejected_indivisible += 1;
                                        continue;
                                    }
                                    TrainingConfig c = base;
                                    c.tp = tp;
                                    c.pp = pp;
                                    c.dp = dp;
                                    c.vpp = vpp;
                                    c.micro_batch = mb;
                                    c.zero = zero;
                                    c.recompute = rc;
                                    c.sequence_parallel = sp == 1;
                                    c.overlap_dp_comm = ov == 1;
                                    c.global_batch = gb;
                                    c.mfu.reset();
                                    const StepEstimate e = estimate_step(in, hw, c, eff);
                                    if (e.memory.total > cap) {
                                        out.rejected_out_of_memory += 1;
                                        continue;
                                    }
                                    out.feasible += 1;
                                    const double secs = e.step.total;
                                    if (!have_layout || secs < best_layout.step_seconds) {
                                        best_layout = make_plan(c, e);
                                        have_layout = true;
                                    }
                                    if (all_best.size() < k || secs < all_best.back().step_seconds) {
                                        Plan p = make_plan(c, e);
                                        auto pos = std::upper_bound(all_best.begin(), all_best.end(), p,
                                                                    [](const Plan& a, const Plan& b) { return a.step_seconds < b.step_seconds; });
                                        all_best.insert(pos, p);
                                        if (all_best.size() > k) all_best.pop_back();
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if (have_layout) layout_best.push_back(best_layout);
        }
    }
    std::stable_sort(layout_best.begin(), layout_best.end(),
                     [](const Plan& a, const Plan& b) { return a.step_seconds < b.step_seconds; });
    out.best = all_best;
    out.best_per_layout = layout_best;
    return out;
}

json plan_to_json(const Plan& p) {
    const auto& c = p.config;
    return {{"tp", c.tp},
            {"pp", c.pp},
            {"dp", c.dp.value_or(1)},
            {"vpp", c.vpp},
            {"micro_batch", c.micro_batch},
            {"zero", c.zero},
            {"recompute", c.recompute == Recompute::none ? "none" : (c.recompute == Recompute::full ? "full" : "selective")},
            {"sequence_parallel", c.sequence_parallel.value_or(false)},
            {"overlap_dp_comm", c.overlap_dp_comm},
            {"global_batch", c.global_batch.value_or(0)},
            {"step_seconds", p.step_seconds},
            {"memory_per_gpu_bytes", p.memory_per_gpu_bytes},
            {"mfu", p.mfu},
            {"tokens_per_second", p.tokens_per_second},
            {"bubble_fraction", p.bubble_fraction}};
}

std::string plan_json(const std::string& text) {
    Errors errors;
    json j = parse_scenario_text(text, errors);
    if (j.is_discarded()) return jr::to_text(errors_to_json(errors));
    PlanOptions opt;
    if (j.is_object() && j.contains("plan")) {
        const json& p = j["plan"];
        if (!p.is_object()) add_error(errors, "type", "plan", "plan must be an object");
        else {
            jr::check_keys(p, "plan", errors, {"top_k", "max_tp", "max_vpp", "max_micro_batch", "tp"});
            if (auto v = jr::number(p, "tp", "plan", errors, jr::Range{1, 64, false, true})) opt.only_tp = *v;
            if (auto v = jr::number(p, "top_k", "plan", errors, jr::Range{1, 100, false, true})) opt.top_k = *v;
            if (auto v = jr::number(p, "max_tp", "plan", errors, jr::Range{1, 64, false, true})) opt.max_tp = *v;
            if (auto v = jr::number(p, "max_vpp", "plan", errors, jr::Range{1, 16, false, true})) opt.max_vpp = *v;
            if (auto v = jr::number(p, "max_micro_batch", "plan", errors, jr::Range{1, 64, false, true})) opt.max_micro_batch = *v;
        }
        j.erase("plan");
    }
    Scenario s;
    if (!errors.empty() || !parse_scenario(j, s, errors, /*check_layout=*/false)) return jr::to_text(errors_to_json(errors));
    if (!s.model || !s.model->has_architecture)
        add_error(errors, "missing", "model", "plan search needs a model architecture (preset or layers/hidden/heads)");
    if (!s.training) add_error(errors, "missing", "training", "plan search needs a training section (global_batch)");
    if (!errors.empty()) return jr::to_text(errors_to_json(errors));
    const auto t0 = std::chrono::steady_clock::now();
    PlanResult r = search_plans(*s.model, *s.hardware, *s.training, opt);
    const auto t1 = std::chrono::steady_clock::now();
    r.search_seconds = std::chrono::duration<double>(t1 - t0).count();
    json best = json::array(), layouts = json::array();
    for (const auto& p : r.best) best.push_back(plan_to_json(p));
    for (const auto& p : r.best_per_layout) layouts.push_back(plan_to_json(p));
    json out = {{"gpucalc_version", kVersion},
                {"plan",
                 {{"considered", r.considered},
                  {"feasible", r.feasible},
                  {"rejected", {{"out_of_memory", r.rejected_out_of_memory}, {"indivisible", r.rejected_indivisible}}},
                  {"search_seconds", r.search_seconds},
                  {"plans_per_second", r.search_seconds > 0 ? r.considered / r.search_seconds : 0},
                  {"best", best},
                  {"best_per_layout", layouts}}}};
    return jr::to_text(out);
}

}  // namespace gpucalc
