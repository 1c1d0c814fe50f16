// The module's adapter: the CLI's JSON-in/JSON-out entry points as three plain C functions, which
// wasm/post.js wraps as estimate(), plan(), explain(), devices(), presets(), reality(), schema(),
// networks() and version() on the module. No logic lives here; core never throws, so nothing but
// text crosses this boundary.
//
// Plain exports instead of Embind: Embind's JavaScript runtime was ~7 kB of the page's gzip weight
// (10.9 -> 4 kB of glue) for nine functions that take and return strings. Texts travel as UTF-8 in
// the module's memory with explicit lengths (a NUL inside a scenario is kept), and results are
// decoded by the browser's TextDecoder straight from that memory.
#include <emscripten.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "gpucalc/api.hpp"

namespace {

std::string input;   // the arguments, written by post.js: the first `first` bytes, then the second
std::string result;  // the last call's answer, valid until the next call

enum Entry { kEstimate, kPlan, kExplain, kDevices, kPresets, kReality, kSchema, kNetworks, kVersion };

}  // namespace

extern "C" {

// Room for `size` bytes of arguments; post.js copies them there before calling gpucalc_call.
EMSCRIPTEN_KEEPALIVE char* gpucalc_input(std::size_t size) {
    input.resize(size);
    return input.data();
}

// Runs `entry` on the arguments (the first `first` bytes of the input, then the rest) and returns
// the answer's address; gpucalc_result_size() is its length in bytes.
EMSCRIPTEN_KEEPALIVE const char* gpucalc_call(int entry, std::size_t first) {
    // The second argument (explain's key; empty for the others) is split off; the first stays in
    // `input` (a scenario is not copied again).
    first = std::min(first, input.size());
    const std::string b = input.substr(first);
    input.resize(first);
    const std::string& a = input;
    switch (entry) {
        case kEstimate:
            result = gpucalc::estimate_json(a);
            break;
        case kPlan:
            result = gpucalc::plan_json(a);
            break;
        case kExplain:
            result = gpucalc::explain_json(a, b);
            break;
        case kDevices:
            result = gpucalc::devices_json();
            break;
        case kPresets:
            result = gpucalc::presets_json();
            break;
        case kReality:
            result = gpucalc::reality_json();
            break;
        case kSchema:
            result = gpucalc::schema_json_text();
            break;
        case kNetworks:
            result = gpucalc::networks_json();
            break;
        case kVersion:
            result = gpucalc::kVersion;
            break;
        default:
            result = R"({"errors": [{"code": "internal", "field": "", "message": "no such entry point"}]})";
            break;
    }
    return result.data();
}

EMSCRIPTEN_KEEPALIVE std::size_t gpucalc_result_size() { return result.size(); }

}  // extern "C"
