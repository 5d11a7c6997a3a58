// crc64_stream_latency as a user runs it on simulated designs: percentiles per length and
// Overall PASS (exit 0), a design without a CRC64 stream is a failure (exit 1), usage errors
// exit 2.
#include <gtest/gtest.h>

#include <csignal>
#include <regex>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Outcome {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

Outcome run_tool(std::vector<std::string> args) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        std::vector<char*> argv{const_cast<char*>(CRC64_LATENCY_TOOL)};
        for (auto& arg : args)
            argv.push_back(arg.data());
        argv.push_back(nullptr);
        execv(CRC64_LATENCY_TOOL, argv.data());
        _exit(127);
    }
    close(fds[1]);
    Outcome outcome;
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
        outcome.output.append(buffer, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return outcome;
}

}  // namespace

TEST(Crc64LatencyProcess, PercentilesPerLengthOnEveryCrc64Design) {
    const Outcome run = run_tool({"--sim_design", "U200_dma_stream_crc64", "--sim_design", "TEF1001_dma_stream_loopback",
                                  "--samples", "50", "--max_packet_bytes", "256"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(run.output.find("Testing design U200_dma_stream_crc64 using H2C 0 -> C2H 0\n") != std::string::npos)
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
    EXPECT_TRUE(none.output.ends_with("No CRC64 stream design was tested\nOverall FAIL\n")) << none.output;
    EXPECT_EQ(run_tool({"--samples", "0"}).exit_code, 2);
    EXPECT_EQ(run_tool({"--max_packet_bytes", "4"}).exit_code, 2);
    EXPECT_EQ(run_tool({"--bogus"}).exit_code, 2);
    const Outcome unknown = run_tool({"--sim_design", "No_such_design"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
}

// Into a pipe, each line is there as soon as it is printed, not when the tool exits.
TEST(Crc64LatencyProcess, LinesReachAPipeWhileTheToolRuns) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(CRC64_LATENCY_TOOL, CRC64_LATENCY_TOOL, "--sim_design", "NiteFury_dma_stream_crc64", "--samples",
              "100000000", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    std::string seen;
    char buffer[256];
    while (seen.find("Testing design ") == std::string::npos) {
        pollfd ready{fds[0], POLLIN, 0};
        if (poll(&ready, 1, 30000) != 1)  // a line held in the tool's buffer never comes: fail, not hang
            break;
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n <= 0)
            break;
        seen.append(buffer, static_cast<size_t>(n));
    }
    int status = 0;
    const pid_t exited = waitpid(pid, &status, WNOHANG);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    close(fds[0]);
    EXPECT_EQ(exited, 0) << "the tool had already exited: its lines came at exit\n" << seen;
    EXPECT_NE(seen.find("Testing design NiteFury_dma_stream_crc64 using H2C 0 -> C2H 0\n"), std::string::npos) << seen;
}
