// Input JSON (json_value.hpp): the value type and its parser. The parser follows nlohmann/json
// 3.11's lexer rule for rule (numbers, string escapes, UTF-8 byte ranges, the byte-order mark), so
// that every text it accepted is accepted with the same values and every text it refused is refused.
#include "gpucalc/json_value.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "gpucalc/api.hpp"
#include "gpucalc/decimal.hpp"
#include "gpucalc/order.hpp"

namespace gpucalc::jv {

namespace {
const Value kNull;
const std::string kEmpty;
}  // namespace

// ---- construction ----

Value::Value(const char* s) : type_(Type::string) { s_ = new std::string(s); }
Value::Value(std::string_view s) : type_(Type::string) { s_ = new std::string(s); }
Value::Value(const std::string& s) : type_(Type::string) { s_ = new std::string(s); }
Value::Value(std::string&& s) : type_(Type::string) { s_ = new std::string(std::move(s)); }

Value::Value(const std::vector<std::string>& list) : type_(Type::array) { a_ = new std::vector<Value>(list.begin(), list.end()); }

Value::Value(std::initializer_list<Value> list) {
    bool object = true;
    for (const Value& v : list)
        if (!v.is_array() || v.a_->size() != 2 || !(*v.a_)[0].is_string()) {
            object = false;
            break;
        }
    if (object) {
        type_ = Type::object;
        o_ = new std::vector<Member>();
        for (const Value& v : list)  // the first of equal keys stays (nlohmann emplaces each in turn)
            if (!contains((*v.a_)[0].as_string())) (*this)[(*v.a_)[0].as_string()] = (*v.a_)[1];
    } else {
        type_ = Type::array;
        a_ = new std::vector<Value>(list.begin(), list.end());
    }
}

Value::Value(const Value& other) : type_(other.type_) {
    switch (type_) {
        case Type::string:
            s_ = new std::string(*other.s_);
            break;
        case Type::array:
            a_ = new std::vector<Value>(*other.a_);
            break;
        case Type::object:
            o_ = new std::vector<Member>(*other.o_);
            break;
        default:
            u_ = other.u_;
            break;
    }
}

Value::Value(Value&& other) noexcept : u_(other.u_), type_(other.type_) {
    other.type_ = Type::null;
    other.u_ = 0;
}

Value& Value::operator=(const Value& other) {
    if (this != &other) {
        Value copy(other);
        *this = std::move(copy);
    }
    return *this;
}

Value& Value::operator=(Value&& other) noexcept {
    if (this != &other) {
        destroy();
        u_ = other.u_;
        type_ = other.type_;
        other.type_ = Type::null;
        other.u_ = 0;
    }
    return *this;
}

Value& Value::operator=(std::initializer_list<Value> list) { return *this = Value(list); }

Value::~Value() { destroy(); }

void Value::destroy() noexcept {
    switch (type_) {
        case Type::string:
            delete s_;
            break;
        case Type::array:
            delete a_;
            break;
        case Type::object:
            delete o_;
            break;
        default:
            break;
    }
    type_ = Type::null;
    u_ = 0;
}

Value Value::array() {
    Value v;
    v.type_ = Type::array;
    v.a_ = new std::vector<Value>();
    return v;
}

Value Value::array(std::initializer_list<Value> list) {
    Value v;
    v.type_ = Type::array;
    v.a_ = new std::vector<Value>(list.begin(), list.end());
    return v;
}

Value Value::object() {
    Value v;
    v.type_ = Type::object;
    v.o_ = new std::vector<Member>();
    return v;
}

Value Value::discarded() {
    Value v;
    v.type_ = Type::discarded;
    return v;
}

std::vector<Member>& Value::members() { return *o_; }
const std::vector<Member>& Value::members() const { return *o_; }
std::vector<Value>& Value::elements() { return *a_; }
const std::vector<Value>& Value::elements() const { return *a_; }

// ---- scalars ----

bool Value::as_bool() const { return type_ == Type::boolean && b_; }

double Value::as_double() const {
    switch (type_) {
        case Type::integer:
            return static_cast<double>(i_);
        case Type::unsigned_integer:
            return static_cast<double>(u_);
        case Type::number:
            return d_;
        default:
            return 0;
    }
}

std::int64_t Value::as_int64() const {
    switch (type_) {
        case Type::integer:
            return i_;
        case Type::unsigned_integer:
            return static_cast<std::int64_t>(u_);
        case Type::number:
            return static_cast<std::int64_t>(d_);
        default:
            return 0;
    }
}

std::uint64_t Value::as_uint64() const {
    switch (type_) {
        case Type::integer:
            return static_cast<std::uint64_t>(i_);
        case Type::unsigned_integer:
            return u_;
        case Type::number:
            return static_cast<std::uint64_t>(d_);
        default:
            return 0;
    }
}

const std::string& Value::as_string() const { return type_ == Type::string ? *s_ : kEmpty; }

// ---- objects and arrays ----

namespace {
// The first member whose key is not less than `key` (members are sorted by key).
std::vector<Member>::const_iterator lower(const std::vector<Member>& m, std::string_view key) {
    return std::lower_bound(m.begin(), m.end(), key, [](const Member& a, std::string_view k) { return std::string_view(a.key) < k; });
}
}  // namespace

Value::iterator Value::find(std::string_view key) {
    if (type_ != Type::object) return end();
    const auto it = lower(*o_, key);
    if (it == o_->end() || it->key != key) return end();
    return iterator(this, static_cast<std::size_t>(it - o_->begin()));
}

Value::const_iterator Value::find(std::string_view key) const {
    if (type_ != Type::object) return end();
    const auto it = lower(*o_, key);
    if (it == o_->end() || it->key != key) return end();
    return const_iterator(this, static_cast<std::size_t>(it - o_->begin()));
}

bool Value::contains(std::string_view key) const { return find(key) != end(); }

Value& Value::operator[](std::string_view key) {
    if (type_ != Type::object) *this = object();
    const auto it = lower(*o_, key);
    const auto i = static_cast<std::size_t>(it - o_->cbegin());
    if (it != o_->cend() && it->key == key) return (*o_)[i].value;
    return o_->insert(it, Member{std::string(key), Value()})->value;
}
Value& Value::operator[](const char* key) { return (*this)[std::string_view(key)]; }
Value& Value::operator[](const std::string& key) { return (*this)[std::string_view(key)]; }

const Value& Value::operator[](std::string_view key) const {
    const auto it = find(key);
    return it == end() ? kNull : *it;
}
const Value& Value::operator[](const char* key) const { return (*this)[std::string_view(key)]; }
const Value& Value::operator[](const std::string& key) const { return (*this)[std::string_view(key)]; }

Value& Value::operator[](std::size_t index) {
    if (type_ != Type::array) *this = array();
    if (index >= a_->size()) a_->resize(index + 1);
    return (*a_)[index];
}

const Value& Value::operator[](std::size_t index) const {
    if (type_ != Type::array || index >= a_->size()) return kNull;
    return (*a_)[index];
}

double Value::value(std::string_view key, double fallback) const {
    const auto it = find(key);
    return it != end() && it->is_number() ? it->as_double() : fallback;
}
bool Value::value(std::string_view key, bool fallback) const {
    const auto it = find(key);
    return it != end() && it->is_boolean() ? it->as_bool() : fallback;
}
std::string Value::value(std::string_view key, const std::string& fallback) const {
    const auto it = find(key);
    return it != end() && it->is_string() ? it->as_string() : fallback;
}
std::string Value::value(std::string_view key, const char* fallback) const { return value(key, std::string(fallback)); }
Value Value::value(std::string_view key, const Value& fallback) const {
    const auto it = find(key);
    return it != end() ? *it : fallback;
}

std::size_t Value::erase(std::string_view key) {
    const auto it = find(key);
    if (it == end()) return 0;
    erase_at(it.index());
    return 1;
}

void Value::erase_at(std::size_t index) {
    if (type_ == Type::object && index < o_->size())
        o_->erase(o_->begin() + static_cast<std::ptrdiff_t>(index));
    else if (type_ == Type::array && index < a_->size())
        a_->erase(a_->begin() + static_cast<std::ptrdiff_t>(index));
}

void Value::push_back(const Value& v) {
    if (type_ != Type::array) *this = array();
    a_->push_back(v);
}

void Value::push_back(Value&& v) {
    if (type_ != Type::array) *this = array();
    a_->push_back(std::move(v));
}

void Value::push_back(std::initializer_list<Value> list) { push_back(Value(list)); }

std::size_t Value::size() const {
    switch (type_) {
        case Type::null:
        case Type::discarded:
            return 0;
        case Type::array:
            return a_->size();
        case Type::object:
            return o_->size();
        default:
            return 1;
    }
}

Value& Value::child(std::size_t i) {
    if (type_ == Type::array) return (*a_)[i];
    if (type_ == Type::object) return (*o_)[i].value;
    return *this;
}

const Value& Value::child(std::size_t i) const {
    if (type_ == Type::array) return (*a_)[i];
    if (type_ == Type::object) return (*o_)[i].value;
    return *this;
}

const std::string& Value::key_at(std::size_t i) const { return type_ == Type::object ? (*o_)[i].key : kEmpty; }

bool operator==(const Value& a, const Value& b) {
    using T = Value::Type;
    if (a.is_number() && b.is_number()) {
        if (a.type_ == b.type_) return a.type_ == T::number ? a.d_ == b.d_ : a.u_ == b.u_;
        if (a.type_ == T::number || b.type_ == T::number) return a.as_double() == b.as_double();
        // a negative and an unsigned integer: equal only when both are the same non-negative value
        const std::int64_t s = a.type_ == T::integer ? a.i_ : b.i_;
        const std::uint64_t u = a.type_ == T::integer ? b.u_ : a.u_;
        return s >= 0 && static_cast<std::uint64_t>(s) == u;
    }
    if (a.type_ != b.type_) return false;
    switch (a.type_) {
        case T::boolean:
            return a.b_ == b.b_;
        case T::string:
            return *a.s_ == *b.s_;
        case T::array:
            return *a.a_ == *b.a_;
        case T::object: {
            if (a.o_->size() != b.o_->size()) return false;
            for (std::size_t i = 0; i < a.o_->size(); ++i)
                if ((*a.o_)[i].key != (*b.o_)[i].key || (*a.o_)[i].value != (*b.o_)[i].value) return false;
            return true;
        }
        case T::null:
            return true;
        default:
            return false;  // discarded values are equal to nothing
    }
}

// ---- the parser ----

class Parser {
public:
    Parser(std::string_view text, int max_depth, std::vector<std::string>* duplicates)
        : p_(text.data()), begin_(text.data()), end_(text.data() + text.size()), max_depth_(max_depth), dups_(duplicates) {}

    bool document(Value& out) {
        if (end_ - p_ >= 3 && static_cast<unsigned char>(p_[0]) == 0xEF && static_cast<unsigned char>(p_[1]) == 0xBB &&
            static_cast<unsigned char>(p_[2]) == 0xBF)
            p_ += 3;  // a UTF-8 byte-order mark
        skip_space();
        if (!value(out, 0)) return false;
        skip_space();
        // Nothing may follow the value. (nlohmann's lexer read a NUL byte as the end of the text, so
        // "{...}<NUL>anything" was accepted: a NUL is not JSON whitespace, and is refused here.)
        return p_ == end_ || fail("expected the end of the text");
    }

    void error(ParseError& e) const {
        e.offset = static_cast<std::size_t>(fault_ - begin_);
        e.line = 1;
        e.column = 1;
        for (const char* q = begin_; q < fault_; ++q) {
            if (*q == '\n')
                ++e.line, e.column = 1;
            else
                ++e.column;
        }
        e.message = "syntax error at line " + std::to_string(e.line) + ", column " + std::to_string(e.column) + ": " + what_;
    }

private:
    bool fail(const char* what) {
        if (!what_) {
            what_ = what;
            fault_ = p_;
        }
        return false;
    }

    void skip_space() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }

    bool literal(const char* word, std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n || std::string_view(p_, n) != std::string_view(word, n))
            return fail("expected a value");
        p_ += n;
        return true;
    }

    bool value(Value& out, int depth) {
        if (p_ == end_) return fail("expected a value, found the end of the text");
        switch (*p_) {
            case '{':
                return object(out, depth + 1);
            case '[':
                return array(out, depth + 1);
            case '"': {
                std::string s;
                if (!string(s)) return false;
                out = Value(std::move(s));
                return true;
            }
            case 't':
                return literal("true", 4) && (out = Value(true), true);
            case 'f':
                return literal("false", 5) && (out = Value(false), true);
            case 'n':
                return literal("null", 4) && (out = Value(), true);
            default:
                if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return number(out);
                return fail("expected a value");
        }
    }

    bool object(Value& out, int depth) {
        if (depth > max_depth_) return fail("nested too deeply");
        ++p_;  // {
        out = Value::object();
        std::vector<Member>& m = out.members();
        skip_space();
        if (p_ < end_ && *p_ == '}') {
            ++p_;
            return true;
        }
        bool sorted = true;
        for (;;) {
            skip_space();
            if (p_ == end_ || *p_ != '"') return fail("expected a member name (a string)");
            m.push_back(Member{});
            if (!string(m.back().key)) return false;
            sorted = sorted && (m.size() < 2 || m[m.size() - 2].key < m.back().key);
            skip_space();
            if (p_ == end_ || *p_ != ':') return fail("expected ':' after a member name");
            ++p_;
            skip_space();
            const std::size_t mark = path_.size();
            if (dups_) path_ += (mark ? "." : "") + m.back().key;  // the member's path, for duplicate keys below it
            if (!value(m.back().value, depth)) return false;
            if (dups_) path_.resize(mark);
            skip_space();
            if (p_ < end_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ < end_ && *p_ == '}') {
                ++p_;
                break;
            }
            return fail("expected ',' or '}' in an object");
        }
        if (!sorted) sort_members(m);
        return true;
    }

    // Sorted by key; of equal keys the last one stays (nlohmann's parser assigns each in turn), and,
    // when asked, the key's path is recorded (at most 10).
    void sort_members(std::vector<Member>& m) {
        const std::vector<std::uint32_t> order = stable_order(
            m.size(),
            [](const void* v, std::uint32_t a, std::uint32_t b) {
                const auto& members = *static_cast<const std::vector<Member>*>(v);
                return members[a].key < members[b].key;
            },
            &m);
        const std::size_t n = m.size();
        std::vector<Member> sorted;
        sorted.reserve(n);
        for (std::size_t k = 0; k < n; ++k) {
            if (k + 1 == n || m[order[k + 1]].key != m[order[k]].key) {  // the last of equal keys
                sorted.push_back(std::move(m[order[k]]));
                continue;
            }
            const std::string dup = path_ + (path_.empty() ? "" : ".") + m[order[k]].key;
            if (dups_ && dups_->size() < 10 && (dups_->empty() || dups_->back() != dup)) dups_->push_back(dup);
        }
        m = std::move(sorted);
    }

    bool array(Value& out, int depth) {
        if (depth > max_depth_) return fail("nested too deeply");
        ++p_;  // [
        out = Value::array();
        std::vector<Value>& a = out.elements();
        skip_space();
        if (p_ < end_ && *p_ == ']') {
            ++p_;
            return true;
        }
        for (;;) {
            skip_space();
            a.emplace_back();
            const std::size_t mark = path_.size();
            if (dups_) path_ += "[" + std::to_string(a.size() - 1) + "]";
            if (!value(a.back(), depth)) return false;
            if (dups_) path_.resize(mark);
            skip_space();
            if (p_ < end_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ < end_ && *p_ == ']') {
                ++p_;
                return true;
            }
            return fail("expected ',' or ']' in an array");
        }
    }

    bool digits() {
        if (p_ == end_ || *p_ < '0' || *p_ > '9') return fail("expected a digit");
        while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        return true;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: an integer (int64 if negative, else uint64)
    // when it has neither fraction nor exponent and fits, else a double; one that overflows a
    // double is refused (nlohmann: "number overflow").
    bool number(Value& out) {
        const char* start = p_;
        const bool negative = *p_ == '-';
        if (negative) ++p_;
        if (p_ < end_ && *p_ == '0')
            ++p_;
        else if (!digits())
            return false;
        bool integer = true;
        if (p_ < end_ && *p_ == '.') {
            ++p_;
            integer = false;
            if (!digits()) return false;
        }
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            ++p_;
            integer = false;
            if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (!digits()) return false;
        }
        if (integer && whole(start, negative, out)) return true;
        const double d = decimal::parse(std::string_view(start, static_cast<std::size_t>(p_ - start)));
        if (!std::isfinite(d)) {
            p_ = start;
            return fail("number overflow");
        }
        // -0 (written "-0.0", or a negative number below the smallest double) is read as 0: every
        // number of a scenario passes here, so no range check, echo or derivation ever meets -0,
        // which JSON.stringify would write as 0 where this writer keeps its sign.
        out = Value(d == 0 ? 0.0 : d);
        return true;
    }

    // The integer [start, p_) if it fits its type (digits only, after an optional '-').
    bool whole(const char* start, bool negative, Value& out) const {
        std::uint64_t v = 0;
        for (const char* q = start + (negative ? 1 : 0); q < p_; ++q) {
            const auto digit = static_cast<std::uint64_t>(*q - '0');
            if (v > (UINT64_MAX - digit) / 10) return false;
            v = v * 10 + digit;
        }
        if (!negative) {
            out = Value(v);
            return true;
        }
        if (v > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;
        out = Value(v == static_cast<std::uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<std::int64_t>(v));
        return true;
    }

    int hex4() {
        if (end_ - p_ < 4) return -1;
        int v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = *p_++;
            v <<= 4;
            if (c >= '0' && c <= '9')
                v += c - '0';
            else if (c >= 'a' && c <= 'f')
                v += c - 'a' + 10;
            else if (c >= 'A' && c <= 'F')
                v += c - 'A' + 10;
            else
                return -1;
        }
        return v;
    }

    static void put_utf8(std::string& s, int cp) {
        if (cp < 0x80) {
            s += static_cast<char>(cp);
        } else if (cp < 0x800) {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            s += static_cast<char>(0xE0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            s += static_cast<char>(0xF0 | (cp >> 18));
            s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    bool escape(std::string& s) {
        ++p_;  // backslash
        if (p_ == end_) return fail("expected an escape after '\\'");
        switch (*p_++) {
            case '"':
                s += '"';
                return true;
            case '\\':
                s += '\\';
                return true;
            case '/':
                s += '/';
                return true;
            case 'b':
                s += '\b';
                return true;
            case 'f':
                s += '\f';
                return true;
            case 'n':
                s += '\n';
                return true;
            case 'r':
                s += '\r';
                return true;
            case 't':
                s += '\t';
                return true;
            case 'u':
                break;
            default:
                --p_;
                return fail("expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
        }
        int cp = hex4();
        if (cp < 0) return fail("expected four hexadecimal digits after \\u");
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("a low surrogate \\uDC00..\\uDFFF must follow a high surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                return fail("a high surrogate \\uD800..\\uDBFF must be followed by a low one");
            p_ += 2;
            const int low = hex4();
            if (low < 0) return fail("expected four hexadecimal digits after \\u");
            if (low < 0xDC00 || low > 0xDFFF) return fail("a high surrogate \\uD800..\\uDBFF must be followed by a low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        put_utf8(s, cp);
        return true;
    }

    // One UTF-8 character of 2 to 4 bytes starting with lead byte c (RFC 3629 ranges, as nlohmann).
    bool multibyte(std::string& s) {
        const auto c = static_cast<unsigned char>(*p_);
        unsigned char lo = 0x80, hi = 0xBF;
        int n = 0;
        if (c >= 0xC2 && c <= 0xDF)
            n = 1;
        else if (c == 0xE0)
            n = 2, lo = 0xA0;
        else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
            n = 2;
        else if (c == 0xED)
            n = 2, hi = 0x9F;
        else if (c == 0xF0)
            n = 3, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3)
            n = 3;
        else if (c == 0xF4)
            n = 3, hi = 0x8F;
        else
            return fail("invalid UTF-8 byte in a string");
        const char* start = p_++;
        for (int k = 0; k < n; ++k, ++p_) {
            const auto b = p_ < end_ ? static_cast<unsigned char>(*p_) : 0;
            if (p_ == end_ || b < (k == 0 ? lo : 0x80) || b > (k == 0 ? hi : 0xBF)) return fail("invalid UTF-8 byte in a string");
        }
        s.append(start, p_);
        return true;
    }

    bool string(std::string& s) {
        ++p_;  // opening quote
        for (;;) {
            const char* run = p_;  // plain ASCII, copied at once
            while (p_ < end_ && static_cast<unsigned char>(*p_) >= 0x20 && static_cast<unsigned char>(*p_) < 0x80 && *p_ != '"' &&
                   *p_ != '\\')
                ++p_;
            s.append(run, p_);
            if (p_ == end_) return fail("expected '\"' at the end of a string");
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                return true;
            }
            if (c == '\\') {
                if (!escape(s)) return false;
            } else if (c < 0x20) {
                return fail("control character in a string (must be escaped)");
            } else if (!multibyte(s)) {
                return false;
            }
        }
    }

    const char* p_;
    const char* begin_;
    const char* end_;
    int max_depth_;
    std::vector<std::string>* dups_ = nullptr;  // duplicate keys' paths, when asked
    std::string path_;                          // the value being read (for dups_)
    const char* what_ = nullptr;
    const char* fault_ = nullptr;
};

Value Value::parse(std::string_view text, ParseError* error, int max_depth, std::vector<std::string>* duplicates) {
    Parser parser(text, max_depth, duplicates);
    Value out;
    if (parser.document(out)) return out;
    if (error) parser.error(*error);
    return discarded();
}

}  // namespace gpucalc::jv

namespace gpucalc {

// Declared in api.hpp; here with the JSON reader, which the wasm module builds for speed (wasm/CMakeLists.txt):
// every scenario is scanned once before it is parsed.
int json_nesting_depth(const std::string& text) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char ch : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"')
            in_string = true;
        else if (ch == '[' || ch == '{')
            deepest = std::max(deepest, ++depth);
        else if ((ch == ']' || ch == '}') && depth > 0)
            --depth;
    }
    return deepest;
}

}  // namespace gpucalc
