// Fuzz target: any byte string given to estimate_json and plan_json must return JSON (report or
// errors) without crashing, hanging or producing NaN/Inf; and the core's JSON reader (jv::Value)
// must accept and refuse it as nlohmann/json does, with the same values (a NUL byte, which nlohmann
// read as the end of the text, is refused anywhere).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/plan.hpp"

static void check_finite(const nlohmann::json& j) {
    if (j.is_number_float() && !std::isfinite(j.get<double>())) std::abort();
    if (j.is_structured())
        for (const auto& v : j) check_finite(v);
}

// The core's reader reads a negative zero as 0 (core/src/json_value.cpp, number(); unit test "a
// negative zero is read as zero"), where nlohmann keeps -0.0: the one value where they differ.
static void zero_unsigned(nlohmann::json& j) {
    if (j.is_number_float() && j.get<double>() == 0) j = 0.0;
    if (j.is_structured())
        for (auto& v : j) zero_unsigned(v);
}

// Within the entry points' nesting limit (deeper texts never reach the parser).
static void same_as_nlohmann(const std::string& text) {
    if (gpucalc::json_nesting_depth(text) > gpucalc::kMaxNestingDepth) return;
    const auto ours = gpucalc::jv::Value::parse(text);
    auto theirs = nlohmann::json::parse(text, nullptr, false);
    // A NUL byte is refused anywhere (nlohmann stopped reading at one after the value).
    const bool nul = text.find('\0') != std::string::npos;
    if (ours.is_discarded() != (nul || theirs.is_discarded())) std::abort();
    if (nul) return;
    zero_unsigned(theirs);
    if (!theirs.is_discarded() && gpucalc::jw::text(ours) != theirs.dump()) std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    same_as_nlohmann(text);
    const std::string out = gpucalc::estimate_json(text);
    const auto j = nlohmann::json::parse(out, nullptr, false);
    if (j.is_discarded() || !j.is_object()) std::abort();
    check_finite(j);
    // The plan search entry point takes the same scenarios.
    const auto p = nlohmann::json::parse(gpucalc::plan_json(text), nullptr, false);
    if (p.is_discarded() || !p.is_object()) std::abort();
    check_finite(p);
    return 0;
}
