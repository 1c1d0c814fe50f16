// "Show the work": each reported figure can carry its derivation — the formula, the values put in,
// the result with its unit, and the source of the formula or constant.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpucalc {

struct Derivation {
    std::string key;       // report key it explains, e.g. "training.flops"
    std::string formula;   // e.g. "6 x N x D"
    std::vector<std::pair<std::string, double>> values;  // inputs as put in, SI units
    double result = 0;
    std::string unit;      // "FLOP", "s", "bytes", ...
    std::string source;    // paper + equation/table, or datasheet
};

class Trace {
public:
    explicit Trace(bool enabled) : enabled_(enabled) {
        if (enabled_) items_.reserve(64);
    }
    bool enabled() const { return enabled_; }
    void add(std::string key, std::string formula, std::vector<std::pair<std::string, double>> values, double result,
             std::string unit, std::string source) {
        if (!enabled_) return;
        items_.push_back(Derivation{std::move(key), std::move(formula), std::move(values), result, std::move(unit),
                                    std::move(source)});
    }
    const std::vector<Derivation>& items() const { return items_; }
    nlohmann::json to_json() const {
        nlohmann::json j = nlohmann::json::object();
        for (const auto& d : items_) {
            nlohmann::json v = nlohmann::json::object();
            for (const auto& [k, x] : d.values) v[k] = x;
            j[d.key] = {{"formula", d.formula}, {"values", v}, {"result", d.result}, {"unit", d.unit}, {"source", d.source}};
        }
        return j;
    }

private:
    bool enabled_;
    std::vector<Derivation> items_;
};

}  // namespace gpucalc
