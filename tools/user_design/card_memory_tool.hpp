// What dma_to_device and dma_from_device share (tools/user_design/, their mains' alone): their
// main, the options that name the card memory and the copy, their checks, the opening of the
// design's card memory (adapters/design_memory.hpp) and the report of the copy's times and rate.
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "adapters/design_memory.hpp"
#include "cli/device_options.hpp"
#include "tool_support/bar_tool_main.hpp"
#include "user_design/card_copy.hpp"

namespace user_design_tool {

struct CardToolOptions : cli::DeviceSelection {
    std::string file;             // --file (-f): "-" for standard input or output
    std::string address;          // --address (-a): empty: the card memory's first byte
    std::string size;             // --size (-s)
    std::string count = "1";      // --count (-c)
    std::string lock_timeout;     // --lock_timeout
    std::string transfer_timeout = std::to_string(cli::kDefaultTransferTimeout.count());
    bool json = false, verbose = false, no_iommu = false;
};

// --address, --size, --count, --transfer_timeout, --lock_timeout, --no_iommu, --verbose and
// --json, after the device selection (--device, --sim_design, --design_file).
void add_card_options(boost::program_options::options_description& options, CardToolOptions& o);

// The checked command line.
struct CardRequest {
    std::string file;                 // --file: "-" for standard input or output
    std::optional<uint64_t> address;  // nullopt: the card memory's first byte
    uint64_t size = 0;                // 0: not given
    unsigned count = 1;
    std::chrono::milliseconds timeout{0};
    bool json = false, verbose = false, no_iommu = false;
};
// The message of the first usage error of the options (nullopt when none); `request` filled.
// `size_required`: --size must be given. --device, --lock_timeout and --design_file are checked
// after it by tool_support::checked_usage, as the BAR tools check theirs.
std::optional<std::string> parse_card_request(const CardToolOptions& o, bool size_required, CardRequest& request);

// A card tool's main (tool_support::bar_tool_main): --help and --version, the tool's own options
// (`file_options`: its --file and what goes with it), the device selection, the card options;
// the tool's request checked (`parse_request`, then the device selection); its run.
template <typename Options, typename Request>
int card_tool_main(int argc, char** argv, const std::string& summary,
                   typename tool_support::BarTool<Options, Request>::AddOptions file_options,
                   std::optional<std::string> (*parse_request)(const Options&, Request&),
                   int (*run)(tool_support::CheckedUsage, const Request&)) {
    return tool_support::bar_tool_main<Options, Request>(
        argc, argv, {summary, file_options, add_card_options, parse_request, run, &Options::lock_timeout});
}

// The design's card memory, opened as the checked usage selects it (the reasons of a failure on
// stderr), and the range on it that `request` names for `bytes` (the address defaults to the card
// memory's first byte).
struct CardTarget {
    adapters::DesignMemory memory;
    user_design::CardRange range;
};
pdt::Result<CardTarget> open_card_range(tool_support::CheckedUsage checked, const CardRequest& request, uint64_t bytes);

// What a copy did, as the report shows it.
struct CopyReport {
    std::string tool;       // "dma_to_device"
    std::string direction;  // "to" or "from"
    std::string file;       // the file's name ("standard input")
    uint64_t file_offset = 0;
    uint64_t address = 0;   // the card's bus address of the first byte
    user_design::CopyTimes times;
    // The IP's own count of the copy (streams::CopyEndpoint::ip_counts), where it keeps one.
    std::vector<std::string> ip_counts;
};

// The text report: the copy, each repetition with --verbose, and the average, in dma_ip_drivers'
// order (size, time, rate) with the arithmetic done in bytes and nanoseconds.
void print_copy(std::ostream& out, const adapters::DesignMemory& memory, const CopyReport& report, bool verbose);
// The JSON document's fields of the copy (the tool adds its own and ends it).
std::string copy_json_fields(const adapters::DesignMemory& memory, const CopyReport& report);

// "Error: <message>" on stderr, the options of the hint's requests named; the exit status (2 for
// a usage error, else 1).
int fail(const pdt::Error& error);

}  // namespace user_design_tool
