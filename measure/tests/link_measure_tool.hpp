// Running the pcie_link_measure that CMake built (PCIE_LINK_MEASURE) as a user runs it: the
// arguments split into words, stdin from /dev/null, within a time limit.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "test_support/run_process.hpp"

inline test_support::Outcome run_link_measure(const std::string& args, std::chrono::milliseconds timeout,
                                              test_support::Stderr stderr_to = test_support::Stderr::separate,
                                              std::vector<std::string> environment = {}) {
    test_support::RunOptions o;
    o.stderr_to = stderr_to;
    o.stdin_from_null = true;
    o.environment = std::move(environment);
    o.timeout = timeout;
    return test_support::run_process(PCIE_LINK_MEASURE, test_support::words(args), o);
}
