// The usage checks that the BAR tools (time_memmapped, memmapped_persistence, probe_xilinx_ip,
// reg_rw, dma_to_device, dma_from_device: bar_tool_main.hpp) share: the message of the first of their option values that did not parse, the device the
// measuring ones must be given, and, once their own request is checked, --device's locations,
// --lock_timeout and the design files (--design_file).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "base/result.hpp"
#include "cli/device_options.hpp"
#include "designs/registry.hpp"
#include "tool_support/open_designs.hpp"

namespace tool_support {

// The message of the first of `parsed` (option values, in the order the tool checks them) that
// is an error; nullopt when every one parsed.
template <typename... T>
std::optional<std::string> first_error(const pdt::Result<T>&... parsed) {
    std::optional<std::string> message;
    ((message || parsed.ok() ? void() : void(message = parsed.error().message())), ...);
    return message;
}

// The message of a tool that runs on one named device when neither --device nor --sim_design
// names one; nullopt when one is named.
std::optional<std::string> unnamed_device_error(const cli::DeviceSelection& given);

// What a BAR tool runs on once its command line is checked.
struct CheckedUsage {
    designs::Registry registry;
    DesignSelection selection;  // --sim_design, --device's locations and --lock_timeout
};

// The designs and the selection the tool runs on; when the request, a --device, the
// `lock_timeout` text ("" for a tool without --lock_timeout: 0) or a design file is wrong, the
// first error, in that order, is printed as "Error: <message>" and nullopt returned (main
// returns 2).
std::optional<CheckedUsage> checked_usage(const std::optional<std::string>& request_error,
                                          const cli::DeviceSelection& given, const std::string& lock_timeout = "");

// The designs a tool's command line names, opened by open_designs (its progress lines on
// `progress`) once checked_usage passed them; status 2 when it did not (the error printed), else
// open_designs' status. The registry outlives nothing it holds: keep the two together.
struct NamedDesigns {
    int status = 0;
    std::unique_ptr<designs::Registry> registry;
    OpenedDesigns designs;
};
NamedDesigns open_named_designs(const cli::DeviceSelection& given, const std::string& lock_timeout,
                                std::ostream* progress);

}  // namespace tool_support
