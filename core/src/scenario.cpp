// The scenario's plain types need almost no code: the bytes of an outer-exchange precision.
// Parsing and validation live in scenario_parse.cpp; the echo in scenario_fields.cpp.
#include "gpucalc/scenario.hpp"

namespace gpucalc {

double outer_precision_bytes(OuterPrecision p) {
    switch (p) {
        case OuterPrecision::fp32:
            return 4.0;
        case OuterPrecision::bf16:
            return 2.0;
        case OuterPrecision::int8:
            return 1.0;
        case OuterPrecision::int4:
            return 0.5;
        case OuterPrecision::int2:
            return 0.25;
    }
    return 4.0;
}

}  // namespace gpucalc
