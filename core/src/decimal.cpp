// Exact decimal conversions (decimal.hpp). The slow paths run for numbers with more than 15
// significant digits or large exponents, which scenarios rarely hold; neither is on a hot path.
#include "gpucalc/decimal.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace gpucalc::decimal {

namespace {

constexpr std::uint32_t kBase = 1000000000;  // 10^9 per limb

// A non-negative big integer, little-endian limbs in base 10^9.
struct Big {
    std::vector<std::uint32_t> limb;

    void times(std::uint32_t k) {  // *= k
        std::uint64_t carry = 0;
        for (auto& l : limb) {
            const std::uint64_t x = std::uint64_t{l} * k + carry;
            l = static_cast<std::uint32_t>(x % kBase);
            carry = x / kBase;
        }
        for (; carry; carry /= kBase) limb.push_back(static_cast<std::uint32_t>(carry % kBase));
    }
    void times_pow2(int n) {  // *= 2^n
        for (; n > 0; n -= 29) times(1u << (n < 29 ? n : 29));
    }
    void times_pow5(int n) {  // *= 5^n (5^13 < 2^32)
        for (; n > 0; n -= 13) {
            std::uint32_t p = 1;
            for (int i = 0; i < (n < 13 ? n : 13); ++i) p *= 5;
            times(p);
        }
    }
    void trim() {
        while (limb.size() > 1 && limb.back() == 0) limb.pop_back();
    }
};

Big from_u64(std::uint64_t v) {
    Big b;
    do b.limb.push_back(static_cast<std::uint32_t>(v % kBase)), v /= kBase;
    while (v);
    return b;
}

int compare(Big a, Big b) {
    a.trim();
    b.trim();
    if (a.limb.size() != b.limb.size()) return a.limb.size() < b.limb.size() ? -1 : 1;
    for (std::size_t i = a.limb.size(); i-- > 0;)
        if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i] ? -1 : 1;
    return 0;
}

// The decimal digits of a big integer (no leading zeros).
std::string digits_of(Big b) {
    b.trim();
    std::string s = std::to_string(b.limb.back());
    for (std::size_t i = b.limb.size() - 1; i-- > 0;) {
        const std::string d = std::to_string(b.limb[i]);
        s += std::string(9 - d.size(), '0') + d;
    }
    return s;
}

// A finite double > 0 as m x 2^e: m < 2^53 an integer, e >= -1074.
void split(double v, std::uint64_t& m, int& e) {
    int e2 = 0;
    const double f = std::frexp(v, &e2);  // v = f x 2^e2, f in [0.5, 1)
    e = e2 - 53;
    if (e < -1074) e = -1074;                               // subnormal: fewer bits
    m = static_cast<std::uint64_t>(std::ldexp(f, e2 - e));  // exact
}

// The exact decimal digits of a finite v > 0: v = digits x 10^exp10. For e < 0, m x 2^e is
// m x 5^-e x 10^e: at most 767 digits (86 limbs) once m's trailing zero bits are taken out.
void exact_digits(double v, std::string& digits, int& exp10) {
    std::uint64_t m = 0;
    int e = 0;
    split(v, m, e);
    while (m % 2 == 0 && e < 0) m /= 2, ++e;
    Big b = from_u64(m);
    b.times_pow2(e);
    b.times_pow5(-e);
    exp10 = e < 0 ? e : 0;
    digits = digits_of(b);
}

// Rounds the digit string d (value d.ddd x 10^exp10) to p digits, to nearest, ties to even.
void round_digits(std::string& d, int& exp10, std::size_t p) {
    if (d.size() > p) {
        const char next = d[p];
        const bool rest = d.find_first_not_of('0', p + 1) != std::string::npos;
        const bool up = next > '5' || (next == '5' && (rest || (d[p - 1] - '0') % 2 == 1));
        d.resize(p);
        if (up) {
            std::size_t i = p;
            while (i > 0 && d[i - 1] == '9') d[--i] = '0';
            if (i == 0)
                d.insert(d.begin(), '1'), d.pop_back(), ++exp10;
            else
                ++d[i - 1];
        }
    }
    d.resize(p, '0');
}

std::string strip_zeros(std::string s) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    return s;
}

}  // namespace

std::string format_general(double v, int precision) {
    if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
    std::string out = std::signbit(v) ? "-" : "";
    if (std::isinf(v)) return out + "inf";
    if (v == 0) return out + "0";
    // As printf: a negative precision is taken as omitted (6), a zero one as 1.
    const std::size_t p = precision < 0 ? 6 : precision == 0 ? 1 : static_cast<std::size_t>(precision);
    std::string d;
    int exp10 = 0;
    exact_digits(std::fabs(v), d, exp10);
    exp10 += static_cast<int>(d.size()) - 1;  // v = d.ddd x 10^exp10
    round_digits(d, exp10, p);
    if (exp10 >= -4 && exp10 < static_cast<int>(p)) {  // fixed, p - 1 - exp10 decimals
        if (exp10 < 0) d.insert(0, static_cast<std::size_t>(-exp10), '0'), exp10 = 0;
        const std::string frac = strip_zeros(d.substr(static_cast<std::size_t>(exp10) + 1));
        return out + d.substr(0, static_cast<std::size_t>(exp10) + 1) + (frac.empty() ? "" : "." + frac);
    }
    const std::string frac = strip_zeros(d.substr(1));
    const int a = exp10 < 0 ? -exp10 : exp10;
    return out + d[0] + (frac.empty() ? "" : "." + frac) + (exp10 < 0 ? "e-" : "e+") + (a < 10 ? "0" : "") + std::to_string(a);
}

namespace {

// A decimal number: digits x 10^exp10 (digits without leading or trailing zeros), and whether
// nonzero digits were cut off after the first kMaxDigits (the value is then a little larger).
struct Decimal {
    std::string digits;
    long exp10 = 0;
    bool sticky = false;
};
constexpr std::size_t kMaxDigits = 800;  // more than the 767 significant digits a rounding can need
constexpr long kMaxExponent = 100000;    // |exponent| beyond this plus the token's length is as good as infinite

Decimal read_decimal(std::string_view t) {
    Decimal d;
    std::size_t i = 0;
    bool fraction = false;
    for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
        if (t[i] == '.') {
            fraction = true;
            continue;
        }
        if (fraction) --d.exp10;                        // each fraction digit: one place lower
        if (d.digits.empty() && t[i] == '0') continue;  // a leading zero
        if (d.digits.size() < kMaxDigits) {
            d.digits += t[i];
        } else {  // cut off: it still counts as a place
            ++d.exp10;
            d.sticky = d.sticky || t[i] != '0';
        }
    }
    if (i < t.size()) {  // the exponent
        ++i;
        const bool negative = i < t.size() && t[i] == '-';
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        // Capped past what the mantissa's own places can offset (a 1 MB token of zeros is 10^6 places).
        const long cap = kMaxExponent + static_cast<long>(t.size());
        long e = 0;
        for (; i < t.size(); ++i) e = e < cap ? e * 10 + (t[i] - '0') : e;
        d.exp10 += negative ? -e : e;
    }
    while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back(), ++d.exp10;
    return d;
}

Big big_of(const std::string& digits) {
    Big b;
    for (std::size_t end = digits.size(); end > 0; end = end > 9 ? end - 9 : 0) {
        const std::size_t start = end > 9 ? end - 9 : 0;
        std::uint32_t limb = 0;
        for (std::size_t i = start; i < end; ++i) limb = limb * 10 + static_cast<std::uint32_t>(digits[i] - '0');
        b.limb.push_back(limb);
    }
    return b;
}

// The sign of (digits x 10^exp10 + cut-off digits) - mm x 2^k. Both sides are made integers:
// 10^E = 5^E x 2^E, the fives go to the side with the non-negative power, then the twos cancel.
int compare(const Big& digits, long exp10, bool sticky, std::uint64_t mm, long k) {
    Big left = digits, right = from_u64(mm);
    if (exp10 >= 0)
        left.times_pow5(static_cast<int>(exp10));
    else
        right.times_pow5(static_cast<int>(-exp10));
    if (exp10 > k)
        left.times_pow2(static_cast<int>(exp10 - k));
    else
        right.times_pow2(static_cast<int>(k - exp10));
    const int c = compare(left, right);
    return c == 0 && sticky ? 1 : c;
}

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// A double within a few units in the last place of d: its first 19 digits, scaled by powers of ten.
double approximate(const Decimal& d) {
    const std::size_t n = d.digits.size() < 19 ? d.digits.size() : 19;
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w = w * 10 + static_cast<std::uint64_t>(d.digits[i] - '0');
    double x = static_cast<double>(w);
    long rest = d.exp10 + static_cast<long>(d.digits.size() - n);
    for (; rest >= 22; rest -= 22) x *= 1e22;
    for (; rest <= -22; rest += 22) x /= 1e22;
    return rest >= 0 ? x * kPow10[rest] : x / kPow10[-rest];
}

// The nearest double to d (> 0): from the approximation, one step at a time to the double whose
// rounding interval (between the midpoints to its neighbours) holds d; a tie goes to the even mantissa.
double nearest(const Decimal& d) {
    const long places = static_cast<long>(d.digits.size()) + d.exp10;  // d < 10^places
    if (places > 310) return HUGE_VAL;
    if (places < -324) return 0;  // below 10^-324, under half the smallest subnormal
    double x = approximate(d);
    // Clinger's fast path (Clinger 1990, PLDI): with at most 15 digits and |exponent| <= 22 the
    // approximation multiplies or divides two exact doubles once, so it is already the nearest.
    if (d.digits.size() <= 15 && !d.sticky && d.exp10 >= -22 && d.exp10 <= 22) return x;
    if (x == 0) x = std::nextafter(0.0, 1.0);
    if (std::isinf(x)) x = std::nextafter(HUGE_VAL, 0.0);
    const Big digits = big_of(d.digits);
    for (int step = 0; step < 200; ++step) {
        std::uint64_t m = 0;
        int e = 0;
        split(x, m, e);
        const bool odd = m % 2 == 1;
        const int up = compare(digits, d.exp10, d.sticky, 2 * m + 1, e - 1);  // the midpoint above
        if (up > 0 || (up == 0 && odd)) {
            x = std::nextafter(x, HUGE_VAL);
            if (std::isinf(x)) return x;
            continue;
        }
        // The midpoint below; at a power of two the double below is half as far.
        const bool power = m == (std::uint64_t{1} << 52) && e > -1074;
        const int down =
            power ? compare(digits, d.exp10, d.sticky, 4 * m - 1, e - 2) : compare(digits, d.exp10, d.sticky, 2 * m - 1, e - 1);
        if (down < 0 || (down == 0 && odd)) {
            x = std::nextafter(x, 0.0);
            if (x == 0) return x;
            continue;
        }
        return x;
    }
    return x;
}

}  // namespace

double parse(std::string_view token) {
    const bool negative = !token.empty() && token[0] == '-';
    if (negative) token.remove_prefix(1);
    const Decimal d = read_decimal(token);
    const double x = d.digits.empty() ? 0.0 : nearest(d);
    return negative ? -x : x;
}

}  // namespace gpucalc::decimal
