// Input JSON: a small value type and a strict parser, in place of nlohmann/json (which the core no
// longer includes). It keeps what the core relied on: numbers keep their kind (a negative integer,
// an unsigned integer, a floating number; integers are written without ".0"), objects keep their
// keys sorted (byte order, as nlohmann's std::map) with the last of duplicate keys winning, and
// the parser accepts exactly what nlohmann's does (RFC 8259: no comments, trailing commas, NaN or
// numbers that overflow a double; strings as valid UTF-8 with \u escapes, surrogates in pairs; an
// optional UTF-8 byte-order mark first). The accessors are out-of-line functions: each use is a
// call, not inlined template code (the WebAssembly module's size). The text of a value is written
// by json_out.hpp's writer (jw::text, jr::to_text), byte for byte as nlohmann's dump.
//
//   jv::Value j = jv::Value::parse(text);  // discarded (is_discarded()) when the text is not JSON
//   if (j.is_object() && j.contains("model")) ... j["model"]["preset"].get<std::string>() ...
//   jv::Value out = {{"key", 1.5}, {"list", jv::Value::array()}};  // as nlohmann's initializer lists
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpucalc::jv {

class Value;
struct Member;

// Where and why a text is not JSON (Value::parse's optional out-parameter).
struct ParseError {
    std::size_t offset = 0;  // byte offset of the fault
    int line = 1, column = 1;
    std::string message;  // "syntax error at line 1, column 5: expected ..."
};

class Value {
public:
    enum class Type : std::uint8_t { null, boolean, integer, unsigned_integer, number, string, array, object, discarded };

    Value() noexcept : u_(0) {}
    Value(std::nullptr_t) noexcept : u_(0) {}
    Value(bool v) noexcept : type_(Type::boolean) { b_ = v; }
    Value(double v) noexcept : type_(Type::number) { d_ = v; }
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
    Value(I v) noexcept {
        if constexpr (std::is_signed_v<I>)
            type_ = Type::integer, i_ = static_cast<std::int64_t>(v);
        else
            type_ = Type::unsigned_integer, u_ = static_cast<std::uint64_t>(v);
    }
    Value(const char* s);
    Value(std::string_view s);
    Value(const std::string& s);
    Value(std::string&& s);
    Value(const std::vector<std::string>& list);  // an array of strings
    // As nlohmann: a list of two-element lists each starting with a string is an object, else an array.
    Value(std::initializer_list<Value> list);
    Value(const Value& other);
    Value(Value&& other) noexcept;
    Value& operator=(const Value& other);
    Value& operator=(Value&& other) noexcept;
    Value& operator=(std::initializer_list<Value> list);
    ~Value();

    static Value array();
    static Value array(std::initializer_list<Value> list);  // always an array
    static Value object();
    static Value discarded();
    // The value of `text`, or a discarded value when it is not JSON (the fault in *error if given).
    // Nesting deeper than max_depth is refused as not JSON (the entry points check the depth first).
    // duplicates: when given, the paths ("training.ep", "hardware.pools[0].count") of keys an object
    // gives more than once (at most 10); the value is still the last one's, as nlohmann's.
    static Value parse(std::string_view text, ParseError* error = nullptr, int max_depth = 512,
                       std::vector<std::string>* duplicates = nullptr);

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::null; }
    bool is_boolean() const { return type_ == Type::boolean; }
    bool is_number() const { return type_ == Type::integer || type_ == Type::unsigned_integer || type_ == Type::number; }
    bool is_number_integer() const { return type_ == Type::integer || type_ == Type::unsigned_integer; }
    bool is_number_unsigned() const { return type_ == Type::unsigned_integer; }
    bool is_number_float() const { return type_ == Type::number; }
    bool is_string() const { return type_ == Type::string; }
    bool is_array() const { return type_ == Type::array; }
    bool is_object() const { return type_ == Type::object; }
    bool is_structured() const { return is_array() || is_object(); }
    bool is_discarded() const { return type_ == Type::discarded; }

    // Scalars; a value of another type gives false, 0 or "" (the core checks the type first).
    bool as_bool() const;
    double as_double() const;  // any number
    std::int64_t as_int64() const;
    std::uint64_t as_uint64() const;
    const std::string& as_string() const;
    template <class T>
    T get() const;  // bool, double, std::string, std::int64_t, std::uint64_t, int

    // Objects. Non-const operator[] makes a null value an object and adds a missing member (null);
    // const operator[] gives a null value for a missing member or a non-object.
    Value& operator[](std::string_view key);
    Value& operator[](const char* key);
    Value& operator[](const std::string& key);
    const Value& operator[](std::string_view key) const;
    const Value& operator[](const char* key) const;
    const Value& operator[](const std::string& key) const;
    // Arrays. Non-const: a null value becomes an array, extended with nulls up to `index`.
    Value& operator[](std::size_t index);
    Value& operator[](int index) { return (*this)[static_cast<std::size_t>(index)]; }
    const Value& operator[](std::size_t index) const;  // null when out of range
    const Value& operator[](int index) const { return (*this)[static_cast<std::size_t>(index)]; }

    bool contains(std::string_view key) const;  // an object with the member `key`
    // obj[key] when present and of the default's type (number for double), else the default.
    double value(std::string_view key, double fallback) const;
    bool value(std::string_view key, bool fallback) const;
    std::string value(std::string_view key, const std::string& fallback) const;
    std::string value(std::string_view key, const char* fallback) const;
    Value value(std::string_view key, const Value& fallback) const;
    std::size_t erase(std::string_view key);  // members removed (0 or 1)

    void push_back(const Value& v);  // a null value becomes an array first
    void push_back(Value&& v);
    void push_back(std::initializer_list<Value> list);  // Value(list)
    std::size_t size() const;                           // null 0, a scalar 1 (as nlohmann), else the elements or members
    bool empty() const { return size() == 0; }

    // Iteration over the elements of an array, the member values of an object (in key order; key()
    // names them), or a scalar itself once; nothing for null.
    template <bool Const>
    class Iter {
    public:
        using Owner = std::conditional_t<Const, const Value, Value>;
        Iter(Owner* owner, std::size_t i) : owner_(owner), i_(i) {}
        Owner& operator*() const { return owner_->child(i_); }
        Owner* operator->() const { return &owner_->child(i_); }
        Owner& value() const { return owner_->child(i_); }
        const std::string& key() const { return owner_->key_at(i_); }
        Iter& operator++() {
            ++i_;
            return *this;
        }
        bool operator==(const Iter& o) const { return i_ == o.i_ && owner_ == o.owner_; }
        bool operator!=(const Iter& o) const { return !(*this == o); }
        std::size_t index() const { return i_; }

    private:
        Owner* owner_;
        std::size_t i_;
    };
    using iterator = Iter<false>;
    using const_iterator = Iter<true>;
    iterator begin() { return iterator(this, 0); }
    iterator end() { return iterator(this, size()); }
    const_iterator begin() const { return const_iterator(this, 0); }
    const_iterator end() const { return const_iterator(this, size()); }
    iterator find(std::string_view key);  // end() when absent or not an object
    const_iterator find(std::string_view key) const;
    void erase(iterator it) { erase_at(it.index()); }
    void erase(const_iterator it) { erase_at(it.index()); }
    void erase_at(std::size_t index);  // the index-th element or member

    // The i-th element (array), member value (object) or the scalar itself; the i-th member's key.
    Value& child(std::size_t i);
    const Value& child(std::size_t i) const;
    const std::string& key_at(std::size_t i) const;

    // Equal types and values (numbers of different kinds compare by value, as nlohmann).
    friend bool operator==(const Value& a, const Value& b);
    friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

private:
    friend class Parser;
    void destroy() noexcept;
    std::vector<Member>& members();
    const std::vector<Member>& members() const;
    std::vector<Value>& elements();
    const std::vector<Value>& elements() const;
    union {
        bool b_;
        std::int64_t i_;
        std::uint64_t u_;
        double d_;
        std::string* s_;
        std::vector<Value>* a_;
        std::vector<Member>* o_;
    };
    Type type_ = Type::null;
};

struct Member {
    std::string key;
    Value value;
};

template <>
inline bool Value::get<bool>() const {
    return as_bool();
}
template <>
inline double Value::get<double>() const {
    return as_double();
}
template <>
inline std::string Value::get<std::string>() const {
    return as_string();
}
template <>
inline std::int64_t Value::get<std::int64_t>() const {
    return as_int64();
}
template <>
inline std::uint64_t Value::get<std::uint64_t>() const {
    return as_uint64();
}
template <>
inline int Value::get<int>() const {
    return static_cast<int>(as_int64());
}

}  // namespace gpucalc::jv
