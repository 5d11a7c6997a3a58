// The body of test_dma_bridge: on every identified design with a DMA bridge (XDMA), or a QDMA
// with card memory (MM queue pairs) or stream routes (stream_fixed_buffers), the card-memory
// tests (memory-mapped designs, every H2C x C2H pair up to max_channel_combinations) or the
// stream tests (stream designs, every loopback route, a fixed amount of data verified byte
// for byte: stream_fixed_buffers, and stream_subtests.hpp's stream_fixed_buffers_c2h_continuous
// and stream_variable_transfers). Prints fpga_sio's lines, then the bytes each test verified on each
// channel pair. Overall PASS only when every test verified data and none failed; a design with
// a DMA bridge that nothing could be verified on (no channel, no loopback route) is a FAIL
// with the reason, and so is a run that tested nothing.
#pragma once

#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dma_bridge/xdma_ip.hpp"
#include "identify/identify.hpp"
#include "stream_tools/memory_tests.hpp"
#include "stream_tools/stream_tools.hpp"
#include "stream_tools/verdict.hpp"

namespace stream_tools {

inline const std::vector<std::string> kDmaBridgeTests{"memory_boundaries", "memory_fixed_buffers", "memory_variable_transfers",
                                                      "memory_host_chunks", "memory_addressing",
                                                      "stream_fixed_buffers", "stream_fixed_buffers_c2h_continuous",
                                                      "stream_variable_transfers"};

struct DmaBridgeTestOptions {
    MemoryTestOptions memory;  // memory_base / memory_size come from each design
    std::optional<uint64_t> memory_base_override;
    std::optional<uint64_t> memory_size_override;
    unsigned max_channel_combinations = 16;
    std::set<std::string> enabled;  // empty: every test
    StreamRunOptions stream;        // stream designs: H2C buffers, timeouts, json, host memory limit
    xdma::ModeRequest modes;        // every design's engine modes (--engine_mode, --completion)
    size_t c2h_num_descriptors = 64;          // --stream_num_descriptors <h2c>,<c2h>: the C2H half
    uint64_t c2h_mapping_size = 0x40000000;   // --stream_mapping_size <h2c>,<c2h>: the C2H half
    uint64_t stream_axi_width_bytes = 16;     // C2H buffers and receives: whole stream beats
    std::vector<DeviceRouting> routing;       // --device_routing
    // --sim_design: the simulated card memory a test writes is held by this process, so it
    // counts against --host_memory_limit with the host buffers.
    bool simulated_card_memory = false;
    // QDMA designs: memory tests on MM queue pairs H2C q / C2H q for q < qdma_queues; the
    // descriptor rings' entries (a QDMA_GLBL_RNG_SZ value; 0: 65 for memory, the smallest
    // holding the buffers for streams).
    unsigned qdma_queues = 1;
    uint32_t qdma_ring_entries = 0;
    bool qdma_interrupts = false;  // memory tests: completion by MSI-X through an interrupt aggregation ring
};

// Returns the exit status: 0 Overall PASS, 1 Overall FAIL. With options.stream.json, JSON
// Lines go to out and fpga_sio's text lines to stderr.
int run_test_dma_bridge(std::vector<identify::IdentifiedDesign>& designs, const DmaBridgeTestOptions& options,
                        std::FILE* out);

}  // namespace stream_tools
