// Acceptance test of F23 (test_dma_bridge): the lines fpga_sio's test_dma_bridge prints stand in
// ours, byte for byte and in fpga_sio's order. The expected lines are built here with fpga_sio's
// own printf format strings (quoted from its xilinx_dma_bridge_for_pcie/test_dma_bridge.c and
// vfio_access/transfer_timing.c) applied to the run's parameters, independently of
// stream_tools/src. Our own lines (the engine modes, rate and verified-bytes lines, the totals)
// stand on lines of their own between them, so a script that reads fpga_sio's lines still finds
// them.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "base/format.hpp"
#include "tool_run.hpp"

namespace {

using test_support::Outcome;
using tool_run::run_tool;

// A line of fpga_sio's, printed with its format string.
template <typename... Args>
std::string fpga_sio_line(const char* format, Args... args) {
    return pdt::format(format, args...);
}

// Each of `blocks` in `text`, in order; the first one missing, or "".
std::string first_missing(const std::string& text, const std::vector<std::string>& blocks) {
    size_t at = 0;
    for (const std::string& block : blocks) {
        const size_t found = text.find(block, at);
        if (found == std::string::npos)
            return block;
        at = found + block.size();
    }
    return "";
}

// transfer_timing.c: the header, then "  %s = %0.6lf (Mbytes/sec)" with " Min", "Mean", " Max";
// ours prints the same name where the interval was too short for a rate (":" then the reason).
std::vector<std::string> timing_block(const char* name, uint32_t transfers, size_t bytes) {
    std::vector<std::string> block{fpga_sio_line("%s timing for %" PRIu32 " transfers of %zu bytes:\n", name, transfers, bytes)};
    for (const char* figure : {" Min", "Mean", " Max"})
        if (transfers > 1 || std::string(figure) == "Mean")
            block.push_back(fpga_sio_line("  %s", figure));
    return block;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& more) { to.insert(to.end(), more.begin(), more.end()); }

}  // namespace

TEST(DmaBridgeFpgaSioLines, MemoryDesign) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "XCKU5P_DUAL_QSFP_dma_ram", "--min_words", "0x80000", "--max_buffer_size",
                                "0x80000", "--transfer_length", "0x60000", "--host_buffer_divisor", "4",
                                "--max_channel_combinations", "1", "--enabled_tests",
                                "memory_fixed_buffers,memory_variable_transfers,memory_host_chunks"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string design = fpga_sio_line("Testing %s design", "XCKU5P_DUAL_QSFP_dma_ram") +
                               fpga_sio_line(" with memory base address 0x%zx size 0x%zx\n", size_t{0}, size_t{0x200000}) +
                               fpga_sio_line("PCI device %s IOMMU group %s\n", "0000:15:00.0", "41");
    std::vector<std::string> expected{design,
                                      fpga_sio_line("\nTesting using %u buffers of size 0x%zx bytes, H2C channel %u C2H channel %u\n",
                                                    4u, size_t{0x80000}, 0u, 0u)};
    append(expected, timing_block("populate test pattern", 1, 0x200000));
    append(expected, timing_block("host-to-card and card-to-host DMA", 1, 0x200000));
    append(expected, timing_block("verify test pattern", 1, 0x200000));
    expected.push_back("TEST PASS\n");
    expected.push_back(design);
    expected.push_back(fpga_sio_line("\nTesting using:\n") +
                       fpga_sio_line("  H2C channel %u transfer length 0x%zx bytes with %u descriptors\n", 0u,
                                     size_t{0x60000}, 6u) +
                       fpga_sio_line("  C2H channel %u transfer length 0x%zx bytes with %u descriptors\n", 0u,
                                     size_t{0x60000}, 6u));
    expected.push_back("TEST PASS\n");
    expected.push_back(design);
    expected.push_back(fpga_sio_line("\nTesting using 0x%zx byte host buffers with %u descriptors:\n", size_t{0x80000}, 1u) +
                       fpga_sio_line("  H2C channel %u\n", 0u) + fpga_sio_line("  C2H channel %u\n", 0u));
    append(expected, timing_block("populate test pattern", 4, 0x80000));
    append(expected, timing_block("host-to-card DMA", 4, 0x80000));
    append(expected, timing_block("card-to-host DMA", 4, 0x80000));
    append(expected, timing_block("verify test pattern", 4, 0x80000));
    expected.push_back("TEST PASS\n");
    expected.push_back(fpga_sio_line("\nOverall %s\n", "PASS"));
    EXPECT_EQ(first_missing(r.output, expected), "") << r.output;
    EXPECT_TRUE(r.output.ends_with(expected.back())) << r.output;
}

// Stream designs: the header before each test, then each test on every loopback route (NiteFury's
// two: H2C 0 -> C2H 1 and H2C 1 -> C2H 0), in fpga_sio's order.
TEST(DmaBridgeFpgaSioLines, StreamDesign) {
    const Outcome r = run_tool(TEST_DMA_BRIDGE_TOOL,
                               {"--sim_design", "NiteFury_dma_stream_loopback", "--min_words", "0x10000",
                                "--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16", "--transfer_length",
                                "0x5000"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string design = fpga_sio_line("Testing %s design", "NiteFury_dma_stream_loopback") +
                               fpga_sio_line(" with AXI stream\n") +
                               fpga_sio_line("PCI device %s IOMMU group %s\n", "0000:15:00.0", "41");
    const unsigned routes[2][2] = {{0, 1}, {1, 0}};
    std::vector<std::string> expected{design};
    for (const auto& route : routes)
        expected.push_back(fpga_sio_line("\nTesting streams using H2C %u buffers of size 0x%zx bytes, C2H %u buffers of size "
                                         "0x%zx bytes%s, H2C channel %u C2H channel %u\n",
                                         16u, size_t{0x4000}, 16u, size_t{0x4000}, "", route[0], route[1]));
    expected.push_back(design);
    for (const auto& route : routes) {
        expected.push_back(fpga_sio_line("\nTesting streams using H2C %u buffers of size 0x%zx bytes, C2H %u buffers of size "
                                         "0x%zx bytes%s, H2C channel %u C2H channel %u\n",
                                         16u, size_t{0x4000}, 16u, size_t{0x4000}, " in continuous mode", route[0], route[1]));
        append(expected, timing_block("host-to-card and card-to-host DMA", 1, 0x40000));
    }
    expected.push_back(design);
    for (const auto& route : routes) {
        expected.push_back(fpga_sio_line("\nTesting streams with variable size buffers:\n") +
                           fpga_sio_line("  H2C mapping size 0x%zx max transfer length 0x%zx channel ID %u\n",
                                         size_t{0x40000}, size_t{0x5000}, route[0]) +
                           fpga_sio_line("  C2H mapping size 0x%zx max transfer length 0x%zx channel ID %u\n",
                                         size_t{0x40000}, size_t{0x5000}, route[1]));
        expected.push_back("TEST PASS\n");
    }
    expected.push_back(fpga_sio_line("\nOverall %s\n", "PASS"));
    EXPECT_EQ(first_missing(r.output, expected), "") << r.output;
}

// The versioned header of the Lite/NiteFury Project-0 image (" version 0x%x" after the design
// name): tool_process_test.cpp, LitefuryProject0IsTestedWithItsMemorySize.
