// test_dma_bridge's stream sub-tests beyond stream_fixed_buffers (fpga_sio_behaviour.md 3.3),
// each on one loopback route, data keyed by the stream word index and checked in full:
//   stream_fixed_buffers_c2h_continuous  the C2H ring in continuous mode: PG195 descriptor
//       credit mode disabled on the C2H channel and its descriptors linked in a circle with no
//       STOP, so the engine follows the ring for ever; completions are read from the Completed
//       Descriptor Count register and each buffer's stream writeback. Each H2C buffer is one
//       packet; an iteration sends no more packets than the C2H ring holds.
//   stream_variable_transfers  H2C transfers of transfer_length (cut at the end of the H2C
//       mapping), each one packet over as many descriptors as it needs; C2H receives planned
//       per H2C packet, at most one descriptor each (so the returned length is exact), EOP only
//       on the last piece of a packet.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "dma_bridge/xdma_ip.hpp"
#include "stream_tools/memory_tests.hpp"
#include "vfio_access/device.hpp"

namespace stream_tools {

struct StreamSubtestOptions {
    unsigned dma_bar = 0;
    unsigned h2c_channel = 0, c2h_channel = 0;
    size_t h2c_buffers = 64, c2h_buffers = 64;     // --stream_num_descriptors <h2c>,<c2h>
    uint64_t h2c_mapping = 0, c2h_mapping = 0;     // --stream_mapping_size <h2c>,<c2h>
    uint64_t h2c_transfer = 0, c2h_transfer = 0;   // --transfer_length <h2c>,<c2h>
    uint64_t min_bytes = 0;                        // stop once this many bytes were verified
    uint64_t stream_width = 4;                     // --stream_axi_width_bytes: C2H pieces whole beats
    unsigned dma_mask_bits = 64;
    vfio::BufferKind buffer_kind = vfio::BufferKind::Anonymous;
    std::chrono::milliseconds timeout{stream_test::kDefaultTransferTimeout};
    pattern::WorkerPool* pool = nullptr;
    xdma::IpOptions ip;       // what the design states about its XDMA IP
    xdma::ModeRequest modes;  // --engine_mode, --completion of the xdma::Engine channels
};

// Each prints its "Testing ..." line, the timing blocks and TEST PASS / TEST FAIL to out.
MemoryTestResult stream_fixed_buffers_c2h_continuous(vfio::Device& device, const StreamSubtestOptions& options,
                                                     std::FILE* out);
MemoryTestResult stream_variable_transfers(vfio::Device& device, const StreamSubtestOptions& options,
                                           std::FILE* out);

}  // namespace stream_tools
