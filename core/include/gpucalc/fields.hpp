// Field tables: one row per scenario key, from which parsing, range validation, defaults, the
// echoed `inputs`, the `schema` command, docs/SCHEMA.md and the page's forms are all driven.
// A row names a struct member; its default is the member's default in the plain struct
// (Box2D-style definition structs), so a default is written exactly once.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpucalc/errors.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/json_value.hpp"

namespace gpucalc {

enum class FieldKind { number, integer, boolean, choice };

// A view of a constant array (std::span is C++20): the tables below are constant data, built by the
// compiler, not at run time.
template <class E>
class Span {
public:
    constexpr Span() = default;
    constexpr Span(const E* data, std::size_t size) : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr Span(const E (&a)[N]) : data_(a), size_(N) {}
    constexpr const E* begin() const { return data_; }
    constexpr const E* end() const { return data_ + size_; }
    constexpr std::size_t size() const { return size_; }
    constexpr bool empty() const { return size_ == 0; }
    constexpr const E& operator[](std::size_t i) const { return data_[i]; }

private:
    const E* data_ = nullptr;
    std::size_t size_ = 0;
};

struct Choice {
    std::string_view name;
    int value;
};

// What a reader of the schema needs: the JSON key, its kind and unit, the allowed range or choices,
// one line of documentation, and (for defaults that depend on other fields) how the default is found.
struct FieldSpec {
    std::string_view name;
    FieldKind kind = FieldKind::number;
    std::string_view unit;  // "tokens", "bytes", "fraction", "USD/h", ...; "" for plain counts
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool min_exclusive = false;
    Span<Choice> choices;  // FieldKind::choice: accepted names (aliases share a value)
    std::string_view doc;
    std::string_view default_doc;  // set when the default is computed from other fields
};

template <class T>
struct Field {
    FieldSpec spec;
    bool (*has)(const T&);    // false for an unset optional member
    double (*get)(const T&);  // numbers; booleans as 0/1; choices as their enum value
    void (*set)(T&, double);
};

// A table: a constant array of rows (`static constexpr Field<T> rows[] = {...}; return rows;`).
template <class T>
using FieldTable = Span<Field<T>>;

namespace fields_detail {
template <class>
struct member;
template <class C, class V>
struct member<V C::*> {
    using cls = C;
    using value = V;
};
template <class V>
struct unopt {
    using type = V;
    static constexpr bool optional = false;
};
template <class V>
struct unopt<std::optional<V>> {
    using type = V;
    static constexpr bool optional = true;
};
template <auto P>
using Cls = typename member<decltype(P)>::cls;
template <auto P>
using Val = typename unopt<typename member<decltype(P)>::value>::type;
template <auto P>
constexpr bool is_optional = unopt<typename member<decltype(P)>::value>::optional;

template <auto P>
bool has(const Cls<P>& t) {
    if constexpr (is_optional<P>)
        return (t.*P).has_value();
    else
        return true;
}
template <class V>
double as_double(const V& v) {
    if constexpr (std::is_enum_v<V>)
        return static_cast<double>(static_cast<int>(v));
    else
        return static_cast<double>(v);
}
template <auto P>
double get(const Cls<P>& t) {
    if constexpr (is_optional<P>)
        return as_double(*(t.*P));
    else
        return as_double(t.*P);
}
template <auto P>
void set(Cls<P>& t, double x) {
    using V = Val<P>;
    if constexpr (std::is_enum_v<V>)
        t.*P = static_cast<V>(static_cast<int>(x));
    else if constexpr (std::is_same_v<V, bool>)
        t.*P = x != 0;
    else
        t.*P = static_cast<V>(x);
}
}  // namespace fields_detail

// A row for member P (e.g. &TrainingConfig::tp).
template <auto P>
constexpr Field<fields_detail::Cls<P>> field(FieldSpec spec) {
    return Field<fields_detail::Cls<P>>{spec, &fields_detail::has<P>, &fields_detail::get<P>, &fields_detail::set<P>};
}

// Range helpers for rows.
struct Bounds {
    double min, max;
    bool min_exclusive;
};
constexpr FieldSpec number_spec(std::string_view name, std::string_view unit, Bounds b, std::string_view doc,
                                std::string_view default_doc = {}) {
    return FieldSpec{name, FieldKind::number, unit, b.min, b.max, b.min_exclusive, {}, doc, default_doc};
}
constexpr FieldSpec integer_spec(std::string_view name, std::string_view unit, double min, double max, std::string_view doc,
                                 std::string_view default_doc = {}) {
    return FieldSpec{name, FieldKind::integer, unit, min, max, false, {}, doc, default_doc};
}
constexpr FieldSpec boolean_spec(std::string_view name, std::string_view doc, std::string_view default_doc = {}) {
    return FieldSpec{name, FieldKind::boolean, {}, 0, 1, false, {}, doc, default_doc};
}
constexpr FieldSpec choice_spec(std::string_view name, Span<Choice> choices, std::string_view doc, std::string_view default_doc = {}) {
    return FieldSpec{name, FieldKind::choice, {}, 0, 0, false, choices, doc, default_doc};
}
constexpr Bounds fraction_open{0, 1, true};  // (0, 1]
// A utilisation or goodput: [0.0001, 1] (below, a run's time overflows: 5e-324 gave an infinite step).
constexpr Bounds utilisation{1e-4, 1, false};
constexpr Bounds fraction_closed{0, 1, false};  // [0, 1]
constexpr Bounds positive_up_to(double max) { return Bounds{0, max, true}; }
constexpr Bounds non_negative_up_to(double max) { return Bounds{0, max, false}; }

// Reads one field of obj: nullopt when absent or null, or (with a field error recorded) when the
// value has the wrong type, is out of range, or is not one of the choices.
std::optional<double> read_field(const jv::Value& obj, const std::string& path, const FieldSpec& spec, Errors& errors);
// Name of a choice value (the first name with that value).
std::string_view choice_name(const FieldSpec& spec, int value);
// "training.tp" etc.
std::string field_path(const std::string& path, std::string_view key);
// The JSON value of a field for the echo: number, boolean or choice name.
jv::Value field_value_json(const FieldSpec& spec, double v);
// The same value for the output writer (json_out.hpp).
jw::Scalar field_value(const FieldSpec& spec, double v);
// The schema row of a field: name, kind, unit, range, choices, default, doc.
jv::Value field_schema_json(const FieldSpec& spec, const std::optional<double>& default_value);

// Reads every row present in obj into out; returns the rows that were given, as bits (row i = 1 << i).
template <class T>
std::uint64_t read_fields(const jv::Value& obj, const std::string& path, FieldTable<T> table, T& out, Errors& errors) {
    std::uint64_t given = 0;
    for (std::size_t i = 0; i < table.size(); ++i)
        if (const auto v = read_field(obj, path, table[i].spec, errors)) {
            table[i].set(out, *v);
            if (i < 64) given |= std::uint64_t{1} << i;
        }
    return given;
}

// The bit of row `name` in a read_fields mask (0 when the table has no such row).
template <class T>
std::uint64_t field_bit(FieldTable<T> table, std::string_view name) {
    for (std::size_t i = 0; i < table.size() && i < 64; ++i)
        if (table[i].spec.name == name) return std::uint64_t{1} << i;
    return 0;
}

template <class T>
jv::Value write_fields(const T& value, FieldTable<T> table) {
    jv::Value j = jv::Value::object();
    for (const auto& f : table) j[std::string(f.spec.name)] = f.has(value) ? field_value_json(f.spec, f.get(value)) : nullptr;
    return j;
}

// Every row of the table into the object j (null for an unset optional member).
template <class T>
void write_fields(jw::Val j, const T& value, FieldTable<T> table) {
    j.set_object();
    for (const auto& f : table) j.add(f.spec.name) = f.has(value) ? field_value(f.spec, f.get(value)) : jw::Scalar();
}

// The rows whose bit is set in `given` (read_fields' answer) into the object j: an echo of what a
// scenario gave, where writing the defaults out would fix what is meant to be chosen again.
template <class T>
void write_given_fields(jw::Val j, const T& value, FieldTable<T> table, std::uint64_t given) {
    j.set_object();
    std::size_t i = 0;
    for (const auto& f : table) {
        if (i < 64 && (given >> i & 1u) && f.has(value)) j.add(f.spec.name) = field_value(f.spec, f.get(value));
        ++i;
    }
}

// The value of row `name` (null when unset or when the table has no such row).
template <class T>
jw::Scalar field_value(const T& value, FieldTable<T> table, std::string_view name) {
    for (const auto& f : table)
        if (f.spec.name == name) return f.has(value) ? field_value(f.spec, f.get(value)) : jw::Scalar();
    return jw::Scalar();
}

template <class T>
jv::Value table_schema_json(FieldTable<T> table) {
    const T defaults{};
    jv::Value rows = jv::Value::array();
    for (const auto& f : table)
        rows.push_back(field_schema_json(f.spec, f.has(defaults) ? std::optional<double>(f.get(defaults)) : std::nullopt));
    return rows;
}

// Reports keys of obj that are neither rows of the table nor in `extra` as "unknown_field", with the
// known name a typo most likely meant ("did you mean ...?": typo_distance).
void report_unknown_key(const std::string& path, const std::string& key, std::string_view meant, Errors& errors);
using jr::typo_distance;  // json_read.hpp
template <class T>
void check_table_keys(const jv::Value& obj, const std::string& path, FieldTable<T> table, Errors& errors,
                      std::initializer_list<std::string_view> extra = {}) {
    if (!obj.is_object()) return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool known = false;
        for (const auto& f : table) known = known || f.spec.name == it.key();
        for (auto k : extra) known = known || k == it.key();
        if (known) continue;
        jr::NearestName near{it.key()};
        for (const auto& f : table) near.consider(f.spec.name);
        for (auto k : extra) near.consider(k);
        report_unknown_key(path, it.key(), near.meant, errors);
    }
}

template <class T>
bool table_has(FieldTable<T> table, std::string_view key) {
    for (const auto& f : table)
        if (f.spec.name == key) return true;
    return false;
}

}  // namespace gpucalc
