#include "bar_tool_usage.hpp"

#include <iostream>

#include "cli/option_names.hpp"
#include "tool_support/open_designs.hpp"

namespace bar_tool_usage {

std::optional<designs::Registry> checked_registry(const std::optional<std::string>& request_error,
                                                  const cli::DeviceSelection& selection) {
    std::string usage;
    auto locations = tool_support::parse_locations(selection.devices, "--device", usage);
    auto registry = designs::Registry::load(selection.design_files);
    if (request_error || !locations || !registry) {
        std::cerr << "Error: "
                  << (request_error ? *request_error
                      : !locations  ? usage
                                    : cli::name_options(registry.error()).message())
                  << "\n";
        return std::nullopt;
    }
    return std::move(registry).value();
}

}  // namespace bar_tool_usage
