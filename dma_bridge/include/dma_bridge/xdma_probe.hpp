// probe_xilinx_ip's library part: finds the XDMA register blocks of a DMA BAR by their
// identifier registers (PG195 "Register Space": subsystem identifier 0x1FC in [31:20], target
// [19:16], stream [15], channel ID [11:8], version [7:0]), reads one allow-listed register a
// user names, and runs register pattern tests on the registers PG195 leaves without effect while
// an engine is stopped, restoring each.
//
// Safety: reads touch only the identifier register (offset 0x00) of each 256-byte slot where
// PG195 defines a block carrying one (targets 0..6), inside the DMA register space; nothing else of any BAR
// is read unless a user names it and it is on the allow-list. Writes happen only in
// write_tests(), only on scratch_registers(), and only on a channel whose Control.run and
// Status.busy are clear.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "vfio_access/bar_access.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/mmio.hpp"
#include "vfio_access/reset_registers.hpp"

namespace xdma {

// One block found by its identifier register.
struct FoundBlock {
    uint64_t offset = 0;  // from the start of the DMA register space
    uint32_t identifier = 0;
    uint32_t target() const;     // [19:16]
    bool stream() const;         // [15], channels and SGDMA only
    unsigned channel_id() const; // [11:8]
    unsigned version() const;    // [7:0]
};

// Reads the identifier register of every 256-byte slot PG195 defines that fits `regs` (channels
// 0..3 of H2C/C2H Channels and SGDMA, the one IRQ, Config and SGDMA Common block), keeping those
// whose [31:20] is 0x1FC and whose target (and channel ID) match the slot. ENODEV when an identifier reads 0xFFFFFFFF (the device is gone).
pdt::Result<std::vector<FoundBlock>> scan_blocks(const vfio::RegisterWindow& regs);

// "H2C Channels", "C2H Channels", "IRQ Block", "Config Block", "H2C SGDMA", "C2H SGDMA",
// "SGDMA Common", "MSI-X" (PG195's target names); "target 0x7" for others.
std::string target_name(uint32_t target);
// fpga_sio's line: "Xilinx DMA bridge at BAR offset 0x1000 C2H Channels stream=AXI4-Stream
// Interface channel_id_target=0 version=6 identifier=0x1fc18006".
std::string describe(const FoundBlock& block, uint64_t bar_offset);

// A register PG195 leaves without side effect while the channel's engine is stopped.
struct ScratchRegister {
    uint32_t target = 0;   // H2C SGDMA (4) or C2H SGDMA (5)
    uint32_t offset = 0;   // within the channel's block
    const char* name = "";
    uint32_t mask = 0;     // the bits PG195 lists as RW
    const char* source = "";  // the PG195 table naming it
};
const std::vector<ScratchRegister>& scratch_registers();

// A register a user asks to read: BAR, offset and width checked before any access.
using RegisterRequest = vfio::BarAccess;
// The checks, in order, each an error naming the request and why, made before any register
// access: the BAR exists (ENODEV), the offset lies inside it (ERANGE), the width is one the
// XDMA registers take (32-bit only, EINVAL), the offset is aligned to it (EINVAL), the BAR is
// the DMA BAR (EPERM) and the register is on the allow-list of `blocks` (EPERM with the reason).
pdt::Result<void> check_request(vfio::Device& device, unsigned dma_bar, uint64_t register_offset,
                                const std::vector<FoundBlock>& blocks, const RegisterRequest& request);
// The same checks without the allow-list (vfio::check_bar_access with PG195's 32-bit width).
pdt::Result<vfio::Bar*> check_access(vfio::Device& device, const RegisterRequest& request);
// The name of a scratch register (scratch_registers()) at `offset` of a found block, if one is.
std::optional<std::string> scratch_register(const std::vector<FoundBlock>& blocks, uint64_t offset);
// "Control (0x04)", the PG195 name of an allow-listed register at `offset` of a found block.
std::optional<std::string> allowed_register(const std::vector<FoundBlock>& blocks, uint64_t offset);

struct RegisterTest {
    std::string channel;    // "H2C 0"
    std::string name;       // "H2C SGDMA Descriptor Low Address (0x4080)"
    const char* source = "";
    unsigned patterns = 0;  // patterns written and read back
    std::vector<std::string> mismatches;  // "wrote 0x... read 0x... (mask 0x...)"
    uint32_t original = 0;
    uint32_t restored = 0;  // read back after restoring `original`
    bool ok() const { return mismatches.empty() && restored == original; }
};
// The pattern tests (0s, 1s, 0xAA.., 0x55.., walking 1, walking 0, each within the register's
// mask) on every scratch register of every channel found, each restored to its value before.
// EBUSY naming the channel when its Control.run or Status.busy is set: nothing is written then.
pdt::Result<std::vector<RegisterTest>> write_tests(const vfio::RegisterWindow& regs, const std::vector<FoundBlock>& blocks);
// The patterns written to a register of `mask` (masked; duplicates kept in order).
std::vector<uint32_t> test_patterns(uint32_t mask);

// Part of one BAR to scan as fpga_sio's -b/-s/-e: the 256-byte frames of [start, end); end
// defaults to the BAR's size.
struct ScanWindow {
    unsigned bar = 0;
    uint64_t start = 0;
    std::optional<uint64_t> end;
};
// The window checked before any access: the BAR exists (ENODEV), start and end are multiples of
// the 256-byte frame (PG195 Register Space: a block per 256 bytes) and start < end <= the BAR's
// size; else a usage error naming the window and the BAR's size.
pdt::Result<vfio::RegisterWindow> check_scan_window(vfio::Device& device, const ScanWindow& window);
// Reads the identifier register (offset 0) of every frame of `regs`, and nothing else, keeping
// those whose [31:20] is 0x1FC; as fpga_sio, a block that decodes no channel address bits (IRQ,
// Config, SGDMA Common) is skipped where the frame's [11:8] is not 0 (its aliases). Offsets
// are the BAR's. ENODEV when an identifier reads 0xFFFFFFFF (the device is gone).
pdt::Result<std::vector<FoundBlock>> scan_window(const vfio::RegisterWindow& regs);
// fpga_sio's second line of a Channels block found: "  addr_alignment=1 len_granularity=1
// address_bits=64", from its Alignments register (0x4C, read-only); empty for other blocks.
std::string describe_alignments(const vfio::RegisterWindow& regs, const FoundBlock& block);

// What probe_xilinx_ip asks of one device.
struct ProbeOptions {
    std::optional<RegisterRequest> read{};  // --bar/--offset/--width: one allow-listed register
    bool write_tests = false;             // --write_tests
    std::optional<ScanWindow> window{};   // -b/-s/-e: scan this window instead of the design's DMA BAR
};
struct ProbeSummary {
    std::vector<FoundBlock> blocks;
    std::string msix;  // the MSI-X line (config space capability), without its newline
    struct RegisterRead {
        std::string name;  // "Control (0x04)"
        uint64_t value = 0;
    };
    std::optional<RegisterRead> register_read;  // --bar/--offset
    std::vector<RegisterTest> tests;            // --write_tests
    unsigned registers_tested = 0;
    unsigned registers_failed = 0;  // a pattern mismatch or a value not restored
};
// With options.window, only that window is checked, then scanned (scan_window) and its blocks
// written, under fpga_sio's heading ("Probing part of BAR 2 in device <bdf> over range
// 0x1000..0x2000", or "Probing BAR 2 in device <bdf> of size 0x10000" for the whole BAR).
// Else the probe of one device whose XDMA registers start at offset 0 of `dma_bar` (design data),
// its lines written to `out`: each BAR with its size (only the DMA BAR is read), each block
// found (describe()), MSI-X from the config-space MSI-X capability (PG195 places its table at
// 0x8000 of the DMA BAR; it has no identifier register and is not read), the requested register and the write
// tests. A bad request fails before any register access; one off the allow-list after the scan.
pdt::Result<ProbeSummary> run_probe(vfio::Device& device, unsigned dma_bar, const ProbeOptions& options, std::ostream& out);

// The registers test_dma_descriptor_credits --reset_test reads across VFIO_DEVICE_RESET (fpga_sio's
// -r): H2C 0 Control and Status (read only), SGDMA Common Descriptor Credit Mode Enable (0x6020,
// H2C 0's bit written), H2C SGDMA 0 Descriptor Credits (0x408C, 0x1FD credits added) and H2C 0's
// Poll Mode Write Back Address (0x88/0x8C, 0xfeedabbadeadbeef). Nothing of it starts an engine:
// Run stays as it is (clear on a stopped channel). Offsets within `dma_bar`.
std::vector<vfio::ResetRegister> reset_test_registers(unsigned dma_bar);

}  // namespace xdma
