// test_dma_descriptor_credits' experiment modes as processes (credits_modes.hpp): --reset_test on
// an XDMA design's engine and on the simulated edu, --fork through the simulated edu's DMA (heap
// buffers stay the parent's, a shared-memory toggle corrupts the transfer and exits 1,
// MADV_DONTFORK leaves the child no mapping), and every usage error. The same runs on the real
// kernel are the guest's (vm_dma_experiments).
#include <gtest/gtest.h>

#include "test_support/run_process.hpp"
#include "test_support/text.hpp"

namespace {

test_support::Outcome credits(const std::string& args) {
    return test_support::run_process(DESCRIPTOR_CREDITS_TOOL, test_support::words(args));
}

TEST(CreditsResetTest, TheXdmaEngineRegistersGoBackToTheirValuesAfterOpen) {
    const auto out = credits("--reset_test --sim_design TEF1001_dma_ddr3");
    EXPECT_TRUE(test_support::exited_printing(
        out, 0,
        {"Reset test 0000:15:00.0 (kernel none: simulated device): registers after open, after writing, after VFIO_DEVICE_RESET",
         "H2C 0 Control (0x0004): after open 0x0, after write 0x0, after reset 0x0 (read only)",
         "SGDMA Common Descriptor Credit Mode Enable (0x6020): after open 0x0, after write 0x1, after reset 0x0 (reset to its value after open)",
         "H2C SGDMA 0 Descriptor Credits (0x408C): after open 0x0, after write 0x1fd, after reset 0x0 (reset to its value after open)",
         "H2C 0 Poll Mode High Write Back Address (0x008C): after open 0x0, after write 0xfeedabba, after reset 0x0",
         "Reset test: PASS (6 registers read after the reset)"}));
    EXPECT_FALSE(test_support::contains(out.output, "Testing 8192 bytes")) << "no credit test runs";
}

TEST(CreditsResetTest, TheSimulatedEduAndADeviceWithoutKnownRegisters) {
    EXPECT_TRUE(test_support::exited_printing(
        credits("--reset_test --edu_sim"), 0,
        {"edu Liveness (0x04): after open 0xffffffff, after write 0xedcba987, after reset 0xffffffff",
         "edu DMA count (0x90): after open 0x0, after write 0x1fd",
         "Reset test: PASS (8 registers read after the reset)"}));
    EXPECT_TRUE(test_support::exited_printing(credits("--reset_test --sim_design AS02MC04_qdma_enum"), 1,
                                              {"reset test: no registers known for this device"}));
}

TEST(CreditsForkTest, HeapBuffersStayTheParentsAndTheTransferIsVerified) {
    EXPECT_TRUE(test_support::exited_printing(
        credits("--edu_sim --fork toggle_dma_mapping"), 0,
        {"Fork test on edu 0000:01:00.0: buffers heap, MADV_DONTFORK off, 2 of 2 DMA mappings made before fork(), child toggle_dma_mapping",
         "child saw the source: pattern A, the parent's content at fork()",
         "child saw the destination: the destination's 0xEE bytes of before fork()",
         "child: toggle_dma_mapping done, exited 0", "pattern B verified in 4000 bytes",
         "Test: PASS (4000 bytes verified)"}));
}

TEST(CreditsForkTest, AChildsToggleOfSharedMemoryCorruptsTheTransfer) {
    EXPECT_TRUE(test_support::exited_printing(
        credits("--edu_sim --fork toggle_dma_mapping --fork_buffers shared_memory"), 1,
        {"child saw the source: pattern B, written by the parent after fork() (memory shared with the parent)",
         "corrupted: 4000 of 4000 bytes differ; the destination holds the inverse of pattern B: the child's "
         "toggle reached the parent's source",
         "Test: FAIL (the transfer was corrupted)"}));
    EXPECT_TRUE(test_support::exited_printing(
        credits("--edu_sim --fork write_dma_mapping --fork_buffers shared_memory --fork_mappings 1"), 1,
        {"zeros: the child's writes reached the parent's source"}));
}

TEST(CreditsForkTest, DontforkLeavesTheChildNoMappingAndNoMappingsBeforeForkNothingToTouch) {
    EXPECT_TRUE(test_support::exited_printing(
        credits("--edu_sim --fork write_dma_mapping --fork_buffers shared_memory --dontfork"), 0,
        {"MADV_DONTFORK on",
         "child saw the source: nothing: the access faulted (SIGSEGV/SIGBUS), no mapping in the child",
         "child: its touch faulted (exit 3)", "Test: PASS (4000 bytes verified)"}));
    const auto none = credits("--edu_sim --fork toggle_dma_mapping --fork_buffers shared_memory --fork_mappings 0");
    EXPECT_EQ(none.exit_code, 0) << none.output;
    EXPECT_FALSE(test_support::contains(none.output, "child saw")) << none.output;
    const auto no_fork = credits("--edu_sim --fork none");
    EXPECT_EQ(no_fork.exit_code, 0) << no_fork.output;
    EXPECT_FALSE(test_support::contains(no_fork.output, "child:")) << no_fork.output;
}

TEST(CreditsForkTest, XdmaCardMemoryToo) {
    EXPECT_TRUE(
        test_support::exited_printing(credits("--sim_design TEF1001_dma_ddr3 --fork toggle_dma_mapping"), 0,
                                      {"Fork test on 0000:15:00.0 card memory: buffers heap",
                                       "pattern B verified in 4096 bytes", "Test: PASS (4096 bytes verified)"}));
    EXPECT_TRUE(test_support::exited_printing(
        credits("--sim_design TEF1001_dma_ddr3 --fork toggle_dma_mapping --fork_buffers shared_memory"), 1,
        {"the inverse of pattern B: the child's toggle reached the parent's source"}));
    EXPECT_TRUE(
        test_support::exited_printing(credits("--sim_design TEF1001_dma_stream_loopback --fork read_dma_mapping"), 1,
                                      {"or the card memory of an XDMA memory-mapped design; this device is "
                                       "neither"}));
}

TEST(CreditsIovaOffsets, FaultsAreNamedAndNothingOutsideTheTransferChanges) {
    EXPECT_TRUE(test_support::exited_printing(
        credits("--edu_sim -o 0,0x100000,0"), 0,
        {"IOVA offsets on edu 0000:01:00.0: source IOVA 0x", " + 0x100000, destination IOVA 0x",
         "(outside every mapping of this test) and writes 0x", "(inside the destination mapping)",
         "IOMMU fault: device read at IOVA 0x", ", 4000 bytes: unmapped",
         "destination holds the card's bytes of before (0x5a): the device's read of the source was blocked",
         "Test: PASS (8288 host bytes outside the transfer verified unchanged)"}));
    EXPECT_TRUE(
        test_support::exited_printing(credits("--edu_sim --iova_offsets 0,0,0x100000"), 0,
                                      {"IOMMU fault: device write at IOVA 0x",
                                       "destination holds its own bytes (0xdd): the device's write did not reach it",
                                       "Test: PASS (12288 host bytes outside the transfer verified unchanged)"}));
    const auto none = credits("--edu_sim -o 0,0,0");
    EXPECT_TRUE(
        test_support::exited_printing(none, 0, {"destination holds the source's bytes (the transfer arrived)"}));
    EXPECT_FALSE(test_support::contains(none.output, "IOMMU fault")) << none.output;
}

TEST(CreditsIovaOffsets, AnOffsetIntoAnotherMappingIsNotCaughtAndFails) {
    // The canary is mapped right after the destination: the IOMMU lets the write through.
    const auto out = credits("--edu_sim -o 0,0,0x1000");
    EXPECT_TRUE(test_support::exited_printing(
        out, 1,
        {"(inside the canary mapping)", "host memory outside the transfer changed: canary byte 0 (IOVA 0x",
         "Test: FAIL (the device wrote outside the transfer; an IOMMU stops only addresses no mapping covers)"}));
    EXPECT_FALSE(test_support::contains(out.output, "IOMMU fault")) << out.output;
    // An IOVA past edu's 28-bit DMA mask is refused before the DMA starts (edu would truncate it).
    EXPECT_TRUE(test_support::exited_printing(credits("--edu_sim -o 0,0x10000000,0"), 1,
                                              {"exceeds edu's 28-bit DMA mask 0xfffffff"}));
    EXPECT_TRUE(test_support::exited_printing(credits("--edu_sim -o 1,0,0"), 1,
                                              {"an edu transfer has no descriptors: the descriptor offset must be 0"}));
    EXPECT_TRUE(test_support::exited_printing(credits("--sim_design TEF1001_dma_ddr3 -o 0,0,0"), 1,
                                              {"--iova_offsets moves its transfer through QEMU's edu device"}));
}

TEST(CreditsExperiments, UsageErrors) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--edu_sim --fork toggle_dma_mapping --fork_mappings 3", "fork_mappings"},
        {"--edu_sim --fork bogus", "one of none, no_dma_mapping_access, read_dma_mapping, write_dma_mapping, toggle_dma_mapping"},
        {"--edu_sim --fork none --fork_buffers disk", "one of heap, shared_memory, huge_pages"},
        {"--edu_sim --dontfork", "they shape a --fork run: give --fork too"},
        {"--edu_sim --fork_mappings 1", "they shape a --fork run: give --fork too"},
        {"--edu_sim --reset_test --fork none", "each is a run of its own: give one"},
        {"--edu_sim --fork none -o 0,0,0", "each is a run of its own: give one"},
        {"--edu_sim -o 0,1", "expected <descriptor offset>,<H2C offset>,<C2H offset>"},
        {"--edu_sim -o 0,x,1", "iova_offsets"},
        {"--edu_sim", "it serves --reset_test, --fork or --iova_offsets"},
        {"--reset_test", "name the device: --device BDF (any vfio-pci device), --sim_design NAME or --edu_sim"},
    };
    for (const auto& [args, message] : cases) {
        const auto out = credits(args);
        EXPECT_EQ(out.exit_code, 2) << args << "\n" << out.output;
        EXPECT_TRUE(test_support::contains(out.output, message)) << args << "\n" << out.output;
    }
}

}  // namespace
