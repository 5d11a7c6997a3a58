// Runs a tool main as a user runs it, the way the process tests of the stream tools share
// (tool_process_test, etsoc1_tool_process_test, cuda_tool_process_test, xdma_ip_tools_test).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "test_support/run_process.hpp"

namespace tool_run {

// Runs the tool (output: stdout and stderr together; stdout alone with stdout_only); with
// interrupt_once set, sends SIGINT once what it printed satisfies it. A run still going after
// 5 minutes is killed: an event that never comes fails the test instead of hanging it.
inline test_support::Outcome run_tool(const char* tool, const std::vector<std::string>& args,
                                      std::function<bool(const std::string&)> interrupt_once = {},
                                      bool stdout_only = false) {
    test_support::RunOptions options;
    options.interrupt_once = std::move(interrupt_once);
    options.timeout = std::chrono::minutes(5);
    if (stdout_only)
        options.stderr_to = test_support::Stderr::discard;
    return test_support::run_process(tool, args, options);
}

// `args` followed by `more`.
inline std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// Options that end the run before any device is used, and a part of what the tool says of them.
using UsageCases = std::vector<std::pair<std::vector<std::string>, const char*>>;

// Each case's options after `args`: a usage error (exit 2) whose output names it, never a PASS.
inline void expect_usage_errors(const char* tool, const std::vector<std::string>& args, const UsageCases& cases) {
    for (const auto& [extra, message] : cases) {
        const test_support::Outcome r = run_tool(tool, with(args, extra));
        EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra[1] << ": " << r.output;
        EXPECT_TRUE(test_support::contains(r.output, message)) << r.output;
        EXPECT_FALSE(test_support::contains(r.output, "Overall PASS")) << r.output;
    }
}

}  // namespace tool_run
