// time_memmapped's library part and tool on the simulated designs: the rows it times, that it
// only reads unless asked to write and then leaves the BAR as it found it, bad requests refused
// before any access, and the write-combined mapping's absence said with its reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "counting_device.hpp"
#include "measure/mmio_timing.hpp"
#include "sim/design_sim.hpp"
#include "test_support/run_process.hpp"
#include "test_support/text.hpp"

using counting_test::CountingDevice;
using counting_test::Log;

namespace {

sim::DesignInstance instantiate(const std::string& name) {
    static const designs::Registry registry = designs::Registry::builtin().value();
    for (const designs::Design& d : registry.designs())
        if (d.name == name)
            return sim::instantiate_design(d, sim::simulated_identity(d, sim::simulated_address(0), 41), true).value();
    throw std::runtime_error("no design " + name);
}

constexpr uint64_t kH2cSgdma0DescriptorLow = 0x4080;  // PG195: RW, no effect while the engine is stopped

}  // namespace

TEST(MmioTiming, ReadsOnlyByDefaultOneRowPerWidth) {
    sim::DesignInstance instance = instantiate("TEF1001_dma_ddr3");
    Log log;
    CountingDevice device(*instance.device, log);
    measure::MmioTimingRequest request{kH2cSgdma0DescriptorLow, {4}, 50, false};
    auto bar = measure::check_timing_request(device, 2, request, {4});
    ASSERT_TRUE(bar.ok()) << bar.error().message();
    const auto rows = measure::time_accesses(*measure::uncached_accessor(**bar), request);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].access, "read");
    EXPECT_EQ(rows[0].mapping, "UC (VFIO mmap)");
    EXPECT_EQ(rows[0].count, 50u);
    EXPECT_LE(rows[0].ns_min, rows[0].ns_median);
    EXPECT_LE(rows[0].ns_median, rows[0].ns_max);
    EXPECT_GT(rows[0].mb_per_s, 0);
    EXPECT_EQ(log.reads.size(), 50u);
    EXPECT_TRUE(log.writes.empty());
}

TEST(MmioTiming, WritesLeaveTheBarAsFound) {
    sim::DesignInstance instance = instantiate("TEF1001_dma_ddr3");
    vfio::Bar* inner = instance.device->bar(2).value();
    ASSERT_TRUE(inner->write(kH2cSgdma0DescriptorLow, 4, 0x12345678).ok());
    Log log;
    CountingDevice device(*instance.device, log);
    measure::MmioTimingRequest request{kH2cSgdma0DescriptorLow, {4}, 20, true};
    const auto rows = measure::time_accesses(*measure::uncached_accessor(*device.bar(2).value()), request);
    std::vector<std::string> accesses;
    for (const auto& row : rows)
        accesses.push_back(row.access);
    EXPECT_EQ(accesses, (std::vector<std::string>{"read", "write (issue, batch mean)", "write then read",
                                                  "flushing read after 20 writes"}));
    EXPECT_EQ(log.writes.size(), 20u + 20 + 5 * 20);
    for (uint64_t offset : log.writes)
        EXPECT_EQ(offset, kH2cSgdma0DescriptorLow);
    EXPECT_EQ(inner->read(kH2cSgdma0DescriptorLow, 4).value(), 0x12345678u);
}

TEST(MmioTiming, SixtyFourBytesAreEightWordsWrittenBackUnchanged) {
    sim::DesignInstance instance = instantiate("TEF1001_dma_ddr3");
    vfio::Bar* inner = instance.device->bar(0).value();  // peripherals; unclaimed space ignores writes
    Log log;
    CountingDevice device(*instance.device, log);
    measure::MmioTimingRequest request{0x40, {64}, 3, true};
    ASSERT_TRUE(measure::check_timing_request(device, 0, request, measure::kMmioWidths).ok());
    std::vector<uint64_t> before;
    for (unsigned i = 0; i < 8; ++i)
        before.push_back(inner->read(0x40 + 8 * i, 8).value());
    (void)measure::time_accesses(*measure::uncached_accessor(*device.bar(0).value()), request);
    std::set<uint64_t> written(log.writes.begin(), log.writes.end());
    EXPECT_EQ(written, (std::set<uint64_t>{0x40, 0x48, 0x50, 0x58, 0x60, 0x68, 0x70, 0x78}));
    for (unsigned i = 0; i < 8; ++i)
        EXPECT_EQ(inner->read(0x40 + 8 * i, 8).value(), before[i]);
}

struct BadTiming {
    unsigned bar;
    uint64_t offset;
    std::vector<unsigned> widths;
    const char* message;
};

TEST(MmioTiming, BadRequestsFailBeforeAnyAccess) {
    const BadTiming cases[] = {
        {4, 0, {4}, "BAR 4 offset 0x0 width 4: No such device (BAR 4 does not exist on this device)"},
        {2, 0x10000, {4}, "BAR 2 offset 0x10000 width 4: Numerical result out of range (the access ends past BAR 2 of 0x10000 bytes)"},
        {2, 0xFFC0, {4, 64}, "BAR 2 offset 0xffc0 width 64: Invalid argument (width 64 is not one this BAR's registers take (4 bytes))"},
        {2, 0x4082, {4}, "BAR 2 offset 0x4082 width 4: Invalid argument (offset not aligned to the 4-byte access)"},
        {2, 0x4080, {}, "no access width given"},
    };
    for (const BadTiming& c : cases) {
        sim::DesignInstance instance = instantiate("TEF1001_dma_ddr3");
        Log log;
        CountingDevice device(*instance.device, log);
        measure::MmioTimingRequest request{c.offset, c.widths, 10, true};
        auto bar = measure::check_timing_request(device, c.bar, request, {4});
        ASSERT_FALSE(bar.ok()) << c.message;
        EXPECT_TRUE(test_support::contains(bar.error().message(), c.message)) << bar.error().message();
        EXPECT_TRUE(log.reads.empty());
        EXPECT_TRUE(log.writes.empty());
    }
}

TEST(MmioTiming, AMissingWriteCombinedFileSaysTheBarIsNotPrefetchable) {
    const std::string root = testing::TempDir() + "/mmio_timing_sysfs";
    std::filesystem::create_directories(root + "/bus/pci/devices/0000:15:00.0");
    vfio::PciAddress address;
    address.bus = 0x15;
    auto wc = vfio::map_bar_write_combined(root, address, 2);
    ASSERT_FALSE(wc.ok());
    EXPECT_EQ(wc.error().code, ENOENT);
    EXPECT_TRUE(test_support::contains(wc.error().message(), "no resource2_wc: BAR 2 is not prefetchable"))
        << wc.error().message();
}

TEST(MmioTiming, JsonCarriesEveryRow) {
    std::vector<measure::MmioRow> rows{{"UC (VFIO mmap)", "read", 4, 10, 1, 2, 3, 4.5}};
    const auto doc = nlohmann::json::parse(measure::format_rows_json(rows, "WC: not available (x)", true));
    EXPECT_EQ(doc["simulated"], true);
    EXPECT_EQ(doc["write_combined"], "WC: not available (x)");
    ASSERT_EQ(doc["rows"].size(), 1u);
    EXPECT_EQ(doc["rows"][0]["bytes"], 4);
    EXPECT_EQ(doc["rows"][0]["ns_median"], 2);
}

TEST(TimeMemmappedTool, SaysModelFiguresAreTheModelsAndWhyNoWriteCombining) {
    const auto out = test_support::run_process(TIME_MEMMAPPED, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2",
                                                                "--offset", "0x4080", "--widths", "4", "--count", "20"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains_all(out.output, {"time_memmapped 0000:15:00.0 TEF1001_dma_ddr3 BAR 2 offset 0x4080",
                                                        "these figures are the model's cost", "UC (VFIO mmap)            read",
                                                        "WC: not available (simulated device: no sysfs resource2_wc)"}));
}

TEST(TimeMemmappedTool, AWidthTheBarCannotTakeIsRefused) {
    // The default widths include 1 byte: PG195's registers take 32-bit accesses only.
    const auto out = test_support::run_process(TIME_MEMMAPPED, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2"});
    EXPECT_EQ(out.exit_code, 1);
    EXPECT_TRUE(test_support::contains(out.output, "Error: 0000:15:00.0: check BAR access BAR 2 offset 0x0 width 1: "
                                                   "Invalid argument (width 1 is not one this BAR's registers take (4 bytes))"))
        << out.output;
    const auto no_bar = test_support::run_process(TIME_MEMMAPPED, {"--sim_design", "TEF1001_dma_ddr3"});
    EXPECT_EQ(no_bar.exit_code, 2);
    EXPECT_TRUE(test_support::contains(no_bar.output, "Error: --bar is required"));
}

TEST(TimeMemmappedTool, OnTheXdmaDmaBarOnlyProbeXilinxIpsAllowList) {
    const auto status_rc = test_support::run_process(
        TIME_MEMMAPPED, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x44", "--widths", "4"});
    EXPECT_EQ(status_rc.exit_code, 1);
    EXPECT_TRUE(test_support::contains(status_rc.output, "check BAR access BAR 2 offset 0x44: Operation not permitted "
                                                         "(not on probe_xilinx_ip's allow-list of the XDMA DMA BAR"))
        << status_rc.output;
    EXPECT_FALSE(test_support::contains(status_rc.output, "UC (VFIO mmap)"));
    const auto write_status = test_support::run_process(
        TIME_MEMMAPPED, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x40", "--widths", "4", "--write"});
    EXPECT_EQ(write_status.exit_code, 1);
    EXPECT_TRUE(test_support::contains(write_status.output, "--write on the XDMA DMA BAR only to an SGDMA Descriptor"))
        << write_status.output;
    const auto scratch = test_support::run_process(TIME_MEMMAPPED, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset",
                                                                    "0x5184", "--widths", "4", "--count", "10", "--write"});
    EXPECT_EQ(scratch.exit_code, 0) << scratch.output;
    EXPECT_TRUE(test_support::contains(scratch.output, "flushing read after 10 writes")) << scratch.output;
}

TEST(MmioTiming, AWriteCombinedMappingGetsItsOwnRows) {
    // A regular file stands in for sysfs's resource2_wc: mmap() treats both alike.
    const std::string root = testing::TempDir() + "/mmio_timing_sysfs_wc";
    const std::string dir = root + "/bus/pci/devices/0000:15:00.0";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/resource2_wc").close();
    std::filesystem::resize_file(dir + "/resource2_wc", 4096);
    vfio::PciAddress address;
    address.bus = 0x15;
    auto wc = vfio::map_bar_write_combined(root, address, 2);
    ASSERT_TRUE(wc.ok()) << wc.error().message();
    EXPECT_EQ((*wc)->size(), 4096u);
    (*wc)->base()[0x48] = 0x5A;
    auto accessor = measure::write_combined_accessor(std::move(*wc), 2);
    const auto rows = measure::time_accesses(*accessor, {0x40, {1, 64}, 10, true});
    ASSERT_EQ(rows.size(), 8u);
    for (const auto& row : rows)
        EXPECT_EQ(row.mapping, "WC (sysfs resource2_wc)");
    EXPECT_EQ(accessor->read(0x48, 1), 0x5Au) << "written back as read";
}
