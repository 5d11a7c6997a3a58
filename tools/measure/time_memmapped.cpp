// time_memmapped (fpga_sio's name): times CPU accesses to one BAR of a device, 1, 2, 4, 8 and
// 64 bytes at a time, through VFIO's uncached mapping and, for a prefetchable BAR, the kernel's
// write-combined one (mmio_timing.hpp). Reads only, unless --write. On --sim_design designs
// the figures are the model's cost, not a device's. Exit status: 0 timed, 1 a device failed or
// the access was refused, 2 usage error.
#include <cstdio>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/device_options.hpp"
#include "measure/mmio_timing.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/numbers.hpp"

namespace po = boost::program_options;

namespace {

struct Options {
    std::vector<std::string> devices, sim_designs, design_files;
    std::string bar, offset = "0", widths = "1,2,4,8,64", count = "1000";
    bool write = false, json = false;
};

std::optional<int> parse_options(int argc, char** argv, Options& o) {
    po::options_description desc("Options");
    cli::add_help_and_version(desc);
    cli::add_device_option(desc, o.devices);
    cli::add_sim_design_option(desc, o.sim_designs);
    cli::add_design_file_option(desc, o.design_files);
    desc.add_options()("bar", po::value(&o.bar), "the BAR to time (required)")(
        "offset", po::value(&o.offset), "byte offset of the accesses in the BAR (default 0)")(
        "widths", po::value(&o.widths), "access widths in bytes (default 1,2,4,8,64)")(
        "count", po::value(&o.count), "accesses per figure (default 1000)")(
        "write", po::bool_switch(&o.write), "time writes too (each writes back the value read there first)");
    cli::add_json_option(desc, o.json, cli::JsonForm::Document);
    return cli::parse_command_line(argc, argv,
                                   {desc, cli::fpga_sio_usage(argv[0], "Times read and write accesses to a BAR.")});
}

// The widths a BAR's registers take: PG195's 32-bit XDMA registers; QEMU's edu device takes 4
// and 8 bytes (docs/specs/edu.rst); otherwise every width this tool times.
std::vector<unsigned> bar_widths(const identify::IdentifiedDesign* design, const vfio::DeviceIdentity& id, unsigned bar) {
    if (design && design->design->dma_bridge && design->design->dma_bridge->bar == bar)
        return {4};
    if (id.vendor_id == 0x1234 && id.device_id == 0x11e8)
        return {4, 8};
    return measure::kMmioWidths;
}

std::optional<std::string> parse_request(const Options& o, unsigned& bar, measure::MmioTimingRequest& request) {
    if (o.bar.empty())
        return "--bar is required";
    auto b = vfio::parse_number("bar", o.bar, 0, 5);
    auto offset = vfio::parse_number("offset", o.offset, 0, UINT64_MAX);
    auto count = vfio::parse_number("count", o.count, 1, 10000000);
    auto widths = vfio::parse_size_list(o.widths);
    for (const vfio::Error* e : {b.ok() ? nullptr : &b.error(), offset.ok() ? nullptr : &offset.error(),
                                 count.ok() ? nullptr : &count.error(), widths.ok() ? nullptr : &widths.error()})
        if (e)
            return e->message();
    bar = static_cast<unsigned>(*b);
    request = {*offset, {}, static_cast<unsigned>(*count), o.write};
    for (uint64_t w : *widths)
        request.widths.push_back(static_cast<unsigned>(std::min<uint64_t>(w, 0xFFFFFFFF)));
    return std::nullopt;
}

std::unique_ptr<measure::MmioAccessor> wc_accessor(const identify::IdentifiedDesign& d, unsigned bar, bool simulated,
                                                   std::string& note) {
    if (simulated) {
        note = "WC: not available (simulated device: no sysfs resource" + std::to_string(bar) + "_wc)";
        return nullptr;
    }
    auto mapping = vfio::map_bar_write_combined(tool_support::kernel_options().sysfs_root, d.identity.address, bar);
    if (!mapping.ok()) {
        note = "WC: not available (" + mapping.error().message() + ")";
        return nullptr;
    }
    note = "WC: sysfs resource" + std::to_string(bar) + "_wc";
    return measure::write_combined_accessor(std::move(*mapping), bar);
}

int time_design(const identify::IdentifiedDesign& d, unsigned bar, const measure::MmioTimingRequest& request,
                bool simulated, bool json) {
    auto checked = measure::check_timing_request(*d.device, bar, request, bar_widths(&d, d.identity, bar));
    if (!checked.ok()) {
        std::cerr << "Error: " << d.identity.address.to_string() << ": " << checked.error().message() << "\n";
        return 1;
    }
    std::vector<measure::MmioRow> rows = measure::time_accesses(*measure::uncached_accessor(**checked), request);
    std::string wc_note;
    if (auto wc = wc_accessor(d, bar, simulated, wc_note)) {
        std::vector<measure::MmioRow> wc_rows = measure::time_accesses(*wc, request);
        rows.insert(rows.end(), wc_rows.begin(), wc_rows.end());
    }
    if (json) {
        std::cout << measure::format_rows_json(rows, wc_note, simulated);
        return 0;
    }
    std::cout << "time_memmapped " << d.identity.address.to_string() << " " << d.design->name << " BAR " << bar
              << " offset 0x" << std::hex << request.offset << std::dec << "\n";
    if (simulated)
        std::cout << "Note: simulated design: these figures are the model's cost (a call into its register model), "
                     "not a device's\n";
    std::cout << measure::format_rows(rows) << wc_note << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Options o;
    if (auto status = parse_options(argc, argv, o))
        return *status;
    unsigned bar = 0;
    measure::MmioTimingRequest request;
    std::string usage;
    auto locations = tool_support::parse_locations(o.devices, "--device", usage);
    auto registry = designs::Registry::load(o.design_files);
    auto request_error = parse_request(o, bar, request);
    if (request_error || !locations || !registry) {
        std::cerr << "Error: " << (request_error ? *request_error : !locations ? usage : registry.error().message()) << "\n";
        return 2;
    }
    tool_support::DesignSelection selection{o.sim_designs, *locations};
    tool_support::OpenedDesigns opened = tool_support::open_designs(*registry, selection, o.json ? &std::cerr : &std::cout, std::cerr);
    if (opened.found.designs.empty())
        return opened.status;
    int status = opened.status;
    for (const identify::IdentifiedDesign& d : opened.found.designs)
        status = std::max(status, time_design(d, bar, request, !o.sim_designs.empty(), o.json));
    return status;
}
