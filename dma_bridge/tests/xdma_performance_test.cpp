// The channel performance monitor (xdma_performance.hpp) on the XDMA model: its data beats agree
// with the bytes moved for every datapath width, Clear and Run act as PG195 gives them, and a
// width PG195 does not define is refused naming the register.
#include "dma_bridge/xdma_performance.hpp"

#include "base/format.hpp"
#include "xdma_rig.hpp"

using namespace xdma_test;

namespace {

constexpr uint64_t kPerformanceCard = 0x80000000ull;

// Moves `transfers` blocks of `length` bytes through `engine` (card memory at kPerformanceCard).
void move_blocks(xdma::Engine& engine, const vfio::DmaRegion& host, unsigned transfers, uint64_t length) {
    for (unsigned i = 0; i < transfers; ++i) {
        ASSERT_TRUE(engine.submit_memory(host.iova(), kPerformanceCard + i * length, length).ok());
        auto done = engine.wait();
        ASSERT_TRUE(done.ok()) << done.error().message();
    }
}

}  // namespace

TEST(XdmaPerformance, DataBeatsAgreeWithTheBytesMovedForEveryDatapathWidth) {
    for (const unsigned width : {8u, 16u, 32u, 64u}) {
        sim::XdmaConfig config = memory_design();
        config.data_width_bytes = width;
        Rig rig(config);
        auto regs = xdma::dma_registers(*rig.device, 0);
        ASSERT_TRUE(regs.ok()) << regs.error().message();
        auto read_width = xdma::datapath_width_bytes(*regs);
        ASSERT_TRUE(read_width.ok()) << read_width.error().message();
        EXPECT_EQ(*read_width, width);
        for (const Direction direction : {Direction::H2C, Direction::C2H}) {
            xdma::PerformanceMonitor monitor(*regs, direction, 1);
            monitor.start();
            auto engine = rig.engine({.direction = direction, .channel = 1});
            auto host = rig.region(0x4000, vfio::DmaAccess::DeviceReadWrite);
            ASSERT_TRUE(engine);
            move_blocks(*engine, host, 5, 0x4000);  // 80 KiB
            const xdma::PerformanceCounts counts = monitor.read();
            EXPECT_EQ(counts.data_beats, 5 * 0x4000 / width) << to_string(direction) << " width " << width;
            EXPECT_GT(counts.cycles, counts.data_beats) << "every descriptor costs clocks besides its beats";
            EXPECT_GT(counts.data_duty_cycle(), 0.0);
            EXPECT_LT(counts.data_duty_cycle(), 1.0);
            EXPECT_FALSE(counts.cycles_maxed || counts.data_maxed);
        }
    }
}

TEST(XdmaPerformance, StopHoldsTheCountsAndStartClearsThem) {
    Rig rig(memory_design());
    auto regs = xdma::dma_registers(*rig.device, 0);
    ASSERT_TRUE(regs.ok());
    xdma::PerformanceMonitor monitor(*regs, Direction::H2C, 0);
    auto engine = rig.engine({.direction = Direction::H2C});
    auto host = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(engine);
    move_blocks(*engine, host, 2, 0x1000);
    EXPECT_EQ(monitor.read().data_beats, 0u) << "not armed: nothing counted";
    monitor.start();
    move_blocks(*engine, host, 2, 0x1000);
    const xdma::PerformanceCounts armed = monitor.read();
    EXPECT_EQ(armed.data_beats, 2 * 0x1000 / 8u);
    monitor.stop();
    move_blocks(*engine, host, 3, 0x1000);
    const xdma::PerformanceCounts held = monitor.read();
    EXPECT_EQ(held.data_beats, armed.data_beats) << "stopped: the counts hold";
    EXPECT_EQ(held.cycles, armed.cycles);
    monitor.start();
    EXPECT_EQ(monitor.read().cycles, 0u) << "start clears the counts";
    EXPECT_EQ(monitor.describe(held), "H2C 0 performance monitor: " + std::to_string(held.cycles) + " cycles, 1024 data "
                                      "beats (duty cycle " + pdt::format("%.3f", held.data_duty_cycle()) + ")");
}

TEST(XdmaPerformance, AWidthPg195DoesNotDefineIsRefused) {
    // A BAR whose config block reads all-ones (no XDMA there) gives code 7.
    auto bar = std::make_shared<sim::SimBar>(0x10000);
    sim::SimDevice empty(identity(), {bar});
    auto none = xdma::dma_registers(empty, 0);
    ASSERT_TRUE(none.ok());
    auto width = xdma::datapath_width_bytes(*none);
    ASSERT_FALSE(width.ok());
    EXPECT_EQ(width.error().code, EIO);
    EXPECT_TRUE(has(width.error().message(), "Config Block PCIE Data Width")) << width.error().message();
    EXPECT_TRUE(has(width.error().message(), "0x3018")) << width.error().message();
}
