// crc64_stream_latency as a user runs it on simulated designs: percentiles per length and
// Overall PASS (exit 0), a design without a CRC64 stream is a failure (exit 1), usage errors
// exit 2.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "test_support/run_process.hpp"

namespace {

using test_support::Outcome;  // output: stdout and stderr together

Outcome run_tool(std::vector<std::string> args) { return test_support::run_process(CRC64_LATENCY_TOOL, args); }

}  // namespace

TEST(Crc64LatencyProcess, PercentilesPerLengthOnEveryCrc64Design) {
    const Outcome run = run_tool({"--sim_design", "U200_dma_stream_crc64", "--sim_design", "TEF1001_dma_stream_loopback",
                                  "--samples", "50", "--max_packet_bytes", "256"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(run.output.find("Testing design U200_dma_stream_crc64 using C2H 0 -> H2C 0 (H2C 0 sends, C2H 0 "
                                "returns each CRC64)\n") != std::string::npos)
        << run.output;
    for (const char* length : {"     64", "    128", "    256"})
        EXPECT_TRUE(std::regex_search(run.output, std::regex(std::string("\n") + length +
                                                             " len bytes latencies \\(us\\):( +[0-9]+\\.[0-9]{3} \\("
                                                             "(50|75|99|99\\.999)'\\)){4}\n")))
            << length << "\n" << run.output;
    EXPECT_TRUE(run.output.find("0000:15:00.0 H2C 0 -> C2H 0 CRC64 verified for 153 packets (22848 bytes)\n") !=
                std::string::npos)
        << run.output;
    EXPECT_TRUE(run.output.ends_with("Overall PASS\n")) << run.output;
}

TEST(Crc64LatencyProcess, JsonLines) {
    const Outcome run = run_tool({"--sim_design", "VD100_dma_stream_crc64", "--samples", "10", "--max_packet_bytes",
                                  "32", "--json"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex("\\{\"type\":\"latency\",\"design\":\"VD100_dma_stream_crc64\","
                                                         "\"device\":\"0000:15:00.0\",\"h2c\":0,\"c2h\":0,"
                                                         "\"engine_mode\":\"credits\",\"completion\":\"poll_writeback\","
                                                         "\"packet_bytes\":32,\"samples\":10,\"crc64_verified\":11,"
                                                         "\"latency_us\":\\{\"50\":[0-9.]+,\"75\":[0-9.]+,\"99\":[0-9.]+,"
                                                         "\"99.999\":[0-9.]+\\},\"min_us\":[0-9.]+,\"max_us\":[0-9.]+\\}\n")))
        << run.output;
    EXPECT_TRUE(run.output.ends_with("{\"type\":\"result\",\"result\":\"PASS\",\"crc64_verified\":11,"
                                     "\"h2c_bytes_verified\":352}\n"))
        << run.output;
}

TEST(Crc64LatencyProcess, NothingToTestFailsAndUsageErrorsExit2) {
    const Outcome none = run_tool({"--sim_design", "NiteFury_dma_stream_loopback", "--samples", "5"});
    EXPECT_EQ(none.exit_code, 1) << none.output;
    EXPECT_TRUE(none.output.ends_with("No CRC64 stream design was tested\n\nOverall FAIL\n")) << none.output;
    EXPECT_EQ(run_tool({"--samples", "0"}).exit_code, 2);
    EXPECT_EQ(run_tool({"--max_packet_bytes", "4"}).exit_code, 2);
    EXPECT_EQ(run_tool({"--bogus"}).exit_code, 2);
    const Outcome unknown = run_tool({"--sim_design", "No_such_design"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
}

// Into a pipe, each line is there as soon as it is printed, not when the tool exits.
TEST(Crc64LatencyProcess, LinesReachAPipeWhileTheToolRuns) {
    test_support::RunOptions options;
    options.stderr_to = test_support::Stderr::inherit;
    options.timeout = std::chrono::seconds(30);  // a line held in the tool's buffer never comes: fail, not hang
    options.stop_once = [](const std::string& seen) { return seen.find("Testing design ") != std::string::npos; };
    const Outcome r = test_support::run_process(
        CRC64_LATENCY_TOOL, {"--sim_design", "NiteFury_dma_stream_crc64", "--samples", "100000000"}, options);
    const std::string& seen = r.output;
    EXPECT_TRUE(r.running_when_stopped) << "the tool had already exited: its lines came at exit\n" << seen;
    EXPECT_NE(seen.find("Testing design NiteFury_dma_stream_crc64 using C2H 0 -> H2C 0 (H2C 0 sends, C2H 0 returns "
                        "each CRC64)\n"),
              std::string::npos)
        << seen;
}
