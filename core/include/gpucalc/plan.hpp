// Parallelism plan search: enumerate every valid (TP, PP, interleave, micro-batch, ZeRO, recompute,
// SP, overlap) layout for a training scenario, evaluate each with the training model, rank by step
// time. Same role as Calculon's search (Isaev et al. 2023, SC'23), exhaustive and allocation-free.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpucalc/scenario.hpp"
#include "gpucalc/training.hpp"

namespace gpucalc {

struct PlanOptions {
    double max_tp = 8;        // tensor-parallel sizes 1..max_tp (powers of two dividing heads)
    double max_vpp = 4;       // interleaving 1..max_vpp
    double max_micro_batch = 8;
    double top_k = 10;
    double only_tp = 0;       // > 0: search this tensor-parallel size only (lets a caller split the search)
};

struct Plan {
    TrainingConfig config;
    double step_seconds = 0, memory_per_gpu_bytes = 0, mfu = 0, tokens_per_second = 0, bubble_fraction = 0;
};

struct PlanResult {
    std::vector<Plan> best;          // top-k plans by step time
    std::vector<Plan> best_per_layout;  // best plan of each (tp, pp) layout, fastest first
    double considered = 0, feasible = 0;
    double rejected_out_of_memory = 0, rejected_indivisible = 0;
    double search_seconds = 0;       // filled by the caller that has a clock
};

PlanResult search_plans(const ModelSpec& m, const Hardware& hw, const TrainingConfig& base, const PlanOptions& opt);

// JSON entry point: scenario with model (architecture), hardware and training (global_batch, tokens);
// optional "plan": {"top_k", "max_tp", "max_vpp", "max_micro_batch", "tp"}.
std::string plan_json(const std::string& scenario_text);
nlohmann::json plan_to_json(const Plan& p);

}  // namespace gpucalc
