// Errors are data: a code, the JSON path of the offending field, and a message.
// Nothing in core throws across its public API; every estimator reports problems here.
#pragma once
#include <string>
#include <vector>

namespace gpucalc {

struct Error {
    std::string code;     // machine-readable: "missing", "type", "range", "unknown_device", ...
    std::string field;    // JSON path of the field, e.g. "training.tp" or "hardware.device"
    std::string message;  // human-readable, names the field and the rule
};

using Errors = std::vector<Error>;

inline void add_error(Errors& errors, std::string code, std::string field, std::string message) {
    errors.push_back(Error{std::move(code), std::move(field), std::move(message)});
}

}  // namespace gpucalc
