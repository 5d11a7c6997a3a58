// measure_ddr_throughput's two measurements of a card memory behind an AXI DMA (axi_dma.hpp).
//
// fpga_sio's (run_fpga_sio): one or both channels go through the whole memory in the longest
// aligned transfers, each direction timed from its first start to its last Idle, the channels
// interleaved; a channel that halts with an error ends its direction ("DMA failed with
// DMASR=..."). Nothing is checked: in fpga_sio's design no byte can be.
//
// The verified one (run_verified), on a design whose M_AXIS_MM2S is looped to S_AXIS_S2MM and
// whose card memory the host reaches through a BAR window: the memory is two halves A and B;
// chunk by chunk, the host writes a keyed pattern (pattern/) into A and its complement (the
// decoy) into B, S2MM(B) and MM2S(A) run together, both channels are proven Idle by DMASR and
// S2MM_LENGTH by the bytes received, and B is read back and checked whole; then the same from B
// to A with a pattern of another key. Every byte is so written by S2MM once and read by MM2S
// once, and every byte S2MM wrote is verified.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "axi_dma/axi_dma.hpp"

namespace axi_dma {

// One direction's timing as fpga_sio's transfer_timing keeps it: each "transfer" is one pass
// of `bytes_per_pass` bytes.
struct Timing {
    uint64_t bytes_per_pass = 0;
    std::vector<double> pass_seconds;
};
// fpga_sio's lines: "MM2S timing for 1 transfers of 8589934592 bytes:" then "  Mean = ..."
// (with Min and Max around it for more than one pass).
std::string timing_lines(const char* direction, const Timing& timing);

struct FpgaSioDirection {
    bool tested = false;
    bool failed = false;         // the channel halted with DMASR `dmasr` at `address`
    uint32_t dmasr = 0;
    uint64_t address = 0;
    Timing timing;
};
struct FpgaSioRun {
    FpgaSioDirection mm2s, s2mm;
};
// fpga_sio's block: "Direction MM2S : <timing lines | Not tested | DMA failed with DMASR=0x%08x
// at start_address=0x%lx>", the same for S2MM, then an empty line.
std::string fpga_sio_lines(const FpgaSioRun& run);

// fpga_sio's measurement of the first `memory_size` bytes: reset, then the channels asked for.
// An error when the reset, a transfer that makes no progress within `timeout` or the stop that
// ends each tested channel (DMASR.Halted) fails.
pdt::Result<FpgaSioRun> run_fpga_sio(const AxiDma& dma, uint64_t memory_size, bool mm2s, bool s2mm,
                                     std::chrono::milliseconds timeout);

struct VerifiedRun {
    Timing mm2s, s2mm;           // a pass: half the memory, A to B or B to A
    uint64_t bytes_verified = 0; // bytes S2MM wrote that read back as the pattern
    std::optional<pdt::Error> failure;  // the first chunk that did not verify, or the IP's error
};
// The verified measurement of the first `memory_size` bytes (even, a multiple of twice the data
// width) through `memory` (the host's window on the card memory from address 0). Stops at the
// first failure, which it returns in `failure` with the bytes verified before it.
VerifiedRun run_verified(const AxiDma& dma, const vfio::RegisterWindow& memory, uint64_t memory_size,
                         std::chrono::milliseconds timeout);

}  // namespace axi_dma
