// Layout resolution (layout.hpp).
#include "gpucalc/layout.hpp"

#include <algorithm>

#include "gpucalc/scenario_fields.hpp"

namespace gpucalc {

// Search bounds for an automatic layout: tensor parallelism within a node (Megatron's practice:
// Narayanan et al. 2021 Sec. 3.2), interleaving up to 8, micro-batches up to 8.
std::optional<Count> round_count_below(Count n, Count node) {
    node = std::max<Count>(1, node);
    std::optional<Count> best;
    for (Count p = 1; p * node <= n; p *= 2)  // p nodes x {1, 1.25, 1.5, 1.75}: whole nodes only
        for (const Count q : {4 * p, 5 * p, 6 * p, 7 * p}) {
            if (q % 4 != 0) continue;
            const Count g = q / 4 * node;
            if (g == n) return std::nullopt;
            if (g < n) best = std::max(best.value_or(0), g);
        }
    return best;
}

PlanOptions automatic_layout_options(const Hardware& hw) {
    PlanOptions opt;
    opt.top_k = 1;
    opt.max_tp = max_tp_within_node(hw);
    opt.max_vpp = 8;
    opt.max_micro_batch = 8;
    opt.best_only = true;  // only the best plan and the least-memory layout are read
    return opt;
}

namespace {

// The layout fields that a search may choose.
constexpr const char* kLayoutFields[] = {
    "tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel", "overlap_dp_comm", "global_batch"};

}  // namespace

Count max_tp_within_node(const Hardware& hw) { return std::min<Count>(8, std::max<Count>(1, hw.devices_per_node)); }

LayoutChoice resolve_layout(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg) {
    LayoutChoice out;
    out.config = cfg;
    if (cfg.layout != LayoutMode::automatic) return out;
    out.searched = true;
    const PlanResult r = search_plans(m, hw, cfg, automatic_layout_options(hw));
    if (!r.best.empty())
        out.config = r.best.front().config;
    else if (r.least_memory) {
        out.config = r.least_memory->config;
        out.found = false;
    } else {
        out.found = false;
        out.valid = false;
        if (r.rejected_batch_above_published > 0) out.reason = no_plan_reason(r, hw, cfg);  // else the report names the fields given
    }
    out.config.layout = LayoutMode::automatic;
    out.config.mfu = cfg.mfu;  // a given MFU is not a layout field: the search ignores it, the estimate uses it
    // The resolved fields count as given: the echo holds them, and re-running it reproduces this layout.
    for (const char* f : kLayoutFields) out.config.given |= field_bit(training_fields(), f);
    return out;
}

std::optional<Plan> suggest_layout(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg) {
    TrainingConfig free = cfg;
    for (const char* f : kLayoutFields)
        if (std::string(f) != "global_batch") free.given &= ~field_bit(training_fields(), f);
    // The experts' tensor parallelism follows the layout too (its default rule): a resolved value
    // echoed back into the scenario must not narrow the suggestion (the echo is a valid scenario
    // that reproduces the same report).
    free.expert_tp.reset();
    free.given &= ~field_bit(training_fields(), "expert_tp");
    const PlanResult r = search_plans(m, hw, free, automatic_layout_options(hw));
    if (r.best.empty()) return std::nullopt;
    return r.best.front();
}

}  // namespace gpucalc
