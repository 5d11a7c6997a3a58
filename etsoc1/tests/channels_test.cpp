// The loopback stream channels on the fake card: what H2C sends comes back on C2H, in order,
// through card memory; card errors and hung copies come back from poll / wait naming the channel;
// the stream test's data check over the loop passes on the honest fake and fails on each lying one
// (docs/verification.md), one card slot or several.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "etsoc1/channels.hpp"
#include "etsoc1/fake_card.hpp"
#include "stream_test/driver.hpp"

namespace {

using namespace std::chrono_literals;

struct Pair {
    explicit Pair(etsoc1::FakeParameters p = {}, size_t buffers = 4, uint64_t size = 8192) : card(p) {
        etsoc1::ChannelConfig config;
        config.buffer_count = buffers;
        config.buffer_size = size;
        auto loop = etsoc1::make_loop(card, config);
        EXPECT_TRUE(loop.ok()) << loop.error().message();
        h2c = std::move(etsoc1::open_h2c(*loop).value());
        c2h = std::move(etsoc1::open_c2h(*loop).value());
    }
    etsoc1::FakeCard card;
    std::unique_ptr<streams::StreamChannel> h2c, c2h;
};

TEST(Channels, DataLoopsBackThroughCardMemoryInOrder) {
    Pair pair;
    EXPECT_EQ(pair.h2c->name(), "ET-SoC-1 fake 0 channel 0 H2C");
    const uint64_t size = pair.h2c->buffer_size();
    for (int round = 0; round < 3; ++round) {  // more packets than card slots
        for (size_t i = 0; i < pair.h2c->buffer_count(); ++i) {
            uint8_t* b = pair.h2c->buffer(i);
            std::iota(b, b + size, static_cast<uint8_t>(round * 16 + i));
            ASSERT_TRUE(pair.h2c->submit(i, size - 4 * i, true).ok());
            ASSERT_TRUE(pair.c2h->submit(i, size, false).ok());
        }
        for (size_t i = 0; i < pair.h2c->buffer_count(); ++i) {
            auto sent = pair.h2c->wait(5000ms);
            ASSERT_TRUE(sent.ok()) << sent.error().message();
            EXPECT_EQ(sent->buffer, i);
            auto got = pair.c2h->wait(5000ms);
            ASSERT_TRUE(got.ok()) << got.error().message();
            EXPECT_EQ(got->buffer, i);
            EXPECT_EQ(got->length, size - 4 * i);
            EXPECT_EQ(0, std::memcmp(pair.c2h->buffer(i), pair.h2c->buffer(i), got->length)) << "buffer " << i;
        }
    }
    EXPECT_FALSE(pair.h2c->busy());
    EXPECT_FALSE(pair.c2h->submit(0, 6, false).ok());  // not a multiple of 4
}

TEST(Channels, ACardErrorFailsTheChannelsWaitNamingIt) {
    etsoc1::FakeParameters p;
    p.copy_error_command = 1;
    Pair pair(p);
    ASSERT_TRUE(pair.h2c->submit(0, 4096, true).ok());
    auto r = pair.h2c->wait(5000ms);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("DmaInvalidAddress"), std::string::npos) << r.error().message();
}

// The slot the failed H2C copy left unwritten is not read back: C2H reports that copy's error by
// name (never a data check of stale bytes), and the slots before and after it loop back intact.
TEST(Channels, AFailedH2cCopyIsReportedByNameOnTheC2hSideNotAsItsSlotsData) {
    etsoc1::FakeParameters p;
    p.copy_error_command = 2;  // the second H2C copy: buffer 1
    Pair pair(p);
    const uint64_t size = pair.h2c->buffer_size();
    for (size_t i = 0; i < 3; ++i) {
        std::iota(pair.h2c->buffer(i), pair.h2c->buffer(i) + size, static_cast<uint8_t>(7 * i + 1));
        ASSERT_TRUE(pair.h2c->submit(i, size, true).ok());
    }
    for (size_t i = 0; i < 3; ++i)  // C2H first: the loop, not the caller, orders the two sides
        ASSERT_TRUE(pair.c2h->submit(i, size, false).ok());
    for (size_t i = 0; i < 3; ++i) {
        auto got = pair.c2h->wait(5000ms);
        if (i == 1) {
            ASSERT_FALSE(got.ok()) << "buffer 1 came back as data";
            EXPECT_EQ(got.error().code, EIO);
            EXPECT_NE(got.error().message().find("H2C copy"), std::string::npos) << got.error().message();
            EXPECT_NE(got.error().message().find("DmaInvalidAddress (injected copy error on command 2)"),
                      std::string::npos)
                << got.error().message();
            continue;
        }
        ASSERT_TRUE(got.ok()) << got.error().message();
        EXPECT_EQ(got->buffer, i);
        EXPECT_EQ(0, std::memcmp(pair.c2h->buffer(i), pair.h2c->buffer(i), size)) << "buffer " << i;
    }
    for (size_t i = 0; i < 3; ++i) {
        auto sent = pair.h2c->wait(5000ms);
        EXPECT_EQ(sent.ok(), i != 1) << i;
    }
    EXPECT_EQ(pair.card.commands().size(), 5u);  // three H2C copies, two C2H: buffer 1 was not read back
}

TEST(Channels, AHungCopyTimesOutAndStopLeavesTheChannelIdle) {
    etsoc1::FakeParameters p;
    p.hang_command = 1;
    Pair pair(p);
    ASSERT_TRUE(pair.h2c->submit(0, 4096, true).ok());
    ASSERT_TRUE(pair.c2h->submit(0, 4096, false).ok());
    auto r = pair.c2h->wait(200ms);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ETIMEDOUT);
    EXPECT_NE(r.error().message().find("ET-SoC-1 fake 0 channel 0 C2H"), std::string::npos) << r.error().message();
    EXPECT_TRUE(pair.h2c->stop().ok());
    EXPECT_TRUE(pair.c2h->stop().ok());
    EXPECT_FALSE(pair.h2c->busy());
    EXPECT_FALSE(pair.c2h->busy());
}

// A source stops once its last copy completed, and its sink may be between two buffers then (it
// took the previous one and has not yet submitted the next): the slot is still read back.
TEST(Channels, AnH2cStopWhileTheC2hSideHasNoBufferStillLetsItReadTheSlotBack) {
    Pair pair({}, 1);
    const uint64_t size = pair.h2c->buffer_size();
    std::iota(pair.h2c->buffer(0), pair.h2c->buffer(0) + size, static_cast<uint8_t>(3));
    ASSERT_TRUE(pair.h2c->submit(0, size, true).ok());
    ASSERT_TRUE(pair.h2c->wait(5000ms).ok());
    ASSERT_TRUE(pair.h2c->stop().ok());
    ASSERT_TRUE(pair.c2h->submit(0, size, false).ok());
    auto got = pair.c2h->wait(5000ms);
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(got->length, size);
    EXPECT_EQ(0, std::memcmp(pair.c2h->buffer(0), pair.h2c->buffer(0), size));
    ASSERT_TRUE(pair.c2h->stop().ok());  // both stopped: the loop starts afresh
    ASSERT_TRUE(pair.h2c->submit(0, size, true).ok());
    ASSERT_TRUE(pair.c2h->submit(0, size, false).ok());
    EXPECT_TRUE(pair.c2h->wait(5000ms).ok());
}

struct Quiet : stream_test::Observer {
    void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>&) override {}
};

constexpr uint64_t kPacket = 8192;
constexpr uint64_t kPackets = 24;

// The stream test's loopback pair (test_dma_bridge_parallel_streams' check) over the fake's loop.
stream_test::Summary loop_stream(etsoc1::FakeParameters p, size_t buffers) {
    Pair pair(p, buffers, kPacket);
    stream_test::Options options;
    options.transfer_timeout = 5000ms;
    options.bytes_per_source = kPackets * kPacket;
    stream_test::StreamTest test(options);
    const size_t source = *test.add_source(*pair.h2c, 0);
    const size_t sink = *test.add_sink(*pair.c2h, source);
    test.add_pair_row("fake 0 -> 0", sink);
    Quiet quiet;
    return test.run(quiet);
}

TEST(Channels, AStreamOverTheHonestFakePassesWithEveryByteVerified) {
    for (size_t buffers : {1u, 4u}) {
        const auto summary = loop_stream({}, buffers);
        EXPECT_TRUE(summary.passed()) << buffers << " buffers: "
                                      << (summary.failures.empty() ? "" : summary.failures[0].message);
        ASSERT_EQ(summary.rows.size(), 1u);
        EXPECT_EQ(summary.rows[0].words_verified, kPackets * kPacket / 4) << buffers << " buffers";
    }
}

// One card slot (--stream_num_descriptors 1): the H2C and C2H copies alternate, so the first bad
// byte is known. Where the C2H copy read the slot in one piece, each of these would pass.
TEST(Channels, AStreamOverEachLyingFakeFailsItsDataCheckOnTheC2hChannel) {
    struct Case {
        const char* name;
        etsoc1::FakeParameters p;
        uint64_t first_bad;  // stream byte offset, with one slot
    };
    std::vector<Case> cases(3);
    cases[0] = {"moves_nothing", {}, 0};  // the host's first half got the staged second half
    cases[0].p.moves_nothing = true;
    cases[1] = {"stale_after=2", {}, kPacket};  // packet 0 moved (copies 1 and 2), packet 1 did not
    cases[1].p.stale_after = 2;
    cases[2] = {"completes_early", {}, kPacket / 2 - 64};  // the first half's last 64 bytes: stale bounce bytes
    cases[2].p.completes_early = true;
    for (const Case& c : cases)
        for (size_t buffers : {1u, 4u}) {
            const auto summary = loop_stream(c.p, buffers);
            EXPECT_FALSE(summary.passed()) << c.name << ", " << buffers << " buffers";
            ASSERT_FALSE(summary.failures.empty()) << c.name << ", " << buffers << " buffers";
            const auto& failure = summary.failures[0];
            EXPECT_EQ(failure.channel, "ET-SoC-1 fake 0 channel 0 C2H") << c.name;
            EXPECT_NE(failure.message.find("data error"), std::string::npos) << c.name << ": " << failure.message;
            ASSERT_TRUE(failure.mismatch.has_value()) << c.name << ": " << failure.message;
            if (buffers == 1) {
                EXPECT_EQ(failure.stream_byte_offset, c.first_bad) << c.name << ": " << failure.message;
                EXPECT_EQ(failure.mismatch->first_bad_word * 4, c.first_bad) << c.name;
            }
        }
}

}  // namespace
