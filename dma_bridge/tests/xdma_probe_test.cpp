// probe_xilinx_ip's library part on the simulated designs: every XDMA block of every built-in
// XDMA design is found by reads alone; --write_tests writes only the scratch registers of
// stopped channels and restores each; bad requests fail before any access. A counting device
// wraps each simulated one and logs every BAR access.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dma_bridge/xdma_probe.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "counting_device.hpp"
#include "test_support/run_process.hpp"
#include "test_support/text.hpp"

using counting_test::CountingDevice;
using counting_test::Log;

namespace {

const designs::Registry& registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

sim::DesignInstance instantiate(const designs::Design& design) {
    auto instance = sim::instantiate_design(design, sim::simulated_identity(design, sim::simulated_address(0), 41), true);
    EXPECT_TRUE(instance.ok());
    return std::move(*instance);
}

const designs::Design& design_named(const std::string& name) {
    for (const designs::Design& d : registry().designs())
        if (d.name == name)
            return d;
    throw std::runtime_error("no design " + name);
}

// The blocks PG195 places for the model's configuration, as "<target>/<channel>", those that fit the BAR.
std::set<std::string> expected_blocks(const sim::XdmaConfig& config, uint64_t bar_size) {
    std::set<std::string> blocks;
    auto add = [&](uint32_t t, unsigned channel) {
        if (xdma::block_offset(t, channel) + 0x100 <= bar_size)
            blocks.insert(std::to_string(t) + "/" + std::to_string(channel));
    };
    for (unsigned c = 0; c < config.num_h2c; ++c) {
        add(xdma::target::H2C_CHANNEL, c);
        add(xdma::target::H2C_SGDMA, c);
    }
    for (unsigned c = 0; c < config.num_c2h; ++c) {
        add(xdma::target::C2H_CHANNEL, c);
        add(xdma::target::C2H_SGDMA, c);
    }
    for (uint32_t t : {xdma::target::IRQ_BLOCK, xdma::target::CONFIG, xdma::target::SGDMA_COMMON})
        add(t, 0);
    return blocks;
}

}  // namespace

TEST(XdmaProbe, FindsEveryBlockOfEveryBuiltInXdmaDesignByReadsAlone) {
    unsigned designs_probed = 0;
    for (const designs::Design& design : registry().designs()) {
        if (!design.dma_bridge)
            continue;
        sim::DesignInstance instance = instantiate(design);
        Log log;
        CountingDevice device(*instance.device, log);
        std::ostringstream out;
        auto summary = xdma::run_probe(device, design.dma_bridge->bar, {}, out);
        ASSERT_TRUE(summary.ok()) << design.name << ": " << summary.error().message();
        const sim::XdmaConfig& config = instance.xdma->config();
        std::set<std::string> found;
        for (const xdma::FoundBlock& block : summary->blocks) {
            found.insert(std::to_string(block.target()) + "/" + std::to_string(block.channel_id()));
            EXPECT_EQ(block.version(), config.version) << design.name;
            if (block.target() != xdma::target::IRQ_BLOCK && block.target() != xdma::target::CONFIG &&
                block.target() != xdma::target::SGDMA_COMMON) {
                EXPECT_EQ(block.stream(), config.stream) << design.name;
            }
            EXPECT_NE(out.str().find(xdma::describe(block, 0)), std::string::npos);
        }
        const uint64_t bar_size = instance.device->bar(design.dma_bridge->bar).value()->size();
        EXPECT_EQ(found, expected_blocks(config, bar_size)) << design.name;
        EXPECT_TRUE(log.writes.empty()) << design.name << ": a write without --write_tests";
        // One read per identifier slot PG195 defines that fits the BAR, and no other.
        size_t slots = 0;
        for (uint32_t t = 0; t <= xdma::target::SGDMA_COMMON; ++t)
            for (unsigned c = 0; c < (t == 2 || t == 3 || t == 6 ? 1u : 4u); ++c)
                slots += xdma::block_offset(t, c) + 0x100 <= bar_size ? 1 : 0;
        EXPECT_EQ(log.reads.size(), slots) << design.name;
        for (uint64_t offset : log.reads)
            EXPECT_EQ(offset & 0xFF, 0u) << design.name << ": a read off an identifier register";
        ++designs_probed;
    }
    EXPECT_GE(designs_probed, 20u);
}

TEST(XdmaProbe, TheCounterSeesWrites) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    Log log;
    CountingDevice device(*instance.device, log);
    ASSERT_TRUE(device.bar(2).value()->write(0x4080, 4, 1).ok());
    EXPECT_EQ(log.writes, std::vector<uint64_t>{0x4080});
}

TEST(XdmaProbe, LinesNameEachBlockAsFpgaSio) {
    const xdma::FoundBlock c2h{0x1100, 0x1fc18106};
    EXPECT_EQ(xdma::describe(c2h, 0), "Xilinx DMA bridge at BAR offset 0x1100 C2H Channels stream=AXI4-Stream Interface "
                                      "channel_id_target=1 version=6 identifier=0x1fc18106");
    EXPECT_EQ(xdma::describe(xdma::FoundBlock{0x6000, 0x1fc60004}, 0),
              "Xilinx DMA bridge at BAR offset 0x6000 SGDMA Common version=4 identifier=0x1fc60004");
    EXPECT_EQ(xdma::target_name(8), "MSI-X");
}

TEST(XdmaProbe, PatternsAreZerosOnesAlternatingAndWalkingWithinTheMask) {
    const std::vector<uint32_t> six = xdma::test_patterns(0x3F);
    EXPECT_EQ(six, (std::vector<uint32_t>{0, 0x3F, 0x2A, 0x15, 1, 2, 4, 8, 16, 32, 0x3E, 0x3D, 0x3B, 0x37, 0x2F, 0x1F}));
    EXPECT_EQ(xdma::test_patterns(0xFFFFFFFF).size(), 4u + 32 + 32);
}

TEST(XdmaProbe, WriteTestsTouchOnlyScratchRegistersAndRestoreEach) {
    const designs::Design& design = design_named("TEF1001_dma_ddr3");
    sim::DesignInstance instance = instantiate(design);
    vfio::Bar* inner = instance.device->bar(2).value();
    // Values before the test, distinct per register, that the test must put back.
    std::set<uint64_t> scratch;
    uint32_t seed = 0x12345600;
    for (uint32_t t : {xdma::target::H2C_SGDMA, xdma::target::C2H_SGDMA})
        for (unsigned c = 0; c < instance.xdma->config().num_h2c; ++c)
            for (uint32_t reg : {0x80u, 0x84u, 0x88u}) {
                const uint64_t offset = xdma::block_offset(t, c) + reg;
                scratch.insert(offset);
                ASSERT_TRUE(inner->write(offset, 4, reg == 0x88 ? (seed & 0x3F) : seed).ok());
                seed += 0x111;
            }
    std::map<uint64_t, uint64_t> before;
    for (uint64_t offset : scratch)
        before[offset] = inner->read(offset, 4).value();
    Log log;
    CountingDevice device(*instance.device, log);
    std::ostringstream out;
    auto summary = xdma::run_probe(device, 2, {.read = std::nullopt, .write_tests = true}, out);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    EXPECT_EQ(summary->registers_tested, scratch.size());
    EXPECT_EQ(summary->registers_failed, 0u) << out.str();
    EXPECT_FALSE(log.writes.empty());
    for (uint64_t offset : log.writes)
        EXPECT_TRUE(scratch.count(offset)) << "write outside the scratch registers at 0x" << std::hex << offset;
    for (uint64_t offset : scratch)
        EXPECT_EQ(inner->read(offset, 4).value(), before[offset]) << "not restored at 0x" << std::hex << offset;
    EXPECT_NE(out.str().find("12 of 12 read back their value from before the test"), std::string::npos) << out.str();
}

TEST(XdmaProbe, WriteTestsReportARegisterThatDoesNotHoldItsPattern) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    Log log;
    log.stuck_low_bits = 0x4;  // bit 2 always reads 0
    CountingDevice device(*instance.device, log);
    std::ostringstream out;
    auto summary = xdma::run_probe(device, 2, {.read = std::nullopt, .write_tests = true}, out);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    EXPECT_EQ(summary->registers_failed, summary->registers_tested);
    EXPECT_NE(out.str().find("FAIL H2C 0 H2C SGDMA Descriptor Low Address (0x4080)"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("wrote 0xffffffff read 0xfffffffb"), std::string::npos);
}

TEST(XdmaProbe, WriteTestsRefuseARunningChannelAndWriteNothing) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    // C2H 1 started by another user: Control.run set (stepped model: it stays so).
    ASSERT_TRUE(instance.device->bar(2).value()->write(xdma::block_offset(xdma::target::C2H_CHANNEL, 1) + 0x04, 4, 1).ok());
    Log log;
    CountingDevice device(*instance.device, log);
    std::ostringstream out;
    auto summary = xdma::run_probe(device, 2, {.read = std::nullopt, .write_tests = true}, out);
    ASSERT_FALSE(summary.ok());
    EXPECT_EQ(summary.error().code, EBUSY);
    EXPECT_NE(summary.error().message().find("refuse register write tests C2H 1"), std::string::npos)
        << summary.error().message();
    EXPECT_NE(summary.error().message().find("its engine is running"), std::string::npos);
    EXPECT_TRUE(log.writes.empty());
}

TEST(XdmaProbe, AGoneDeviceIsAnErrorNotNoBlocks) {
    // The design's DMA BAR, and a window of it as -b/-s/-e scan.
    for (const xdma::ProbeOptions& options : {xdma::ProbeOptions{}, xdma::ProbeOptions{.window = xdma::ScanWindow{2, 0x6000, 0x7000}}}) {
        sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
        Log log;
        log.gone = true;
        CountingDevice device(*instance.device, log);
        std::ostringstream out;
        auto summary = xdma::run_probe(device, 2, options, out);
        ASSERT_FALSE(summary.ok());
        EXPECT_EQ(summary.error().code, ENODEV);
        EXPECT_NE(summary.error().message().find("all-ones"), std::string::npos);
    }
}

struct BadRequest {
    xdma::RegisterRequest request;
    int code;
    const char* message;
};

TEST(XdmaProbe, BadRequestsFailBeforeAnyAccess) {
    const BadRequest cases[] = {
        {{5, 0, 4}, ENODEV, "BAR 5 offset 0x0 width 4: No such device (BAR 5 does not exist on this device)"},
        {{2, 0x10000, 4}, ERANGE, "BAR 2 offset 0x10000 width 4: Numerical result out of range (the access ends past BAR 2 of 0x10000 bytes)"},
        {{2, 0xFFFE, 4}, ERANGE, "the access ends past BAR 2"},
        {{2, 0x40, 8}, EINVAL, "width 8 is not one this BAR's registers take (4 bytes)"},
        {{2, 0x40, 3}, EINVAL, "width 3 is not one this BAR's registers take"},
        {{2, 0x41, 4}, EINVAL, "BAR 2 offset 0x41 width 4: Invalid argument (offset not aligned to the 4-byte access)"},
        {{0, 0, 4}, EPERM, "not on the allow-list: the design data names no registers in BAR 0 (the DMA bridge is BAR 2)"},
    };
    for (const BadRequest& c : cases) {
        sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
        Log log;
        CountingDevice device(*instance.device, log);
        std::ostringstream out;
        auto summary = xdma::run_probe(device, 2, {.read = c.request, .write_tests = true}, out);
        ASSERT_FALSE(summary.ok()) << c.message;
        EXPECT_EQ(summary.error().code, c.code) << c.message;
        EXPECT_NE(summary.error().message().find(c.message), std::string::npos) << summary.error().message();
        EXPECT_TRUE(log.reads.empty()) << c.message;
        EXPECT_TRUE(log.writes.empty()) << c.message;
    }
}

TEST(XdmaProbe, ARegisterOffTheAllowListIsRefusedAndNotRead) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    for (uint64_t offset : {0x44ull, 0x7000ull, 0x2040ull, 0x4284ull}) {  // Status RC, no target, IRQ request, no channel 2
        Log log;
        CountingDevice device(*instance.device, log);
        std::ostringstream out;
        auto summary = xdma::run_probe(device, 2, {.read = xdma::RegisterRequest{2, offset, 4}}, out);
        ASSERT_FALSE(summary.ok()) << offset;
        EXPECT_EQ(summary.error().code, EPERM);
        EXPECT_NE(summary.error().message().find("not on the allow-list"), std::string::npos);
        for (uint64_t read : log.reads)
            EXPECT_NE(read, offset);
        EXPECT_TRUE(log.writes.empty());
    }
}

TEST(XdmaProbe, AnAllowListedRegisterIsReadAndNamed) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    std::ostringstream out;
    auto summary = xdma::run_probe(*instance.device, 2, {.read = xdma::RegisterRequest{2, 0x104C, 4}}, out);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    EXPECT_NE(out.str().find("BAR 2 offset 0x104c C2H Channels Alignments (0x4c) = 0x00010140"), std::string::npos)
        << out.str();
}

TEST(ProbeXilinxIpTool, PrintsEveryBlockAndRefusesABadOffset) {
    const auto out = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_stream_loopback"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains_all(
        out.output, {"Probing BAR 2 in device 0000:15:00.0 of size 0x10000",
                     "Not probing BAR 0 in device 0000:15:00.0 of size 0x8000: the design data names no XDMA registers there",
                     "Xilinx DMA bridge at BAR offset 0x1100 C2H Channels stream=AXI4-Stream Interface channel_id_target=1",
                     "Xilinx DMA bridge at BAR offset 0x6000 SGDMA Common version=", "MSI-X: none (no MSI-X capability in config space)"}))
        << out.output;
    const auto bad = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x41"});
    EXPECT_EQ(bad.exit_code, 2) << "a usage error (pdt::usage_error), as every main exits for one";
    EXPECT_TRUE(test_support::contains(bad.output, "Error: check BAR access BAR 2 offset 0x41 width 4: Invalid argument "
                                                   "(offset not aligned to the 4-byte access)"))
        << bad.output;
    EXPECT_FALSE(test_support::contains(bad.output, "Xilinx DMA bridge at")) << "refused before the scan";
    const auto usage = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "--offset", "0x44"});
    EXPECT_EQ(usage.exit_code, 2);
    EXPECT_TRUE(test_support::contains(usage.output, "Error: --offset names a register with --bar: give both"));
}

TEST(ProbeXilinxIpTool, JsonDocumentHoldsTheBlocksTheRegisterAndTheWriteTests) {
    test_support::RunOptions separate;
    separate.stderr_to = test_support::Stderr::separate;
    const auto out = test_support::run_process(
        PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "--sim_design", "AS02MC04_qdma_enum", "--bar", "2", "--offset",
                          "0x4080", "--write_tests", "--json"},
        separate);
    EXPECT_EQ(out.exit_code, 0) << out.output << out.err;
    const auto doc = nlohmann::json::parse(out.output);  // stdout: the JSON document alone
    ASSERT_EQ(doc["designs"].size(), 2u) << out.output;
    const auto& xdma = doc["designs"][0];
    EXPECT_EQ(xdma["device"], "0000:15:00.0");
    EXPECT_EQ(xdma["design"], "TEF1001_dma_ddr3");
    EXPECT_EQ(xdma["dma_bar"], 2);
    bool sgdma_common = false;
    for (const auto& block : xdma["blocks"])
        sgdma_common = sgdma_common || (block["offset"] == "0x6000" && block["name"] == "SGDMA Common");
    EXPECT_TRUE(sgdma_common) << xdma.dump();
    EXPECT_EQ(xdma["msix"], "MSI-X: none (no MSI-X capability in config space)");
    EXPECT_EQ(xdma["register"]["offset"], "0x4080");
    EXPECT_EQ(xdma["registers_failed"], 0);
    EXPECT_GT(xdma["registers_tested"].get<int>(), 0);
    EXPECT_EQ(xdma["write_tests"].size(), xdma["registers_tested"].get<size_t>());
    EXPECT_EQ(xdma["write_tests"][0]["pass"], true);
    EXPECT_TRUE(doc["designs"][1].contains("not_probed")) << doc["designs"][1].dump();
    EXPECT_FALSE(test_support::contains(out.output, "Probing BAR")) << "no text lines on stdout";
    const auto refused = test_support::run_process(
        PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "--bar", "2", "--offset", "0x44", "--json"},
        separate);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_TRUE(test_support::contains(nlohmann::json::parse(refused.output)["designs"][0]["error"].get<std::string>(),
                                       "Status"))
        << refused.output;
}

namespace {

// A device whose config space shows an MSI-X capability at 0x40 (the simulated designs have none).
class MsixDevice : public CountingDevice {
public:
    MsixDevice(vfio::Device& inner, Log& log, uint8_t bir, uint32_t table_offset, uint16_t table_size_minus_1)
        : CountingDevice(inner, log) {
        m_cap = {0x11, 0x00, static_cast<uint8_t>(table_size_minus_1), static_cast<uint8_t>(table_size_minus_1 >> 8)};
        const uint32_t table = table_offset | bir;
        for (unsigned i = 0; i < 4; ++i)
            m_cap.push_back(static_cast<uint8_t>(table >> (8 * i)));
    }
    pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) override {
        PDT_CHECK(CountingDevice::config_read(offset, data, size));
        auto* bytes = static_cast<uint8_t*>(data);
        for (uint32_t i = 0; i < size; ++i) {
            const uint32_t at = offset + i;
            if (at == vfio::cfg::STATUS)
                bytes[i] |= 0x10;  // Capabilities List
            else if (at == vfio::cfg::CAPABILITIES_POINTER)
                bytes[i] = 0x40;
            else if (at >= 0x40 && at < 0x40 + m_cap.size())
                bytes[i] = m_cap[at - 0x40];
        }
        return {};
    }

private:
    std::vector<uint8_t> m_cap;
};

// What the probe of `instance` prints when config space shows an MSI-X table of
// table_size_minus_1 + 1 vectors at `table_offset` in BAR `bir`; its BAR reads go to `log`.
std::string probe_with_msix(sim::DesignInstance& instance, Log& log, uint8_t bir, uint32_t table_offset,
                            uint16_t table_size_minus_1) {
    MsixDevice device(*instance.device, log, bir, table_offset, table_size_minus_1);
    std::ostringstream out;
    EXPECT_TRUE(xdma::run_probe(device, 2, {}, out).ok());
    return out.str();
}

}  // namespace

TEST(XdmaProbe, MsixIsReportedFromConfigSpaceNeverRead) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    Log log;
    const std::string out = probe_with_msix(instance, log, 2, 0x8000, 31);
    EXPECT_TRUE(test_support::contains(out,
                                       "MSI-X table of 32 vectors in BAR 2 at offset 0x8000 (config space MSI-X "
                                       "capability; not read: the block has no identifier register): Xilinx DMA bridge "
                                       "at BAR offset 0x8000 MSI-X"))
        << out;
    for (uint64_t read : log.reads)
        EXPECT_TRUE(read < 0x7000) << "read at 0x" << std::hex << read;
    Log other_log;
    const std::string elsewhere = probe_with_msix(instance, other_log, 0, 0x2000, 7);
    EXPECT_TRUE(test_support::contains(elsewhere, "MSI-X table of 8 vectors in BAR 0 at offset 0x2000 (config space "
                                                  "MSI-X capability; not read: the block has no identifier register)\n"))
        << elsewhere;
}

// fpga_sio's -b/-s/-e: one window of one BAR, its frames' identifiers read and nothing written.
TEST(XdmaProbeWindow, ReadsOnlyTheIdentifiersOfTheWindowAndTheChannelsAlignments) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    Log log;
    CountingDevice device(*instance.device, log);
    std::ostringstream out;
    auto summary = xdma::run_probe(device, 2, {.window = xdma::ScanWindow{2, 0x1000, 0x2000}}, out);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    ASSERT_FALSE(summary->blocks.empty());
    for (const xdma::FoundBlock& block : summary->blocks)
        EXPECT_EQ(block.target(), xdma::target::C2H_CHANNEL) << out.str();
    EXPECT_TRUE(test_support::contains_all(
        out.str(), {"Probing part of BAR 2 in device ", " over range 0x1000..0x2000\n",
                    "Xilinx DMA bridge at BAR offset 0x1000 C2H Channels stream=AXI4 Memory Mapped Interface "
                    "channel_id_target=0",
                    "  addr_alignment=1 len_granularity=1 address_bits=64\n"}))
        << out.str();
    EXPECT_FALSE(test_support::contains(out.str(), "H2C")) << out.str();
    EXPECT_TRUE(log.writes.empty());
    EXPECT_EQ(log.reads.size(), 16 + summary->blocks.size());  // 16 frames, then each channel's Alignments
    for (uint64_t offset : log.reads) {
        EXPECT_TRUE(offset >= 0x1000 && offset < 0x2000) << std::hex << offset;
        EXPECT_TRUE((offset & 0xFF) == 0 || (offset & 0xFF) == 0x4C) << std::hex << offset;
    }
}

TEST(XdmaProbeWindow, TheWholeBarIsProbedUnderFpgaSiosHeading) {
    sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
    std::ostringstream out;
    auto summary = xdma::run_probe(*instance.device, 2, {.window = xdma::ScanWindow{2, 0, std::nullopt}}, out);
    ASSERT_TRUE(summary.ok()) << summary.error().message();
    EXPECT_TRUE(test_support::contains_all(out.str(), {" of size 0x10000\n",
                                                       "at BAR offset 0x0 H2C Channels", "at BAR offset 0x6000 SGDMA Common"}))
        << out.str();
}

TEST(XdmaProbeWindow, AWindowOutsideTheBarOrOffTheFrameIsAUsageErrorBeforeAnyAccess) {
    const std::pair<xdma::ScanWindow, const char*> cases[] = {
        {{2, 0, 0x20000}, "BAR 2 window 0x0..0x20000: Invalid argument (the window must be non-empty and inside the BAR "
                          "(BAR 2 is 0x10000 bytes))"},
        {{2, 0x2000, 0x1000}, "the window must be non-empty and inside the BAR (BAR 2 is 0x10000 bytes)"},
        {{2, 0x10000, std::nullopt}, "BAR 2 window 0x10000..0x10000"},
        {{2, 0x80, 0x1000}, "-s and -e must be multiples of the 256-byte register frame (BAR 2 is 0x10000 bytes)"},
        {{2, 0, 0x1010}, "-s and -e must be multiples of the 256-byte register frame"},
    };
    for (const auto& [window, message] : cases) {
        sim::DesignInstance instance = instantiate(design_named("TEF1001_dma_ddr3"));
        Log log;
        CountingDevice device(*instance.device, log);
        std::ostringstream out;
        auto summary = xdma::run_probe(device, 2, {.window = window}, out);
        ASSERT_FALSE(summary.ok()) << message;
        EXPECT_TRUE(summary.error().usage) << message;
        EXPECT_NE(summary.error().message().find(message), std::string::npos) << summary.error().message();
        EXPECT_TRUE(log.reads.empty() && log.writes.empty()) << message;
    }
}

TEST(ProbeXilinxIpTool, ScansAWindowWithFpgaSiosOptionsAndRefusesABadOne) {
    const auto out = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "-s", "0x6000", "-e", "0x7000"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_TRUE(test_support::contains_all(out.output, {"Probing part of BAR 2 in device 0000:15:00.0 over range 0x6000..0x7000",
                                                        "Xilinx DMA bridge at BAR offset 0x6000 SGDMA Common version="}))
        << out.output;
    EXPECT_FALSE(test_support::contains(out.output, "MSI-X")) << out.output;
    const auto outside = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "-b", "2", "-e", "0x20000"});
    EXPECT_EQ(outside.exit_code, 2) << outside.output;
    EXPECT_TRUE(test_support::contains(outside.output, "(BAR 2 is 0x10000 bytes)")) << outside.output;
    const auto misaligned = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "-s", "0x10"});
    EXPECT_EQ(misaligned.exit_code, 2) << misaligned.output;
    EXPECT_TRUE(test_support::contains(misaligned.output, "multiples of the 256-byte register frame")) << misaligned.output;
    const auto writes = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "-b", "2", "--write_tests"});
    EXPECT_EQ(writes.exit_code, 2) << writes.output;
    EXPECT_TRUE(test_support::contains(writes.output, "Error: --write_tests tests the design's DMA BAR: not with -b/-s/-e"));
    const auto both = test_support::run_process(PROBE_XILINX_IP, {"--sim_design", "TEF1001_dma_ddr3", "-b", "2", "--offset", "0x4c", "-s", "0x100"});
    EXPECT_EQ(both.exit_code, 2) << both.output;
    EXPECT_TRUE(test_support::contains(both.output, "Error: -s/-e scan a window; --offset reads one register"));
}
