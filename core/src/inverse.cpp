// Inverse questions, answered with the forward model:
//  - what_can_train: for N x device and D days (or a $ budget): the compute budget at the predicted
//    MFU, the compute-optimal model and tokens (Hoffmann et al. 2022, "Chinchilla", arXiv:2203.15556:
//    N_opt and D_opt both grow as C^0.5, D_opt ~ 20 N_opt, so N_opt = sqrt(C / (6 x 20))), the largest
//    model whose training state fits the cluster (ZeRO-3: 16 bytes/param), and the largest that trains
//    on `training.tokens` in D days.
//  - gpus_needed: for a model + tokens + deadline, the GPU count (whole nodes) and the cost.
// The MFU is predicted by the plan search (best layout that fits) unless training.mfu is given.
#include <algorithm>
#include <cmath>

#include "gpucalc/inverse.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/report.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

using nlohmann::json;

namespace {

// The sequence length of the model shape a bare compute budget is evaluated with (GPT-3's 2,048).
constexpr double kShapeSeqLen = 2048;
// Starting MFU of the fixed-point iterations below (the plan search's prediction replaces it; a
// given training.mfu is used as is).
constexpr double kStartMfu = 0.4;

// Best predicted MFU over all layouts that fit, for a model on `count` devices.
double predicted_mfu(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, double count, Plan* best_out) {
    Hardware h = hw;
    h.count = static_cast<Count>(count);
    // The layout search's own default batch (~4M tokens, rounded to dp x micro_batch per layout),
    // unless the scenario gives training.global_batch: never a batch inflated by the device count.
    TrainingConfig c = base;
    PlanOptions opt;
    opt.top_k = 1;
    opt.max_tp = std::min<Count>(8, std::max<Count>(1, h.devices_per_node));
    opt.max_vpp = 2;
    opt.max_micro_batch = 4;
    const PlanResult r = search_plans(m, h, c, opt);
    if (r.best.empty()) return 0;
    if (best_out) *best_out = r.best[0];
    return r.best[0].mfu;
}

}  // namespace

json answer_inverse(const Scenario& s, const InverseQuestion& q, Errors& errors) {
    const auto& days = q.days;
    const auto& budget = q.budget_usd;
    const double tpp = q.tokens_per_param;
    if (!s.hardware) {
        add_error(errors, "missing", "hardware", "inverse questions need hardware.device");
        return nullptr;
    }
    if (!days && !budget) {
        add_error(errors, "missing", "inverse.days", "inverse needs inverse.days or inverse.budget_usd");
        return nullptr;
    }
    const Hardware& hw = *s.hardware;
    const TrainingConfig tc = s.training.value_or(TrainingConfig{});
    const double peak = hw.device.peak(tc.precision).value_or(0);
    const double rate = gpu_hour_rate(hw.device, s.costs).usd.value_or(0);
    if (peak <= 0) {
        add_error(errors, "unsupported", "training.precision", "the device has no peak for the training precision");
        return nullptr;
    }
    json out;
    out["question"] = q.question == InverseKind::what_can_train ? "what_can_train" : "gpus_needed";
    out["mfu_source"] = tc.mfu ? "given" : "predicted (best plan found by the plan search)";
    out["tokens_per_param"] = tpp;

    if (q.question == InverseKind::what_can_train) {
        const double n = hw.count;
        double seconds = days ? *days * units::seconds_per_day : 0;
        if (budget) {
            if (rate <= 0) {
                add_error(errors, "missing", "costs.gpu_hour_usd", "a $ budget needs costs.gpu_hour_usd (the device has no catalog price)");
                return nullptr;
            }
            const double s_budget = *budget / (n * rate) * units::seconds_per_hour;
            seconds = days ? std::min(seconds, s_budget) : s_budget;
        }
        double mfu = tc.mfu.value_or(kStartMfu);
        double params = 0, tokens = 0, compute = 0;
        Plan plan;
        // Goodput of a run on n devices holding a model of N parameters (16 bytes/param of state).
        auto goodput = [&](double N) { return run_goodput(n, N, tc.goodput).value; };
        for (int it = 0; it < (tc.mfu ? 1 : 4); ++it) {
            compute = n * peak * mfu * seconds * goodput(std::max(params, 1e9));
            params = std::sqrt(compute / (6.0 * tpp));
            tokens = tpp * params;
            if (tc.mfu) break;
            const double m = predicted_mfu(gpt_like_shape(params, kShapeSeqLen), hw, tc, n, &plan);
            if (m <= 0) break;
            mfu = m;
        }
        double gp = goodput(std::max(params, 1e9));
        for (int k = 0; k < 8; ++k) {  // the goodput depends on the model size it decides: a fixed point
            gp = goodput(std::max(params, 1e9));
            compute = n * peak * mfu * seconds * gp;
            params = std::sqrt(compute / (6.0 * tpp));
        }
        tokens = tpp * params;
        out["seconds"] = seconds;
        out["mfu"] = mfu;
        out["goodput"] = gp;
        if (plan.step_seconds > 0) {
            out["plan"] = plan_to_json(plan);
            out["global_batch_tokens"] = static_cast<double>(plan.config.global_batch.value_or(0)) * kShapeSeqLen;
            out["global_batch_note"] = tc.global_batch ? "training.global_batch as given"
                                                       : "about 4M tokens per step (Llama 2, arXiv:2307.09288 Sec. 2.2), rounded to the nearest "
                                                         "multiple of the layout's dp x micro_batch; give training.global_batch to fix it";
        }
        out["compute_flops"] = compute;
        out["compute_optimal_params"] = params;
        out["compute_optimal_tokens"] = tokens;
        // Training state fully sharded (ZeRO-3): 16 bytes/param; 10% kept for activations and overhead.
        out["largest_fitting_params"] = 0.9 * n * hw.device.memory_bytes.value_or(0) / 16.0;
        if (tc.tokens) out["largest_params_for_tokens"] = compute / (6.0 * *tc.tokens);
        out["formula"] = "C = devices x peak x MFU x seconds x goodput; N_opt = sqrt(C / (6 x tokens_per_param)); D_opt = tokens_per_param x N_opt";
        out["source"] = "Hoffmann et al. 2022 (Chinchilla), arXiv:2203.15556, Sec. 3 (approach 1-3: a ~ b ~ 0.5, ~20 tokens per parameter)";
        return out;
    }
    // gpus_needed
    if (!s.model) {
        add_error(errors, "missing", "model", "gpus_needed needs a model");
        return nullptr;
    }
    if (!tc.tokens) {
        add_error(errors, "missing", "training.tokens", "gpus_needed needs training.tokens");
        return nullptr;
    }
    if (!days) {
        add_error(errors, "missing", "inverse.days", "gpus_needed needs inverse.days (the deadline)");
        return nullptr;
    }
    const ModelSpec& model = *s.model;
    const ModelSpec shaped = training_model(model).shape;
    const double flops = (s.model->has_architecture ? model_flops_per_token_training(*s.model) : 6.0 * count_params(*s.model).active) * *tc.tokens;
    const double seconds = *days * units::seconds_per_day;
    const double node = std::max<double>(1.0, static_cast<double>(hw.devices_per_node));
    double mfu = tc.mfu.value_or(kStartMfu), gpus = 0;
    // GPUs to finish in time at a given MFU, in whole nodes.
    const double params_total = count_params(*s.model).total;
    auto goodput = [&](double g) { return run_goodput(g, params_total, tc.goodput).value; };
    auto gpus_at = [&](double u) {
        double g = std::max(node, std::ceil(flops / (peak * u * seconds) / node) * node);
        for (int k = 0; k < 3; ++k) g = std::max(node, std::ceil(flops / (peak * u * seconds * goodput(g)) / node) * node);
        return g;
    };
    Plan plan;
    for (int it = 0; it < 6; ++it) {
        gpus = gpus_at(mfu);
        if (tc.mfu) break;
        const double m = predicted_mfu(model, hw, tc, gpus, &plan);
        if (m <= 0) {
            mfu = mfu * 0.9;
            continue;
        }
        if (std::abs(m - mfu) < 1e-3) {
            mfu = m;
            break;
        }
        mfu = m;
    }
    gpus = gpus_at(mfu);
    out["gpus"] = gpus;
    out["mfu"] = mfu;
    out["goodput"] = goodput(gpus);
    out["flops"] = flops;
    out["seconds_at_gpus"] = flops / (gpus * peak * mfu * goodput(gpus));
    out["gpu_hours"] = gpus * out["seconds_at_gpus"].get<double>() / units::seconds_per_hour;
    out["cost_usd"] = out["gpu_hours"].get<double>() * rate;
    if (!tc.mfu && plan.step_seconds > 0) {
        out["plan"] = plan_to_json(plan);
        out["global_batch_tokens"] = static_cast<double>(plan.config.global_batch.value_or(0)) * shaped.seq_len;
            out["global_batch_note"] = tc.global_batch ? "training.global_batch as given"
                                                       : "about 4M tokens per step (Llama 2, arXiv:2307.09288 Sec. 2.2), rounded to the nearest "
                                                         "multiple of the layout's dp x micro_batch; give training.global_batch to fix it";
    }
    out["formula"] = "gpus = ceil(flops / (peak x MFU x seconds x goodput) / devices_per_node) x devices_per_node";
    out["source"] = "forward model (training.cpp) at the best layout of the plan search";
    return out;
}

}  // namespace gpucalc
