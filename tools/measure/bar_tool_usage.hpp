// The usage checks that time_memmapped and memmapped_persistence share: the message of the first
// of their option values that did not parse, and, once their own request is checked, --device's
// locations and the design files (--design_file).
#pragma once

#include <optional>
#include <string>

#include "base/result.hpp"
#include "cli/device_options.hpp"
#include "designs/registry.hpp"

namespace bar_tool_usage {

// The message of the first of `parsed` (option values, in the order the tool checks them) that
// is an error; nullopt when every one parsed.
template <typename... T>
std::optional<std::string> first_error(const pdt::Result<T>&... parsed) {
    std::optional<std::string> message;
    ((message || parsed.ok() ? void() : void(message = parsed.error().message())), ...);
    return message;
}

// The registry of the designs the tool runs on; when the request, a --device or a design file is
// wrong, the first error is printed as "Error: <message>" and nullopt returned (main returns 2).
std::optional<designs::Registry> checked_registry(const std::optional<std::string>& request_error,
                                                  const cli::DeviceSelection& selection);

}  // namespace bar_tool_usage
