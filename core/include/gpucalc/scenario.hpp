// A scenario: everything an estimate needs, as plain structs with documented defaults.
// docs/SCHEMA.md lists every JSON key; the defaults below are the single source of truth.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/device.hpp"
#include "gpucalc/errors.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/precision.hpp"

namespace gpucalc {

using Count = std::int64_t;  // whole numbers of things (devices, ranks, sequences, tokens per request)

// One pool of a mixed fleet (hardware.pools): `count` devices of one kind in one site.
struct Pool {
    Device device;
    Count count = 1;
    std::string site;            // sites are named; pools with the same name share a site
    Count devices_per_node = 0;  // 0 = the device's reference system
    // This pool's price of one device-hour, USD/h (a rent: cloud only); none: costs.gpu_hour_usd,
    // else the catalog's price of its device.
    std::optional<double> gpu_hour_usd;
};

constexpr std::size_t kMaxPools = 64;  // hardware.pools: at most 64 pools (and so at most 64 sites)

struct Hardware {
    Device device;
    Count count = 1;                                   // devices in the cluster
    Count devices_per_node = 0;                        // 0 = the device's reference system (e.g. 8 for HGX)
    std::optional<double> scale_out_bytes_per_second;  // per device, per direction; overrides the catalog
    // Networks (network.hpp, core/data/networks.json). Between nodes: a preset and a latency override;
    // a WAN preset here puts every node in its own site. Between sites: how many (equal) sites, and
    // the WAN joining them (preset, bandwidth per site and latency overrides).
    std::optional<int> network;                  // preset index (network_presets())
    std::optional<double> latency_seconds;       // one-way latency between nodes
    Count sites = 1;                             // sites of equal size joined by the WAN
    std::optional<int> wan;                      // preset index; default internet-1g when sites > 1
    std::optional<double> wan_bytes_per_second;  // per site, per direction
    std::optional<double> wan_latency_seconds;   // one-way latency between sites
    std::vector<Pool> pools;                     // mixed fleet (device and count are then derived)
};

enum class Recompute { none, selective, full };
enum class Optimizer { adam, sgd };
enum class Attention { flash, materialized };
// The fused attention kernel: fused = the generation's best (cuDNN fused attention / FlashAttention-3 /
// Transformer Engine on Hopper and later, FlashAttention-2 on Ampere, splash attention on TPU);
// flash2 = FlashAttention-2 (PyTorch SDPA's flash backend); triton = FlashAttention in Triton (2022).
enum class AttentionKernel { fused, flash2, triton };
// How an MoE layer's tokens reach their experts on other nodes: alltoall = one copy per routed expert
// (NCCL all-to-all, Megatron-Core's alltoall dispatcher); deepep = once per destination node over the
// scale-out network, then forwarded inside the node over the scale-up links (DeepEP's normal kernels,
// Megatron-Core's flex dispatcher with its DeepEP or HybridEP backend).
enum class MoeDispatcher { alltoall, deepep };

enum class LayoutMode { automatic, given };
// Precision of the values exchanged between sites (gradients, or DiLoCo pseudo-gradients).
enum class OuterPrecision { fp32, bf16, int8, int4, int2 };
double outer_precision_bytes(OuterPrecision p);
// Training software: how communication is overlapped, kernels fused, gradients kept (efficiency.hpp).
// torchtitan and llm_foundry are PyTorch FSDP stacks with their own kernels and recomputation
// policies (calibration.json); fsdp is the generic profile.
enum class Framework { megatron, fsdp, deepspeed, maxtext, megatron_legacy, torchtitan, llm_foundry };

// Overrides of the performance model's efficiency constants (fractions, 0..1]; absent: the
// calibrated values for the device's generation (training.cpp efficiency_for).
struct EfficiencyOverrides {
    std::optional<double> gemm, gemm_half_width, attention, memory, network;
};

struct TrainingConfig {
    std::optional<double> tokens;           // tokens to train on (run totals need it)
    std::optional<double> mfu;              // given MFU (0..1]; absent: predicted by the performance model
    Precision precision = Precision::bf16;  // compute precision of the matrix multiplies
    std::optional<Count> global_batch;      // sequences per optimizer step; default ~4M tokens
    Count micro_batch = 1;                  // sequences per micro-batch per pipeline
    Count tp = 1;                           // tensor-parallel size
    Count pp = 1;                           // pipeline-parallel size
    std::optional<Count> dp;                // data-parallel size; default count / (tp x pp)
    Count vpp = 1;                          // interleaved pipeline chunks per GPU (Narayanan et al. 2021 Sec. 2.2.2)
    Count ep = 1;                           // expert-parallel size (MoE): experts sharded over ep ranks of the DP group
    // Tensor-parallel size of the routed experts (Megatron-Core --expert-tensor-parallel-size, MoE
    // parallel folding): default tp, or 1 when ep does not divide dp x cp (expert_tensor_parallel).
    std::optional<Count> expert_tp;
    Count cp = 1;                           // context-parallel size: the sequence split over cp ranks (ring attention)
    Count zero = 1;                         // ZeRO stage 0..3 over the DP group (Rajbhandari et al. 2020)
    std::optional<Count> shard_group;       // hybrid sharding: ZeRO shards within groups of this many ranks; default all dp x cp
    std::optional<bool> sequence_parallel;  // default: on when tp > 1 (Korthikanti et al. 2022)
    Recompute recompute = Recompute::none;  // as Megatron-LM (--recompute-granularity unset), DeepSpeed and PyTorch
    Optimizer optimizer = Optimizer::adam;
    Attention attention = Attention::flash;
    std::optional<AttentionKernel> attention_kernel;   // default: the framework's
    bool overlap_dp_comm = true;                       // DP gradient reduction overlapped with the last backward pass
    double overhead_bytes = 1.0 * 1024 * 1024 * 1024;  // CUDA context + communication buffers, bytes
    double fragmentation = 0.05;                       // allocator fragmentation, fraction of the other memory terms
    EfficiencyOverrides efficiency;
    std::optional<Framework> framework;  // default: maxtext on TPUs, megatron elsewhere
    std::optional<bool> fp32_gradients;  // default: the framework's (Megatron with bf16: fp32 main_grad buffers)
    std::optional<double> goodput;       // fraction of wall time on useful steps; default: failure/checkpoint model
    // Parallel layout: auto = the plan search picks every layout field the scenario does not give
    // (default when none of tp, pp, dp is given); given = the fields as given, defaults for the rest.
    std::optional<LayoutMode> layout;
    // Low-communication training across sites (DiLoCo, Douillard et al. 2023, arXiv:2311.08105): each
    // site takes local_steps inner steps, then the sites exchange pseudo-gradients (outer step).
    Count local_steps = 1;                                   // H; 1 = synchronous data parallelism
    std::optional<OuterPrecision> outer_precision;           // bytes per exchanged value; default: gradients' (H = 1), fp32 (H > 1)
    double outer_topk = 1;                                   // share of the values sent (top-k sparsification); 1 = dense
    Count outer_overlap_steps = 0;                           // streaming: the exchange overlaps this many following inner steps
    bool outer_offload = false;                              // outer optimizer state (anchor + momentum) in host memory
    bool load_balance = true;                                // mixed fleets: batch split by each pool's speed (else by device count)
    bool async_tp = false;                                   // TP collectives decomposed and overlapped with their matmuls (async TP)
    bool dualpipe = false;                                   // DeepSeek-V3's bidirectional pipeline schedule (DualPipe)
    MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;  // MoE token dispatch across nodes
    bool overlap_moe_comm = false;                           // Megatron-Core combined 1F1B: EP all-to-all behind another micro-batch
    bool compile = true;                                     // torchtitan: transformer blocks under torch.compile (false: eager)
    bool outer_state = false;                                // internal, not a field: a fleet pool holds DiLoCo's outer state
    bool batch_defaulted = false;  // internal, not a field: global_batch is the default a layout given resolved (not the scenario's)
    std::uint64_t given = 0;       // rows of training_fields() present in the scenario (not echoed)
};

// Latency targets of a serving deployment (inference.slo).
struct ServingSlo {
    std::optional<double> ttft_seconds;  // time to first token ONE user waits (queueing + their prefill)
    std::optional<double> tpot_seconds;  // time per output token (decode step, prefill interference included)
    bool search_precision = true;        // also try lower weight / KV-cache precisions than the given ones
};

// Speculative decoding: a draft proposes `draft_tokens`, the target verifies them in one step
// (Leviathan et al. 2023, arXiv:2211.17192).
struct SpeculativeConfig {
    double draft_params = 0;       // parameters of the draft model (MTP head: its own parameters)
    Count draft_tokens = 4;        // tokens proposed per verification step (gamma)
    double acceptance_rate = 0.7;  // probability a proposed token is accepted (alpha)
    // The draft's own architecture (inference.speculative.draft_model): its KV cache per token and
    // layers; without it, its layers are the target's (draft_params / active parameters of them).
    std::optional<ModelSpec> draft_model;
};

// Weight storage formats of llama.cpp (GGUF); native = weight_precision.
enum class WeightFormat { native, q4_0, q4_k_m, q5_k_m, q6_k, q8_0 };

struct InferenceConfig {
    Precision weight_precision = Precision::bf16;
    Precision kv_precision = Precision::bf16;
    std::optional<Count> batch;  // concurrent sequences per model instance; absent: the largest that fits (max throughput)
    Count prompt_tokens = 512;
    Count output_tokens = 256;
    std::optional<Count> tp;         // GPUs per model instance (tensor parallel); absent: chosen (inference.cpp automatic_tp)
    double requests_per_day = 0;     // traffic; 0 = no traffic sizing
    double concurrent_requests = 0;  // or: requests in flight at the peak (Little's law sizes the traffic); 0 = none
    double peak_to_average = 2.0;    // provisioning headroom for the daily peak
    std::optional<double> latency_target_seconds_per_token;  // max decode time per output token
    Count quant_group_size = 32;                             // int4/fp4 weights per scale (fp4 without one given: 16, NVFP4)
    double overhead_bytes = 1.0 * 1024 * 1024 * 1024;        // CUDA context, workspace, activations
    // Serving (issue 15). Continuous batching: the engine's cap on concurrent sequences
    // (TensorRT-LLM trtllm-bench caps max_batch_size at 4,096: tensorrt_llm/bench/build/tuning.py).
    Count batch_limit = 4096;
    // Share of the memory left after weights and overhead that the engine gives its KV-cache pool
    // (TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction, default 0.9; the rest holds activations).
    double kv_cache_memory_fraction = 0.9;
    double prefix_cache_hit_rate = 0;                        // fraction of input tokens whose KV is already cached (no prefill compute)
    std::optional<ServingSlo> slo;                           // latency targets: search precision, TP and batch for the fewest GPUs
    bool disaggregated = false;                              // prefill and decode on separate instances (KV moved between them)
    std::optional<SpeculativeConfig> speculative;            // draft-model / MTP speculative decoding
    Count ep = 1;                                            // expert parallelism (MoE): routed experts sharded over ep devices
    bool attention_dp = false;                               // data-parallel attention (MLA models): each rank keeps its own sequences' KV
    WeightFormat weight_format = WeightFormat::native;       // GGUF block formats (llama.cpp) instead of weight_precision
    std::optional<Count> gpu_layers;                         // layers kept on the device; the rest run from host memory (CPU offload)
    double host_memory_bandwidth_bytes_per_second = 89.6e9;  // dual-channel DDR5-5600: 2 x 8 B x 5.6e9 transfers/s
};

// Fine-tuning (finetune.cpp): full, LoRA or QLoRA on hardware.count devices (FSDP-sharded when > 1).
enum class FinetuneMethod { full, lora, qlora };
enum class LoraModules { qv, attention, all_linear, qkv, qvo_mlp };
enum class FinetuneOptimizer { adamw, adamw_8bit, paged_adamw_8bit, sgd };
struct FinetuneConfig {
    FinetuneMethod method = FinetuneMethod::lora;
    Count lora_rank = 8;                         // torchtune / PEFT default rank
    LoraModules lora_modules = LoraModules::qv;  // adapted matrices: q and v (LoRA paper), all attention, all linear (QLoRA paper), q k v,
                                                 // q v o + MLP (torchtune configs)
    Count batch = 2;                             // sequences per device per step (torchtune's table: 2)
    Count seq_len = 2048;                        // tokens per sequence (packed)
    bool gradient_checkpointing = true;          // keep only each layer's input; recompute the layer in backward
    FinetuneOptimizer optimizer = FinetuneOptimizer::adamw;
    bool master_weights = false;                       // fp32 copy of trainable weights and fp32 optimizer states (mixed precision)
    bool optimizer_in_backward = false;                // step each parameter as its gradient arrives (one layer's gradients live)
    bool chunked_cross_entropy = true;                 // fp32 loss over the logits in 8 chunks (torchtune CEWithChunkedOutputLoss)
    bool activation_offload = false;                   // checkpointed layer inputs kept in host memory
    bool cpu_offload = false;                          // FSDP CPU offload: parameters, gradients and optimizer states in host memory
    std::optional<double> tokens;                      // tokens to train on (time and cost need it)
    double overhead_bytes = 1.0 * 1024 * 1024 * 1024;  // CUDA context, allocator, communication buffers
};

enum class Ownership { cloud, owned };
enum class PriceBasis { marketplace, hyperscaler };

struct Costs {
    std::optional<double> gpu_hour_usd;  // default: the device's catalog price on price_basis
    PriceBasis price_basis = PriceBasis::marketplace;
    double electricity_usd_per_kwh = 0.10;
    double pue = 1.2;                        // data-centre power usage effectiveness
    double grid_kg_co2_per_kwh = 0.385;      // US average used by Touvron et al. 2023 (LLaMA) Sec. 6
    Ownership ownership = Ownership::cloud;  // cloud: pay gpu_hour_usd; owned: amortise price + energy
    double lifetime_years = 4;               // amortisation period for owned hardware
    // Not a scenario field: the mixed fleet's pool (its index) whose own gpu_hour_usd a missing rent
    // is asked for (pool_costs); -1: costs.gpu_hour_usd. A number, not the text: Costs is copied on
    // the estimate's path, and a string this long is a heap copy in wasm.
    int rent_pool = -1;
};

struct CompareRequest {
    Device a, b;
    Precision precision = Precision::bf16;  // precision for "how many B match one A"
};

struct RooflineRequest {
    std::vector<Device> devices;
    Precision precision = Precision::bf16;
    Count matmul_n = 8192;           // size of the N x N x N GEMM workload
    std::optional<ModelSpec> model;  // adds "one forward pass" workloads for this model
    Count prompt_tokens = 2048;      // tokens of the prefill forward pass
};

// Inverse questions: "what can this cluster train in D days / for $X?", "how many GPUs for model
// M on D tokens by a deadline?" (answered by inverse.cpp with the forward model).
enum class InverseKind { what_can_train, gpus_needed };
struct InverseQuestion {
    InverseKind question = InverseKind::what_can_train;
    std::optional<double> days;        // deadline / time available
    std::optional<double> budget_usd;  // money available (what_can_train)
    double tokens_per_param = 20;      // Chinchilla (Hoffmann et al. 2022): ~20 tokens per parameter
    bool compare_networks = false;     // what_can_train: the same devices in one cluster, across sites, and with DiLoCo
};

// Options of the parallelism plan search (gpucalc plan).
struct PlanOptions {
    Count max_tp = 8;   // tensor-parallel sizes 1..max_tp (powers of two dividing heads)
    Count max_vpp = 8;  // interleaving 1..max_vpp (the automatic layout searches the same)
    Count max_micro_batch = 8;
    Count top_k = 10;
    std::optional<Count> only_tp;  // search this tensor-parallel size only (lets a caller split the search)
    // Only the top_k plans, or the least-memory layout when none fits, are wanted (an automatic
    // layout): once k plans fit, a plan whose step-time lower bound already loses to the k-th best is
    // neither sized nor timed, so best_per_layout and the counts are then incomplete. Same best plans.
    bool best_only = false;
};

struct Scenario {
    std::optional<ModelSpec> model;
    std::optional<Hardware> hardware;
    std::optional<TrainingConfig> training;
    std::optional<InferenceConfig> inference;
    Costs costs;
    std::optional<CompareRequest> compare;
    std::optional<RooflineRequest> roofline;
    std::optional<FinetuneConfig> finetune;
    bool scaling = false;  // include the training scaling curve
    bool explain = true;   // include derivations ("show the work")
};

}  // namespace gpucalc
