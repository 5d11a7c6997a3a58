// CardDma (test_dma_bridge's memory-mapped DMA) against the XDMA model: the engine modes it is
// given, and a stalled engine's timeout naming the channel's Status bits decoded.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/xdma_model.hpp"
#include "stream_tools/card_dma.hpp"

namespace {

using namespace std::chrono_literals;

struct Rig {
    explicit Rig(sim::XdmaConfig config) {
        vfio::DeviceIdentity id;
        id.address = *vfio::PciAddress::parse("0000:15:00.0");
        bar = std::make_shared<sim::SimBar>(0x10000);
        device = std::make_unique<sim::SimDevice>(id, std::vector<std::shared_ptr<sim::SimBar>>{bar});
        model = sim::XdmaModel::attach(*device, *bar, config);
        EXPECT_TRUE(device->enable_bus_master().ok());
    }
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    std::shared_ptr<sim::XdmaModel> model;
};

sim::XdmaConfig memory() {
    return sim::XdmaConfig{.num_h2c = 1, .num_c2h = 1, .card_memory_size = 0x100000};
}

TEST(CardDmaSim, TimeoutNamesTheChannelStatusDecoded) {
    Rig rig(memory());
    stream_tools::CardDma::Options options;
    options.timeout = 200ms;
    auto dma = stream_tools::CardDma::open(*rig.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    auto host = vfio::DmaRegion::allocate(*rig.device, 0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(host.ok());
    rig.model->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::EngineStall);
    auto written = dma->write(*host, {stream_tools::Chunk{0, 0, 0x1000}});
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, ETIMEDOUT);
    EXPECT_EQ(written.error().object, "0000:15:00.0 H2C 0");
    EXPECT_NE(written.error().hint.find("no transfer completed within the transfer timeout of 200 ms: status "
                                        "0x00000001 (busy) completed_descriptor_count=0"),
              std::string::npos)
        << written.error().message();
}

TEST(CardDmaSim, RunsTheModesItIsGiven) {
    sim::XdmaConfig config = memory();
    config.descriptor_credits = false;
    config.poll_mode_writeback = false;
    Rig rig(config);
    stream_tools::CardDma::Options options;  // nothing stated, auto: probed
    auto dma = stream_tools::CardDma::open(*rig.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    EXPECT_EQ(dma->h2c().options().mode, xdma::RunMode::StopList);
    EXPECT_EQ(dma->c2h().options().completion, xdma::CompletionMethod::CompletedCountRegister);
    auto out = vfio::DmaRegion::allocate(*rig.device, 0x4000, vfio::DmaAccess::DeviceRead);
    auto in = vfio::DmaRegion::allocate(*rig.device, 0x4000, vfio::DmaAccess::DeviceWrite);
    ASSERT_TRUE(out.ok() && in.ok());
    for (size_t i = 0; i < 0x4000; ++i)
        out->data()[i] = static_cast<uint8_t>(i * 7 + 1);
    auto done = dma->round_trip(*out, *in, {stream_tools::Chunk{0, 0, 0x2000}, stream_tools::Chunk{0x2000, 0x8000, 0x2000}});
    ASSERT_TRUE(done.ok()) << done.error().message();
    EXPECT_EQ(std::memcmp(out->data(), in->data(), 0x4000), 0);
    ASSERT_TRUE(dma->stop().ok());
}

// --completion interrupt: CardDma sleeps on the engines' MSIs (counted by wait()) instead of
// polling the completion register, in both directions, and the data still round-trips.
TEST(CardDmaSim, InterruptCompletionWaitsOnTheMsis) {
    sim::XdmaConfig config = memory();
    config.descriptor_credits = false;
    config.poll_mode_writeback = false;
    // A 50 MB/s link: each 16 KiB piece takes ~0.3 ms, so CardDma finds rounds with nothing
    // completed and sleeps on the MSIs; unthrottled, polling alone could see every completion.
    config.link_bytes_per_second = 50e6;
    Rig rig(config);
    stream_tools::CardDma::Options options;
    options.modes.completion = xdma::CompletionRequest::Interrupt;
    auto dma = stream_tools::CardDma::open(*rig.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    ASSERT_EQ(dma->h2c().options().completion, xdma::CompletionMethod::Interrupt);
    auto out = vfio::DmaRegion::allocate(*rig.device, 0x40000, vfio::DmaAccess::DeviceRead);
    auto in = vfio::DmaRegion::allocate(*rig.device, 0x40000, vfio::DmaAccess::DeviceWrite);
    ASSERT_TRUE(out.ok() && in.ok());
    for (size_t i = 0; i < 0x40000; ++i)
        out->data()[i] = static_cast<uint8_t>(i * 13 + 5);
    std::vector<stream_tools::Chunk> chunks;
    for (uint64_t at = 0; at < 0x40000; at += 0x4000)
        chunks.push_back(stream_tools::Chunk{at, 0x80000 + at, 0x4000});
    auto done = dma->round_trip(*out, *in, chunks);
    ASSERT_TRUE(done.ok()) << done.error().message();
    EXPECT_EQ(std::memcmp(out->data(), in->data(), 0x40000), 0);
    EXPECT_GT(dma->h2c().counters().interrupts, 0u);
    EXPECT_GT(dma->c2h().counters().interrupts, 0u);
    auto written = dma->write(*out, {stream_tools::Chunk{0, 0, 0x40000}});
    ASSERT_TRUE(written.ok()) << written.error().message();
    const uint64_t before = dma->c2h().counters().interrupts;
    auto read = dma->read(*in, {stream_tools::Chunk{0, 0, 0x40000}});
    ASSERT_TRUE(read.ok()) << read.error().message();
    EXPECT_GT(dma->c2h().counters().interrupts, before);
    ASSERT_TRUE(dma->stop().ok());
}

// Without interrupts on the IP, --completion interrupt is refused with the reason.
TEST(CardDmaSim, InterruptCompletionOnAnIpWithoutInterruptsIsRefused) {
    sim::XdmaConfig config = memory();
    config.interrupts = false;
    Rig rig(config);
    stream_tools::CardDma::Options options;
    options.modes.completion = xdma::CompletionRequest::Interrupt;
    auto dma = stream_tools::CardDma::open(*rig.device, options);
    ASSERT_FALSE(dma.ok());
    EXPECT_NE(dma.error().message().find("--completion interrupt: the IRQ block's Channel Interrupt Enable Mask reads "
                                         "back 0, the XDMA IP's interrupts are not usable"),
              std::string::npos)
        << dma.error().message();
}

TEST(CardDmaSim, ACreditsRequestOnAnIpWithoutCreditsIsRefused) {
    sim::XdmaConfig config = memory();
    config.descriptor_credits = false;
    Rig rig(config);
    stream_tools::CardDma::Options options;
    options.modes.mode = xdma::EngineModeRequest::Credits;
    auto dma = stream_tools::CardDma::open(*rig.device, options);
    ASSERT_FALSE(dma.ok());
    EXPECT_EQ(dma.error().code, EINVAL);
    EXPECT_NE(dma.error().hint.find("--engine_mode credits: the IP has no descriptor credits"), std::string::npos)
        << dma.error().message();
}

}  // namespace
