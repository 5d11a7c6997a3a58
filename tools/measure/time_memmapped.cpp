// time_memmapped (fpga_sio's name): times CPU accesses to one BAR of a device (a --sim_design
// design, or any vfio-pci --device: a known design or QEMU's edu), 1, 2, 4, 8 and 64 bytes at a
// time, through VFIO's uncached mapping and, for a prefetchable BAR, the kernel's
// write-combined one (mmio_timing.hpp). Reads only, unless --write. --copy instead copies a whole
// window of BAR memory both ways, uncached and write-combined, as fpga_sio's
// time_memmapped_libpciaccess, verifying every byte (bar_copy.hpp; it writes the window). On
// --sim_design designs the figures are the model's cost, not a device's. Exit status: 0 timed
// (and with --copy every byte verified), 1 a device failed, the access was refused or a copy did
// not verify, 2 usage error.
#include "base/numbers.hpp"
#include "measure/mmio_timing.hpp"
#include "time_memmapped_run.hpp"
#include "tool_support/bar_tool_main.hpp"

namespace po = boost::program_options;

namespace {

struct Options : cli::DeviceSelection {
    std::string bar, offset = "0", widths = "1,2,4,8,64", count = "1000", size, copy_bytes = "64M";
    bool write = false, json = false, copy = false;
};

void add_timing_options(po::options_description& desc, Options& o) {
    desc.add_options()("bar", po::value(&o.bar), "the BAR to time (required)")(
        "offset", po::value(&o.offset), "byte offset of the accesses in the BAR (default 0)")(
        "widths", po::value(&o.widths), "access widths in bytes (default 1,2,4,8,64)")(
        "count", po::value(&o.count), "accesses per figure (default 1000)")(
        "write", po::bool_switch(&o.write), "time writes too (each writes back the value read there first)")(
        "copy", po::bool_switch(&o.copy),
        "instead: copy the window (BAR memory) host-to-card and card-to-host, uncached and write-combined, verifying "
        "every byte (writes!)")(
        "size", po::value(&o.size), "with --copy: bytes of the window (default from --offset to the BAR's end)")(
        "copy_bytes", po::value(&o.copy_bytes), "with --copy: bytes copied each way per mapping (default 64M)");
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
}

// --copy's window and volume.
std::optional<std::string> parse_copy(const Options& o, uint64_t offset, time_memmapped::Selection& selection) {
    if (o.json || o.write)
        return "--copy prints fpga_sio's timing blocks: not with --json or --write";
    auto size = o.size.empty() ? pdt::Result<uint64_t>(0) : pdt::parse_size(o.size);
    auto total = pdt::parse_size(o.copy_bytes);
    if (auto error = tool_support::first_error(size, total))
        return error;
    if ((!o.size.empty() && *size == 0) || *total == 0)
        return "--size and --copy_bytes must be more than 0";
    selection.copy = true;
    selection.copy_request = {selection.bar, offset, *size, *total, 1};
    return std::nullopt;
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
    if (o.copy)
        return parse_copy(o, *offset, selection);
    selection.request = {*offset, {}, static_cast<unsigned>(*count), o.write};
    for (uint64_t w : *widths)
        selection.request.widths.push_back(static_cast<unsigned>(std::min<uint64_t>(w, 0xFFFFFFFF)));
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    return tool_support::bar_tool_main<Options, time_memmapped::Selection>(
        argc, argv,
        {"Times read and write accesses to a BAR, or (--copy) copies of a whole window of BAR memory.", {}, add_timing_options, parse_request, time_memmapped::run});
}
