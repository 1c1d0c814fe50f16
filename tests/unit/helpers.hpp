#pragma once
#include <cmath>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"

// The core's own JSON values (gpucalc::jv::Value) to and from nlohmann's, which the tests read and
// compare with: through the text, which keeps every value and its kind (integer or floating).
inline nlohmann::json to_nlohmann(const gpucalc::jv::Value& v) { return nlohmann::json::parse(gpucalc::jw::text(v)); }
inline gpucalc::jv::Value from_nlohmann(const nlohmann::json& j) { return gpucalc::jv::Value::parse(j.dump()); }

// nlohmann keeps a negative zero; the core's reader reads it as 0 (json_value.cpp): what the core's
// parser gives for nlohmann's value.
inline nlohmann::json without_negative_zero(nlohmann::json j) {
    if (j.is_number_float() && j.get<double>() == 0) return 0.0;
    if (j.is_structured())
        for (auto& v : j) v = without_negative_zero(v);
    return j;
}

inline nlohmann::json run(const nlohmann::json& scenario) { return nlohmann::json::parse(gpucalc::estimate_json(scenario.dump())); }

inline bool has_error(const nlohmann::json& r, const std::string& field, const std::string& code = "") {
    if (!r.contains("errors")) return false;
    for (const auto& e : r["errors"])
        if (e["field"] == field && (code.empty() || e["code"] == code)) return true;
    return false;
}

// Every number in a report is finite, and the core's safety net replaced none (it turns NaN/Inf into
// null with an "internal" warning, which would otherwise hide the fault from a finiteness check).
inline void all_finite_walk(const nlohmann::json& j) {
    if (j.is_number())
        CHECK(std::isfinite(j.get<double>()));
    else if (j.is_structured())
        for (const auto& v : j) all_finite_walk(v);
}
inline void all_finite(const nlohmann::json& report) {
    all_finite_walk(report);
    if (report.contains("warnings")) CHECK(report["warnings"].dump().find("non-finite") == std::string::npos);
}

// The value `name` a derivation lists (report["explain"][key]["values"]), which must be there.
inline double derivation_value(const nlohmann::json& d, const std::string& name) {
    INFO(name << " among the values of " << d.dump());
    REQUIRE(d["values"].contains(name));
    return d["values"][name].get<double>();
}
