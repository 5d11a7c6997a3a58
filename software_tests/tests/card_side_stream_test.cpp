// The stream-test driver with cards that compute the keyed pattern themselves (as the CUDA
// adapter's GPU does): an H2C channel whose card checks what it receives, and a C2H channel
// whose card generates its own stream. In-memory channels, so these run without a GPU.
#include <gtest/gtest.h>
#include "printed.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <set>
#include <string_view>

#include "pattern/pattern.hpp"
#include "stream_test/report.hpp"
#include "stream_test/driver.hpp"

namespace {

using namespace std::chrono_literals;
using streams::Completion;
using streams::Direction;

// Completes each submit at once; the "card" work happens in submit.
class CardChannel : public streams::StreamChannel {
public:
    CardChannel(Direction direction, std::optional<uint64_t> generates = std::nullopt)
        : m_direction(direction), m_generates(generates), m_buffers(4, std::vector<uint8_t>(4096)), m_spans(4) {}

    std::optional<uint64_t> corrupt_at;  // stream byte offset the card corrupts (C2H) or misreads (H2C)
    bool moves_nothing = false;          // C2H: completes every transfer and writes nothing
    std::optional<uint64_t> stale_after;  // C2H: moves nothing from this transfer on (counted from 0)
    bool resends_last = false;           // C2H: each transfer brings the last transfer's bytes again
    bool poisons = false;                // H2C: poisons its destination before each copy (poisons_destination)
    bool h2c_moves_nothing = false;      // H2C: the copy never lands: the card checks its destination as it was
    std::set<uint64_t> first_words;      // H2C: the distinct spans the source described
    size_t described = 0;
    // C2H: fill buffer i with the pattern the card generates for it on the first pass (stale
    // bytes that happen to be right: only a poison before each submit makes them fail).
    void prefill() {
        for (size_t i = 0; i < m_buffers.size(); ++i)
            pattern::Pattern(*m_generates, 0).generate(reinterpret_cast<uint32_t*>(buffer(i)), 1024, i * 1024);
    }

    Direction direction() const override { return m_direction; }
    std::string name() const override { return std::string("card ") + streams::to_string(m_direction); }
    size_t buffer_count() const override { return m_buffers.size(); }
    uint64_t buffer_size() const override { return 4096; }
    uint8_t* buffer(size_t index) override { return m_buffers.at(index).data(); }
    bool checks_h2c_data() const override { return m_direction == Direction::H2C; }
    void describe(size_t index, const streams::PatternSpan& span) override {
        m_spans.at(index) = span;
        first_words.insert(span.first_word);
        ++described;
    }
    bool poisons_destination() const override { return poisons && m_direction == Direction::H2C; }
    std::optional<uint64_t> generated_stream() const override { return m_generates; }

    pdt::Result<void> submit(size_t index, uint64_t length, bool) override {
        auto* words = reinterpret_cast<uint32_t*>(buffer(index));
        Completion done{index, length, true, 0};
        const bool stale = stale_after && m_transfers++ >= *stale_after;
        if (m_direction == Direction::C2H && (moves_nothing || stale)) {
            m_generated += length;
        } else if (m_direction == Direction::C2H && resends_last && m_generated > 0) {
            std::memcpy(words, m_last_sent.data(), length);  // a reused bounce buffer
            m_generated += length;
        } else if (m_direction == Direction::C2H) {
            pattern::Pattern(*m_generates, 0).generate(words, length / 4, m_generated / 4);
            if (corrupt_at && *corrupt_at >= m_generated && *corrupt_at < m_generated + length)
                buffer(index)[*corrupt_at - m_generated] ^= 1;
            m_last_sent.assign(words, words + length / 4);
            m_generated += length;
        } else {
            const auto& span = m_spans[index];
            std::vector<uint32_t> seen(words, words + length / 4);
            if (h2c_moves_nothing)  // what the destination held: poison, or the last copy's words
                seen = poisons ? std::vector<uint32_t>(length / 4, 0xa5a5a5a5u) : m_last_landed;
            else
                m_last_landed = seen;
            if (corrupt_at && *corrupt_at / 4 >= span.first_word && *corrupt_at / 4 < span.first_word + length / 4)
                seen[*corrupt_at / 4 - span.first_word] ^= 0x100;
            const auto m = pattern::Pattern(span.stream, span.pass).verify(seen.data(), seen.size(), span.first_word);
            if (!m.ok()) {
                char text[96];
                std::snprintf(text, sizeof text, "card check: data error at stream byte offset 0x%" PRIx64,
                              m.first_bad_word * 4);
                m_error = pdt::make_error("check H2C data", name(), EIO, text);
            }
            done.card_verified_bytes = length;
        }
        m_done.push_back(done);
        return {};
    }
    pdt::Result<std::optional<Completion>> poll() override {
        if (m_error)
            return *m_error;
        if (m_done.empty())
            return std::optional<Completion>{};
        const Completion c = m_done.front();
        m_done.pop_front();
        return std::optional<Completion>{c};
    }
    pdt::Result<Completion> wait(std::chrono::milliseconds) override {
        auto polled = PDT_TRY(poll());
        if (!polled)
            return pdt::make_error("wait", name(), ETIMEDOUT);
        return *polled;
    }
    pdt::Result<void> stop() override {
        m_done.clear();
        return {};
    }
    bool busy() const override { return !m_done.empty(); }

private:
    Direction m_direction;
    std::optional<uint64_t> m_generates;
    std::vector<std::vector<uint8_t>> m_buffers;
    std::vector<streams::PatternSpan> m_spans;
    std::deque<Completion> m_done;
    std::optional<pdt::Error> m_error;
    uint64_t m_generated = 0;
    std::vector<uint32_t> m_last_landed = std::vector<uint32_t>(1024, 0);
    std::vector<uint32_t> m_last_sent;
    uint64_t m_transfers = 0;
};

stream_test::Options options() {
    stream_test::Options o;
    o.transfer_timeout = 2s;
    o.bytes_per_source = 64 * 4096;
    o.duration = 200ms;
    return o;
}

struct Quiet : stream_test::Observer {
    void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>&) override {}
};

struct Outcome {
    stream_test::Summary summary;
    std::string text;
};

// An H2C source checked by its card and a C2H sink the card feeds with its own stream.
Outcome run_independent(CardChannel& h2c, CardChannel& c2h) {
    stream_test::StreamTest test(options());
    const size_t source = *test.add_source(h2c, 0);
    test.add_source_row("card H2C channel 0", source);
    const size_t sink = *test.add_sink(c2h, std::nullopt, streams::CardFunction::Generated);
    test.add_sink_row("card C2H channel 0", sink);
    Quiet quiet;
    Outcome run{test.run(quiet), {}};
    run.text = test_output::printed_by([&](std::FILE* out) { stream_test::Report(out, false).finish(run.summary); });
    return run;
}

// The pair every run here uses (the card stream seeded 0x10000); a test gives one side a fault.
struct CardPair {
    CardChannel h2c{Direction::H2C};
    CardChannel c2h{Direction::C2H, 0x10000};
    Outcome run() { return run_independent(h2c, c2h); }
};

// Whether the run failed and its report holds every one of `parts`, for EXPECT_TRUE.
testing::AssertionResult failed_saying(const Outcome& run, std::initializer_list<std::string_view> parts) {
    if (run.summary.passed())
        return testing::AssertionFailure() << "passed:\n" << run.text;
    for (const std::string_view part : parts)
        if (run.text.find(part) == std::string::npos)
            return testing::AssertionFailure() << "missing: " << part << "\nin:\n" << run.text;
    return testing::AssertionSuccess();
}

TEST(CardSideStream, CardCheckedAndCardGeneratedStreamsPassWithTheirCounts) {
    CardPair pair;
    const Outcome run = pair.run();
    ASSERT_TRUE(run.summary.passed()) << run.text;
    EXPECT_TRUE(run.summary.rows[0].on_card);
    EXPECT_EQ(run.summary.rows[0].words_verified * 4, 64u * 4096);
    EXPECT_EQ(run.summary.rows[1].function, streams::CardFunction::Generated);
    EXPECT_EQ(run.summary.rows[1].words_verified * 4, run.summary.rows[1].total.bytes);
    EXPECT_NE(run.text.find("card H2C channel 0 Test pattern verified by the card in 65536 words (262144 bytes)"),
              std::string::npos)
        << run.text;
    EXPECT_NE(run.text.find("card C2H channel 0 Card-generated test pattern verified in"), std::string::npos)
        << run.text;
    EXPECT_NE(run.text.find("Overall PASS"), std::string::npos);
}

TEST(CardSideStream, AByteTheCardGeneratedWrongFailsNamingItsOffset) {
    CardPair pair;
    pair.c2h.corrupt_at = 0x5003;
    EXPECT_TRUE(failed_saying(pair.run(), {"card C2H transfer 6: data error in buffer 1 at buffer offset 0x0, stream "
                                           "offset 0x5000: ",
                                           "Overall FAIL"}));
}

// A card that generates nothing into buffers that already hold the right first-pass bytes: the
// sink's poison before every submit makes transfer 1 fail (without it, 4 transfers would pass).
TEST(CardSideStream, AGeneratingCardThatMovesNothingFailsOnTransfer1) {
    CardPair pair;
    pair.c2h.moves_nothing = true;
    pair.c2h.prefill();
    const Outcome run = pair.run();
    EXPECT_TRUE(failed_saying(run, {"card C2H transfer 1: data error in buffer 0 at buffer offset 0x0, stream offset "
                                    "0x0: ",
                                    ", 1024 bad words\n", "Overall FAIL"}));
    EXPECT_EQ(run.summary.rows[1].words_verified, 0u);
}

TEST(CardSideStream, ACardCheckErrorFailsTheSourceWithTheCardsMessage) {
    CardPair pair;
    pair.h2c.corrupt_at = 0x9009;
    EXPECT_TRUE(failed_saying(pair.run(), {"card check: data error at stream byte offset 0x9008"}));
}

TEST(CardSideStream, GeneratedDataNeedsAGeneratingChannelAndNoSource) {
    CardChannel h2c(Direction::H2C), plain(Direction::C2H), generating(Direction::C2H, 7);
    stream_test::StreamTest test(options());
    const size_t source = *test.add_source(h2c, 0);
    auto no_stream = test.add_sink(plain, std::nullopt, streams::CardFunction::Generated);
    ASSERT_FALSE(no_stream.ok());
    EXPECT_NE(no_stream.error().message().find("generated data needs a channel whose card generates a stream"),
              std::string::npos);
    EXPECT_FALSE(test.add_sink(generating, source, streams::CardFunction::Generated).ok());
}

// F20 --h2c_replay: a source whose card checks the data and poisons each destination first
// generates each buffer once and resends it; every word is still checked.
Outcome run_source_only(CardChannel& h2c, bool replay) {
    stream_test::Options o = options();
    o.h2c_replay = replay;
    stream_test::StreamTest test(o);
    const size_t source = *test.add_source(h2c, 0);
    test.add_source_row("card H2C channel 0", source);
    Quiet quiet;
    Outcome run{test.run(quiet), {}};
    run.text = test_output::printed_by([&](std::FILE* out) { stream_test::Report(out, false).finish(run.summary); });
    return run;
}

TEST(CardSideStream, ReplayResendsEachBufferWhenTheCardPoisonsAndStillChecksEveryWord) {
    CardChannel h2c{Direction::H2C};
    h2c.poisons = true;
    const Outcome run = run_source_only(h2c, true);
    ASSERT_TRUE(run.summary.passed()) << run.text;
    EXPECT_EQ(h2c.described, 64u);          // every transfer described, and checked by the card
    EXPECT_EQ(h2c.first_words.size(), 4u);  // but only the 4 buffers' first spans: generated once
    EXPECT_EQ(run.summary.rows[0].words_verified, 64u * 1024);
    EXPECT_TRUE(run.summary.rows[0].replayed);
    EXPECT_NE(run.text.find("each buffer generated once and resent by the H2C replay"), std::string::npos) << run.text;
}

TEST(CardSideStream, ReplayIsRefusedWhereTheCardDoesNotPoisonItsDestination) {
    CardChannel h2c{Direction::H2C};
    const Outcome run = run_source_only(h2c, true);
    ASSERT_TRUE(run.summary.passed()) << run.text;
    EXPECT_EQ(h2c.first_words.size(), 64u);  // a fresh span every transfer
    EXPECT_FALSE(run.summary.rows[0].replayed);
    EXPECT_EQ(run.text.find("--h2c_replay"), std::string::npos) << run.text;
}

TEST(CardSideStream, ReplayedCopiesThatNeverLandMeetPoisonAndFail) {
    CardChannel h2c{Direction::H2C};
    h2c.poisons = true;
    h2c.h2c_moves_nothing = true;
    const Outcome run = run_source_only(h2c, true);
    ASSERT_FALSE(run.summary.passed());
    ASSERT_FALSE(run.summary.failures.empty());
    EXPECT_NE(run.summary.failures[0].message.find("card check: data error at stream byte offset 0x"), std::string::npos)
        << run.summary.failures[0].message;
}

TEST(CardSideStream, ReplayIsOffForASourceThatFeedsASink) {
    CardChannel h2c{Direction::H2C};
    h2c.poisons = true;
    CardChannel c2h{Direction::C2H, 0x10000};
    c2h.moves_nothing = true;  // the loop is not the point: whether the source replays is
    stream_test::Options o = options();
    o.h2c_replay = true;
    stream_test::StreamTest test(o);
    const size_t source = *test.add_source(h2c, 0);
    test.add_source_row("card H2C channel 0", source);
    const size_t sink = *test.add_sink(c2h, source, streams::CardFunction::Loopback);
    test.add_sink_row("card C2H channel 0", sink);
    Quiet quiet;
    const stream_test::Summary summary = test.run(quiet);
    EXPECT_FALSE(summary.rows[0].replayed);
}

// Generated streams are poisoned only before each buffer's first copy (fresh keys after):
// a card that goes stale after the first ring pass, or resends a reused buffer, still fails.
TEST(CardSideStream, AGeneratingCardThatGoesStaleAfterTheFirstRingPassFails) {
    CardPair pair;
    pair.c2h.stale_after = 6;  // 4 buffers: transfer 7 finds transfer 3's bytes in its buffer
    const Outcome run = pair.run();
    ASSERT_FALSE(run.summary.passed()) << run.text;
    ASSERT_FALSE(run.summary.failures.empty());
    EXPECT_NE(run.summary.failures[0].message.find("transfer 7: data error"), std::string::npos)
        << run.summary.failures[0].message;
}

TEST(CardSideStream, AGeneratingCardThatResendsItsLastBuffersBytesFails) {
    CardPair pair;
    pair.c2h.resends_last = true;
    const Outcome run = pair.run();
    ASSERT_FALSE(run.summary.passed()) << run.text;
    ASSERT_FALSE(run.summary.failures.empty());
    EXPECT_NE(run.summary.failures[0].message.find("transfer 2: data error"), std::string::npos)
        << run.summary.failures[0].message;
}

}  // namespace
