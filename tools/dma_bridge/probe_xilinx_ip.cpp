// probe_xilinx_ip: finds the XDMA register blocks (PG195 Register Space) of each identified
// design by their identifier registers and prints each with its decoded identifier. Read-only
// unless --write_tests: then the SGDMA descriptor address registers of every stopped channel
// are pattern-tested and restored (xdma_probe.hpp). --bar/--offset reads one allow-listed
// register. -b alone, -s, -e (fpga_sio's options) scan a window of one BAR instead, reading only
// the identifier of each 256-byte frame (and a Channels block's Alignments). Exit status: 0
// probed, 1 a device failed, a request was refused or a register test failed, 2 usage error
// (a window outside the BAR or not aligned to 256 bytes included).
#include <iostream>
#include <sstream>

#include "base/numbers.hpp"
#include "dma_bridge/xdma_probe.hpp"
#include "probe_json.hpp"
#include "tool_support/bar_tool_main.hpp"
#include "tool_support/open_designs.hpp"

namespace po = boost::program_options;

namespace {

struct Options : cli::DeviceSelection {
    std::string bar, offset, width = "4", start_offset, end_offset;
    bool write_tests = false, json = false;
    std::string lock_timeout;
};

void add_probe_options(po::options_description& desc, Options& options) {
    desc.add_options()("bar,b", po::value(&options.bar),
                       "the BAR to scan (fpga_sio's -b; default the design's DMA BAR); with --offset: the BAR of one "
                       "register to read")(
        "start_offset,s", po::value(&options.start_offset), "scan from this BAR offset (default 0; a multiple of 0x100)")(
        "end_offset,e", po::value(&options.end_offset),
        "scan up to this BAR offset, exclusive (default the BAR's size; a multiple of 0x100)")(
        "offset", po::value(&options.offset), "with --bar: the byte offset of one allow-listed register to read")(
        "width", po::value(&options.width), "with --offset: the access width in bytes (XDMA registers: 4)")(
        "write_tests", po::bool_switch(&options.write_tests),
        "pattern-test and restore the SGDMA descriptor address registers of every stopped channel (writes!)");
    cli::add_json_option(desc, options.json, cli::JsonForm::Document);
    cli::add_lock_timeout_option(desc, options.lock_timeout);
}

struct ProbeRequest {
    xdma::ProbeOptions probe;
    bool window_on_dma_bar = false;  // -s/-e without -b: the window is in the design's DMA BAR
    bool json = false;  // stdout holds one JSON document; the text lines are not written
};

// -b/-s/-e as a window to scan (none when none is given); the message of a usage error.
std::optional<std::string> parse_window(const Options& options, ProbeRequest& request) {
    if (options.bar.empty() && options.start_offset.empty() && options.end_offset.empty())
        return std::nullopt;
    if (options.write_tests)
        return "--write_tests tests the design's DMA BAR: not with -b/-s/-e, whose scan is read-only";
    auto bar = pdt::parse_number("bar", options.bar.empty() ? "0" : options.bar, 0, 5);
    auto start = pdt::parse_number("start_offset", options.start_offset.empty() ? "0" : options.start_offset, 0, UINT64_MAX);
    auto end = pdt::parse_number("end_offset", options.end_offset.empty() ? "0" : options.end_offset, 0, UINT64_MAX);
    if (auto error = tool_support::first_error(bar, start, end))
        return error;
    request.window_on_dma_bar = options.bar.empty();
    request.probe.window = xdma::ScanWindow{static_cast<unsigned>(*bar), *start, std::nullopt};
    if (!options.end_offset.empty())
        request.probe.window->end = *end;
    return std::nullopt;
}

// --bar/--offset/--width as a request; the message of a usage error.
std::optional<std::string> parse_request(const Options& options, ProbeRequest& request) {
    request.json = options.json;
    xdma::ProbeOptions& probe = request.probe;
    probe.write_tests = options.write_tests;
    if (options.offset.empty())
        return parse_window(options, request);
    if (options.bar.empty())
        return "--offset names a register with --bar: give both";
    if (!options.start_offset.empty() || !options.end_offset.empty())
        return "-s/-e scan a window; --offset reads one register: give one or the other";
    auto bar = pdt::parse_number("bar", options.bar, 0, 255);
    auto offset = pdt::parse_number("offset", options.offset, 0, UINT64_MAX);
    auto width = pdt::parse_number("width", options.width, 1, 64);
    if (auto error = tool_support::first_error(bar, offset, width))
        return error;
    probe.read = xdma::RegisterRequest{static_cast<unsigned>(*bar), *offset, static_cast<unsigned>(*width)};
    return std::nullopt;
}

// Each identified design's XDMA blocks probed (--json: one document); the exit status.
int probe_designs(const tool_support::CheckedUsage& checked, const ProbeRequest& request) {
    std::ostringstream discarded;
    std::ostream& text = request.json ? discarded : std::cout;
    tool_support::OpenedDesigns opened = tool_support::open_designs(checked.registry, checked.selection,
                                                                    request.json ? &std::cerr : &std::cout, std::cerr);
    if (opened.found.designs.empty())
        return opened.status;
    int status = opened.status;
    std::string entries;
    for (const identify::IdentifiedDesign& design : opened.found.designs) {
        const std::string bdf = design.identity.address.to_string(), name = design.design->name;
        text << "Design " << name << " at " << bdf << ":\n";
        if (!design.design->dma_bridge) {
            text << "  not probed: the design data names no XDMA bridge\n";
            entries += (entries.empty() ? "" : ",\n  ") + probe_json::not_probed_json(bdf, name, "the design data names no XDMA bridge");
            continue;
        }
        xdma::ProbeOptions probe = request.probe;
        if (request.window_on_dma_bar)
            probe.window->bar = design.design->dma_bridge->bar;
        auto result = xdma::run_probe(*design.device, design.design->dma_bridge->bar, probe, text);
        entries += (entries.empty() ? "" : ",\n  ") +
                   probe_json::design_json(bdf, name, design.design->dma_bridge->bar, request.probe, result);
        if (!result.ok()) {
            text.flush();
            std::cerr << "Error: " << result.error().message() << "\n";
            status = result.error().usage ? tool_support::kUsageError : std::max(status, 1);
        } else if (result->registers_failed > 0) {
            status = 1;
        }
    }
    if (request.json)
        std::cout << "{\"designs\": [\n  " << entries << "\n]}\n";
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<Options, ProbeRequest>(
        argc, argv,
        {"Probes the XDMA register blocks of the identified FPGA designs (read-only unless --write_tests).", {},
         add_probe_options, parse_request, probe_designs, &Options::lock_timeout});
}
