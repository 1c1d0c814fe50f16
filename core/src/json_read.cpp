#include "gpucalc/json_read.hpp"

#include <cmath>
#include <cstdint>

namespace gpucalc::jr {

std::string to_text(const json& j, int indent) { return jw::text(j, indent); }

namespace {

// The exact decimal digits of a finite v > 0: v = digits x 10^exp10, digits without leading zeros.
// v = m x 2^e (m < 2^53); for e < 0 that is m x 5^-e x 10^e. The integer is a little-endian
// big number in base 10^9: 2^1024 has 309 digits; with e < 0, m x 5^-e has at most 767 (86 limbs),
// once the mantissa's trailing zero bits are taken out (the smallest subnormal is 5^1074 x 10^-1074).
struct ExactDigits {
    std::string digits;
    int exp10 = 0;
};
ExactDigits exact_digits(double v) {
    int e2 = 0;
    const double f = std::frexp(v, &e2);                     // v = f x 2^e2, f in [0.5, 1)
    auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));  // exact: 53 bits
    e2 -= 53;
    while (m % 2 == 0 && e2 < 0) m /= 2, ++e2;  // fewer factors of 5 to multiply by
    std::uint32_t limb[100] = {static_cast<std::uint32_t>(m % 1000000000), static_cast<std::uint32_t>(m / 1000000000 % 1000000000),
                               static_cast<std::uint32_t>(m / 1000000000000000000ull)};
    int n = 3;
    auto times = [&](std::uint32_t k) {  // limb *= k (k < 2^32)
        std::uint64_t carry = 0;
        for (int i = 0; i < n; ++i) {
            const std::uint64_t x = std::uint64_t{limb[i]} * k + carry;
            limb[i] = static_cast<std::uint32_t>(x % 1000000000);
            carry = x / 1000000000;
        }
        while (carry) limb[n++] = static_cast<std::uint32_t>(carry % 1000000000), carry /= 1000000000;
    };
    ExactDigits out;
    for (int k = e2; k > 0; k -= 29) times(1u << (k < 29 ? k : 29));  // v = m x 2^e2, an integer
    for (int k = -e2; k > 0; k -= 13) {                               // v = m x 5^-e2 x 10^e2
        std::uint32_t p = 1;
        for (int i = 0; i < (k < 13 ? k : 13); ++i) p *= 5;
        times(p);
    }
    out.exp10 = e2 < 0 ? e2 : 0;
    while (n > 1 && limb[n - 1] == 0) --n;
    out.digits = std::to_string(limb[n - 1]);
    for (int i = n - 2; i >= 0; --i) {
        const std::string d = std::to_string(limb[i]);
        out.digits += std::string(9 - d.size(), '0') + d;
    }
    return out;
}

}  // namespace

// printf's "%.<precision>g" (C11 7.21.6.1): the value rounded to `precision` significant digits
// (to nearest, ties to even, on the exact binary value, as glibc and musl do), fixed notation when
// the decimal exponent X satisfies -4 <= X < precision, else d.ddde+XX; trailing zeros removed.
// Written here so that the module carries no printf (with its long double arithmetic).
std::string fmt_general(double v, int precision) {
    if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
    std::string out = std::signbit(v) ? "-" : "";
    if (std::isinf(v)) return out + "inf";
    if (v == 0) return out + "0";
    const int p = precision < 1 ? 1 : precision;
    ExactDigits x = exact_digits(std::fabs(v));
    std::string& d = x.digits;
    int exp10 = x.exp10 + static_cast<int>(d.size()) - 1;  // v = d.ddd x 10^exp10
    if (static_cast<int>(d.size()) > p) {
        const char next = d[static_cast<std::size_t>(p)];
        const bool rest = d.find_first_not_of('0', static_cast<std::size_t>(p) + 1) != std::string::npos;
        const bool up = next > '5' || (next == '5' && (rest || (d[static_cast<std::size_t>(p) - 1] - '0') % 2 == 1));
        d.resize(static_cast<std::size_t>(p));
        if (up) {
            int i = p - 1;
            while (i >= 0 && d[static_cast<std::size_t>(i)] == '9') d[static_cast<std::size_t>(i--)] = '0';
            if (i < 0)
                d.insert(d.begin(), '1'), d.pop_back(), ++exp10;
            else
                ++d[static_cast<std::size_t>(i)];
        }
    }
    d.resize(static_cast<std::size_t>(p), '0');
    if (exp10 >= -4 && exp10 < p) {  // fixed: p - 1 - exp10 decimals
        if (exp10 < 0) d.insert(0, std::string(static_cast<std::size_t>(-exp10), '0')), exp10 = 0;
        std::string frac = d.substr(static_cast<std::size_t>(exp10) + 1);
        while (!frac.empty() && frac.back() == '0') frac.pop_back();
        return out + d.substr(0, static_cast<std::size_t>(exp10) + 1) + (frac.empty() ? "" : "." + frac);
    }
    std::string frac = d.substr(1);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    const int a = exp10 < 0 ? -exp10 : exp10;
    return out + d[0] + (frac.empty() ? "" : "." + frac) + (exp10 < 0 ? "e-" : "e+") + (a < 10 ? "0" : "") + std::to_string(a);
}

std::string fmt_num(double v) { return fmt_general(v, 6); }

std::string shorten(const std::string& s, std::size_t max) {
    if (s.size() <= max) return s;
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
    return s.substr(0, n) + "...";
}

static std::string type_name(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

std::optional<double> number(const json& obj, std::string_view key, const std::string& path, Errors& errors, Range r, bool required) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        if (required) add_error(errors, "missing", field(), field() + " is required (a number)");
        return std::nullopt;
    }
    if (!it->is_number()) {
        add_error(errors, "type", field(), field() + " must be a number, got " + type_name(*it));
        return std::nullopt;
    }
    const double v = it->get<double>();
    if (!std::isfinite(v)) {
        add_error(errors, "range", field(), field() + " must be a finite number");
        return std::nullopt;
    }
    if (r.integer && std::floor(v) != v) {
        add_error(errors, "range", field(), field() + " must be a whole number, got " + fmt_num(v));
        return std::nullopt;
    }
    const bool below = r.min_exclusive ? !(v > r.min) : v < r.min;
    if (below || v > r.max) {
        std::string rule;
        if (r.min_exclusive && r.min == 0)
            rule = "must be greater than 0";
        else if (r.min == 0 && !r.min_exclusive)
            rule = "must not be negative";
        else
            rule = "must be " + std::string(r.min_exclusive ? "> " : ">= ") + fmt_num(r.min);
        if (std::isfinite(r.max)) rule += " and at most " + fmt_num(r.max);
        add_error(errors, "range", field(), field() + " " + rule + ", got " + fmt_num(v));
        return std::nullopt;
    }
    return v;
}

std::optional<std::string> string(const json& obj, std::string_view key, const std::string& path, Errors& errors, bool required,
                                  std::size_t max_len) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        if (required) add_error(errors, "missing", field(), field() + " is required (a string)");
        return std::nullopt;
    }
    if (!it->is_string()) {
        add_error(errors, "type", field(), field() + " must be a string, got " + type_name(*it));
        return std::nullopt;
    }
    std::string s = it->get<std::string>();
    if (s.size() > max_len) {
        add_error(errors, "range", field(),
                  field() + " is too long (" + std::to_string(s.size()) + " bytes of UTF-8, at most " + std::to_string(max_len) + ")");
        return std::nullopt;
    }
    return s;
}

std::optional<bool> boolean(const json& obj, std::string_view key, const std::string& path, Errors& errors) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
        add_error(errors, "type", field(), field() + " must be true or false, got " + type_name(*it));
        return std::nullopt;
    }
    return it->get<bool>();
}

std::optional<std::string> choice(const json& obj, std::string_view key, const std::string& path, Errors& errors,
                                  std::initializer_list<std::string_view> allowed, bool required) {
    auto s = string(obj, key, path, errors, required, 64);
    if (!s) return std::nullopt;
    for (auto a : allowed)
        if (a == *s) return s;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    const std::string field = join(path, key);
    add_error(errors, "choice", field, field + " must be one of: " + list);
    return std::nullopt;
}

void check_keys(const json& obj, const std::string& path, Errors& errors, std::initializer_list<std::string_view> known) {
    if (!obj.is_object()) return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (auto k : known)
            if (k == it.key()) ok = true;
        if (!ok) {
            const std::string key = shorten(it.key());
            const std::string field = join(path, key);
            add_error(errors, "unknown_field", field, field + " is not a known field");
        }
    }
}

const json* object(const json& obj, std::string_view key, const std::string& path, Errors& errors, bool required) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        if (required) add_error(errors, "missing", field(), field() + " is required (an object)");
        return nullptr;
    }
    if (!it->is_object()) {
        add_error(errors, "type", field(), field() + " must be an object, got " + type_name(*it));
        return nullptr;
    }
    return &*it;
}

}  // namespace gpucalc::jr
