// cmac_statistics run as a process on the simulated designs with CMAC ports: fpga_sio's lines
// (its header, "  %-*s: %15llu" counter lines of the counters that are not zero, the collection
// lines), the JSON document, the interval and its end, and bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <utility>

#include "cmac_tool_run.hpp"

namespace {

using cmac_tool_run::run;
using test_support::contains;

// fpga_sio's counter line: two blanks, the name padded to the longest counter name
// (RX_RSFEC_UNCORRECTED_CW_INC, 27 characters), ": ", the value right-aligned in 15.
const std::regex kCycleCountLine("  CYCLE_COUNT {16}: [ 0-9]{15}");

TEST(CmacStatisticsTool, OnceShowsEveryPortWithFpgaSioLines) {
    const auto r = run(CMAC_STATISTICS, "--sim_design U200_100G_ether_duplex");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    for (const char* port : {"0", "1"}) {
        const auto lines =
            cmac_tool_run::block(r.output, std::string("U200_100G_ether_duplex port ") + port + " statistics:", 3);
        ASSERT_EQ(lines.size(), 3u) << r.output;
        // The cycles since the model started latch at the tick; no frame passed: nothing else counts.
        EXPECT_TRUE(std::regex_match(lines[1], kCycleCountLine)) << lines[1];
        EXPECT_EQ(lines[2], "") << r.output;
    }
    EXPECT_FALSE(contains(r.output, "(over")) << "a single collection has no interval: " << r.output;
    EXPECT_FALSE(contains(r.output, "Press Ctrl-C")) << r.output;
}

TEST(CmacStatisticsTool, IntervalCollectsUntilDuration) {
    const auto r = run(CMAC_STATISTICS, "--sim_design open-nic --interval 0.2 --duration 0.5");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto lines = cmac_tool_run::lines_of(r.output);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], "Press Ctrl-C to stop the CMAC port statistics collection");
    const std::regex collection(R"(\d\d:\d\d:\d\d\.\d{3} collection number (\d+))");
    const std::regex header(R"(open-nic port [01] statistics \(over [0-9]+\.[0-9]{3} secs\):)");
    unsigned collections = 0, headers = 0;
    for (const std::string& line : lines) {
        std::smatch m;
        if (std::regex_match(line, m, collection)) {
            EXPECT_EQ(std::stoul(m[1]), ++collections) << r.output;
        }
        headers += std::regex_match(line, header);
    }
    EXPECT_EQ(collections, 2u) << r.output;
    EXPECT_EQ(headers, 4u) << "each collection shows both ports over their interval: " << r.output;
}

TEST(CmacStatisticsTool, FpgaSioIntervalArgumentAndCtrlCEndTheRun) {
    const auto r = run(CMAC_STATISTICS, "--sim_design U200_100G_ether_duplex 0.1", "",
                       [](const std::string& out) { return contains(out, "collection number 2\n"); });
    EXPECT_EQ(r.exit_code, 0) << r.output << r.err;
    EXPECT_TRUE(contains(r.output, "collection number 2\n")) << r.output;
}

TEST(CmacStatisticsTool, JsonDocumentHasEveryImplementedCounter) {
    const auto r = run(CMAC_STATISTICS, "--sim_design U200_100G_ether_simplex_tx --port 0 --json");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto doc = nlohmann::json::parse(r.output);
    ASSERT_EQ(doc["ports"].size(), 1u) << r.output;
    const auto& port = doc["ports"][0];
    EXPECT_EQ(port["design"], "U200_100G_ether_simplex_tx");
    EXPECT_EQ(port["pci_address"], cmac_tool_run::kDevice);
    EXPECT_EQ(port["port"], 0);
    EXPECT_TRUE(port["over_secs"].is_null());
    EXPECT_GT(port["counters"]["CYCLE_COUNT"].get<uint64_t>(), 0u);
    EXPECT_EQ(port["counters"]["TX_TOTAL_PACKETS"], 0);
    EXPECT_FALSE(port["counters"].contains("RX_TOTAL_PACKETS")) << "a Simplex TX port has no receive counters";
    EXPECT_TRUE(port["saturated"].empty());
}

TEST(CmacStatisticsTool, JsonIntervalHasItsCollections) {
    const auto r = run(CMAC_STATISTICS, "--sim_design U200_100G_ether_duplex --interval 0.1 --duration 0.25 --json");
    ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
    const auto doc = nlohmann::json::parse(r.output);
    ASSERT_EQ(doc["collections"].size(), 2u) << r.output;
    EXPECT_EQ(doc["collections"][1]["number"], 2);
    EXPECT_EQ(doc["collections"][1]["ports"].size(), 2u);
    EXPECT_GT(doc["collections"][1]["ports"][0]["over_secs"].get<double>(), 0.05);
}

TEST(CmacStatisticsTool, ADesignWithoutCmacFails) {
    const auto r = run(CMAC_STATISTICS, "--sim_design TEF1001_dma_ddr3");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    EXPECT_TRUE(contains(r.err, "No CMAC designs to operate on\n")) << r.err;
}

TEST(CmacStatisticsTool, APortThatDoesNotExistFails) {
    const auto r = run(CMAC_STATISTICS, "--sim_design U200_100G_ether_duplex --port 5");
    EXPECT_EQ(r.exit_code, 1) << r.output << r.err;
    EXPECT_TRUE(contains(r.err, "Error: --port 5: no CMAC port 5 in the designs found (their ports: 0, 1)")) << r.err;
    EXPECT_TRUE(cmac_tool_run::lines_of(r.output).empty()) << r.output;
}

TEST(CmacStatisticsTool, UsageErrors) {
    for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
             {"--interval 0", "Error: parse option --interval \"0\""},
             {"--duration 5", "Error: --duration needs --interval"},
             {"1 2", "Error: one <display_interval_secs> (or --interval) at most, not 2"},
             {"1 --interval 2", "Error: one <display_interval_secs> (or --interval) at most, not 2"},
             {"--port x", "Error: parse option --port \"x\""},
             {"--sim_design NoSuchDesign", "Error: --sim_design NoSuchDesign: unknown design"}}) {
        const auto r = run(CMAC_STATISTICS, "--sim_design U200_100G_ether_duplex " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output << r.err;
        EXPECT_TRUE(contains(r.err, message)) << args << ": " << r.err;
    }
}

}  // namespace
