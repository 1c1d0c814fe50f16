// Reality check: published runs next to our estimate (with the error), and concrete claims with a
// verdict. The runs and claims are data: core/data/reality.json, embedded at build time.
#pragma once
#include <nlohmann/json.hpp>

namespace gpucalc {

// The famous-runs table and every claim with its verdict.
nlohmann::json reality_report();

}  // namespace gpucalc
