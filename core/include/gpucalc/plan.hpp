// Parallelism plan search: enumerate every valid (TP, PP, interleave, micro-batch, ZeRO, recompute,
// SP, overlap) layout for a training scenario, evaluate each with the training model, rank by
// throughput. Fields the scenario gives (training.given) are held fixed; a global batch not given
// is the default (~4M tokens) rounded to each layout's dp x micro_batch.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/errors.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/training.hpp"

namespace gpucalc {

struct Plan {
    TrainingConfig config;
    double step_seconds = 0, memory_per_gpu_bytes = 0, mfu = 0, tokens_per_second = 0, bubble_fraction = 0;
    double hfu = 0;  // MFU with the recomputed FLOPs counted (as TrainingResult::hfu)
};

struct PlanResult {
    std::vector<Plan> best;             // top-k plans by throughput (tokens/s), fastest first
    std::vector<Plan> best_per_layout;  // best plan of each (tp, pp) layout, fastest first
    std::optional<Plan> least_memory;   // the valid layout that needs the least memory per device (fits or not; best_only: when none fits)
    double considered = 0, feasible = 0;
    double rejected_out_of_memory = 0, rejected_indivisible = 0;
    // Interleavings and micro-batches of a layout not tried because the smallest batch they take is
    // above the largest published pretraining batch (an automatic batch only; no_plan_reason says so).
    double rejected_batch_above_published = 0;
    // PlanOptions::best_only: plans skipped, unsized, because their step-time lower bound loses to the
    // k best (feasible + rejected_out_of_memory + skipped_by_bound = what a full search sizes)
    double skipped_by_bound = 0;
    double search_seconds = 0;  // filled by the caller that has a clock
};

PlanResult search_plans(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, const PlanOptions& opt);

// The layout fields a scenario gives (what an automatic layout must keep), as a list for a message
// ("training.tp, training.vpp"; "none").
std::string given_layout_fields(const TrainingConfig& t);
std::string devices_text(double n);  // "1 device", "8 devices"

// Why a search found no plan (empty when it found one): no layout satisfies the fields given, or
// none fits in memory.
std::string no_plan_reason(const PlanResult& r, const Hardware& hw, const TrainingConfig& base);

// plan.tp (PlanOptions::only_tp) against the scenario, as training.tp is checked: at most plan.max_tp,
// the same as a given training.tp, tiling hardware.count with the sizes given, dividing the heads.
void check_plan_options(const Scenario& s, const PlanOptions& opt, Errors& errors);

}  // namespace gpucalc
