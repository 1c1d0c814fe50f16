// Checked readers for JSON fields. Each records an Error naming the field path and the rule instead
// of throwing; input values (json_value.hpp) are only touched through type-checked accessors.
#pragma once
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/errors.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"

namespace gpucalc::jr {

using json = jv::Value;

inline std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

struct Range {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool min_exclusive = false;  // true: value must be > min
    bool integer = false;
};

inline Range positive(double max = 1e30) { return Range{0, max, true, false}; }
inline Range non_negative(double max = 1e30) { return Range{0, max, false, false}; }
inline Range positive_int(double max = 1e15) { return Range{1, max, false, true}; }
inline Range non_negative_int(double max = 1e15) { return Range{0, max, false, true}; }
inline Range between(double lo, double hi) { return Range{lo, hi, false, false}; }

std::string fmt_num(double v);  // printf's "%.6g" (decimal::format_general)

// Choices in a message: "a", "a or b", "a, b or c".
inline std::string or_list(const std::vector<std::string>& items) {
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
    return s;
}

// At most `max` bytes of `s`, cut at a UTF-8 character boundary, with "..." when shortened (user
// strings quoted in error messages must stay valid UTF-8).
std::string shorten(const std::string& s, std::size_t max = 60);

// Serialises JSON; invalid UTF-8 in user strings becomes U+FFFD instead of an exception. The text is
// what nlohmann's j.dump(indent, ' ', false, error_handler_t::replace) wrote, by the writer of json_out.hpp.
std::string to_text(const json& j, int indent = -1);

// Reads obj[key] as a number in range. Missing: returns nullopt (error "missing" if required).
std::optional<double> number(const json& obj, std::string_view key, const std::string& path, Errors& errors, Range r,
                             bool required = false);
std::optional<std::string> string(const json& obj, std::string_view key, const std::string& path, Errors& errors, bool required = false,
                                  std::size_t max_len = 200);
std::optional<bool> boolean(const json& obj, std::string_view key, const std::string& path, Errors& errors);
// A string that must be one of `allowed`.
std::optional<std::string> choice(const json& obj, std::string_view key, const std::string& path, Errors& errors,
                                  std::initializer_list<std::string_view> allowed, bool required = false);
// Reports keys of obj not in `known` as "unknown_field" (typos must not be silently ignored).
void check_keys(const json& obj, const std::string& path, Errors& errors, std::initializer_list<std::string_view> known);
// Edits (insert, delete, replace one character; case ignored) from a mistyped key to a known name,
// when it is a likely typo (at most 2 edits, and fewer than half the name's characters); 3 otherwise.
int typo_distance(std::string_view typed, std::string_view name);
// The known name a mistyped key most likely meant, the names offered one by one (empty: none near).
struct NearestName {
    explicit NearestName(std::string_view key) : typed(key) {}
    std::string_view typed, meant;
    int best = 3;
    void consider(std::string_view name) {
        const int d = typo_distance(typed, name);
        if (d < best) best = d, meant = name;
    }
};
// "path.key is not a known field", with "(did you mean path.meant?)" when meant is not empty.
std::string unknown_field_message(const std::string& path, std::string_view key, std::string_view meant);
// obj[key] must be an object if present; returns it or nullptr.
const json* object(const json& obj, std::string_view key, const std::string& path, Errors& errors, bool required = false);

}  // namespace gpucalc::jr
