// What a test of the measurement subcommands (run_sweep, run_latency, run_access, ...) hands
// each call: silent progress, default settings, and the verified-bytes and warnings outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "measure/progress.hpp"
#include "measure/subcommands.hpp"

struct SubcommandTest : ::testing::Test {
    std::ostringstream silent;
    measure::Progress progress{silent, false};
    measure::CommonSettings common;
    uint64_t verified = 0;
    std::vector<std::string> warnings;
};
