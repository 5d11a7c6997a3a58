// Backpressure in the simulated stream path, as a user sees it: test_dma_bridge_independent_streams
// on a looped-back design with two pairs and 4 MiB host mappings (the run that grew from 0.5 to
// 2.8 GiB resident in 20 s with the old unbounded C2H queue) keeps its resident memory flat,
// and each H2C channel's rate agrees with the rate of the C2H channel it loops to, because a
// full C2H FIFO stalls H2C. Prints the measured RSS and rates.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <unistd.h>
#include <vector>

#include "test_support/run_process.hpp"

namespace {

using namespace std::chrono_literals;

// VmRSS of a process in KiB; 0 once it is gone.
uint64_t rss_kib(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoull(line.substr(6));
    return 0;
}

struct ToolRun {
    int exit_code = -1;
    std::string output;
    std::vector<std::pair<double, uint64_t>> rss;  // (seconds since start, KiB)
};

// Runs the tool, sampling its RSS every 100 ms until it exits.
ToolRun run_sampled(std::vector<std::string> args) {
    ToolRun run;
    const auto start = std::chrono::steady_clock::now();
    test_support::RunOptions options;
    options.sample_interval = 100ms;
    options.environment = {test_support::no_quarantine_environment()};  // growth is the tool's own
    options.while_running = [&](pid_t pid) {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (const uint64_t kib = rss_kib(pid); kib > 0)
            run.rss.emplace_back(t, kib);
    };
    const test_support::Outcome r = test_support::run_process(INDEPENDENT_STREAMS_TOOL, args, options);
    run.exit_code = r.exit_code;
    run.output = r.output;
    return run;
}

// Overall rate (Mbytes/sec) of each row after "Overall test statistics:".
std::map<std::string, double> overall_rates(const std::string& output) {
    std::map<std::string, double> rates;
    const size_t at = output.find("Overall test statistics:");
    if (at == std::string::npos)
        return rates;
    const std::string tail = output.substr(at);
    const std::regex row("\n  \\S+ ((H2C|C2H) channel [0-9]) ([0-9.]+) Mbytes/sec");  // fpga_sio's indent
    for (std::sregex_iterator it(tail.begin(), tail.end(), row), end; it != end; ++it)
        rates[(*it)[1]] = std::stod((*it)[3]);
    return rates;
}

// Under ASan the tool's RSS climbs while its rings' pages are first touched and the allocator
// fills its caches, for longer on a loaded host: seen 59 MiB at 1.5 s and 75 at 4 s on a run
// whose plateau was 74-75 MiB, and on CI 59 MiB at 4 s and 75 MiB later. So the growth measured
// is what the last kTailSeconds of the run add above the peak of all that came before them: a
// queue that grows without bound (115 MiB/s in the run that reached 2.8 GiB) adds hundreds of
// MiB there, a ring that has settled adds nothing.
constexpr double kRunSeconds = 10.0;
constexpr double kTailSeconds = 3.0;

struct RssFigures {
    uint64_t peak = 0;         // KiB over the whole run
    uint64_t before_tail = 0;  // peak KiB before the last kTailSeconds
    uint64_t tail = 0;         // peak KiB in the last kTailSeconds
    uint64_t growth() const { return tail > before_tail ? tail - before_tail : 0; }
};

RssFigures rss_figures(const ToolRun& run) {
    RssFigures f;
    const double tail_from = run.rss.empty() ? 0.0 : run.rss.back().first - kTailSeconds;
    for (const auto& [t, kib] : run.rss) {
        f.peak = std::max(f.peak, kib);
        uint64_t& part = t >= tail_from ? f.tail : f.before_tail;
        part = std::max(part, kib);
    }
    return f;
}

// The RSS at each whole second, for the test's log.
std::string rss_timeline(const ToolRun& run) {
    std::string line;
    double next = 0.0;
    for (const auto& [t, kib] : run.rss)
        if (t >= next) {
            line += " " + std::to_string(static_cast<int>(t)) + "s:" + std::to_string(kib / 1024);
            next = static_cast<int>(t) + 1.0;
        }
    return line;
}

// A loopback design like TEF1001's (switch 0 <-> 1) whose model FIFO is 256 MiB.
std::string unbounded_design_file() {
    const std::string path = "/tmp/pdt_deep_fifo_" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << R"({"name": "deep_fifo_loopback", "match": {"subsystem_vendor_id": "0x0002",
        "subsystem_device_id": "0x0f07"}, "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 2,
        "c2h_channels": 2}, "peripherals": [{"type": "axi_stream_switch", "bar": 0, "offset": "0x0",
        "master_ports": 2, "slave_ports": 2, "default_routes": [{"master": 0, "slave": 1}, {"master": 1, "slave": 0}]}],
        "simulation": {"stream_fifo_bytes": 268435456}})";
    return path;
}

}  // namespace

TEST(StreamBackpressure, TwoLoopedPairsKeepMemoryFlatAndRatesAgree) {
    const ToolRun run = run_sampled({"--sim_design", "TEF1001_dma_stream_loopback", "--stream_mapping_size", "0x400000",
                                     "--duration", std::to_string(static_cast<int>(kRunSeconds)), "--report_interval", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(run.output.find("Overall PASS") != std::string::npos) << run.output;

    // 4 channels x 4 MiB of host buffers; the FIFOs add 2 x 64 KiB.
    const RssFigures rss = rss_figures(run);
    ASSERT_GT(rss.before_tail, 0u) << "too few RSS samples: " << run.rss.size();
    ASSERT_GT(rss.tail, 0u) << "too few RSS samples: " << run.rss.size();
    std::printf("RSS: peak %.1f MiB; %.1f MiB before the last %.0f s, %.1f MiB in them (%zu samples); MiB at:%s\n",
                rss.peak / 1024.0, rss.before_tail / 1024.0, kTailSeconds, rss.tail / 1024.0, run.rss.size(),
                rss_timeline(run).c_str());
    EXPECT_LT(rss.peak, 64u * 1024 + static_cast<uint64_t>(test_support::kSanitizerRssAllowanceKib)) << "resident memory peaked at " << rss.peak / 1024 << " MiB";
    EXPECT_LT(rss.growth(), 8u * 1024) << "resident memory grew by " << rss.growth() / 1024 << " MiB in the last "
                                       << kTailSeconds << " s";

    // TEF1001's switch loops H2C 0 -> C2H 1 and H2C 1 -> C2H 0.
    const auto rates = overall_rates(run.output);
    ASSERT_EQ(rates.size(), 4u) << run.output;
    for (const auto& [h2c, c2h] : {std::pair{"H2C channel 0", "C2H channel 1"}, std::pair{"H2C channel 1", "C2H channel 0"}}) {
        const double sent = rates.at(h2c), received = rates.at(c2h);
        std::printf("%s %.3f Mbytes/sec -> %s %.3f Mbytes/sec\n", h2c, sent, c2h, received);
        EXPECT_GT(sent, 0.0);
        EXPECT_NEAR(received / sent, 1.0, 0.05) << run.output;
    }

}

// With nothing reading the C2H side, a looped-back H2C stream stalls once the FIFO is full (the
// tool then times out, as on a card); a model FIFO of 256 MiB instead takes everything sent
// until it is full, which the RSS measure above sees (the control that proves it can fail).
TEST(StreamBackpressure, H2cAloneStallsUnlessTheFifoIsDeep) {
    const std::vector<std::string> h2c_only{"--h2c_stream_device", "0000:15:00.0,0", "--stream_mapping_size",
                                            "0x400000", "--duration", "3", "--transfer_timeout", "1"};
    std::vector<std::string> args{"--sim_design", "TEF1001_dma_stream_loopback"};
    args.insert(args.end(), h2c_only.begin(), h2c_only.end());
    const ToolRun stalled = run_sampled(args);
    EXPECT_EQ(stalled.exit_code, 1) << stalled.output;
    EXPECT_TRUE(stalled.output.find("H2C 0 timeout: no H2C completion for 1.000 secs") != std::string::npos)
        << stalled.output;
    const RssFigures bounded = rss_figures(stalled);
    EXPECT_LT(bounded.peak, 64u * 1024 + static_cast<uint64_t>(test_support::kSanitizerRssAllowanceKib));

    const std::string file = unbounded_design_file();
    args = {"--design_file", file, "--sim_design", "deep_fifo_loopback"};
    args.insert(args.end(), h2c_only.begin(), h2c_only.end());
    const ToolRun deep = run_sampled(args);
    unlink(file.c_str());
    const RssFigures unbounded = rss_figures(deep);
    std::printf("H2C alone: RSS peak %.1f MiB with the 64 KiB FIFO, %.1f MiB with a 256 MiB FIFO\n",
                bounded.peak / 1024.0, unbounded.peak / 1024.0);
    EXPECT_GT(unbounded.peak, bounded.peak + 128u * 1024) << deep.output;
}
