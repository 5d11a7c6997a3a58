// The stream tools on each lying ET-SoC-1 fake, as a user runs them (F14): with four descriptors
// and with one (--stream_num_descriptors 1, where the real runtime's daemon with its fake device
// printed "Overall PASS" from its bounce buffer), every lie makes the run exit 1 with a data error
// naming the C2H channel and the first bad stream offset; the honest fake passes.
#include <gtest/gtest.h>

#include "test_support/run_process.hpp"

namespace {

using test_support::contains;

test_support::Outcome run(const char* tool, const std::string& descriptors, const std::string& fake) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    options.timeout = std::chrono::minutes(2);
    std::vector<std::string> args{"--etsoc1_device", "fake", "--stream_mapping_size", "0x100000",
                                  "--stream_num_descriptors", descriptors, "--duration", "1", "--report_interval", "0.5"};
    if (!fake.empty())
        args.insert(args.end(), {"--etsoc1_fake", fake});
    return test_support::run_process(tool, args, options);
}

const char* const kTools[] = {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL};

TEST(Etsoc1LyingTools, EveryLieFailsBothStreamToolsWithOneDescriptorOrFour) {
    for (const char* tool : kTools)
        for (const char* descriptors : {"1", "4"})
            for (const char* lie : {"moves_nothing=1", "stale_after=2", "completes_early=1"}) {
                const auto r = run(tool, descriptors, lie);
                const std::string what = std::string(tool) + " --stream_num_descriptors " + descriptors + " " + lie;
                EXPECT_EQ(r.exit_code, 1) << what << "\n" << r.output;
                EXPECT_TRUE(contains(r.output, "data error")) << what << "\n" << r.output;
                EXPECT_TRUE(contains(r.output, "ET-SoC-1 fake 0 channel 0 C2H")) << what << "\n" << r.output;
                EXPECT_TRUE(contains(r.output, "offset 0x")) << what << "\n" << r.output;
                EXPECT_TRUE(contains(r.output, "Overall FAIL")) << what << "\n" << r.output;
                EXPECT_FALSE(contains(r.output, "Overall PASS")) << what << "\n" << r.output;
                EXPECT_FALSE(contains(r.output, "Test pattern verified")) << what << "\n" << r.output;
            }
}

TEST(Etsoc1LyingTools, TheHonestFakePassesBothStreamToolsWithOneDescriptorOrFour) {
    for (const char* tool : kTools)
        for (const char* descriptors : {"1", "4"}) {
            const auto r = run(tool, descriptors, "");
            EXPECT_EQ(r.exit_code, 0) << tool << " --stream_num_descriptors " << descriptors << "\n" << r.output;
            EXPECT_TRUE(contains(r.output, "Test pattern verified")) << r.output;
            EXPECT_TRUE(contains(r.output, "Overall PASS")) << r.output;
        }
}

}  // namespace
