// Mixed fleets (hardware.pools of different devices, node sizes or site sizes): two ways to train one
// model on them, each searched, the faster reported.
//  - data parallel across pools: every pool trains whole replicas with its own layout (plan search on
//    that pool alone); the batch is split by each pool's speed (load balancing) or by device count,
//    the slowest pool sets the synchronous step, and the pools exchange gradients (or DiLoCo
//    pseudo-gradients every local_steps steps) inside sites, then over the WAN.
//  - one pipeline through the pools: each pool holds a block of layers (split by the pool's speed,
//    within its memory), tensor parallelism inside a node, pipeline stages inside the pool, the same
//    data-parallel size in every pool (its groups stay inside the pool's site), activations sent
//    between pools over the site network or the WAN (Narayanan et al. 2021 1F1B; SWARM, Ryabinin et
//    al. 2023, for the WAN bound; heterogeneous stage balancing as in HetPipe, Park et al. 2020).
#pragma once
#include <string>
#include <vector>

#include "gpucalc/explain.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/training.hpp"

namespace gpucalc {

struct FleetPool {
    Pool pool;
    TrainingConfig layout;               // this pool's layout (data parallel: its own replicas; pipeline: its stages)
    double layers = 0;                   // pipeline: layers this pool holds
    double batch_sequences = 0;          // data parallel: sequences per step this pool trains
    double step_seconds = 0;             // data parallel: this pool's step on its share; pipeline: one micro-batch on its slowest stage
    double tokens_per_second_alone = 0;  // data parallel: the pool training alone at its best layout
    double memory_per_gpu_bytes = 0, memory_capacity_bytes = 0;
    MemoryPerGpu memory;               // its parts (memory_per_gpu_bytes is their total)
    double outer_optimizer_bytes = 0;  // DiLoCo's outer state per device (in memory_per_gpu_bytes)
    bool fits = true;
    double peak_flops_per_second = 0;  // dense 16-bit peak of the pool (devices x peak)
};

struct FleetResult {
    TrainingResult total;  // the fleet as one run (the report's training section)
    std::string mode;      // "data_parallel" or "pipeline"
    std::vector<FleetPool> pools;
    double sites = 1;
    std::string slowest_pool;                 // data parallel: the pool that sets the step
    double exchange_seconds = 0;              // one exchange between pools (inside sites + across them)
    double pipeline_dp = 0;                   // pipeline: data-parallel size (pipelines through the pools)
    std::vector<std::size_t> pipeline_order;  // pipeline: the pools (indices in hardware.pools) in stage order
    std::string why_not_other;                // why the other mode was not chosen
    bool load_balanced = true;
};

// How a fleet estimate searches. `remember` (the default): the pipeline's stage estimates are
// remembered by their arguments across the fleet's searches (the orders, the fleets without a pool);
// false computes each again, for tests that the answers are the same.
struct FleetSearch {
    bool remember = true;
};

FleetResult estimate_fleet(const ModelSpec& m, const Hardware& hw, const TrainingConfig& cfg, const Costs& costs, Trace& trace,
                           FleetSearch search = {});
void write_fleet(jw::Val out, const FleetResult& f);

}  // namespace gpucalc
