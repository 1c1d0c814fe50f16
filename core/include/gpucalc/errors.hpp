// Errors are data: a code, the JSON path of the offending field, and a message.
// Nothing in core throws across its public API; every estimator reports problems here.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc {

struct Error {
    std::string code;     // machine-readable: "missing", "type", "range", "unknown_device", ...
    std::string field;    // JSON path of the field, e.g. "training.tp" or "hardware.device"
    std::string message;  // human-readable, names the field and the rule
};

using Errors = std::vector<Error>;

// Every error code the core emits, with its meaning: `gpucalc schema` lists them and docs/SCHEMA.md's
// table is generated from here; a unit test checks that every code in core/src is listed.
struct ErrorCodeDoc {
    std::string_view code, meaning;
};
inline constexpr ErrorCodeDoc kErrorCodes[] = {
    {"malformed_json", "the text is not JSON"},
    {"too_large", "more than 1 MiB of scenario text"},
    {"too_deep", "arrays/objects nested deeper than 64 levels"},
    {"type", "a field has the wrong JSON type"},
    {"range", "a number outside its range, or a whole number required"},
    {"choice", "a string that is not one of the field's choices"},
    {"missing", "a required field is absent"},
    {"unknown_field", "a key that no table knows (typos are never ignored)"},
    {"duplicate_key", "a key given twice in one object (which one was meant is not guessed)"},
    {"unknown_device", "a device id not in the catalog (`gpucalc devices`)"},
    {"unknown_preset", "a model preset id not in the presets (`gpucalc presets`)"},
    {"divisibility", "parallel sizes that do not divide the devices, heads, experts, batch or sequence"},
    {"conflict", "fields that cannot be combined (e.g. ZeRO-2/3 with pipeline parallelism outside FSDP)"},
    {"unsupported", "the device has no figure the scenario needs (e.g. no FP8 peak)"},
    {"unknown_metric", "a claim checks a figure the report does not have"},
    {"undefined", "a claim checks a figure that is null for the scenario (e.g. days of a run that does not fit)"},
    {"catalog", "an entry of the embedded catalog is malformed (a build fault, reported by `gpucalc devices`)"},
    {"internal", "a fault in gpucalc itself (please report it with the scenario)"},
    {"too_many_errors", "the last entry of a list cut at 100 errors: how many more there are"},
};
// An answer lists at most this many errors (the last one then says how many more there are).
inline constexpr std::size_t kMaxErrorsListed = 100;
inline bool known_error_code(std::string_view code) {
    for (const auto& c : kErrorCodes)
        if (c.code == code) return true;
    return false;
}

inline void add_error(Errors& errors, std::string code, std::string field, std::string message) {
    errors.push_back(Error{std::move(code), std::move(field), std::move(message)});
}

}  // namespace gpucalc
