#include "tool_support/bar_tool_usage.hpp"

#include <iostream>

#include "cli/option_names.hpp"

namespace tool_support {

std::optional<std::string> unnamed_device_error(const cli::DeviceSelection& given) {
    if (given.sim_designs.empty() && given.devices.empty())
        return "name the device: --device BDF (any vfio-pci device) or --sim_design NAME";
    return std::nullopt;
}

std::optional<CheckedUsage> checked_usage(const std::optional<std::string>& request_error,
                                          const cli::DeviceSelection& given, const std::string& lock_timeout) {
    std::string usage;
    auto locations = parse_locations(given.devices, "--device", usage);
    auto lock_wait = cli::parse_lock_timeout(lock_timeout);
    auto registry = designs::Registry::load(given.design_files);
    if (request_error || !locations || !lock_wait.ok() || !registry) {
        std::cerr << "Error: "
                  << (request_error     ? *request_error
                      : !locations      ? usage
                      : !lock_wait.ok() ? lock_wait.error().message()
                                        : cli::name_options(registry.error()).message())
                  << "\n";
        return std::nullopt;
    }
    CheckedUsage checked{std::move(registry).value(), {given.sim_designs, std::move(*locations)}};
    checked.selection.lock_timeout = *lock_wait;
    return checked;
}

NamedDesigns open_named_designs(const cli::DeviceSelection& given, const std::string& lock_timeout,
                                std::ostream* progress) {
    NamedDesigns named;
    auto checked = checked_usage(std::nullopt, given, lock_timeout);
    if (!checked) {
        named.status = kUsageError;
        return named;
    }
    named.registry = std::make_unique<designs::Registry>(std::move(checked->registry));
    named.designs = open_designs(*named.registry, checked->selection, progress, std::cerr);
    named.status = named.designs.status;
    return named;
}

}  // namespace tool_support
