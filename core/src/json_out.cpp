// Output JSON (json_out.hpp): the arena document and its serialiser. The text is byte for byte what
// nlohmann::json::dump(indent, ' ', false, error_handler_t::replace) writes for the same values;
// tests/unit/test_json_out.cpp checks that on random documents and byte strings.
#include "gpucalc/json_out.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <new>

#include "../third_party/dtoa.hpp"

namespace gpucalc::jw {

namespace {

// nlohmann's UTF-8 decoder (Bjoern Hoehrmann's DFA, as in nlohmann/detail/output/serializer.hpp).
constexpr std::uint8_t kAccept = 0, kReject = 1;
constexpr std::uint8_t kUtf8[400] = {
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,  // 00..1F
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,  // 20..3F
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,  // 40..5F
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,  // 60..7F
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,
    9,   9,   9,   9,   9,   9,   9,   9,   9,   9,   9,   9,   9,   9,   9,   9,  // 80..9F
    7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,
    7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,   7,  // A0..BF
    8,   8,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,
    2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,   2,    // C0..DF
    0xA, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x4, 0x3, 0x3,  // E0..EF
    0xB, 0x6, 0x6, 0x6, 0x5, 0x8, 0x8, 0x8, 0x8, 0x8, 0x8, 0x8, 0x8, 0x8, 0x8, 0x8,  // F0..FF
    0x0, 0x1, 0x2, 0x3, 0x5, 0x8, 0x7, 0x1, 0x1, 0x1, 0x4, 0x6, 0x1, 0x1, 0x1, 0x1,  // s0..s0
    1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,
    1,   0,   1,   1,   1,   1,   1,   0,   1,   0,   1,   1,   1,   1,   1,   1,  // s1..s2
    1,   2,   1,   1,   1,   1,   1,   2,   1,   2,   1,   1,   1,   1,   1,   1,
    1,   1,   1,   1,   1,   1,   1,   2,   1,   1,   1,   1,   1,   1,   1,   1,  // s3..s4
    1,   2,   1,   1,   1,   1,   1,   1,   1,   2,   1,   1,   1,   1,   1,   1,
    1,   1,   1,   1,   1,   1,   1,   3,   1,   3,   1,   1,   1,   1,   1,   1,  // s5..s6
    1,   3,   1,   1,   1,   1,   1,   3,   1,   3,   1,   1,   1,   1,   1,   1,
    1,   3,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1,   1  // s7..s8
};

std::uint8_t decode(std::uint8_t& state, std::uint32_t& cp, std::uint8_t byte) {
    const std::uint8_t type = kUtf8[byte];
    cp = state != kAccept ? (byte & 0x3Fu) | (cp << 6u) : (0xFFu >> type) & byte;
    state = kUtf8[256u + state * 16u + type];
    return state;
}

const char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// One decoded code point (cp; last_byte is its final byte): the short escapes, \u00XX for the other
// control characters, else the byte itself (the earlier bytes of a multi-byte sequence are already out).
inline void write_code_point(Buf& out, std::uint32_t cp, char last_byte) {
    switch (cp) {
        case 0x08:
            out.put("\\b", 2);
            break;
        case 0x09:
            out.put("\\t", 2);
            break;
        case 0x0A:
            out.put("\\n", 2);
            break;
        case 0x0C:
            out.put("\\f", 2);
            break;
        case 0x0D:
            out.put("\\r", 2);
            break;
        case 0x22:
            out.put("\\\"", 2);
            break;
        case 0x5C:
            out.put("\\\\", 2);
            break;
        default:
            if (cp <= 0x1F) {
                static const char hex[] = "0123456789abcdef";
                out.put("\\u00", 4);
                out.put(hex[cp >> 4]);
                out.put(hex[cp & 0xF]);
            } else {
                out.put(last_byte);
            }
    }
}

// The general case of write_string: control characters, escapes and multi-byte sequences, with
// invalid UTF-8 replaced exactly as nlohmann's dump_escaped does with error_handler_t::replace.
void write_escaped(Buf& out, std::string_view s, std::size_t i) {
    std::uint32_t cp = 0;
    std::uint8_t state = kAccept;
    std::size_t after_accept = out.size();
    std::size_t undumped = 0;
    for (; i < s.size(); ++i) {
        const auto byte = static_cast<std::uint8_t>(s[i]);
        switch (decode(state, cp, byte)) {
            case kAccept: {
                write_code_point(out, cp, s[i]);
                after_accept = out.size();
                undumped = 0;
                break;
            }
            case kReject: {
                if (undumped > 0) --i;  // the byte may start a valid sequence of its own: read it again
                out.resize(after_accept);
                out.put(kReplacement, 3);
                after_accept = out.size();
                undumped = 0;
                state = kAccept;
                break;
            }
            default:  // inside a multi-byte sequence
                out.put(s[i]);
                ++undumped;
        }
    }
    if (state != kAccept) {  // the string ends inside a sequence
        out.resize(after_accept);
        out.put(kReplacement, 3);
    }
}

void write_int(Buf& out, std::int64_t v) {
    char buf[24] = {};
    out.put(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}
void write_uint(Buf& out, std::uint64_t v) {
    char buf[24] = {};
    out.put(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

// A key's first eight bytes as a big-endian number (zero-padded): two keys whose prefixes differ
// compare as their prefixes do, so most comparisons are one integer comparison.
std::uint64_t key_prefix(std::string_view k) {
    std::uint64_t p = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (k.size() >= 8) {  // one load and a byte swap (wasm and x86 are little-endian)
        std::memcpy(&p, k.data(), 8);
        return __builtin_bswap64(p);
    }
#endif
    const std::size_t n = k.size() < 8 ? k.size() : 8;  // an array element's key is empty, its data null
    for (std::size_t i = 0; i < n; ++i) p = p << 8 | static_cast<unsigned char>(k[i]);
    return n == 0 ? 0 : p << (8 * (8 - n));
}

void write_indent(Buf& out, int indent, int level) {
    if (indent >= 0)
        for (int i = 0; i < indent * level; ++i) out.put(' ');
}

}  // namespace

void Buf::grow(std::size_t n) {
    std::size_t cap = cap_ < 256 ? 256 : cap_ * 2;
    while (cap - size_ < n) cap *= 2;
    char* p = static_cast<char*>(std::realloc(data_, cap));
    if (!p) throw std::bad_alloc();
    data_ = p;
    cap_ = cap;
}

namespace {
// Whether any of the eight bytes of x needs more than copying: below 0x20, '"', '\\' or 0x80 and
// above (the "has less" and "has zero" tests of Anderson's Bit Twiddling Hacks, exact for "any").
bool any_special(std::uint64_t x) {
    constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    const std::uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    return (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | x) & highs;
}
}  // namespace

void write_string(Buf& out, std::string_view s) {
    out.reserve(s.size() + 2);
    out.put('"');
    std::size_t i = 0;
    for (std::uint64_t w; i + 8 <= s.size(); i += 8) {  // eight bytes at a time while none is special
        std::memcpy(&w, s.data() + i, 8);
        if (any_special(w)) break;
    }
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
    }
    out.put(s.data(), i);
    if (i < s.size()) write_escaped(out, s, i);
    out.put('"');
}

std::string string_text(std::string_view s) {
    Buf out;
    write_string(out, s);
    return out.str();
}

void write_number(Buf& out, double v) {
    if (!std::isfinite(v)) {
        out.put("null", 4);
        return;
    }
    // Whole numbers below 1e15 are exact and written in fixed notation: their shortest digits are
    // the integer's, which nlohmann's grisu2 writes with ".0" appended; skip grisu2 for them.
    if (v == std::floor(v) && std::fabs(v) < 1e15 && v != 0) {
        write_int(out, static_cast<std::int64_t>(v));
        out.put(".0", 2);
        return;
    }
    char buf[64] = {};
    out.put(buf, static_cast<std::size_t>(detail::to_chars(buf, buf + sizeof buf, v) - buf));
}

// ---- Val ----

Val Val::operator[](std::string_view key) {
    Doc& d = *doc_;
    if (d.nodes_[index_].kind != Doc::Kind::object) set_object();
    return Val(d, d.member(index_, key));
}

bool Val::contains(std::string_view key) const { return doc_->find(index_, key) != Doc::kNone; }

Val& Val::copy(const Val& other) {
    doc_->copy_from(index_, *other.doc_, other.index_);
    return *this;
}

Val Val::add(std::string_view key) { return (*this)[key]; }

Val Val::append() {
    Doc& d = *doc_;
    if (d.nodes_[index_].kind != Doc::Kind::array) set_array();
    return Val(d, d.append_child(index_));
}

Val Val::operator[](const char* key) { return (*this)[std::string_view(key)]; }

Val& Val::operator=(const Scalar& v) {
    doc_->set_scalar(index_, v);
    return *this;
}
Val& Val::operator=(double v) {
    doc_->reset(index_, Doc::Kind::number).v.d = v;
    return *this;
}
Val& Val::operator=(bool v) {
    doc_->reset(index_, Doc::Kind::boolean).v.b = v;
    return *this;
}
Val& Val::operator=(std::nullptr_t) {
    doc_->reset(index_, Doc::Kind::null);
    return *this;
}
Val& Val::set_int(std::int64_t v) {
    doc_->reset(index_, Doc::Kind::integer).v.i = v;
    return *this;
}
Val& Val::set_uint(std::uint64_t v) {
    doc_->reset(index_, Doc::Kind::unsigned_integer).v.u = v;
    return *this;
}
Val& Val::operator=(std::string_view v) { return *this = Scalar(v); }
Val& Val::operator=(const char* v) { return *this = Scalar(v); }
Val& Val::operator=(const std::string& v) { return *this = Scalar(v); }
Val& Val::operator=(const std::optional<double>& v) { return v ? (*this = *v) : (*this = nullptr); }

Val& Val::operator=(std::initializer_list<Member> members) {
    set_object();
    for (const auto& m : members) (*this)[m.key] = m.value;
    return *this;
}

Val& Val::copy(const jv::Value& j) {
    doc_->copy_from(index_, j);
    return *this;
}

Val& Val::set_object() {
    Doc::Node& n = doc_->nodes_[index_];
    n.kind = Doc::Kind::object;
    n.first = n.last = Doc::kNone;
    n.count = 0;
    return *this;
}

Val& Val::set_array() {
    set_object();
    doc_->nodes_[index_].kind = Doc::Kind::array;
    return *this;
}

bool Val::is_null() const { return doc_->nodes_[index_].kind == Doc::Kind::null; }

// ---- Doc ----

Doc::Doc() {
    nodes_.reserve(512);
    chars_.reserve(8192);
    nodes_.emplace_back();
}

std::uint32_t Doc::store(std::string_view s) {
    const auto off = static_cast<std::uint32_t>(chars_.size());
    chars_.put(s);
    return off;
}

// A new member or element after `prev` (kNone: first).
std::uint32_t Doc::add_child(std::uint32_t parent, std::uint32_t prev, std::string_view key, std::uint64_t prefix) {
    const auto i = static_cast<std::uint32_t>(nodes_.size());
    const std::uint32_t key_off = store(key);
    // Built in place: a Node assembled on the stack and copied in stalled on store forwarding (its
    // fields written narrow, read back 16 bytes at a time: ~60 % of this function in a profile).
    nodes_.emplace_back();
    Node& n = nodes_.back();
    n.prefix = prefix;
    n.key_off = key_off;
    n.key_len = static_cast<std::uint32_t>(key.size());
    Node& p = nodes_[parent];
    std::uint32_t& link = prev == kNone ? p.first : nodes_[prev].next;
    n.next = link;
    if (n.next == kNone) p.last = i;
    link = i;
    ++p.count;
    return i;
}

// Where `name` (prefix p) is among the members of object i, kept sorted as they are added
// (nlohmann's std::map order: bytes compared unsigned): its index, or kNone with `prev` the member
// it would follow (kNone: first). A walk stops at the first key past the name; a name after the last
// member (keys written in order, the copy of an input object) is one comparison.
std::uint32_t Doc::locate(std::uint32_t i, std::string_view name, std::uint64_t p, std::uint32_t& prev) const {
    const Node& o = nodes_[i];
    prev = kNone;
    if (o.last != kNone && before(nodes_[o.last], p, name)) {
        prev = o.last;
        return kNone;
    }
    for (std::uint32_t c = o.first; c != kNone; prev = c, c = nodes_[c].next) {
        const Node& n = nodes_[c];
        if (n.prefix == p && key(n) == name) return c;
        if (!before(n, p, name)) break;
    }
    return kNone;
}

// The member `name` of object i, added in key order if absent, so that the writer never sorts.
std::uint32_t Doc::member(std::uint32_t i, std::string_view name) {
    const std::uint64_t p = key_prefix(name);
    std::uint32_t prev = kNone;
    const std::uint32_t c = locate(i, name, p, prev);
    return c != kNone ? c : add_child(i, prev, name, p);
}

// A new last element of array i.
std::uint32_t Doc::append_child(std::uint32_t i) { return add_child(i, nodes_[i].last, {}, 0); }

Doc::Node& Doc::reset(std::uint32_t i, Kind kind) {
    Node& n = nodes_[i];
    n.kind = kind;
    n.first = n.last = kNone;
    n.count = 0;
    return n;
}

void Doc::set_scalar(std::uint32_t i, const Scalar& v) {
    switch (v.type) {
        case Scalar::Type::null:
            reset(i, Kind::null);
            break;
        case Scalar::Type::boolean:
            reset(i, Kind::boolean).v.b = v.b;
            break;
        case Scalar::Type::integer:
            reset(i, Kind::integer).v.i = v.i;
            break;
        case Scalar::Type::unsigned_integer:
            reset(i, Kind::unsigned_integer).v.u = v.u;
            break;
        case Scalar::Type::number:
            reset(i, Kind::number).v.d = v.d;
            break;
        case Scalar::Type::string: {
            const auto off = store(v.str());  // may move chars_, not nodes_
            Node& m = reset(i, Kind::string);
            m.v.s.off = off;
            m.v.s.len = v.n;
            break;
        }
    }
}

std::uint32_t Doc::find(std::uint32_t i, std::string_view name) const {
    if (nodes_[i].kind != Kind::object) return kNone;
    std::uint32_t prev = kNone;
    return locate(i, name, key_prefix(name), prev);
}

// Indices only (no references into src.nodes_ across add_child): src may be this document.
void Doc::copy_from(std::uint32_t i, const Doc& src, std::uint32_t j) {
    const Kind kind = src.nodes_[j].kind;
    Val self(*this, i);
    if (kind == Kind::object || kind == Kind::array) {
        kind == Kind::object ? self.set_object() : self.set_array();
        for (std::uint32_t c = src.nodes_[j].first; c != kNone; c = src.nodes_[c].next) {
            const std::string key_copy(src.key(src.nodes_[c]));  // src.chars_ may move when this is src
            copy_from(kind == Kind::object ? member(i, key_copy) : append_child(i), src, c);
        }
    } else if (kind == Kind::string) {
        const std::string text(src.str(src.nodes_[j]));
        self = Scalar(text);
    } else {
        const auto v = src.nodes_[j].v;
        self = Scalar(nullptr);
        nodes_[i].kind = kind;
        nodes_[i].v = v;
    }
}

void Doc::copy_from(std::uint32_t i, const jv::Value& j) {
    using T = jv::Value::Type;
    Val self(*this, i);
    switch (j.type()) {
        case T::object:
            self.set_object();
            for (auto it = j.begin(); it != j.end(); ++it) copy_from(member(i, it.key()), it.value());
            break;
        case T::array:
            self.set_array();
            for (const auto& e : j) copy_from(append_child(i), e);
            break;
        case T::string:
            self = Scalar(j.as_string());
            break;
        case T::boolean:
            self = Scalar(j.as_bool());
            break;
        case T::integer:
            self = Scalar(j.as_int64());
            break;
        case T::unsigned_integer:
            self = Scalar(j.as_uint64());
            break;
        case T::number:
            self = Scalar(j.as_double());
            break;
        default:
            self = Scalar(nullptr);
            break;
    }
}

void Doc::write(Buf& out, std::uint32_t i, int indent, int level) const {
    const Node& n = nodes_[i];
    switch (n.kind) {
        case Kind::null:
            out.put("null", 4);
            return;
        case Kind::boolean:
            n.v.b ? out.put("true", 4) : out.put("false", 5);
            return;
        case Kind::integer:
            write_int(out, n.v.i);
            return;
        case Kind::unsigned_integer:
            write_uint(out, n.v.u);
            return;
        case Kind::number:
            write_number(out, n.v.d);
            return;
        case Kind::string:
            write_string(out, str(n));
            return;
        case Kind::object:
        case Kind::array:
            break;
    }
    const bool object = n.kind == Kind::object;
    if (n.count == 0) {
        out.put(object ? "{}" : "[]", 2);
        return;
    }
    out.put(object ? '{' : '[');
    for (std::uint32_t c = n.first; c != kNone; c = nodes_[c].next) {
        if (c != n.first) out.put(',');
        if (indent >= 0) out.put('\n');
        write_indent(out, indent, level + 1);
        if (object) {
            write_string(out, key(nodes_[c]));
            indent >= 0 ? out.put(": ", 2) : out.put(':');
        }
        write(out, c, indent, level + 1);
    }
    if (indent >= 0) {
        out.put('\n');
        write_indent(out, indent, level);
    }
    out.put(object ? '}' : ']');
}

std::string Doc::text_of(std::uint32_t node, int indent) const {
    Buf out;
    out.reserve(chars_.size() + 16 * nodes_.size());
    write(out, node, indent, 0);
    return out.str();
}

jv::Value Doc::to_json(std::uint32_t i) const {
    const Node& n = nodes_[i];
    switch (n.kind) {
        case Kind::null:
            return nullptr;
        case Kind::boolean:
            return n.v.b;
        case Kind::integer:
            return n.v.i;
        case Kind::unsigned_integer:
            return n.v.u;
        case Kind::number:
            return n.v.d;
        case Kind::string:
            return jv::Value(str(n));
        case Kind::object: {
            jv::Value j = jv::Value::object();
            for (std::uint32_t c = n.first; c != kNone; c = nodes_[c].next) j[key(nodes_[c])] = to_json(c);
            return j;
        }
        case Kind::array: {
            jv::Value j = jv::Value::array();
            for (std::uint32_t c = n.first; c != kNone; c = nodes_[c].next) j.push_back(to_json(c));
            return j;
        }
    }
    return nullptr;
}

void Doc::find_non_finite(std::uint32_t i, std::string& path, std::vector<std::string>& found) {
    Node& n = nodes_[i];
    if (n.kind == Kind::number) {
        if (!std::isfinite(n.v.d)) {
            found.push_back(path);
            n.kind = Kind::null;
        }
        return;
    }
    if (n.kind != Kind::object && n.kind != Kind::array) return;
    const bool object = n.kind == Kind::object;
    std::size_t k = 0;
    for (std::uint32_t c = n.first; c != kNone; c = nodes_[c].next, ++k) {
        const std::size_t len = path.size();
        if (object) {
            if (!path.empty()) path += '.';
            path += key(nodes_[c]);
        } else {
            path += '[' + std::to_string(k) + ']';
        }
        find_non_finite(c, path, found);
        path.resize(len);
    }
}

std::vector<std::string> Doc::replace_non_finite(std::uint32_t node) {
    std::vector<std::string> found;
    bool any = false;
    for (const auto& n : nodes_) any = any || (n.kind == Kind::number && !std::isfinite(n.v.d));
    if (!any) return found;  // the usual case: one pass over the records, no walk
    std::string path;
    find_non_finite(node, path, found);
    return found;
}

// ---- input values ----

namespace {
void write_json(Buf& out, const jv::Value& j, int indent, int level) {
    using T = jv::Value::Type;
    switch (j.type()) {
        case T::boolean:
            j.as_bool() ? out.put("true", 4) : out.put("false", 5);
            return;
        case T::integer:
            write_int(out, j.as_int64());
            return;
        case T::unsigned_integer:
            write_uint(out, j.as_uint64());
            return;
        case T::number:
            write_number(out, j.as_double());
            return;
        case T::string:
            write_string(out, j.as_string());
            return;
        case T::object:
        case T::array:
            break;
        default:  // null (nlohmann writes a discarded value as "<discarded>"; none reaches here)
            out.put("null", 4);
            return;
    }
    const bool object = j.is_object();
    if (j.empty()) {
        out.put(object ? "{}" : "[]", 2);
        return;
    }
    out.put(object ? '{' : '[');
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out.put(',');
        first = false;
        if (indent >= 0) out.put('\n');
        write_indent(out, indent, level + 1);
        if (object) {
            write_string(out, it.key());
            indent >= 0 ? out.put(": ", 2) : out.put(':');
        }
        write_json(out, it.value(), indent, level + 1);
    }
    if (indent >= 0) {
        out.put('\n');
        write_indent(out, indent, level);
    }
    out.put(object ? '}' : ']');
}
}  // namespace

std::string text(const jv::Value& j, int indent) {
    Buf out;
    write_json(out, j, indent, 0);
    return out.str();
}

}  // namespace gpucalc::jw
