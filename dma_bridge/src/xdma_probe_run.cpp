// run_probe (xdma_probe.hpp): probe_xilinx_ip's work on one device, written as lines.
#include <cstdio>
#include <optional>
#include <ostream>
#include <sstream>

#include "base/format.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_probe.hpp"

namespace xdma {
namespace {

constexpr unsigned kPciBars = 6;
constexpr uint64_t kMsixTableOffset = 0x8000;  // PG195 Register Space: target 0x8, MSI-X

using pdt::hex32;

// Each BAR that exists, by size only (no access); the DMA BAR is the one probed.
void list_bars(vfio::Device& device, unsigned dma_bar, std::ostream& out) {
    const std::string bdf = device.identity().address.to_string();
    for (unsigned index = 0; index < kPciBars; ++index) {
        auto bar = device.bar(index);
        if (!bar.ok())
            continue;
        if (index == dma_bar)
            out << "Probing BAR " << index << " in device " << bdf << " of size " << pdt::hex((*bar)->size()) << "\n";
        else
            out << "Not probing BAR " << index << " in device " << bdf << " of size " << pdt::hex((*bar)->size())
                << ": the design data names no XDMA registers there (a read of an unimplemented AXI address can "
                   "hang the host)\n";
    }
}

// The MSI-X capability (PCI Local Bus 3.0, 6.8.2: ID 0x11; Message Control [10:0] table size - 1;
// Table Offset/BIR: BIR [2:0], offset [31:3]) read from config space: the table has no
// identifier register, so it is never read. PG195 places it at 0x8000 of the DMA BAR.
struct Msix {
    unsigned vectors = 0;
    unsigned bir = 0;
    uint32_t offset = 0;
};
std::optional<Msix> find_msix(vfio::Device& device) {
    auto status = device.config_read16(vfio::cfg::STATUS);
    auto pointer = device.config_read8(vfio::cfg::CAPABILITIES_POINTER);
    if (!status.ok() || !pointer.ok() || !(*status & 0x10))  // Status.Capabilities List
        return std::nullopt;
    unsigned at = *pointer & 0xFC;
    for (unsigned hops = 0; at >= 0x40 && hops < 48; ++hops) {
        auto id = device.config_read8(at);
        auto next = device.config_read8(at + 1);
        if (!id.ok() || !next.ok())
            return std::nullopt;
        if (*id == 0x11) {
            auto control = device.config_read16(at + 2);
            auto table = device.config_read32(at + 4);
            if (!control.ok() || !table.ok())
                return std::nullopt;
            return Msix{(*control & 0x7FFu) + 1, *table & 0x7u, *table & ~0x7u};
        }
        at = *next & 0xFC;
    }
    return std::nullopt;
}

std::string report_msix(vfio::Device& device, unsigned dma_bar) {
    const std::optional<Msix> msix = find_msix(device);
    if (!msix)
        return "MSI-X: none (no MSI-X capability in config space)";
    std::ostringstream out;
    out << "MSI-X table of " << msix->vectors << " vectors in BAR " << msix->bir << " at offset " << pdt::hex(msix->offset)
        << " (config space MSI-X capability; not read: the block has no identifier register)";
    if (msix->bir == dma_bar && msix->offset == kMsixTableOffset)
        out << ": Xilinx DMA bridge at BAR offset " << pdt::hex(kMsixTableOffset) << " MSI-X";
    return out.str();
}

void report_test(const RegisterTest& test, std::ostream& out) {
    out << (test.ok() ? "PASS " : "FAIL ") << test.channel << " " << test.name << ": " << test.patterns
        << " patterns written and read back, " << test.mismatches.size() << " mismatched; restored "
        << hex32(test.original) << (test.restored == test.original ? "" : " but read " + hex32(test.restored)) << " ["
        << test.source << "]\n";
    for (const std::string& mismatch : test.mismatches)
        out << "  " << mismatch << "\n";
}

pdt::Result<ProbeSummary::RegisterRead> read_one(vfio::Device& device, unsigned dma_bar,
                                                 const std::vector<FoundBlock>& blocks, const RegisterRequest& request,
                                                 std::ostream& out) {
    PDT_CHECK(check_request(device, dma_bar, 0, blocks, request));
    vfio::Bar* bar = PDT_TRY(device.bar(request.bar));
    const uint64_t value = PDT_TRY(bar->read(request.offset, request.width));
    const std::string name = *allowed_register(blocks, request.offset);
    out << "BAR " << request.bar << " offset " << pdt::hex(request.offset) << " " << name << " = " << hex32(value) << "\n";
    return ProbeSummary::RegisterRead{name, value};
}

// fpga_sio's -b/-s/-e: the window's frames scanned, nothing else read.
pdt::Result<ProbeSummary> probe_window(vfio::Device& device, const ScanWindow& window, std::ostream& out) {
    const vfio::RegisterWindow regs = PDT_TRY(check_scan_window(device, window));
    const std::string bdf = device.identity().address.to_string();
    const uint64_t bar_size = PDT_TRY(device.bar(window.bar))->size();
    if (regs.base() != 0 || regs.size() != bar_size)
        out << "Probing part of BAR " << window.bar << " in device " << bdf << " over range " << pdt::hex(regs.base())
            << ".." << pdt::hex(regs.base() + regs.size()) << "\n";
    else
        out << "Probing BAR " << window.bar << " in device " << bdf << " of size " << pdt::hex(bar_size) << "\n";
    ProbeSummary summary;
    summary.blocks = PDT_TRY(scan_window(regs));
    for (const FoundBlock& block : summary.blocks) {
        out << describe(block, 0) << "\n";
        if (const std::string alignments = describe_alignments(regs, block); !alignments.empty())
            out << alignments << "\n";
    }
    return summary;
}

}  // namespace

pdt::Result<ProbeSummary> run_probe(vfio::Device& device, unsigned dma_bar, const ProbeOptions& options, std::ostream& out) {
    if (options.window)
        return probe_window(device, *options.window, out);
    if (options.read) {  // a bad request fails here, before any register access
        PDT_TRY(check_access(device, *options.read));
        if (options.read->bar != dma_bar)
            PDT_CHECK(check_request(device, dma_bar, 0, {}, *options.read));
    }
    list_bars(device, dma_bar, out);
    const vfio::RegisterWindow regs = PDT_TRY(dma_registers(device, dma_bar));
    ProbeSummary summary;
    summary.blocks = PDT_TRY(scan_blocks(regs));
    for (const FoundBlock& block : summary.blocks)
        out << describe(block, 0) << "\n";
    summary.msix = report_msix(device, dma_bar);
    out << summary.msix << "\n";
    if (options.read)
        summary.register_read = PDT_TRY(read_one(device, dma_bar, summary.blocks, *options.read, out));
    if (!options.write_tests)
        return summary;
    summary.tests = PDT_TRY(write_tests(regs, summary.blocks));
    unsigned not_restored = 0;
    for (const RegisterTest& test : summary.tests) {
        report_test(test, out);
        ++summary.registers_tested;
        summary.registers_failed += test.ok() ? 0 : 1;
        not_restored += test.restored == test.original ? 0 : 1;
    }
    out << "Register write tests: " << summary.registers_tested << " registers, " << summary.registers_failed
        << " failed, " << (summary.registers_tested - not_restored) << " of " << summary.registers_tested
        << " read back their value from before the test\n";
    return summary;
}

}  // namespace xdma
