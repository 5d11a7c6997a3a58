// test_dma_bridge's stream_fixed_buffers_c2h_continuous and stream_variable_transfers on the
// simulated CRC64 and fixed-data designs: every received byte is checked against what the card
// function returns (one CRC-64 per H2C packet; zeros for ever), the bytes verified are counted,
// and a fault the model injects fails the sub-test naming the packet or the stream offset.
#include <gtest/gtest.h>
#include "printed.hpp"

#include <regex>

#include "simulated_design.hpp"
#include "stream_subtest_runs.hpp"
#include "stream_tools/stream_subtests.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace {

using namespace std::chrono_literals;
using subtest_runs::kSubtests;
using subtest_runs::Subtest;

// One simulated design, its first route as the sub-test options (sizes that are not whole
// tdata beats, so the CRC64 packets must be cut to them).
struct FunctionDesign {
    explicit FunctionDesign(const char* name) : registry(*designs::Registry::builtin()) {
        auto simulated = test_designs::identify_simulated(registry, name);
        xdma = simulated.xdma;
        EXPECT_TRUE(simulated.identified.device->enable_bus_master().ok());
        options.dma_bar = simulated.identified.dma_bridge->bar;
        stream = test_designs::open_stream_device(std::move(simulated.identified), 1s);
        EXPECT_FALSE(stream->routes().empty());
        options.h2c_channel = stream->routes().front().h2c;
        options.c2h_channel = stream->routes().front().c2h;
        options.function = stream->card_function();
        options.packet_granularity = stream->packet_granularity();
        options.h2c_mapping = options.c2h_mapping = 0x3FFFC;
        options.h2c_buffers = options.c2h_buffers = 12;
        options.h2c_transfer = 0x2FF4;
        options.c2h_transfer = 0x1800;
        options.stream_width = 16;
        options.min_bytes = 0x40000;
        options.timeout = 1s;
    }
    std::string run(Subtest test, stream_tools::MemoryTestResult& result) {
        return test_output::printed_by([&](std::FILE* out) { result = test(stream->device(), options, out); });
    }
    designs::Registry registry;
    std::shared_ptr<sim::XdmaModel> xdma;
    std::unique_ptr<adapters::XdmaStreamDevice> stream;
    stream_tools::StreamSubtestOptions options;
};

uint64_t number(const std::string& out, const std::string& pattern) {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex(pattern)))
        return 0;
    return std::stoull(m[1]);
}

TEST(StreamSubtestsFunctionsSim, Crc64EveryResultVerifiedAndCounted) {
    for (Subtest test : kSubtests) {
        FunctionDesign design("TEF1001_dma_stream_crc64");  // 16-byte tdata
        ASSERT_EQ(design.options.function, streams::CardFunction::Crc64);
        stream_tools::MemoryTestResult result;
        const std::string out = design.run(test, result);
        EXPECT_TRUE(result.passed) << out;
        const uint64_t packets = number(out, "CRC64 verified for ([0-9]+) H2C packets");
        const uint64_t h2c_bytes = number(out, "H2C packets \\(([0-9]+) bytes\\)");
        const uint64_t words = number(out, "CRC64 results verified in ([0-9]+) words\nTEST PASS\n$");
        EXPECT_GT(packets, 0u) << out;
        EXPECT_EQ(words, packets * 2) << out;
        EXPECT_EQ(result.bytes_verified, packets * 8) << out;
        EXPECT_GE(h2c_bytes, design.options.min_bytes) << out;
        EXPECT_EQ(h2c_bytes % 16, 0u) << out;  // whole tdata beats
        EXPECT_TRUE(design.xdma->violations().empty()) << design.xdma->violations().front().what;
        EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::C2H, design.options.c2h_channel));
    }
}

TEST(StreamSubtestsFunctionsSim, FixedDataEveryByteVerifiedAndCounted) {
    for (Subtest test : kSubtests) {
        FunctionDesign design("NiteFury_dma_stream_fixed_data");
        ASSERT_EQ(design.options.function, streams::CardFunction::FixedData);
        stream_tools::MemoryTestResult result;
        const std::string out = design.run(test, result);
        EXPECT_TRUE(result.passed) << out;
        const uint64_t words = number(out, "Fixed data verified in ([0-9]+) words\nTEST PASS\n$");
        EXPECT_GE(result.bytes_verified, design.options.min_bytes) << out;
        EXPECT_EQ(result.bytes_verified, words * 4) << out;
        EXPECT_TRUE(design.xdma->violations().empty()) << design.xdma->violations().front().what;
        EXPECT_FALSE(design.xdma->busy(sim::XdmaDirection::C2H, design.options.c2h_channel));
    }
}

TEST(StreamSubtestsFunctionsSim, Crc64DataErrorNamesThePacket) {
    for (const subtest_runs::Run& run : subtest_runs::each_failing_with<FunctionDesign>(
             sim::XdmaDirection::H2C, sim::XdmaFault::DataBitFlip, "AS02MC04_dma_stream_crc64")) {
        EXPECT_EQ(run.result.bytes_verified, 0u);
        EXPECT_TRUE(std::regex_search(run.out, std::regex("TEST FAIL:\n  C2H failure : .*CRC64 error in buffer 0 for "
                                                          "H2C packet 0 \\([0-9]+ bytes\\): expected 0x[0-9a-f]{16} "
                                                          "actual 0x[0-9a-f]{16}\\)?\n$")))
            << run.out;
    }
}

TEST(StreamSubtestsFunctionsSim, Crc64ShortResultFailsOnLength) {
    for (const subtest_runs::Run& run : subtest_runs::each_failing_with<FunctionDesign>(
             sim::XdmaDirection::C2H, sim::XdmaFault::ShortC2hLength, "NiteFury_dma_stream_crc64"))
        EXPECT_TRUE(run.out.find("C2H completion length 4 EOP 1, expected length 8 EOP 1 (one 8-byte CRC64 per H2C "
                                 "packet)") != std::string::npos)
            << run.out;
}

// The software-queued receives of stream_variable_transfers see the one flipped bit.
TEST(StreamSubtestsFunctionsSim, FixedDataErrorNamesTheOffset) {
    FunctionDesign design("TEF1001_dma_stream_fixed_data");
    design.xdma->inject(sim::XdmaDirection::C2H, design.options.c2h_channel, sim::XdmaFault::DataBitFlip);
    subtest_runs::expect_fails_ending(design, stream_tools::stream_variable_transfers,
                                      "TEST FAIL:\n  C2H failure : receive 0000:15:00.0 C2H 0: Input/output error "
                                      "(fixed data error in buffer 0 at buffer offset 0x0, stream offset 0x0: word "
                                      "0x00000001, expected 0 (1 bad words))\n");
}

// In continuous mode the fixed-data source does not wait: buffers it overwrites before they
// are read are reported, not verified, so a single flipped bit may be lapped. With every data
// block flipped, the first buffer read fails, at stream offset 0.
TEST(StreamSubtestsFunctionsSim, FixedDataErrorFailsTheContinuousRing) {
    FunctionDesign design("TEF1001_dma_stream_fixed_data");
    for (int i = 0; i < 100000; ++i)
        design.xdma->inject(sim::XdmaDirection::C2H, design.options.c2h_channel, sim::XdmaFault::DataBitFlip);
    stream_tools::MemoryTestResult result;
    const std::string out = design.run(stream_tools::stream_fixed_buffers_c2h_continuous, result);
    EXPECT_FALSE(result.passed) << out;
    EXPECT_TRUE(std::regex_search(out, std::regex("TEST FAIL:\n  C2H failure : 0000:15:00\\.0 C2H 0 fixed data error in "
                                                  "buffer [0-9]+ at buffer offset 0x0, stream offset 0x0: word 0x00000001, expected "
                                                  "0 \\([0-9]+ bad words\\)\n$")))
        << out;
}

TEST(StreamSubtestsFunctionsSim, Crc64ResultBufferTooSmallFails) {
    FunctionDesign design("TEF1001_dma_stream_crc64");
    design.options.c2h_mapping = 12 * 4;  // 4-byte C2H buffers
    design.options.stream_width = 4;
    subtest_runs::expect_fails_ending(design, stream_tools::stream_fixed_buffers_c2h_continuous,
                                      "TEST FAIL:\n  C2H failure : the C2H ring (0x30 bytes) cannot hold one CRC64 "
                                      "result\n");
    design.options.c2h_transfer = 4;
    subtest_runs::expect_fails_ending(design, stream_tools::stream_variable_transfers,
                                      "TEST FAIL:\n  C2H failure : a C2H transfer length of 0x4 bytes cannot hold a "
                                      "CRC64 result\n");
}

}  // namespace
