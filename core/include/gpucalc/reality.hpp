// Reality check: published runs next to our estimate (with the error), concrete claims with a
// verdict, and inverse questions ("what can this cluster train?", "how many GPUs do I need?").
// The runs and claims are data: core/data/reality.json, embedded at build time.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/errors.hpp"

namespace gpucalc {

// The famous-runs table and every claim with its verdict.
nlohmann::json reality_report();
std::string reality_json();

// Evaluates a claim ({"checks": [...], "vary": {...}, "depends": "..."}) against `scenario` (a scenario
// without the claim key). Verdict: "consistent" | "inconsistent" | "depends" with the reason.
nlohmann::json evaluate_claim(const nlohmann::json& scenario, const nlohmann::json& claim, Errors& errors);

// Inverse questions. `scenario` holds hardware (+ model and training.tokens for gpus_needed) and
// "inverse": {"question": "what_can_train" | "gpus_needed", "days": D | "budget_usd": X,
// "tokens_per_param": 20}. Returns the answer object or records errors.
nlohmann::json answer_inverse(const nlohmann::json& scenario, Errors& errors);

}  // namespace gpucalc
