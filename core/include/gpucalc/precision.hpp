// Numeric formats: names as used in scenarios, bytes per element in memory.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace gpucalc {

enum class Precision { fp64, fp64_matrix, fp32, tf32, bf16, fp16, fp8, int8, int4, fp4 };
constexpr int kPrecisionCount = 10;

constexpr std::array<std::string_view, kPrecisionCount> kPrecisionNames = {"fp64", "fp64_matrix", "fp32", "tf32", "bf16",
                                                                           "fp16", "fp8",         "int8", "int4", "fp4"};

inline std::string_view precision_name(Precision p) { return kPrecisionNames[static_cast<int>(p)]; }

inline std::optional<Precision> parse_precision(std::string_view s) {
    for (int i = 0; i < kPrecisionCount; ++i)
        if (kPrecisionNames[i] == s) return static_cast<Precision>(i);
    return std::nullopt;
}

// Storage bytes per element (weights, activations, KV cache). int4/fp4 are half a byte; group-wise
// quantisation scales are added separately (see inference.cpp).
inline double bytes_per_element(Precision p) {
    switch (p) {
        case Precision::fp64:
        case Precision::fp64_matrix:
            return 8.0;
        case Precision::fp32:
        case Precision::tf32:
            return 4.0;
        case Precision::bf16:
        case Precision::fp16:
            return 2.0;
        case Precision::fp8:
        case Precision::int8:
            return 1.0;
        case Precision::int4:
        case Precision::fp4:
            return 0.5;
    }
    return 2.0;
}

// Bytes of scale (and zero point) stored per group of group-wise quantised weights: int4 an fp16
// scale and an fp16 zero point (gpt-fast int4, G = 32; GPTQ/AWQ); fp4 one 8-bit scale and no zero
// point: NVFP4 (E2M1 values, an E4M3 scale per 16; NVIDIA Blackwell, TensorRT Model Optimizer) and
// OCP MXFP4 (an E8M0 scale per 32; gpt-oss's experts), 4.5 and 4.25 bits per weight. Other
// precisions: none.
inline double group_scale_bytes(Precision p) { return p == Precision::int4 ? 4.0 : p == Precision::fp4 ? 1.0 : 0.0; }
// The quantisation group when none is given: 16 for fp4 (NVFP4), else 32 (gpt-fast's int4).
inline int default_quant_group(Precision p) { return p == Precision::fp4 ? 16 : 32; }

}  // namespace gpucalc
