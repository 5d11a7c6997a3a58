#include <gtest/gtest.h>
#include "printed.hpp"

#include "stream_test/rate_counter.hpp"
#include "stream_test/report.hpp"

namespace {

using namespace std::chrono_literals;
using stream_test::Clock;
using stream_test::Interval;

// What Report::finish prints for `summary` (JSON Lines with `json`), and the status it returns.
struct Finished {
    int code = -1;
    std::string text;
};
Finished finish(const stream_test::Summary& summary, bool json = false) {
    Finished finished;
    finished.text = test_output::printed_by(
        [&](std::FILE* out) { finished.code = stream_test::Report(out, json).finish(summary); });
    return finished;
}

// A summary of the one row `row`.
stream_test::Summary summary_of(const stream_test::RowTotals& row) {
    stream_test::Summary summary;
    summary.rows.push_back(row);
    return summary;
}

TEST(Report, RateLineAsFpgaSio) {
    const Interval interval{8170504192ull, 487, 9.981102};
    EXPECT_EQ(stream_test::format_rate_line("0000:15:00.0 0 -> 1", interval),
              "0000:15:00.0 0 -> 1 818.597 Mbytes/sec (8170504192 bytes in 9.981102 secs)");
    EXPECT_EQ(stream_test::format_rate_line("0000:01:00.0 H2C channel 0", Interval{3813736448ull, 1, 9.999882}),
              "0000:01:00.0 H2C channel 0 381.378 Mbytes/sec (3813736448 bytes in 9.999882 secs)");
    EXPECT_EQ(stream_test::format_rate_line("x", Interval{}), "x No completed transfers");
    // test_dma_bridge_independent_streams' form counts the transfers.
    EXPECT_EQ(stream_test::format_rate_line("0000:01:00.0 H2C channel 0", Interval{3813736448ull, 57, 9.999882}, true),
              "0000:01:00.0 H2C channel 0 381.378 Mbytes/sec (3813736448 bytes in 57 transfers over 9.999882 secs)");
}

TEST(Report, PassSummaryLines) {
    stream_test::RowTotals row;
    row.label = "0000:15:00.0 0 -> 1";
    row.total = Interval{782824898560ull, 1, 956.298503};
    row.verifies = true;
    row.words_verified = 268435456;
    const auto [code, text] = finish(summary_of(row));
    EXPECT_EQ(code, 0);
    EXPECT_EQ(text,
              "Overall test statistics:\n"
              "  0000:15:00.0 0 -> 1 818.599 Mbytes/sec (782824898560 bytes in 956.298503 secs)\n"
              "\n"
              "0000:15:00.0 0 -> 1 Test pattern verified in 268435456 words (1073741824 bytes)\n"
              "\nOverall PASS\n");
}

// F30: a failed run prints no rate for a row that verified nothing (an H2C sink whose bytes no
// check saw arrive, beside the C2H failure that shows nothing moved).
TEST(Report, AFailedRunGivesNoRateForARowThatVerifiedNothing) {
    stream_test::RowTotals sink;
    sink.label = "ffff:00:00.0 H2C channel 0";
    sink.total = Interval{2147483648ull, 1, 1.1};
    stream_test::RowTotals failed;
    failed.label = "ffff:00:00.0 C2H channel 0";
    failed.verifies = true;
    failed.failure = stream_test::Failure{"C2H 0", "data error", {}, {}};
    stream_test::Summary summary = summary_of(sink);
    summary.rows.push_back(failed);
    summary.failures.push_back(*failed.failure);
    const auto [code, text] = finish(summary);
    EXPECT_EQ(code, 1);
    EXPECT_NE(text.find("ffff:00:00.0 H2C channel 0 2147483648 bytes handed over in 1.100000 secs, none verified: no rate\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("Mbytes/sec"), std::string::npos) << text;
}

// F20: the host's cost in the totals, as cores busy and cores per verified GB/s (host- and
// card-verified bytes together), text and JSON; a run with nothing verified says so.
TEST(Report, HostCpuCostInTheTotals) {
    stream_test::RowTotals row;
    row.label = "p";
    row.total = Interval{2000000000ull, 1, 2.0};
    row.verifies = true;
    row.words_verified = 250000000;       // 1e9 bytes
    row.card_words_verified = 250000000;  // 1e9 more, checked by the card
    stream_test::Summary summary = summary_of(row);
    summary.cpu_seconds = 3.0;
    summary.wall_seconds = 2.0;  // 1.5 cores, 1 GB/s verified
    const auto [code, text] = finish(summary);
    EXPECT_EQ(code, 0);
    EXPECT_NE(text.find("Host CPU: 1.50 cores busy (3.000 s of CPU in 2.000 s, every thread of the process), "
                        "1.500 cores per verified GB/s\n"),
              std::string::npos)
        << text;
    const auto json = finish(summary, true);
    EXPECT_NE(json.text.find(",\"host_cores\":1.500,\"cores_per_verified_gbps\":1.5"), std::string::npos) << json.text;
    row.words_verified = row.card_words_verified = 0;
    stream_test::Summary none = summary_of(row);
    none.cpu_seconds = 1.0;
    none.wall_seconds = 2.0;
    EXPECT_NE(finish(none).text.find("Host CPU: 0.50 cores busy (1.000 s of CPU in 2.000 s, every thread of the process), "
                                     "nothing verified\n"),
              std::string::npos);
    EXPECT_NE(finish(none, true).text.find("\"cores_per_verified_gbps\":null"), std::string::npos);
}

TEST(Report, VerifyingRowWithNoDataFails) {
    stream_test::RowTotals row;
    row.label = "p";
    row.verifies = true;
    const auto [code, text] = finish(summary_of(row));
    EXPECT_EQ(code, 1);
    EXPECT_NE(text.find("p No data received: nothing verified\nFAIL: p moved no data: nothing verified on it\n"
                        "\nOverall FAIL\n"),
              std::string::npos)
        << text;
}

// Only sources (H2C rows): data moved, nothing verified; the verdict says so.
TEST(Report, NoVerifyingRowFailsWithTheReason) {
    stream_test::RowTotals row;
    row.label = "0000:15:00.0 H2C channel 0";
    row.total = Interval{4096, 1, 1.0};
    const auto [code, text] = finish(summary_of(row));
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(text.ends_with("FAIL: no C2H channel under test receives from an H2C channel under test: nothing was "
                               "verified\n\nOverall FAIL\n"))
        << text;
    const auto [json_code, json] = finish(summary_of(row), true);
    EXPECT_EQ(json_code, 1);
    EXPECT_TRUE(json.ends_with(",\"rows\":1,\"reason\":\"no C2H channel under test receives from an H2C channel under "
                               "test: nothing was verified\"}\n"))
        << json;
}

TEST(Report, JsonLines) {
    stream_test::RowTotals row;
    row.label = "a \"b\"";
    row.total = Interval{1000000, 2, 1.0};
    row.verifies = true;
    row.words_verified = 250000;
    stream_test::Summary summary = summary_of(row);
    stream_test::Failure failure{"0000:15:00.0 C2H 1", "data error", 64, pattern::Mismatch{3, 16, 0xa, 0xb}};
    summary.failures.push_back(failure);
    const auto [code, text] = finish(summary, true);
    EXPECT_EQ(code, 1);
    EXPECT_EQ(text,
              "{\"type\":\"total\",\"label\":\"a \\\"b\\\"\",\"bytes\":1000000,\"transfers\":2,\"seconds\":1.000000,"
              "\"mbytes_per_sec\":1.000,\"verified\":true,\"words_verified\":250000,\"bytes_verified\":1000000,"
              "\"verified_on_card\":false,\"card_bytes_verified\":0}\n"
              "{\"type\":\"failure\",\"channel\":\"0000:15:00.0 C2H 1\",\"message\":\"data error\","
              "\"stream_byte_offset\":64,\"first_bad_byte_offset\":64,\"expected\":10,\"actual\":11,\"bad_words\":3}\n"
              "{\"type\":\"result\",\"overall\":\"FAIL\",\"bytes_verified\":1000000,\"stopped_by_user\":false,"
              "\"rows\":1}\n");
}

TEST(RateCounter, IntervalsStartAtThePreviousLastCompletion) {
    constexpr uint64_t MiB = 1 << 20;
    const auto t0 = Clock::now();
    stream_test::RateCounter counter(t0);
    counter.add(MiB, t0 + 1s);
    counter.add(MiB, t0 + 2s);
    const Interval first = counter.take_interval();
    EXPECT_EQ(first.bytes, 2 * MiB);
    EXPECT_DOUBLE_EQ(first.seconds, 2.0);
    EXPECT_FALSE(first.too_short);
    counter.add(2 * MiB, t0 + 5s);
    const Interval second = counter.take_interval();
    EXPECT_EQ(second.bytes, 2 * MiB);
    EXPECT_DOUBLE_EQ(second.seconds, 3.0);
    EXPECT_EQ(counter.take_interval().bytes, 0u);
    const Interval total = counter.total();
    EXPECT_EQ(total.bytes, 4 * MiB);
    EXPECT_EQ(total.transfers, 3u);
    EXPECT_DOUBLE_EQ(total.seconds, 5.0);
    EXPECT_NEAR(total.mbytes_per_sec(), 4.0 * MiB / 5.0 / 1e6, 1e-12);
}

// An interval under 10 ms or under 1 MiB gives no rate: a periodic one stays open and is
// counted in the next; the final part interval is marked.
TEST(RateCounter, AnIntervalTooShortForARateIsCarriedIntoTheNext) {
    constexpr uint64_t MiB = 1 << 20;
    const auto t0 = Clock::now();
    stream_test::RateCounter counter(t0);
    counter.add(MiB, t0 + 1s);
    EXPECT_FALSE(counter.take_interval().too_short);
    counter.add(64 * MiB, t0 + 1s + 2ms);  // 64 MiB in 2 ms: 33 GB/s, not a figure to print
    const Interval short_one = counter.take_interval();
    EXPECT_TRUE(short_one.too_short);
    EXPECT_TRUE(short_one.carried);
    EXPECT_EQ(short_one.bytes, 64 * MiB);
    counter.add(MiB, t0 + 2s);
    const Interval next = counter.take_interval();
    EXPECT_FALSE(next.too_short);
    EXPECT_EQ(next.bytes, 65 * MiB);  // the carried bytes and time are in it
    EXPECT_DOUBLE_EQ(next.seconds, 1.0);
    counter.add(4096, t0 + 3s);  // a whole second, but 4 KiB: too few bytes
    const Interval few = counter.take_interval();
    EXPECT_TRUE(few.too_short);
    EXPECT_TRUE(few.carried);
    counter.add(2 * MiB, t0 + 4s);
    EXPECT_EQ(counter.take_interval().bytes, 2 * MiB + 4096);
    counter.add(8 * MiB, t0 + 4s + 1700us);  // the final part interval: 8 MiB in 1.7 ms
    const Interval last = counter.take_interval(true);
    EXPECT_TRUE(last.too_short);
    EXPECT_FALSE(last.carried);
    EXPECT_EQ(last.bytes, 8 * MiB);
    EXPECT_EQ(counter.take_interval(true).bytes, 0u);  // the last interval was closed
    EXPECT_EQ(counter.total().bytes, 76 * MiB + 4096);
}

TEST(Report, AnIntervalTooShortForARatePrintsNoRate) {
    Interval last{134217728, 8, 0.0017};
    last.too_short = true;
    EXPECT_EQ(stream_test::format_rate_line("0000:00:06.0 0 -> 0", last),
              "0000:00:06.0 0 -> 0 134217728 bytes in 0.001700 secs: too short for a rate (under 10 ms or 1 MiB)");
    EXPECT_EQ(stream_test::json_interval("interval", "x", last),
              "{\"type\":\"interval\",\"label\":\"x\",\"bytes\":134217728,\"transfers\":8,\"seconds\":0.001700,"
              "\"mbytes_per_sec\":null,\"too_short\":true}");
    last.carried = true;
    EXPECT_EQ(stream_test::format_rate_line("x", last),
              "x 134217728 bytes in 0.001700 secs: too short for a rate (under 10 ms or 1 MiB), carried into the next "
              "interval");
    EXPECT_TRUE(stream_test::json_interval("interval", "x", last).ends_with(
        "\"mbytes_per_sec\":null,\"too_short\":true,\"carried\":true}"));
}

TEST(Report, FailureJsonNamesTheTransfer) {
    stream_test::Failure failure{"0000:15:00.0 C2H 1", "transfer 3: data error", 8256, pattern::Mismatch{1, 2064, 1, 2},
                                 3};
    EXPECT_EQ(stream_test::json_failure(failure),
              "{\"type\":\"failure\",\"channel\":\"0000:15:00.0 C2H 1\",\"message\":\"transfer 3: data error\","
              "\"transfer\":3,\"stream_byte_offset\":8256,\"first_bad_byte_offset\":8256,\"expected\":1,"
              "\"actual\":2,\"bad_words\":1}");
}

}  // namespace
