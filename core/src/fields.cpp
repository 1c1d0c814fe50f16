// Field tables: reading, echoing and documenting one scenario key (see fields.hpp).
#include "gpucalc/fields.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/json_read.hpp"

namespace gpucalc {

using json = jv::Value;

std::string field_path(const std::string& path, std::string_view key) { return jr::join(path, key); }

void report_unknown_key(const std::string& path, const std::string& key, std::string_view meant, Errors& errors) {
    const std::string field = field_path(path, jr::shorten(key));
    add_error(errors, "unknown_field", field,
              field + " is not a known field" + (meant.empty() ? "" : " (did you mean " + field_path(path, meant) + "?)"));
}

int typo_distance(std::string_view typed, std::string_view name) {
    constexpr int kFar = 3;
    const std::size_t n = name.size(), m = typed.size();
    if (n > 64 || (m > n ? m - n : n - m) >= kFar) return kFar;  // a long or far key costs no table
    // Levenshtein distance, one row at a time (names are short: at most 64 + 2 columns).
    int row[67];
    for (std::size_t j = 0; j <= n; ++j) row[j] = static_cast<int>(j);
    for (std::size_t i = 1; i <= m; ++i) {
        int diag = row[0];
        row[0] = static_cast<int>(i);
        for (std::size_t j = 1; j <= n; ++j) {
            const int up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (typed[i - 1] == name[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    const int d = row[n];
    return d < kFar && 3 * d < static_cast<int>(n) ? d : kFar;
}

std::string_view choice_name(const FieldSpec& spec, int value) {
    for (const auto& c : spec.choices)
        if (c.value == value) return c.name;
    return {};
}

std::optional<double> read_field(const json& obj, const std::string& path, const FieldSpec& spec, Errors& errors) {
    switch (spec.kind) {
        case FieldKind::number:
        case FieldKind::integer: {
            const jr::Range r{spec.min, spec.max, spec.min_exclusive, spec.kind == FieldKind::integer};
            return jr::number(obj, spec.name, path, errors, r);
        }
        case FieldKind::boolean: {
            const auto b = jr::boolean(obj, spec.name, path, errors);
            if (!b) return std::nullopt;
            return *b ? 1.0 : 0.0;
        }
        case FieldKind::choice: {
            const auto s = jr::string(obj, spec.name, path, errors, false, 64);
            if (!s) return std::nullopt;
            for (const auto& c : spec.choices)
                if (c.name == *s) return static_cast<double>(c.value);
            std::string list;
            for (const auto& c : spec.choices) list += (list.empty() ? "" : ", ") + std::string(c.name);
            const std::string f = field_path(path, spec.name);
            add_error(errors, "choice", f, f + " must be one of: " + list);
            return std::nullopt;
        }
    }
    return std::nullopt;
}

json field_value_json(const FieldSpec& spec, double v) {
    switch (spec.kind) {
        case FieldKind::boolean:
            return v != 0;
        case FieldKind::choice:
            return std::string(choice_name(spec, static_cast<int>(v)));
        case FieldKind::integer:
            return static_cast<std::int64_t>(v);
        case FieldKind::number:
            break;
    }
    return v;
}

jw::Scalar field_value(const FieldSpec& spec, double v) {
    switch (spec.kind) {
        case FieldKind::boolean:
            return v != 0;
        case FieldKind::choice:
            return choice_name(spec, static_cast<int>(v));
        case FieldKind::integer:
            return static_cast<std::int64_t>(v);
        case FieldKind::number:
            break;
    }
    return v;
}

json field_schema_json(const FieldSpec& spec, const std::optional<double>& default_value) {
    static const char* kinds[] = {"number", "integer", "boolean", "choice"};
    json j;
    j["name"] = spec.name;
    j["type"] = kinds[static_cast<int>(spec.kind)];
    j["unit"] = spec.unit;
    if (spec.kind == FieldKind::number || spec.kind == FieldKind::integer) {
        j["min"] = std::isfinite(spec.min) ? json(spec.min) : json(nullptr);
        j["min_exclusive"] = spec.min_exclusive;
        j["max"] = std::isfinite(spec.max) ? json(spec.max) : json(nullptr);
    }
    if (spec.kind == FieldKind::choice) {
        json names = json::array();
        for (const auto& c : spec.choices) names.push_back(c.name);
        j["choices"] = names;
    }
    j["default"] = default_value && spec.default_doc.empty() ? field_value_json(spec, *default_value) : json(nullptr);
    j["default_doc"] = spec.default_doc;
    j["doc"] = spec.doc;
    return j;
}

}  // namespace gpucalc
