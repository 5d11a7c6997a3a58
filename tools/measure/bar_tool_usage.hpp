// The usage checks that time_memmapped and memmapped_persistence make in the same order once
// their own options are parsed: the tool's request error first, then --device's locations, then
// the design files (--design_file).
#pragma once

#include <optional>
#include <string>

#include "cli/device_options.hpp"
#include "designs/registry.hpp"

namespace bar_tool_usage {

// The registry of the designs the tool runs on; when the request, a --device or a design file is
// wrong, the first error is printed as "Error: <message>" and nullopt returned (main returns 2).
std::optional<designs::Registry> checked_registry(const std::optional<std::string>& request_error,
                                                  const cli::DeviceSelection& selection);

}  // namespace bar_tool_usage
