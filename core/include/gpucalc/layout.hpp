// The parallel layout of a training run: as given, or chosen by the plan search (layout auto); and,
// for a layout that does not fit, the fastest one that does (training.suggested_layout).
#pragma once
#include <optional>
#include <string>

#include "gpucalc/plan.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct LayoutChoice {
    TrainingConfig config;           // the layout to estimate (every field resolved)
    bool searched = false;           // chosen by the plan search
    bool found = true;               // false: no valid layout fits (config is the one needing least memory)
    bool valid = true;               // false: no layout satisfies the fields given at all (config as given)
    std::optional<Plan> suggestion;  // set when `config` does not fit and another layout does
    std::string reason;              // !valid because of the published batch cap: why (no_plan_reason)
};

LayoutChoice resolve_layout(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg);
// The fastest layout that fits with every layout field free (non-layout fields as given).
std::optional<Plan> suggest_layout(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg);

// The largest count below n of the form node x 2^a x {1, 1.25, 1.5, 1.75} (many factors of two: the
// counts that tile the most layouts), none when n is one of them or at most one node. A count of few
// divisors (67 L4, a prime) tiles few layouts: Llama 3 8B fits none of 67 L4's, and 4 of 64's.
std::optional<Count> round_count_below(Count n, Count node);

// The search bounds of an automatic layout (training.layout "auto"): the best plan only.
PlanOptions automatic_layout_options(const Hardware& hw);

// The largest tensor-parallel size an automatic layout searches: within a node (Megatron's practice,
// Narayanan et al. 2021 Sec. 3.2), at most 8. The plan search's default max_tp too.
Count max_tp_within_node(const Hardware& hw);

}  // namespace gpucalc
