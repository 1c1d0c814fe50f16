// Shortest round-trip text of a finite double, as nlohmann/json 3.11.2 writes it (Grisu2; dtoa.cpp).
#pragma once

namespace gpucalc::jw::detail {

// Writes the digits of the finite `value` at `first` (at least 32 bytes there); returns the end.
char* to_chars(char* first, const char* last, double value);

}  // namespace gpucalc::jw::detail
