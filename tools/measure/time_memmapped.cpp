// time_memmapped (fpga_sio's name): times CPU accesses to one BAR of a device (a --sim_design
// design, or any vfio-pci --device: a known design or QEMU's edu), 1, 2, 4, 8 and 64 bytes at a
// time, through VFIO's uncached mapping and, for a prefetchable BAR, the kernel's
// write-combined one (mmio_timing.hpp). Reads only, unless --write. On --sim_design designs
// the figures are the model's cost, not a device's. Exit status: 0 timed, 1 a device failed or
// the access was refused, 2 usage error.
#include "base/numbers.hpp"
#include "measure/mmio_timing.hpp"
#include "time_memmapped_run.hpp"
#include "tool_support/bar_tool_main.hpp"

namespace po = boost::program_options;

namespace {

struct Options : cli::DeviceSelection {
    std::string bar, offset = "0", widths = "1,2,4,8,64", count = "1000";
    bool write = false, json = false;
};

void add_timing_options(po::options_description& desc, Options& o) {
    desc.add_options()("bar", po::value(&o.bar), "the BAR to time (required)")(
        "offset", po::value(&o.offset), "byte offset of the accesses in the BAR (default 0)")(
        "widths", po::value(&o.widths), "access widths in bytes (default 1,2,4,8,64)")(
        "count", po::value(&o.count), "accesses per figure (default 1000)")(
        "write", po::bool_switch(&o.write), "time writes too (each writes back the value read there first)");
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
}

std::optional<std::string> parse_request(const Options& o, time_memmapped::Selection& selection) {
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
    selection = {o.sim_designs, o.devices, static_cast<unsigned>(*b), {}, o.json};
    selection.request = {*offset, {}, static_cast<unsigned>(*count), o.write};
    for (uint64_t w : *widths)
        selection.request.widths.push_back(static_cast<unsigned>(std::min<uint64_t>(w, 0xFFFFFFFF)));
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<Options, time_memmapped::Selection>(
        argc, argv,
        {"Times read and write accesses to a BAR.", {}, add_timing_options, parse_request, time_memmapped::run});
}
