// memmapped_persistence: the keyed pattern and its comparison on simulated BAR memory, and the
// tool on the example design with block RAM in BAR 0 (docs/examples/bram_bar_design.json):
// kept across processes only when the model's memory is file-backed (PDT_SIM_BAR_MEMORY_DIR),
// kept or cleared by a reset as the design data says, and every bad region refused before any
// access.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "measure/bar_persistence.hpp"
#include "sim/bar_memory.hpp"
#include "counting_device.hpp"
#include "sim/sim_device.hpp"
#include "test_support/run_process.hpp"
#include "test_support/text.hpp"
#include "vfio_access/reset_registers.hpp"

namespace {

const std::string kDesignFile = std::string(PDT_SOURCE_DIR) + "/docs/examples/bram_bar_design.json";

test_support::Outcome persistence(std::vector<std::string> args, const std::string& memory_dir = "",
                                  const std::string& design_file = kDesignFile) {
    std::vector<std::string> all = {"--design_file", design_file, "--sim_design", "example_bram_bar"};
    all.insert(all.end(), args.begin(), args.end());
    test_support::RunOptions options;
    if (!memory_dir.empty())
        options.environment = {std::string(sim::kBarMemoryDirVariable) + "=" + memory_dir};
    return test_support::run_process(MEMMAPPED_PERSISTENCE, all, options);
}

std::string fresh_dir(const std::string& name) {
    const std::string dir = testing::TempDir() + "/" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

TEST(BarPersistence, ThePatternDependsOnKeyAndOffsetAndSplitsByWidth) {
    EXPECT_NE(measure::persistence_value(1, 0, 8), measure::persistence_value(2, 0, 8));
    EXPECT_NE(measure::persistence_value(1, 0, 8), measure::persistence_value(1, 8, 8));
    const uint64_t word = measure::persistence_value(7, 0x10, 8);
    EXPECT_EQ(measure::persistence_value(7, 0x10, 4), word & 0xffffffff);
    EXPECT_EQ(measure::persistence_value(7, 0x14, 4), word >> 32);
    EXPECT_EQ(measure::persistence_value(7, 0x13, 1), (word >> 24) & 0xff);
}

TEST(BarPersistence, FileBackedMemoryLastsFromOneBlockToTheNext) {
    const std::string dir = fresh_dir("bar_memory_blocks");
    ::setenv(sim::kBarMemoryDirVariable, dir.c_str(), 1);
    {
        auto block = sim::BarMemoryBlock::make(64, false, "k");
        ASSERT_TRUE(block.ok()) << block.error().message();
        (*block)->write(8, 8, 0x1122334455667788ull);
        (*block)->reset();
        EXPECT_EQ((*block)->read(8, 8), 0x1122334455667788ull) << "block RAM keeps its bytes across a reset";
    }
    auto again = sim::BarMemoryBlock::make(64, true, "k");
    ::unsetenv(sim::kBarMemoryDirVariable);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->read(12, 2), 0x3344u);
    (*again)->reset();
    EXPECT_EQ((*again)->read(8, 8), 0u) << "cleared_by_reset";
    auto unwritable = [] {
        ::setenv(sim::kBarMemoryDirVariable, "/nonexistent/dir", 1);
        auto block = sim::BarMemoryBlock::make(64, false, "k");
        ::unsetenv(sim::kBarMemoryDirVariable);
        return block;
    }();
    ASSERT_FALSE(unwritable.ok());
    EXPECT_TRUE(test_support::contains(unwritable.error().message(), "/nonexistent/dir/k.mem"));
}

// A device with 4 KiB of block RAM at BAR 0 offset 0x800 of a 0x2000-byte BAR.
struct MemoryDevice {
    std::shared_ptr<sim::BarMemoryBlock> memory = sim::BarMemoryBlock::make(0x1000, true, "unit").value();
    sim::SimDevice device{vfio::DeviceIdentity{}, {[this] {
                              auto bar = std::make_shared<sim::SimBar>(0x2000);
                              bar->add_block(0x800, 0x1000, memory);
                              return bar;
                          }()}};
};

TEST(BarRegion, EachBadRegionIsNamedBeforeAnyAccess) {
    MemoryDevice m;
    counting_test::Log log;
    counting_test::CountingDevice device(m.device, log);
    const std::vector<unsigned> widths{4, 8};
    auto message = [&](const vfio::BarRegion& r) {
        auto checked = vfio::check_bar_region(device, r, widths);
        return checked.ok() ? std::string("(accepted)") : checked.error().message();
    };
    EXPECT_EQ(message({1, 0, 64, 4}), "check BAR region BAR 1 offset 0x0 size 0x40 width 4: No such device (BAR 1 does not exist on this device)");
    EXPECT_EQ(message({0, 0x2000, 64, 4}), "check BAR region BAR 0 offset 0x2000 size 0x40 width 4: Numerical result out of range (the access ends past BAR 0 of 0x2000 bytes)");
    EXPECT_EQ(message({0, 0x1ff8, 64, 8}), "check BAR region BAR 0 offset 0x1ff8 size 0x40 width 8: Numerical result out of range (the region ends past BAR 0 of 0x2000 bytes)");
    EXPECT_EQ(message({0, 0x800, 64, 2}), "check BAR region BAR 0 offset 0x800 size 0x40 width 2: Invalid argument (width 2 is not one this BAR's registers take (4, 8 bytes))");
    EXPECT_EQ(message({0, 0x804, 64, 8}), "check BAR region BAR 0 offset 0x804 size 0x40 width 8: Invalid argument (offset not aligned to the 8-byte access)");
    EXPECT_EQ(message({0, 0x800, 0, 4}), "check BAR region BAR 0 offset 0x800 size 0x0 width 4: Invalid argument (size 0x0 is not a multiple of the 4-byte access)");
    EXPECT_EQ(message({0, 0x800, 0x1000, 8}), "(accepted)");
    EXPECT_TRUE(log.reads.empty() && log.writes.empty()) << "no access while checking";
}

TEST(ResetRegisters, ValuesAfterOpenWriteAndResetAreReported) {
    MemoryDevice m;
    const std::vector<vfio::ResetRegister> registers = {{"read_only", 0, 0x900, 8, std::nullopt},
                                                        {"memory", 0, 0x808, 8, 0x1122334455667788ull},
                                                        {"unclaimed", 0, 0x1c00, 4, 0x5}};
    m.memory->write(0x100, 8, 42);
    auto report = vfio::registers_across_reset(m.device, registers, {4, 8});
    ASSERT_TRUE(report.ok()) << report.error().message();
    const auto lines = vfio::format_reset_report(*report);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "read_only: after open 0x2a, after write 0x2a, after reset 0x0 (read only)");
    EXPECT_EQ(lines[1], "memory: after open 0x0, after write 0x1122334455667788, after reset 0x0 (reset to its value after open)");
    EXPECT_EQ(lines[2], "unclaimed: after open 0xffffffff, after write 0xffffffff, after reset 0xffffffff (the write did not change it)");
    auto refused = vfio::registers_across_reset(m.device, {{"odd", 0, 0x802, 4, 1}}, {4, 8});
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(test_support::contains(refused.error().message(), "offset not aligned")) << refused.error().message();
}

// A device whose reset the kernel refuses (no reset method): the written values are given back.
class NoResetDevice : public counting_test::CountingDevice {
public:
    using CountingDevice::CountingDevice;
    pdt::Result<void> reset() override { return pdt::make_error("VFIO_DEVICE_RESET", "0000:00:00.0", ENOTTY); }
};

TEST(ResetRegisters, ARefusedResetGivesTheWrittenRegistersBack) {
    MemoryDevice m;
    counting_test::Log log;
    NoResetDevice device(m.device, log);
    m.memory->write(0x10, 4, 7);
    auto report = vfio::registers_across_reset(device, {{"memory", 0, 0x810, 4, 0x99}}, {4});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().message(), "VFIO_DEVICE_RESET 0000:00:00.0: Inappropriate ioctl for device (the written "
                                        "registers were given back their values)");
    EXPECT_EQ(m.memory->read(0x10, 4), 7u);
}

TEST(MemmappedPersistenceTool, FileBackedMemoryIsKeptInANewProcessAndAfterReset) {
    const auto out = persistence({"--bar", "0", "--offset", "0x2000", "--size", "0x2000", "--key", "7"},
                                 fresh_dir("persistence_kept"));
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains_all(
        out.output, {"memmapped_persistence 0000:15:00.0 example_bram_bar BAR 0 offset 0x2000 size 0x2000 width 4 key 7",
                     "wrote 0x2000 bytes of key 7's pattern, read back in this process",
                     "0x2000 bytes compared, all kept", "after VFIO_DEVICE_RESET: 0x2000 bytes compared, all kept",
                     "Verdict: PASS (content kept in a new process and after VFIO_DEVICE_RESET: 8192 bytes verified"}))
        << out.output;
}

TEST(MemmappedPersistenceTool, MemoryOfOneProcessOnlyIsLostInTheNext) {
    // Without PDT_SIM_BAR_MEMORY_DIR each open builds a fresh instance whose memory reads zero.
    const auto out = persistence({"--bar", "0", "--offset", "0x2000", "--size", "4KiB", "--width", "8"});
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_TRUE(test_support::contains_all(
        out.output, {"0x1000 bytes compared, 0x", "differ; first at BAR offset 0x2000: read 0x0, expected 0x",
                     "after VFIO_DEVICE_RESET: 0x1000 bytes compared, all kept",
                     "Verdict: FAIL (content not kept in a new process, kept after VFIO_DEVICE_RESET)"}))
        << out.output;
}

TEST(MemmappedPersistenceTool, StepsRunAloneAndAResetThatClearsIsReported) {
    const std::string dir = fresh_dir("persistence_steps");
    const std::vector<std::string> region = {"--bar", "0", "--offset", "0x3000", "--size", "256", "--key", "3"};
    auto with = [&](std::vector<std::string> args, std::string step) { args.push_back(step); return args; };
    EXPECT_EQ(persistence(with(region, "--write"), dir).exit_code, 0);
    const auto verified = persistence(with(region, "--verify"), dir);
    EXPECT_EQ(verified.exit_code, 0) << verified.output;
    EXPECT_TRUE(test_support::contains(verified.output, "0x100 bytes compared, all kept")) << verified.output;
    auto other_key = region;
    other_key[7] = "4";
    const auto wrong = persistence(with(other_key, "--verify"), dir);
    EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
    // A design whose memory a reset clears.
    std::string text;
    std::getline(std::ifstream(kDesignFile), text, '\0');
    text.replace(text.find("\"size\": \"0x2000\""), 16, "\"size\": \"0x2000\", \"cleared_by_reset\": true");
    const std::string cleared = dir + "/cleared.json";
    std::ofstream(cleared) << text;
    const auto reset = persistence(with(region, "--reset"), dir, cleared);
    EXPECT_EQ(reset.exit_code, 1) << reset.output;
    EXPECT_TRUE(test_support::contains(reset.output, "after VFIO_DEVICE_RESET: 0x100 bytes compared, 0x100 differ"))
        << reset.output;
}

TEST(MemmappedPersistenceTool, BadRegionsAreRefusedBeforeAnyAccess) {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{"--bar", "4", "--offset", "0", "--size", "64"}, "check BAR region BAR 4 offset 0x0 size 0x40 width 4: No such device (BAR 4 does not exist on this device)"},
        {{"--bar", "0", "--offset", "0x4000", "--size", "64"}, "Numerical result out of range (the access ends past BAR 0 of 0x4000 bytes)"},
        {{"--bar", "0", "--offset", "0x3ff0", "--size", "64"}, "Numerical result out of range (the region ends past BAR 0 of 0x4000 bytes)"},
        {{"--bar", "0", "--offset", "0x2002", "--size", "64"}, "Invalid argument (offset not aligned to the 4-byte access)"},
        {{"--bar", "0", "--offset", "0x2000", "--size", "6"}, "Invalid argument (size 0x6 is not a multiple of the 4-byte access)"},
        {{"--bar", "0", "--offset", "0x2000", "--size", "64", "--width", "3"}, "Invalid argument (width 3 is not one this BAR's registers take (1, 2, 4, 8 bytes))"},
        {{"--bar", "2", "--offset", "0x2000", "--size", "64"}, "Operation not permitted (BAR 2 holds the XDMA registers, not memory: this tool writes)"},
        {{"--bar", "0", "--offset", "0x0", "--size", "64"}, "Operation not permitted (overlaps the Quad SPI registers at 0x0 of design example_bram_bar: this tool writes)"},
    };
    for (const Case& c : cases) {
        const auto out = persistence(c.args);
        EXPECT_EQ(out.exit_code, 1) << out.output;
        EXPECT_TRUE(test_support::contains(out.output, c.message)) << out.output;
        EXPECT_FALSE(test_support::contains(out.output, "wrote ")) << out.output;
    }
    // Unclaimed space (no memory there): the read-back right after the write fails.
    const auto unclaimed = test_support::run_process(
        MEMMAPPED_PERSISTENCE, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "0", "--offset", "0x5000", "--size", "64"});
    EXPECT_EQ(unclaimed.exit_code, 1) << unclaimed.output;
    EXPECT_TRUE(test_support::contains(unclaimed.output, "read back 0xffffffff right after writing 0x")) << unclaimed.output;
}

TEST(MemmappedPersistenceTool, UsageErrors) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--sim_design", "example_bram_bar", "--bar", "0", "--offset", "0"}, "--bar, --offset and --size name the memory region"},
        {{"--bar", "0", "--offset", "0", "--size", "64"}, "name the device: --device BDF"},
        {{"--sim_design", "x", "--bar", "0", "--offset", "0", "--size", "64", "--write", "--verify"}, "give at most one"},
        {{"--sim_design", "x", "--bar", "6", "--offset", "0", "--size", "64"}, "bar"},
        {{"--sim_design", "x", "--bar", "0", "--offset", "0", "--size", "1G"}, "at most 256 MiB"},
    };
    for (const auto& [args, message] : cases) {
        auto all = args;
        all.insert(all.begin(), {"--design_file", kDesignFile});
        const auto out = test_support::run_process(MEMMAPPED_PERSISTENCE, all);
        EXPECT_EQ(out.exit_code, 2) << out.output;
        EXPECT_TRUE(test_support::contains(out.output, message)) << out.output;
    }
}

}  // namespace
