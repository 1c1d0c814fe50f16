// Output JSON: a small arena document that the report, the catalog and the plan search write into,
// serialised exactly as nlohmann::json::dump would write the same values (keys in sorted order,
// shortest round-trip numbers, nlohmann's escaping with invalid UTF-8 replaced by U+FFFD), but
// without nlohmann's per-value allocations: every value is one record in a vector, every string one
// slice of a character buffer. Input JSON (scenarios, the data files) is read into jv::Value
// (json_value.hpp), which a document copies and which the same text writers serialise.
//
//   jw::Doc doc;
//   jw::Val r = doc.root();
//   r["cluster"]["devices"] = 8;                       // objects are made on first use
//   r["memory"] = {{"weights", 1e9}, {"total", 2e9}};  // an object of scalars
//   r["list"].push_back(1.5);
//   std::string text = doc.text();
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpucalc/json_value.hpp"

namespace gpucalc::jw {

// One scalar JSON value; integers keep their type (written without ".0"), as in nlohmann::json.
// Sixteen bytes, so that an object literal of scalars ({{"key", value}, ...}) stays small code.
struct Scalar {
    enum class Type : std::uint8_t { null, boolean, integer, unsigned_integer, number, string };
    union {
        bool b;
        std::int64_t i;
        std::uint64_t u;
        double d;
        const char* p;  // string bytes (n of them)
    };
    std::uint32_t n = 0;
    Type type = Type::null;

    Scalar() : i(0) {}
    Scalar(std::nullptr_t) : i(0) {}
    Scalar(bool v) : b(v), type(Type::boolean) {}
    Scalar(double v) : d(v), type(Type::number) {}
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
    Scalar(I v) {
        if constexpr (std::is_signed_v<I>)
            type = Type::integer, i = static_cast<std::int64_t>(v);
        else
            type = Type::unsigned_integer, u = static_cast<std::uint64_t>(v);
    }
    Scalar(std::string_view v) : p(v.data()), n(static_cast<std::uint32_t>(v.size())), type(Type::string) {}
    Scalar(const char* v) : Scalar(std::string_view(v)) {}
    Scalar(const std::string& v) : Scalar(std::string_view(v)) {}
    Scalar(const std::optional<double>& v) : i(0) {  // null when absent
        if (v) type = Type::number, d = *v;
    }
    std::string_view str() const { return std::string_view(p, n); }
};

struct Member {
    const char* key;
    Scalar value;
};

class Doc;

// A growable character buffer for the writer: libc++'s std::string members are not inlined in the
// wasm build (extern templates from the prebuilt library), which made one string operation per
// written character cost more than the rest of an estimate.
class Buf {
public:
    Buf() = default;
    Buf(const Buf&) = delete;
    Buf& operator=(const Buf&) = delete;
    ~Buf() { std::free(data_); }
    // Always inlined: the -Oz files of the wasm module would otherwise call them per character.
    [[gnu::always_inline]] void put(char c) {
        if (size_ == cap_) grow(1);
        data_[size_++] = c;
    }
    [[gnu::always_inline]] void put(const char* s, std::size_t n) {
        if (cap_ - size_ < n) grow(n);
        if (n) std::memcpy(data_ + size_, s, n);
        size_ += n;
    }
    [[gnu::always_inline]] void put(std::string_view s) { put(s.data(), s.size()); }
    void reserve(std::size_t n) {
        if (cap_ - size_ < n) grow(n);
    }
    void resize(std::size_t n) { size_ = n; }  // only to shrink
    std::size_t size() const { return size_; }
    const char* data() const { return data_; }
    std::string str() const { return std::string(data_ ? data_ : "", size_); }

private:
    void grow(std::size_t n);
    char* data_ = nullptr;
    std::size_t size_ = 0, cap_ = 0;
};

// A handle to one value of a Doc (valid as long as the Doc). Assigning replaces the value.
class Val {
public:
    Val(Doc& doc, std::uint32_t index) : doc_(&doc), index_(index) {}

    // The member `key` of this object (created as null if absent; a non-object becomes an empty object first).
    Val operator[](std::string_view key);
    Val operator[](const char* key);  // the same, smaller at the call site
    // The member `key` (as operator[]: members are kept in key order, so this is a lookup too).
    Val add(std::string_view key);
    // Appends a null element to this array (a non-array becomes an empty array first) and returns it.
    Val append();
    void push_back(const Scalar& v) { append() = v; }

    // Assigning replaces the value. One out-of-line function per type keeps each `j["key"] = value`
    // of the report a couple of calls (the report writes a few hundred of them).
    Val& operator=(const Scalar& v);
    Val& operator=(double v);
    Val& operator=(bool v);
    Val& operator=(std::nullptr_t);
    Val& operator=(const char* v);
    Val& operator=(std::string_view v);
    Val& operator=(const std::string& v);
    Val& operator=(const std::optional<double>& v);  // null when absent
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
    Val& operator=(I v) {
        if constexpr (std::is_signed_v<I>)
            return set_int(static_cast<std::int64_t>(v));
        else
            return set_uint(static_cast<std::uint64_t>(v));
    }
    Val& operator=(std::initializer_list<Member> members);  // an object of scalars
    template <class J, std::enable_if_t<std::is_same_v<J, jv::Value>, int> = 0>
    Val& operator=(const J& j) {  // a deep copy (a template: no implicit conversion to jv::Value)
        return copy(j);
    }
    Val& copy(const jv::Value& j);
    Val& copy(const Val& other);  // a deep copy of a value of any document (not of this value itself)

    bool contains(std::string_view key) const;  // an object with the member `key`
    Val& set_object();                          // an empty object (replacing what was there)
    Val& set_array();                           // an empty array

    bool is_null() const;
    std::uint32_t index() const { return index_; }
    Doc& doc() const { return *doc_; }

private:
    Val& set_int(std::int64_t v);
    Val& set_uint(std::uint64_t v);
    Doc* doc_;
    std::uint32_t index_;
};

class Doc {
public:
    Doc();
    Val root() { return Val(*this, 0); }

    // The value at `node` (the root by default) as text: compact (indent < 0) or indented, byte for
    // byte what nlohmann::json::dump(indent, ' ', false, error_handler_t::replace) writes.
    std::string text(int indent = -1) const { return text_of(0, indent); }
    std::string text_of(std::uint32_t node, int indent = -1) const;
    jv::Value to_json(std::uint32_t node = 0) const;

    // Replaces every non-finite number under `node` with null; returns the paths of those found
    // ("a.b[2].c", relative to `node`), in the order of the sorted keys.
    std::vector<std::string> replace_non_finite(std::uint32_t node = 0);

private:
    friend class Val;
    enum class Kind : std::uint8_t { null, boolean, integer, unsigned_integer, number, string, object, array };
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    struct Node {
        Kind kind = Kind::null;
        std::uint32_t key_off = 0, key_len = 0;                   // member name in chars_
        std::uint32_t first = kNone, last = kNone, next = kNone;  // children (objects, arrays), next sibling
        std::uint32_t count = 0;                                  // children
        std::uint64_t prefix = 0;                                 // the key's first 8 bytes, big-endian (sorting members)
        union {
            bool b;
            std::int64_t i;
            std::uint64_t u;
            double d;
            struct {
                std::uint32_t off, len;
            } s;
        } v{};
    };
    std::uint32_t add_child(std::uint32_t parent, std::uint32_t prev, std::string_view key, std::uint64_t prefix);
    std::uint32_t member(std::uint32_t i, std::string_view name);
    std::uint32_t append_child(std::uint32_t i);
    std::uint32_t locate(std::uint32_t i, std::string_view name, std::uint64_t p, std::uint32_t& prev) const;
    // Whether member n sorts before the key `name` (whose prefix is p).
    bool before(const Node& n, std::uint64_t p, std::string_view name) const { return n.prefix != p ? n.prefix < p : key(n) < name; }
    std::uint32_t store(std::string_view s);
    std::string_view key(const Node& n) const { return std::string_view(chars_.data() + n.key_off, n.key_len); }
    std::string_view str(const Node& n) const { return std::string_view(chars_.data() + n.v.s.off, n.v.s.len); }
    void set_scalar(std::uint32_t i, const Scalar& v);
    Node& reset(std::uint32_t i, Kind kind);  // a scalar of this kind (children dropped)
    void copy_from(std::uint32_t i, const jv::Value& j);
    void copy_from(std::uint32_t i, const Doc& src, std::uint32_t j);
    std::uint32_t find(std::uint32_t i, std::string_view key) const;
    void write(Buf& out, std::uint32_t i, int indent, int level) const;
    void find_non_finite(std::uint32_t i, std::string& path, std::vector<std::string>& found);

    std::vector<Node> nodes_;
    Buf chars_;
};

// Text writers shared with the serialiser of input values (jv::Value::dump, jr::to_text).
void write_string(Buf& out, std::string_view s);        // quoted and escaped as nlohmann does
void write_number(Buf& out, double v);                  // shortest round-trip, "null" if not finite
std::string string_text(std::string_view s);            // write_string as a string (tests)
std::string text(const jv::Value& j, int indent = -1);  // as nlohmann::json::dump(indent, ..., replace)

}  // namespace gpucalc::jw
