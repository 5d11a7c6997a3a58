#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "identify/identify.hpp"
#include "sim/design_sim.hpp"

namespace {

const designs::Registry& registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

const std::vector<std::string> kSeedDesigns = {"TEF1001_dma_stream_loopback", "XCKU5P_DUAL_QSFP_dma_stream_loopback",
                                               "NiteFury_dma_stream_loopback"};

// Seed 004's display_identified_pcie_fpga_designs output, less the "Enabled bus master" lines:
// identification only reads, so we never set Bus Master (fpga_sio's VFIO layer did at open).
std::string seed_004_identify_lines() {
    std::ifstream in(PDT_GOLDEN_DIR "/seed004_display_identified_pcie_fpga_designs.txt");
    EXPECT_TRUE(in.good());
    std::string line, text;
    while (std::getline(in, line))
        if (line.rfind("Enabled bus master for ", 0) != 0)
            text += line + "\n";
    return text;
}

struct IdentifyRun {
    identify::Identification found;
    std::string text;  // progress lines then every design, as the tool prints them
};

IdentifyRun identify_bus(vfio::DeviceBus& bus, const designs::Registry& reg, std::vector<vfio::PciAddress> locations = {}) {
    std::ostringstream progress;
    identify::IdentifyOptions options;
    options.locations = std::move(locations);
    options.progress = &progress;
    auto found = identify::identify_designs(bus, reg, options);
    EXPECT_TRUE(found.ok()) << found.error().message();
    IdentifyRun run{std::move(found).value(), progress.str()};
    for (const auto& design : run.found.designs)
        run.text += identify::format_text(design);
    return run;
}

IdentifyRun identify_designs(const std::vector<std::string>& names, std::vector<vfio::PciAddress> locations = {}) {
    auto bus = sim::make_design_bus(names, registry());
    EXPECT_TRUE(bus.ok()) << bus.error().message();
    return identify_bus(**bus, registry(), std::move(locations));
}

sim::DesignInstance instance(const designs::Design& design, uint8_t revision) {
    vfio::DeviceIdentity id = sim::simulated_identity(design, sim::simulated_address(0), 41);
    id.revision = revision;
    return sim::instantiate_design(design, id, true).value();
}

}  // namespace

TEST(IdentifyGolden, Seed004ThreeStreamLoopbackDesigns) {
    EXPECT_EQ(identify_designs(kSeedDesigns).text, seed_004_identify_lines());
}

TEST(IdentifyGolden, EachSeedDesignAloneGivesItsSeedSection) {
    const std::string seed = seed_004_identify_lines();
    for (size_t i = 0; i < kSeedDesigns.size(); ++i) {
        const std::string section_start = "\nDesign " + kSeedDesigns[i] + ":\n";  // each block after an empty line
        const size_t begin = seed.find(section_start);
        const size_t end = i + 1 < kSeedDesigns.size() ? seed.find("\nDesign " + kSeedDesigns[i + 1]) : seed.size();
        ASSERT_NE(begin, std::string::npos);
        const IdentifyRun run = identify_designs(kSeedDesigns, {sim::simulated_address(i)});
        ASSERT_EQ(run.found.designs.size(), 1u);
        EXPECT_EQ(identify::format_text(run.found.designs[0]), seed.substr(begin, end - begin)) << kSeedDesigns[i];
    }
}

TEST(Identify, MemoryMappedDesignWording) {
    const IdentifyRun run = identify_designs({"TOSING_160T_dma_ddr3"});
    EXPECT_EQ(run.text,
              "Opening device 0000:15:00.0 (10ee:7024) with IOMMU group 41\n"
              "\n"
              "Design TOSING_160T_dma_ddr3:\n"
              "  PCI device 0000:15:00.0 rev 00 IOMMU group 41\n"
              "  DMA bridge bar 2 memory base offset 0x0 size 0x40000000\n"
              "  Channel ID  addr_alignment  len_granularity  num_address_bits\n"
              "       H2C 0               1                1                64\n"
              "       H2C 1               1                1                64\n"
              "       C2H 0               1                1                64\n"
              "       C2H 1               1                1                64\n"
              "  User access build timestamp : 41310A00 - 08/02/2024 16:40:00\n"
              "  Quad SPI registers at bar 0 offset 0x0\n"
              "  XADC registers at bar 0 offset 0x1000\n");
}

TEST(Identify, RealSwitchReportsItsRoutes) {
    const designs::Design& design = *registry().find("TOSING_160T_dma_stream_loopback");
    sim::DesignInstance tosing = instance(design, 1);
    auto before = identify::identify_device(*tosing.device, design);
    ASSERT_TRUE(before.ok());
    EXPECT_NE(identify::format_text(*before).find("  All 2 master ports in AXI4-Stream Switch are disabled\n"),
              std::string::npos);
    vfio::Bar* bar0 = tosing.device->bar(0).value();
    ASSERT_TRUE(bar0->write(0x3040, 4, 1).ok());
    ASSERT_TRUE(bar0->write(0x3044, 4, 0).ok());
    ASSERT_TRUE(bar0->write(0x3000, 4, 2).ok());
    auto after = identify::identify_device(*tosing.device, design);
    ASSERT_TRUE(after.ok());
    const std::string text = identify::format_text(*after);
    EXPECT_NE(text.find("  Enabled AXI4-Stream Switch route(s):\n    Master  0 -> Slave  1\n    Master  1 -> Slave  0\n"),
              std::string::npos)
        << text;
    ASSERT_TRUE(bar0->write(0x3044, 4, 0x80000000u).ok());
    ASSERT_TRUE(bar0->write(0x3000, 4, 2).ok());
    EXPECT_NE(identify::format_text(identify::identify_device(*tosing.device, design).value())
                  .find("  Enabled AXI4-Stream Switch route(s):\n    Master  0 -> Slave  1\n"),
              std::string::npos);
}

// fpga_sio prints the CMAC ports after the switch routes and the CMS last; identification shows
// where the CMS is and leaves its MicroBlaze held in reset (releasing it is a write, PG348 Resets).
TEST(Identify, CmsIsShownByPlaceAfterTheSwitchAndCmacPortsAndLeftInReset) {
    const designs::Design& design = *registry().find("U200_100G_ether_duplex");
    sim::DesignInstance duplex = instance(design, 2);
    auto found = identify::identify_device(*duplex.device, design).value();
    EXPECT_TRUE(found.cmac_ports.empty()) << "identification leaves the clear-on-read status alone";
    EXPECT_TRUE(identify::read_cmac_ports(*duplex.device, found).empty());
    const std::string text = identify::format_text(found);
    // A fresh port (PG203 model): RX not enabled, so not aligned: stat_rx_local_fault and
    // stat_rx_internal_local_fault set in STAT_RX_STATUS_REG.
    std::string ports;
    for (const char* place : {"bar 0 offset 0x0", "bar 0 offset 0x10000"})
        ports += std::string("  CMAC port ") + (ports.empty() ? "0" : "1") + " registers at " + place + "\n" +
                 "    Core mode: CAUI4\n"
                 "    Core version: 3.1\n"
                 "    TX Status: 0x00000000\n"
                 "    RX Status: 0x000000c0\n"
                 "    RX Block Lock: 0x00000000\n"
                 "    RX Lane Sync: 0x00000000\n"
                 "    RX Lane Sync Error: 0x00000000\n"
                 "    RX Lane Alignment Marker Error: 0x00000000\n"
                 "    RX Lane Alignment Marker Length Error: 0x00000000\n"
                 "    RX Lane Alignment Marker Repeat Error: 0x00000000\n"
                 "    RSFEC Status: 0x00000000\n";
    const std::string tail = "  Quad SPI registers at bar 0 offset 0x6000\n"
                             "  SYSMON registers at bar 0 offset 0x4000\n"
                             "  All 4 master ports in AXI4-Stream Switch are disabled\n" +
                             ports + "  CMS registers at bar 0 offset 0x40000\n";
    ASSERT_GE(text.size(), tail.size());
    EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
    EXPECT_EQ(duplex.device->bar(0).value()->read(0x40000 + 0x20000, 4).value(), 0u) << "MB_RESETN_REG still 0";
    const designs::Design& simplex = *registry().find("U200_100G_ether_simplex_tx");
    sim::DesignInstance rev0 = instance(simplex, 0);
    EXPECT_EQ(identify::format_text(identify::identify_device(*rev0.device, simplex).value()).find("CMS"),
              std::string::npos)
        << "CMS from revision 1";
}

TEST(Identify, RevisionGateLeavesOutTheSwitch) {
    const designs::Design& design = *registry().find("TEF1001_dma_stream_loopback");
    sim::DesignInstance rev0 = instance(design, 0);
    const auto found = identify::identify_device(*rev0.device, design).value();
    EXPECT_FALSE(found.axi_switch.has_value());
    EXPECT_EQ(identify::format_text(found).find("AXI4-Stream Switch"), std::string::npos);
}

TEST(Identify, LocationFilterAndUnmatchedDevices) {
    const IdentifyRun run = identify_designs(kSeedDesigns, {sim::simulated_address(1)});
    ASSERT_EQ(run.found.designs.size(), 1u);
    EXPECT_EQ(run.found.designs[0].design->name, "XCKU5P_DUAL_QSFP_dma_stream_loopback");
    EXPECT_EQ(run.text.find("Opening device 0000:15:00.0"), std::string::npos) << "filtered devices are not opened";

    sim::DesignBus bus;  // a device no design describes is not opened
    vfio::DeviceIdentity stranger;
    stranger.address = sim::simulated_address(0);
    stranger.vendor_id = 0x8086;
    stranger.iommu_group = 3;
    bus.add(stranger, []() -> pdt::Result<std::unique_ptr<vfio::Device>> {
        ADD_FAILURE() << "opened a device no design matches";
        return pdt::make_error("open", "stranger", ENODEV);
    });
    const IdentifyRun none = identify_bus(bus, registry());
    EXPECT_TRUE(none.found.designs.empty());
    EXPECT_TRUE(none.found.failures.empty());
    EXPECT_EQ(none.text, "");
}

TEST(Identify, DeviceWithoutIommuGroupIsSkippedWithAMessage) {
    const designs::Design& design = *registry().find("NiteFury_dma_stream_loopback");
    sim::DesignBus bus;
    bus.add(sim::simulated_identity(design, sim::simulated_address(2), -1),
            []() -> pdt::Result<std::unique_ptr<vfio::Device>> { return pdt::make_error("open", "x", ENODEV); });
    const IdentifyRun run = identify_bus(bus, registry());
    EXPECT_TRUE(run.found.designs.empty());
    EXPECT_EQ(run.text, "Skipping device 0000:36:00.0 (10ee:7024) as no IOMMU group\n");
}

TEST(Identify, OpenFailureIsReportedAndOtherDevicesStillIdentified) {
    auto bus = sim::make_design_bus({"NiteFury_dma_stream_loopback"}, registry()).value();
    const designs::Design& design = *registry().find("TEF1001_dma_stream_loopback");
    vfio::DeviceIdentity busy = sim::simulated_identity(design, sim::simulated_address(4), 90);
    bus->add(busy, []() -> pdt::Result<std::unique_ptr<vfio::Device>> {
        return pdt::make_error("open /dev/vfio/90", "0000:48:00.0", EBUSY, "held by another process");
    });
    const IdentifyRun run = identify_bus(*bus, registry());
    ASSERT_EQ(run.found.designs.size(), 1u);
    ASSERT_EQ(run.found.failures.size(), 1u);
    EXPECT_EQ(run.found.failures[0].code, EBUSY);
}

TEST(Identify, DescriptionMismatchesBecomeWarnings) {
    // A user's design whose simulated DMA BAR is too small and whose peripheral lies past BAR 0.
    designs::Registry reg = designs::Registry::builtin().value();
    ASSERT_TRUE(reg.add_text(R"({"name": "small_bars", "match": {"subsystem_vendor_id": 2, "subsystem_device_id": 99},
        "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 3, "c2h_channels": 1},
        "peripherals": [{"type": "quad_spi", "bar": 0, "offset": "0x1000"}],
        "simulation": {"bar_sizes": {"0": "0x1000"}}})",
                             "small.json")
                    .ok());
    auto bus = sim::make_design_bus({"small_bars"}, reg).value();
    const IdentifyRun run = identify_bus(*bus, reg);
    ASSERT_EQ(run.found.designs.size(), 1u);
    const auto& warnings = run.found.designs[0].warnings;
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("Quad SPI at bar 0 offset 0x1000 absent"), std::string::npos) << warnings[0];
    EXPECT_EQ(run.found.designs[0].dma_bridge->num_h2c(), 3u);
    EXPECT_EQ(run.text.find("Quad SPI"), std::string::npos);
}

TEST(Identify, ChannelCountBelowTheDescriptionIsAWarning) {
    designs::Registry reg = designs::Registry::builtin().value();
    ASSERT_TRUE(reg.add_text(R"({"name": "wrong_mode", "match": {"subsystem_vendor_id": 2, "subsystem_device_id": 98},
        "dma_bridge": {"bar": 2, "mode": "stream", "h2c_channels": 2, "c2h_channels": 2}})",
                             "w.json")
                    .ok());
    // The device is a memory-mapped design: the stream expectation finds no channel (PG195 bit 15).
    designs::Design mm = *reg.find("wrong_mode");
    mm.dma_bridge->mode = designs::DmaMode::MemoryMapped;
    mm.dma_bridge->memory_size = 0x1000;
    sim::DesignInstance device = instance(mm, 0);
    auto found = identify::identify_device(*device.device, *reg.find("wrong_mode"));
    ASSERT_TRUE(found.ok());
    ASSERT_TRUE(found->dma_bridge.has_value());
    EXPECT_EQ(found->dma_bridge.value().num_h2c() + found->dma_bridge.value().num_c2h(), 0u);
    EXPECT_EQ(found->warnings,
              (std::vector<std::string>{"DMA bridge has 0 H2C channels; the design describes 2",
                                        "DMA bridge has 0 C2H channels; the design describes 2"}));
}

TEST(Identify, JsonCarriesTheSameFacts) {
    const IdentifyRun run = identify_designs(kSeedDesigns);
    const auto j = nlohmann::json::parse(identify::format_json(run.found.designs));
    ASSERT_EQ(j["designs"].size(), 3u);
    const auto& tef = j["designs"][0];
    EXPECT_EQ(tef["name"], "TEF1001_dma_stream_loopback");
    EXPECT_EQ(tef["pci_device"], "0000:15:00.0");
    EXPECT_EQ(tef["iommu_group"], 41);
    EXPECT_EQ(tef["revision"], 1);
    EXPECT_EQ(tef["dma_bridge"]["mode"], "stream");
    EXPECT_EQ(tef["dma_bridge"]["channels"].size(), 4u);
    EXPECT_EQ(tef["dma_bridge"]["channels"][2]["direction"], "C2H");
    EXPECT_EQ(tef["dma_bridge"]["channels"][2]["num_address_bits"], 64);
    EXPECT_EQ(tef["user_access_build_timestamp"]["raw"], "0xc1310413");
    EXPECT_EQ(tef["user_access_build_timestamp"]["decoded"], "24/02/2024 16:16:19");
    EXPECT_EQ(tef["peripherals"].size(), 4u);
    EXPECT_EQ(tef["axi_stream_switch"]["master_ports"], 2);
    EXPECT_TRUE(tef["axi_stream_switch"]["routes"][0]["slave"].is_null());
    EXPECT_EQ(j["designs"][1]["axi_stream_switch"]["master_ports"], 4);
}

TEST(Identify, DeviceWhoseRegistersReadAllOnesIsGone) {
    // Surprise removal or link down: every BAR read returns all-ones, including the XDMA identifiers.
    const designs::Design& design = *registry().find("TEF1001_dma_stream_loopback");
    auto bar0 = std::make_shared<sim::SimBar>(0x8000);
    auto bar2 = std::make_shared<sim::SimBar>(0x10000);
    sim::SimDevice gone(sim::simulated_identity(design, sim::simulated_address(0), 41), {bar0, nullptr, bar2});
    auto found = identify::identify_device(gone, design);
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.error().code, ENODEV);
    EXPECT_NE(found.error().message().find("H2C channel 0 identifier (BAR 2 offset 0x0)"), std::string::npos)
        << found.error().message();
}
