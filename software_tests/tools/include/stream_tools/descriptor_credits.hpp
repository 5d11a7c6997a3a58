// test_dma_descriptor_credits: PG195 has no race-free way to append to a running descriptor
// list; a ring released by Descriptor Credits keeps the engine running. This test checks
//   1. the Descriptor Credits register (H2C channel 0, descriptor fetch halted): with credit
//      mode enabled, credits added k at a time read back as their sum up to 1023, and
//      disabling credit mode resets them to 0;
//   2. rings of 1023 descriptors driven only by credits: on memory-mapped designs 4 KiB pages
//      written and read back, each C2H descriptor credited as its H2C page completes; on
//      stream designs, per loopback route, 3 x 1023 messages growing one word at a time from
//      just under a page (most span descriptors), each C2H piece checked for length, EOP only
//      on a message's last piece, and data.
// Unlike fpga_sio, the exit status is honest: 0 only when every design and route passed; a
// design whose XDMA IP has no descriptor credits FAILs with that reason (nothing to test).
#pragma once

#include <cstdio>
#include <vector>

#include "dma_bridge/xdma_ip.hpp"
#include "identify/identify.hpp"
#include "stream_test/stream_test.hpp"
#include "stream_tools/options.hpp"
#include "stream_tools/verdict.hpp"

namespace stream_tools {

vfio::Result<void> credit_register_test(vfio::Device& device, unsigned dma_bar);

struct CreditsOptions {
    std::vector<DeviceRouting> routing;
    std::chrono::milliseconds timeout{stream_test::kDefaultTransferTimeout};  // --transfer_timeout
    unsigned dma_mask_bits = 64;                                             // --a32: 32
    bool json = false;
    xdma::ModeRequest modes;  // the run mode is always credits; --completion applies
};

// Whether the design's XDMA IP has descriptor credits: as its design data states, else by
// register read-back on H2C 0 (xdma::probe_ip). The error names why it cannot be tested.
vfio::Result<void> require_descriptor_credits(vfio::Device& device, unsigned dma_bar, const xdma::IpOptions& stated);

// Prints "Test: PASS|FAIL" per design and the steps' lines, then the bytes verified on each
// route (verdict.hpp); returns the exit status. A design with no channel pair, no loopback
// route or no card memory page fails with the reason.
int run_descriptor_credits(std::vector<identify::IdentifiedDesign>& designs, const CreditsOptions& options,
                           std::FILE* out);

}  // namespace stream_tools
