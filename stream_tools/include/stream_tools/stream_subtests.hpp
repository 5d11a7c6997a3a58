// test_dma_bridge's stream sub-tests beyond stream_fixed_buffers (fpga_sio_behaviour.md 3.3),
// each on one route, H2C data keyed by the stream word index, every received byte checked
// against what the card function returns (stream_test/expected_data.hpp):
//   loopback    the H2C packets, cut into C2H pieces, EOP on the last piece of each packet;
//   crc64       one 8-byte piece with EOP per H2C packet, its CRC-64; H2C packets are whole
//               tdata beats (packet_granularity);
//   fixed_data  zeros, full C2H buffers, no EOP, whatever H2C sent (H2C goes to a sink).
// (fpga_sio's source checks every stream design as a loopback, so its CRC64 and fixed-data
// designs cannot pass there.)
//   stream_fixed_buffers_c2h_continuous  the C2H ring in continuous mode: PG195 descriptor
//       credit mode disabled on the C2H channel and its descriptors linked in a circle with no
//       STOP, so the engine follows the ring for ever; completions are read from the Completed
//       Descriptor Count register and each buffer's stream writeback. Each H2C buffer is one
//       packet; an iteration sends no more packets than the C2H ring holds.
//   stream_variable_transfers  H2C transfers of transfer_length (cut at the end of the H2C
//       mapping), each one packet over as many descriptors as it needs; C2H receives planned
//       per H2C packet, at most one descriptor each (so the returned length is exact), EOP only
//       on the last piece of a packet (crc64: one receive per packet; fixed_data: receives of
//       the same sizes, each filled full).
//   In continuous mode a fixed-data source does not wait for software and may lap the ring:
//   the buffers it overwrote before they were read are counted and reported, not verified.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "dma_bridge/xdma_ip.hpp"
#include "stream_test/driver.hpp"
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
    std::chrono::milliseconds timeout{cli::kDefaultTransferTimeout};
    pattern::WorkerPool* pool = nullptr;
    xdma::IpOptions ip;       // what the design states about its XDMA IP
    xdma::ModeRequest modes;  // --engine_mode, --completion of the xdma::Engine channels
    streams::CardFunction function = streams::CardFunction::Loopback;  // what the card returns
    uint64_t packet_granularity = 4;  // H2C packets are multiples of it (crc64: the tdata width)
};

// What a stream test verified, as it prints it before TEST PASS: for crc64 first "CRC64 verified
// for <n> H2C packets (<b> bytes)", then "<Test pattern|CRC64 results|Fixed data> verified in <w>
// words"; each line ends with a newline.
std::string verified_lines(streams::CardFunction function, uint64_t words, uint64_t h2c_packets,
                           uint64_t h2c_bytes);

// Each prints its "Testing ..." line, the timing blocks and TEST PASS / TEST FAIL to out.
MemoryTestResult stream_fixed_buffers_c2h_continuous(vfio::Device& device, const StreamSubtestOptions& options,
                                                     std::FILE* out);
MemoryTestResult stream_variable_transfers(vfio::Device& device, const StreamSubtestOptions& options,
                                           std::FILE* out);

}  // namespace stream_tools
