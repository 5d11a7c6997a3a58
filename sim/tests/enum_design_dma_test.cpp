// Enumeration-only designs (AS02MC04_enum, U200_enum, VD100_enum, U200_slr_ids): their DMA
// bridge has no memory behind it on the card, so the real driver's DMA times out against the
// simulated design as it would on hardware, and the engine cannot be stopped.
#include <gtest/gtest.h>

#include "dma_bridge/xdma_engine.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "vfio_access/dma.hpp"

TEST(EnumDesignDma, TransferTimesOutAndTheEngineStaysBusy) {
    const designs::Registry registry = designs::Registry::builtin().value();
    for (const char* name : {"AS02MC04_enum", "U200_enum", "VD100_enum", "U200_slr_ids"}) {
        const designs::Design* d = registry.find(name);
        ASSERT_NE(d, nullptr) << name;
        auto made = sim::instantiate_design(*d, sim::simulated_identity(*d, sim::simulated_address(0), 41));
        ASSERT_TRUE(made.ok()) << made.error().message();
        vfio::Device& device = *made.value().device;
        ASSERT_TRUE(device.enable_bus_master().ok());
        auto engine = xdma::Engine::open(device, {.direction = xdma::Direction::H2C, .dma_bar = d->dma_bridge->bar,
                                                  .timeout = std::chrono::milliseconds(200)});
        ASSERT_TRUE(engine.ok()) << engine.error().message();
        auto buffer = vfio::DmaRegion::allocate(device, 4096, vfio::DmaAccess::DeviceRead);
        ASSERT_TRUE(buffer.ok()) << buffer.error().message();
        ASSERT_TRUE((*engine)->submit_memory(buffer->iova(), 0, 4096).ok());
        auto done = (*engine)->wait();
        ASSERT_FALSE(done.ok()) << name << ": a DMA completed with no memory behind the bridge";
        EXPECT_EQ(done.error().code, ETIMEDOUT) << name << ": " << done.error().message();
        EXPECT_TRUE(made.value().xdma->busy(sim::XdmaDirection::H2C, 0)) << name;
        auto stopped = (*engine)->stop();
        EXPECT_FALSE(stopped.ok()) << name << ": the hung engine cannot be stopped";
    }
}
