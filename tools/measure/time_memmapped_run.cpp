#include "time_memmapped_run.hpp"

#include <cstdio>
#include <iostream>

#include "base/format.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_probe.hpp"
#include "tool_support/device_targets.hpp"
#include "tool_support/open_designs.hpp"

namespace time_memmapped {
namespace {

using Target = tool_support::DeviceTarget;

// On a design's XDMA DMA BAR only what probe_xilinx_ip allows: a register whose read has no side
// effect (Status 0x44 clears on read) and, with --write, a scratch register (writing back a value
// read elsewhere could clear RW1C Status bits or start an engine).
pdt::Result<void> check_dma_bar(const Target& t, const Selection& s) {
    if (!tool_support::is_dma_bar(t, s.bar))
        return {};
    const vfio::RegisterWindow regs = PDT_TRY(xdma::dma_registers(*t.device, s.bar));
    const std::vector<xdma::FoundBlock> blocks = PDT_TRY(xdma::scan_blocks(regs));
    const std::string object = "BAR " + std::to_string(s.bar) + " offset " + pdt::hex(s.request.offset);
    if (!xdma::allowed_register(blocks, s.request.offset))
        return pdt::make_error("check BAR access", object, EPERM,
                               "not on probe_xilinx_ip's allow-list of the XDMA DMA BAR: no block found there names "
                               "a register whose read has no side effect (Status 0x44 clears on read)");
    if (s.request.write && !xdma::scratch_register(blocks, s.request.offset))
        return pdt::make_error("check BAR access", object, EPERM,
                               "--write on the XDMA DMA BAR only to an SGDMA Descriptor Low/High Address or Adjacent "
                               "register: writing back a value elsewhere could clear RW1C bits or start an engine");
    return {};
}

int time_target(const Target& t, const Selection& s) {
    if (s.copy)
        return copy_target(t, s);
    const std::string bdf = t.device->identity().address.to_string();
    auto checked = measure::check_timing_request(*t.device, s.bar, s.request, tool_support::bar_widths(t, s.bar, measure::kMmioWidths));
    auto allowed = checked.ok() ? check_dma_bar(t, s) : pdt::Result<void>{};
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
    std::cout << "time_memmapped " << bdf << " " << tool_support::target_name(t) << " BAR " << s.bar << " offset "
              << pdt::hex(s.request.offset) << "\n";
    if (t.simulated)
        std::cout << "Note: simulated design: these figures are the model's cost (a call into its register model), "
                     "not a device's\n";
    std::cout << measure::format_rows(rows) << wc_note << "\n";
    return 0;
}

}  // namespace

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

int run(const tool_support::CheckedUsage& checked, const Selection& s) {
    return tool_support::for_each_target(checked.registry, {s.sim_designs, s.devices}, s.json ? std::cerr : std::cout,
                                        [&](const Target& t) { return time_target(t, s); });
}

}  // namespace time_memmapped
