// The core's JSON reader (json_value.hpp) against nlohmann/json's parser, which it replaces: the same
// texts accepted and refused, the same values of the same kinds (negative and unsigned integers,
// floating numbers), keys sorted with the last of duplicates winning; and the value API the core uses.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpucalc/api.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/order.hpp"
#include "helpers.hpp"

using gpucalc::jv::Value;
using gpucalc::jw::text;
using nlohmann::json;

namespace {

// The kind of every value, in order (the text alone would not tell 1 from 1u).
void kinds(const json& j, std::string& out) {
    out += std::to_string(static_cast<int>(j.type()));
    if (j.is_structured())
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (j.is_object()) out += it.key();
            kinds(it.value(), out);
        }
}

void kinds(const Value& v, std::string& out) {
    using T = Value::Type;
    // nlohmann's value_t order: null, object, array, string, boolean, integer, unsigned, float
    static const int code[] = {0, 4, 5, 6, 7, 3, 2, 1, 9};
    out += std::to_string(code[static_cast<int>(v.type())]);
    if (v.type() == T::array || v.type() == T::object)
        for (auto it = v.begin(); it != v.end(); ++it) {
            if (v.is_object()) out += it.key();
            kinds(it.value(), out);
        }
}

// Both parsers on `input`: both refuse it, or both accept it with the same values and kinds.
// The same verdict and value as nlohmann, except that a text holding a NUL byte is always refused
// (nlohmann read a NUL after the value as the end of the text and accepted "{...}<NUL>anything").
void same_as_nlohmann(const std::string& input) {
    INFO(input);
    const bool nul = input.find('\0') != std::string::npos;
    const json expected = json::parse(input, nullptr, false);
    gpucalc::jv::ParseError error;
    const Value got = Value::parse(input, &error);
    REQUIRE(got.is_discarded() == (nul || expected.is_discarded()));
    if (nul) {
        CHECK_FALSE(error.message.empty());
        return;
    }
    if (expected.is_discarded()) {
        CHECK_FALSE(error.message.empty());
        return;
    }
    REQUIRE(text(got) == without_negative_zero(expected).dump());  // -0 is read as 0 (json_value.cpp)
    std::string a, b;
    kinds(expected, a);
    kinds(got, b);
    REQUIRE(a == b);
}

}  // namespace

TEST_CASE("json reader: accepts and refuses what nlohmann does, with the same values") {
    const char* cases[] = {
        // literals, numbers and their kinds
        "null",
        "true",
        "false",
        "tru",
        "nul",
        "True",
        "0",
        "-0",
        "1",
        "-1",
        "01",
        "-01",
        "1.",
        ".5",
        "+1",
        "-",
        "1.5",
        "1e5",
        "1E+5",
        "1e-5",
        "1.0",
        "-1.0",
        "1e",
        "1e+",
        "0x10",
        "1_000",
        "18446744073709551615",
        "18446744073709551616",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1e308",
        "1e309",
        "-1e400",
        "1e-400",
        "4.9e-324",
        "2.2250738585072014e-308",
        "0.1",
        "100000000000000000000.0",
        "NaN",
        "Infinity",
        "-Infinity",
        // strings: escapes, surrogates, UTF-8 byte ranges, control characters
        "\"\"",
        "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
        "\"\\u0041\\u00e9\\u20AC\"",
        "\"\\u0000\"",
        "\"\\ud83d\\ude00\"",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ud83d\\u0041\"",
        "\"\\ud83dx\"",
        "\"\\u12\"",
        "\"\\u12G4\"",
        "\"\\x\"",
        "\"\\'\"",
        "\"a",
        "\"\t\"",
        "\"\x01\"",
        "\"\x7f\"",
        "\"\xc3\xa9\"",
        "\"\xc0\xaf\"",
        "\"\xc1\xbf\"",
        "\"\xc2\x80\"",
        "\"\xe0\x80\x80\"",
        "\"\xe0\xa0\x80\"",
        "\"\xed\x9f\xbf\"",
        "\"\xed\xa0\x80\"",
        "\"\xef\xbf\xbf\"",
        "\"\xf0\x8f\xbf\xbf\"",
        "\"\xf0\x90\x80\x80\"",
        "\"\xf4\x8f\xbf\xbf\"",
        "\"\xf4\x90\x80\x80\"",
        "\"\xf5\x80\x80\x80\"",
        "\"\xff\"",
        "\"\x80\"",
        "\"\xc3\"",
        "\"\xe2\x82\"",
        "\"\xe2\x82\xac\"",
        // structure, whitespace, byte-order mark, trailing text
        "[]",
        "{}",
        "[1,2,3]",
        "[1,]",
        "[,1]",
        "[1 2]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{\"a\":}",
        "{1:2}",
        "{\"a\":1 \"b\":2}",
        " \t\r\n[ 1 , 2 ]\n",
        "[1]x",
        "[1] [2]",
        "",
        "   ",
        "\xef\xbb\xbf{}",
        "\xef\xbb\xbf",
        "\xef\xbb{}",
        "{} \xef\xbb\xbf",
        "/* c */ {}",
        "{} // c",
        "[1]\x00",
        "{\"b\":1,\"a\":2,\"c\":{\"z\":[],\"y\":{}}}",
        "{\"a\":1,\"a\":2}",
        "{\"a\":{\"x\":1},\"b\":0,\"a\":[3]}",
        "{\"\":0,\"\\u0000\":1}",
        "{\"\xc3\xa9\":1,\"e\":2,\"E\":3,\"~\":4}",
        "[[[[[[[[[[]]]]]]]]]]",
        "{\"a\":[{\"b\":[null,true,{\"c\":-2.5e-3}]}]}",
    };
    for (const char* c : cases) same_as_nlohmann(c);
    // A NUL byte is refused anywhere, after the value too (where nlohmann stopped reading).
    for (const std::string& c : {std::string("[1,\0]", 5), std::string("\"a\0b\"", 5), std::string("[1]\0x", 5), std::string("{} \0 {", 6),
                                 std::string("1\0", 2), std::string("\0", 1), std::string(" \0", 2), std::string("tru\0", 4),
                                 std::string("1.\0", 3), std::string("\xef\xbb\xbf\0", 4), std::string("[1]\0\xff", 5)})
        same_as_nlohmann(c);
}

TEST_CASE("json reader: random edits of scenarios are accepted and refused as nlohmann does") {
    std::vector<std::string> seeds = {
        R"({"model":{"preset":"llama3-70b","seq_len":8192},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":1024},)"
        R"("training":{"tokens":1.5e13,"tp":8,"pp":4,"global_batch":1024,"recompute":"selective"},"explain":false})",
        R"({"claim":{"checks":[{"metric":"training.days","min":-1,"max":1e2}],"vary":[{"path":"hardware.count","values":[8,16]}]},)"
        R"("a":"\u00e9\ud83d\ude00","b":[0.5,-0,18446744073709551615,-9223372036854775808,1E-7,true,null]})",
    };
    static const char alphabet[] = "{}[]:,\"\\ -+.eE0123456789uatrfnlsx\t\n";
    std::mt19937_64 rng(8259);
    for (int round = 0; round < 30000; ++round) {
        std::string t = seeds[rng() % seeds.size()];
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits && !t.empty(); ++e) {
            const std::size_t at = rng() % t.size();
            const char c = rng() % 8 ? alphabet[rng() % (sizeof alphabet - 1)] : static_cast<char>(rng() % 256);
            switch (rng() % 3) {
                case 0:
                    t[at] = c;
                    break;
                case 1:
                    t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), c);
                    break;
                default:
                    t.erase(at, 1 + rng() % 4);
                    break;
            }
        }
        same_as_nlohmann(t);
    }
}

TEST_CASE("json reader: the fault's position and what was expected") {
    gpucalc::jv::ParseError e;
    CHECK(Value::parse("{\n  \"a\": 1,\n}", &e).is_discarded());
    CHECK(e.line == 3);
    CHECK(e.column == 1);
    CHECK(e.offset == 12);
    CHECK(e.message == "syntax error at line 3, column 1: expected a member name (a string)");
    CHECK(Value::parse("[1e999]", &e).is_discarded());
    CHECK(e.message == "syntax error at line 1, column 2: number overflow");
    CHECK(Value::parse("\"\\ud800\"", &e).is_discarded());
    CHECK(e.message.find("surrogate") != std::string::npos);
}

TEST_CASE("json reader: nesting deeper than the limit is refused without recursing further") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    gpucalc::jv::ParseError e;
    CHECK(Value::parse(deep, &e).is_discarded());
    CHECK(e.message.find("nested too deeply") != std::string::npos);
    CHECK(Value::parse(std::string(64, '[') + std::string(64, ']'), nullptr, 64).is_array());
    CHECK(Value::parse(std::string(65, '{') + std::string(65, '}'), nullptr, 64).is_discarded());
}

TEST_CASE("json values: the operations the core uses") {
    Value o = {{"b", 1}, {"a", "x"}, {"c", {1, 2.5, nullptr}}};
    REQUIRE(o.is_object());
    CHECK(text(o) == R"({"a":"x","b":1,"c":[1,2.5,null]})");
    CHECK(text(Value{{"k", 1}, {"k", 2}}) == R"({"k":1})");  // as nlohmann's initializer lists: the first stays
    CHECK(Value({1, 2}).is_array());
    CHECK(text(Value::array({Value{"a", 1}})) == R"([["a",1]])");
    CHECK(o["c"][1].get<double>() == 2.5);
    CHECK(o["c"][1].is_number_float());
    CHECK(o["b"].is_number_integer());
    CHECK(Value(std::uint64_t{3}).is_number_unsigned());
    CHECK(Value(-3).type() == Value::Type::integer);
    CHECK(o.contains("a"));
    CHECK_FALSE(o.contains("z"));
    const Value& co = o;
    CHECK(co["missing"].is_null());  // const access adds nothing
    CHECK_FALSE(o.contains("missing"));
    o["d"]["e"] = true;  // made on first use
    CHECK(text(o) == R"({"a":"x","b":1,"c":[1,2.5,null],"d":{"e":true}})");
    CHECK(o.value("b", 0.0) == 1.0);
    CHECK(o.value("a", 0.0) == 0.0);
    CHECK(o.value("a", std::string("-")) == "x");
    CHECK(o.value("z", std::string("-")) == "-");
    CHECK(o.value("d", false) == false);
    CHECK(o.value("c", Value::array()).size() == 3);
    CHECK(o.erase("b") == 1);
    CHECK(o.erase("b") == 0);
    auto it = o.find("a");
    REQUIRE(it != o.end());
    CHECK(it.key() == "a");
    o.erase(it);
    std::string keys;
    for (auto i = o.begin(); i != o.end(); ++i) keys += i.key();
    CHECK(keys == "cd");
    Value arr;
    arr.push_back(1);
    arr.push_back({{"x", 1}});
    CHECK(text(arr) == R"([1,{"x":1}])");
    CHECK(Value().size() == 0);
    CHECK(Value(5).size() == 1);  // a scalar iterates as itself, as nlohmann
    CHECK(Value(1) == Value(1.0));
    CHECK(Value(std::uint64_t{1}) == Value(1));
    CHECK(Value(-1) != Value(std::uint64_t{18446744073709551615ull}));
    CHECK(Value::parse(R"({"a":[1,{"b":2}]})") == Value{{"a", {1, {{"b", 2}}}}});
    CHECK(Value::discarded() != Value::discarded());
    CHECK(text(Value(std::vector<std::string>{"p", "q"})) == R"(["p","q"])");
    CHECK(text(Value::parse("{\"a\":1}"), 2) == "{\n  \"a\": 1\n}");
    // a copied value is independent
    Value copy = arr;
    copy[0] = "changed";
    CHECK(arr[0] == Value(1));
}

TEST_CASE("a scenario that is not JSON is refused with where and why: line, column and what was expected") {
    const auto first_error = [](const std::string& text) { return nlohmann::json::parse(gpucalc::estimate_json(text))["errors"][0]; };
    const auto trailing = first_error("{\"a\": 1,}");
    CHECK(trailing["code"] == "malformed_json");
    CHECK(trailing["message"] == "the scenario is not valid JSON: syntax error at line 1, column 9: expected a member name (a string)");
    const auto overflow = first_error("{\n  \"model\": {\"params\": 1e309}\n}");
    CHECK(overflow["message"].get<std::string>().find("line 2, column ") != std::string::npos);
    // A NUL byte after a valid scenario is refused (nlohmann stopped reading there and answered for the part before it).
    const auto nul = first_error(std::string("{\"hardware\": {\"device\": \"nvidia-h100-sxm5-80gb\", \"count\": 8}}\0junk", 65));
    CHECK(nul["code"] == "malformed_json");
    CHECK(nul["message"].get<std::string>().find("expected the end of the text") != std::string::npos);
}

// order.hpp: the core's one stable sort (the parser's member order, the serving ranking, the plan
// list) gives what std::stable_sort gives, equal items in their given order.
TEST_CASE("stable_order sorts as std::stable_sort does, equal items keeping their order") {
    std::mt19937_64 rng(7);
    for (std::size_t n : {0, 1, 2, 3, 17, 1000}) {
        std::vector<std::pair<int, std::size_t>> items(n);  // (key with many ties, position)
        for (std::size_t i = 0; i < n; ++i) items[i] = {static_cast<int>(rng() % 7), i};
        auto want = items;
        std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        gpucalc::stable_sort_items(items, [](const void* v, std::uint32_t a, std::uint32_t b) {
            const auto& x = *static_cast<const std::vector<std::pair<int, std::size_t>>*>(v);
            return x[a].first < x[b].first;
        });
        CHECK(items == want);
    }
}
