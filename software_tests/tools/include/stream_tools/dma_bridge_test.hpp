// The body of test_dma_bridge: on every identified design with a DMA bridge, the card-memory
// tests (memory-mapped designs, every H2C x C2H pair up to max_channel_combinations) or the
// stream_fixed_buffers test (stream designs, every loopback route, a fixed amount of data
// verified byte for byte). Prints fpga_sio's lines; Overall PASS only when something was
// tested and everything passed.
#pragma once

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "identify/identify.hpp"
#include "stream_tools/memory_tests.hpp"
#include "stream_tools/stream_tools.hpp"

namespace stream_tools {

inline const std::vector<std::string> kDmaBridgeTests{"memory_fixed_buffers", "memory_variable_transfers",
                                                      "memory_host_chunks", "memory_addressing",
                                                      "stream_fixed_buffers"};

struct DmaBridgeTestOptions {
    MemoryTestOptions memory;  // memory_base / memory_size come from each design
    std::optional<uint64_t> memory_base_override;
    std::optional<uint64_t> memory_size_override;
    unsigned max_channel_combinations = 16;
    std::set<std::string> enabled;  // empty: every test
    StreamRunOptions stream;        // stream designs: buffers, timeouts, and the engine modes of every design
};

// Returns the exit status: 0 Overall PASS, 1 Overall FAIL.
int run_test_dma_bridge(std::vector<identify::IdentifiedDesign>& designs, const DmaBridgeTestOptions& options,
                        std::FILE* out);

}  // namespace stream_tools
