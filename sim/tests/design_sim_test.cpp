#include <gtest/gtest.h>

#include "builtin_instance.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"

namespace {

using sim_test::instance;
using sim_test::read32;
const designs::Registry& registry() { return sim_test::builtin_registry(); }

}  // namespace

TEST(DesignSim, IdentityAndBarsFollowTheDescription) {
    sim::DesignInstance tef = instance("TEF1001_dma_stream_loopback");
    const vfio::DeviceIdentity& id = tef.device->identity();
    EXPECT_EQ(id.vendor_id, 0x10ee);
    EXPECT_EQ(id.device_id, 0x7024);
    EXPECT_EQ(id.subsystem_vendor_id, 0x0002);
    EXPECT_EQ(id.subsystem_device_id, 0x0007);
    EXPECT_EQ(id.revision, 1);
    EXPECT_EQ(*tef.device->config_read8(vfio::cfg::REVISION_ID), 1);
    EXPECT_EQ(tef.device->bar(0).value()->size(), 0x8000u) << "switch at 0x6000 rounds BAR 0 up to 32 KiB";
    EXPECT_EQ(tef.device->bar(2).value()->size(), 0x10000u);
    EXPECT_FALSE(tef.device->bar(1).ok());
    sim::DesignInstance tosing = instance("TOSING_160T_dma_stream_loopback");
    EXPECT_EQ(tosing.device->bar(0).value()->size(), 0x100000u) << "bar_sizes from the description";
}

TEST(DesignSim, UserAccessTimestampPerDesign) {
    EXPECT_EQ(read32(*instance("TEF1001_dma_stream_loopback").device, 0, 0x4000), 0xC1310413u);
    EXPECT_EQ(read32(*instance("XCKU5P_DUAL_QSFP_dma_stream_loopback").device, 0, 0x2000), 0xF5B0E950u);
    EXPECT_EQ(read32(*instance("NiteFury_dma_stream_loopback").device, 0, 0x2000), 0xC1310A5Bu);
}

TEST(DesignSim, SwitchAbsentFromTheFabricReadsAsUndefinedSpace) {
    sim::DesignInstance tef = instance("TEF1001_dma_stream_loopback");
    EXPECT_EQ(tef.axi_switch, nullptr);
    EXPECT_NE(read32(*tef.device, 0, 0x6040) & 0x80000000u, 0u) << "MI_MUX[0] read has bit 31 set";
    EXPECT_NE(read32(*tef.device, 0, 0x6044) & 0x80000000u, 0u);
    // Fixed connections between adjacent channels, as the measured bitstreams have.
    EXPECT_EQ(tef.xdma->route(0), 1u);
    EXPECT_EQ(tef.xdma->route(1), 0u);
}

TEST(DesignSim, SwitchCommitReachesTheXdmaStreamRouting) {
    sim::DesignInstance tosing = instance("TOSING_160T_dma_stream_loopback");
    ASSERT_NE(tosing.axi_switch, nullptr);
    vfio::Bar* bar0 = tosing.device->bar(0).value();
    EXPECT_EQ(read32(*tosing.device, 0, 0x3040), 0x80000000u);
    EXPECT_EQ(tosing.xdma->route(0), std::nullopt) << "every master disabled after reset";
    ASSERT_TRUE(bar0->write(0x3040, 4, 1).ok());  // master 0 (C2H 0) <- slave 1 (H2C 1)
    ASSERT_TRUE(bar0->write(0x3044, 4, 0).ok());  // master 1 (C2H 1) <- slave 0 (H2C 0)
    EXPECT_EQ(tosing.xdma->route(0), std::nullopt) << "not before the commit";
    ASSERT_TRUE(bar0->write(0x3000, 4, 0x2).ok());
    EXPECT_EQ(tosing.xdma->route(0), 1u);
    EXPECT_EQ(tosing.xdma->route(1), 0u);
    ASSERT_TRUE(tosing.device->reset().ok());
    EXPECT_EQ(tosing.xdma->route(0), std::nullopt) << "a VFIO reset disables every master again";
    EXPECT_EQ(read32(*tosing.device, 0, 0x3040), 0x80000000u);
}

TEST(DesignSim, XdmaModelMatchesTheDesignMode) {
    sim::DesignInstance ddr3 = instance("TOSING_160T_dma_ddr3");
    ASSERT_NE(ddr3.xdma, nullptr);
    EXPECT_FALSE(ddr3.xdma->config().stream);
    EXPECT_EQ(ddr3.xdma->config().card_memory_size, 0x40000000u);
    EXPECT_EQ(ddr3.xdma->config().num_h2c, 2u);
    EXPECT_EQ(read32(*ddr3.device, 2, 0x0000) >> 20, 0x1fcu) << "H2C 0 identifier";
    EXPECT_EQ(read32(*ddr3.device, 2, 0x0000) & 0x8000u, 0u) << "memory-mapped channel";
    EXPECT_NE(read32(*instance("NiteFury_dma_stream_loopback").device, 2, 0x1000) & 0x8000u, 0u) << "stream channel";
    EXPECT_EQ(instance("XCKU5P_DUAL_QSFP_ibert").xdma, nullptr) << "no DMA bridge";
}

TEST(DesignSim, BusPlacesDesignsAtTheSeedAddresses) {
    auto bus = sim::make_design_bus({"TEF1001_dma_stream_loopback", "XCKU5P_DUAL_QSFP_dma_stream_loopback",
                                     "NiteFury_dma_stream_loopback", "TOSING_160T_dma_ddr3"},
                                    registry());
    ASSERT_TRUE(bus.ok()) << bus.error().message();
    const auto ids = (*bus)->scan().value();
    ASSERT_EQ(ids.size(), 4u);
    EXPECT_EQ(ids[0].description(), "device 0000:15:00.0 (10ee:7024)");
    EXPECT_EQ(ids[1].description(), "device 0000:2d:00.0 (10ee:9038)");
    EXPECT_EQ(ids[2].description(), "device 0000:36:00.0 (10ee:7024)");
    EXPECT_EQ(ids[0].iommu_group, 41);
    EXPECT_EQ(ids[1].iommu_group, 85);
    EXPECT_EQ(ids[2].iommu_group, 86);
    EXPECT_EQ(ids[3].address.to_string(), "0000:3f:00.0");
    EXPECT_EQ(ids[3].iommu_group, 87);
    auto opened = (*bus)->open(ids[1]);
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ((*opened)->identity().subsystem_device_id, 0x000a);
}

TEST(DesignSim, MoreThanTwentyDesignsIsAUsageError) {
    const std::vector<std::string> names(21, "TEF1001_dma_stream_loopback");
    auto bus = sim::make_design_bus(names, registry());
    ASSERT_FALSE(bus.ok());
    EXPECT_TRUE(bus.error().usage) << "the request's limit, not a device's failure";
    EXPECT_EQ(bus.error().message(), "build simulated bus 21 designs: Invalid argument (at most 20 simulated designs)");
    EXPECT_TRUE(sim::make_design_bus(std::vector<std::string>(20, "TEF1001_dma_stream_loopback"), registry()).ok());
}

TEST(DesignSim, UnknownDesignNameIsAnError) {
    auto bus = sim::make_design_bus({"TEF1001_dma_stream_loopback", "NoSuchDesign"}, registry());
    ASSERT_FALSE(bus.ok());
    EXPECT_EQ(bus.error().code, ENOENT);
    EXPECT_EQ(bus.error().object, "NoSuchDesign");
    EXPECT_NE(bus.error().hint.find("TOSING_160T_dma_ddr3"), std::string::npos) << "lists the known designs";
}
