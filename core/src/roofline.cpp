#include "gpucalc/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/json_read.hpp"
#include "gpucalc/model.hpp"

namespace gpucalc {

std::vector<Kernel> typical_kernels(double n, const ModelSpec* model, double prompt) {
    // FLOPs and bytes at 16-bit storage (2 bytes/element).
    std::vector<Kernel> k;
    // C = A B, n x n x n: 2n^3 FLOPs, reads A and B, writes C once (ideal tiling).
    const std::string ns = jr::fmt_num(n);
    k.push_back({"gemm", "GEMM " + ns + "x" + ns + "x" + ns, 2 * n * n * n, 3 * n * n * 2});
    // Attention prefill with FlashAttention (seq 4096, head dim 128, one head): 4 s^2 d FLOPs, Q K V O once.
    k.push_back({"attention_prefill", "Attention prefill (flash, seq 4096, one head)", 4.0 * 4096 * 4096 * 128, 4.0 * 4096 * 128 * 2});
    // The per-element kernels at a size whose time reads in everyday units (a per-weight time is
    // picoseconds): one billion 16-bit weights, a 4,096-token KV cache, one 4,096 x 8,192 activation.
    // LLM decode at batch 64: each 16-bit weight read once, used by 64 tokens (2 FLOPs each).
    const double weights = 1e9, cached = 4096, elements = 4096.0 * 8192.0;
    k.push_back({"decode_batch64", "LLM decode, batch 64 (1B weights)", 2.0 * 64 * weights, 2.0 * weights});
    // LLM decode at batch 1: 2 FLOPs per 2-byte weight.
    k.push_back({"decode_batch1", "LLM decode, batch 1 (1B weights)", 2.0 * weights, 2.0 * weights});
    // Attention decode: read K and V for each cached token (2 x d x 2 bytes), 4 d FLOPs; head dim 128.
    k.push_back({"attention_decode", "Attention decode (4,096 cached tokens, one head)", 4.0 * 128 * cached, 2.0 * 128 * 2 * cached});
    // LayerNorm: ~8 FLOPs per element, read + write.
    k.push_back({"layernorm", "LayerNorm (4,096 x 8,192 activations)", 8.0 * elements, 4.0 * elements});
    // Elementwise add: 1 FLOP, two reads and a write.
    k.push_back({"elementwise_add", "Elementwise add (4,096 x 8,192)", elements, 6.0 * elements});
    if (model) {
        // One forward pass: every 16-bit weight read once (2 bytes/param) and 2 FLOPs per active param
        // per token (plus attention); a prompt reuses each weight for every token.
        const ParamCount pc = count_params(*model);
        const double bytes = 2.0 * pc.total;
        k.push_back({"forward_1_token", model->name + ": forward pass, 1 token", forward_flops_per_token(*model, 1), bytes});
        k.push_back({"forward_prompt", model->name + ": forward pass, " + jr::fmt_num(prompt) + "-token prompt",
                     prompt * forward_flops_per_token(*model, prompt / 2.0), bytes});
    }
    return k;
}

namespace {
// Precision for the roofline: the requested one, else the best the device has (CPUs: fp32).
std::pair<Precision, double> pick_peak(const Device& d, Precision want) {
    if (auto p = d.peak(want)) return {want, *p};
    // A device with only low-precision peaks (a custom FP8 accelerator) is compared at those.
    for (Precision alt :
         {Precision::bf16, Precision::fp16, Precision::fp32, Precision::fp64, Precision::fp8, Precision::int8, Precision::fp4})
        if (auto p = d.peak(alt)) return {alt, *p};
    return {want, 0.0};
}
}  // namespace

RooflineResult estimate_roofline(const RooflineRequest& req) {
    RooflineResult r;
    r.kernels = typical_kernels(req.matmul_n, req.model ? &*req.model : nullptr, req.prompt_tokens);
    for (const Device& d : req.devices) {
        RooflineDevice rd;
        rd.id = d.id;
        rd.name = d.name;
        auto [prec, peak] = pick_peak(d, req.precision);
        rd.precision_used = std::string(precision_name(prec));
        rd.peak_flops_per_second = peak;
        rd.bandwidth_bytes_per_second = d.memory_bandwidth_bytes_per_second.value_or(0);
        rd.ridge_flops_per_byte = rd.bandwidth_bytes_per_second > 0 ? peak / rd.bandwidth_bytes_per_second : 0;
        // Curve: intensities 2^-6 .. 2^14 FLOP/byte, 4 points per octave; ldexp is exact, so native
        // and WebAssembly builds agree bit for bit.
        const double quarter[4] = {1.0, 1.189207115002721, 1.4142135623730951, 1.681792830507429};
        for (int e = -6; e <= 14; ++e)
            for (double f : quarter) {
                const double x = std::ldexp(f, e);
                rd.curve.emplace_back(x, std::min(peak, x * rd.bandwidth_bytes_per_second));
            }
        for (const Kernel& k : r.kernels) {
            KernelOnDevice kd;
            kd.id = k.id;
            kd.intensity = k.intensity();
            const double mem = kd.intensity * rd.bandwidth_bytes_per_second;
            kd.attainable_flops_per_second = std::min(peak, mem);
            kd.bound = mem < peak ? "memory" : "compute";
            kd.seconds = kd.attainable_flops_per_second > 0 ? k.flops / kd.attainable_flops_per_second : 0;
            rd.kernels.push_back(kd);
        }
        r.devices.push_back(rd);
    }
    return r;
}

CompareResult estimate_compare(const CompareRequest& req, Trace& trace) {
    CompareResult r;
    auto [pa, peak_a] = pick_peak(req.a, req.precision);
    auto [pb, peak_b] = pick_peak(req.b, req.precision);
    r.precision_a = std::string(precision_name(pa));
    r.precision_b = std::string(precision_name(pb));
    r.peak_a = peak_a;
    r.peak_b = peak_b;
    r.compute_ratio = peak_b > 0 ? peak_a / peak_b : 0;
    if (req.a.memory_bandwidth_bytes_per_second && req.b.memory_bandwidth_bytes_per_second)
        r.bandwidth_ratio = *req.a.memory_bandwidth_bytes_per_second / *req.b.memory_bandwidth_bytes_per_second;
    if (req.a.tdp_watts) r.flops_per_watt_a = peak_a / *req.a.tdp_watts;
    if (req.b.tdp_watts) r.flops_per_watt_b = peak_b / *req.b.tdp_watts;
    if (req.a.price_usd && *req.a.price_usd > 0) r.flops_per_usd_a = peak_a / *req.a.price_usd;
    if (req.b.price_usd && *req.b.price_usd > 0) r.flops_per_usd_b = peak_b / *req.b.price_usd;
    if (req.b.cpu_cores) r.cpu_cores_equivalent = r.compute_ratio * *req.b.cpu_cores;
    for (Precision p :
         {pa, Precision::fp8, Precision::bf16, Precision::fp16, Precision::fp32, Precision::fp64, Precision::int8, Precision::fp4}) {
        const std::optional<double> a = req.a.peak(p), b = req.b.peak(p);
        if (!a || !b || !(*b > 0)) continue;
        r.same_precision = precision_name(p);
        r.compute_ratio_same_precision = *a / *b;
        trace.add(
            "compare.compute_ratio_same_precision", "peak_A / peak_B, both at " + r.same_precision, {{"peak_A", *a}, {"peak_B", *b}},
            *r.compute_ratio_same_precision, "x",
            "datasheets (catalog): A's precision when B lists it, else the first both list of fp8, bf16, fp16, fp32, fp64, int8, fp4");
        break;
    }
    trace.add("compare.compute_ratio", "peak_A / peak_B", {{"peak_A", peak_a}, {"peak_B", peak_b}}, r.compute_ratio, "x",
              "datasheets (catalog); A at " + r.precision_a + ", B at " + r.precision_b);
    if (r.bandwidth_ratio)
        trace.add("compare.bandwidth_ratio", "bandwidth_A / bandwidth_B",
                  {{"bandwidth_A", *req.a.memory_bandwidth_bytes_per_second}, {"bandwidth_B", *req.b.memory_bandwidth_bytes_per_second}},
                  *r.bandwidth_ratio, "x", "datasheets (catalog)");
    if (r.cpu_cores_equivalent)
        trace.add("compare.cpu_cores_equivalent", "compute_ratio x cores of B",
                  {{"compute_ratio", r.compute_ratio}, {"cores_B", *req.b.cpu_cores}}, *r.cpu_cores_equivalent, "CPU cores",
                  "peak-to-peak; real code rarely reaches either peak");
    return r;
}

}  // namespace gpucalc
