// Reality check: published runs next to our estimate (with the error), and concrete claims with a
// verdict. The runs and claims are data: core/data/reality.json, embedded at build time.
#pragma once
#include "gpucalc/json_value.hpp"

namespace gpucalc {

// The famous-runs table and every claim with its verdict.
jv::Value reality_report();

}  // namespace gpucalc
