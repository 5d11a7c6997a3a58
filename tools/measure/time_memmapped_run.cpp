#include "time_memmapped_run.hpp"

#include <cstdio>
#include <iostream>

#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_probe.hpp"
#include "tool_support/open_designs.hpp"
#include "vfio_access/format.hpp"
#include "vfio_access/kernel.hpp"

namespace time_memmapped {
namespace {

struct Target {
    vfio::Device* device = nullptr;
    std::vector<const designs::Design*> designs;  // the designs it may be (none: an unknown device)
    bool simulated = false;
};

// The widths a BAR's registers take: PG195's 32-bit XDMA registers in a design's DMA BAR; QEMU's
// edu device takes 4 and 8 bytes (QEMU docs/specs/edu.rst); otherwise every width timed.
std::vector<unsigned> bar_widths(const Target& t, unsigned bar) {
    for (const designs::Design* d : t.designs)
        if (d->dma_bridge && d->dma_bridge->bar == bar)
            return {4};
    const vfio::DeviceIdentity& id = t.device->identity();
    if (id.vendor_id == 0x1234 && id.device_id == 0x11e8)
        return {4, 8};
    return measure::kMmioWidths;
}

// On a design's XDMA DMA BAR only what probe_xilinx_ip allows: a register whose read has no side
// effect (Status 0x44 clears on read) and, with --write, a scratch register (writing back a value
// read elsewhere could clear RW1C Status bits or start an engine).
vfio::Result<void> check_dma_bar(const Target& t, const Selection& s) {
    bool dma_bar = false;
    for (const designs::Design* d : t.designs)
        dma_bar = dma_bar || (d->dma_bridge && d->dma_bridge->bar == s.bar);
    if (!dma_bar)
        return {};
    const vfio::RegisterWindow regs = PDT_TRY(xdma::dma_registers(*t.device, s.bar));
    const std::vector<xdma::FoundBlock> blocks = PDT_TRY(xdma::scan_blocks(regs));
    const std::string object = "BAR " + std::to_string(s.bar) + " offset " + vfio::hex(s.request.offset);
    if (!xdma::allowed_register(blocks, s.request.offset))
        return vfio::make_error("check BAR access", object, EPERM,
                                "not on probe_xilinx_ip's allow-list of the XDMA DMA BAR: no block found there names "
                                "a register whose read has no side effect (Status 0x44 clears on read)");
    if (s.request.write && !xdma::scratch_register(blocks, s.request.offset))
        return vfio::make_error("check BAR access", object, EPERM,
                                "--write on the XDMA DMA BAR only to an SGDMA Descriptor Low/High Address or Adjacent "
                                "register: writing back a value elsewhere could clear RW1C bits or start an engine");
    return {};
}

std::unique_ptr<measure::MmioAccessor> wc_accessor(const Target& t, unsigned bar, std::string& note) {
    if (t.simulated) {
        note = "WC: not available (simulated device: no sysfs resource" + std::to_string(bar) + "_wc)";
        return nullptr;
    }
    auto mapping = vfio::map_bar_write_combined(tool_support::kernel_options().sysfs_root, t.device->identity().address, bar);
    if (!mapping.ok()) {
        note = "WC: not available (" + mapping.error().message() + ")";
        return nullptr;
    }
    note = "WC: sysfs resource" + std::to_string(bar) + "_wc";
    return measure::write_combined_accessor(std::move(*mapping), bar);
}

std::string target_name(const Target& t) {
    const vfio::DeviceIdentity& id = t.device->identity();
    if (!t.designs.empty())
        return t.designs.front()->name;
    char text[16];
    std::snprintf(text, sizeof text, "%04x:%04x", id.vendor_id, id.device_id);
    return text;
}

int time_target(const Target& t, const Selection& s) {
    const std::string bdf = t.device->identity().address.to_string();
    auto checked = measure::check_timing_request(*t.device, s.bar, s.request, bar_widths(t, s.bar));
    auto allowed = checked.ok() ? check_dma_bar(t, s) : vfio::Result<void>{};
    if (!checked.ok() || !allowed.ok()) {
        std::cerr << "Error: " << bdf << ": " << (checked.ok() ? allowed.error() : checked.error()).message() << "\n";
        return 1;
    }
    std::vector<measure::MmioRow> rows = measure::time_accesses(*measure::uncached_accessor(**checked), s.request);
    std::string wc_note;
    if (auto wc = wc_accessor(t, s.bar, wc_note)) {
        std::vector<measure::MmioRow> wc_rows = measure::time_accesses(*wc, s.request);
        rows.insert(rows.end(), wc_rows.begin(), wc_rows.end());
    }
    if (s.json) {
        std::cout << measure::format_rows_json(rows, wc_note, t.simulated);
        return 0;
    }
    std::cout << "time_memmapped " << bdf << " " << target_name(t) << " BAR " << s.bar << " offset "
              << vfio::hex(s.request.offset) << "\n";
    if (t.simulated)
        std::cout << "Note: simulated design: these figures are the model's cost (a call into its register model), "
                     "not a device's\n";
    std::cout << measure::format_rows(rows) << wc_note << "\n";
    return 0;
}

int run_simulated(const designs::Registry& registry, const Selection& s) {
    tool_support::DesignSelection selection{s.sim_designs, {}};
    for (const std::string& text : s.devices)  // checked by the main
        selection.locations.push_back(vfio::PciAddress::parse(text).value());
    tool_support::OpenedDesigns opened =
        tool_support::open_designs(registry, selection, s.json ? &std::cerr : &std::cout, std::cerr);
    int status = opened.status;
    for (const identify::IdentifiedDesign& d : opened.found.designs)
        status = std::max(status, time_target({d.device.get(), {d.design}, true}, s));
    return status;
}

}  // namespace

int run(const designs::Registry& registry, const Selection& s) {
    if (!s.sim_designs.empty())
        return run_simulated(registry, s);
    vfio::KernelOptions options = tool_support::kernel_options();
    for (const std::string& text : s.devices)
        options.selection.add_location(vfio::PciAddress::parse(text).value());
    vfio::KernelDeviceBus bus(options);
    auto found = bus.scan();
    if (!found.ok() || found->empty()) {
        const auto why = tool_support::vfio_unavailable(options.dev_vfio_root);
        std::cerr << "Error: "
                  << (!found.ok() ? found.error().message()
                                  : "no vfio-pci device at the --device locations" + (why ? ": " + *why : std::string()))
                  << "\n";
        return 1;
    }
    int status = 0;
    for (const vfio::DeviceIdentity& identity : *found) {
        auto device = bus.open_device(identity);
        if (!device.ok()) {
            std::cerr << "Error: " << device.error().message() << "\n";
            status = 1;
            continue;
        }
        status = std::max(status, time_target({device->get(), registry.candidates(identity), false}, s));
    }
    return status;
}

}  // namespace time_memmapped
