// The stream tools on the CRC64 and fixed-data designs of the simulator: every byte that comes
// back is checked against what the card function makes of what was sent (the expected-data
// seam of stream_test), an error the model injects fails the run naming it, and the
// crc64_stream_latency body measures and verifies every sample.
#include <gtest/gtest.h>
#include "printed.hpp"

#include <regex>

#include "simulated_design.hpp"
#include "stream_tools/crc64_latency.hpp"
#include "stream_tools/descriptor_credits.hpp"
#include "stream_tools/dma_bridge_suite.hpp"
#include "stream_tools/stream_tools.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace {

using namespace std::chrono_literals;
using stream_tools::StreamRunOptions;

// One simulated design, identified; device() hands it to the stream tools.
struct Sim {
    explicit Sim(const char* name) : registry(*designs::Registry::builtin()) {
        auto simulated = test_designs::identify_simulated(registry, name);
        xdma = simulated.xdma;
        designs.push_back(std::move(simulated.identified));
    }
    adapters::XdmaStreamDevice& device() {
        // A generous timeout: a loaded 2-core machine under ASan (no test here expects a timeout).
        if (!stream)
            stream = test_designs::open_stream_device(std::move(designs[0]), 10s);
        return *stream;
    }
    designs::Registry registry;
    std::shared_ptr<sim::XdmaModel> xdma;
    std::vector<identify::IdentifiedDesign> designs;
    std::unique_ptr<adapters::XdmaStreamDevice> stream;
};

StreamRunOptions quick() { return test_designs::short_stream_run(10s, 500ms); }  // timeout as above

std::string captured(const std::function<int(std::FILE*)>& body, int& code) {
    return test_output::printed_by([&](std::FILE* out) { code = body(out); });
}

uint64_t verified_words(const std::string& out, const std::string& label) {
    std::smatch m;
    const std::regex re(label + " (Test pattern|CRC64 results|Fixed data \\(zeros\\)) verified in ([0-9]+) words");
    return std::regex_search(out, m, re) ? std::stoull(m[2]) : 0;
}

}  // namespace

TEST(StreamFunctionsSim, ParallelStreamsVerifyEveryCrc64Result) {
    Sim sim("NiteFury_dma_stream_crc64");
    int code = -1;
    const std::string out = captured(
        [&](std::FILE* f) { return stream_tools::run_parallel_streams({&sim.device()}, {}, quick(), f); }, code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_GT(verified_words(out, "0000:15:00.0 0 -> 0"), 0u) << out;
    EXPECT_TRUE(std::regex_search(out, std::regex("0000:15:00\\.0 0 -> 0 CRC64 results verified in [1-9][0-9]* words "
                                                  "\\([1-9][0-9]* bytes, [1-9][0-9]* H2C packets\\)\n")))
        << out;
    EXPECT_TRUE(out.ends_with("Overall PASS\n")) << out;
    EXPECT_TRUE(sim.xdma->violations().empty());
}

TEST(StreamFunctionsSim, Crc64ResultErrorFailsNamingThePacket) {
    Sim sim("U200_dma_stream_crc64");
    sim.xdma->inject(sim::XdmaDirection::C2H, 0, sim::XdmaFault::DataBitFlip);
    int code = -1;
    const std::string out = captured(
        [&](std::FILE* f) { return stream_tools::run_parallel_streams({&sim.device()}, {}, quick(), f); }, code);
    EXPECT_TRUE(test_output::failed_naming(code, out, "CRC64 error in buffer 0 for H2C packet 0 \\(16384 bytes\\): "
                                                      "expected 0x[0-9a-f]{16} actual 0x[0-9a-f]{16}"));
}

TEST(StreamFunctionsSim, IndependentStreamsVerifyFixedDataZeros) {
    Sim sim("TEF1001_dma_stream_fixed_data");
    int code = -1;
    const std::string out = captured(
        [&](std::FILE* f) { return stream_tools::run_independent_streams({&sim.device()}, {}, {}, quick(), f); },
        code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_GT(verified_words(out, "0000:15:00.0 C2H channel 0"), 0u) << out;
    EXPECT_TRUE(out.find("0000:15:00.0 C2H channel 0 Fixed data (zeros) verified in ") != std::string::npos) << out;
    EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
    EXPECT_TRUE(out.ends_with("Overall PASS\n")) << out;
}

TEST(StreamFunctionsSim, FixedDataErrorFails) {
    Sim sim("NiteFury_dma_stream_fixed_data");
    sim.xdma->inject(sim::XdmaDirection::C2H, 0, sim::XdmaFault::DataBitFlip);
    int code = -1;
    const std::string out = captured(
        [&](std::FILE* f) { return stream_tools::run_independent_streams({&sim.device()}, {}, {}, quick(), f); },
        code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_TRUE(out.find("transfer 1: fixed data error in buffer 0 at buffer offset 0x0, stream offset 0x0: word 0x00000001, "
                         "expected 0 (1 bad "
                         "words)") != std::string::npos)
        << out;
}

TEST(StreamFunctionsSim, TestDmaBridgeStreamTestOnCrc64AndFixedData) {
    for (const char* name : {"TEF1001_dma_stream_crc64", "XCKU5P_DUAL_QSFP_dma_stream_fixed_data"}) {
        Sim sim(name);
        stream_tools::DmaBridgeTestOptions options;
        options.memory.min_words = 0x40000;
        options.stream = quick();
        int code = -1;
        const std::string out =
            captured([&](std::FILE* f) { return stream_tools::run_test_dma_bridge(sim.designs, options, f); }, code);
        EXPECT_EQ(code, 0) << name << "\n" << out;
        EXPECT_TRUE(std::regex_search(out, std::regex("(CRC64 results|Fixed data) verified in [1-9][0-9]* words\n"
                                                      "TEST PASS\n")))
            << out;
        // Every stream sub-test runs on the route and counts the bytes it verified.
        for (const char* test : {"stream_fixed_buffers", "stream_fixed_buffers_c2h_continuous",
                                 "stream_variable_transfers"})
            EXPECT_TRUE(std::regex_search(out, std::regex(std::string(name) + " " + test +
                                                          " H2C channel [0-9] C2H channel [0-9]: [1-9][0-9]* bytes "
                                                          "verified\n")))
                << test << "\n" << out;
        EXPECT_TRUE(std::regex_search(out, std::regex("[1-9][0-9]* bytes verified in [0-9]+ tests, 0 failed\n\nOverall PASS\n$")))
            << out;
    }
}

TEST(StreamFunctionsSim, DescriptorCreditsCrc64MessageModeAndFixedData) {
    {
        Sim sim("AS02MC04_dma_stream_crc64");
        int code = -1;
        const std::string out = captured(
            [&](std::FILE* f) { return stream_tools::run_descriptor_credits(sim.designs, {}, f); }, code);
        EXPECT_EQ(code, 0) << out;
        EXPECT_TRUE(std::regex_search(out, std::regex("Successfully sent 3069 messages from Ch0->0 with a total of "
                                                      "[0-9]+ 64-bit words, 3069 CRC64 results verified in 3069 "
                                                      "descriptors\nTest: PASS\n")))
            << out;
        EXPECT_TRUE(sim.xdma->violations().empty()) << sim.xdma->violations()[0].what;
    }
    {
        Sim sim("TOSING_160T_dma_stream_fixed_data");
        int code = -1;
        const std::string out = captured(
            [&](std::FILE* f) { return stream_tools::run_descriptor_credits(sim.designs, {}, f); }, code);
        EXPECT_EQ(code, 0) << out;
        EXPECT_TRUE(out.find("and verified 3069 descriptors of fixed data (zeros) from Ch0\nTest: PASS\n") !=
                    std::string::npos)
            << out;
    }
}

TEST(StreamFunctionsSim, DescriptorCreditsCrc64ErrorFails) {
    Sim sim("NiteFury_dma_stream_crc64");
    sim.xdma->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::DataBitFlip);
    int code = -1;
    const std::string out =
        captured([&](std::FILE* f) { return stream_tools::run_descriptor_credits(sim.designs, {}, f); }, code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_TRUE(std::regex_search(out, std::regex("message 0 \\(4080 bytes\\): CRC64 0x[0-9a-f]{16}, expected "
                                                  "0x[0-9a-f]{16}\\)\nTest: FAIL\n")))
        << out;
}

TEST(Crc64Latency, PercentilesAreNearestRank) {
    std::vector<double> sorted;
    for (int i = 1; i <= 100; ++i)
        sorted.push_back(i);
    EXPECT_EQ(stream_tools::percentile(sorted, 50), 50);
    EXPECT_EQ(stream_tools::percentile(sorted, 75), 75);
    EXPECT_EQ(stream_tools::percentile(sorted, 99), 99);
    EXPECT_EQ(stream_tools::percentile(sorted, 99.999), 100);
    EXPECT_EQ(stream_tools::percentile({7.0}, 50), 7.0);
    EXPECT_EQ(stream_tools::percentile({}, 50), 0.0);
}

TEST(Crc64Latency, EveryLengthMeasuredAndVerified) {
    Sim sim("NiteFury_dma_stream_crc64");
    stream_tools::LatencyOptions options;
    options.samples = 20;
    options.max_packet_bytes = 4096;
    options.timeout = 10s;  // generous: a loaded 2-core machine under ASan (no test here expects a timeout)
    int code = -1;
    const std::string out =
        captured([&](std::FILE* f) { return stream_tools::run_crc64_latency({&sim.device()}, options, f); }, code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_TRUE(out.starts_with("Testing design NiteFury_dma_stream_crc64 using C2H 0 -> H2C 0 (H2C 0 sends, C2H 0 "
                                "returns each CRC64)\n"))
        << out;
    for (const char* length : {"     16", "     32", "   2048", "   4096"})
        EXPECT_TRUE(std::regex_search(out, std::regex(std::string("\n?") + length +
                                                      " len bytes latencies \\(us\\):( +[0-9]+\\.[0-9]{3} "
                                                      "\\((50|75|99|99\\.999)'\\)){4}\n")))
            << length << "\n" << out;
    // 9 lengths (16 .. 4096) x 21 round trips, every one checked.
    EXPECT_TRUE(out.find("0000:15:00.0 H2C 0 -> C2H 0 CRC64 verified for 189 packets (171696 bytes)\n") !=
                std::string::npos)
        << out;
    EXPECT_TRUE(out.ends_with("Overall PASS\n")) << out;
}

TEST(Crc64Latency, WrongResultFailsAndNothingToTestFails) {
    {
        Sim sim("VD100_dma_stream_crc64");
        sim.xdma->inject(sim::XdmaDirection::C2H, 0, sim::XdmaFault::DataBitFlip);
        stream_tools::LatencyOptions options;
        options.samples = 5;
        options.max_packet_bytes = 64;
        options.json = true;
        int code = -1;
        const std::string out =
            captured([&](std::FILE* f) { return stream_tools::run_crc64_latency({&sim.device()}, options, f); }, code);
        EXPECT_EQ(code, 1) << out;
        EXPECT_TRUE(std::regex_search(out, std::regex("\\{\"type\":\"result\",\"result\":\"FAIL\",\"crc64_verified\":0,"
                                                      "\"h2c_bytes_verified\":0,\"reason\":\".*32-byte packet, sample "
                                                      "0: length 8 EOP 1 CRC64 0x[0-9a-f]{16}, expected")))
            << out;
    }
    {
        Sim sim("TEF1001_dma_stream_loopback");
        int code = -1;
        const std::string out = captured(
            [&](std::FILE* f) { return stream_tools::run_crc64_latency({&sim.device()}, {}, f); }, code);
        EXPECT_EQ(code, 1) << out;
        EXPECT_EQ(out, "No CRC64 stream design was tested\n\nOverall FAIL\n");
    }
}
