// test_dma_descriptor_credits' experiment modes (fpga_sio's letters), beside its credit tests:
//   -r/--reset_test   the registers of the DMA engine (XDMA designs) or of QEMU's edu before and
//                     after VFIO_DEVICE_RESET (vfio_access/reset_registers.hpp)
//   -f/--fork, -a/--fork_mappings, -b/--fork_buffers, -m/--dontfork
//                     what fork() does to pinned DMA buffers (credits_fork.hpp), through an edu's
//                     DMA (QEMU's, in the guest, or --edu_sim)
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
    std::string fork, mappings, buffers;
};
void add_credits_mode_options(boost::program_options::options_description& options, CreditsModeTexts& texts);

struct CreditsModes {
    bool reset_test = false;
    std::optional<ForkOptions> fork;  // any of -f/-a/-b/-m given
    bool edu_sim = false;
    bool any() const { return reset_test || fork || edu_sim; }
};
// Usage errors name the option: -a above 2, -a/-b/-m without -f, -r with -f, --edu_sim alone.
vfio::Result<CreditsModes> parse_credits_modes(const CreditsModeTexts& texts);

// The exit status: 0 the registers were read after the reset on every device, 1 a device failed
// (a reset refused, a device whose reset-test registers are not known).
int run_reset_test(const designs::Registry& registry, const tool_support::TargetSelection& selection, bool edu_sim,
                   std::FILE* out);
// The exit status: 0 every transfer verified, 1 a transfer corrupted (or a failure), as the
// tool's verdict line says.
int run_fork_test(const designs::Registry& registry, const tool_support::TargetSelection& selection,
                  const ForkOptions& options, bool edu_sim, std::FILE* out);

}  // namespace stream_tools
