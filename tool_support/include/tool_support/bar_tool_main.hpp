// The main of a BAR tool (time_memmapped, memmapped_persistence, probe_xilinx_ip, reg_rw and the
// card memory tools dma_to_device and dma_from_device), in one place: stdout line-buffered, the
// command line parsed in fpga_sio's wording (--help, --version, the tool's leading options, the
// device selection, the tool's other options), the tool's request read from the options and
// checked with the device selection (tool_support::checked_usage), then the tool's run.
//
//   int main(int argc, char** argv) {
//       return tool_support::bar_tool_main<Options, Request>(
//           argc, argv, {"Reads ...", {}, add_options, parse_request, run});
//   }
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "tool_support/bar_tool_usage.hpp"

namespace tool_support {

// What makes one BAR tool. `Options` is a cli::DeviceSelection with the tool's option values;
// `Request` all that the tool's run takes from them.
template <typename Options, typename Request>
struct BarTool {
    using AddOptions = std::function<void(boost::program_options::options_description&, Options&)>;
    std::string summary;  // --help's line after the usage line
    AddOptions leading;   // the options --help lists before --device, --sim_design and --design_file (may be empty)
    AddOptions options;   // the options after them (may be empty)
    // The request of the parsed options; the message of its first usage error, nullopt when none.
    std::function<std::optional<std::string>(const Options&, Request&)> parse_request;
    // The run on the checked usage; the exit status (0, or 1 when something failed).
    std::function<int(CheckedUsage, const Request&)> run;
    std::string Options::*lock_timeout = nullptr;  // --lock_timeout's text; null for a tool without it
};

// The exit status of the tool's run: 0 after --help or --version; 2 after a usage error (of the
// command line, the request, a --device, --lock_timeout or a design file: "Error: <message>");
// else the run's. `request` is where the request starts (memmapped_persistence's command line).
template <typename Options, typename Request>
int bar_tool_main(int argc, char** argv, const BarTool<Options, Request>& tool, Request request = {}) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Options options;
    boost::program_options::options_description description("Options");
    cli::add_help_and_version(description);
    if (tool.leading)
        tool.leading(description, options);
    cli::add_device_selection_options(description, options);
    if (tool.options)
        tool.options(description, options);
    if (auto status = cli::parse_fpga_sio_command_line(argc, argv, description, tool.summary))
        return *status;
    auto checked = checked_usage(tool.parse_request(options, request), options,
                                 tool.lock_timeout ? options.*tool.lock_timeout : std::string());
    if (!checked)
        return kUsageError;
    return tool.run(std::move(*checked), request);
}

}  // namespace tool_support
