// test_dma_bridge's two stream sub-tests run on a simulated design fixture (a Design with the
// XDMA model `xdma`, the sub-test options `options` and run(test, result)), and the runs that
// must fail: for the sim tests of the sub-tests (stream_tools_sim_test,
// stream_subtests_functions_sim_test).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/xdma_model.hpp"
#include "stream_tools/stream_subtests.hpp"

namespace subtest_runs {

using Subtest = stream_tools::MemoryTestResult (*)(vfio::Device&, const stream_tools::StreamSubtestOptions&,
                                                  std::FILE*);
inline const Subtest kSubtests[] = {stream_tools::stream_fixed_buffers_c2h_continuous,
                                    stream_tools::stream_variable_transfers};

// What a sub-test returned and printed.
struct Run {
    stream_tools::MemoryTestResult result;
    std::string out;
};

// Runs `test` on `design`: it must fail.
template <typename Design>
Run failed(Design& design, Subtest test) {
    Run run;
    run.out = design.run(test, run.result);
    EXPECT_FALSE(run.result.passed) << run.out;
    return run;
}

// Runs `test` on `design`: it must fail, printing `ending` last.
template <typename Design>
void expect_fails_ending(Design& design, Subtest test, const std::string& ending) {
    const Run run = failed(design, test);
    EXPECT_TRUE(run.out.ends_with(ending)) << run.out;
}

// Each sub-test on a fresh Design(args...) with `fault` injected on the channel of the design's
// route in `direction`: every one must fail.
template <typename Design, typename... Args>
std::vector<Run> each_failing_with(sim::XdmaDirection direction, sim::XdmaFault fault, const Args&... args) {
    std::vector<Run> runs;
    for (const Subtest test : kSubtests) {
        Design design(args...);
        const bool h2c = direction == sim::XdmaDirection::H2C;
        design.xdma->inject(direction, h2c ? design.options.h2c_channel : design.options.c2h_channel, fault);
        runs.push_back(failed(design, test));
    }
    return runs;
}

}  // namespace subtest_runs
