#pragma once
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"

inline nlohmann::json run(const nlohmann::json& scenario) {
    return nlohmann::json::parse(gpucalc::estimate_json(scenario.dump()));
}

inline bool has_error(const nlohmann::json& r, const std::string& field, const std::string& code = "") {
    if (!r.contains("errors")) return false;
    for (const auto& e : r["errors"])
        if (e["field"] == field && (code.empty() || e["code"] == code)) return true;
    return false;
}
