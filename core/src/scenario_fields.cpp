// The field tables of the scenario (see scenario_fields.hpp). Defaults are the struct members'
// defaults in scenario.hpp / model.hpp; ranges and docs live here, once.
#include "gpucalc/scenario_fields.hpp"

#include <algorithm>

#include "gpucalc/network.hpp"

namespace gpucalc {

using json = jv::Value;

namespace {

constexpr double kMaxCount = 1e8;  // devices, ranks: far above any real cluster
constexpr double kMaxDim = 1e7;    // model widths

// A precision's choice row: its name and its enum value.
constexpr Choice precision_choice(Precision p) { return Choice{kPrecisionNames[static_cast<std::size_t>(p)], static_cast<int>(p)}; }

// The choice lists of the tables (constant arrays, so that each table is constant data).
constexpr Choice kModelFfnKind[] = {{"gelu", 0}, {"swiglu", 1}};
constexpr Choice kModelNorm[] = {{"layernorm", 0}, {"rmsnorm", 1}};
constexpr Choice kModelPositionEmbedding[] = {{"learned", 0}, {"rope", 1}, {"alibi", 2}};

}  // namespace

FieldTable<ModelSpec> model_fields() {
    using M = ModelSpec;
    static constexpr Field<M> t[] = {
        field<&M::params>(number_spec("params", "parameters", {1, 1e16, false},
                                      "total parameter count alone (enough for 6·N·D and weight memory)",
                                      "none: give params, a preset or an architecture")),
        field<&M::active_params>(number_spec("active_params", "parameters", {1, 1e16, false},
                                             "parameters active per token (mixture of experts), with params", "params")),
        field<&M::layers>(
            integer_spec("layers", "", 1, 1e5, "transformer blocks (required for an architecture)", "none: required for an architecture")),
        field<&M::hidden>(integer_spec("hidden", "", 1, kMaxDim, "model width d_model (required for an architecture)",
                                       "none: required for an architecture")),
        field<&M::heads>(
            integer_spec("heads", "", 1, 1e5, "query heads (required for an architecture)", "none: required for an architecture")),
        field<&M::kv_heads>(integer_spec("kv_heads", "", 1, 1e5, "key/value heads: = heads (MHA), 1 (MQA), else GQA", "heads")),
        field<&M::head_dim>(integer_spec("head_dim", "", 1, 1e5, "width of one head", "hidden / heads")),
        field<&M::ffn_hidden>(integer_spec("ffn_hidden", "", 1, kMaxDim, "MLP inner width", "4 x hidden")),
        field<&M::ffn_kind>(choice_spec("ffn_kind", kModelFfnKind, "2-matrix MLP (GPT) or 3-matrix gated MLP (Llama)")),
        field<&M::vocab>(integer_spec("vocab", "tokens", 1, 1e8, "vocabulary size (required for an architecture)",
                                      "none: required for an architecture")),
        field<&M::seq_len>(integer_spec("seq_len", "tokens", 1, 1e8, "training sequence / context length")),
        field<&M::tied_embeddings>(boolean_spec("tied_embeddings", "input and output embeddings shared", "true for a custom architecture")),
        field<&M::biases>(boolean_spec("biases", "linear layers have biases (GPT) or not (Llama)")),
        field<&M::rmsnorm>(choice_spec("norm", kModelNorm, "normalisation layers")),
        field<&M::pos>(
            choice_spec("position_embedding", kModelPositionEmbedding, "learned position table (counted as parameters), RoPE or ALiBi")),
        field<&M::parallel_attention>(boolean_spec("parallel_attention", "attention and MLP in parallel from one norm (GPT-J, PaLM)")),
        field<&M::dropout>(boolean_spec("dropout", "trained with dropout (adds mask activations: Korthikanti et al. 2022 Table 2)",
                                        "false for a custom architecture; as published for presets")),
        field<&M::sliding_window>(integer_spec("sliding_window", "tokens", 0, 1e8, "attention window; 0 = full attention")),
        field<&M::full_attention_layers>(integer_spec(
            "full_attention_layers", "", 0, 1e5,
            "with sliding_window: the layers that attend to the whole context, the others to the window (gpt-oss: half of them)",
            "0: every layer windowed")),
        field<&M::experts>(integer_spec("experts", "", 0, 1e5, "routed experts per MoE layer; 0 = dense")),
        field<&M::experts_per_token>(integer_spec("experts_per_token", "", 0, 1e5, "routed experts per token (top-k)")),
        field<&M::shared_experts>(integer_spec("shared_experts", "", 0, 1e5, "always-active experts per MoE layer")),
        field<&M::expert_ffn_hidden>(integer_spec("expert_ffn_hidden", "", 0, kMaxDim, "inner width of one expert", "ffn_hidden")),
        field<&M::dense_layers>(integer_spec("dense_layers", "", 0, 1e5, "leading layers with a dense MLP (DeepSeek-V3: 3)")),
        field<&M::max_routed_nodes>(
            integer_spec("max_routed_nodes", "nodes", 0, 1e5,
                         "node-limited routing: a token's experts span at most this many nodes (DeepSeek-V3: 4); 0 = any")),
        field<&M::q_lora_rank>(integer_spec("q_lora_rank", "", 0, 1e6, "MLA query compression rank (0 = none)")),
        field<&M::kv_lora_rank>(integer_spec("kv_lora_rank", "", 0, 1e6, "MLA key/value latent rank (> 0 switches MLA on)")),
        field<&M::qk_nope_head_dim>(integer_spec("qk_nope_head_dim", "", 0, 1e5, "MLA query/key width without RoPE")),
        field<&M::qk_rope_head_dim>(integer_spec("qk_rope_head_dim", "", 0, 1e5, "MLA decoupled RoPE key width")),
        field<&M::v_head_dim>(integer_spec("v_head_dim", "", 0, 1e5, "MLA value head width")),
    };
    return t;
}

FieldTable<Hardware> hardware_fields() {
    using H = Hardware;
    static const Field<H> t[] = {
        // not constexpr: the network presets are read from networks.json
        field<&H::count>(integer_spec("count", "devices", 1, kMaxCount, "devices in the cluster")),
        field<&H::devices_per_node>(integer_spec("devices_per_node", "devices", 1, 1e6, "devices sharing the scale-up domain",
                                                 "the device's reference system (8 for HGX)")),
        field<&H::scale_out_bytes_per_second>(number_spec("scale_out_bytes_per_second", "B/s", {1e3, 1e15, false},
                                                          "network bandwidth per device, per direction", "the catalog's NIC per GPU")),
        field<&H::network>(choice_spec("network", network_choices(),
                                       "network between nodes (`gpucalc networks`: InfiniBand, RoCE, Ethernet, WAN and internet "
                                       "presets with their sources); a WAN or internet preset puts every node in its own site on that link",
                                       "the catalog's NIC per GPU")),
        field<&H::latency_seconds>(number_spec("latency_seconds", "s", non_negative_up_to(10),
                                               "one-way latency of a message between nodes (alpha of the alpha-beta model)",
                                               "the network preset's; none: the calibrated per-call latency only")),
        field<&H::sites>(integer_spec("sites", "sites", 1, 1e5,
                                      "sites of equal size joined by the WAN (data centres, or providers of a decentralized network)",
                                      "1; with pools, the distinct pool sites")),
        field<&H::wan>(choice_spec("wan", network_choices(), "network between sites (a preset, per site)", "internet-1g when sites > 1")),
        field<&H::wan_bytes_per_second>(number_spec("wan_bytes_per_second", "B/s", {1e3, 1e13, false},
                                                    "bandwidth between sites, per site, per direction", "the wan preset's")),
        field<&H::wan_latency_seconds>(number_spec("wan_latency_seconds", "s", non_negative_up_to(10),
                                                   "one-way latency between sites (round trip / 2)", "the wan preset's")),
    };
    return t;
}

namespace {

constexpr Choice kTrainingPrecision[] = {precision_choice(Precision::fp32), precision_choice(Precision::tf32),
                                         precision_choice(Precision::bf16), precision_choice(Precision::fp16),
                                         precision_choice(Precision::fp8)};
constexpr Choice kTrainingRecompute[] = {{"none", 0}, {"selective", 1}, {"full", 2}};
constexpr Choice kTrainingOptimizer[] = {{"adam", 0}, {"adamw", 0}, {"sgd", 1}};
constexpr Choice kTrainingAttention[] = {{"flash", 0}, {"materialized", 1}};
constexpr Choice kTrainingAttentionKernel[] = {{"fused", 0}, {"cudnn", 0}, {"flash3", 0}, {"flash2", 1}, {"triton", 2}};
constexpr Choice kTrainingFramework[] = {{"megatron", 0},    {"nemo", 0},      {"fsdp", 1},    {"torchtitan", 5},
                                         {"llm-foundry", 6}, {"deepspeed", 2}, {"maxtext", 3}, {"megatron-legacy", 4}};
constexpr Choice kTrainingMoeDispatcher[] = {{"alltoall", 0}, {"deepep", 1}, {"hybridep", 1}, {"flex", 1}};
constexpr Choice kTrainingLayout[] = {{"auto", 0}, {"given", 1}};
constexpr Choice kTrainingOuterPrecision[] = {{"fp32", 0}, {"bf16", 1}, {"fp16", 1}, {"int8", 2}, {"int4", 3}, {"fp4", 3}, {"int2", 4}};

}  // namespace

// table: one row per training field (name, unit, range, doc, default), the schema of the training object
FieldTable<TrainingConfig> training_fields() {
    using T = TrainingConfig;
    static constexpr Field<T> t[] = {
        field<&T::tokens>(number_spec("tokens", "tokens", {1, 1e30, false}, "tokens to train on (run totals need it)")),
        field<&T::mfu>(number_spec("mfu", "fraction", utilisation, "given model FLOPs utilisation, used instead of the prediction",
                                   "predicted by the performance model")),
        field<&T::precision>(choice_spec("precision", kTrainingPrecision, "precision of the matrix multiplies")),
        field<&T::global_batch>(
            integer_spec("global_batch", "sequences", 1, 1e9, "sequences per optimizer step",
                         "about 4M tokens (DiLoCo, local_steps > 1: 1M per worker across sites when more), rounded to the nearest "
                         "multiple of dp x micro_batch; at least pp micro-batches per pipeline (dp x micro_batch x pp) within "
                         "62.9M tokens")),
        field<&T::micro_batch>(integer_spec("micro_batch", "sequences", 1, 1e6, "sequences per micro-batch per pipeline")),
        field<&T::tp>(integer_spec("tp", "devices", 1, 1e5, "tensor-parallel size")),
        field<&T::pp>(integer_spec("pp", "devices", 1, 1e5, "pipeline-parallel size (uneven stages allowed)")),
        field<&T::dp>(integer_spec("dp", "devices", 1, kMaxCount, "data-parallel size", "count / (tp x pp)")),
        field<&T::vpp>(integer_spec("vpp", "", 1, 1e3, "interleaved pipeline chunks per device")),
        field<&T::ep>(integer_spec("ep", "devices", 1, 1e5, "expert-parallel size (MoE); divides dp and the expert count")),
        field<&T::expert_tp>(integer_spec("expert_tp", "devices", 1, 1e5,
                                          "tensor-parallel size of the routed experts (MoE parallel folding, Megatron-Core "
                                          "--expert-tensor-parallel-size): 1 = whole experts, the expert-parallel group then takes "
                                          "the tensor-parallel ranks too; divides tp; with the plan search, needs tp and ep given",
                                          "tp; 1 when ep does not divide dp x cp")),
        field<&T::cp>(
            integer_spec("cp", "devices", 1, 1e5,
                         "context-parallel size: each sequence split over cp devices (ring attention); tp x cp x pp x dp = count")),
        field<&T::zero>(integer_spec("zero", "", 0, 3, "ZeRO stage over the data-parallel group (3 = FSDP)")),
        field<&T::shard_group>(integer_spec("shard_group", "devices", 1, kMaxCount,
                                            "hybrid sharding (HSDP, MaxText multislice): ZeRO/FSDP shards within groups of this many "
                                            "data-parallel ranks, and the groups all-reduce their gradient shards once per step",
                                            "all dp x cp ranks (one group)")),
        field<&T::sequence_parallel>(boolean_spec("sequence_parallel", "Megatron sequence parallelism", "tp > 1")),
        field<&T::recompute>(choice_spec("recompute", kTrainingRecompute, "activation recomputation")),
        field<&T::optimizer>(choice_spec("optimizer", kTrainingOptimizer, "optimizer (adamw = adam)")),
        field<&T::attention>(choice_spec("attention", kTrainingAttention, "fused (FlashAttention) or materialised attention scores")),
        field<&T::attention_kernel>(
            choice_spec("attention_kernel", kTrainingAttentionKernel,
                        "fused attention kernel: fused = the device's best (cuDNN / FlashAttention-3 / Transformer "
                        "Engine on Hopper and later, FlashAttention-2 on Ampere, splash attention on TPU); flash2 = "
                        "FlashAttention-2 (PyTorch SDPA); triton = FlashAttention in Triton (2022)",
                        "the framework's: flash2 for fsdp, torchtitan and deepspeed, triton for llm-foundry, fused for the others")),
        field<&T::overlap_dp_comm>(boolean_spec("overlap_dp_comm", "data-parallel gradient reduction overlapped with backward")),
        field<&T::overhead_bytes>(number_spec("overhead_bytes", "bytes", non_negative_up_to(1e15),
                                              "memory allowance per device (CUDA context, communication buffers)")),
        field<&T::fragmentation>(
            number_spec("fragmentation", "fraction", fraction_closed, "allocator fragmentation, fraction of the other memory terms")),
        field<&T::framework>(
            choice_spec("framework", kTrainingFramework,
                        "training software (overlap, fusion, gradient precision, kernels): megatron = Megatron-LM/Core/NeMo; "
                        "fsdp = PyTorch FSDP (generic); torchtitan = PyTorch FSDP2 + torch.compile + torchao float8; "
                        "llm-foundry = MosaicML Composer FSDP (2023 benchmarks: Triton attention); deepspeed; maxtext = JAX/XLA; "
                        "megatron-legacy = "
                        "Megatron-LM/Megatron-DeepSpeed of 2020-2022 (GPT-3, BLOOM, OPT era)",
                        "maxtext on TPUs, megatron elsewhere")),
        field<&T::fp32_gradients>(
            boolean_spec("fp32_gradients", "gradients accumulated and reduced in fp32 (+2 bytes/param, 2x the reduce bytes)",
                         "the framework's: megatron and fsdp true (main_grad buffers / fp32 reduce), deepspeed false")),
        field<&T::goodput>(
            number_spec("goodput", "fraction", utilisation,
                        "fraction of wall time spent on useful steps (failures, restarts, checkpoints); 1 turns the model off",
                        "from the cluster's failure rate and checkpoint/restart times")),
        field<&T::layout>(choice_spec("layout", kTrainingLayout,
                                      "auto: the plan search chooses every layout field not given (tp, pp, dp, vpp, micro_batch, "
                                      "zero, recompute, sequence_parallel, overlap_dp_comm); given: the fields as given",
                                      "auto when none of tp, pp, dp is given")),
        field<&T::local_steps>(integer_spec("local_steps", "steps", 1, 1e5,
                                            "DiLoCo inner steps H between exchanges across sites (each site trains alone in between); "
                                            "1 = synchronous data parallelism")),
        field<&T::outer_precision>(choice_spec("outer_precision", kTrainingOuterPrecision,
                                               "precision of the values exchanged between sites (INTELLECT-1: int8; Streaming DiLoCo: fp4)",
                                               "the gradients' precision when local_steps is 1, fp32 otherwise")),
        field<&T::outer_topk>(number_spec("outer_topk", "fraction", {1e-6, 1, false},
                                          "share of the exchanged values sent (top-k sparsification, 12-bit index per value); 1 = dense")),
        field<&T::outer_overlap_steps>(integer_spec("outer_overlap_steps", "steps", 0, 1e5,
                                                    "streaming: the exchange across sites runs during this many following inner steps "
                                                    "(Streaming DiLoCo overlap); 0 = blocking")),
        field<&T::outer_offload>(boolean_spec("outer_offload",
                                              "DiLoCo outer optimizer state (fp32 anchor weights + Nesterov momentum) kept in host memory "
                                              "(INTELLECT-1) instead of on the device",
                                              "true with local_steps > 1, else false")),
        field<&T::load_balance>(boolean_spec("load_balance",
                                             "mixed fleets (hardware.pools): each pool's share of the batch follows its speed, so no "
                                             "pool waits; false: shares follow device counts and the slowest pool sets the step")),
        field<&T::async_tp>(boolean_spec("async_tp",
                                         "asynchronous tensor parallelism: each TP all-gather / reduce-scatter split into chunks "
                                         "that overlap their matmuls (torchtitan + torch.compile micro-pipelining), with the "
                                         "exposed share of Megatron's --tp-comm-overlap (the megatron profile's tp_overlap)",
                                         "false (megatron: its profile already overlaps TP)")),
        field<&T::dualpipe>(boolean_spec("dualpipe",
                                         "DeepSeek-V3's DualPipe schedule (pp > 1): micro-batches enter from both pipeline ends; "
                                         "expert all-to-all and pipeline sends hide behind the paired forward/backward chunk, the "
                                         "bubble is (pp/2 - 1) x 2/3 micro-batch, each device holds 2x the parameters and pp + 1 "
                                         "micro-batches of activations (arXiv:2412.19437 Sec. 3.2.1, Table 2)",
                                         "false (1F1B, interleaved with vpp > 1)")),
        field<&T::moe_dispatcher>(choice_spec(
            "moe_dispatcher", kTrainingMoeDispatcher,
            "how MoE tokens reach experts on other nodes: alltoall = one copy per routed expert (NCCL all-to-all, Megatron-Core "
            "--moe-token-dispatcher-type alltoall); deepep = once per destination node over the scale-out network, forwarded "
            "inside the node over the scale-up links, the two overlapped (DeepEP normal kernels; hybridep and flex, Megatron-Core's "
            "flex dispatcher with its DeepEP or HybridEP backend, are read as deepep). Node-limited routing "
            "(model.max_routed_nodes) caps the nodes either way")),
        field<&T::overlap_moe_comm>(boolean_spec(
            "overlap_moe_comm",
            "Megatron-Core's combined 1F1B schedule (--overlap-moe-expert-parallel-comm; Megatron-Bridge moe_a2a_overlap): the "
            "forward of one micro-batch runs against the backward of another, so the expert all-to-all hides behind their "
            "compute (exposed only beyond it). Needs an MoE model, framework megatron, ep > 1, no full recomputation, and vpp > 1 "
            "when pp > 1 (Megatron-Core TransformerConfig asserts); not with dualpipe (its own schedule) or hardware.pools")),
        field<&T::compile>(boolean_spec("compile",
                                        "torchtitan: transformer blocks compiled (torch.compile fuses their element-wise ops); "
                                        "false: eager PyTorch, each RMSNorm, RoPE, SwiGLU and residual op its own kernel "
                                        "reading and writing HBM (counted from torchtitan's model code). The other "
                                        "frameworks' constants are calibrated on their usual mode: no effect there",
                                        "true")),
    };
    return t;
}

FieldTable<EfficiencyOverrides> efficiency_fields() {
    using E = EfficiencyOverrides;
    static constexpr Field<E> t[] = {
        field<&E::gemm>(
            number_spec("gemm", "fraction", fraction_open, "fraction of dense peak a large GEMM reaches", "per device generation")),
        field<&E::gemm_half_width>(
            number_spec("gemm_half_width", "", non_negative_up_to(1e6),
                        "GEMM inner dimension K at which a GEMM reaches half of gemm (training; fine-tuning: width hidden/tp)",
                        "per device generation and precision")),
        field<&E::attention>(
            number_spec("attention", "fraction", fraction_open, "fraction of peak in fused attention", "per device generation")),
        field<&E::memory>(
            number_spec("memory", "fraction", fraction_open, "fraction of HBM bandwidth in memory-bound kernels", "per device generation")),
        field<&E::network>(
            number_spec("network", "fraction", fraction_open, "fraction of link bandwidth in collectives", "per device generation")),
    };
    return t;
}

namespace {

constexpr Choice kInferenceWeightPrecision[] = {precision_choice(Precision::fp32), precision_choice(Precision::bf16),
                                                precision_choice(Precision::fp16), precision_choice(Precision::fp8),
                                                precision_choice(Precision::int8), precision_choice(Precision::int4),
                                                precision_choice(Precision::fp4)};
constexpr Choice kInferenceKvPrecision[] = {precision_choice(Precision::fp32), precision_choice(Precision::bf16),
                                            precision_choice(Precision::fp16), precision_choice(Precision::fp8),
                                            precision_choice(Precision::int8)};
constexpr Choice kInferenceWeightFormat[] = {{"native", 0}, {"q4_0", 1}, {"q4_k_m", 2}, {"q5_k_m", 3}, {"q6_k", 4}, {"q8_0", 5}};

}  // namespace

FieldTable<InferenceConfig> inference_fields() {
    using I = InferenceConfig;
    static constexpr Field<I> t[] = {
        field<&I::weight_precision>(
            choice_spec("weight_precision", kInferenceWeightPrecision, "precision of the stored weights",
                        "bf16, or the precision a preset is released in (gpt-oss: fp4 MXFP4, group 32; DeepSeek-V3: fp8)")),
        field<&I::kv_precision>(choice_spec("kv_precision", kInferenceKvPrecision, "precision of the KV cache")),
        field<&I::batch>(integer_spec("batch", "sequences", 1, 1e7, "concurrent sequences per model instance (fixed)",
                                      "the largest that fits (max throughput, continuous batching)")),
        field<&I::prompt_tokens>(integer_spec("prompt_tokens", "tokens", 1, 1e8, "input tokens per request")),
        field<&I::output_tokens>(integer_spec("output_tokens", "tokens", 1, 1e8, "output tokens per request")),
        field<&I::tp>(integer_spec("tp", "devices", 1, 1e4, "devices per model instance (tensor parallel)",
                                   "the first size the heads allow (powers of two first; tp x ep within hardware.count, twice that "
                                   "with disaggregated) whose weights take at most 80 % of a device's usable memory and whose KV-cache "
                                   "pool holds the batch (docs/MODEL.md, Inference)")),
        field<&I::requests_per_day>(number_spec("requests_per_day", "requests/day", non_negative_up_to(1e15),
                                                "traffic to size the deployment for; 0 = no traffic sizing, else at least 1e-6")),
        field<&I::concurrent_requests>(
            number_spec("concurrent_requests", "requests", non_negative_up_to(1e12),
                        "or the traffic as requests in flight at the busiest moment (users each waiting for an answer, not users reading): "
                        "sized by Little's law at the batch served; 0 = none; not with requests_per_day or slo")),
        field<&I::peak_to_average>(number_spec("peak_to_average", "ratio", {1, 100, false}, "provisioning headroom for the daily peak")),
        field<&I::latency_target_seconds_per_token>(number_spec("latency_target_seconds_per_token", "s", positive_up_to(1e6),
                                                                "maximum decode time per output token (warns when exceeded)")),
        field<&I::quant_group_size>(
            integer_spec("quant_group_size", "weights", 1, 1e6,
                         "int4 weights: one fp16 scale and zero point per group; fp4: one 8-bit scale per group (16: NVFP4, 32: MXFP4)",
                         "16 for fp4 (NVFP4), else 32")),
        field<&I::overhead_bytes>(number_spec("overhead_bytes", "bytes", non_negative_up_to(1e15),
                                              "memory allowance per device (CUDA context, workspace, activations)")),
        field<&I::batch_limit>(integer_spec("batch_limit", "sequences", 1, 1e7,
                                            "the engine's cap on concurrent sequences when batch is omitted (trtllm-bench: 4,096)")),
        field<&I::kv_cache_memory_fraction>(number_spec("kv_cache_memory_fraction", "fraction", {0, 1, true},
                                                        "share of the memory left after weights and overhead given to the KV-cache pool "
                                                        "(TensorRT-LLM free_gpu_memory_fraction: 0.9; 1 = all of it, as llama.cpp)")),
        field<&I::prefix_cache_hit_rate>(number_spec("prefix_cache_hit_rate", "fraction", {0, 0.99, false},
                                                     "share of input tokens whose KV cache is reused (no prefill compute)")),
        field<&I::disaggregated>(boolean_spec("disaggregated", "prefill and decode on separate instances, KV cache sent between them")),
        field<&I::ep>(integer_spec("ep", "devices", 1, 1e5,
                                   "expert parallelism (MoE): routed experts sharded over ep devices; an instance is tp x ep devices")),
        field<&I::attention_dp>(boolean_spec("attention_dp",
                                             "data-parallel attention (MLA models, DeepSeek-V3): each of the tp ranks keeps its own "
                                             "sequences' KV cache instead of every rank holding all of it")),
        field<&I::weight_format>(choice_spec("weight_format", kInferenceWeightFormat,
                                             "llama.cpp GGUF weight format (bits per weight from llama.cpp) instead of weight_precision")),
        field<&I::gpu_layers>(integer_spec("gpu_layers", "layers", 0, 1e5,
                                           "layers kept on the device; the others run from host memory (CPU offload, llama.cpp -ngl)",
                                           "all layers")),
        field<&I::host_memory_bandwidth_bytes_per_second>(
            number_spec("host_memory_bandwidth_bytes_per_second", "B/s", {1e8, 1e13, false},
                        "host memory bandwidth for offloaded layers (dual-channel DDR5-5600)")),
    };
    return t;
}

FieldTable<ServingSlo> slo_fields() {
    using S = ServingSlo;
    static constexpr Field<S> t[] = {
        field<&S::ttft_seconds>(number_spec("ttft_seconds", "s", positive_up_to(1e6),
                                            "time to first token one user waits (queueing + the prefill of their prompt)")),
        field<&S::tpot_seconds>(number_spec("tpot_seconds", "s", positive_up_to(1e6), "time per output token")),
        field<&S::search_precision>(boolean_spec("search_precision", "also try lower weight and KV-cache precisions")),
    };
    return t;
}

FieldTable<SpeculativeConfig> speculative_fields() {
    using P = SpeculativeConfig;
    static constexpr Field<P> t[] = {
        field<&P::draft_params>(number_spec("draft_params", "parameters", {1e3, 1e13, false},
                                            "parameters of the draft model (or MTP module) read per proposed token; without draft_model, "
                                            "its share of the target's active parameters is its share of the target's layers (KV cache, "
                                            "KV reads, all-reduces)",
                                            "draft_model's active parameters; required without it")),
        field<&P::draft_tokens>(integer_spec("draft_tokens", "tokens", 1, 16, "tokens proposed per verification step")),
        field<&P::acceptance_rate>(
            number_spec("acceptance_rate", "fraction", {0, 0.999, false}, "probability that a proposed token is accepted")),
    };
    return t;
}

namespace {

constexpr Choice kFinetuneMethod[] = {{"full", 0}, {"lora", 1}, {"qlora", 2}};
constexpr Choice kFinetuneLoraModules[] = {{"qv", 0}, {"attention", 1}, {"all_linear", 2}, {"qkv", 3}, {"qvo_mlp", 4}};
constexpr Choice kFinetuneOptimizer[] = {{"adamw", 0}, {"adam", 0}, {"adamw_8bit", 1}, {"paged_adamw_8bit", 2}, {"sgd", 3}};

}  // namespace

FieldTable<FinetuneConfig> finetune_fields() {
    using F = FinetuneConfig;
    static constexpr Field<F> t[] = {
        field<&F::method>(
            choice_spec("method", kFinetuneMethod, "full fine-tuning, LoRA (frozen 16-bit base) or QLoRA (frozen 4-bit NF4 base)")),
        field<&F::lora_rank>(integer_spec("lora_rank", "", 1, 65536, "LoRA rank r (lora and qlora; a conflict with method full)")),
        field<&F::lora_modules>(choice_spec("lora_modules", kFinetuneLoraModules,
                                            "adapted matrices: q and v, all attention projections, every linear layer, q k v, or q v o "
                                            "and the MLP (torchtune's lora_attn_modules + apply_lora_to_mlp)")),
        field<&F::batch>(integer_spec("batch", "sequences", 1, 1e6, "sequences per device per step")),
        field<&F::seq_len>(integer_spec("seq_len", "tokens", 1, 1e8, "tokens per sequence")),
        field<&F::gradient_checkpointing>(
            boolean_spec("gradient_checkpointing", "keep each layer's input only; recompute the layer in backward")),
        field<&F::optimizer>(choice_spec("optimizer", kFinetuneOptimizer, "optimizer (paged states live in host-backed unified memory)")),
        field<&F::master_weights>(boolean_spec("master_weights", "fp32 copy of the trainable weights and fp32 optimizer states")),
        field<&F::optimizer_in_backward>(boolean_spec("optimizer_in_backward", "step each parameter as its gradient arrives")),
        field<&F::chunked_cross_entropy>(boolean_spec("chunked_cross_entropy", "fp32 loss over the logits in 8 chunks")),
        field<&F::activation_offload>(boolean_spec("activation_offload", "checkpointed layer inputs kept in host memory")),
        field<&F::cpu_offload>(boolean_spec("cpu_offload", "FSDP CPU offload of parameters, gradients and optimizer states")),
        field<&F::tokens>(number_spec("tokens", "tokens", {1, 1e16, false}, "tokens to train on (time and cost need it)")),
        field<&F::overhead_bytes>(number_spec("overhead_bytes", "bytes", non_negative_up_to(1e15),
                                              "memory allowance per device (CUDA context, allocator, buffers)")),
    };
    return t;
}

namespace {

constexpr Choice kCostsPriceBasis[] = {{"marketplace", 0}, {"hyperscaler", 1}};
constexpr Choice kCostsOwnership[] = {{"cloud", 0}, {"owned", 1}};

}  // namespace

FieldTable<Costs> costs_fields() {
    using C = Costs;
    static constexpr Field<C> t[] = {
        field<&C::gpu_hour_usd>(number_spec("gpu_hour_usd", "USD/h", non_negative_up_to(1e6), "price of one device-hour",
                                            "the catalog's price of the device on price_basis")),
        field<&C::price_basis>(
            choice_spec("price_basis", kCostsPriceBasis,
                        "catalog price used when gpu_hour_usd is not given: GPU-cloud on-demand (RunPod, Lambda, ...) "
                        "or hyperscaler on-demand (AWS, Azure, Google Cloud); a device without that basis uses the other, "
                        "with a warning")),
        field<&C::electricity_usd_per_kwh>(
            number_spec("electricity_usd_per_kwh", "USD/kWh", non_negative_up_to(100), "electricity price (owned hardware)")),
        field<&C::pue>(number_spec("pue", "ratio", {1, 10, false}, "data-centre power usage effectiveness")),
        field<&C::grid_kg_co2_per_kwh>(
            number_spec("grid_kg_co2_per_kwh", "kg/kWh", non_negative_up_to(10), "grid carbon intensity (LLaMA paper's US average)")),
        field<&C::ownership>(choice_spec("ownership", kCostsOwnership,
                                         "cloud: pay gpu_hour_usd; owned: amortise the purchase price over lifetime_years plus the "
                                         "electricity (training, serving, fine-tuning, inverse questions; not with gpu_hour_usd)")),
        field<&C::lifetime_years>(number_spec("lifetime_years", "years", {0.1, 50, false}, "amortisation period of owned hardware")),
    };
    return t;
}

namespace {

// The precisions of device ceilings: the roofline and the device comparison.
constexpr Choice kDevicePrecision[] = {precision_choice(Precision::fp64), precision_choice(Precision::fp32),
                                       precision_choice(Precision::tf32), precision_choice(Precision::bf16),
                                       precision_choice(Precision::fp16), precision_choice(Precision::fp8),
                                       precision_choice(Precision::int8), precision_choice(Precision::fp4)};

}  // namespace

FieldTable<RooflineRequest> roofline_fields() {
    using R = RooflineRequest;
    static constexpr Field<R> t[] = {
        field<&R::precision>(choice_spec("precision", kDevicePrecision, "precision of the roofline ceilings")),
        field<&R::matmul_n>(integer_spec("matmul_n", "", 1, 1e6, "size N of the N x N x N GEMM workload")),
        field<&R::prompt_tokens>(integer_spec("prompt_tokens", "tokens", 1, 1e7, "tokens of the prefill forward-pass workload")),
    };
    return t;
}

FieldTable<CompareRequest> compare_fields() {
    using C = CompareRequest;
    static constexpr Field<C> t[] = {
        field<&C::precision>(choice_spec("precision", kDevicePrecision, "precision for \"how many B match one A\"")),
    };
    return t;
}

namespace {

constexpr Choice kInverseQuestion[] = {{"what_can_train", 0}, {"gpus_needed", 1}};

}  // namespace

FieldTable<InverseQuestion> inverse_fields() {
    using Q = InverseQuestion;
    static constexpr Field<Q> t[] = {
        field<&Q::question>(
            choice_spec("question", kInverseQuestion,
                        "what_can_train: the model this cluster can train; gpus_needed: devices for a model by a deadline")),
        field<&Q::days>(number_spec("days", "days", {1e-3, 1e5, false}, "time available / deadline")),
        field<&Q::budget_usd>(number_spec("budget_usd", "USD", positive_up_to(1e13),
                                          "money available (what_can_train; gpus_needed says whether its cost is within it)")),
        field<&Q::tokens_per_param>(
            number_spec("tokens_per_param", "tokens/parameter", {0.1, 1e5, false}, "training tokens per parameter (Chinchilla: 20)")),
        field<&Q::compare_networks>(boolean_spec("compare_networks",
                                                 "what_can_train: also answer for the same devices in one InfiniBand cluster, across sites "
                                                 "synchronously, and across sites with DiLoCo (inverse.networks[], side by side)")),
    };
    return t;
}

bool training_field_given(const TrainingConfig& t, std::string_view name) { return (t.given & field_bit(training_fields(), name)) != 0; }

FieldTable<PlanOptions> plan_fields() {
    using P = PlanOptions;
    static constexpr Field<P> t[] = {
        field<&P::top_k>(integer_spec("top_k", "plans", 1, 100, "plans returned, fastest first")),
        field<&P::max_tp>(integer_spec("max_tp", "devices", 1, 64, "largest tensor-parallel size searched",
                                       "8, or the devices per node where fewer (as an estimate's automatic layout)")),
        field<&P::max_vpp>(integer_spec("max_vpp", "", 1, 16, "largest interleaving searched")),
        field<&P::max_micro_batch>(integer_spec("max_micro_batch", "sequences", 1, 64, "largest micro-batch searched")),
        field<&P::only_tp>(
            integer_spec("tp", "devices", 1, 64,
                         "search this tensor-parallel size only (at most max_tp, dividing the count and the heads; splits the search)",
                         "every power of two up to max_tp")),
    };
    return t;
}

FieldTable<Device> custom_device_fields() {
    using D = Device;
    // Lower bounds reject absurd figures (a 1e-300 FLOP/s device would give "0 days"): no real
    // memory, link or power figure is below these.
    static constexpr Field<D> t[] = {
        field<&D::memory_bytes>(number_spec("memory_bytes", "bytes", {1e6, 1e16, false}, "device memory (required without base)")),
        field<&D::memory_bandwidth_bytes_per_second>(
            number_spec("memory_bandwidth_bytes_per_second", "B/s", {1e6, 1e16, false}, "device memory bandwidth (required without base)")),
        field<&D::tdp_watts>(number_spec("tdp_watts", "W", {0.1, 1e6, false}, "board power")),
        field<&D::scale_up_bytes_per_second_bidirectional>(number_spec("scale_up_bytes_per_second_bidirectional", "B/s", {1e3, 1e15, false},
                                                                       "scale-up link (NVLink-like), both directions summed")),
        field<&D::scale_out_bytes_per_second>(
            number_spec("scale_out_bytes_per_second", "B/s", {1e3, 1e15, false}, "network bandwidth per device, per direction")),
        field<&D::gpus_per_node>(integer_spec("devices_per_node", "devices", 1, 1e6, "devices in the scale-up domain")),
        field<&D::cloud_usd_per_hour>(number_spec("cloud_usd_per_hour", "USD/h", non_negative_up_to(1e6), "rental price")),
        field<&D::price_usd>(number_spec("price_usd", "USD", non_negative_up_to(1e10), "purchase price")),
        field<&D::simt_cores>(integer_spec("simt_cores", "cores", 1, 1e9, "CUDA cores / stream processors")),
        field<&D::cpu_cores>(integer_spec("cpu_cores", "cores", 1, 1e7, "CPU cores")),
        field<&D::usable_memory_fraction>(number_spec("usable_memory_fraction", "fraction", fraction_open,
                                                      "unified memory: share of memory_bytes the GPU may use", "all of it")),
    };
    return t;
}

// ---- the echo of a model, a custom device and a fleet (driven by the tables above) ----

void write_device_scenario(jw::Val j, const Device& d) {
    j.set_object();
    if (!d.base_id.empty()) j["base"] = d.base_id;
    j["id"] = d.id;
    j["name"] = d.name;
    j["kind"] = d.kind;
    jw::Val p = j["peak_flops_per_second"];
    p.set_object();
    for (int i = 0; i < kPrecisionCount; ++i)
        if (d.peak_flops_per_second[i]) p[kPrecisionNames[i]] = *d.peak_flops_per_second[i];
    for (const auto& f : custom_device_fields())
        if (f.has(d)) j[f.spec.name] = field_value(f.spec, f.get(d));
}

json device_to_scenario_json(const Device& d) {
    jw::Doc doc;
    write_device_scenario(doc.root(), d);
    return doc.to_json();
}

void write_model(jw::Val j, const ModelSpec& m) {
    const ParamCount c = count_params(m);
    if (!m.has_architecture) {
        j = {{"name", m.name}, {"params", c.total}, {"active_params", c.active}, {"seq_len", m.seq_len}};
        return;
    }
    write_fields(j, m, model_fields());
    j["name"] = m.name;
    if (!m.preset.empty()) j["preset"] = m.preset;
    j["params"] = c.total;
    j["active_params"] = c.active;
    j["head_dim"] = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
}

json model_to_json(const ModelSpec& m) {
    jw::Doc doc;
    write_model(doc.root(), m);
    return doc.to_json();
}

std::string device_identity(const Device& d) { return d.custom ? jw::text(device_to_scenario_json(d)) : d.id; }

bool mixed_fleet(const Hardware& hw) {
    if (hw.pools.size() < 2) return false;
    const Pool& a = hw.pools.front();
    const std::string a_dev = device_identity(a.device);
    std::vector<std::pair<std::string, Count>> per_site;
    for (const auto& p : hw.pools) {
        const std::string dev = device_identity(p.device);
        if (dev != a_dev || p.devices_per_node != a.devices_per_node) return true;
        auto it = std::find_if(per_site.begin(), per_site.end(), [&](const auto& x) { return x.first == p.site; });
        if (it == per_site.end())
            per_site.push_back({p.site, p.count});
        else
            it->second += p.count;
    }
    for (const auto& x : per_site)
        if (x.second != per_site.front().second) return true;
    // Equal sites of one device: the single-device model with hardware.sites covers it, if whole nodes.
    const Count per = per_site.front().second, dpn = std::max<Count>(1, a.devices_per_node);
    return per > dpn && per % dpn != 0;
}

}  // namespace gpucalc
