// The adapter logic on the fake card: splitting at the DMA node limits, the in-flight window,
// explicit barrier flags, error draining after every wait, and whole-second timeouts.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "etsoc1/fake_card.hpp"
#include "etsoc1/transfers.hpp"

namespace {

using namespace std::chrono_literals;
using etsoc1::CommandRecord;
using etsoc1::Direction;
using etsoc1::FakeCard;
using etsoc1::FakeParameters;
using etsoc1::Mover;
using etsoc1::MoverConfig;

std::vector<uint64_t> sizes(const std::vector<etsoc1::Node>& nodes) {
    std::vector<uint64_t> s;
    for (const auto& n : nodes)
        s.push_back(n.bytes);
    return s;
}

TEST(Split, CommandsHoldAtMostMaxNodesOfAtMostMaxNodeBytes) {
    etsoc1::DmaLimits limits;
    limits.max_node_bytes = 32u << 20;
    limits.max_nodes = 4;
    const uint64_t mib = 1u << 20;
    auto commands = etsoc1::split(limits, nullptr, 0x1000, 200 * mib);
    ASSERT_EQ(commands.size(), 2u);
    EXPECT_EQ(sizes(commands[0]), (std::vector<uint64_t>{32 * mib, 32 * mib, 32 * mib, 32 * mib}));
    EXPECT_EQ(sizes(commands[1]), (std::vector<uint64_t>{32 * mib, 32 * mib, 8 * mib}));
    EXPECT_EQ(commands[1][2].card, 0x1000 + 192 * mib);
    EXPECT_EQ(etsoc1::split(limits, nullptr, 0, 128 * mib).size(), 1u);  // exactly one full command
    EXPECT_EQ(etsoc1::split(limits, nullptr, 0, 128 * mib + 1).size(), 2u);
    EXPECT_EQ(sizes(etsoc1::split(limits, nullptr, 0, 1)[0]), std::vector<uint64_t>{1});
}

// The read-back chunking: halves, second half first, while the range fits two nodes; else nodes
// of the limit, last first; never the write's nodes.
TEST(Split, LastFirstReadsARangeBackInOtherPiecesLastPieceFirst) {
    etsoc1::DmaLimits limits;
    limits.max_node_bytes = 32u << 20;
    limits.max_nodes = 2;
    const uint64_t mib = 1u << 20;
    auto halves = etsoc1::split_last_first(limits, nullptr, 0x1000, 8192 + 4);
    ASSERT_EQ(halves.size(), 1u);
    EXPECT_EQ(sizes(halves[0]), (std::vector<uint64_t>{4100, 4096}));  // the first half a multiple of 4
    EXPECT_EQ(halves[0][0].card, 0x1000u + 4096);
    EXPECT_EQ(halves[0][1].card, 0x1000u);
    auto two = etsoc1::split_last_first(limits, nullptr, 0, 64 * mib);  // two full nodes, last first
    ASSERT_EQ(two.size(), 1u);
    EXPECT_EQ(two[0][0].card, 32 * mib);
    auto many = etsoc1::split_last_first(limits, nullptr, 0, 80 * mib);  // nodes of the limit, last first
    ASSERT_EQ(many.size(), 2u);
    EXPECT_EQ(sizes(many[0]), (std::vector<uint64_t>{16 * mib, 32 * mib}));
    EXPECT_EQ(many[0][0].card, 64 * mib);
    EXPECT_EQ(sizes(many[1]), (std::vector<uint64_t>{32 * mib}));
    EXPECT_EQ(many[1][0].card, 0u);
    EXPECT_EQ(sizes(etsoc1::split_last_first(limits, nullptr, 0, 4)[0]), std::vector<uint64_t>{4});  // one word
    EXPECT_EQ(sizes(etsoc1::split_last_first(limits, nullptr, 0, 8)[0]), (std::vector<uint64_t>{4, 4}));
}

struct Fixture {
    explicit Fixture(FakeParameters p, MoverConfig config = {}) : card(p) {
        auto opened = Mover::open(card, config);
        EXPECT_TRUE(opened.ok()) << opened.error().message();
        mover = std::move(*opened);
        card_memory = *card.allocate(0, 1u << 20, 64);
    }
    FakeCard card;
    std::unique_ptr<Mover> mover;
    etsoc1::CardAddress card_memory = 0;
};

FakeParameters small_nodes() {
    FakeParameters p;
    p.limits.max_node_bytes = 4096;
    p.limits.max_nodes = 2;
    p.poll_busy = 20us;
    p.poll_idle = 50us;
    return p;
}

TEST(Mover, SplitsAtTheCardsLimitsAndMovesEveryByte) {
    Fixture f(small_nodes());
    std::vector<uint8_t> out(20000), back(20000, 0);
    std::iota(out.begin(), out.end(), 7);
    auto sent = f.mover->start(Direction::H2C, out.data(), f.card_memory, out.size());
    ASSERT_TRUE(sent.ok()) << sent.error().message();
    ASSERT_TRUE(f.mover->wait(*sent, 5000ms).ok());
    auto got = f.mover->start(Direction::C2H, back.data(), f.card_memory, back.size());
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(f.mover->wait(*got, 5000ms).ok());
    EXPECT_EQ(out, back);
    const auto records = f.card.commands();
    ASSERT_EQ(records.size(), 6u);  // 20000 = 2 x (4096 + 4096) + 3616, each way
    EXPECT_EQ(records[0].node_bytes, (std::vector<uint64_t>{4096, 4096}));
    EXPECT_EQ(records[2].node_bytes, std::vector<uint64_t>{3616});
    EXPECT_EQ(records[5].kind, CommandRecord::FromCard);
}

TEST(Mover, EveryCommandCarriesTheBarrierFlagsConfiguredNotTheRuntimeDefaults) {
    for (bool barrier : {false, true}) {
        MoverConfig config;
        config.barrier_to_card = barrier;
        config.barrier_from_card = barrier;  // the runtime would default card-to-host to true
        Fixture f(small_nodes(), config);
        std::vector<uint8_t> buffer(3 * 8192);
        for (Direction d : {Direction::H2C, Direction::C2H}) {
            auto t = f.mover->start(d, buffer.data(), f.card_memory, buffer.size());
            ASSERT_TRUE(t.ok());
            ASSERT_TRUE(f.mover->wait(*t, 5000ms).ok());
        }
        const auto records = f.card.commands();
        ASSERT_EQ(records.size(), 6u);
        for (const auto& r : records)
            EXPECT_EQ(r.barrier, barrier) << "command of kind " << r.kind;
    }
}

TEST(Mover, KeepsAWindowOfCommandsInFlightPerDirection) {
    FakeParameters p = small_nodes();
    p.dma_channel_gbps = p.link_gbps = 0.05;  // slow enough that the window fills
    MoverConfig config;
    config.window = 3;
    Fixture f(p, config);
    std::vector<uint8_t> buffer(10 * 8192);
    auto t = f.mover->start(Direction::H2C, buffer.data(), f.card_memory, buffer.size());
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(f.mover->in_flight(Direction::H2C), 3u);
    ASSERT_TRUE(f.mover->wait(*t, 10000ms).ok());
    EXPECT_EQ(f.card.max_in_flight(CommandRecord::ToCard), 3u);
    EXPECT_EQ(f.card.commands().size(), 10u);
}

// pcie_link_measure bidir runs one thread per queue on one Mover: a thread's done() reaps
// commands of the other thread's transfers. A wait whose transfer was finished that way
// between its check and its wait must return, not time out on an empty in-flight list.
TEST(Mover, TwoThreadsWaitingOnOneMoverBothFinishEveryTransfer) {
    FakeParameters p = small_nodes();
    p.poll_busy = 1us;
    p.poll_idle = 1us;
    Fixture f(p);
    auto worker = [&](Direction d, size_t offset, std::string& failure) {
        std::vector<uint8_t> buffer(256, 1);
        for (int i = 0; i < 400 && failure.empty(); ++i) {
            auto t = f.mover->start(d, buffer.data(), f.card_memory + offset, buffer.size());
            auto waited = t.ok() ? f.mover->wait(*t, 5000ms) : pdt::Result<void>(t.error());
            if (!waited.ok())
                failure = "transfer " + std::to_string(i) + ": " + waited.error().message();
        }
    };
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        std::string first, second;
        std::thread a(worker, d, 0, std::ref(first)), b(worker, d, 4096, std::ref(second));
        a.join();
        b.join();
        EXPECT_EQ(first, "") << streams::to_string(d);
        EXPECT_EQ(second, "") << streams::to_string(d);
    }
}

TEST(Mover, ErrorsDrainedAfterTheWaitFailTheTransferTheyBelongTo) {
    FakeParameters p = small_nodes();
    p.copy_error_command = 2;
    MoverConfig config;
    config.window = 1;
    Fixture f(p, config);
    std::vector<uint8_t> buffer(4096);
    std::vector<pdt::Result<void>> results;
    for (int i = 0; i < 3; ++i) {
        auto t = f.mover->start(Direction::H2C, buffer.data(), f.card_memory, buffer.size());
        ASSERT_TRUE(t.ok());
        results.push_back(f.mover->wait(*t, 5000ms));
    }
    EXPECT_TRUE(results[0].ok());
    ASSERT_FALSE(results[1].ok());
    EXPECT_EQ(results[1].error().code, EIO);
    EXPECT_NE(results[1].error().message().find("DmaInvalidAddress (injected copy error on command 2)"),
              std::string::npos)
        << results[1].error().message();
    EXPECT_TRUE(results[2].ok()) << results[2].error().message();
}

// A fake whose first two host-to-card commands both fail, the second seen complete before the
// first: every drain reports an error naming its stream, and the first command is held back
// until the Mover has seen the second one done.
class SecondCompletesFirst : public FakeCard {
public:
    using FakeCard::FakeCard;
    pdt::Result<etsoc1::EventId> copy_to_card(etsoc1::StreamId stream, std::span<const etsoc1::Node> nodes,
                                              bool barrier) override {
        auto e = FakeCard::copy_to_card(stream, nodes, barrier);
        if (e.ok())
            issued.push_back({*e, stream});
        return e;
    }
    pdt::Result<bool> wait_event(etsoc1::EventId event, std::chrono::seconds timeout) override {
        if (issued.size() >= 2 && event == issued[0].first && !second_seen)  // held: waits for the second
            return timeout.count() > 0 ? FakeCard::wait_event(issued[1].first, timeout) : false;
        auto done = FakeCard::wait_event(event, timeout);
        if (done.ok() && *done && issued.size() >= 2 && event == issued[1].first)
            second_seen = true;
        return done;
    }
    pdt::Result<std::vector<etsoc1::CardError>> drain_errors(etsoc1::StreamId stream) override {
        auto errors = PDT_TRY(FakeCard::drain_errors(stream));
        errors.push_back({"DmaInvalidAddress", "scripted on stream " + std::to_string(stream)});
        return errors;
    }
    std::vector<std::pair<etsoc1::EventId, etsoc1::StreamId>> issued;
    bool second_seen = false;
};

TEST(Mover, OfTwoFailedCommandsOfATransferTheOneIssuedFirstIsReported) {
    SecondCompletesFirst card(small_nodes());
    auto mover = std::move(Mover::open(card, MoverConfig{}).value());
    const auto base = *card.allocate(0, 16384, 64);
    std::vector<uint8_t> buffer(16384);
    auto t = mover->start(Direction::H2C, buffer.data(), base, buffer.size());  // two commands of 8 KiB
    ASSERT_TRUE(t.ok());
    auto waited = mover->wait(*t, 5000ms);
    ASSERT_EQ(card.issued.size(), 2u);
    EXPECT_TRUE(card.second_seen);
    ASSERT_FALSE(waited.ok());
    const std::string first = "scripted on stream " + std::to_string(card.issued[0].second);
    EXPECT_NE(waited.error().message().find(first), std::string::npos) << waited.error().message();
}

TEST(Mover, AHungCommandTimesOutInWholeSecondsAndAbandonLeavesTheDirectionUsable) {
    FakeParameters p = small_nodes();
    p.hang_command = 1;
    Fixture f(p);
    std::vector<uint8_t> buffer(4096);
    auto t = f.mover->start(Direction::H2C, buffer.data(), f.card_memory, buffer.size());
    ASSERT_TRUE(t.ok());
    const auto began = std::chrono::steady_clock::now();
    auto waited = f.mover->wait(*t, 300ms);  // rounds up to a whole second
    const auto took = std::chrono::steady_clock::now() - began;
    ASSERT_FALSE(waited.ok());
    EXPECT_EQ(waited.error().code, ETIMEDOUT);
    EXPECT_NE(waited.error().message().find("no copy completed within 1 s"), std::string::npos)
        << waited.error().message();
    EXPECT_GE(took, 900ms);
    EXPECT_LT(took, 5s);
    ASSERT_TRUE(f.mover->abandon(Direction::H2C).ok());
    EXPECT_EQ(f.mover->in_flight(Direction::H2C), 0u);
    auto again = f.mover->start(Direction::H2C, buffer.data(), f.card_memory, buffer.size());
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(f.mover->wait(*again, 5000ms).ok());
}

// F21, F30: an abort that never completes (the fake's abort_hangs) is bounded by the abort
// timeout for all the direction's streams together, named, and marks the host memory the card
// was given as at risk: the endpoint's buffers then keep their memory until the process exits.
TEST(Mover, AnAbortThatDoesNotCompleteIsBoundedNamedAndPutsTheBuffersAtRisk) {
    FakeParameters p = small_nodes();
    p.hang_command = 1;
    p.abort_hangs = true;
    MoverConfig config;
    config.abort_timeout = 1000ms;
    config.streams_per_direction = 4;
    Fixture f(p, config);
    std::vector<uint8_t> buffer(4 * 4096);
    for (unsigned i = 0; i < 4; ++i)  // one command in flight on each of the 4 streams
        ASSERT_TRUE(f.mover->start(Direction::H2C, buffer.data() + i * 4096, f.card_memory + i * 4096, 4096).ok());
    EXPECT_FALSE(f.mover->buffers_at_risk()->load());
    testing::internal::CaptureStderr();
    const auto began = std::chrono::steady_clock::now();
    auto abandoned = f.mover->abandon(Direction::H2C);
    const auto took = std::chrono::steady_clock::now() - began;
    const std::string warning = testing::internal::GetCapturedStderr();
    ASSERT_FALSE(abandoned.ok());
    EXPECT_EQ(abandoned.error().code, ETIMEDOUT);
    EXPECT_NE(abandoned.error().message().find("the abort did not complete within 1 s"), std::string::npos)
        << abandoned.error().message();
    EXPECT_LT(took, 2500ms) << "the aborts of 4 streams share one timeout (it was 5 s each)";
    EXPECT_TRUE(f.mover->buffers_at_risk()->load());
    EXPECT_NE(warning.find("stays allocated until the process exits"), std::string::npos) << warning;
    EXPECT_EQ(f.mover->in_flight(Direction::H2C), 0u);
}

TEST(Mover, ACopyOutsideCardAllocationsFailsItsTransferNamingTheRange) {
    Fixture f(small_nodes());
    std::vector<uint8_t> buffer(4096);
    auto t = f.mover->start(Direction::H2C, buffer.data(), 0x10, buffer.size());
    ASSERT_TRUE(t.ok());
    auto waited = f.mover->wait(*t, 1000ms);
    ASSERT_FALSE(waited.ok());
    EXPECT_EQ(waited.error().code, EFAULT);
    EXPECT_NE(waited.error().message().find("card range 0x10+0x1000"), std::string::npos) << waited.error().message();
    EXPECT_FALSE(f.mover->start(Direction::H2C, buffer.data(), f.card_memory, 0).ok());
}

TEST(Mover, OpeningACardTheRuntimeDoesNotSeeIsAnError) {
    FakeCard card;
    MoverConfig config;
    config.device = 1;
    auto opened = Mover::open(card, config);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, ENODEV);
    EXPECT_NE(opened.error().message().find("the runtime sees 1 card(s)"), std::string::npos);
}

}  // namespace
