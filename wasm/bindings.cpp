// Embind adapter: exposes the same JSON-in/JSON-out entry points as the CLI. No logic lives here.
// core never throws, so no exception can cross this boundary.
#include <emscripten/bind.h>

#include <string>

#include "gpucalc/api.hpp"

namespace {
std::string version() { return gpucalc::kVersion; }
}  // namespace

EMSCRIPTEN_BINDINGS(gpucalc) {
    emscripten::function("estimate", &gpucalc::estimate_json);
    emscripten::function("plan", &gpucalc::plan_json);
    emscripten::function("devices", &gpucalc::devices_json);
    emscripten::function("presets", &gpucalc::presets_json);
    emscripten::function("reality", &gpucalc::reality_json);
    emscripten::function("schema", &gpucalc::schema_json_text);
    emscripten::function("networks", &gpucalc::networks_json);
    emscripten::function("version", &version);
}
