// Inverse questions answered with the forward model (inverse.cpp): what can N x device train in
// D days or for $X, and how many devices does model M on D tokens need by a deadline.
#pragma once
#include "gpucalc/errors.hpp"
#include "gpucalc/json_value.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// `s` is parsed without the layout rules (hardware; + model and training.tokens for gpus_needed).
// Returns the answer object, or records errors (field paths under "inverse").
jv::Value answer_inverse(const Scenario& s, const InverseQuestion& q, Errors& errors);

}  // namespace gpucalc
