#include "gpucalc/json_read.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/decimal.hpp"

namespace gpucalc::jr {

std::string to_text(const json& j, int indent) { return jw::text(j, indent); }

std::string fmt_num(double v) { return decimal::format_general(v, 6); }

std::string shorten(const std::string& s, std::size_t max) {
    if (s.size() <= max) return s;
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
    return s.substr(0, n) + "...";
}

static std::string type_name(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

std::optional<double> number(const json& obj, std::string_view key, const std::string& path, Errors& errors, Range r, bool required) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        if (required) add_error(errors, "missing", field(), field() + " is required (a number)");
        return std::nullopt;
    }
    if (!it->is_number()) {
        add_error(errors, "type", field(), field() + " must be a number, got " + type_name(*it));
        return std::nullopt;
    }
    const double v = it->get<double>();
    if (!std::isfinite(v)) {
        add_error(errors, "range", field(), field() + " must be a finite number");
        return std::nullopt;
    }
    if (r.integer && std::floor(v) != v) {
        add_error(errors, "range", field(), field() + " must be a whole number, got " + fmt_num(v));
        return std::nullopt;
    }
    const bool below = r.min_exclusive ? !(v > r.min) : v < r.min;
    if (below || v > r.max) {
        std::string rule;
        if (r.min_exclusive && r.min == 0)
            rule = "must be greater than 0";
        else if (r.min == 0 && !r.min_exclusive)
            rule = std::isfinite(r.max) ? "must be between 0 and" : "must not be negative";
        else
            rule = "must be " + std::string(r.min_exclusive ? "> " : ">= ") + fmt_num(r.min);
        // "must be between 0 and 1e+06", not "must not be negative and at most 1e+06" (page review, 2026-12-05).
        if (std::isfinite(r.max)) rule += (r.min == 0 && !r.min_exclusive ? " " : " and at most ") + fmt_num(r.max);
        add_error(errors, "range", field(), field() + " " + rule + ", got " + fmt_num(v));
        return std::nullopt;
    }
    return v;
}

std::optional<std::string> string(const json& obj, std::string_view key, const std::string& path, Errors& errors, bool required,
                                  std::size_t max_len) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        if (required) add_error(errors, "missing", field(), field() + " is required (a string)");
        return std::nullopt;
    }
    if (!it->is_string()) {
        add_error(errors, "type", field(), field() + " must be a string, got " + type_name(*it));
        return std::nullopt;
    }
    std::string s = it->get<std::string>();
    // Characters, as the schema says: code points of the (validated) UTF-8, each one byte that is not a
    // continuation byte (10xxxxxx); 150 x "é" is 150 characters, not 300.
    const auto characters = static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u; }));
    if (characters > max_len) {
        add_error(errors, "range", field(),
                  field() + " is too long (" + std::to_string(characters) + " characters, at most " + std::to_string(max_len) + ")");
        return std::nullopt;
    }
    return s;
}

std::optional<bool> boolean(const json& obj, std::string_view key, const std::string& path, Errors& errors) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
        add_error(errors, "type", field(), field() + " must be true or false, got " + type_name(*it));
        return std::nullopt;
    }
    return it->get<bool>();
}

std::optional<std::string> choice(const json& obj, std::string_view key, const std::string& path, Errors& errors,
                                  std::initializer_list<std::string_view> allowed, bool required) {
    auto s = string(obj, key, path, errors, required, 64);
    if (!s) return std::nullopt;
    for (auto a : allowed)
        if (a == *s) return s;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    const std::string field = join(path, key);
    add_error(errors, "choice", field, field + " must be one of: " + list);
    return std::nullopt;
}

namespace {
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

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
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (lower(typed[i - 1]) == lower(name[j - 1]) ? 0 : 1)});
            diag = up;
        }
    }
    const int d = row[n];
    return d < kFar && 2 * d < static_cast<int>(n) ? d : kFar;
}

std::string unknown_field_message(const std::string& path, std::string_view key, std::string_view meant) {
    const std::string field = join(path, shorten(std::string(key)));
    return field + " is not a known field" + (meant.empty() ? "" : " (did you mean " + join(path, meant) + "?)");
}

void check_keys(const json& obj, const std::string& path, Errors& errors, std::initializer_list<std::string_view> known) {
    if (!obj.is_object()) return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (auto k : known) ok = ok || k == it.key();
        if (ok) continue;
        NearestName near{it.key()};  // what a typo most likely meant, looked for only for an unknown key
        for (auto k : known) near.consider(k);
        add_error(errors, "unknown_field", join(path, shorten(it.key())), unknown_field_message(path, it.key(), near.meant));
    }
}

const json* object(const json& obj, std::string_view key, const std::string& path, Errors& errors, bool required) {
    const auto field = [&] { return join(path, key); };  // made only for an error
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
        if (required) add_error(errors, "missing", field(), field() + " is required (an object)");
        return nullptr;
    }
    if (!it->is_object()) {
        add_error(errors, "type", field(), field() + " must be an object, got " + type_name(*it));
        return nullptr;
    }
    return &*it;
}

}  // namespace gpucalc::jr
