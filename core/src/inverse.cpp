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
#include <map>
#include <numeric>

#include "gpucalc/decimal.hpp"
#include "gpucalc/inverse.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/report.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/scenario_parse.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

using json = jv::Value;

namespace {

// The sequence length of the model shape a bare compute budget is evaluated with (GPT-3's 2,048).
constexpr double kShapeSeqLen = 2048;
// Starting MFU of the fixed-point iterations below (the plan search's prediction replaces it; a
// given training.mfu is used as is).
constexpr double kStartMfu = 0.4;
// The most GPUs an answer may name: hardware.count's own limit (scenario_fields.cpp), far above any
// real cluster. A deadline that needs more cannot be met (and the count would overflow a Count).
constexpr double kMaxGpus = 1e8;
// A run of fewer optimizer steps than this is not a training run in any published sense: warned.
constexpr double kFewSteps = 100;

// How widely predicted_mfu searches: the iterations' narrower search (interleaving up to 2,
// micro-batches up to 4: ~4x fewer plans), or an automatic layout's (up to 8 and 8), whose MFU is the one
// an estimate at the count reports.
enum class Search { narrow, as_estimate };

// Best predicted MFU over all layouts that fit, for a model on `count` devices (0: none fits;
// `divides` false then when no layout even tiles the count, the batch and the layers).
double predicted_mfu(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, double count, Plan* best_out,
                     bool* divides = nullptr, Search search = Search::narrow) {
    Hardware h = hw;
    h.count = static_cast<Count>(count);
    // The layout search's own default batch (~4M tokens, rounded to dp x micro_batch per layout),
    // unless the scenario gives training.global_batch: never a batch inflated by the device count.
    TrainingConfig c = base;
    PlanOptions opt = automatic_layout_options(h);
    if (search == Search::narrow) {
        opt.max_vpp = 2;
        opt.max_micro_batch = 4;
    }
    const PlanResult r = search_plans(m, h, c, opt);
    if (divides) *divides = !r.best.empty() || r.least_memory.has_value();
    if (r.best.empty()) return 0;
    if (best_out) *best_out = r.best[0];
    return r.best[0].mfu;
}

// A what_can_train answer under way: the cluster and time available, and the figures found so far.
struct Trainable {
    const Hardware& hw;
    const TrainingConfig& tc;
    double seconds, tpp, peak, n;
    double mfu;
    double params = 0, tokens = 0, compute = 0, gp = 0;
    Plan plan{};
    bool converged = true;
};

// Goodput of a run on n devices holding a model of N parameters (16 bytes/param of state).
double goodput(const Trainable& a, double N) { return run_goodput(a.n, N, a.tc.goodput).value; }

// A model of N parameters given by its count, as a scenario's model.params gives it: an estimate
// evaluates it on the GPT-like shape scaled to N (training_model).
ModelSpec counted_model(double N) {
    ModelSpec m;
    m.name = "a model of " + jr::fmt_num(N) + " parameters";
    m.params = N;
    m.seq_len = kShapeSeqLen;
    return m;
}

// The MFU the plan search predicts on the cluster for a model of N parameters (0: no layout fits): the
// one an estimate of model.params N reports. The unscaled GPT-like shape had differed from it by up
// to ~15 % (its width rounds to 1,024 and its layers to whole ones: one RTX 4090 for 90 days answered
// 1.18B at 30.8 % MFU, where an estimate of 1.18B gives 26.8 %).
double shape_mfu(const Trainable& a, double N, Plan* p, Search search = Search::narrow) {
    return predicted_mfu(counted_model(N), a.hw, a.tc, a.n, p, nullptr, search);
}

// The compute-optimal model at the MFU the plan search predicts for it, iterated (given MFU: once).
void iterate_mfu(Trainable& a) {
    for (int it = 0; it < (a.tc.mfu ? 1 : 4); ++it) {
        a.compute = a.n * a.peak * a.mfu * a.seconds * goodput(a, std::max(a.params, 1e9));
        a.params = std::sqrt(a.compute / (6.0 * a.tpp));
        a.tokens = a.tpp * a.params;
        if (a.tc.mfu) break;
        const double m = shape_mfu(a, a.params, &a.plan);
        if (m <= 0) break;
        a.mfu = m;
    }
}

// The goodput and the compute-optimal model at the MFU found.
void goodput_fixed_point(Trainable& a) {
    a.gp = goodput(a, std::max(a.params, 1e9));
    for (int k = 0; k < 8; ++k) {  // the goodput depends on the model size it decides: a fixed point
        a.gp = goodput(a, std::max(a.params, 1e9));
        a.compute = a.n * a.peak * a.mfu * a.seconds * a.gp;
        a.params = std::sqrt(a.compute / (6.0 * a.tpp));
    }
}

// The compute-optimal size N_opt for a model of N parameters at its own predicted MFU (u, plan p).
double n_opt(const Trainable& a, double N, double& u, Plan* p) {
    u = shape_mfu(a, N, p);
    return std::sqrt(a.n * a.peak * u * a.seconds * goodput(a, std::max(N, 1e9)) / (6.0 * a.tpp));
}

// The largest model whose own MFU gives it the compute it needs: bisection on N (log scale) of
// N_opt(MFU(N)) >= N, between 1e8 and twice the sizes tried.
void largest_self_consistent(Trainable& a, double last_evaluated) {
    double lo = 1e8, hi = std::max(a.params, last_evaluated) * 2.0, u = 0;
    Plan p_lo;
    double u_lo = 0;
    if (!(n_opt(a, lo, u_lo, &p_lo) >= lo)) return;
    for (int k = 0; k < 14; ++k) {
        const double mid = std::sqrt(lo * hi);
        Plan p_mid;
        if (n_opt(a, mid, u, &p_mid) >= mid)
            lo = mid, u_lo = u, p_lo = p_mid;
        else
            hi = mid;
    }
    a.params = lo;
    a.mfu = u_lo;
    a.plan = p_lo;
    a.gp = goodput(a, std::max(a.params, 1e9));
    a.compute = a.n * a.peak * a.mfu * a.seconds * a.gp;
}

// A number with three significant digits.
std::string sig3(double v) { return decimal::format_general(v, 3); }

// Whether a plan's batch, chosen by the search, is above the largest published one: per DiLoCo worker
// when local steps apply (each worker trains its own batch), as the search holds it.
bool batch_above_published(const Plan& plan, const TrainingConfig& tc, double seq_len, double sites) {
    const double dp = static_cast<double>(plan.config.dp.value_or(1));
    const double workers = tc.local_steps > 1 ? std::max(1.0, sites_data_parallel(dp, sites)) : 1.0;
    return !tc.global_batch && static_cast<double>(plan.config.global_batch.value_or(0)) * seq_len / workers > kLargestPublishedBatchTokens;
}

// The plan found and the global batch it trains with (in tokens of `seq_len`). Returns whether that
// batch is above the largest published one (batch_above_published; the note says so).
bool add_plan(json& out, const Plan& plan, const TrainingConfig& tc, double seq_len, double sites) {
    out["plan"] = plan_to_json(plan);
    const double tokens = static_cast<double>(plan.config.global_batch.value_or(0)) * seq_len;
    out["global_batch_tokens"] = tokens;
    const double dp = static_cast<double>(plan.config.dp.value_or(1));
    const bool diloco = target_batch_tokens(sites, dp, tc.local_steps) > target_batch_tokens(sites, dp, 1);
    if (batch_above_published(plan, tc, seq_len, sites)) {
        out["global_batch_note"] = "the least this layout takes (dp x micro_batch sequences: " + jr::fmt_num(tokens) +
                                   " tokens per step), far above the ~4M tokens aimed at and the largest published pretraining batch "
                                   "(DeepSeek-V3: 62.9M tokens, arXiv:2412.19437 Sec. 4.2): the step time holds, but the tokens a real "
                                   "run would need to reach the same loss with such a batch are not modelled; give training.global_batch "
                                   "to fix it";
        return true;
    }
    // The granule the batch is rounded to (batch_granule): x pp with interleaving, whose micro-batches
    // come in whole rounds of the stages; and what it makes of the aim when it is far above it (a red
    // team: 52.4M tokens under a note saying "about 4M", dp 752 x pp 17 interleaved).
    const Count pp = plan.config.pp, vpp = plan.config.vpp;
    const double aim = target_batch_tokens(sites, dp, tc.local_steps);
    // Without interleaving, raised where the aim gives a pipeline fewer micro-batches than stages (pipeline_fed_batch).
    const bool fed = batch_raised_to_feed(plan.config, seq_len, aim);
    const std::string granule = vpp > 1 && pp > 1 ? "dp x micro_batch x pp (interleaved stages)"
                                : fed ? "dp x micro_batch, raised to one micro-batch per pipeline stage (dp x micro_batch x pp, as "
                                        "Llama 3 405B's PP 16 x DP 128 took 2,048 sequences, arXiv:2407.21783 Table 4)"
                                      : "dp x micro_batch";
    const std::string far = tokens > 1.5 * aim ? ", here at least " + sig3(tokens / 1e6) + "M tokens" : "";
    out["global_batch_note"] =
        tc.global_batch ? std::string("training.global_batch as given")
        : diloco        ? "1M tokens per DiLoCo worker per inner step (INTELLECT-1; each worker its own batch, DiLoCo arXiv:2311.08105 "
                          "Algorithm 1), rounded to the nearest multiple of the layout's " +
                       granule + far + "; give training.global_batch to fix it"
                 : "about 4M tokens per step (Llama 2, arXiv:2307.09288 Sec. 2.2), rounded to the nearest multiple of the layout's " +
                       granule + far + "; give training.global_batch to fix it";
    return false;
}

// The keys of a what_can_train answer.
json trainable_json(const Trainable& a) {
    json out;
    out["converged"] = a.converged;
    out["seconds"] = a.seconds;
    out["mfu"] = a.mfu;
    out["goodput"] = a.gp;
    if (a.plan.step_seconds > 0) add_plan(out, a.plan, a.tc, kShapeSeqLen, site_count(a.hw));
    // No layout found (the training fields given leave none): the starting MFU stands, said as such.
    if (!a.tc.mfu && !(a.plan.step_seconds > 0))
        out["mfu_source"] = "assumed " + jr::fmt_num(kStartMfu) + ": the plan search found no layout for the training fields given";
    out["compute_flops"] = a.compute;
    out["compute_optimal_params"] = a.params;
    out["compute_optimal_tokens"] = a.tokens;
    // Training state fully sharded (ZeRO-3): 16 bytes/param; 10% kept for activations and overhead.
    out["largest_fitting_params"] = 0.9 * a.n * a.hw.device.usable_memory_bytes().value_or(0) / 16.0;
    if (a.tc.tokens) out["largest_params_for_tokens"] = a.compute / (6.0 * *a.tc.tokens);
    out["formula"] =
        "C = devices x peak x MFU x seconds x goodput; N_opt = sqrt(C / (6 x tokens_per_param)); D_opt = tokens_per_param x N_opt";
    out["source"] = "Hoffmann et al. 2022 (Chinchilla), arXiv:2203.15556, Sec. 3 (approach 1-3: a ~ b ~ 0.5, ~20 tokens per parameter)";
    return out;
}

// The largest size from lo (which fits) to hi (which does not) with a layout the plan search tries.
// On sizes 2^(1/64) (1.1 %) apart from 10M, the same whatever the time given: from the compute-
// optimal size down, every eighth (9 %) to the first that fits (at most 16: twice as small), then
// bisected. Whether a size fits is not monotone (a pipeline over a slow network tiles some depths
// only), and a bisection from the compute-optimal size had answered a longer time a smaller model
// (1,024 RTX 4090 over 1 Gb/s: 50.3B for 153 days, 38.4B for 176; one A100: 4.4043B for 176 days,
// 4.4239B for 202, a 1 % stop placed by the compute-optimal size).
double largest_fitting_size(const Trainable& a, double lo, double hi) {
    const auto layout_mfu = [&](double N) {
        Plan p{};
        return shape_mfu(a, N, &p);
    };
    const auto size = [](double k) { return 1e7 * std::exp2(k / 64.0); };
    double k_lo = 64.0 * std::log2(lo / 1e7), k_hi = std::ceil(64.0 * std::log2(hi / 1e7));
    for (double k = std::floor((k_hi - 1) / 8) * 8, n = 0; k > k_lo && n < 16; k -= 8, ++n) {
        if (layout_mfu(size(k)) > 0) {
            k_lo = k;
            break;
        }
        k_hi = k;
    }
    while (k_hi - k_lo > 1) {
        const double mid = std::floor((k_lo + k_hi) / 2);
        (layout_mfu(size(mid)) > 0 ? k_lo : k_hi) = mid;
    }
    return size(k_lo);
}

// The model that trains in the time: the compute-optimal one, unless no layout of the plan search
// holds it in memory; then the largest that one does (bisection on N, log scale), on the tokens the
// compute buys at its own MFU (more than tokens_per_param each: trained past compute-optimal, which
// still lowers the loss at a fixed size; Hoffmann et al. 2022, Fig. 2). One RTX 4090 for 90 days had
// answered a 2.07B model that cannot fit its 24 GiB beside 'largest that fits 1.45B' (a reviewer),
// and then 1.45B at an assumed 40 % MFU, which an estimate does not fit either (a red team: 1.26B at
// 26 % does).
void memory_limit(const Trainable& a, json& out) {
    out["warnings"] = json::array();
    const auto layout_mfu = [&](double N) {
        Plan p{};
        return shape_mfu(a, N, &p);
    };
    // Whether the model found has a layout that fits, at an estimate's own search: a.plan may be of
    // another size (the goodput's fixed point moves it), and one A100 for 176 days had answered 4.65B
    // parameters at 54.8 % MFU, limited by compute, which an estimate does not fit (83.9 GiB of 80).
    Plan at_n{};
    const double fit_mfu = shape_mfu(a, a.params, &at_n, Search::as_estimate);
    if (fit_mfu > 0) {
        // At the MFU an estimate of it reports (its own, wider search), on the tokens that compute buys:
        // an estimate of the answer then takes the time given. With the narrower search's MFU and 20
        // tokens a parameter, 64 RTX 4090 for 90 days answered 14.6B on 293B tokens, which an estimate
        // trains in 65 days (the MFU jumps with the size there: not converged).
        const double u = a.tc.mfu ? *a.tc.mfu : fit_mfu;
        out["limited_by"] = "compute";
        out["trainable_params"] = a.params, out["trainable_mfu"] = u;
        // At the model's own goodput, as its estimate has it (the sizing's floor of 1e9 parameters left
        // one L4 for a day 0.08 % short of the time given for a 0.1B model: its checkpoints are smaller).
        out["trainable_tokens"] = a.n * a.peak * u * a.seconds * goodput(a, a.params) / (6.0 * a.params);
        return;
    }
    out["limited_by"] = "memory";
    // The smallest models may have no layout on many devices while larger ones do: a few layers give
    // the pipeline few stages, and the rest of the count is data parallelism that the largest published
    // batch cannot feed (100,000 RTX 4090 over 1 Gb/s internet had answered that no model of 10M
    // parameters or more fits, where an estimate of 1B runs). From 10M up, doubling, to the first with one.
    double lo = 1e7, hi = a.params;
    while (lo < hi && !(layout_mfu(lo) > 0)) lo *= 2;
    if (!(lo < hi)) {
        out["trainable_params"] = nullptr, out["trainable_tokens"] = nullptr, out["trainable_mfu"] = nullptr;
        out["warnings"].push_back(
            "inverse: no model from 10M parameters to the compute-optimal one has a layout the plan search tries on "
            "these devices (it fits no device's memory, or no tiling of the count within the largest published "
            "batch)");
        return;
    }
    lo = largest_fitting_size(a, lo, hi);
    at_n = Plan{};  // its MFU as an estimate of it reports (the estimate's own, wider search)
    const double N = lo, mfu = a.tc.mfu ? *a.tc.mfu : shape_mfu(a, N, &at_n, Search::as_estimate);
    const double compute = a.n * a.peak * mfu * a.seconds * goodput(a, N);  // at its own goodput, as above
    out["trainable_params"] = N, out["trainable_tokens"] = compute / (6.0 * N), out["trainable_mfu"] = mfu;
    if (at_n.step_seconds > 0) {
        add_plan(out, at_n, a.tc, kShapeSeqLen, site_count(a.hw));
        out["mfu_source"] = "the compute-optimal model fits in no layout: trainable_mfu is predicted for the largest that fits";
    }
    out["warnings"].push_back("inverse: the compute-optimal model (" + sig3(a.params / 1e9) +
                              "B parameters) fits these devices' memory in no layout the plan search tries; the largest that fits (" +
                              sig3(N / 1e9) + "B) trains on " + sig3(compute / (6.0 * N) / 1e9) + "B tokens in the time at " +
                              sig3(100.0 * mfu) + " % MFU (trainable_params, trainable_tokens, trainable_mfu)");
}

// what_can_train for one cluster and training config (the answer's keys; see answer_inverse).
json what_can_train(const Hardware& hw, const TrainingConfig& tc, double seconds, double tpp, double peak) {
    Trainable a{hw, tc, seconds, tpp, peak, static_cast<double>(hw.count), tc.mfu.value_or(kStartMfu)};
    iterate_mfu(a);
    const double last_evaluated = a.params;
    goodput_fixed_point(a);
    if (!tc.mfu && last_evaluated > 0 && std::abs(a.params / last_evaluated - 1.0) > 0.05) {
        // No fixed point: the utilisation jumps with the model size (a model that no longer fits one
        // site must pipeline across the WAN). The answer is then the largest model whose own MFU
        // gives it the compute it needs: bisection on N (log scale) of N_opt(MFU(N)) >= N.
        a.converged = false;
        largest_self_consistent(a, last_evaluated);
    }
    a.tokens = tpp * a.params;
    json out = trainable_json(a);
    memory_limit(a, out);
    return out;
}

// The index of network preset `id` in the catalog, if any.
std::optional<int> network_preset(const char* id) {
    const auto& all = network_presets();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].id == id) return static_cast<int>(i);
    return std::nullopt;
}

// One row of compare_networks: its id, label, cluster and training config.
struct NetworkRow {
    const char* id;
    const char* label;
    const Hardware* h;
    const TrainingConfig* t;
};

// Why a row's answer is what it is: the figures that make the difference, in one or two sentences.
std::string network_why(const NetworkRow& row, const json& a, const NetworkLevels& lv, double site_params) {
    // The MFU the row's column shows: an estimate's of the model that trains in the time (compute-bound).
    const bool compute_bound = a["limited_by"] == "compute" && a["trainable_mfu"].is_number();
    const double mfu = (compute_bound ? a["trainable_mfu"] : a["mfu"]).get<double>(), N = a["compute_optimal_params"].get<double>();
    const bool has_plan = a.contains("plan");
    const double replica = has_plan ? a["plan"]["tp"].get<double>() * a["plan"]["pp"].get<double>() : 1.0;
    const bool pipelined = lv.sites > 1 && replica > lv.devices_per_site;
    std::string why =
        std::string(row.label) + ": " + sig3(100.0 * mfu) + "% MFU, compute for a " + sig3(N / 1e9) + "B-parameter model in the time. ";
    if (lv.sites <= 1)
        why += "Gradients are reduced every step over " + sig3(lv.scale_out * 8e-9) +
               " Gbit/s per device inside one fabric and mostly hidden behind the backward pass.";
    else if (pipelined && N > site_params)
        why += "The model's training state does not fit one site (" + sig3(lv.devices_per_site) + " devices hold at most " +
               sig3(site_params / 1e9) + "B parameters), so each replica (" + sig3(replica) +
               " devices) is pipelined across sites: activations cross the " + sig3(lv.wan * 8e-9) + " Gbit/s links every micro-batch" +
               (row.t->local_steps > 1 ? ", while the replicas exchange only every 100 steps." : ".");
    else if (pipelined)
        why += "The fastest layout found pipelines each replica (" + sig3(replica) + " devices) across sites, although one site (" +
               sig3(lv.devices_per_site) + " devices) could hold it: activations cross the " + sig3(lv.wan * 8e-9) +
               " Gbit/s links every micro-batch" +
               (row.t->local_steps > 1 ? ", while the replicas exchange only every 100 steps."
                                       : ", which costs less than sending about twice the model's gradients over them every step.");
    else if (row.t->local_steps > 1)
        why +=
            "Each site trains a whole replica and the sites exchange every 100 steps in int8: 400x fewer bytes than synchronous fp32 "
            "gradients (INTELLECT-1's settings); a site holds at most " +
            sig3(site_params / 1e9) + "B parameters.";
    else
        why += "Every step each of " + sig3(lv.sites) + " sites sends about twice the model's gradients over " + sig3(lv.wan * 8e-9) +
               " Gbit/s, far longer than the step's compute.";
    return why;
}

// One row of compare_networks: its cluster, training config, answer and explanation.
json network_row(const NetworkRow& row, double seconds, double tpp, double peak) {
    const auto& all = network_presets();
    json a = what_can_train(*row.h, *row.t, seconds, tpp, peak);
    const NetworkLevels lv = network_levels(*row.h);
    const double site_params = 0.9 * lv.devices_per_site * row.h->device.usable_memory_bytes().value_or(0) / 16.0;
    json r = {{"id", row.id},
              {"label", row.label},
              {"hardware",
               {{"network", row.h->network ? json(all[static_cast<std::size_t>(*row.h->network)].id) : json(nullptr)},
                {"sites", lv.sites},
                {"devices_per_site", lv.devices_per_site},
                {"scale_out_bytes_per_second", lv.scale_out},
                {"wan_bytes_per_second", lv.sites > 1 ? json(lv.wan) : json(nullptr)}}},
              {"training",
               {{"local_steps", row.t->local_steps},
                {"outer_precision", row.t->local_steps > 1 ? json("int8") : json(nullptr)},
                {"global_batch", row.t->global_batch ? json(*row.t->global_batch) : json(nullptr)}}},
              {"mfu", a["mfu"]},
              {"compute_optimal_params", a["compute_optimal_params"]},
              {"compute_optimal_tokens", a["compute_optimal_tokens"]},
              {"largest_fitting_params", a["largest_fitting_params"]},
              {"largest_params_one_site", site_params},
              {"limited_by", a["limited_by"]},
              {"trainable_params", a["trainable_params"]},
              {"trainable_tokens", a["trainable_tokens"]},
              {"trainable_mfu", a["trainable_mfu"]},
              {"plan", a.contains("plan") ? a["plan"] : json(nullptr)}};
    if (a.contains("mfu_source")) r["mfu_source"] = a["mfu_source"];  // the MFU assumed: no layout found
    r["explanation"] = network_why(row, a, lv, site_params);
    return r;
}

// The same devices in one cluster, across sites synchronously, and across sites with DiLoCo
// (H = 100, int8: INTELLECT-1's settings), side by side with why they differ. "Across sites" is the
// scenario's sites when it has several, else every node on its own 1 Gb/s internet link (a
// decentralized network such as io.net).
json compare_networks(const Hardware& hw, const TrainingConfig& tc, double seconds, double tpp, double peak) {
    Hardware one = hw;  // one cluster: the catalog NIC (rail-optimised InfiniBand/RoCE on data-centre GPUs), one site
    one.network.reset(), one.latency_seconds.reset(), one.sites = 1, one.wan.reset(), one.wan_bytes_per_second.reset(),
                                                      one.wan_latency_seconds.reset();
    Hardware apart = hw;
    const bool scenario_has_sites = network_levels(hw).sites > 1;
    // (The preset's link, not a NIC the scenario gives or its echo writes out: fed back, the echo's
    // catalog NIC made the internet row a data centre; a red team.)
    if (!scenario_has_sites)
        apart.network = network_preset("internet-1g"), apart.sites = 1, apart.scale_out_bytes_per_second.reset(),
        apart.latency_seconds.reset();
    // Every node its own site: whole nodes only (1,001 GPUs are 125 nodes of 8; the one left over is
    // no site of its own, and a partial node would be read as a site of another size).
    const Count dpn = std::max<Count>(1, hw.devices_per_node);
    if (!scenario_has_sites && apart.count > dpn && apart.count % dpn != 0) apart.count -= apart.count % dpn;
    TrainingConfig sync = tc;
    sync.local_steps = 1;
    TrainingConfig diloco = tc;
    diloco.local_steps = 100;
    diloco.outer_precision = OuterPrecision::int8;
    // The outer state in host memory and INTELLECT-1's 1M tokens per worker per inner step, as an
    // estimate of the same run has them (resolve_diloco_defaults, target_batch_tokens).
    resolve_diloco_defaults(diloco);
    const NetworkRow rows[] = {
        {"one_cluster", "one cluster (the catalog's data-centre network, synchronous)", &one, &sync},
        {"sites_synchronous", "across sites, synchronous data parallelism", &apart, &sync},
        {"sites_diloco", "across sites, DiLoCo (100 local steps, int8 exchange, 1M tokens per worker per step)", &apart, &diloco}};
    json out = json::array();
    for (const NetworkRow& row : rows) out.push_back(network_row(row, seconds, tpp, peak));
    return out;
}

// The time a what_can_train question has: the days, the $ budget at the device's rate, or the shorter;
// none (with an error) when a budget has no rate to spend it at, or buys unbounded time (free
// GPU-hours: a rate of 0) and no days bound it.
std::optional<double> available_seconds(const Hardware& hw, const InverseQuestion& q, const HourlyRate& hourly, Errors& errors) {
    double seconds = q.days ? *q.days * units::seconds_per_day : 0;
    const std::optional<double>& rate = hourly.usd;
    if (q.budget_usd) {
        if (!rate && hourly.basis == "owned")  // the device's price or TDP is missing (device_hour_cost says which)
            add_error(errors, "missing", "hardware.device", "a $ budget needs the cost of a device-hour: " + hourly.note);
        else if (!rate)
            add_error(errors, "missing", "costs.gpu_hour_usd",
                      "a $ budget needs a $/GPU-hour: " + hw.device.name + " has no catalog price; set costs.gpu_hour_usd");
        if (!rate) return std::nullopt;
        if (*rate <= 0) {  // free: the budget never runs out
            if (!q.days)
                add_error(errors, "missing", "inverse.days",
                          "the GPU-hours are free ($0 per GPU-hour), so inverse.budget_usd sets no time: give inverse.days");
            return q.days ? std::optional<double>(seconds) : std::nullopt;
        }
        const double s_budget = *q.budget_usd / (static_cast<double>(hw.count) * *rate) * units::seconds_per_hour;
        seconds = q.days ? std::min(seconds, s_budget) : s_budget;
    }
    return seconds;
}

// The fastest run a scan of counts found (none meeting the deadline): its count and days, and the
// fewest devices that run at least 0.9 x its speed.
struct Fastest {
    double gpus = 0, days = 0, near_gpus = 0;
};

// A gpus_needed answer under way: the run's FLOPs and deadline, and the GPU count and MFU found.
struct GpusNeeded {
    const TrainingConfig& tc;
    double flops, seconds, node, peak, params_total;
    double mfu;
    double gpus = 0;
    Plan plan{};
    bool divides = true;  // some layout tiles the count found (false: none does; true without a plan: none fits in memory)
    Fastest fastest{};    // when no count meets the deadline (scan_to_deadline)
    // The layouts of the highest MFU the searches at an estimate's scope have seen, of distinct
    // model-parallel units (replica_unit): fewer_replicas tries each on fewer replicas.
    mutable std::vector<Plan> layouts{};
    // The counts searched at an estimate's scope: their MFU and plan (the scans and bisections try
    // many counts more than once).
    mutable std::map<double, std::pair<double, Plan>> searched{};
};

// The MFU and plan at g devices of an estimate's own layout search (predicted_mfu, Search::as_estimate),
// each count searched once.
double estimate_mfu(const ModelSpec& model, const Hardware& hw, const GpusNeeded& n, double g, Plan* plan) {
    auto it = n.searched.find(g);
    if (it == n.searched.end()) {
        Plan p{};
        const double u = predicted_mfu(model, hw, n.tc, g, &p, nullptr, Search::as_estimate);
        it = n.searched.emplace(g, std::make_pair(u, p)).first;
    }
    if (plan) *plan = it->second.second;
    return it->second.first;
}

// The devices one replica of a plan's layout takes, in whole steps of the count (n.node): tp x pp x
// cp, and pp x ep x expert_tp, which dp x cp x tp must hold whole (expert_layout_ok).
double replica_unit(const Plan& p, double node) {
    const TrainingConfig& c = p.config;
    const Count group = std::lcm(std::max<Count>(1, c.tp * c.pp * c.cp), std::max<Count>(1, c.pp * c.ep * c.expert_tp.value_or(1)));
    return static_cast<double>(std::lcm(group, std::max<Count>(1, static_cast<Count>(node))));
}

// Keeps a plan among n.layouts: the three of the highest MFU, one per replica unit.
void note_layout(const GpusNeeded& n, const Plan& p) {
    constexpr std::size_t kKept = 3;
    if (!(p.tokens_per_second > 0)) return;
    const double unit = replica_unit(p, n.node);
    auto& v = n.layouts;
    const auto same = std::find_if(v.begin(), v.end(), [&](const Plan& q) { return replica_unit(q, n.node) == unit; });
    if (same != v.end()) {
        if (same->mfu >= p.mfu) return;
        v.erase(same);
    }
    v.push_back(p);
    std::sort(v.begin(), v.end(), [](const Plan& a, const Plan& b) { return a.mfu > b.mfu; });
    if (v.size() > kKept) v.pop_back();
}

// Goodput of a run on g devices.
double needed_goodput(const GpusNeeded& n, double g) { return run_goodput(g, n.params_total, n.tc.goodput).value; }

// GPUs to finish in time at a given MFU, in whole nodes (or whole model-parallel groups), at most kMaxGpus.
double gpus_at(const GpusNeeded& n, double u) {
    const auto whole = [&](double g) { return std::min(kMaxGpus, std::max(n.node, std::ceil(g / n.node) * n.node)); };
    double g = whole(n.flops / (n.peak * u * n.seconds));
    for (int k = 0; k < 3; ++k) g = whole(n.flops / (n.peak * u * n.seconds * needed_goodput(n, g)));
    return g;
}

// The answer's own count must have a layout that fits (the MFU that set it may come from another
// count). A count with none (e.g. a prime number of nodes, which no dp x pp tiles with the batch and
// the layers) gives way to the next counts of whole nodes, the first with a layout that fits; a model
// that fits on none of the next 8 is tried on counts a quarter larger each time (DeepSeek-V3 on H100
// with a long deadline: 80 GPUs asked for, 192 the first count that holds it).
void answer_count_layout(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    constexpr int kNextCounts = 8, kLargerCounts = 24;
    n.plan = Plan{};
    double g = n.gpus;
    for (int k = 0; k <= kNextCounts + kLargerCounts && g <= kMaxGpus; ++k) {
        Plan p{};
        bool divides = true;
        const double m = predicted_mfu(model, hw, n.tc, g, &p, &divides);
        if (k == 0) n.divides = divides;
        if (m > 0) {
            n.gpus = g, n.mfu = m, n.plan = p;
            return;
        }
        g = k < kNextCounts ? g + n.node : std::ceil(g * 1.25 / n.node) * n.node;
    }
}

// Seconds the run takes on g devices at MFU u and the goodput of g (default: the count found, at its MFU).
double seconds_at(const GpusNeeded& n, double g, double u) { return n.flops / (g * n.peak * u * needed_goodput(n, g)); }
double seconds_at(const GpusNeeded& n) { return seconds_at(n, n.gpus, n.mfu); }
// Whether g devices at MFU u finish by the deadline (a relative 1e-12 for rounding).
bool meets_deadline(const GpusNeeded& n, double g, double u) { return seconds_at(n, g, u) <= n.seconds * (1.0 + 1e-12); }

// The count found must meet the deadline at its own MFU and goodput. The iteration's MFU may come
// from another count: a count whose layouts are all poor runs slower than the counts around it (70B
// on 440 A100 with 1,024 sequences a step: its best layout is 55 pipeline stages, 42.6 % MFU and 44.5
// days against the 30 asked, where 656 GPUs run at 54.7 %); and goodput falls as the count grows, so
// the count gpus_at settles on can miss by a little. Such a count gives way to the count its own MFU
// asks for, at least one node more, a few times at most.
void meet_deadline(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    constexpr int kRetries = 8;
    for (int k = 0; k < kRetries && n.mfu > 0 && n.gpus < kMaxGpus; ++k) {
        if (!n.tc.mfu && !(n.plan.tokens_per_second > 0)) return;  // no layout fits: said by gpus_needed_infeasible
        if (meets_deadline(n, n.gpus, n.mfu)) return;
        n.gpus = std::min(kMaxGpus, std::max(n.gpus + n.node, gpus_at(n, n.mfu)));
        if (!n.tc.mfu) answer_count_layout(model, hw, n);
    }
}

constexpr double kBestMfu = 0.6;  // above every published run's (docs/VALIDATION.md)
// The fewest devices any run could finish by the deadline with (at kBestMfu and goodput 1), in whole nodes.
double fewest_possible(const GpusNeeded& n) {
    return std::max(n.node, std::ceil(n.flops / (n.peak * kBestMfu * n.seconds) / n.node) * n.node);
}

// Counts tried, each with its speed: devices x MFU x goodput (0: no layout).
using Rates = std::vector<std::pair<double, double>>;

// Speed of a count at its own MFU (the estimate's plan search, or training.mfu) and goodput.
double count_rate(const ModelSpec& model, const Hardware& hw, const GpusNeeded& n, double g, Plan* plan, double* mfu) {
    *mfu = n.tc.mfu ? *n.tc.mfu : estimate_mfu(model, hw, n, g, plan);
    if (plan) note_layout(n, *plan);
    return *mfu > 0 ? g * *mfu * needed_goodput(n, g) : 0.0;
}

// The counts scan_to_deadline tries, ascending: whole nodes a twentieth apart, and the counts of a
// node x 2^a x {1, 1.25, 1.5, 1.75} (4 to 7 x a power of two nodes): the time jumps with the count
// (the layouts a count's factors allow), and counts with many factors of two tile the most layouts
// (a red team: gpt-oss-120b on RTX 4090 in 11 days was 'cannot be met' where 9,984 GPUs take 10.85).
std::vector<double> scan_counts(double first, double last, double node, bool every_twentieth = true) {
    std::vector<double> out;
    if (every_twentieth)  // from one node, whatever the first: the same counts for every deadline
        for (double g = node; g <= last; g = std::max(g + node, std::ceil(g * 1.05 / node) * node))
            if (g >= first) out.push_back(g);
    const double from = every_twentieth ? first : node;  // without: every such count from one node up to `last`
    for (double p = 1; p * node <= last; p *= 2)
        for (double m : {1.0, 1.25, 1.5, 1.75}) {
            const double g = std::round(p * m) * node;
            if (g >= from && g <= last) out.push_back(g);
        }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}
// When no count meets the deadline: the fastest run over the counts scan_to_deadline tried and, below
// its first, the counts of 4 to 7 x a power of two nodes from one node, and the fewest devices within a
// tenth of its speed (the MFU falls once the batch or the network cannot feed more devices; failures
// and restarts grow with the count).
void fastest_run(const ModelSpec& model, const Hardware& hw, const Rates& scanned, double first, GpusNeeded& n) {
    Rates rates;
    for (double g : scan_counts(first, first, n.node, /*every_twentieth=*/false)) {
        if (g >= first) break;
        Plan p{};
        double u = 0;
        rates.emplace_back(g, count_rate(model, hw, n, g, &p, &u));
    }
    rates.insert(rates.end(), scanned.begin(), scanned.end());
    double best = 0;
    for (const auto& [g, rate] : rates)
        if (rate > best) best = rate, n.fastest.gpus = g;
    if (!(best > 0)) return;
    n.fastest.days = n.flops / (n.peak * best) / units::seconds_per_day;
    for (const auto& [g, rate] : rates)
        if (rate >= 0.9 * best) {
            n.fastest.near_gpus = g;
            break;
        }
}

// How far above the fewest devices any run could use (at kBestMfu, goodput 1) the scan goes: a count
// beyond it would run at under 1 % MFU x goodput.
constexpr double kScanSpan = 64;
constexpr int kStaleCounts = 16;  // 1.05^16 = 2.2x
struct CountTried {
    double gpus = 0, mfu = 0;
    Plan plan{};
};

// The counts scan_to_deadline has tried, each at its own MFU and goodput: the fastest, the first that
// meets the deadline, and the last tried before it.
struct DeadlineScan {
    const ModelSpec& model;
    const Hardware& hw;
    GpusNeeded& n;
    CountTried fastest{}, hit{};
    Rates rates{};
    double fastest_rate = 0, lo = 0;

    CountTried at(double g, double* rate = nullptr) const {
        CountTried c{g, 0, Plan{}};
        const double r = count_rate(model, hw, n, g, &c.plan, &c.mfu);
        if (rate) *rate = r;
        return c;
    }
    bool meets(const CountTried& c) const { return c.mfu > 0 && meets_deadline(n, c.gpus, c.mfu); }
    // Tries g (recorded); whether it is the fastest yet.
    bool step(double g) {
        lo = rates.empty() ? 0 : rates.back().first;  // the last count that missed
        double rate = 0;
        const CountTried c = at(g, &rate);
        rates.emplace_back(g, rate);
        const bool faster = rate > fastest_rate;
        if (faster) fastest_rate = rate, fastest = c;
        if (meets(c)) hit = c;
        return faster;
    }
    void keep(const CountTried& c) const { n.gpus = c.gpus, n.mfu = c.mfu, n.plan = c.plan; }
};

// Past the scan, counts doubling up to kMaxGpus while they keep getting faster (kFarStale doublings
// without): over slow links the speed can fall and rise again (Llama 2 7B on H100 over 1 Gb/s
// internet: ~3,500 GPUs slower than one node, 25,568 three times faster at a batch near the largest
// published, where the scan had stopped and 30 days named 8 GPUs and 263 days the fastest run while
// 100 days answered 80; a red team).
void far_counts(DeadlineScan& s) {
    constexpr int kFarStale = 3;
    for (int worse = 0; s.hit.gpus == 0 && !s.rates.empty() && worse < kFarStale;) {
        const double g = std::ceil(2.0 * s.rates.back().first / s.n.node) * s.n.node;
        if (g > kMaxGpus) break;
        worse = s.step(g) ? 0 : worse + 1;
    }
}

// The fixed point and its retries can miss every count that meets the deadline: goodput falling
// almost as fast as the count grows (Llama 3 70B on 15T tokens in 2 days: 276,504 H100 took 2.17 days
// after eight retries), or the MFU falling as the count outgrows what the batch feeds (Llama 3.1 405B
// in 40 days: 38,448 H100 at 33.7 % MFU, then 48,232 at 23.2 %, 83,344 with no layout, diverging to
// 1e7). Then counts a twentieth larger each time (at least a node) from the fewest any run could use
// (at kBestMfu), each at its own MFU and goodput, up to kScanSpan times that, and no further once the
// speed has not improved over the last kStaleCounts counts past twice the fastest's; between the last
// that misses and the first that meets, whole nodes bisected; past the scan, far_counts. When none
// meets, the count kept is the fastest seen (gpus_needed_infeasible then says the deadline cannot be met, and how fast the run goes).
void scan_to_deadline(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    const bool runs = n.mfu > 0 && (n.tc.mfu || n.plan.tokens_per_second > 0);
    if (runs && meets_deadline(n, n.gpus, n.mfu)) return;
    DeadlineScan s{model, hw, n};
    int stale = 0;
    const double first = fewest_possible(n);
    for (const double g : scan_counts(first, std::min(kMaxGpus, kScanSpan * first), n.node)) {
        if (s.hit.gpus > 0) break;
        if (s.step(g))
            stale = 0;
        else if (g > 2 * s.fastest.gpus && s.fastest_rate > 0 && ++stale >= kStaleCounts)
            break;
    }
    far_counts(s);
    if (s.hit.gpus == 0) {
        if (s.fastest_rate > 0) s.keep(s.fastest), fastest_run(model, hw, s.rates, first, n);
        return;
    }
    double lo = s.lo;
    CountTried hit = s.hit;
    while (hit.gpus - lo > n.node) {
        const double mid = std::max(lo + n.node, std::floor((lo + hit.gpus) / 2 / n.node) * n.node);
        if (mid >= hit.gpus) break;
        const CountTried c = s.at(mid);
        if (s.meets(c))
            hit = c;
        else
            lo = mid;
    }
    s.keep(hit);
}

// Whether g devices meet the deadline at an estimate's own layout search (or training.mfu); if so, they
// are the answer, with their MFU and plan.
bool adopt_if_meets(const ModelSpec& model, const Hardware& hw, GpusNeeded& n, double g) {
    Plan p{};
    const double u = n.tc.mfu ? *n.tc.mfu : estimate_mfu(model, hw, n, g, &p);
    note_layout(n, p);
    if (!(u > 0) || !meets_deadline(n, g, u)) return false;
    n.gpus = g, n.mfu = u;
    if (!n.tc.mfu) n.plan = p;
    return true;
}

// The fixed point can settle far above the smallest count that meets the deadline, the MFU falling and
// rising with the count (DeepSeek-V3 on H100 with overlap_moe_comm and 140 days: 5,664 GPUs, where 224
// finish in 99). So counts are tried upwards from the fewest any run could use (at MFU kBestMfu), each
// a twentieth more (at least a node), at their own MFU and goodput: the first that meets the deadline, if
// below the count found, is the answer (a count with no layout, or a slow one, is passed over). Each at
// an estimate's own search: the narrower one passed over counts an estimate runs in time (Llama 3 70B
// on 15T tokens in 8 days: 28,128 H100 take 7.96 days at TP4 PP4 as an estimate, and 8 days answered
// 51,456 GPUs, 7 days 61,040 where 6 days answered 56,280); ~20 ms more per answer natively.
void smallest_count(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    if (n.tc.mfu || !(n.plan.tokens_per_second > 0)) return;
    constexpr int kTries = 100;
    const double first = fewest_possible(n);
    int k = 0;
    double missed = first - n.node;                                       // the last count below the one that meets: none tried yet
    for (const double g : scan_counts(first, n.gpus - n.node, n.node)) {  // with the counts of many factors of two
        if (++k > kTries) return;
        if (adopt_if_meets(model, hw, n, g)) break;
        missed = g;
    }
    // Whole nodes between the last count that missed and the one that meets, bisected (the same counts
    // for every deadline that meets at the same scan count: a longer one never answers more).
    for (double lo = missed, hi = n.gpus; hi - lo > n.node;) {
        const double mid = std::max(lo + n.node, std::floor((lo + hi) / 2 / n.node) * n.node);
        if (adopt_if_meets(model, hw, n, mid))
            hi = mid;
        else
            lo = mid;
    }
}

// The slowest pipeline stage's layers at p stages (stage_split: even when p divides the layers; else
// the first and last stages hold one layer fewer beside the embedding and the loss).
double slowest_stage_layers(double layers, double p) {
    if (std::fmod(layers, p) == 0) return layers / p;
    const double last = std::max(1.0, std::ceil((layers + 2.0) / p) - 1.0);
    const double mid = std::max(1.0, p > 2 ? std::ceil(std::max(0.0, layers - 2.0 * last) / (p - 2.0)) : layers - last);
    return std::max(mid, last + 1.0);
}

// The counts of whole replicas of the pipeline depths that balance the layers best: each depth at which
// the slowest stage first holds fewer layers, and the depths that split the layers with the embedding and
// the loss exactly ((layers + 2) / p whole), in whole nodes. The scans' counts rarely tile them (Llama 3
// 70B on L4: 41 stages of two layers, 6,724 GPUs in 450 days, where the counts a twentieth apart needed
// 12,915).
std::vector<double> balanced_units(const ModelSpec& model, const GpusNeeded& n) {
    // Stages of at most 4 layers: one layer more on the slowest stage costs a quarter or more there,
    // where deeper stages lose less and the scans' counts tile more depths near each.
    constexpr double kFewestLayers = 4;
    std::vector<double> out;
    const double L = model.layers;
    if (!(L >= 4) || n.tc.tp * n.tc.pp * n.tc.cp > 1) return out;
    // With ep given, a replica of p stages holds p x ep x expert_tp ranks whole (expert_layout_ok):
    // DeepSeek-V3 at ep 8 on A100 in 29.4 days answered 23,424 GPUs at 16 stages, where 28.9 days had
    // answered 21,672 at 21 (a red team).
    const Count experts = std::max<Count>(1, n.tc.ep * n.tc.expert_tp.value_or(1));
    for (double p = 3; p <= L + 2; ++p) {
        if (slowest_stage_layers(L, p) > kFewestLayers) continue;
        const bool drops = slowest_stage_layers(L, p) < slowest_stage_layers(L, p - 1);
        if (!drops && std::fmod(L + 2.0, p) != 0) continue;
        const double u = static_cast<double>(std::lcm(static_cast<Count>(p) * experts, static_cast<Count>(n.node)));
        if (u > 2 * n.node && std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
    }
    return out;
}

// The whole replicas of the balanced depths (every replica to 20, then a twentieth apart), from the fewest
// any run could use, or an eighth of the answer, up to the answer, in one ascending list: the first that
// meets the deadline is the answer. The counts tried do not depend on the deadline, so a longer one does
// not answer more (Llama 3 70B on L4: 450 days had answered 6,724 GPUs, 460 days 11,521).
// Returns whether one does. Below `last` (the answer when there is one).
bool balanced_counts(const ModelSpec& model, const Hardware& hw, GpusNeeded& n, double last) {
    if (n.tc.mfu || !(n.plan.tokens_per_second > 0)) return false;
    constexpr double kDeepest = 8;  // the furthest below the answer looked (the old scans' worst miss: 3.1x)
    const double first = std::max(fewest_possible(n), n.gpus / kDeepest);
    std::vector<double> counts;
    for (const double u : balanced_units(model, n))
        for (double k = 1; k * u < last && k * u <= kMaxGpus; k = std::max(k + 1, std::ceil(k * 1.05)))  // from 1: for every deadline alike
            if (k * u >= first) counts.push_back(k * u);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (const double g : counts)
        if (adopt_if_meets(model, hw, n, g)) return true;
    return false;
}

// The answer at an estimate's own search (predicted_mfu, Search::as_estimate), so that an estimate on
// the count names reports the same MFU and days: at least the narrower search's, being wider. A count
// one or more steps lower may then meet the deadline too (gpt-oss-120b on H100 in 20 days: 272 GPUs
// at the narrow search's 23.2 % MFU, where 256 finish in 17.8 days at 25.3 %): the lowest of the next
// few that does is the answer.
void settle_on_estimate_search(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    if (n.tc.mfu || !(n.plan.tokens_per_second > 0)) return;
    constexpr int kStepsDown = 8;
    Plan p{};
    const double m = estimate_mfu(model, hw, n, n.gpus, &p);
    if (!(m > 0)) return;
    n.mfu = m, n.plan = p;
    const double from = n.gpus;
    // (A count whose layouts tile poorly is passed over, not an end.)
    for (int k = 1; k <= kStepsDown && from - k * n.node >= n.node; ++k) adopt_if_meets(model, hw, n, from - k * n.node);
}

// The whole replicas of `unit` about the fewest its layout's own MFU meets the deadline on (its MFU may
// differ a little there), the fewest that meets if below the answer. The bisection of fewer_replicas takes fewer replicas to run no
// faster, which a layout the batch caps breaks: Llama 3 70B at pp 4 on H100 runs TP4 at 46.8 % MFU up to
// 30,720 GPUs (1,920 replicas of 4 sequences: the largest published batch) and TP8 at 36.5 % above, and
// 7.5 days answered 41,568 GPUs at TP8 where 30,192 at TP4 take 7.52 days (a red team).
void replicas_at_own_mfu(const ModelSpec& model, const Hardware& hw, GpusNeeded& n, double unit, double layout_mfu) {
    if (!(layout_mfu > 0)) return;
    double k = std::ceil(gpus_at(n, layout_mfu) / unit);
    while (k * unit < n.gpus && !meets_deadline(n, k * unit, layout_mfu)) ++k;  // goodput falls as the count grows
    constexpr double kReplicasTried = 12;  // few replica counts tile the batch (DeepSeek-V3 at TP8 PP9 on A100: dp 1,400, 1,456, 1,528)
    for (double j = std::max(1.0, k - 1); j < k - 1 + kReplicasTried && j * unit < n.gpus; ++j)
        if (adopt_if_meets(model, hw, n, j * unit)) return;
}

// The answer's own layout, and the highest-MFU layouts the searches saw (n.layouts), on fewer
// replicas: counts in whole multiples of a layout's replica unit (replica_unit), below the answer,
// bisected for the fewest that meet the deadline at an estimate's own search. The scans' counts have
// few odd factors, and a layout of an odd depth can run faster than every count around it (Llama 3
// 70B on RTX 4090: 41 interleaved stages on 2,952 GPUs take 653 days, where 3,072 take 999; 600 days
// answered 6,100 GPUs and 650 days 3,813); a scan's step can pass over the expert groups' (DeepSeek-V3
// on A100 in 30 days: 20,480 GPUs, where 18,432 take 29.1 days). Fewer replicas of one layout are
// slower, by and large, but not strictly (the batch is rounded to the replicas): an answer is only
// ever replaced by a smaller count that meets.
void fewer_replicas(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    if (n.tc.mfu || !(n.plan.tokens_per_second > 0)) return;
    std::vector<std::pair<double, double>> units{{replica_unit(n.plan, n.node), n.plan.mfu}};  // each with its layout's MFU
    for (const Plan& p : n.layouts) {
        const double unit = replica_unit(p, n.node);
        if (std::find_if(units.begin(), units.end(), [&](const auto& v) { return v.first == unit; }) == units.end())
            units.emplace_back(unit, p.mfu);
    }
    for (const auto& [unit, layout_mfu] : units) {
        double lo = 0, hi = std::ceil(n.gpus / unit);  // in replicas of `unit`: lo misses (or none), hi meets
        Plan p{}, best{};
        double best_u = 0;
        while (hi - lo > 1) {
            const double mid = std::floor((lo + hi) / 2);
            const double u = estimate_mfu(model, hw, n, mid * unit, &p);
            if (u > 0 && meets_deadline(n, mid * unit, u))
                hi = mid, best = p, best_u = u;
            else
                lo = mid;
        }
        if (best_u > 0 && hi * unit < n.gpus) n.gpus = hi * unit, n.mfu = best_u, n.plan = best;
        replicas_at_own_mfu(model, hw, n, unit, layout_mfu);
    }
}

// A TPU answer of one step (a 64-chip cube, or a whole pod without a granule) may be a smaller slice:
// TPU slices come in 4, 8, 16 and 32 chips below a cube (v5p 2x2x1 ... 2x4x4, Cloud TPU v5p docs; v4
// 2x2x4; v5e 4 to 128 in a 256-chip pod). Halved while the half still meets the deadline at its own
// MFU (a red team: Pythia-1B in 365 days answered 64 v5p where 4 take 16 days).
void smaller_slices(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    if (hw.device.kind != "tpu" || n.gpus != n.node || n.tc.tp * n.tc.pp * n.tc.cp * n.tc.ep > 1) return;
    for (double g = n.node / 2; g >= 4 && std::floor(g) == g; g /= 2)
        if (!adopt_if_meets(model, hw, n, g)) break;
}

// The GPU count at the MFU the plan search predicts on it, iterated until the MFU settles.
void iterate_gpus(const ModelSpec& model, const Hardware& hw, GpusNeeded& n) {
    for (int it = 0; it < 6; ++it) {
        n.gpus = gpus_at(n, n.mfu);
        if (n.tc.mfu) break;
        const double m = predicted_mfu(model, hw, n.tc, n.gpus, &n.plan);
        if (m <= 0) {
            n.plan = Plan{};
            n.mfu = n.mfu * 0.9;
            continue;
        }
        if (std::abs(m - n.mfu) < 1e-3) {
            n.mfu = m;
            break;
        }
        n.mfu = m;
    }
    n.gpus = gpus_at(n, n.mfu);
    if (!n.tc.mfu) answer_count_layout(model, hw, n);
    meet_deadline(model, hw, n);
    scan_to_deadline(model, hw, n);
    // No count of the scans meets the deadline: a balanced depth's may, below twice the fastest count,
    // where the fastest run takes under twice the deadline (past that they only cost time: Llama 3 70B on
    // H100 in 3 or 4 sites, every deadline 'cannot be met', took 2-5x as long); else nothing smaller will.
    constexpr double kBalancedGain = 2;
    if (n.fastest.days > 0 &&
        (n.fastest.days * units::seconds_per_day > kBalancedGain * n.seconds || !balanced_counts(model, hw, n, 2 * n.gpus)))
        return;
    n.fastest = Fastest{};
    smallest_count(model, hw, n);
    balanced_counts(model, hw, n, n.gpus);
    settle_on_estimate_search(model, hw, n);
    fewer_replicas(model, hw, n);
    smaller_slices(model, hw, n);
}

// A count found that still misses the deadline (no count scan_to_deadline tried meets it at its own MFU
// and goodput): why, and the fastest run it found. Counts in full, days to 3 figures.
std::string missed_deadline(const Hardware& hw, const GpusNeeded& n) {
    const auto count = [](double v) { return decimal::format_general(v, 12); };
    std::string why = "the deadline (" + jr::fmt_num(n.seconds / units::seconds_per_day) + " days) cannot be met: no count of " +
                      hw.device.name + " tried meets it";
    const Fastest& f = n.fastest;
    if (!(f.days > 0)) return why;
    why += "; the fastest of the counts tried takes about " + sig3(f.days) + " days (" + count(f.gpus) + " GPUs";
    why += f.near_gpus > 0 && f.near_gpus < f.gpus ? "; " + count(f.near_gpus) + " come within a tenth of that)" : ")";
    return why + ": more devices lower the MFU once the batch or the network cannot feed them, and lose more time to failures and " +
           "restarts (goodput model, training.goodput)";
}

// Why no GPU count answers the question, or empty: the deadline needs more than kMaxGpus, no
// layout fits the model on the count found, or the count found misses the deadline.
std::string gpus_needed_infeasible(const GpusNeeded& n, const Hardware& hw) {
    const double needed = n.flops / (n.peak * n.mfu * n.seconds * needed_goodput(n, n.gpus));
    if (n.gpus >= kMaxGpus && needed > kMaxGpus) {
        // The goodput as a percentage to two significant figures (a raw 0.00121476 read as noise).
        const double pct = 100.0 * needed_goodput(n, n.gpus);
        const double unit = pct > 0 ? std::pow(10.0, std::floor(std::log10(pct)) - 1.0) : 1.0;
        return "the deadline cannot be met for " + jr::fmt_num(n.flops) + " FLOPs of training: even " + jr::fmt_num(kMaxGpus) + " x " +
               hw.device.name + " (the most hardware.count takes) would take longer, and failures grow with the count (goodput " +
               jr::fmt_num(std::round(pct / unit) * unit) + " %)";
    }
    if (!n.tc.mfu && n.plan.step_seconds <= 0 && !n.divides)
        return "no parallel layout tiles " + jr::fmt_num(n.gpus) + " x " + hw.device.name +
               " (tp x pp x dp = the count, dp x micro_batch dividing the global batch, every stage a layer), nor the next " +
               "counts tried (whole nodes, and whole groups of the tp, pp, cp and ep given)";
    if (!n.tc.mfu && n.plan.step_seconds <= 0)
        return "no parallel layout fits the model in the memory of " + jr::fmt_num(n.gpus) + " x " + hw.device.name;
    if (n.mfu > 0 && !meets_deadline(n, n.gpus, n.mfu)) return missed_deadline(hw, n);
    return "";
}

// The step of the counts gpus_needed answers in: a node, or the device's count_granule where it divides
// a larger scale-up domain (TPU v4 / v5p slices: 64-chip cubes in pods of thousands; the pod itself
// had made every answer a whole pod: Llama 3 70B on 8,960 v5p chips for any deadline from 30 to 60 days).
Count count_granule(const Hardware& hw) {
    const Count dpn = std::max<Count>(1, hw.devices_per_node);
    const Count g = static_cast<Count>(hw.device.count_granule.value_or(0));
    return g >= 1 && g < dpn && dpn % g == 0 ? g : dpn;
}

// The counts gpus_needed answers in: whole nodes, or count_granule (in each of hardware.sites equal sites), and whole
// model-parallel groups when tp, pp or cp are given; with ep given, enough data-parallel ranks that
// dp x cp x tp holds whole expert groups of ep x expert_tp ranks (expert_layout_ok; expert_tp 1 when
// not given, Megatron-Core's MoE parallel folding): DeepSeek-V3 at tp 1, pp 16, ep 64 in multiples of
// 1,024 GPUs; 4 sites of 8-GPU nodes in multiples of 32.
Count count_step(const Hardware& hw, const TrainingConfig& tc) {
    const Count model_parallel = tc.tp * tc.cp;
    const Count expert_group = tc.ep * tc.expert_tp.value_or(1);
    const Count dp_step = expert_group / std::gcd(expert_group, model_parallel);
    const Count nodes = count_granule(hw) * (hw.pools.empty() ? std::max<Count>(1, hw.sites) : 1);
    return std::lcm(nodes, model_parallel * tc.pp * dp_step);
}

// What gpus_needed needs (a model, tokens, a deadline) and must not be given (dp: the count is the answer).
bool gpus_needed_inputs(const Scenario& s, const TrainingConfig& tc, const InverseQuestion& q, Errors& errors) {
    if (!s.model) add_error(errors, "missing", "model", "gpus_needed needs a model");
    if (!tc.tokens) add_error(errors, "missing", "training.tokens", "gpus_needed needs training.tokens");
    if (!q.days) add_error(errors, "missing", "inverse.days", "gpus_needed needs inverse.days (the deadline)");
    if (tc.dp)
        add_error(errors, "conflict", "training.dp",
                  "gpus_needed chooses the GPU count: leave training.dp out (tp, pp and cp may be given)");
    return errors.empty();
}

// The answer's figures at the count found, its plan, and what makes the count doubtful.
void gpus_needed_figures(const GpusNeeded& n, const TrainingConfig& tc, double seq_len, double sites, const HourlyRate& rate, json& out) {
    out["gpus"] = n.gpus;
    out["mfu"] = n.mfu;
    out["goodput"] = needed_goodput(n, n.gpus);
    out["seconds_at_gpus"] = seconds_at(n);
    out["gpu_hours"] = n.gpus * out["seconds_at_gpus"].get<double>() / units::seconds_per_hour;
    // 0 $/GPU-hour is free (cost 0); no price known: no cost (null), with the warning.
    out["cost_usd"] = rate.usd ? json(out["gpu_hours"].get<double>() * *rate.usd) : json(nullptr);
    if (!rate.usd) out["warnings"].push_back("inverse: " + (rate.note.empty() ? "no $/GPU-hour: set costs.gpu_hour_usd" : rate.note));
    if (needed_goodput(n, n.gpus) < 0.5)
        out["warnings"].push_back("inverse: at " + jr::fmt_num(n.gpus) + " GPUs failures and restarts take " +
                                  jr::fmt_num(100 * (1 - needed_goodput(n, n.gpus))) +
                                  "% of the time (goodput model, training.goodput): the deadline is near what any count can meet");
    if (tc.mfu || n.plan.step_seconds <= 0) return;
    if (add_plan(out, n.plan, tc, seq_len, sites))
        out["warnings"].push_back("inverse: at " + jr::fmt_num(n.gpus) + " GPUs the batch is " +
                                  jr::fmt_num(out["global_batch_tokens"].get<double>()) +
                                  " tokens per step, above the largest published pretraining batch (DeepSeek-V3: 62.9M tokens): "
                                  "see global_batch_note");
    const double steps = *tc.tokens / out["global_batch_tokens"].get<double>();
    if (steps < kFewSteps)
        out["warnings"].push_back("inverse: the run is " + jr::fmt_num(steps) + " steps of " +
                                  jr::fmt_num(out["global_batch_tokens"].get<double>()) +
                                  " tokens: too short a training run for its time to mean much (the deadline is very short for the model)");
}

// gpus_needed: the GPU count (whole nodes) that trains the model on training.tokens by the deadline, and its cost.
json answer_gpus_needed(const Scenario& s, const Hardware& hw, const TrainingConfig& tc, const InverseQuestion& q, double peak,
                        const HourlyRate& rate, json& out, Errors& errors) {
    if (!gpus_needed_inputs(s, tc, q, errors)) return nullptr;
    const ModelSpec& model = *s.model;
    const Count group = count_step(hw, tc);
    const double flops = (model.has_architecture ? model_flops_per_token_training(model) : 6.0 * count_params(model).active) * *tc.tokens;
    GpusNeeded n{tc,
                 flops,
                 *q.days * units::seconds_per_day,
                 static_cast<double>(group),
                 peak,
                 count_params(model).total,
                 tc.mfu.value_or(kStartMfu)};
    iterate_gpus(model, hw, n);
    out["flops"] = flops;
    out["warnings"] = json::array();
    const std::string why = gpus_needed_infeasible(n, hw);
    if (why.empty()) {
        Hardware at = hw;  // the sites the answer's count spans (a network of single-node sites: one per node)
        at.count = static_cast<Count>(n.gpus);
        gpus_needed_figures(n, tc, training_model(model).shape.seq_len, site_count(at), rate, out);
    } else {
        // No count answers: every figure is null, with the reason (never a count on which nothing runs).
        for (const char* k : {"gpus", "mfu", "goodput", "seconds_at_gpus", "gpu_hours", "cost_usd"}) out[k] = nullptr;
        out["infeasible_reason"] = why;
    }
    out["formula"] = "gpus = ceil(flops / (peak x MFU x seconds x goodput) / devices_per_node) x devices_per_node";
    out["source"] = "forward model (training.cpp) at the best layout of the plan search";
    return out;
}

}  // namespace

// Across sites (or nodes each on its own link), one site alone may train a larger model than every
// device synchronously: the WAN then costs more than the other sites add (a red team: 64 H100 in one
// site answered 27.1B parameters, 256 in 4 sites over 1 Gb/s internet 3.3B). Said, with the one-site
// answer (one_site), and the ways out: DiLoCo or the networks side by side.
void one_site(const Hardware& hw, const TrainingConfig& tc, double seconds, double tpp, double peak, json& answer) {
    const NetworkLevels lv = network_levels(hw);
    if (lv.sites <= 1 || !(lv.devices_per_site >= 1) || lv.devices_per_site >= static_cast<double>(hw.count)) return;
    Hardware one = hw;
    one.count = static_cast<Count>(lv.devices_per_site);
    one.sites = 1, one.wan.reset(), one.wan_bytes_per_second.reset(), one.wan_latency_seconds.reset();
    const json alone = what_can_train(one, tc, seconds, tpp, peak);
    if (!answer["trainable_params"].is_number() || !alone["trainable_params"].is_number()) return;  // nothing fits: no comparison
    const double n_all = answer["trainable_params"].get<double>(), n_one = alone["trainable_params"].get<double>();
    if (!(n_one > 1.05 * n_all)) return;
    answer["one_site"] = {{"devices", lv.devices_per_site}, {"trainable_params", n_one}, {"mfu", alone["trainable_mfu"]}};
    answer["warnings"].push_back("inverse: one site alone (" + sig3(lv.devices_per_site) + " devices) trains a larger model (" +
                                 sig3(n_one / 1e9) + "B parameters) than all " + sig3(static_cast<double>(hw.count)) + " synchronously (" +
                                 sig3(n_all / 1e9) + "B): the links between sites cost more than the other sites " +
                                 "add; DiLoCo (training.local_steps) exchanges far less (inverse.compare_networks shows both)");
}

// A count of few divisors tiles few layouts, and fewer devices, of a count of many factors of two
// (round_count_below), may train a larger model: said, with their answer (a red team's sweep: 67 L4 over
// 1 Gb/s links for 100 days answered 1.26B parameters, 64 of them 9.17B).
void fewer_devices(const Hardware& hw, const TrainingConfig& tc, double seconds, double tpp, double peak, json& answer) {
    if (hw.sites > 1 || !answer["trainable_params"].is_number()) return;
    const std::optional<Count> fewer = round_count_below(hw.count, hw.devices_per_node);
    if (!fewer) return;
    Hardware h = hw;
    h.count = *fewer;
    const json a = what_can_train(h, tc, seconds, tpp, peak);
    if (!a["trainable_params"].is_number()) return;
    const double n_all = answer["trainable_params"].get<double>(), n_fewer = a["trainable_params"].get<double>();
    if (!(n_fewer > 1.05 * n_all)) return;
    const std::string all = jr::fmt_num(static_cast<double>(hw.count));
    answer["warnings"].push_back("inverse: " + jr::fmt_num(static_cast<double>(*fewer)) + " of the " + all +
                                 " devices train a larger model (" + sig3(n_fewer / 1e9) + "B parameters at " +
                                 sig3(100.0 * a["trainable_mfu"].get<double>()) + " % MFU) than all of them (" + sig3(n_all / 1e9) +
                                 "B): " + all + " has few divisors, so few parallel layouts tile it");
}

json answer_inverse(const Scenario& s, const InverseQuestion& q, Errors& errors) {
    if (!s.hardware) {
        add_error(errors, "missing", "hardware", "inverse questions need hardware.device");
        return nullptr;
    }
    if (!q.days && !q.budget_usd) {
        add_error(errors, "missing", "inverse.days", "inverse.days is needed (or inverse.budget_usd: a budget instead of a time)");
        return nullptr;
    }
    const Hardware& hw = *s.hardware;
    const TrainingConfig tc = s.training.value_or(TrainingConfig{});
    // MFU (given or predicted) is measured against the dense 16-bit peak, also when the GEMMs run in
    // FP8 (training.cpp throughput): compute = devices x that peak x MFU x seconds. With the FP8 peak
    // here, FP8 runs were given half the GPUs they need and twice the compute (red team, stop 44).
    const double peak = hw.device.peak(hw.device.sixteen_bit(tc.precision)).value_or(0);
    const HourlyRate rate = hardware_hour_cost(hw, s.costs, "hardware.device");
    if (!(hw.device.peak(tc.precision).value_or(0) > 0) || peak <= 0) {
        // As an estimate says it (what_can_train may have no training section for the scenario's check):
        // "the device has no peak for the training precision" had named neither.
        check_precision_peaks(hw.device, tc.precision, errors);
        return nullptr;
    }
    json out;
    out["question"] = q.question == InverseKind::what_can_train ? "what_can_train" : "gpus_needed";
    out["mfu_source"] = tc.mfu ? "given" : "predicted (best plan found by the plan search)";
    out["tokens_per_param"] = q.tokens_per_param;

    if (mixed_fleet(hw)) {
        add_error(errors, "unsupported", "hardware.pools",
                  "inverse questions need one device type (hardware.device); mixed pools are not supported");
        return nullptr;
    }
    if (q.question != InverseKind::what_can_train) return answer_gpus_needed(s, hw, tc, q, peak, rate, out, errors);
    // what_can_train sizes a dense GPT-like model (gpt_like_shape): no expert all-to-all to hide.
    if (tc.overlap_moe_comm) {
        add_error(errors, "unsupported", "training.overlap_moe_comm",
                  "what_can_train sizes a dense model, which has no expert all-to-all for training.overlap_moe_comm to hide: leave it "
                  "out");
        return nullptr;
    }
    const std::optional<double> seconds = available_seconds(hw, q, rate, errors);
    if (!seconds) return nullptr;
    json answer = what_can_train(hw, tc, *seconds, q.tokens_per_param, peak);
    one_site(hw, tc, *seconds, q.tokens_per_param, peak, answer);
    fewer_devices(hw, tc, *seconds, q.tokens_per_param, peak, answer);
    for (auto it = answer.begin(); it != answer.end(); ++it) out[it.key()] = it.value();
    if (q.compare_networks) out["networks"] = compare_networks(hw, tc, *seconds, q.tokens_per_param, peak);
    return out;
}

}  // namespace gpucalc
