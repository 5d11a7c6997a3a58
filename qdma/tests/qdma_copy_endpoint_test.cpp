// The QDMA card-memory copy endpoint against the in-test QDMA: keyed data to the card and back
// with poisoned destinations and every byte checked, ordering, refusals, a card that lies
// (moves nothing), a card that reports an error, a timeout and a restart.
#include <gtest/gtest.h>

#include <cstring>

#include "copy_endpoint_calls.hpp"
#include "qdma/qdma_copy_endpoint.hpp"
#include "qdma_fake.hpp"
#include "qdma_keyed_bytes.hpp"
#include "test_support/failed_with.hpp"

namespace {

using namespace std::chrono_literals;
using namespace copy_endpoint_test;
using qdma_test::FakeRig;
using qdma_test::has;
using qdma_test::keyed;
using qdma_test::mismatches;
using test_support::failed_with;

constexpr uint64_t kBase = 0x80000000ull;

qdma::CopyEndpointConfig config() {
    qdma::CopyEndpointConfig c;
    c.name = "0000:15:00.0 test_qdma";
    c.card_memory_base = kBase;
    c.card_memory_size = 0x100000;
    c.queues = 2;
    c.ring_entries = 64;
    return c;
}

std::unique_ptr<streams::CopyEndpoint> open(FakeRig& rig, const qdma::CopyEndpointConfig& c = config()) {
    return opened(qdma::open_copy_endpoint(*rig.device, c));
}

// Every test starts with an endpoint of config() open on the in-test QDMA.
class QdmaCopyEndpoint : public testing::Test {
protected:
    void SetUp() override { ASSERT_NE(e, nullptr); }
    FakeRig rig;
    std::unique_ptr<streams::CopyEndpoint> e = open(rig);
};

TEST_F(QdmaCopyEndpoint, KeyedDataGoesToTheCardAndBackEveryByteChecked) {
    EXPECT_EQ(e->info().queues, 2u);
    EXPECT_EQ(e->info().max_in_flight, 62u);  // 64 entries: 63 descriptors, 62 outstanding
    EXPECT_EQ(e->info().max_copy_bytes, 0x100000u);
    EXPECT_TRUE(e->info().engine_mode.empty());  // XDMA's --engine_mode spellings: not this adapter's
    for (unsigned q = 0; q < 2; ++q) {
        const uint64_t bytes = 0x1A000 + 36;  // several descriptors, a ragged tail
        auto out = buffer(*e, bytes), in = buffer(*e, bytes);
        keyed(out->data(), bytes, 7 + q);
        std::memset(in->data(), 0xA5, bytes);  // poisoned
        issue(*e, Direction::H2C, q, *out, 0, 0x40000 * q + 0x100, bytes);
        const streams::Ticket back = issue(*e, Direction::C2H, q, *in, 0, 0x40000 * q + 0x100, bytes);
        auto waited = e->wait(back, 2s);
        ASSERT_TRUE(waited.ok()) << waited.error().message();
        EXPECT_EQ(mismatches(in->data(), bytes, 7 + q), 0u) << "queue " << q;
        EXPECT_EQ(mismatches(rig.fake->card.data() + 0x40000 * q + 0x100, bytes, 7 + q), 0u);
    }
}

TEST_F(QdmaCopyEndpoint, ManyCopiesInFlightCompleteInOrder) {
    auto out = buffer(*e, 0x40000), in = buffer(*e, 0x40000);
    keyed(out->data(), 0x40000, 3);
    std::memset(in->data(), 0x5A, 0x40000);
    std::vector<streams::Ticket> tickets;
    for (uint64_t i = 0; i < 16; ++i)
        tickets.push_back(issue(*e, Direction::H2C, 0, *out, i * 0x4000, i * 0x4000, 0x4000));
    for (uint64_t i = 0; i < 16; ++i)
        tickets.push_back(issue(*e, Direction::C2H, 0, *in, i * 0x4000, i * 0x4000, 0x4000));
    for (const auto& t : tickets)
        ASSERT_TRUE(e->wait(t, 2s).ok());
    EXPECT_EQ(mismatches(in->data(), 0x40000, 3), 0u);
}

TEST_F(QdmaCopyEndpoint, RefusesBadRangesAndForeignBuffers) {
    auto b = buffer(*e, 0x1000);
    auto past = e->issue(Direction::H2C, 0, *b, 0, 0xFF800, 0x1000);
    ASSERT_FALSE(past.ok());
    EXPECT_EQ(past.error().code, ERANGE);
    auto queue = e->issue(Direction::H2C, 2, *b, 0, 0, 0x100);
    ASSERT_FALSE(queue.ok());
    EXPECT_TRUE(has(queue.error().message(), "the endpoint has 2 queue(s)"));
    auto pageable = buffer(*e, 0x1000, HostMemory::Pageable);
    auto p = e->issue(Direction::H2C, 0, *pageable, 0, 0, 0x100);
    ASSERT_FALSE(p.ok());
    EXPECT_TRUE(has(p.error().message(), "pageable"));
    auto bad_ring = config();
    bad_ring.ring_entries = 100;
    auto r = qdma::open_copy_endpoint(*rig.device, bad_ring);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(has(r.error().message(), "100 entries is none of QDMA_GLBL_RNG_SZ_1..16")) << r.error().message();
    auto too_many = config();
    too_many.qid_first = 15;
    auto t = qdma::open_copy_endpoint(*rig.device, too_many);
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(has(t.error().message(), "queue 16 is past the function's FMAP range of 16")) << t.error().message();
}

TEST_F(QdmaCopyEndpoint, ACardThatMovesNothingNeverVerifies) {
    rig.fake->moves_nothing = true;  // completes every descriptor on time, moves no byte
    auto out = buffer(*e, 0x8000), in = buffer(*e, 0x8000);
    keyed(out->data(), 0x8000, 9);
    std::memset(in->data(), 0xA5, 0x8000);
    issue(*e, Direction::H2C, 0, *out, 0, 0, 0x8000);
    ASSERT_TRUE(e->wait(issue(*e, Direction::C2H, 0, *in, 0, 0, 0x8000), 2s).ok());
    // Every byte still holds the poison: only where the pattern happens to be 0xA5 does it match.
    std::vector<uint8_t> want(0x8000);
    keyed(want.data(), 0x8000, 9);
    size_t coincident = 0;
    for (uint8_t w : want)
        coincident += w == 0xA5;
    EXPECT_EQ(mismatches(in->data(), 0x8000, 9), 0x8000u - coincident);
    EXPECT_GT(mismatches(in->data(), 0x8000, 9), 0x7000u);
}

TEST_F(QdmaCopyEndpoint, ACardReportedErrorFailsTheWaitAndResetRecovers) {
    auto out = buffer(*e, 0x2000);
    rig.fake->status_err = true;
    auto w = e->wait(issue(*e, Direction::H2C, 1, *out, 0, 0, 0x2000), 2s);
    ASSERT_TRUE(failed_with(w, EIO, "the card reported it failed"));
    EXPECT_TRUE(has(w.error().message(), "err 1 (DMA error)")) << w.error().message();
    EXPECT_FALSE(e->issue(Direction::H2C, 0, *out, 0, 0, 0x100).ok());  // unusable until reset
    rig.fake->status_err = false;
    ASSERT_TRUE(e->reset_queues().ok());
    keyed(out->data(), 0x2000, 4);
    auto in = buffer(*e, 0x2000);
    std::memset(in->data(), 0xA5, 0x2000);
    issue(*e, Direction::H2C, 1, *out, 0, 0x3000, 0x2000);
    ASSERT_TRUE(e->wait(issue(*e, Direction::C2H, 1, *in, 0, 0x3000, 0x2000), 2s).ok());
    EXPECT_EQ(mismatches(in->data(), 0x2000, 4), 0u);
}

TEST_F(QdmaCopyEndpoint, ACopyThatNeverCompletesTimesOutNamingTheQueue) {
    rig.fake->never_completes = true;
    auto out = buffer(*e, 0x1000);
    auto w = e->wait(issue(*e, Direction::H2C, 0, *out, 0, 0x10, 0x1000), 50ms);
    ASSERT_TRUE(failed_with(w, ETIMEDOUT, "not completed within 50 ms"));
    EXPECT_TRUE(has(w.error().message(), "H2C MM queue 0: pidx 1, cidx 0, 1 outstanding")) << w.error().message();
}

}  // namespace
