#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include "designs/registry.hpp"

namespace {

designs::Registry builtins() {
    auto registry = designs::Registry::builtin();
    EXPECT_TRUE(registry.ok()) << registry.error().message();
    return std::move(registry).value();
}

vfio::DeviceIdentity identity(uint16_t subsystem_device, uint8_t revision = 0, uint16_t device = 0x7024) {
    vfio::DeviceIdentity id;
    id.vendor_id = 0x10ee;
    id.device_id = device;
    id.subsystem_vendor_id = 0x0002;
    id.subsystem_device_id = subsystem_device;
    id.revision = revision;
    return id;
}

}  // namespace

TEST(Registry, BuiltinsHoldTheDesignsOfTheBrief) {
    const designs::Registry registry = builtins();
    for (const char* name : {"TEF1001_dma_stream_loopback", "XCKU5P_DUAL_QSFP_dma_stream_loopback",
                             "NiteFury_dma_stream_loopback", "TOSING_160T_dma_stream_loopback", "TOSING_160T_dma_ddr3",
                             "U200_dma_ddr4", "VD100_dma_ddr4", "XCKU5P_PCIe_DDR4_ETH", "U200_slr_ids"})
        EXPECT_NE(registry.find(name), nullptr) << name;
    EXPECT_GE(registry.designs().size(), 40u);
    std::set<std::string> names;
    for (const designs::Design& d : registry.designs()) {
        EXPECT_TRUE(names.insert(d.name).second) << "duplicate " << d.name;
        EXPECT_EQ(d.source.rfind("built-in designs/data/", 0), 0u) << d.source;
    }
    EXPECT_EQ(designs::embedded_design_files().size(), registry.designs().size());
}

// The U200 designs place S(2) at 0x4000 and the Quad SPI at 0x6000: the master SYSMON and its
// two slaves (0x800 bytes each, PG185) end at 0x5800. Every SYSMON design is UltraScale+.
TEST(Registry, U200SysmonWithTwoSlavesFitsBeforeTheQuadSpi) {
    const designs::Registry registry = builtins();
    for (const char* name : {"U200_dma_ddr4", "U200_100G_ether_duplex", "U200_100G_ether_simplex_tx"}) {
        const designs::Design* d = registry.find(name);
        ASSERT_NE(d, nullptr) << name;
        const designs::Peripheral& sysmon = d->peripherals[d->peripherals[0].type == designs::PeripheralType::Sysmon ? 0 : 1];
        ASSERT_EQ(sysmon.type, designs::PeripheralType::Sysmon) << name;
        EXPECT_EQ(sysmon.offset, 0x4000u) << name;
        EXPECT_EQ(sysmon.sysmon_slaves, 2u) << name;
        EXPECT_EQ(sysmon.offset + sysmon.frame_size(), 0x5800u) << name;
    }
    for (const designs::Design& d : registry.designs()) {
        for (const designs::Peripheral& p : d.peripherals) {
            if (p.type == designs::PeripheralType::Sysmon) {
                EXPECT_EQ(p.sysmon_primitive, designs::SysmonPrimitive::Sysmone4) << d.name;
            }
        }
    }
}

TEST(Registry, Tef1001StreamLoopbackIsDescribedAsInTheTable) {
    const designs::Registry registry = builtins();
    const designs::Design* d = registry.find("TEF1001_dma_stream_loopback");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->match.vendor_id, 0x10ee);
    EXPECT_FALSE(d->match.device_id.has_value());
    EXPECT_EQ(d->match.subsystem_vendor_id, 0x0002);
    EXPECT_EQ(d->match.subsystem_device_id, 0x0007);
    ASSERT_TRUE(d->dma_bridge.has_value());
    EXPECT_EQ(d->dma_bridge->bar, 2u);
    EXPECT_EQ(d->dma_bridge->mode, designs::DmaMode::Stream);
    EXPECT_EQ(d->dma_bridge->h2c_channels, 2u);
    ASSERT_EQ(d->peripherals.size(), 6u);
    const designs::Peripheral& sw = d->peripherals.back();
    EXPECT_EQ(sw.type, designs::PeripheralType::AxiStreamSwitch);
    EXPECT_EQ(sw.offset, 0x6000u);
    EXPECT_EQ(sw.master_ports, 2u);
    EXPECT_EQ(sw.min_revision, 1);
    EXPECT_EQ(sw.default_routes, (std::vector<designs::Route>{{0, 1}, {1, 0}}));
    EXPECT_FALSE(d->simulation.axi_stream_switch_implemented);
    EXPECT_EQ(d->simulation.user_access_timestamp, 0xC1310413u);
    EXPECT_EQ(d->peripherals_for_revision(0).size(), 5u) << "the switch is gated on revision 1";
    EXPECT_EQ(d->peripherals_for_revision(1).size(), 6u);
}

// fpga_sio's table (behaviour reference 7.2): the U200 designs with a CMS, on BAR 0.
TEST(Registry, U200DesignsHaveTheirCms) {
    const designs::Registry registry = builtins();
    EXPECT_STREQ(designs::json_name(designs::PeripheralType::Cms), "cms");
    EXPECT_STREQ(designs::display_name(designs::PeripheralType::Cms), "CMS");
    EXPECT_EQ(designs::register_frame_size(designs::PeripheralType::Cms), 0x40000u) << "PG348 Addressing: 256 KiB";
    struct Expected {
        const char* design;
        uint64_t offset;
        uint8_t min_revision;
        size_t peripherals;  // of the newest revision
    };
    // The two 100G Ethernet designs count their two CMAC ports too, U200_dma_ddr4 its DDR reset GPIO.
    for (const Expected& e : {Expected{"U200_100G_ether_simplex_tx", 0x40000, 1, 7},
                              Expected{"U200_ibert_100G_ether", 0x0, 0, 4},
                              Expected{"U200_100G_ether_duplex", 0x40000, 0, 8},
                              Expected{"U200_dma_ddr4", 0x40000, 0, 6}}) {
        const designs::Design* d = registry.find(e.design);
        ASSERT_NE(d, nullptr) << e.design;
        EXPECT_EQ(d->peripherals_for_revision(255).size(), e.peripherals) << e.design;
        const auto cms = std::find_if(d->peripherals.begin(), d->peripherals.end(),
                                      [](const designs::Peripheral& p) { return p.type == designs::PeripheralType::Cms; });
        ASSERT_NE(cms, d->peripherals.end()) << e.design;
        EXPECT_EQ(cms->bar, 0u) << e.design;
        EXPECT_EQ(cms->offset, e.offset) << e.design;
        EXPECT_EQ(cms->min_revision, e.min_revision) << e.design;
        EXPECT_EQ(d->description.find("CMS"), std::string::npos) << e.design << ": " << d->description;
    }
    const designs::Design* simplex = registry.find("U200_100G_ether_simplex_tx");
    EXPECT_EQ(simplex->peripherals_for_revision(0).size(), 2u) << "rev 0: the timestamp and CMAC port 0 only";
}

TEST(Registry, MatchesByIdsAndRevision) {
    const designs::Registry registry = builtins();
    const designs::Design* d = registry.match(identity(0x0007, 1));
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->name, "TEF1001_dma_stream_loopback");
    EXPECT_EQ(registry.match(identity(0x0004))->name, "TOSING_160T_dma_ddr3");
    EXPECT_EQ(registry.match(identity(0x7777)), nullptr);
    vfio::DeviceIdentity other_vendor = identity(0x0007);
    other_vendor.vendor_id = 0x1234;
    EXPECT_EQ(registry.match(other_vendor), nullptr);
    // The Xilinx default subsystem 10ee:0007 is told apart by device ID (fpga_sio section 7.1
    // item 3): 0x9038 XCKU5P_PCIe_DDR4_ETH, 0x903F and 0x913F OpenNIC, any other none.
    vfio::DeviceIdentity eth = identity(0x0007, 0, 0x9038);
    eth.subsystem_vendor_id = 0x10ee;
    EXPECT_EQ(registry.match(eth)->name, "XCKU5P_PCIe_DDR4_ETH");
    for (uint16_t device : {0x903f, 0x913f}) {
        eth.device_id = device;
        ASSERT_NE(registry.match(eth), nullptr) << std::hex << device;
        EXPECT_EQ(registry.match(eth)->name, "open-nic") << std::hex << device;
        EXPECT_EQ(registry.candidates(eth).size(), 1u) << std::hex << device;
    }
    eth.device_id = 0x903e;
    EXPECT_EQ(registry.match(eth), nullptr);
}

TEST(Registry, MemoryWindowFollowsTheRevision) {
    const designs::Registry registry = builtins();
    const designs::Design* d = registry.find("U200_dma_ddr4");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->dma_bridge->memory_for_revision(0).size, 64ull << 30);
    EXPECT_EQ(d->dma_bridge->memory_for_revision(2).base, 32ull << 30);
    EXPECT_EQ(d->dma_bridge->memory_for_revision(2).size, 32ull << 30);
    EXPECT_EQ(d->dma_bridge->memory_for_revision(3).size, 16ull << 30);
    EXPECT_EQ(d->dma_bridge->memory_for_revision(9).size, 32ull << 30);
    const designs::Design* vd100 = registry.find("VD100_dma_ddr4");
    EXPECT_EQ(vd100->dma_bridge->memory_base, 0x800000000ull);
}

class UserDesignFile : public ::testing::Test {
protected:
    void TearDown() override { std::remove(path.c_str()); }
    void write(const std::string& text) { std::ofstream(path) << text; }
    std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_pdt_user_design.json";
};

TEST_F(UserDesignFile, AddsADesignWithoutCodeChange) {
    write(R"([{"name": "my_board_dma", "match": {"subsystem_vendor_id": "0x1234", "subsystem_device_id": 7},
               "dma_bridge": {"bar": 0, "mode": "memory_mapped", "memory_size": "0x100000"},
               "peripherals": [{"type": "user_access_timestamp", "bar": 2, "offset": "0x10"}]}])");
    auto registry = designs::Registry::load({path});
    ASSERT_TRUE(registry.ok()) << registry.error().message();
    const designs::Design* d = registry->find("my_board_dma");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->source, path);
    EXPECT_EQ(d->match.vendor_id, 0x10ee) << "vendor defaults to Xilinx";
    EXPECT_EQ(d->match.subsystem_device_id, 7);
    EXPECT_EQ(d->dma_bridge->memory_size, 0x100000u);
    EXPECT_EQ(d->peripherals.at(0).offset, 0x10u);
    vfio::DeviceIdentity id = identity(7);
    id.subsystem_vendor_id = 0x1234;
    EXPECT_EQ(registry->match(id), d);
}

TEST_F(UserDesignFile, UserDesignIsMatchedBeforeTheBuiltInOfTheSameName) {
    write(R"({"name": "TEF1001_dma_stream_loopback", "description": "my rebuild",
              "match": {"subsystem_vendor_id": "0x0002", "subsystem_device_id": "0x0007"}})");
    auto registry = designs::Registry::load({path});
    ASSERT_TRUE(registry.ok()) << registry.error().message();
    EXPECT_EQ(registry->find("TEF1001_dma_stream_loopback")->description, "my rebuild");
    EXPECT_EQ(registry->match(identity(0x0007, 1))->source, path);
}
