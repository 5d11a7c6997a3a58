// user_interrupts run as a user runs it, on a simulated XDMA design: with --sim_raise each request
// of the model's user logic is counted exactly once (text and JSON) and a masked one stays
// pending; each lie of the model's user interrupts (PDT_SIM_FAULT user_irq_*) fails; without
// requests the wait times out; a vector the device does not have and an IRQ PG195 does not have
// are refused; on a QDMA design (no mask) each request is counted once and each lie fails.
#include <gtest/gtest.h>

#include <vector>

#include "test_support/run_process.hpp"

namespace {

constexpr const char* kXdmaDesign = "TEF1001_dma_ddr3";

test_support::Outcome run_irqs(const std::vector<std::string>& args, const std::vector<std::string>& environment = {}) {
    test_support::RunOptions options;
    options.environment = environment;
    options.stdin_from_null = true;
    options.timeout = std::chrono::seconds(60);
    std::vector<std::string> all = {"--sim_design", kXdmaDesign};
    all.insert(all.end(), args.begin(), args.end());
    return test_support::run_process(USER_INTERRUPTS, all, options);
}

}  // namespace

TEST(UserInterrupts, EachRequestOfTheModelIsCountedExactlyOnce) {
    const auto out = run_irqs({"--sim_raise", "--irq", "0", "--irq", "3", "--vector", "0", "--vector", "7", "--count", "4"});
    EXPECT_TRUE(test_support::exited_printing(
        out, 0,
        {"User interrupt 0 (MSI vector 0): 4 events for 4 requests; latency from request min ",
         "User interrupt 3 (MSI vector 7): 4 events for 4 requests; latency from request min ",
         "Mask: a masked request stayed pending with no message and interrupted once unmasked",
         "PASS: 8 user interrupt events counted, one for each request, none after the last within 50 ms"}));
}

TEST(UserInterrupts, JsonGivesTheCountsAndTheVerdict) {
    const auto out = run_irqs({"--sim_raise", "--irq", "5", "--count", "3", "--json"});
    EXPECT_TRUE(test_support::exited_printing(
        out, 0,
        {"\"design\": \"TEF1001_dma_ddr3\", \"irqs\": [{\"irq\": 5, \"vector\": 5, \"events\": 3, \"requests\": 3, "
         "\"latency\": {\"samples\": 3, ",
         "\"verdict\": \"PASS\", \"reason\": \"\"}"}));
}

TEST(UserInterrupts, EachLieOfTheModelFails) {
    const std::pair<const char*, const char*> lies[] = {
        {"user_irq_drops", "FAIL: the held request of user interrupt 0 (MSI vector 0) sent nothing once unmasked"},
        {"user_irq_doubles", "FAIL: 2 events of user interrupt 0 (MSI vector 0) for 1 requests (one each expected)"},
        {"user_irq_ignores_mask", "FAIL: a masked request of user interrupt 0 (MSI vector 0) was delivered"},
    };
    for (const auto& [lie, verdict] : lies) {
        const auto out = run_irqs({"--sim_raise", "--timeout", "0.2"}, {std::string("PDT_SIM_FAULT=") + lie});
        EXPECT_TRUE(test_support::exited_printing(out, 1, {verdict})) << lie;
        EXPECT_FALSE(test_support::contains(out.output, "PASS")) << out.output;
    }
}

TEST(UserInterrupts, WithoutRequestsTheWaitTimesOutNamingTheCounts) {
    const auto out = run_irqs({"--irq", "2", "--count", "2", "--timeout", "0.1"});
    EXPECT_TRUE(test_support::exited_printing(
        out, 1, {"User interrupt 2 (MSI vector 2): 0 events",
                 "FAIL: no user interrupt within 100 ms: user interrupt 2 (MSI vector 2) has 0 of 2"}));
}

TEST(UserInterrupts, AVectorTheDeviceDoesNotHaveFails) {
    const auto out = run_irqs({"--irq", "1", "--vector", "20"});
    EXPECT_TRUE(test_support::exited_printing(
        out, 1, {"Error: enable user interrupt 1 0000:15:00.0 MSI vector 20: Invalid argument (the vector does not "
                 "exist: the device enabled 16 MSI vectors (0 to 15))"}));
}

TEST(UserInterrupts, ADesignWithoutADmaIpFails) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    EXPECT_TRUE(test_support::exited_printing(
        test_support::run_process(USER_INTERRUPTS, {"--sim_design", "XCKU5P_DUAL_QSFP_ibert"}, options), 1,
        {"Error: enable user interrupts 0000:15:00.0 XCKU5P_DUAL_QSFP_ibert: Operation not supported (the design has "
         "no XDMA or QDMA IP)"}));
}

TEST(UserInterrupts, RequestsNoIpCouldServeAreUsageErrors) {
    const std::pair<std::vector<std::string>, const char*> cases[] = {
        {{"--irq", "16"}, "Error: enable user interrupt 16 0000:15:00.0: Invalid argument (PG195's usr_irq_req has at most 16 bits (0 to 15))"},
        {{"--irq", "2048"}, "Error: parse option --irq \"2048\""},
        {{"--vector", "2048"}, "Error: parse option --vector \"2048\""},
        {{"--count", "0"}, "Error: parse option --count \"0\""},
        {{"--timeout", "0"}, "Error: parse option --timeout \"0\": Invalid argument (expected a positive number of seconds)"},
        {{"--irq", "0", "--vector", "1", "--vector", "2"}, "Error: --vector given 2 times for 1 --irq"},
        {{"--irq", "0", "--irq", "1", "--vector", "3", "--vector", "3"},
         "another user interrupt has this vector: their counts could not be told apart"},
    };
    for (const auto& [args, message] : cases)
        EXPECT_TRUE(test_support::exited_printing(run_irqs(args), 2, {message})) << args.front();
    test_support::RunOptions options;
    options.stdin_from_null = true;
    EXPECT_TRUE(test_support::exited_printing(
        test_support::run_process(USER_INTERRUPTS, {"--device", "0000:01:00.0", "--sim_raise"}, options), 2,
        {"Error: --sim_raise needs --sim_design"}));
}

TEST(UserInterrupts, OnQdmaEachRequestIsCountedOnceAndEachLieFails) {
    test_support::RunOptions options;
    options.stdin_from_null = true;
    const auto counted = test_support::run_process(
        USER_INTERRUPTS, {"--sim_design", "U200_qdma_ram", "--sim_raise", "--irq", "4", "--count", "3"}, options);
    EXPECT_TRUE(test_support::exited_printing(
        counted, 0, {"User interrupt 4 (MSI vector 4): 3 events for 3 requests; latency from request min ",
                     "PASS: 3 user interrupt events counted, one for each request"}));
    EXPECT_FALSE(test_support::contains(counted.output, "Mask:")) << "PG302's IP has no user interrupt mask";
    const std::pair<const char*, const char*> lies[] = {
        {"user_irq_drops", "FAIL: no event of user interrupt 0 (MSI vector 0) within 200 ms of request 1 of 1"},
        {"user_irq_doubles", "FAIL: 2 events of user interrupt 0 (MSI vector 0) for 1 requests (one each expected)"},
    };
    for (const auto& [lie, verdict] : lies) {
        options.environment = {std::string("PDT_SIM_FAULT=") + lie};
        const auto out = test_support::run_process(
            USER_INTERRUPTS, {"--sim_design", "U200_qdma_ram", "--sim_raise", "--timeout", "0.2"}, options);
        EXPECT_TRUE(test_support::exited_printing(out, 1, {verdict})) << lie;
    }
    options.environment = {};
    EXPECT_TRUE(test_support::exited_printing(
        test_support::run_process(USER_INTERRUPTS, {"--sim_design", "U200_qdma_ram", "--irq", "2", "--vector", "3"},
                                  options),
        2, {"the user logic names the MSI-X vector itself (usr_irq_in_vec, 0 to 2047)"}));
}
