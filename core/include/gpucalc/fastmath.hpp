// Small exact replacements for libm calls on the plan search's hot path.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpucalc {

// std::ceil(std::log2(n)), read from the binary exponent instead of computed (a collective's latency
// steps, three per evaluated plan: ~3 % of a plan search natively). The same value for every double:
// outside [1, 2^32], and just above a power of two (mantissa below 2^12 ulps, where log2 may round
// down to the exponent), it asks libm.
inline double ceil_log2(double n) {
    if (!(n >= 1.0 && n <= 4294967296.0)) return std::ceil(std::log2(n));
    std::uint64_t b;
    std::memcpy(&b, &n, sizeof b);
    const std::uint64_t mantissa = b & ((std::uint64_t{1} << 52) - 1);
    if (mantissa != 0 && mantissa < (std::uint64_t{1} << 12)) return std::ceil(std::log2(n));
    const int e = static_cast<int>((b >> 52) & 0x7ff) - 1023;
    return static_cast<double>(e + (mantissa != 0 ? 1 : 0));
}

// x^n for a whole n >= 0 by repeated squaring: the same multiplications on every platform (libm's
// pow may differ in the last bit between the native build and the wasm module).
inline double ipow(double x, double n) {
    double r = 1.0;
    unsigned long long k = n > 0 ? static_cast<unsigned long long>(n < 1e18 ? n : 1e18) : 0ULL;
    while (k) {
        if (k & 1ULL) r *= x;
        x *= x;
        k >>= 1;
    }
    return r;
}

}  // namespace gpucalc
