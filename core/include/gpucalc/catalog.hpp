// The hardware catalog: core/data/devices.json, embedded at build time (no fetch at run time).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/device.hpp"
#include "gpucalc/errors.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/json_value.hpp"

namespace gpucalc {

// All catalog devices, parsed once. Parse problems in the embedded data are programming errors and
// are caught by the catalog test; catalog_errors() lists them.
const std::vector<Device>& catalog();
const Errors& catalog_errors();
const Device* find_device(std::string_view id);

// A device in SI units, and the whole catalog {"schema_version", "devices": [...]} (`gpucalc devices`).
void write_device(jw::Val out, const Device& d);
void write_catalog(jw::Val out);
jv::Value device_to_json(const Device& d);
jv::Value catalog_to_json();

}  // namespace gpucalc
