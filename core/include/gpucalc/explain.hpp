// "Show the work": each reported figure can carry its derivation — the formula, the values put in,
// the result with its unit, and the source of the formula or constant.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/json_out.hpp"

// A function in a file the wasm module builds for speed (-O3, wasm/CMakeLists.txt) that is off the
// hot path (a derivation writer, run only when derivations are asked for; the calibration reader,
// run once; what to change when a run does not fit): kept out of line and built for size.
#if defined(__EMSCRIPTEN__)
#define GPUCALC_COLD [[gnu::cold, gnu::noinline, clang::minsize]]
#else
#define GPUCALC_COLD
#endif

namespace gpucalc {

struct Derivation {
    std::string key;                                     // report key it explains, e.g. "training.flops"
    std::string formula;                                 // e.g. "6 x N x D"
    std::vector<std::pair<std::string, double>> values;  // inputs as put in, SI units
    double result = 0;
    std::string unit;    // "FLOP", "s", "bytes", ...
    std::string source;  // paper + equation/table, or datasheet
};

class Trace {
public:
    explicit Trace(bool enabled) : enabled_(enabled) {
        if (enabled_) items_.reserve(64);
    }
    bool enabled() const { return enabled_; }
    // Views and an initializer list: a disabled trace (the default of the page and of the plan
    // search) copies nothing; the strings are made only when the derivation is kept.
    void add(std::string_view key, std::string_view formula, std::initializer_list<std::pair<std::string_view, double>> values,
             double result, std::string_view unit, std::string_view source) {
        if (!enabled_) return;
        Derivation d{std::string(key), std::string(formula), {}, result, std::string(unit), std::string(source)};
        d.values.reserve(values.size());
        for (const auto& [k, v] : values) d.values.emplace_back(std::string(k), v);
        items_.push_back(std::move(d));
    }
    // The same with values known only at run time (one per pool of a fleet).
    void add_list(std::string_view key, std::string_view formula, std::vector<std::pair<std::string, double>> values, double result,
                  std::string_view unit, std::string_view source) {
        if (!enabled_) return;
        items_.push_back(
            Derivation{std::string(key), std::string(formula), std::move(values), result, std::string(unit), std::string(source)});
    }
    const std::vector<Derivation>& items() const { return items_; }
    // {key: {formula, values, result, unit, source}}; a later derivation of a key replaces an earlier one.
    void write(jw::Val j) const {
        write(j, [](const std::string&) { return true; });
    }
    // The same, of the keys `keep` accepts.
    template <class Keep>
    void write(jw::Val j, const Keep& keep) const {
        j.set_object();
        for (const auto& d : items_) {
            if (!keep(d.key)) continue;
            jw::Val e = j[d.key];
            e.set_object();
            jw::Val v = e["values"];
            v.set_object();
            for (const auto& [k, x] : d.values) v[k] = x;
            e["formula"] = d.formula;
            e["result"] = d.result;
            e["unit"] = d.unit;
            e["source"] = d.source;
        }
    }

private:
    bool enabled_;
    std::vector<Derivation> items_;
};

}  // namespace gpucalc
