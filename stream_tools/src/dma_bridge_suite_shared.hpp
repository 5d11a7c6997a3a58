// The pieces of test_dma_bridge's suite that its XDMA part (dma_bridge_suite.cpp) and its QDMA
// part (dma_bridge_suite_qdma.cpp) share. Private to stream_tools.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "stream_tools/card_dma.hpp"
#include "stream_tools/dma_bridge_suite.hpp"

namespace stream_tools {

bool enabled(const DmaBridgeTestOptions& options, const std::string& test);
ChannelResult result_for(const identify::IdentifiedDesign& design, const std::string& test);
// base's result, for the loopback route's H2C and C2H channels (or queues).
ChannelResult on_route(ChannelResult base, const streams::LoopRoute& route);
// The card memory window tested: the design's (XDMA dma_bridge, else qdma), or the overrides.
MemoryTestOptions memory_options(const identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options);
// fpga_sio's lines before each test of a design: "Testing <design> design <what>" (`what`: "with
// AXI stream", or memory_design_header's "with memory base address 0x<b> size 0x<s>") and
// "PCI device <bdf> IOMMU group <g>", each ending in a newline.
std::string design_header(const identify::IdentifiedDesign& design, const std::string& what);
std::string memory_design_header(const identify::IdentifiedDesign& design, uint64_t memory_base, uint64_t memory_size);
// A sub-test whose host buffers (and simulated card memory) exceed --host_memory_limit: its
// reason printed, a failed result added, true.
bool over_host_limit(const identify::IdentifiedDesign& design, const std::string& test, uint64_t bytes,
                     uint64_t card_bytes, const char* way_out, const DmaBridgeTestOptions& options, std::FILE* out,
                     std::vector<ChannelResult>& results);
std::string enabled_stream_tests(const DmaBridgeTestOptions& options);

// The channel pairs a design's memory tests run on, and how to open the DMA of one pair.
struct DmaPair {
    unsigned h2c = 0, c2h = 0;
};
struct MemoryDesign {
    std::string modes_line;  // printed after the design header ("... XDMA engines: ...")
    std::vector<DmaPair> pairs;
    bool queues = false;  // the pairs are QDMA queues (results say "queue")
    std::function<pdt::Result<std::unique_ptr<CardDma>>(const DmaPair&, const std::string& test)> open;
};
// Every enabled memory test of the design, each on every pair (memory_addressing: the first).
void run_memory_tests(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, const MemoryDesign& dma,
                      std::FILE* out, std::vector<ChannelResult>& results);
// stream_fixed_buffers on one loopback route of any stream device (result.h2c / c2h set).
ChannelResult run_stream_route(streams::StreamDevice& device, ChannelResult result, const DmaBridgeTestOptions& options,
                               std::FILE* out);

// The QDMA part (dma_bridge_suite_qdma.cpp): whether test_dma_bridge tests the design (a qdma
// with card memory or stream routes), and its tests.
bool qdma_testable(const designs::Design& design);
void test_qdma_design(identify::IdentifiedDesign& design, const DmaBridgeTestOptions& options, std::FILE* out,
                      std::vector<ChannelResult>& results);

}  // namespace stream_tools
