// The output JSON writer (json_out.hpp) and the input values' writer (jv::Value::dump) against
// nlohmann::json::dump: the same text for the same values, compact and indented, including escapes
// and invalid UTF-8 (replaced by U+FFFD).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "gpucalc/decimal.hpp"
#include "gpucalc/fastmath.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_read.hpp"
#include "helpers.hpp"

using nlohmann::json;
using namespace gpucalc;

namespace {

std::string dump(const json& j, int indent = -1) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

std::string random_bytes(std::mt19937_64& rng, bool ascii_only) {
    static const unsigned char pieces[][4] = {{'a'},
                                              {'"'},
                                              {'\\'},
                                              {'\n'},
                                              {0x01},
                                              {0x1F},
                                              {0x7F},
                                              {0xC3, 0xA9},
                                              {0xE2, 0x80, 0x94},
                                              {0xF0, 0x9F, 0x98, 0x80},
                                              {0x80},
                                              {0xFF},
                                              {0xC3},
                                              {0xE2, 0x80},
                                              {0xED, 0xA0, 0x80},
                                              {'\t'}};
    std::string s;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
        const auto& p = pieces[rng() % (ascii_only ? 7 : 16)];
        for (int k = 0; k < 4 && (k == 0 || p[k]); ++k) s += static_cast<char>(p[k]);
    }
    return s;
}

double random_double(std::mt19937_64& rng) {
    switch (rng() % 7) {
        case 0:
            return static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000);
        case 1:
            return std::ldexp(static_cast<double>(rng() % (1ull << 53)), static_cast<int>(rng() % 200) - 120);
        case 2:
            return 1.0 / static_cast<double>(1 + rng() % 1000);
        case 3:
            return static_cast<double>(rng() % 100000) * 1e9;
        case 4: {
            static const double edges[] = {-0.0, 0.0, 1e15, 1e15 - 1, -1e15 + 1, 999999999999999.5, 1e16, 9007199254740993.0, 0.5, -1.0};
            return edges[rng() % 10];
        }
        case 5:
            return std::floor(std::ldexp(static_cast<double>(rng() % (1ull << 53)), static_cast<int>(rng() % 60) - 53)) *
                   (rng() % 2 ? 1 : -1);
        default: {
            double d;
            std::uint64_t bits = rng();
            std::memcpy(&d, &bits, sizeof d);
            return std::isfinite(d) ? d : 0.5;
        }
    }
}

// A random value written both ways: into a nlohmann::json and through a jw::Val.
json fill(std::mt19937_64& rng, jw::Val v, int depth) {
    const int kind = static_cast<int>(rng() % (depth > 3 ? 6 : 8));
    switch (kind) {
        case 0:
            v = nullptr;
            return nullptr;
        case 1: {
            const bool b = rng() % 2;
            v = b;
            return b;
        }
        case 2: {
            const auto i = static_cast<std::int64_t>(rng()) >> (rng() % 64);
            v = i;
            return i;
        }
        case 3: {
            const std::uint64_t u = rng() >> (rng() % 64);
            v = u;
            return u;
        }
        case 4: {
            const double d = random_double(rng);
            v = d;
            return d;
        }
        case 5: {
            const std::string s = random_bytes(rng, rng() % 2);
            v = s;
            return s;
        }
        case 6: {
            json j = json::object();
            v.set_object();
            const int n = static_cast<int>(rng() % 6);
            for (int i = 0; i < n; ++i) {
                const std::string k = random_bytes(rng, true);
                j[k] = fill(rng, v[k], depth + 1);  // a repeated key replaces the value, in both
            }
            return j;
        }
        default: {
            json j = json::array();
            v.set_array();
            const int n = static_cast<int>(rng() % 5);
            for (int i = 0; i < n; ++i) j.push_back(fill(rng, v.append(), depth + 1));
            return j;
        }
    }
}

// The same value as a jv::Value, built value by value (not through text).
jv::Value to_value(const json& j) {
    using T = json::value_t;
    switch (j.type()) {
        case T::object: {
            jv::Value v = jv::Value::object();
            for (auto it = j.begin(); it != j.end(); ++it) v[it.key()] = to_value(it.value());
            return v;
        }
        case T::array: {
            jv::Value v = jv::Value::array();
            for (const auto& e : j) v.push_back(to_value(e));
            return v;
        }
        case T::string:
            return jv::Value(j.get<std::string>());
        case T::boolean:
            return j.get<bool>();
        case T::number_integer:
            return j.get<std::int64_t>();
        case T::number_unsigned:
            return j.get<std::uint64_t>();
        case T::number_float:
            return j.get<double>();
        default:
            return nullptr;
    }
}

}  // namespace

TEST_CASE("json writer: the same text as nlohmann::json::dump for random documents") {
    std::mt19937_64 rng(20);
    for (int round = 0; round < 3000; ++round) {
        jw::Doc doc;
        const json expected = fill(rng, doc.root(), 0);
        const jv::Value value = to_value(expected);
        for (const int indent : {-1, 0, 2}) {
            REQUIRE(doc.text(indent) == dump(expected, indent));
            REQUIRE(jw::text(value, indent) == dump(expected, indent));
            // nlohmann's text read back by the core's parser: the same values, of the same kinds (-0 read as 0)
            REQUIRE(jw::text(jv::Value::parse(dump(expected, indent))) == dump(without_negative_zero(expected)));
        }
        REQUIRE(jw::text(doc.to_json()) == dump(expected));
        jw::Doc copy;
        copy.root() = value;
        REQUIRE(copy.text() == dump(expected));
    }
}

// Members are kept in key order as they are added (the writer never sorts): keys that share their
// first eight bytes, differ only past them or by length, contain NUL or bytes above 0x7F, added in
// random order, some twice, and looked up, give nlohmann's text and one member per key.
TEST_CASE("json writer: members added in any order are written once each, in nlohmann's key order") {
    const std::vector<std::string> keys = {"",          "a",         "ab",           "abcdefg",        "abcdefgh", "abcdefgh\x01",
                                           "abcdefghi", "abcdefgha", "abcdefgz",     "abcdefghij",     "b",        std::string("a\0b", 3),
                                           "\xC3\xA9",  "\xFF\xFF",  "memory_total", "memory_weights", "memory_",  "Z"};
    std::mt19937_64 rng(7);
    for (int round = 0; round < 2000; ++round) {
        jw::Doc doc;
        jw::Val r = doc.root();
        r.set_object();
        json expected = json::object();
        const int n = static_cast<int>(rng() % 30);
        for (int i = 0; i < n; ++i) {
            const std::string& k = keys[rng() % keys.size()];
            const int v = static_cast<int>(rng() % 100);
            (i % 3 == 0 ? r.add(k) : r[k]) = v;
            expected[k] = v;
            REQUIRE(r.contains(k));
        }
        for (const auto& k : keys) REQUIRE(r.contains(k) == expected.contains(k));
        REQUIRE(doc.text() == dump(expected, -1));
    }
}

TEST_CASE("json writer: strings with escapes and invalid UTF-8 as nlohmann writes them") {
    std::mt19937_64 rng(2026);
    for (int round = 0; round < 20000; ++round) {
        std::string s;
        const int n = static_cast<int>(rng() % 8);
        for (int i = 0; i < n; ++i) s += static_cast<char>(rng() % 256);
        if (round % 2) s = random_bytes(rng, false);
        REQUIRE(jw::string_text(s) == dump(json(s)));
    }
}

// write_string tests eight bytes at a time for one needing more than a copy: each such byte (and its
// neighbours in value, which need none) at every position of plain strings of every length to 40.
TEST_CASE("json writer: one special byte anywhere in a long plain string is written as nlohmann writes it") {
    const unsigned char bytes[] = {0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF};
    for (std::size_t len = 1; len <= 40; ++len)
        for (std::size_t pos = 0; pos < len; ++pos)
            for (unsigned char b : bytes) {
                std::string s(len, 'a');
                s[pos] = static_cast<char>(b);
                REQUIRE(jw::string_text(s) == dump(json(s)));
                s.insert(pos, "\xC3\xA9");  // a valid two-byte sequence before it
                REQUIRE(jw::string_text(s) == dump(json(s)));
            }
}

TEST_CASE("json writer: numbers, objects of scalars, non-finite values replaced with their paths") {
    jw::Doc doc;
    jw::Val r = doc.root();
    r["b"]["x"] = std::numeric_limits<double>::quiet_NaN();
    r["a"] = {{"n", 1.0}, {"i", 3}, {"u", std::size_t{4}}, {"s", "text"}, {"none", nullptr}, {"opt", std::optional<double>()}};
    r["c"].push_back(std::numeric_limits<double>::infinity());
    r["c"].push_back(2.5);
    const auto found = doc.replace_non_finite();
    REQUIRE(found == std::vector<std::string>{"b.x", "c[0]"});
    CHECK(doc.text() == R"({"a":{"i":3,"n":1.0,"none":null,"opt":null,"s":"text","u":4},"b":{"x":null},"c":[null,2.5]})");
    r["a"] = {{"only", false}};
    CHECK(doc.text_of(r["a"].index()) == R"({"only":false})");
}

// decimal::format_general is printf's %.<p>g written out (the module carries no printf): the C library's
// snprintf (glibc here, exact and round-half-even like musl) is the reference.
TEST_CASE("number text: format_general writes what snprintf's %.<p>g writes, for every precision and kind of double") {
    auto reference = [](double v, int p) {
        char b[512];
        std::snprintf(b, sizeof b, "%.*g", p, v);
        return std::string(b);
    };
    const double fixed[] = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            0.5,
                            1.5,
                            2.5,
                            0.125,
                            0.375,
                            9.5,
                            99.5,
                            999999.5,
                            9999995.0,
                            1234565.0,
                            0.000123456789,
                            0.0001,
                            0.00001,
                            123456.0,
                            1234567.0,
                            1e21,
                            1e-300,
                            4.9406564584124654e-324,
                            2.2250738585072014e-308,
                            1.7976931348623157e308,
                            0.1,
                            0.2,
                            0.3,
                            1.0 / 3,
                            2.0 / 3,
                            100.0,
                            1e6,
                            999999.0,
                            9.999995e-5,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
    for (double v : fixed)
        for (int p = -1; p <= 17; ++p) {
            INFO(v << " at precision " << p);
            REQUIRE(decimal::format_general(v, p) == reference(v, p));
        }
    std::mt19937_64 rng(20261130);
    for (int i = 0; i < 200000; ++i) {
        double v;
        if (i % 3 == 0) {  // any bit pattern (NaN excluded: its sign and payload text are not specified)
            const std::uint64_t bits = rng();
            std::memcpy(&v, &bits, sizeof v);
            if (std::isnan(v)) continue;
        } else if (i % 3 == 1) {  // decimal-looking values near the rounding ties of %.3g and %.6g
            v = std::ldexp(static_cast<double>(rng() % 2000001), static_cast<int>(rng() % 41) - 20) / 1000.0 * (rng() % 2 ? 1 : -1);
        } else {  // short decimals (the figures in messages): k x 10^e
            v = static_cast<double>(rng() % 100000000) * std::pow(10.0, static_cast<int>(rng() % 30) - 18);
        }
        for (int p : {3, 6}) {
            INFO(v << " at precision " << p);
            REQUIRE(decimal::format_general(v, p) == reference(v, p));
        }
    }
    CHECK(jr::fmt_num(1234567.0) == "1.23457e+06");
    CHECK(jr::fmt_num(0.125) == "0.125");
    CHECK(decimal::format_general(0.125, 2) == "0.12");  // a tie on the exact value: to even
    CHECK(decimal::format_general(0.375, 2) == "0.38");
}

// decimal::parse replaces strtod in the JSON reader: glibc's strtod (exact, ties to even) is the
// reference, on random tokens and on the hard cases: the exact midpoints between neighbouring
// doubles (ties), a digit either side of them, long mantissas, subnormals and the overflow edge.
TEST_CASE("number text: decimal::parse reads every JSON number token as strtod does") {
    auto same = [](const std::string& t) {
        const double want = std::strtod(t.c_str(), nullptr), got = decimal::parse(t);
        INFO(t);
        REQUIRE(std::memcmp(&want, &got, sizeof want) == 0);  // the same bits (sign of zero included)
    };
    for (const char* t : {"0",
                          "-0",
                          "0.0",
                          "-0.0",
                          "1",
                          "-1",
                          "0.1",
                          "1e22",
                          "1e23",
                          "9007199254740993",
                          "9007199254740992.5",
                          "2.2250738585072011e-308",
                          "2.2250738585072012e-308",
                          "4.9406564584124654e-324",
                          "2.4703282292062327e-324",
                          "2.4703282292062328e-324",
                          "1e-400",
                          "1.7976931348623157e308",
                          "1.7976931348623158e308",
                          "1.7976931348623159e308",
                          "1e309",
                          "123456789012345678901234567890e-10",
                          "0.000000000000000000001e5",
                          "1E+2",
                          "1e-0",
                          "1e000000000000000000000000000001",
                          "1e-99999999999999999999",
                          "1e99999999999999999999"})
        same(t);
    // Mantissas of a million places offset exponents of a million (red-team: the exponent was capped at 10^5).
    same("1" + std::string(999677, '0') + "e-1000000");
    same("0." + std::string(999999, '0') + "1e1000000");
    same("1" + std::string(999999, '0') + "e-1000000");
    same("0." + std::string(999999, '0') + "8e1000000");
    std::mt19937_64 rng(1130);
    auto digits = [&](std::size_t n) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % 10);
        return s;
    };
    for (int i = 0; i < 100000; ++i) {  // random tokens: 1 to 40 digits, a point somewhere, an exponent
        std::string m = std::to_string(1 + rng() % 9) + digits(rng() % 40);
        if (m.size() > 1 && rng() % 2) m.insert(1 + rng() % (m.size() - 1), ".");
        if (rng() % 4 == 0 && m.find('.') == std::string::npos) m = "0." + std::string(rng() % 30, '0') + m;  // 0.000ddd
        std::string t = (rng() % 2 ? "-" : "") + m;
        if (rng() % 2) t += "e" + std::to_string(static_cast<int>(rng() % 700) - 350);
        same(t);
    }
    for (int i = 0; i < 20000; ++i) {  // the midpoint above a random double, written out exactly (and its neighbours)
        std::uint64_t bits = rng() & 0x7FEFFFFFFFFFFFFFull;
        double x;
        std::memcpy(&x, &bits, sizeof x);
        if (x == 0) continue;
        const double next = std::nextafter(x, HUGE_VAL);
        if (std::isinf(next)) continue;
        char buf[1200];  // the midpoint needs 54 bits: exact in x86's 64-bit long double mantissa
        std::snprintf(buf, sizeof buf, "%.800Le", static_cast<long double>(x) / 2 + static_cast<long double>(next) / 2);
        std::string mid = buf;
        same(mid);
        const std::size_t e = mid.find('e');
        std::string last = mid.substr(0, e);
        while (last.size() > 3 && last.back() == '0') last.pop_back();
        same(last + mid.substr(e));
        std::string up = last;
        up += '1';
        same(up + mid.substr(e));
        same(mid.substr(0, e) + std::string(rng() % 300, '0') + "1" + mid.substr(e));  // past 800 digits: only "above" counts
    }
}

TEST_CASE("ceil_log2 gives std::ceil(std::log2(n)) for every integer to 2^20, near every power of two and at random") {
    const auto same = [](double n) { return gpucalc::ceil_log2(n) == std::ceil(std::log2(n)); };
    for (int i = 1; i <= (1 << 20); ++i) REQUIRE(same(i));
    for (int e = -4; e <= 40; ++e) {
        const double p = std::ldexp(1.0, e);
        double up = p, down = p;
        for (int k = 0; k < 5000; ++k) {  // the first ulps on either side, where log2 may round to the exponent
            up = std::nextafter(up, 1e300), down = std::nextafter(down, 0.0);
            REQUIRE(same(up));
            REQUIRE(same(down));
        }
        for (double f : {1e-15, 1e-13, 2.3e-12, 1e-9, 1e-6, 0.25, 0.5, 0.999999}) REQUIRE(same(p * (1 + f)));
    }
    std::uint64_t x = 88172645463325252ULL;  // xorshift64
    for (int i = 0; i < 2000000; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const double n = std::ldexp(static_cast<double>(x >> 11), -53) * 8.6e9 + 0.5;  // [0.5, 8.6e9)
        REQUIRE(same(n));
    }
    for (double n : {0.0, 1e300, std::numeric_limits<double>::infinity()}) CHECK(same(n));
    CHECK(std::isnan(gpucalc::ceil_log2(-1.0)));
    CHECK(std::isnan(gpucalc::ceil_log2(std::nan(""))));
}
