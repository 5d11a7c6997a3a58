// What dma_to_device and dma_from_device share (tools/user_design/, their mains' alone): the
// options that name the card memory and the copy, their checks, the opening of the design's card
// memory (adapters/design_memory.hpp) and the report of the copy's times and rate.
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "adapters/design_memory.hpp"
#include "cli/device_options.hpp"
#include "tool_support/bar_tool_usage.hpp"
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

// --device, --sim_design, --design_file, --address, --size, --count, --transfer_timeout,
// --lock_timeout, --no_iommu, --verbose and --json (the file option and --offset are each tool's).
void add_card_options(boost::program_options::options_description& options, CardToolOptions& o);

// The checked numbers of the command line.
struct CardRequest {
    std::optional<uint64_t> address;  // nullopt: the card memory's first byte
    uint64_t size = 0;                // 0: not given
    unsigned count = 1;
    std::chrono::milliseconds timeout{0};
};
// The message of the first usage error of the options (nullopt when none); `request` filled.
// `size_required`: --size must be given. --device, --lock_timeout and --design_file are checked
// after it by tool_support::checked_usage, as the BAR tools check theirs.
std::optional<std::string> parse_card_request(const CardToolOptions& o, bool size_required, CardRequest& request);

// The design's card memory, opened as the checked options select it (the reasons of a failure on stderr).
pdt::Result<adapters::DesignMemory> open_card_memory(tool_support::CheckedUsage checked, bool no_iommu);

// The card range `request` names for `bytes` (the address defaults to the card memory's first byte).
pdt::Result<user_design::CardRange> requested_range(const adapters::DesignMemory& memory, const CardRequest& request,
                                                    uint64_t bytes);

// What a copy did, as the report shows it.
struct CopyReport {
    std::string tool;       // "dma_to_device"
    std::string direction;  // "to" or "from"
    std::string file;       // the file's name ("standard input")
    uint64_t file_offset = 0;
    uint64_t address = 0;   // the card's bus address of the first byte
    user_design::CopyTimes times;
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
