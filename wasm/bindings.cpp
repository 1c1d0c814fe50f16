// Embind adapter: exposes the same JSON-in/JSON-out entry points as the CLI. No logic lives here.
// core never throws, so no exception can cross this boundary.
//
// Results come back as JS strings decoded by the browser's TextDecoder straight from the module's
// memory: embind's own std::string conversion scans the text byte by byte in JS, which cost more
// than writing the report.
#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "gpucalc/api.hpp"

namespace {

EM_JS(emscripten::EM_VAL, gpucalc_js_string, (const char* text, unsigned size),
      { return Emval.toHandle(UTF8Decoder ? UTF8Decoder.decode(HEAPU8.subarray(text, text + size)) : UTF8ToString(text, size)); });

emscripten::val js(const std::string& s) {
    return emscripten::val::take_ownership(gpucalc_js_string(s.data(), static_cast<unsigned>(s.size())));
}

emscripten::val estimate(const std::string& scenario) { return js(gpucalc::estimate_json(scenario)); }
emscripten::val plan(const std::string& scenario) { return js(gpucalc::plan_json(scenario)); }
emscripten::val explain(const std::string& scenario, const std::string& key) { return js(gpucalc::explain_json(scenario, key)); }
emscripten::val devices() { return js(gpucalc::devices_json()); }
emscripten::val presets() { return js(gpucalc::presets_json()); }
emscripten::val reality() { return js(gpucalc::reality_json()); }
emscripten::val schema() { return js(gpucalc::schema_json_text()); }
emscripten::val networks() { return js(gpucalc::networks_json()); }
std::string version() { return gpucalc::kVersion; }

}  // namespace

EMSCRIPTEN_BINDINGS(gpucalc) {
    emscripten::function("estimate", &estimate);
    emscripten::function("plan", &plan);
    emscripten::function("explain", &explain);
    emscripten::function("devices", &devices);
    emscripten::function("presets", &presets);
    emscripten::function("reality", &reality);
    emscripten::function("schema", &schema);
    emscripten::function("networks", &networks);
    emscripten::function("version", &version);
}
