// QDMA stream queues behind the stream-channel seam against the in-test QDMA, whose H2C stream
// queue q loops back to its C2H stream queue q: packets through the completion ring (color bit
// across wraps), packets spanning buffers, refusals, a lying card, errors and a restart.
#include <gtest/gtest.h>

#include <cstring>

#include "qdma/qdma_stream_channel.hpp"
#include "qdma_fake.hpp"
#include "qdma_keyed_bytes.hpp"
#include "test_support/failed_with.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace qdma_stream_channel_test {

namespace {

using namespace std::chrono_literals;
using qdma_test::FakeRig;
using qdma_test::has;
using qdma_test::keyed;
using streams::Direction;
using test_support::failed_with;

struct Loop {
    std::shared_ptr<qdma::Function> function;
    std::unique_ptr<streams::StreamChannel> h2c, c2h;
};

Loop open_loop(FakeRig& rig, uint32_t qid = 1, size_t count = 8) {
    Loop loop;
    auto f = qdma::Function::open(*rig.device, {});
    EXPECT_TRUE(f.ok()) << f.error().message();
    if (!f.ok()) return loop;
    loop.function = std::move(f).value();
    auto h2c = qdma::open_stream_channel(loop.function, Direction::H2C, qid, {count, 0x4000});
    auto c2h = qdma::open_stream_channel(loop.function, Direction::C2H, qid, {count, 4096});
    EXPECT_TRUE(h2c.ok()) << h2c.error().message();
    EXPECT_TRUE(c2h.ok()) << c2h.error().message();
    if (h2c.ok()) loop.h2c = std::move(h2c).value();
    if (c2h.ok()) loop.c2h = std::move(c2h).value();
    return loop;
}

// Sends one packet of `bytes` and receives it; returns the bytes that differ (every byte checked).
size_t round_trip(Loop& loop, size_t h2c_buffer, uint64_t bytes, uint32_t key, uint32_t* buffers_used = nullptr) {
    keyed(loop.h2c->buffer(h2c_buffer), bytes, key);
    for (size_t b = 0; b < loop.c2h->buffer_count(); ++b)
        std::memset(loop.c2h->buffer(b), 0xA5, loop.c2h->buffer_size());  // poisoned
    std::vector<uint8_t> got;
    EXPECT_TRUE(loop.h2c->submit(h2c_buffer, bytes, true).ok());
    auto sent = loop.h2c->wait(1s);
    EXPECT_TRUE(sent.ok()) << sent.error().message();
    uint32_t used = 0;
    for (;;) {
        auto done = loop.c2h->wait(1s);
        EXPECT_TRUE(done.ok()) << done.error().message();
        if (!done.ok()) return bytes;
        got.insert(got.end(), loop.c2h->buffer(done->buffer), loop.c2h->buffer(done->buffer) + done->length);
        ++used;
        EXPECT_TRUE(loop.c2h->submit(done->buffer, loop.c2h->buffer_size(), false).ok());  // back to the card
        if (done->end_of_packet) break;
    }
    if (buffers_used) *buffers_used = used;
    std::vector<uint8_t> want(bytes);
    keyed(want.data(), bytes, key);
    size_t bad = got.size() == bytes ? 0 : bytes;
    for (size_t i = 0; i < std::min<size_t>(bytes, got.size()); ++i)
        bad += got[i] != want[i];
    return bad;
}

void give_c2h_buffers(Loop& loop) {
    for (size_t b = 0; b < loop.c2h->buffer_count(); ++b)
        ASSERT_TRUE(loop.c2h->submit(b, loop.c2h->buffer_size(), false).ok());
}

TEST(QdmaStreamChannel, PacketsLoopBackEveryByteCheckedAcrossColorWraps) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    EXPECT_EQ(loop.h2c->name(), "0000:15:00.0 QDMA function 0 H2C ST queue 1");
    give_c2h_buffers(loop);
    // The completion ring is the smallest ring holding 8 buffers (16 entries): 40 packets wrap
    // it, and its color bit, several times.
    for (uint32_t i = 0; i < 40; ++i)
        ASSERT_EQ(round_trip(loop, i % 8, 64 + 37 * i, 100 + i), 0u) << "packet " << i;
}

TEST(QdmaStreamChannel, APacketSpansBuffersAndEndsInTheLast) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    give_c2h_buffers(loop);
    uint32_t used = 0;
    EXPECT_EQ(round_trip(loop, 0, 0x2800, 5, &used), 0u);
    EXPECT_EQ(used, 3u);  // 4096 + 4096 + 2048
}

TEST(QdmaStreamChannel, RefusesWhatTheDescriptorsCannotCarry) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    auto no_eop = loop.h2c->submit(0, 100, false);
    ASSERT_FALSE(no_eop.ok());
    EXPECT_TRUE(has(no_eop.error().message(), "end_of_packet is required")) << no_eop.error().message();
    auto part = loop.c2h->submit(0, 100, false);
    ASSERT_FALSE(part.ok());
    EXPECT_TRUE(has(part.error().message(), "whole C2H_BUF_SZ buffer")) << part.error().message();
    auto big = qdma::open_stream_channel(loop.function, Direction::H2C, 2, {4, 0x10000});
    ASSERT_FALSE(big.ok());
    EXPECT_TRUE(has(big.error().message(), "len holds 64K-1")) << big.error().message();
    auto bufsz = qdma::open_stream_channel(loop.function, Direction::C2H, 2, {4, 2048});
    ASSERT_FALSE(bufsz.ok());
    EXPECT_TRUE(has(bufsz.error().message(), "2048 bytes is none of QDMA_C2H_BUF_SZ_0..15")) << bufsz.error().message();
}

TEST(QdmaStreamChannel, ACardThatMovesNothingNeverVerifies) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    rig.fake->moves_nothing = true;
    give_c2h_buffers(loop);
    EXPECT_GT(round_trip(loop, 0, 4000, 8), 3900u);  // the poison stays (a few bytes may equal it)
}

TEST(QdmaStreamChannel, ACompletionErrorFailsAndStopRecovers) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    give_c2h_buffers(loop);
    rig.fake->cmpt_entry_error = true;
    ASSERT_TRUE(loop.h2c->submit(0, 100, true).ok());
    ASSERT_TRUE(loop.h2c->wait(1s).ok());
    auto failed = loop.c2h->wait(1s);
    EXPECT_TRUE(failed_with(failed, EIO, "error bit set"));
    rig.fake->cmpt_entry_error = false;
    ASSERT_TRUE(loop.c2h->stop().ok());
    EXPECT_FALSE(loop.c2h->busy());
    give_c2h_buffers(loop);
    EXPECT_EQ(round_trip(loop, 1, 500, 9), 0u);
}

TEST(QdmaStreamChannel, ACompletionRingStatusErrorFails) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    give_c2h_buffers(loop);
    // The IP writes error 3 (CMPT ring overflow) into the ring's status descriptor, the last entry.
    const qdma::CompletionContext cmpt =
        qdma::CompletionContext::decode(rig.fake->context(qdma::CtxtSel::QDMA_CTXT_SELC_WRB, 1));
    const uint64_t status = uint64_t{3} << 35;
    ASSERT_TRUE(rig.device->dma_write(cmpt.baddr + (16 - 1) * 8, &status, sizeof status).ok());  // 16 entries
    auto failed = loop.c2h->wait(1s);
    EXPECT_TRUE(failed_with(failed, EIO, "status descriptor reports error 3 (CMPT ring overflow)"));
}

TEST(QdmaStreamChannel, NoPacketTimesOutNamingTheQueue) {
    FakeRig rig;
    Loop loop = open_loop(rig);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    give_c2h_buffers(loop);
    auto none = loop.c2h->wait(30ms);
    ASSERT_TRUE(failed_with(none, ETIMEDOUT, "C2H ST queue 1"));
    EXPECT_TRUE(has(none.error().message(), "8 buffer(s) submitted")) << none.error().message();
}

}  // namespace

}  // namespace qdma_stream_channel_test
