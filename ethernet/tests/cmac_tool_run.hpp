// Runs the CMAC tools (tools/ethernet/) as processes on simulated designs, for their tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "test_support/run_process.hpp"

namespace cmac_tool_run {

// The first simulated device's location, as the tools name it.
inline const std::string kDevice = "0000:15:00.0";

// Runs `tool` (stdout and stderr apart, stdin from /dev/null); `environment`: "NAME=value ...".
inline test_support::Outcome run(const char* tool, const std::string& args, const std::string& environment = "",
                                 std::function<bool(const std::string&)> interrupt_once = {}) {
    test_support::RunOptions options;
    options.stderr_to = test_support::Stderr::separate;
    options.stdin_from_null = true;
    options.environment = test_support::words(environment);
    options.interrupt_once = std::move(interrupt_once);
    options.timeout = std::chrono::minutes(2);
    return test_support::run_process(tool, test_support::words(args), options);
}

// The lines of what a tool printed, without identification's "Opening device ..." lines.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("Opening device ", 0) != 0)
            lines.push_back(line);
    return lines;
}

// The lines of `text` from the first that equals `first`, `count` of them (fewer at the end).
inline std::vector<std::string> block(const std::string& text, const std::string& first, size_t count) {
    const std::vector<std::string> lines = lines_of(text);
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i] == first)
            return std::vector<std::string>(lines.begin() + static_cast<long>(i),
                                            lines.begin() + static_cast<long>(std::min(lines.size(), i + count)));
    return {};
}

}  // namespace cmac_tool_run
