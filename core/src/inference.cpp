// Inference estimator. Formulas:
//  - KV cache per token: 2 x layers x kv_heads x head_dim x bytes (vLLM, arXiv:2309.06180 Sec. 3);
//    MLA caches the compressed latent + RoPE key: layers x (kv_lora_rank + rope_dim) x bytes
//    (DeepSeek-V2, arXiv:2405.04434 Sec. 2.1.3).
//  - Decode is memory-bound at small batch: time per step = bytes read / bandwidth (weights + KV);
//    compute-bound when 2 x N_active x batch FLOPs take longer (roofline, Williams et al. 2009).
//  - Prefill: forward FLOPs of the prompt at a fraction of peak.
#include "gpucalc/inference.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/json_read.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

// x^n for a whole n >= 0 by repeated squaring: the same multiplications on every platform.
double ipow(double x, double n) {
    double r = 1.0;
    unsigned long long k = n > 0 ? static_cast<unsigned long long>(n) : 0ULL;
    while (k) {
        if (k & 1ULL) r *= x;
        x *= x;
        k >>= 1;
    }
    return r;
}

double weight_bytes_per_param(const InferenceConfig& c) {
    double b = bytes_per_element(c.weight_precision);
    // Group-wise int4/fp4 quantisation stores an fp16 scale and zero point per group
    // (gpt-fast int4 G=32; GPTQ/AWQ): 4 bytes / group.
    if (c.weight_precision == Precision::int4 || c.weight_precision == Precision::fp4) b += 4.0 / c.quant_group_size;
    return b;
}

struct Decode {
    double seconds, flops_time, bytes_time;
};

}  // namespace

double kv_cache_bytes_per_token(const ModelSpec& m, Precision kv) {
    if (!m.has_architecture) return 0;
    const double bytes = bytes_per_element(kv);
    if (m.is_mla()) return m.layers * (m.kv_lora_rank + m.qk_rope_head_dim) * bytes;
    const double hd = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
    return 2.0 * m.layers * m.kv_heads * hd * bytes;
}

InferenceResult estimate_inference(const ModelSpec& m, const Hardware& hw, const InferenceConfig& cfg, const Costs& costs,
                                   Trace& trace) {
    InferenceResult r;
    r.config = cfg;
    const Device& d = hw.device;
    const InferenceEfficiency eff;
    const ParamCount pc = count_params(m);
    r.params_total = pc.total;
    r.params_active = pc.active;
    const double t = cfg.tp;
    const double bpp = weight_bytes_per_param(cfg);
    r.weights_bytes = pc.total * bpp;
    r.weights_bytes_per_gpu = r.weights_bytes / t;
    r.kv_cache_bytes_per_token = kv_cache_bytes_per_token(m, cfg.kv_precision);
    r.context_tokens = cfg.prompt_tokens + cfg.output_tokens;
    const double cached = m.sliding_window > 0 ? std::min(m.sliding_window, r.context_tokens) : r.context_tokens;
    const double kv_per_seq = r.kv_cache_bytes_per_token * cached;
    r.kv_cache_bytes = kv_per_seq * cfg.batch;
    r.overhead_bytes_per_gpu = cfg.overhead_bytes;
    r.memory_per_gpu_bytes = r.weights_bytes_per_gpu + r.kv_cache_bytes / t + r.overhead_bytes_per_gpu;
    const double cap = d.memory_bytes.value_or(0);
    r.fits = r.memory_per_gpu_bytes <= cap;
    const double free_for_kv = t * (cap - r.overhead_bytes_per_gpu) - r.weights_bytes;
    r.max_batch = (free_for_kv > 0 && kv_per_seq > 0) ? std::floor(free_for_kv / kv_per_seq) : 0;
    if (!m.has_architecture && free_for_kv > 0) {
        r.max_batch = 0;
        r.warnings.push_back("model given by parameter count only: KV cache unknown (give the architecture)");
    }
    const double instance_bytes = r.weights_bytes + r.kv_cache_bytes + t * r.overhead_bytes_per_gpu;
    r.instances_per_gpu = t == 1 && instance_bytes > 0 ? std::floor(cap / instance_bytes) : 0;
    r.instances_per_cluster = t == 1 ? r.instances_per_gpu * hw.count : std::floor(hw.count / t) * (r.fits ? 1.0 : 0.0);

    const double peak_p = d.peak(cfg.weight_precision == Precision::fp8 ? Precision::fp8
                                 : cfg.weight_precision == Precision::fp32 ? Precision::fp32
                                                                           : Precision::bf16)
                              .value_or(d.peak(Precision::fp16).value_or(d.peak(Precision::fp32).value_or(0)));
    const double peak = peak_p * eff.compute * t;
    const double bw = d.memory_bandwidth_bytes_per_second.value_or(0) * eff.memory * t;
    const double dpn = hw.devices_per_node > 0 ? hw.devices_per_node : 1.0;
    const double link_raw = t <= dpn ? d.scale_up_bytes_per_second().value_or(d.scale_out_bytes_per_second.value_or(12.5e9))
                                     : hw.scale_out_bytes_per_second.value_or(d.scale_out_bytes_per_second.value_or(12.5e9));
    const double link = link_raw * eff.network;
    const double layers = m.has_architecture ? m.layers : std::max(1.0, std::round(std::cbrt(pc.active * 128.0 / 12.0) / 128.0));
    const double hidden = m.has_architecture ? m.hidden : 128.0 * layers;

    // Weight bytes read per decode step: dense weights once; MoE experts touched by the batch
    // (expected distinct experts under uniform routing: E (1 - (1 - k/E)^B)).
    auto weights_read = [&](double batch) {
        if (!m.is_moe()) return pc.active * bpp;
        const double E = m.experts, k = m.experts_per_token;
        const double touched = E * (1.0 - ipow(1.0 - k / E, batch));
        const double moe_layers = m.layers - std::min(m.dense_layers, m.layers);
        const double per_expert = pc.expert_per_layer * moe_layers;  // params of one routed expert, all layers
        return (pc.active + (touched - k) * per_expert) * bpp;
    };
    // Two all-reduces per layer of the 16-bit hidden states of `tokens` tokens over the TP group (ring).
    auto tp_allreduce_seconds = [&](double tokens) {
        if (t <= 1) return 0.0;
        return layers * 2.0 * (2.0 * (t - 1.0) / t * tokens * hidden * 2.0 / link + eff.collective_latency_seconds);
    };
    auto decode = [&](double batch) {
        const double ctx = cfg.prompt_tokens + cfg.output_tokens / 2.0;  // mean context during generation
        const double kv_ctx = m.sliding_window > 0 ? std::min(m.sliding_window, ctx) : ctx;
        const double bytes = weights_read(batch) + batch * r.kv_cache_bytes_per_token * kv_ctx;
        const double flops = batch * forward_flops_per_token(m, ctx);
        Decode out;
        out.bytes_time = bw > 0 ? bytes / bw : 0;
        out.flops_time = peak > 0 ? flops / peak : 0;
        out.seconds = std::max(out.bytes_time, out.flops_time) + tp_allreduce_seconds(batch) + layers * eff.kernel_seconds_per_layer;
        return out;
    };
    const Decode dec = decode(cfg.batch);
    r.decode_seconds_per_token = dec.seconds;
    r.decode_memory_bound = dec.bytes_time >= dec.flops_time;
    r.decode_tokens_per_second_per_user = dec.seconds > 0 ? 1.0 / dec.seconds : 0;
    // Turn batch: smallest batch at which the weight GEMMs become compute-bound, i.e.
    // batch x 2 N_active / peak >= weight bytes read / bandwidth (the roofline ridge in tokens).
    // Attention over the KV cache stays memory-bound at any batch (intensity ~1 FLOP/byte).
    if (peak > 0 && bw > 0) {
        const double per_token = 2.0 * pc.active / peak;
        auto compute_bound = [&](double b) { return b * per_token >= weights_read(b) / bw; };
        double lo = 0, hi = 1;
        while (hi < 1e9 && !compute_bound(hi)) lo = hi, hi *= 2;
        while (hi - lo > 1) {
            const double mid = std::floor((lo + hi) / 2);
            if (compute_bound(mid)) hi = mid;
            else lo = mid;
        }
        r.turn_batch = hi < 1e9 ? hi : 0;
    }
    // Prefill: forward FLOPs over the prompt (mean context prompt/2) vs reading the weights once.
    {
        const double flops = cfg.batch * cfg.prompt_tokens * forward_flops_per_token(m, cfg.prompt_tokens / 2.0);
        const double compute = peak > 0 ? flops / peak : 0;
        const double memory = bw > 0 ? weights_read(cfg.batch * cfg.prompt_tokens) / bw : 0;
        r.prefill_seconds = std::max(compute, memory) + tp_allreduce_seconds(cfg.batch * cfg.prompt_tokens) +
                            layers * eff.kernel_seconds_per_layer;
    }
    r.request_seconds = r.prefill_seconds + cfg.output_tokens * r.decode_seconds_per_token;
    // Output tokens per second per GPU with prefill interleaved (each request: one prefill + output steps).
    r.throughput_tokens_per_second_per_gpu = r.request_seconds > 0 ? cfg.batch * cfg.output_tokens / r.request_seconds / t : 0;
    r.replicas = r.fits ? std::floor(hw.count / t) : 0;
    r.cluster_throughput_tokens_per_second = r.replicas * t * r.throughput_tokens_per_second_per_gpu;
    r.concurrent_sequences = r.replicas * cfg.batch;
    if (!r.fits)
        r.infeasible_reason = "does not fit: needs " + jr::fmt_num(r.memory_per_gpu_bytes / units::GiB) + " GiB per device, " + d.name +
                              " has " + jr::fmt_num(cap / units::GiB) + " GiB (use more devices per copy, a smaller batch or lower precision)";

    // Curve: batch 1, 2, 4, ... up to max batch (at most 2^16).
    for (double b = 1; b <= 65536; b *= 2) {
        const Decode x = decode(b);
        const bool fits = b <= std::max(1.0, r.max_batch);
        r.curve.push_back(BatchPoint{b, x.seconds, 1.0 / x.seconds, b / x.seconds / t, x.bytes_time >= x.flops_time, fits});
        if (!fits) break;
    }

    // Serving economics.
    const double rate = gpu_hour_rate(d, costs).usd.value_or(0);
    r.gpu_hour_usd = rate;
    if (r.throughput_tokens_per_second_per_gpu > 0) {
        r.cost_per_million_output_tokens_usd = rate / units::seconds_per_hour / r.throughput_tokens_per_second_per_gpu * 1e6;
        const double input_tps_per_gpu = cfg.batch * cfg.prompt_tokens / std::max(1e-12, r.prefill_seconds) / t;
        r.cost_per_million_input_tokens_usd = rate / units::seconds_per_hour / input_tps_per_gpu * 1e6;
    }
    if (cfg.requests_per_day > 0 && r.request_seconds > 0) {
        const double mean_rps = cfg.requests_per_day / units::seconds_per_day;
        const double instance_rps = cfg.batch / r.request_seconds;  // requests completed per second per instance
        const double instances = std::ceil(mean_rps * cfg.peak_to_average / instance_rps);
        r.gpus_needed = instances * t;
        r.cost_per_day_usd = r.gpus_needed * 24.0 * rate;
        r.energy_per_day_kwh = r.gpus_needed * 24.0 * d.tdp_watts.value_or(0) / 1000.0 * costs.pue;
        if (cfg.latency_target_seconds_per_token && r.decode_seconds_per_token > *cfg.latency_target_seconds_per_token)
            r.warnings.push_back("decode step " + jr::fmt_num(r.decode_seconds_per_token) +
                                 " s exceeds the latency target: lower the batch or raise inference.tp");
    }

    if (trace.enabled()) {
        trace.add("inference.weights_bytes", "params x bytes_per_param (+ 4 bytes per quantisation group)",
                  {{"params", pc.total}, {"bytes_per_param", bpp}}, r.weights_bytes, "bytes", "");
        if (m.is_mla())
            trace.add("inference.kv_cache_bytes_per_token", "layers x (kv_lora_rank + qk_rope_head_dim) x bytes",
                      {{"layers", m.layers}, {"kv_lora_rank", m.kv_lora_rank}, {"qk_rope_head_dim", m.qk_rope_head_dim},
                       {"bytes", bytes_per_element(cfg.kv_precision)}},
                      r.kv_cache_bytes_per_token, "bytes", "DeepSeek-V2 (arXiv:2405.04434) Sec. 2.1.3");
        else
            trace.add("inference.kv_cache_bytes_per_token", "2 x layers x kv_heads x head_dim x bytes",
                      {{"layers", m.layers}, {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim > 0 ? m.head_dim : (m.heads > 0 ? m.hidden / m.heads : 0)},
                       {"bytes", bytes_per_element(cfg.kv_precision)}},
                      r.kv_cache_bytes_per_token, "bytes", "vLLM (arXiv:2309.06180) Sec. 3");
        trace.add("inference.max_batch", "floor((tp x (memory - overhead) - weights) / (kv_per_token x context))",
                  {{"tp", t}, {"memory_bytes", cap}, {"overhead_bytes", cfg.overhead_bytes}, {"weights_bytes", r.weights_bytes},
                   {"kv_per_token", r.kv_cache_bytes_per_token}, {"context_tokens", cached}},
                  r.max_batch, "sequences", "");
        trace.add("inference.decode_seconds_per_token",
                  "max(bytes / (tp x bandwidth x eff_mem), flops / (tp x peak x eff_compute)) + tp all-reduce + layers x kernel time",
                  {{"bytes_time", dec.bytes_time}, {"flops_time", dec.flops_time}, {"eff_mem", eff.memory}, {"eff_compute", eff.compute},
                   {"kernel_seconds_per_layer", eff.kernel_seconds_per_layer}, {"layers", layers}},
                  r.decode_seconds_per_token, "s", "roofline (Williams et al. 2009); constants in docs/MODEL.md");
        trace.add("inference.prefill_seconds", "max(2 N prompt batch / (tp x peak x eff), weights / bandwidth) + comm",
                  {{"prompt_tokens", cfg.prompt_tokens}, {"batch", cfg.batch}}, r.prefill_seconds, "s", "");
        trace.add("inference.cluster_throughput_tokens_per_second", "replicas x tp x throughput per GPU",
                  {{"replicas", r.replicas}, {"tp", t}, {"throughput_tokens_per_second_per_gpu", r.throughput_tokens_per_second_per_gpu}},
                  r.cluster_throughput_tokens_per_second, "tokens/s", "replicas = floor(devices / tp)");
        trace.add("inference.concurrent_sequences", "replicas x batch", {{"replicas", r.replicas}, {"batch", cfg.batch}},
                  r.concurrent_sequences, "sequences", "");
        trace.add("inference.weights_bytes_per_gpu", "weights_bytes / tp", {{"weights_bytes", r.weights_bytes}, {"tp", t}}, r.weights_bytes_per_gpu, "bytes", "");
        trace.add("inference.kv_cache_bytes", "kv_cache_bytes_per_token x cached tokens x batch",
                  {{"kv_cache_bytes_per_token", r.kv_cache_bytes_per_token}, {"cached_tokens", cached}, {"batch", cfg.batch}}, r.kv_cache_bytes, "bytes", "");
        trace.add("inference.memory_per_gpu_bytes", "weights / tp + kv_cache / tp + overhead",
                  {{"weights_bytes_per_gpu", r.weights_bytes_per_gpu}, {"kv_cache_bytes", r.kv_cache_bytes}, {"tp", t}, {"overhead_bytes", cfg.overhead_bytes}},
                  r.memory_per_gpu_bytes, "bytes", "");
        trace.add("inference.fits", "memory_per_gpu <= device memory", {{"memory_per_gpu_bytes", r.memory_per_gpu_bytes}, {"capacity", cap}},
                  r.fits ? 1.0 : 0.0, "boolean", d.name + " datasheet");
        trace.add("inference.instances_per_gpu", "floor(memory / (weights + kv_cache + overhead))  (tp = 1)",
                  {{"memory_bytes", cap}, {"instance_bytes", instance_bytes}}, r.instances_per_gpu, "copies", "");
        trace.add("inference.decode_bound", "memory if bytes_time >= flops_time", {{"bytes_time", dec.bytes_time}, {"flops_time", dec.flops_time}},
                  r.decode_memory_bound ? 1.0 : 0.0, "1 = memory-bound", "roofline");
        trace.add("inference.turn_batch", "smallest batch with batch x 2 N_active / peak >= weight bytes / bandwidth",
                  {{"N_active", pc.active}, {"peak_flops_per_second", peak}, {"bandwidth_bytes_per_second", bw}}, r.turn_batch, "sequences",
                  "roofline ridge in tokens");
        trace.add("inference.decode_tokens_per_second_per_user", "1 / decode_seconds_per_token", {{"decode_seconds_per_token", r.decode_seconds_per_token}},
                  r.decode_tokens_per_second_per_user, "tokens/s", "");
        trace.add("inference.throughput_tokens_per_second_per_gpu", "batch x output_tokens / (prefill + output_tokens x decode step) / tp",
                  {{"batch", cfg.batch}, {"output_tokens", cfg.output_tokens}, {"request_seconds", r.request_seconds}, {"tp", t}},
                  r.throughput_tokens_per_second_per_gpu, "tokens/s", "");
        trace.add("inference.cost_per_million_output_tokens_usd", "gpu_hour_usd / 3600 / throughput_per_gpu x 1e6",
                  {{"gpu_hour_usd", rate}, {"throughput_tokens_per_second_per_gpu", r.throughput_tokens_per_second_per_gpu}},
                  r.cost_per_million_output_tokens_usd, "USD", costs.gpu_hour_usd ? "costs.gpu_hour_usd" : "catalog cloud price");
        trace.add("inference.cost_per_million_input_tokens_usd", "gpu_hour_usd / 3600 / prefill tokens per second per GPU x 1e6",
                  {{"gpu_hour_usd", rate}, {"prefill_seconds", r.prefill_seconds}, {"batch", cfg.batch}, {"prompt_tokens", cfg.prompt_tokens}, {"tp", t}},
                  r.cost_per_million_input_tokens_usd, "USD", "");
        if (cfg.requests_per_day > 0) {
            trace.add("inference.cost_per_day_usd", "gpus_needed x 24 x gpu_hour_usd", {{"gpus_needed", r.gpus_needed}, {"gpu_hour_usd", rate}},
                      r.cost_per_day_usd, "USD", "");
            trace.add("inference.energy_per_day_kwh", "gpus_needed x 24 h x TDP x PUE",
                      {{"gpus_needed", r.gpus_needed}, {"tdp_watts", d.tdp_watts.value_or(0)}, {"pue", costs.pue}}, r.energy_per_day_kwh, "kWh", "");
        }
        if (cfg.requests_per_day > 0)
            trace.add("inference.gpus_needed", "ceil(requests_per_second x peak_to_average / (batch / request_seconds)) x tp",
                      {{"requests_per_day", cfg.requests_per_day}, {"peak_to_average", cfg.peak_to_average},
                       {"batch", cfg.batch}, {"request_seconds", r.request_seconds}, {"tp", t}},
                      r.gpus_needed, "GPUs", "");
    }
    return r;
}

}  // namespace gpucalc
