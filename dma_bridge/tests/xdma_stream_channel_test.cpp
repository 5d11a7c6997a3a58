// streams::StreamChannel over XDMA stream channels, looped back through the model.
#include <chrono>

#include "dma_bridge/xdma_stream_channel.hpp"
#include "loopback_packet.hpp"
#include "xdma_rig.hpp"

using namespace xdma_test;
using namespace std::chrono_literals;

namespace {

struct Pair {
    Pair(Rig& rig, xdma::StreamChannelOptions base) {
        base.direction = streams::Direction::H2C;
        auto t = xdma::XdmaStreamChannel::create(*rig.device, base);
        EXPECT_TRUE(t.ok()) << t.error().message();
        base.direction = streams::Direction::C2H;
        base.msi_vector += 1;  // each engine its own vector: a shared one would steal wake-ups
        auto r = xdma::XdmaStreamChannel::create(*rig.device, base);
        EXPECT_TRUE(r.ok()) << r.error().message();
        if (t.ok() && r.ok()) {
            tx = std::move(t).value();
            rx = std::move(r).value();
        }
    }
    std::unique_ptr<xdma::XdmaStreamChannel> tx, rx;
};

void loopback(Pair& pair, size_t packets) {
    streams::StreamChannel& tx = *pair.tx;
    streams::StreamChannel& rx = *pair.rx;
    for (size_t i = 0; i < rx.buffer_count(); ++i)
        ASSERT_TRUE(rx.submit(i, rx.buffer_size(), false).ok());
    size_t next_rx = 0;
    for (size_t p = 0; p < packets; ++p) {
        const size_t b = p % tx.buffer_count();
        const uint64_t length = 1 + (p * 37) % tx.buffer_size();
        fill(tx.buffer(b), length, static_cast<uint32_t>(p));
        ASSERT_TRUE(tx.submit(b, length, true).ok());
        ASSERT_TRUE(stream_channel_test::packet_came_back(tx, b, rx, next_rx, length, true, 10s)) << "packet " << p;
        ASSERT_TRUE(rx.submit(next_rx, rx.buffer_size(), false).ok());
        next_rx = (next_rx + 1) % rx.buffer_count();
    }
}

}  // namespace

TEST(XdmaStreamChannel, LoopsBackPacketsWithCreditsAndPollWriteback) {
    Rig rig(stream_design());
    Pair pair(rig, {.channel = 1, .buffer_count = 8, .buffer_size = 512});
    ASSERT_TRUE(pair.tx && pair.rx);
    EXPECT_EQ(pair.tx->name(), "0000:15:00.0 H2C 1");
    EXPECT_EQ(pair.rx->direction(), streams::Direction::C2H);
    loopback(pair, 40);
}

TEST(XdmaStreamChannel, LoopsBackWithCoalescedCredits) {
    Rig rig(stream_design());
    Pair pair(rig, {.buffer_count = 8, .buffer_size = 512, .coalesce_credits = true});
    ASSERT_TRUE(pair.tx && pair.rx);
    EXPECT_TRUE(pair.rx->engine().options().coalesce_credits);
    loopback(pair, 40);
    EXPECT_EQ(pair.rx->engine().counters().descriptors_completed, 40u);
    EXPECT_LT(pair.rx->engine().counters().credits_writes, 48u) << "the 8 first receive buffers in one write";
}

TEST(XdmaStreamChannel, LoopsBackWithStopListsAndInterrupts) {
    Rig rig(stream_design());
    ASSERT_TRUE(rig.device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    xdma::StreamChannelOptions o{.buffer_count = 4, .buffer_size = 300, .mode = xdma::RunMode::StopList,
                                 .completion = xdma::CompletionMethod::Interrupt, .msi_vector = 1};
    Pair pair(rig, o);
    ASSERT_TRUE(pair.tx && pair.rx);
    loopback(pair, 12);
    EXPECT_GT(pair.rx->engine().counters().interrupts, 0u);
}

TEST(XdmaStreamChannel, BuffersAreMappedOneWay) {
    Rig rig(stream_design());
    Pair pair(rig, {.buffer_count = 2, .buffer_size = 4096});
    ASSERT_TRUE(pair.tx && pair.rx);
    // The C2H buffer is device-write-only: sending from it must fault in the IOMMU.
    ASSERT_TRUE(pair.tx->engine().submit_stream(pair.rx->buffer_iova(0), 64, true).ok());
    auto sent = pair.tx->wait(1000ms);
    ASSERT_FALSE(sent.ok());
    EXPECT_NE(sent.error().message().find("read_error"), std::string::npos) << sent.error().message();
    const auto faults = rig.device->iommu().faults();
    ASSERT_FALSE(faults.empty());
    EXPECT_EQ(faults.back().reason, "not readable by the device");
    ASSERT_TRUE(pair.tx->stop().ok());
    EXPECT_FALSE(pair.tx->busy());
    EXPECT_FALSE(rig.model->busy(sim::XdmaDirection::H2C, 0));
    loopback(pair, 3);  // the error is cleared by the reinitialisation at the next submit
}

TEST(XdmaStreamChannel, RejectsBadSubmissionsAndOversizedRings) {
    Rig rig(stream_design());
    Pair pair(rig, {.buffer_count = 2, .buffer_size = 256});
    ASSERT_TRUE(pair.tx);
    auto bad_index = pair.tx->submit(2, 16, true);
    ASSERT_FALSE(bad_index.ok());
    EXPECT_EQ(bad_index.error().code, EINVAL);
    EXPECT_FALSE(pair.tx->submit(0, 257, true).ok());
    auto too_many = xdma::XdmaStreamChannel::create(
        *rig.device, {.channel = 1, .buffer_count = 512, .buffer_size = 512, .max_descriptor_length = 256});
    ASSERT_FALSE(too_many.ok());
    EXPECT_NE(too_many.error().hint.find("1023"), std::string::npos);
}

TEST(XdmaStreamChannel, StopAbandonsQueuedBuffersAndTheChannelIsReusable) {
    Rig rig(stream_design());
    Pair pair(rig, {.buffer_count = 4, .buffer_size = 256});
    ASSERT_TRUE(pair.tx && pair.rx);
    ASSERT_TRUE(pair.rx->submit(0, 256, false).ok());
    EXPECT_TRUE(pair.rx->busy());
    auto none = pair.rx->poll();
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
    ASSERT_TRUE(pair.rx->stop().ok());
    EXPECT_FALSE(pair.rx->busy());
    EXPECT_FALSE(rig.model->busy(sim::XdmaDirection::C2H, 0)) << "the engine itself is idle";
    loopback(pair, 6);
}

TEST(XdmaStreamChannel, BufferSizeMustKeepEveryBufferAligned) {
    auto config = stream_design();
    config.address_alignment = 64;
    Rig rig(config);
    auto made = xdma::XdmaStreamChannel::create(*rig.device, {.buffer_count = 4, .buffer_size = 1000});
    ASSERT_FALSE(made.ok());
    EXPECT_NE(made.error().hint.find("not a multiple of the channel's address_alignment of 64"), std::string::npos)
        << made.error().message();
    EXPECT_TRUE(xdma::XdmaStreamChannel::create(*rig.device, {.buffer_count = 4, .buffer_size = 1024}).ok());
}
