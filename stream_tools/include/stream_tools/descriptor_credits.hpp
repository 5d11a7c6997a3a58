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
#include "pattern/pattern.hpp"
#include "stream_test/driver.hpp"
#include "stream_tools/options.hpp"
#include "stream_tools/verdict.hpp"

namespace adapters {
class XdmaStreamDevice;
}  // namespace adapters

namespace stream_tools {

// The credit tests' rings: 1023 descriptors, the most the credit register can release, each of
// a 4 KiB page.
inline constexpr unsigned kCreditRing = 1023;
inline constexpr uint64_t kCreditPage = 4096;

pdt::Result<void> credit_register_test(vfio::Device& device, unsigned dma_bar);

struct CreditsOptions {
    std::vector<DeviceRouting> routing;
    std::chrono::milliseconds timeout{cli::kDefaultTransferTimeout};  // --transfer_timeout
    unsigned dma_mask_bits = 64;                                             // --a32: 32
    bool json = false;
    xdma::ModeRequest modes;  // the run mode is always credits; --completion applies
};

// Stream designs whose card is not a loopback (descriptor_credits_crc64_fixed_data.cpp), per route:
// CRC64 designs: 3 x 1023 messages of 64-bit LCG words growing one tdata beat at a time from
// just under a page, each answered by one 8-byte C2H packet checked against its CRC-64;
// fixed-data designs: as many messages into the H2C sink, and 3 x 1023 C2H pages checked to
// be zeros without EOP (each page holds non-zero bytes before it is credited).
// Each returns the C2H bytes it verified (8 per CRC64 result; the zero pages).
pdt::Result<uint64_t> crc64_stream_credits(adapters::XdmaStreamDevice& device, const streams::LoopRoute& route,
                                        std::chrono::milliseconds timeout, std::FILE* out);
pdt::Result<uint64_t> fixed_data_stream_credits(adapters::XdmaStreamDevice& device, const streams::LoopRoute& route,
                                             std::chrono::milliseconds timeout, std::FILE* out);

// The stream credit tests' H2C step: message number `message`, `bytes` long, filled with the
// pattern's words from `word` on (`word` moves past them), in its buffer (message modulo the
// buffer count) and submitted as one packet.
pdt::Result<void> submit_pattern_message(streams::StreamChannel& h2c, const pattern::Pattern& pat, uint64_t message,
                                         uint64_t bytes, uint64_t& word);

// Whether the design's XDMA IP has descriptor credits: as its design data states, else by
// register read-back on H2C 0 (xdma::probe_ip). The error names why it cannot be tested.
pdt::Result<void> require_descriptor_credits(vfio::Device& device, unsigned dma_bar, const xdma::IpOptions& stated);

// Prints "Test: PASS|FAIL" per design and the steps' lines, then the bytes verified on each
// route (verdict.hpp); returns the exit status. A design with no channel pair, no loopback
// route or no card memory page fails with the reason.
int run_descriptor_credits(std::vector<identify::IdentifiedDesign>& designs, const CreditsOptions& options,
                           std::FILE* out);

}  // namespace stream_tools
