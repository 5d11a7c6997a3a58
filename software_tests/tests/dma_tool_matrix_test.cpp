// Every DMA tool on every built-in design (the registry's list at run time), each run a real
// process with its output in a file, under a timeout, with small options. Each run must end
// either with Overall PASS, exit 0 and a nonzero verified-bytes figure, or with exit 1,
// Overall FAIL and a line giving the reason. PASS with nothing verified, a crash, a timeout or
// exit 0 without PASS fails. Prints the table of outcomes (also written, with each run's log,
// to dma_tool_matrix/ in the working directory).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "designs/registry.hpp"
#include "dma_tools.hpp"
#include "test_support/run_process.hpp"

namespace {

using namespace std::chrono_literals;

using dma_tools::kTools;
using dma_tools::Tool;
constexpr auto kRunTimeout = 120s;

struct Outcome {
    int exit_code = -1;  // 128 + signal when killed; -2 (test_support::kTimedOut) timed out
    std::string output;
};

// Runs path with args, stdout and stderr into file, killed after timeout.
Outcome run_to_file(const std::string& path, const std::vector<std::string>& args, const std::string& file) {
    test_support::RunOptions options;
    options.output_file = file;
    options.timeout = kRunTimeout;
    const test_support::Outcome r = test_support::run_process(path, args, options);
    return {r.exit_code, r.output};
}

// The example QDMA streaming loopback design users copy (docs/examples): run as a --design_file.
const std::string kQdmaExample = std::string(PDT_SOURCE_DIR) + "/docs/examples/qdma_stream_loopback.json";

std::vector<std::string> tool_args(const std::string& tool, const designs::Design& design) {
    std::vector<std::string> args{"--sim_design", design.name, "--transfer_timeout", "2"};
    if (design.source == kQdmaExample) {
        args.push_back("--design_file");
        args.push_back(kQdmaExample);
    }
    const std::vector<std::string> stream{"--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16"};
    if (tool == "test_dma_bridge") {
        args.insert(args.end(), stream.begin(), stream.end());
        // Two channel pairs at most: a design whose DMA times out fails in seconds, not minutes.
        for (const char* a : {"--min_words", "0x10000", "--max_buffer_size", "0x40000", "--transfer_length", "0x30000",
                              "--max_channel_combinations", "2"})
            args.push_back(a);
        // Large card memories: a 1 MiB window (printed as an override), so the matrix stays small.
        const uint64_t memory = design.dma_bridge ? design.dma_bridge->memory_size
                                : design.qdma      ? design.qdma->memory_size
                                                   : 0;
        if (memory > 0x400000) {
            args.push_back("--dma_bridge_memory_size_bytes");
            args.push_back("0x100000");
        }
    } else if (tool == "crc64_stream_latency") {
        for (const char* a : {"--samples", "20", "--max_packet_bytes", "0x1000"})
            args.push_back(a);
    } else if (tool != "descriptor_credits") {
        args.insert(args.end(), stream.begin(), stream.end());
        for (const char* a : {"--duration", "0.5", "--report_interval", "0.25"})
            args.push_back(a);
    }
    return args;
}

// The bytes the run says it verified: "<n> bytes verified in" (test_dma_bridge, credits) or the
// stream tools' "<what> verified in <w> words (<n> bytes...)" or crc64_stream_latency's
// "CRC64 verified for <p> packets (<n> bytes)".
uint64_t verified_bytes(const std::string& output) {
    uint64_t total = 0;
    static const std::regex totals("\\n([0-9]+) bytes verified in [0-9]+ tests, 0 failed\\n");
    static const std::regex words("verified in [0-9]+ words \\(([0-9]+) bytes");
    static const std::regex packets("verified for [0-9]+ packets \\(([0-9]+) bytes");
    for (const std::regex* re : {&totals, &words, &packets})
        for (auto it = std::sregex_iterator(output.begin(), output.end(), *re); it != std::sregex_iterator(); ++it)
            total += std::stoull((*it)[1].str());
    return total;
}

// The line that says why a run failed: the first line naming a failure, "FAIL: " lines first.
std::string reason(const std::string& output) {
    static const std::regex kinds[] = {
        std::regex("FAIL: ([^\\n]*)"), std::regex("(Test FAILED[^\\n]*)"), std::regex("TEST FAIL:\\n *([^\\n]*)"),
        std::regex("(Not started[^\\n]*)"), std::regex("(No [^\\n]*tested[^\\n]*)"), std::regex("(Error: [^\\n]*)")};
    for (const std::regex& kind : kinds) {
        std::smatch m;
        if (std::regex_search(output, m, kind)) {
            std::string text = m[1].str();
            for (char& c : text)
                if (c == '|')
                    c = '/';
            return text;
        }
    }
    return "";
}

struct Cell {
    bool ok = false;
    std::string text;
};

Cell judge(const Outcome& r) {
    if (r.exit_code == -2)
        return {false, "TIMEOUT (killed after " + std::to_string(kRunTimeout.count()) + " s)"};
    const bool pass = r.output.find("Overall PASS\n") != std::string::npos;
    const bool fail = r.output.find("Overall FAIL\n") != std::string::npos;
    if (r.exit_code == 0) {
        const uint64_t bytes = verified_bytes(r.output);
        if (!pass || fail)
            return {false, "BAD: exit 0 without Overall PASS"};
        if (bytes == 0)
            return {false, "BAD: PASS with 0 bytes verified"};
        return {true, "PASS " + std::to_string(bytes) + " bytes"};
    }
    if (r.exit_code == 1 && fail && !pass) {
        const std::string why = reason(r.output);
        if (why.empty())
            return {false, "BAD: exit 1 without a reason line"};
        return {true, "FAIL " + why.substr(0, 120)};
    }
    return {false, "BAD: exit " + std::to_string(r.exit_code)};
}

// PDT_MATRIX_DESIGNS (a regular expression): only the designs whose name it matches, e.g.
// "qdma|open-nic" while working on the QDMA designs; unset: every design.
std::vector<designs::Design> matrix_designs(const designs::Registry& registry) {
    const char* only = std::getenv("PDT_MATRIX_DESIGNS");
    std::vector<designs::Design> chosen;
    for (const designs::Design& design : registry.designs())
        if (only == nullptr || std::regex_search(design.name, std::regex(only)))
            chosen.push_back(design);
    return chosen;
}

TEST(DmaToolMatrix, EveryToolOnEveryBuiltInDesign) {
    auto registry = designs::Registry::load({kQdmaExample});
    ASSERT_TRUE(registry.ok()) << registry.error().message();
    ASSERT_GE(registry->designs().size(), 30u);
    const std::vector<designs::Design> all = matrix_designs(*registry);
    ASSERT_FALSE(all.empty()) << "PDT_MATRIX_DESIGNS matches no design";
    struct Job {
        size_t design, tool;
    };
    std::vector<Job> jobs;
    for (size_t d = 0; d < all.size(); ++d)
        for (size_t t = 0; t < std::size(kTools); ++t)
            jobs.push_back({d, t});
    std::filesystem::create_directories("dma_tool_matrix");  // one log per run
    std::vector<Cell> cells(jobs.size());
    std::vector<std::string> outputs(jobs.size());
    std::vector<double> seconds(jobs.size());  // each run's wall time, in the table: where the matrix's time goes
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t j; (j = next.fetch_add(1)) < jobs.size();) {
            const designs::Design& design = all[jobs[j].design];
            const Tool& tool = kTools[jobs[j].tool];
            const std::string file = "dma_tool_matrix/" + design.name + "_" + tool.short_name + ".log";
            const auto start = std::chrono::steady_clock::now();
            const Outcome r = run_to_file(tool.path, tool_args(tool.short_name, design), file);
            seconds[j] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            cells[j] = judge(r);
            outputs[j] = r.output;
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
    std::ostringstream table;
    table << "| design | tool | outcome | seconds |\n| --- | --- | --- | --- |\n";
    size_t passes = 0, fails = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
        const Cell& cell = cells[j];
        const char* tool = kTools[jobs[j].tool].short_name;
        table << "| " << all[jobs[j].design].name << " | " << tool << " | " << cell.text << " | " << std::fixed
              << std::setprecision(1) << seconds[j] << " |\n";
        passes += cell.text.starts_with("PASS") ? 1 : 0;
        fails += cell.text.starts_with("FAIL") ? 1 : 0;
        EXPECT_TRUE(cell.ok) << all[jobs[j].design].name << " " << tool << ": " << cell.text
                             << "\n" << outputs[j];
    }
    table << "\n" << passes << " PASS, " << fails << " FAIL with a reason, " << jobs.size() - passes - fails
          << " bad, of " << jobs.size() << " runs\n";
    std::cout << table.str();
    std::ofstream("dma_tool_matrix/outcomes.md") << table.str();
}

// The judge itself: each way a run can go wrong is caught.
TEST(DmaToolMatrix, JudgeRejectsDishonestRuns) {
    EXPECT_FALSE(judge({0, "Overall PASS\n"}).ok);  // nothing verified
    EXPECT_FALSE(judge({0, "x\n0 bytes verified in 1 tests, 0 failed\nOverall PASS\n"}).ok);
    EXPECT_TRUE(judge({0, "x\n4096 bytes verified in 1 tests, 0 failed\nOverall PASS\n"}).ok);
    EXPECT_TRUE(judge({0, "a 0 -> 1 Test pattern verified in 2 words (8 bytes)\nOverall PASS\n"}).ok);
    EXPECT_FALSE(judge({0, "Test pattern verified in 2 words (8 bytes)\n"}).ok);  // exit 0 without PASS
    EXPECT_FALSE(judge({1, "Overall FAIL\n"}).ok);                                   // no reason
    EXPECT_TRUE(judge({1, "x: FAIL: no loopback route\nOverall FAIL\n"}).ok);
    EXPECT_FALSE(judge({-2, ""}).ok);                                                // timeout
    EXPECT_FALSE(judge({139, "Overall PASS\n"}).ok);                                 // crash
    EXPECT_FALSE(judge({2, "Error: bad\n"}).ok);                                     // usage error
}

}  // namespace
