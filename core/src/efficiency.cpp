// Efficiency constants as data (efficiency.hpp): core/data/calibration.json, embedded at build time.
#include "gpucalc/efficiency.hpp"

#include "gpucalc/explain.hpp"
#include "gpucalc/json_value.hpp"

namespace gpucalc {

const std::string& calibration_json_text();  // generated from core/data/calibration.json by CMake

using json = jv::Value;

namespace {

double num(const json& o, const char* k, double fallback) {
    auto it = o.find(k);
    return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}
std::string str(const json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A constant's value: the fitted one (written by tools/calibrate) when present and wanted, else the prior.
double value(const json& o, const char* k, double fallback, bool fitted) {
    if (fitted) {
        auto it = o.find(std::string("fitted_") + k);
        if (it != o.end() && it->is_number()) return it->get<double>();
    }
    return num(o, k, fallback);
}

GPUCALC_COLD GenerationEfficiency parse_generation(const json& g, bool fitted) {
    GenerationEfficiency e;
    e.id = str(g, "id");
    e.name = str(g, "name");
    if (g.contains("match") && g["match"].is_array())
        for (const auto& m : g["match"])
            if (m.is_string()) e.match.push_back(m.get<std::string>());
    e.gemm = value(g, "gemm", e.gemm, fitted);
    e.gemm_fp8 = value(g, "gemm_fp8", e.gemm_fp8, fitted);
    e.gemm_half_width = num(g, "gemm_half_width", e.gemm_half_width);
    e.gemm_k_half = num(g, "gemm_k_half", e.gemm_k_half);
    e.gemm_fp8_k_half = num(g, "gemm_fp8_k_half", e.gemm_fp8_k_half);
    e.mamf = num(g, "mamf", 0);
    e.mamf_fp8 = num(g, "mamf_fp8", 0);
    e.attention = value(g, "attention", e.attention, fitted);
    e.attention_flash2 = value(g, "attention_flash2", e.attention_flash2, fitted);
    e.memory = value(g, "memory", e.memory, fitted);
    e.network = num(g, "network", e.network);
    e.collective_latency_seconds = num(g, "collective_latency_seconds", e.collective_latency_seconds);
    e.basis = str(g, "basis");
    if (g.contains("relative_to") && g["relative_to"].is_object()) {
        const json& r = g["relative_to"];
        e.relative_to = str(r, "generation");
        e.rel_gemm = num(r, "gemm", 0);
        e.rel_gemm_fp8 = num(r, "gemm_fp8", 0);
        e.rel_attention = num(r, "attention", 0);
    }
    return e;
}

GPUCALC_COLD FrameworkProfile parse_framework(const json& f, bool fitted) {
    FrameworkProfile p;
    p.id = str(f, "id");
    p.name = str(f, "name");
    p.fp32_gradients = f.value("fp32_gradients", true);
    p.tp_overlap = value(f, "tp_overlap", p.tp_overlap, fitted);
    p.dp_overlap = value(f, "dp_overlap", p.dp_overlap, fitted);
    p.fsdp_overlap = value(f, "fsdp_overlap", p.fsdp_overlap, fitted);
    p.ep_overlap = value(f, "ep_overlap", p.ep_overlap, fitted);
    p.moe_overlap_hidden = value(f, "moe_overlap_hidden", p.moe_overlap_hidden, fitted);
    p.cp_overlap = value(f, "cp_overlap", p.cp_overlap, fitted);
    p.cp_allgather = f.value("cp_allgather", false);
    p.root_unit_gathered = f.value("root_unit_gathered", false);
    p.kv_repeated = f.value("kv_repeated", false);
    p.pp_scatter_gather = f.value("pp_scatter_gather", false);
    p.pp_comm_overlap = f.value("pp_comm_overlap", false);
    p.kernel_seconds_per_layer = value(f, "kernel_seconds_per_layer", p.kernel_seconds_per_layer, fitted);
    p.memory_traffic = value(f, "memory_traffic", p.memory_traffic, fitted);
    p.loss_bytes_per_logit = num(f, "loss_bytes_per_logit", p.loss_bytes_per_logit);
    p.attention_kernel = value(f, "attention_kernel", p.attention_kernel, fitted);
    const std::string impl = str(f, "attention_impl");
    p.attention_impl = impl == "flash2" ? AttentionKernel::flash2 : impl == "triton" ? AttentionKernel::triton : AttentionKernel::fused;
    p.gemm_kernel = value(f, "gemm_kernel", p.gemm_kernel, fitted);
    p.fp8_kernel = value(f, "fp8_kernel", p.fp8_kernel, fitted);
    p.moe_overhead = value(f, "moe_overhead", p.moe_overhead, fitted);
    p.selective_gemm_recompute = num(f, "selective_gemm_recompute", p.selective_gemm_recompute);
    p.selective_recomputes_attention = f.value("selective_recomputes_attention", false);
    p.basis = str(f, "basis");
    return p;
}

}  // namespace

GPUCALC_COLD Calibration parse_calibration(const std::string& text, bool fitted) {
    Calibration c;
    const json root = json::parse(text);
    if (root.is_discarded() || !root.is_object()) return c;  // the catalog test checks the data parses
    for (const auto& g : root.value("generations", json::array())) c.generations.push_back(parse_generation(g, fitted));
    for (const auto& f : root.value("frameworks", json::array())) c.frameworks.push_back(parse_framework(f, fitted));
    if (root.contains("fallback")) c.fallback = parse_generation(root["fallback"], fitted);
    if (root.contains("attention_kernels") && root["attention_kernels"].is_object()) {
        const json& k = root["attention_kernels"];
        const char* names[3] = {"fused", "flash2", "triton"};
        for (int i = 0; i < 3; ++i)
            if (k.contains(names[i]) && k[names[i]].is_object()) {
                c.kernels[i].seq_half = num(k[names[i]], "seq_half", c.kernels[i].seq_half);
                c.kernels[i].head_dim_half = num(k[names[i]], "head_dim_half", c.kernels[i].head_dim_half);
            }
        c.triton_over_flash2 = num(k, "triton_over_flash2", c.triton_over_flash2);
        c.ring_overhead = value(k, "ring_overhead", c.ring_overhead, fitted);
    }
    if (root.contains("fitted") && root["fitted"].is_object()) {
        const json& f = root["fitted"];
        c.fitted_on = str(f, "on");
        if (f.contains("band") && f["band"].is_object()) {
            c.band.low = num(f["band"], "low", c.band.low);
            c.band.high = num(f["band"], "high", c.band.high);
            c.band.extrapolation = num(f["band"], "extrapolation", c.band.extrapolation);
            c.band.basis = str(f["band"], "basis");
            const json& b = f["band"];
            if (b.contains("range") && b["range"].is_object()) {
                const json& g = b["range"];
                c.band.max_devices = num(g, "max_devices", 0);
                c.band.max_seq_len = num(g, "max_seq_len", 0);
                c.band.max_params = num(g, "max_params", 0);
                c.band.max_sites = num(g, "max_sites", 1);
                c.band.max_local_steps = num(g, "max_local_steps", 1);
                c.band.mixed_devices = g.contains("mixed_devices") && g["mixed_devices"].is_boolean() && g["mixed_devices"].get<bool>();
            }
            if (b.contains("moe") && b["moe"].is_object()) {
                c.band.moe_low = num(b["moe"], "low", 0);
                c.band.moe_high = num(b["moe"], "high", 0);
                c.band.moe_basis = str(b["moe"], "basis");
            }
        }
        for (const auto& g : f.value("calibrated_generations", json::array()))
            if (g.is_string()) c.calibrated_generations.push_back(g.get<std::string>());
        for (const auto& g : f.value("calibrated_frameworks", json::array()))
            if (g.is_string()) c.calibrated_frameworks.push_back(g.get<std::string>());
    }
    return c;
}

namespace {
const Calibration* g_override = nullptr;
}  // namespace

const Calibration& embedded_calibration() {
    static const Calibration c = parse_calibration(calibration_json_text(), true);
    return c;
}

const Calibration& calibration() { return g_override ? *g_override : embedded_calibration(); }

void set_calibration_override(const Calibration* c) { g_override = c; }

const char* framework_name(Framework f) {
    switch (f) {
        case Framework::megatron:
            return "megatron";
        case Framework::fsdp:
            return "fsdp";
        case Framework::deepspeed:
            return "deepspeed";
        case Framework::maxtext:
            return "maxtext";
        case Framework::megatron_legacy:
            return "megatron-legacy";
        case Framework::torchtitan:
            return "torchtitan";
        case Framework::llm_foundry:
            return "llm-foundry";
    }
    return "megatron";
}

Efficiency efficiency_for(const Device& d, Framework f, const Calibration& cal) {
    // The generation and the profile are copied once each (their names and sources are strings:
    // an estimate with a scaling curve calls this once per point).
    const GenerationEfficiency* gen = &cal.fallback;
    for (const auto& g : cal.generations) {
        bool hit = false;
        for (const auto& m : g.match) hit = hit || d.architecture.find(m) != std::string::npos || d.id == m;
        if (hit) {
            gen = &g;
            break;
        }
    }
    Efficiency e;
    e.gen = *gen;
    e.fallback_used = gen == &cal.fallback;
    if (!e.fallback_used && !gen->relative_to.empty())
        for (const auto& ref : cal.generations)
            if (ref.id == gen->relative_to) {
                if (gen->rel_gemm > 0) e.gen.gemm = ref.gemm * gen->rel_gemm;
                if (gen->rel_gemm_fp8 > 0) e.gen.gemm_fp8 = ref.gemm_fp8 * gen->rel_gemm_fp8;
                if (gen->rel_attention > 0) {
                    e.gen.attention = ref.attention * gen->rel_attention;
                    e.gen.attention_flash2 = ref.attention_flash2 * gen->rel_attention;
                }
            }
    const std::string_view want = framework_name(f);
    const FrameworkProfile* fw = nullptr;
    for (const auto& p : cal.frameworks)
        if (p.id == want) fw = &p;  // the last of that name, as before
    if (fw) e.fw = *fw;
    return e;
}

GemmKernel gemm_kernel(const Efficiency& e, bool fp8) {
    GemmKernel k;
    // A generation with no FP8 GEMM measurement (gemm_fp8 0: Volta, Ampere, TPU, whose catalog
    // devices list no FP8 peak; a custom device may) runs its FP8 GEMMs at the 16-bit efficiency of
    // the FP8 peak (training warns).
    fp8 = fp8 && e.gen.gemm_fp8 > 0;
    k.e_long = (fp8 ? e.gen.gemm_fp8 * e.fw.fp8_kernel : e.gen.gemm) * e.fw.gemm_kernel;
    k.k_half = e.gemm_k_half_given.value_or(fp8 ? e.gen.gemm_fp8_k_half : e.gen.gemm_k_half);
    return k;
}

double attention_efficiency(const Efficiency& e, AttentionKernel k, double seq, double head_dim, const Calibration& cal) {
    if (e.attention_given) return *e.attention_given;  // training.efficiency.attention: the kernel's efficiency as given
    const double fa2 = e.gen.attention_flash2 > 0 ? e.gen.attention_flash2 : e.gen.attention;
    const double top = k == AttentionKernel::fused ? e.gen.attention : k == AttentionKernel::flash2 ? fa2 : fa2 * cal.triton_over_flash2;
    const AttentionKernelShape& s = cal.kernels[static_cast<int>(k)];
    const double ramp = seq > 0 ? seq / (seq + s.seq_half) : 1.0;
    const double d = head_dim > 0 ? head_dim : 128.0;
    const double head = (d / (d + s.head_dim_half)) / (128.0 / (128.0 + s.head_dim_half));
    return top * e.fw.attention_kernel * ramp * head;
}

double ring_attention_efficiency(double single_kernel, double cp, const Calibration& cal) {
    return cp > 1 ? single_kernel / (1.0 + cal.ring_overhead * (1.0 - 1.0 / cp)) : single_kernel;
}

void apply_overrides(Efficiency& e, const EfficiencyOverrides& o) {
    if (o.gemm) e.gen.gemm = *o.gemm;
    if (o.gemm_half_width) e.gen.gemm_half_width = *o.gemm_half_width, e.gemm_k_half_given = *o.gemm_half_width;
    if (o.attention) e.attention_given = *o.attention;
    if (o.memory) e.gen.memory = *o.memory;
    if (o.network) e.gen.network = *o.network;
}

}  // namespace gpucalc
