// test_dma_descriptor_credits' experiment modes (fpga_sio's letters), beside its credit tests:
//   -r/--reset_test   the registers of the DMA engine (XDMA designs) or of QEMU's edu before and
//                     after VFIO_DEVICE_RESET (vfio_access/reset_registers.hpp)
//   -o/--iova_offsets D,H,C
//                     an edu transfer whose source IOVA is moved by H and destination IOVA by C,
//                     to provoke IOMMU faults; the faults named (the simulated IOMMU lists them),
//                     every host byte outside the transfer checked unchanged (D, the descriptor
//                     offset of fpga_sio's XDMA rings, must be 0: an edu transfer has none)
//   -f/--fork, -a/--fork_mappings, -b/--fork_buffers, -m/--dontfork
//                     what fork() does to pinned DMA buffers (credits_fork.hpp), through an edu's
//                     DMA (QEMU's, in the guest, or --edu_sim) or the card memory of an XDMA
//                     memory-mapped design (H2C 0 and C2H 0)
// Both open any vfio-pci --device (a known design or not), --sim_design designs, or the
// simulated edu of --edu_sim.
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "designs/registry.hpp"
#include "stream_tools/credits_fork.hpp"
#include "tool_support/device_targets.hpp"

namespace stream_tools {

struct CreditsModeTexts {
    bool reset_test = false, dontfork = false, edu_sim = false;
    std::string fork, mappings, buffers, iova_offsets;
};
void add_credits_mode_options(boost::program_options::options_description& options, CreditsModeTexts& texts);

struct IovaOffsets {
    uint64_t descriptors = 0, h2c = 0, c2h = 0;
};
// "D,H,C", each a number (0x.. hex).
pdt::Result<IovaOffsets> parse_iova_offsets(const std::string& text);

struct CreditsModes {
    bool reset_test = false;
    std::optional<IovaOffsets> iova_offsets;
    std::optional<ForkOptions> fork;  // any of -f/-a/-b/-m given
    bool edu_sim = false;
    bool any() const { return reset_test || fork || iova_offsets || edu_sim; }
};
// Usage errors name the option: -a above 2, -a/-b/-m without -f, more than one of -r, -f and -o,
// --edu_sim alone, -o not three numbers.
pdt::Result<CreditsModes> parse_credits_modes(const CreditsModeTexts& texts);

// The exit status: 0 the registers were read after the reset on every device, 1 a device failed
// (a reset refused, a device whose reset-test registers are not known).
int run_reset_test(const designs::Registry& registry, const tool_support::TargetSelection& selection, bool edu_sim,
                   std::FILE* out);
// The exit status: 0 every transfer verified, 1 a transfer corrupted (or a failure), as the
// tool's verdict line says.
int run_fork_test(const designs::Registry& registry, const tool_support::TargetSelection& selection,
                  const ForkOptions& options, bool edu_sim, std::FILE* out);

// The exit status: 0 nothing outside the transfer changed (the faults named), 1 host memory
// outside it changed, or a failure.
int run_iova_offsets(const designs::Registry& registry, const tool_support::TargetSelection& selection,
                     const IovaOffsets& offsets, bool edu_sim, std::FILE* out);
// One device (credits_iova.cpp).
int run_iova_offsets_on(const tool_support::DeviceTarget& target, const IovaOffsets& offsets, std::FILE* out);

}  // namespace stream_tools
