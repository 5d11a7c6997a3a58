// time_memmapped --copy: whole-window copies of simulated BAR memory both ways, every byte
// verified with a decoy in the destination before each copy; each lie of the memory (writes
// dropped, stale after N, the last write held back) FAILs naming the offset; the tool on the
// example design with block RAM in BAR 0 (docs/examples/bram_bar_design.json).
#include <gtest/gtest.h>

#include "measure/bar_copy.hpp"
#include "sim/bar_memory.hpp"
#include "test_support/run_process.hpp"
#include "test_support/text.hpp"

namespace {

const std::string kCopyDesignFile = std::string(PDT_SOURCE_DIR) + "/docs/examples/bram_bar_design.json";

// A BAR that is only block RAM, at offset 0.
struct BramBackend final : vfio::MmioBackend {
    std::shared_ptr<sim::BarMemoryBlock> block = sim::BarMemoryBlock::make(0x1000, false, "copy").value();
    uint64_t size() const override { return block->size(); }
    uint64_t read(uint64_t offset, unsigned width) override { return block->read(offset, width); }
    void write(uint64_t offset, unsigned width, uint64_t value) override { block->write(offset, width, value); }
};

measure::BarCopyRun copy_with_lie(const std::string& lie) {
    auto backend = std::make_shared<BramBackend>();
    backend->block->set_lie(streams::parse_lie("test", lie).value());
    vfio::Bar bar(0, backend);
    return measure::copy_bar_window(*measure::uncached_accessor(bar), {0, 0x100, 0x200, 0x800, 3});
}

test_support::Outcome time_copy(std::vector<std::string> args, const std::string& fault = "") {
    std::vector<std::string> all = {"--design_file", kCopyDesignFile, "--sim_design", "example_bram_bar", "--bar", "0"};
    all.insert(all.end(), args.begin(), args.end());
    test_support::RunOptions options;
    if (!fault.empty())
        options.environment = {"PDT_SIM_FAULT=" + fault};
    return test_support::run_process(TIME_MEMMAPPED, all, options);
}

}  // namespace

TEST(BarCopy, EveryByteOfEveryPassIsVerified) {
    const measure::BarCopyRun run = copy_with_lie("none");
    EXPECT_TRUE(run.passed()) << run.describe_mismatch();
    EXPECT_EQ(run.bytes_verified, 0x800u);
    EXPECT_EQ(run.to_card.size(), 4u);
    EXPECT_EQ(run.to_host.size(), 4u);
    EXPECT_EQ(run.mapping, "UC (VFIO mmap)");
}

// Each lie of the memory, where the run must stop and why. The window is 64 words at 0x100.
struct CopyLie {
    const char* lie;
    uint64_t bytes_verified;
    const char* starts;  // describe_mismatch()'s start
    const char* why;
};

TEST(BarCopy, EachLieOfTheMemoryFailsNamingTheOffset) {
    const CopyLie cases[] = {
        // Every write dropped: the BAR holds its zeros, neither decoy.
        {"moves_nothing", 0, "offset 0x100 (pass 0): read 0x0, expected ", "neither decoy: stale or wrong data"},
        // Pass 0: 64 decoy and 64 copy writes; pass 1: 64 decoy writes, then 10 of the copy land.
        {"stale_after=202", 0x200, "offset 0x150 (pass 1)", "the BAR still held the decoy written before the copy"},
        // Each write held back until the next: the copy's last word never lands.
        {"completes_early", 0, "offset 0x2f8 (pass 0)", "the BAR still held the decoy"},
    };
    for (const CopyLie& c : cases) {
        const measure::BarCopyRun run = copy_with_lie(c.lie);
        ASSERT_FALSE(run.passed()) << c.lie;
        EXPECT_EQ(run.bytes_verified, c.bytes_verified) << c.lie;
        EXPECT_EQ(run.describe_mismatch().rfind(c.starts, 0), 0u) << c.lie << ": " << run.describe_mismatch();
        EXPECT_TRUE(test_support::contains(run.describe_mismatch(), c.why)) << c.lie << ": " << run.describe_mismatch();
    }
}

TEST(BarCopy, AnEmptyWindowVerifiesNothingAndIsNoPass) {
    auto backend = std::make_shared<BramBackend>();
    vfio::Bar bar(0, backend);
    const measure::BarCopyRun run = measure::copy_bar_window(*measure::uncached_accessor(bar), {0, 0, 0, 0x100, 1});
    EXPECT_FALSE(run.passed());
    EXPECT_EQ(run.bytes_verified, 0u);
}

TEST(TimeMemmappedCopy, CopiesTheWindowBothWaysAndSaysHowManyBytesVerified) {
    const auto out = time_copy({"--offset", "0x2000", "--copy", "--copy_bytes", "0x4000"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains_all(
        out.output, {"Testing BAR 0 memory size 0x2000 for domain=0000 bus=", "Test pattern pass\n",
                     "host-to-card PIO mapped with uncached-minus timing for 2 transfers of 8192 bytes:\n",
                     "card-to-host PIO mapped with uncached-minus timing for 2 transfers of 8192 bytes:\n",
                     "Verified 16384 bytes (UC (VFIO mmap): 2 copies each way of 0x2000 bytes at BAR offset 0x2000",
                     "WC: not available (simulated device: no sysfs resource0_wc)\n",
                     "Verdict: PASS (16384 bytes verified)\n"}))
        << out.output;
}

TEST(TimeMemmappedCopy, MemoryThatDropsWritesFailsNamingTheOffset) {
    const auto out = time_copy({"--offset", "0x2000", "--copy", "--copy_bytes", "0x2000"}, "moves_nothing");
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_TRUE(test_support::contains_all(out.output, {"Test pattern FAIL at BAR 0 offset 0x2000 (pass 0)",
                                                        "Verified 0 bytes", "Verdict: FAIL"}))
        << out.output;
}

TEST(TimeMemmappedCopy, RegistersAndBadWindowsAreRefusedBeforeAnyCopy) {
    const auto registers = time_copy({"--offset", "0", "--size", "0x1000", "--copy"});
    EXPECT_EQ(registers.exit_code, 1) << registers.output;
    EXPECT_TRUE(test_support::contains(registers.output, "overlaps the")) << registers.output;
    EXPECT_FALSE(test_support::contains(registers.output, "Testing BAR")) << registers.output;
    const auto unaligned = time_copy({"--offset", "0x2000", "--size", "0x1004", "--copy"});
    EXPECT_EQ(unaligned.exit_code, 2) << unaligned.output;
    EXPECT_TRUE(test_support::contains(unaligned.output, "not a multiple of the 8-byte access")) << unaligned.output;
    const auto json = time_copy({"--offset", "0x2000", "--copy", "--json"});
    EXPECT_EQ(json.exit_code, 2) << json.output;
    EXPECT_TRUE(test_support::contains(json.output, "Error: --copy prints fpga_sio's timing blocks: not with --json or --write"));
}
