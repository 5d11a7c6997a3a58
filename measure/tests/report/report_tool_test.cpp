// pcie_link_report as a process: exit codes 0 / 1 / 2 and the messages a user sees.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "test_support/run_process.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace report_tool_test {

namespace {

const std::string kTool = PDT_LINK_REPORT;
const std::string kFixtures = PDT_REPORT_FIXTURES;

// Named per process: two builds may run these tests at once.
std::string temp_path(const std::string& name) {
    return (std::filesystem::path(testing::TempDir()) / (std::to_string(::getpid()) + "_" + name)).string();
}

test_support::Outcome run(const std::vector<std::string>& args) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    options.timeout = std::chrono::seconds(60);
    return test_support::run_process(kTool, args, options);
}

}  // namespace

TEST(ReportTool, UsageErrorsExit2) {
    auto none = run({});
    EXPECT_EQ(none.exit_code, 2) << none.output;
    EXPECT_NE(none.output.find("--output FILE.html is required"), std::string::npos) << none.output;
    auto no_input = run({"--output", temp_path("r.html")});
    EXPECT_EQ(no_input.exit_code, 2) << no_input.output;
    EXPECT_NE(no_input.output.find("no result file given"), std::string::npos) << no_input.output;
    auto bogus = run({"--bogus"});
    EXPECT_EQ(bogus.exit_code, 2) << bogus.output;
    EXPECT_NE(bogus.output.find("unrecognised option '--bogus'"), std::string::npos) << bogus.output;
    EXPECT_EQ(run({"--help"}).exit_code, 0);
}

TEST(ReportTool, MissingOrMalformedResultExits1AndWritesNothing) {
    const std::string out = temp_path("not_written.html");
    std::filesystem::remove(out);
    auto missing = run({"--output", out, kFixtures + "/xdma_run1.json", "/nonexistent/r.json"});
    EXPECT_EQ(missing.exit_code, 1) << missing.output;
    EXPECT_NE(missing.output.find("pcie_link_report: read result file /nonexistent/r.json: No such file or directory"),
              std::string::npos)
        << missing.output;
    const std::string bad = temp_path("truncated.json");
    std::ofstream(bad) << "{\"schema\":\"pcie_link_measure/1\",\"sweep\":{";
    auto malformed = run({"--output", out, bad});
    EXPECT_EQ(malformed.exit_code, 1) << malformed.output;
    EXPECT_NE(malformed.output.find("read result file " + bad + ": Invalid argument (not valid JSON"),
              std::string::npos)
        << malformed.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ReportTool, MissingGnuplotExits1WithTheFix) {
    const std::string out = temp_path("no_gnuplot.html");
    auto outcome = run({"--output", out, "--gnuplot", "/nonexistent/gnuplot", kFixtures + "/xdma_run1.json"});
    EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
    EXPECT_NE(outcome.output.find("install the Debian package gnuplot-nox"), std::string::npos) << outcome.output;
}

TEST(ReportTool, WritesOnePageForTwoCardsAndAFailedOne) {
    const std::string out = temp_path("two_cards.html");
    std::vector<std::string> args = {"--output", out, "--title", "Two cards"};
    for (const char* card : {"xdma", "h200"})
        for (int r = 1; r <= 5; ++r)
            args.push_back(kFixtures + "/" + card + "_run" + std::to_string(r) + ".json");
    args.push_back(kFixtures + "/failed");  // a directory: its *.json
    auto outcome = run(args);
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_NE(outcome.output.find("C1 0000:01:00.0 Xilinx 10ee:9038 card memory on labhost-a: 5 runs, PASS"),
              std::string::npos)
        << outcome.output;
    EXPECT_NE(outcome.output.find("C3 sim model 0 on labhost-a: 1 run, FAIL, 0 bytes verified"), std::string::npos)
        << outcome.output;
    EXPECT_NE(outcome.output.find("Report: " + out + ": 3 cards, 11 result files, 6 plots"), std::string::npos)
        << outcome.output;
    std::ifstream in(out);
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(html.find("<?xml"), std::string::npos);  // the SVG prologs are stripped
    for (size_t at = html.find("http"); at != std::string::npos; at = html.find("http", at + 1))
        EXPECT_EQ(html.compare(at, 18, "http://www.w3.org/"), 0) << html.substr(at, 60);  // SVG namespaces only
    EXPECT_EQ(html.find("src="), std::string::npos);   // nothing fetched: no image, script or frame source
    EXPECT_EQ(html.find("<link"), std::string::npos);
}

}  // namespace report_tool_test
