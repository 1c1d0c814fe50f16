// Claims: "1,000 H100s = 18,432,000 CUDA cores", "GPT-4 took 25,000 A100 for 90-100 days". A claim
// is a set of checks on report figures, evaluated on a scenario as given or over a few values of
// up to three inputs; the verdict is consistent / inconsistent / depends / unverifiable, with the
// reason. Evaluation runs the typed estimators; work is bounded (at most 64 cases).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/errors.hpp"
#include "gpucalc/json_value.hpp"

namespace gpucalc {

struct ClaimCheck {
    std::string metric;  // dotted report path, e.g. "training.days"
    std::optional<double> expected, tolerance, min, max;
};
struct ClaimVary {
    std::string path;               // dotted scenario path, e.g. "training.mfu"
    std::vector<jv::Value> values;  // 1 to 16 values
};
struct Claim {
    std::vector<ClaimCheck> checks;  // 1 to 32
    std::vector<ClaimVary> vary;     // 0 to 3 inputs; their cases multiply (at most 64)
    std::string depends;             // the verdict depends on something the model cannot decide: why
    std::string unverifiable;        // the claim cannot fail, or its facts are not public: why
    bool size_to_traffic = false;    // each serving case on the GPUs its traffic needs (hardware.count = gpus_needed)
};

constexpr std::size_t kMaxClaimChecks = 32, kMaxVaryValues = 16, kMaxVaryInputs = 3, kMaxClaimCases = 64;

bool parse_claim(const jv::Value& j, const std::string& path, Claim& out, Errors& errors);
// `scenario` is the scenario JSON without the claim. Returns {verdict, reason, evaluations[]}.
jv::Value evaluate_claim(const jv::Value& scenario, const Claim& claim, Errors& errors);

// Value at a dotted path of a report: a number (booleans read as 1/0), or nullopt with `found`
// telling whether the key exists (null = undefined for this scenario) or not at all.
std::optional<double> report_value(const jv::Value& report, const std::string& path, bool& found);

}  // namespace gpucalc
