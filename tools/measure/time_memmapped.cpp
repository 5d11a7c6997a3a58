// time_memmapped (fpga_sio's name): times CPU accesses to one BAR of a device (a --sim_design
// design, or any vfio-pci --device: a known design or QEMU's edu), 1, 2, 4, 8 and 64 bytes at a
// time, through VFIO's uncached mapping and, for a prefetchable BAR, the kernel's
// write-combined one (mmio_timing.hpp). Reads only, unless --write. On --sim_design designs
// the figures are the model's cost, not a device's. Exit status: 0 timed, 1 a device failed or
// the access was refused, 2 usage error.
#include <cstdio>

#include "base/numbers.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "measure/mmio_timing.hpp"
#include "time_memmapped_run.hpp"
#include "tool_support/bar_tool_usage.hpp"

namespace po = boost::program_options;

namespace {

struct Options : cli::DeviceSelection {
    std::string bar, offset = "0", widths = "1,2,4,8,64", count = "1000";
    bool write = false, json = false;
};

std::optional<int> parse_options(int argc, char** argv, Options& o) {
    po::options_description desc("Options");
    cli::add_help_and_version(desc);
    cli::add_device_selection_options(desc, o);
    desc.add_options()("bar", po::value(&o.bar), "the BAR to time (required)")(
        "offset", po::value(&o.offset), "byte offset of the accesses in the BAR (default 0)")(
        "widths", po::value(&o.widths), "access widths in bytes (default 1,2,4,8,64)")(
        "count", po::value(&o.count), "accesses per figure (default 1000)")(
        "write", po::bool_switch(&o.write), "time writes too (each writes back the value read there first)");
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
    return cli::parse_fpga_sio_command_line(argc, argv, desc, "Times read and write accesses to a BAR.");
}

std::optional<std::string> parse_request(const Options& o, unsigned& bar, measure::MmioTimingRequest& request) {
    if (o.bar.empty())
        return "--bar is required";
    auto b = pdt::parse_number("bar", o.bar, 0, 5);
    auto offset = pdt::parse_number("offset", o.offset, 0, UINT64_MAX);
    auto count = pdt::parse_number("count", o.count, 1, 10000000);
    auto widths = pdt::parse_size_list(o.widths);
    if (auto error = tool_support::first_error(b, offset, count, widths))
        return error;
    if (auto error = tool_support::unnamed_device_error(o))
        return error;
    bar = static_cast<unsigned>(*b);
    request = {*offset, {}, static_cast<unsigned>(*count), o.write};
    for (uint64_t w : *widths)
        request.widths.push_back(static_cast<unsigned>(std::min<uint64_t>(w, 0xFFFFFFFF)));
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Options o;
    if (auto status = parse_options(argc, argv, o))
        return *status;
    time_memmapped::Selection selection{o.sim_designs, o.devices, 0, {}, o.json};
    auto checked = tool_support::checked_usage(parse_request(o, selection.bar, selection.request), o);
    if (!checked)
        return 2;
    return time_memmapped::run(checked->registry, selection);
}
