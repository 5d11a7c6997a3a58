// Enumeration-only designs (AS02MC04_enum, U200_enum, VD100_enum, U200_slr_ids): their DMA
// bridge has no memory behind it on the card, so the real driver's DMA times out against the
// simulated design as it would on hardware, and the engine cannot be stopped.
//
// The XDMA model is stepped here (no engine thread): whether the engine has taken the
// descriptor before the driver clears Run decides the outcome, on hardware as in the model, so
// the tests set that order themselves. With the engine thread, a loaded machine that did not run
// the thread within wait()'s 200 ms let stop() clear Run before the engine had started the
// transfer: the engine stopped cleanly and "the hung engine cannot be stopped" failed (the flake
// of issue 13; ClearingRunBeforeTheEngineTookTheDescriptorStopsIt is that order on purpose).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "dma_bridge/xdma_engine.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "vfio_access/dma.hpp"

namespace {

using namespace std::chrono_literals;

const char* const kEnumDesigns[] = {"AS02MC04_enum", "U200_enum", "VD100_enum", "U200_slr_ids"};

// One enumeration-only design, stepped, with an H2C engine that has one 4 KiB transfer submitted.
struct EnumRig {
    sim::DesignInstance instance;
    std::unique_ptr<xdma::Engine> engine;
    std::optional<vfio::DmaRegion> buffer;

    explicit EnumRig(const designs::Design& d) {
        auto made = sim::instantiate_design(d, sim::simulated_identity(d, sim::simulated_address(0), 41),
                                            /*xdma_stepped=*/true);
        EXPECT_TRUE(made.ok()) << made.error().message();
        if (!made.ok())
            return;
        instance = std::move(made.value());
        vfio::Device& device = *instance.device;
        EXPECT_TRUE(device.enable_bus_master().ok());
        // idle_wait: how long stop() waits for Status.busy to clear (the hung engine never does).
        auto opened = xdma::Engine::open(device, {.direction = xdma::Direction::H2C, .dma_bar = d.dma_bridge->bar,
                                                  .timeout = 200ms, .idle_wait = 100ms});
        EXPECT_TRUE(opened.ok()) << opened.error().message();
        if (!opened.ok())
            return;
        engine = std::move(*opened);
        auto allocated = vfio::DmaRegion::allocate(device, 4096, vfio::DmaAccess::DeviceRead);
        EXPECT_TRUE(allocated.ok()) << allocated.error().message();
        if (!allocated.ok())
            return;
        buffer = std::move(*allocated);
        EXPECT_TRUE(engine->submit_memory(buffer->iova(), 0, 4096).ok());
    }
    bool ready() const { return engine && buffer; }
    bool busy() const { return instance.xdma->busy(sim::XdmaDirection::H2C, 0); }
};

const designs::Design& design(const char* name) {
    static const designs::Registry registry = designs::Registry::builtin().value();
    const designs::Design* d = registry.find(name);
    if (!d)
        throw std::runtime_error(std::string("no built-in design ") + name);
    return *d;
}

}  // namespace

TEST(EnumDesignDma, TransferTimesOutAndTheEngineStaysBusy) {
    for (const char* name : kEnumDesigns) {
        EnumRig rig(design(name));
        ASSERT_TRUE(rig.ready()) << name;
        // The engine takes the descriptor; nothing answers its AXI-MM master, so it hangs.
        EXPECT_EQ(rig.instance.xdma->run_until_idle(), 1u) << name << ": one step, the descriptor fetch";
        EXPECT_EQ(rig.instance.xdma->run_until_idle(), 0u) << name << ": the hung engine makes no more progress";
        auto done = rig.engine->wait();
        ASSERT_FALSE(done.ok()) << name << ": a DMA completed with no memory behind the bridge";
        EXPECT_EQ(done.error().code, ETIMEDOUT) << name << ": " << done.error().message();
        EXPECT_EQ(rig.instance.xdma->descriptors_processed(sim::XdmaDirection::H2C, 0), 0u) << name;
        EXPECT_TRUE(rig.busy()) << name;
        auto stopped = rig.engine->stop();
        ASSERT_FALSE(stopped.ok()) << name << ": the hung engine cannot be stopped";
        EXPECT_EQ(stopped.error().code, ETIMEDOUT) << name << ": " << stopped.error().message();
        EXPECT_NE(stopped.error().message().find("Timeout waiting to become idle after clearing Run bit"),
                  std::string::npos)
            << stopped.error().message();
        EXPECT_TRUE(rig.busy()) << name << ": still busy after Run was cleared";
    }
}

// The other order: Run cleared before the engine took the descriptor. The transfer never
// started, so the engine goes idle and stop() succeeds.
TEST(EnumDesignDma, ClearingRunBeforeTheEngineTookTheDescriptorStopsIt) {
    for (const char* name : kEnumDesigns) {
        EnumRig rig(design(name));
        ASSERT_TRUE(rig.ready()) << name;
        EXPECT_TRUE(rig.busy()) << name << ": Run is set";
        auto stopped = rig.engine->stop();
        EXPECT_TRUE(stopped.ok()) << name << ": " << (stopped.ok() ? "" : stopped.error().message());
        EXPECT_FALSE(rig.busy()) << name;
        EXPECT_EQ(rig.instance.xdma->run_until_idle(), 0u) << name << ": nothing left to fetch";
    }
}
