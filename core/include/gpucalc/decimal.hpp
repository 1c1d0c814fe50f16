// Decimal text <-> double, exactly, without the C library's printf and strtod (whose long double
// arithmetic is ~20 KB of the WebAssembly module). Both work on the exact value: a double is
// m x 2^e, and a decimal text is D x 10^E; big integers in base 10^9 compare or expand them.
#pragma once
#include <string>
#include <string_view>

namespace gpucalc::decimal {

// printf("%.<precision>g", v) (C11 7.21.6.1): rounded to `precision` significant digits (to
// nearest, ties to even, as glibc and musl round the exact binary value), fixed notation when the
// decimal exponent X satisfies -4 <= X < precision, else d.ddde+XX; trailing zeros removed.
std::string format_general(double v, int precision);

// The double nearest to a JSON number token (-?digits[.digits][(e|E)[+-]digits], already checked
// by the caller), ties to even, as strtod rounds: +-inf beyond the largest double, +-0 below the
// smallest subnormal.
double parse(std::string_view token);

}  // namespace gpucalc::decimal
