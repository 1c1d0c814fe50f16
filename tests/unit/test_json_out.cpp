// The output JSON writer (json_out.hpp) and the input values' writer (jv::Value::dump) against
// nlohmann::json::dump: the same text for the same values, compact and indented, including escapes
// and invalid UTF-8 (replaced by U+FFFD).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "gpucalc/json_out.hpp"
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
            // nlohmann's text read back by the core's parser: the same values, of the same kinds
            REQUIRE(jw::text(jv::Value::parse(dump(expected, indent))) == dump(expected));
        }
        REQUIRE(jw::text(doc.to_json()) == dump(expected));
        jw::Doc copy;
        copy.root() = value;
        REQUIRE(copy.text() == dump(expected));
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
