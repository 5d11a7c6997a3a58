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
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

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

// Runs the tool with its output in a file, sampling its RSS every 100 ms until it exits.
ToolRun run_sampled(std::vector<std::string> args) {
    char path[] = "/tmp/pdt_backpressure_XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        std::vector<char*> argv{const_cast<char*>(INDEPENDENT_STREAMS_TOOL)};
        for (auto& arg : args)
            argv.push_back(arg.data());
        argv.push_back(nullptr);
        execv(INDEPENDENT_STREAMS_TOOL, argv.data());
        _exit(127);
    }
    ToolRun run;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (const uint64_t kib = rss_kib(pid); kib > 0)
            run.rss.emplace_back(t, kib);
        std::this_thread::sleep_for(100ms);
    }
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream in(path);
    run.output.assign(std::istreambuf_iterator<char>(in), {});
    close(fd);
    unlink(path);
    return run;
}

// Overall rate (Mbytes/sec) of each row after "Overall test statistics:".
std::map<std::string, double> overall_rates(const std::string& output) {
    std::map<std::string, double> rates;
    const size_t at = output.find("Overall test statistics:");
    if (at == std::string::npos)
        return rates;
    const std::string tail = output.substr(at);
    const std::regex row("\n\\S+ ((H2C|C2H) channel [0-9]) ([0-9.]+) Mbytes/sec");
    for (std::sregex_iterator it(tail.begin(), tail.end(), row), end; it != end; ++it)
        rates[(*it)[1]] = std::stod((*it)[3]);
    return rates;
}

}  // namespace

TEST(StreamBackpressure, TwoLoopedPairsKeepMemoryFlatAndRatesAgree) {
    const ToolRun run = run_sampled({"--sim_design", "TEF1001_dma_stream_loopback", "--stream_mapping_size", "0x400000",
                                 "--duration", "8", "--report_interval", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(run.output.find("Overall PASS") != std::string::npos) << run.output;

    // Resident memory once the buffers are allocated and the streams run (after 1.5 s).
    uint64_t low = UINT64_MAX, high = 0;
    for (const auto& [t, kib] : run.rss)
        if (t >= 1.5) {
            low = std::min(low, kib);
            high = std::max(high, kib);
        }
    ASSERT_LT(low, high + 1) << "too few RSS samples: " << run.rss.size();
    std::printf("RSS over the run after 1.5 s: %.1f .. %.1f MiB (%zu samples)\n", low / 1024.0, high / 1024.0,
                run.rss.size());
    EXPECT_LT(high - low, 16u * 1024) << "resident memory grew by " << (high - low) / 1024 << " MiB";

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
