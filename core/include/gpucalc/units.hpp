// Unit constants. Every quantity in core is plain SI (bytes, seconds, FLOP, watts, USD) and the
// unit is in the field name; these constants convert the human units used in the data files.
#pragma once

namespace gpucalc::units {

constexpr double kilo = 1e3;
constexpr double mega = 1e6;
constexpr double giga = 1e9;
constexpr double tera = 1e12;
constexpr double peta = 1e15;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double seconds_per_hour = 3600.0;
constexpr double seconds_per_day = 86400.0;
constexpr double hours_per_year = 8760.0;

}  // namespace gpucalc::units
