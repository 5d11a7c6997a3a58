// measure_ddr_throughput's run on each design found with an AXI DMA (PG021): fpga_sio's three
// measurements where nothing can be verified, else the verified one (axi_dma/ddr_throughput.hpp),
// its lines, the bytes verified and the verdict of each, and the JSON document of --json.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tool_support/bar_tool_usage.hpp"

namespace ddr_throughput {

struct Request {
    std::vector<std::string> sim_designs;
    std::vector<std::string> devices;
    std::optional<uint64_t> memory_size;  // --memory_size: bytes from address 0 (default: all the design gives)
    std::chrono::milliseconds timeout{0};  // --transfer_timeout
    bool json = false;
};

// 0 when every AXI DMA found verified its bytes; 1 when one did not (or none was found).
int run(const tool_support::CheckedUsage& checked, const Request& request);

}  // namespace ddr_throughput
