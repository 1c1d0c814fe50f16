// Field tables: reading, echoing and documenting one scenario key (see fields.hpp).
#include "gpucalc/fields.hpp"

#include <cmath>

#include "gpucalc/json_read.hpp"

namespace gpucalc {

using json = jv::Value;

std::string field_path(const std::string& path, std::string_view key) { return jr::join(path, key); }

void report_unknown_key(const std::string& path, const std::string& key, std::string_view meant, Errors& errors) {
    add_error(errors, "unknown_field", field_path(path, jr::shorten(key)), jr::unknown_field_message(path, key, meant));
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
