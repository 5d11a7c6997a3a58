// probe_xilinx_ip: finds the XDMA register blocks (PG195 Register Space) of each identified
// design by their identifier registers and prints each with its decoded identifier. Read-only
// unless --write_tests: then the SGDMA descriptor address registers of every stopped channel
// are pattern-tested and restored (xdma_probe.hpp). --bar/--offset reads one allow-listed
// register. Exit status: 0 probed, 1 a device failed, a request was refused or a register test
// failed, 2 usage error.
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
    std::string bar, offset, width = "4";
    bool write_tests = false, json = false;
    std::string lock_timeout;
};

void add_probe_options(po::options_description& desc, Options& options) {
    desc.add_options()("bar", po::value(&options.bar), "with --offset: the BAR of one register to read")(
        "offset", po::value(&options.offset), "with --bar: the byte offset of one allow-listed register to read")(
        "width", po::value(&options.width), "with --offset: the access width in bytes (XDMA registers: 4)")(
        "write_tests", po::bool_switch(&options.write_tests),
        "pattern-test and restore the SGDMA descriptor address registers of every stopped channel (writes!)");
    cli::add_json_option(desc, options.json, cli::JsonForm::Document);
    cli::add_lock_timeout_option(desc, options.lock_timeout);
}

struct ProbeRequest {
    xdma::ProbeOptions probe;
    bool json = false;  // stdout holds one JSON document; the text lines are not written
};

// --bar/--offset/--width as a request; the message of a usage error.
std::optional<std::string> parse_request(const Options& options, ProbeRequest& request) {
    request.json = options.json;
    xdma::ProbeOptions& probe = request.probe;
    probe.write_tests = options.write_tests;
    if (options.bar.empty() && options.offset.empty())
        return std::nullopt;
    if (options.bar.empty() || options.offset.empty())
        return "--bar and --offset go together";
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
        auto result = xdma::run_probe(*design.device, design.design->dma_bridge->bar, request.probe, text);
        entries += (entries.empty() ? "" : ",\n  ") +
                   probe_json::design_json(bdf, name, design.design->dma_bridge->bar, request.probe, result);
        if (!result.ok()) {
            text.flush();
            std::cerr << "Error: " << result.error().message() << "\n";
            status = 1;
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
