#include <gtest/gtest.h>
#include "printed.hpp"

#include <cstdio>
#include <thread>

#include "fake_stream.hpp"
#include "stream_test/report.hpp"
#include "stream_test/driver.hpp"

namespace {

using namespace std::chrono_literals;
using fake::Fault;
using fake::FakeLoopback;
using fake::Lie;
using fake::LoopbackConfig;
using stream_test::Interval;
using stream_test::Options;
using stream_test::StreamTest;
using stream_test::Summary;

struct CountingObserver : stream_test::Observer {
    void on_interval(const std::vector<std::pair<std::string, Interval>>& rows) override {
        ++intervals;
        for (const auto& row : rows)
            labels.push_back(row.first);
    }
    int intervals = 0;
    std::vector<std::string> labels;
};

Options quick_options() {
    Options options;
    options.transfer_timeout = 300ms;
    options.report_interval = 100ms;
    options.duration = 350ms;
    return options;
}

Summary run_pair(FakeLoopback& loop, Options options, CountingObserver& observer) {
    StreamTest test(options);
    const size_t source = *test.add_source(loop.h2c(), 0);
    const size_t sink = *test.add_sink(loop.c2h(), source);
    test.add_pair_row("0000:15:00.0 0 -> 1", sink);
    return test.run(observer);
}

// run_pair with the quick options on a fresh loopback made with `config`: for tests that judge
// the summary alone.
Summary run_quick(const LoopbackConfig& config) {
    FakeLoopback loop(config);
    CountingObserver observer;
    return run_pair(loop, quick_options(), observer);
}

TEST(StreamTest, LoopbackPairVerifiesEveryWord) {
    FakeLoopback loop(LoopbackConfig{});
    CountingObserver observer;
    const Summary summary = run_pair(loop, quick_options(), observer);
    EXPECT_TRUE(summary.passed());
    ASSERT_EQ(summary.rows.size(), 1u);
    const auto& row = summary.rows[0];
    EXPECT_GT(row.total.bytes, 0u);
    // Every received byte was verified, and everything sent was received (drained).
    EXPECT_EQ(row.words_verified * 4, row.total.bytes);
    EXPECT_EQ(row.total.bytes, loop.packets_sent() * 4096);
    EXPECT_GE(observer.intervals, 3);
    EXPECT_FALSE(loop.h2c().busy());
    EXPECT_FALSE(loop.c2h().busy());
}

TEST(StreamTest, WorkerPoolSharesVerification) {
    pattern::WorkerPool pool(2);
    LoopbackConfig config;
    config.buffer_size = pattern::BLOCK_WORDS * 4 * 3;
    config.buffers = 3;
    FakeLoopback loop(config);
    Options options = quick_options();
    options.pool = &pool;
    CountingObserver observer;
    const Summary summary = run_pair(loop, options, observer);
    EXPECT_TRUE(summary.passed());
    EXPECT_EQ(summary.rows[0].words_verified * 4, summary.rows[0].total.bytes);
}

struct FaultCase {
    Fault fault;
    const char* channel;       // the channel the failure names (a prefix of it)
    const char* message_part;  // a part of the message
    int64_t bad_byte_offset;   // first bad stream byte offset (data faults), -1 if none
};

class StreamFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(StreamFault, FailsNamingChannelAndFirstBadOffset) {
    const FaultCase c = GetParam();
    LoopbackConfig config;
    config.fault = c.fault;
    config.fault_packet = 11;  // past the first pass through the 8-buffer ring
    FakeLoopback loop(config);
    CountingObserver observer;
    Options options = quick_options();
    options.duration = 5s;  // the fault, not the duration, must end the run
    const auto start = std::chrono::steady_clock::now();
    const Summary summary = run_pair(loop, options, observer);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    EXPECT_FALSE(summary.passed());
    ASSERT_FALSE(summary.failures.empty());
    const auto& failure = summary.failures.front();
    EXPECT_TRUE(failure.channel.starts_with(c.channel)) << failure.channel;
    EXPECT_NE(failure.message.find(c.message_part), std::string::npos) << failure.message;
    if (c.bad_byte_offset >= 0) {
        ASSERT_TRUE(failure.mismatch.has_value()) << failure.message;
        EXPECT_EQ(failure.mismatch->first_bad_word * 4, static_cast<uint64_t>(c.bad_byte_offset));
        EXPECT_EQ(failure.stream_byte_offset, static_cast<uint64_t>(c.bad_byte_offset));
        // One 4 KiB packet per transfer: the transfer, the buffer and both offsets are named.
        const uint64_t transfer = static_cast<uint64_t>(c.bad_byte_offset) / 4096 + 1;
        EXPECT_EQ(failure.transfer, transfer);
        char where[160];
        std::snprintf(where, sizeof where,
                      "transfer %llu: data error in buffer %llu at buffer offset 0x%llx, stream offset 0x%llx: ",
                      static_cast<unsigned long long>(transfer), static_cast<unsigned long long>((transfer - 1) % 8),
                      static_cast<unsigned long long>(c.bad_byte_offset % 4096),
                      static_cast<unsigned long long>(c.bad_byte_offset));
        EXPECT_TRUE(failure.message.starts_with(where)) << failure.message;
    }
    ASSERT_TRUE(summary.rows[0].failure.has_value());
    EXPECT_FALSE(loop.h2c().busy());
    EXPECT_FALSE(loop.c2h().busy());
    // The report says FAIL, names the channel, and exits 1.
    const std::string printed = test_output::printed_by(
        [&](std::FILE* out) { EXPECT_EQ(stream_test::Report(out, false).finish(summary), 1); });
    EXPECT_NE(printed.find("Overall FAIL"), std::string::npos) << printed;
    EXPECT_NE(printed.find(std::string("0000:15:00.0 0 -> 1 Test FAILED: ") + c.channel), std::string::npos)
        << printed;
    EXPECT_EQ(printed.find("Overall PASS"), std::string::npos);
}

constexpr int64_t PACKET = 4096;
INSTANTIATE_TEST_SUITE_P(
    Faults, StreamFault,
    ::testing::Values(FaultCase{Fault::BitFlip, "0000:15:00.0 C2H 1", "expected 0x", 11 * PACKET + 20},
                      FaultCase{Fault::Drop, "0000:15:00.0 C2H 1", "data error", 11 * PACKET},
                      FaultCase{Fault::Duplicate, "0000:15:00.0 C2H 1", "data error", 12 * PACKET},
                      FaultCase{Fault::Reorder, "0000:15:00.0 C2H 1", "data error", 11 * PACKET},
                      FaultCase{Fault::Stale, "0000:15:00.0 C2H 1", "data error", 11 * PACKET},
                      FaultCase{Fault::ShortLength, "0000:15:00.0 C2H 1", "C2H completion length 4032 EOP 1, "
                                                                          "expected length 4096", -1},
                      // A stalled loopback backs up into the H2C side: either channel may time out first.
                      FaultCase{Fault::Stall, "0000:15:00.0 ", "completion for 0.300 secs", -1},
                      FaultCase{Fault::WaitError, "0000:15:00.0 C2H 1", "injected fault", -1}),
    [](const auto& info) { return std::to_string(static_cast<int>(info.param.fault)); });

// A C2H side that lies on every transfer (docs/verification.md) fails on its first transfer,
// though each buffer starts out holding exactly the bytes its first transfer should bring: the
// sink poisons every buffer before every submit. Without the poison these stale bytes pass
// the first pass through the 8-buffer ring, and the failure comes at transfer 9.
struct LieCase {
    Lie lie;
    uint64_t bad_offset;  // in the buffer (and the stream: transfer 1 starts the stream)
    uint64_t bad_words;
};

class LyingSink : public ::testing::TestWithParam<LieCase> {};

TEST_P(LyingSink, FailsOnTheFirstTransferNamingItAndTheOffset) {
    const LieCase c = GetParam();
    LoopbackConfig config;
    config.lie = c.lie;
    config.c2h_prefill_stream = 0;  // the stream run_pair's source sends
    FakeLoopback loop(config);
    CountingObserver observer;
    Options options = quick_options();
    options.duration = 5s;  // the lie, not the duration, must end the run
    const Summary summary = run_pair(loop, options, observer);
    EXPECT_FALSE(summary.passed());
    ASSERT_FALSE(summary.failures.empty());
    const auto& failure = summary.failures.front();
    EXPECT_EQ(failure.channel, "0000:15:00.0 C2H 1");
    EXPECT_EQ(failure.transfer, 1u) << failure.message;
    ASSERT_TRUE(failure.mismatch.has_value()) << failure.message;
    EXPECT_EQ(failure.mismatch->first_bad_word * 4, c.bad_offset);
    EXPECT_EQ(failure.mismatch->bad_words, c.bad_words);
    EXPECT_EQ(summary.rows[0].words_verified, 0u);
    char where[120];
    std::snprintf(where, sizeof where, "transfer 1: data error in buffer 0 at buffer offset 0x%llx, stream offset 0x%llx: ",
                  static_cast<unsigned long long>(c.bad_offset), static_cast<unsigned long long>(c.bad_offset));
    EXPECT_TRUE(failure.message.starts_with(where)) << failure.message;
    const std::string printed = test_output::printed_by(
        [&](std::FILE* out) { EXPECT_EQ(stream_test::Report(out, false).finish(summary), 1); });
    EXPECT_NE(printed.find(std::string("0000:15:00.0 0 -> 1 Test FAILED: 0000:15:00.0 C2H 1 ") + where),
              std::string::npos)
        << printed;
    EXPECT_EQ(printed.find("Overall PASS"), std::string::npos) << printed;
    const std::string json = test_output::printed_by(
        [&](std::FILE* out) { EXPECT_EQ(stream_test::Report(out, true).finish(summary), 1); });
    EXPECT_NE(json.find("\"channel\":\"0000:15:00.0 C2H 1\",\"message\":\"transfer 1: "), std::string::npos) << json;
    EXPECT_NE(json.find(",\"transfer\":1,"), std::string::npos) << json;
}

INSTANTIATE_TEST_SUITE_P(Lies, LyingSink,
                         ::testing::Values(LieCase{Lie::MovesNothing, 0, 1024},
                                           LieCase{Lie::CompletesEarly, 4096 - 64, 16}),
                         [](const auto& info) {
                             return info.param.lie == Lie::MovesNothing ? std::string("moves_nothing")
                                                                        : std::string("completes_early");
                         });

// The same lying C2H sides with honest stale bytes gone (buffers start zeroed): still FAIL.
TEST(StreamTest, LyingSinkFailsWithZeroedBuffersToo) {
    for (const Lie lie : {Lie::MovesNothing, Lie::CompletesEarly}) {
        LoopbackConfig config;
        config.lie = lie;
        const Summary summary = run_quick(config);
        EXPECT_FALSE(summary.passed());
        ASSERT_FALSE(summary.failures.empty());
        EXPECT_EQ(summary.failures.front().transfer, 1u) << summary.failures.front().message;
    }
}

// A loopback sink's buffers are poisoned before their first copy only (docs/verification.md,
// rule 2): after the first pass through the ring each holds an earlier part of the looped
// stream. A C2H side that goes stale after that pass (transfer 9 of an 8-buffer ring finds
// transfer 1's bytes in buffer 0) still fails on the transfer it went stale, naming it; so does
// one stale in the middle of the second pass, with packets shorter than a buffer.
TEST(StreamTest, LoopbackSinkStaleAfterTheFirstRingPassFailsOnThatTransfer) {
    struct Case {
        uint64_t stale_after;
        uint64_t c2h_buffer_size;  // 1024: each 4096-byte packet lands in four C2H buffers
    };
    for (const Case c : {Case{8, 4096}, Case{11, 4096}, Case{13, 1024}}) {
        LoopbackConfig config;
        config.lie = Lie::StaleAfter;
        config.stale_after = c.stale_after;
        config.c2h_buffer_size = c.c2h_buffer_size;
        FakeLoopback loop(config);
        CountingObserver observer;
        Options options = quick_options();
        options.duration = 5s;  // the lie, not the duration, must end the run
        const Summary summary = run_pair(loop, options, observer);
        EXPECT_FALSE(summary.passed()) << c.stale_after;
        ASSERT_FALSE(summary.failures.empty());
        EXPECT_EQ(summary.failures.front().transfer, c.stale_after + 1) << summary.failures.front().message;
        EXPECT_NE(summary.failures.front().message.find(": data error in buffer "), std::string::npos)
            << summary.failures.front().message;
    }
}

// The honest fake with the same stale-but-right bytes passes: the poison costs no false FAIL.
TEST(StreamTest, PrefilledHonestSinkPasses) {
    LoopbackConfig config;
    config.c2h_prefill_stream = 0;
    const Summary summary = run_quick(config);
    EXPECT_TRUE(summary.passed());
    EXPECT_EQ(summary.rows[0].words_verified * 4, summary.rows[0].total.bytes);
}

// Stops the run, as Ctrl-C does, at the first report of data that flowed: an event, not a delay.
struct StopOnData : CountingObserver {
    explicit StopOnData(std::atomic<bool>& stop) : stop(stop) {}
    void on_interval(const std::vector<std::pair<std::string, Interval>>& rows) override {
        CountingObserver::on_interval(rows);
        for (const auto& row : rows)
            if (row.second.bytes > 0)
                stop = true;
    }
    std::atomic<bool>& stop;
};

TEST(StreamTest, StopFlagDrainsAndPasses) {
    FakeLoopback loop(LoopbackConfig{});
    std::atomic<bool> stop{false};
    Options options = quick_options();
    options.duration.reset();
    options.stop = &stop;
    StopOnData observer(stop);
    const Summary summary = run_pair(loop, options, observer);
    EXPECT_TRUE(stop);
    EXPECT_TRUE(summary.stopped_by_user);
    EXPECT_TRUE(summary.passed());
    EXPECT_EQ(summary.rows[0].total.bytes, loop.packets_sent() * 4096);
    EXPECT_FALSE(loop.h2c().busy());
    EXPECT_FALSE(loop.c2h().busy());
}

TEST(StreamTest, ChannelStillBusyAfterStopFails) {
    LoopbackConfig config;
    config.stop_leaves_busy = true;
    const Summary summary = run_quick(config);
    EXPECT_FALSE(summary.passed());
    ASSERT_EQ(summary.failures.size(), 1u);
    EXPECT_EQ(summary.failures[0].channel, "0000:15:00.0 C2H 1");
    EXPECT_EQ(summary.failures[0].message, "still busy after stop");
}

TEST(StreamTest, BytesPerSourceEndsTheRun) {
    FakeLoopback loop(LoopbackConfig{});
    Options options = quick_options();
    options.duration = 10s;
    options.bytes_per_source = 100 * 4096;
    CountingObserver observer;
    const Summary summary = run_pair(loop, options, observer);
    EXPECT_TRUE(summary.passed());
    EXPECT_EQ(summary.rows[0].total.bytes, 100u * 4096);
    EXPECT_EQ(summary.rows[0].words_verified, 100u * 1024);
}

TEST(StreamTest, NothingSelectedNeverPasses) {
    StreamTest test(quick_options());
    CountingObserver observer;
    const Summary summary = test.run(observer);
    EXPECT_FALSE(summary.passed());
    const std::string printed = test_output::printed_by(
        [&](std::FILE* out) { EXPECT_EQ(stream_test::Report(out, false).finish(summary), 1); });
    EXPECT_EQ(printed, "No stream channels were tested\n\nOverall FAIL\n");
}

TEST(StreamTest, RejectsWrongDirectionAndOddSizes) {
    FakeLoopback loop(LoopbackConfig{});
    StreamTest test(quick_options());
    EXPECT_EQ(test.add_source(loop.c2h(), 0).error().code, EINVAL);
    EXPECT_EQ(test.add_sink(loop.h2c(), std::nullopt).error().code, EINVAL);
    EXPECT_EQ(test.add_sink(loop.c2h(), 5).error().hint, "unknown source");
    LoopbackConfig odd;
    odd.buffer_size = 4094;
    FakeLoopback odd_loop(odd);
    EXPECT_FALSE(test.add_source(odd_loop.h2c(), 0).ok());
}

TEST(StreamTest, IndependentStreamsCrossRoutedWithSmallerC2hBuffers) {
    // H2C 0 -> C2H 1 and H2C 1 -> C2H 0; C2H buffers a third the size, so packets span three.
    LoopbackConfig a, b;
    a.bdf = b.bdf = "0000:01:00.0";
    a.h2c_channel = 0, a.c2h_channel = 1, b.h2c_channel = 1, b.c2h_channel = 0;
    a.buffer_size = b.buffer_size = 3 * 1024;
    a.c2h_buffer_size = b.c2h_buffer_size = 1024;
    a.c2h_buffers = b.c2h_buffers = 5;
    FakeLoopback la(a), lb(b);
    StreamTest test(quick_options());
    const size_t s0 = *test.add_source(la.h2c(), 0), s1 = *test.add_source(lb.h2c(), 1);
    const size_t k1 = *test.add_sink(la.c2h(), s0), k0 = *test.add_sink(lb.c2h(), s1);
    test.add_source_row("0000:01:00.0 H2C channel 0", s0);
    test.add_source_row("0000:01:00.0 H2C channel 1", s1);
    test.add_sink_row("0000:01:00.0 C2H channel 0", k0);
    test.add_sink_row("0000:01:00.0 C2H channel 1", k1);
    CountingObserver observer;
    const Summary summary = test.run(observer);
    EXPECT_TRUE(summary.passed());
    ASSERT_EQ(summary.rows.size(), 4u);
    EXPECT_FALSE(summary.rows[0].verifies);
    EXPECT_TRUE(summary.rows[2].verifies);
    EXPECT_EQ(summary.rows[0].total.bytes, summary.rows[3].total.bytes);  // H2C 0 fed C2H 1
    EXPECT_EQ(summary.rows[3].total.transfers, 3 * summary.rows[0].total.transfers);
    EXPECT_EQ(observer.labels.front(), "0000:01:00.0 H2C channel 0");
}

TEST(StreamTest, UnroutedSinkIsCountedButCannotPassAlone) {
    FakeLoopback loop(LoopbackConfig{});
    StreamTest test(quick_options());
    const size_t source = *test.add_source(loop.h2c(), 0);
    const size_t sink = *test.add_sink(loop.c2h(), std::nullopt);
    test.add_source_row("H2C", source);
    test.add_sink_row("C2H", sink);
    CountingObserver observer;
    const Summary summary = test.run(observer);
    EXPECT_FALSE(summary.rows[1].verifies);
    // Nothing failed, every row moved data, so this passes: but no row claims verification.
    EXPECT_GT(summary.rows[1].total.bytes, 0u);
    EXPECT_EQ(summary.rows[1].words_verified, 0u);
}

}  // namespace
