#include <gtest/gtest.h>
#include "printed.hpp"

#include "stream_test/rate_counter.hpp"
#include "stream_test/report.hpp"

namespace {

using namespace std::chrono_literals;
using stream_test::Clock;
using stream_test::Interval;

std::string capture(const std::function<void(std::FILE*)>& body) {
    return test_output::printed_by(body);
}

TEST(Report, RateLineAsFpgaSio) {
    const Interval interval{8170504192ull, 487, 9.981102};
    EXPECT_EQ(stream_test::format_rate_line("0000:15:00.0 0 -> 1", interval),
              "0000:15:00.0 0 -> 1 818.597 Mbytes/sec (8170504192 bytes in 9.981102 secs)");
    EXPECT_EQ(stream_test::format_rate_line("0000:01:00.0 H2C channel 0", Interval{3813736448ull, 1, 9.999882}),
              "0000:01:00.0 H2C channel 0 381.378 Mbytes/sec (3813736448 bytes in 9.999882 secs)");
    EXPECT_EQ(stream_test::format_rate_line("x", Interval{}), "x No completed transfers");
}

TEST(Report, PassSummaryLines) {
    stream_test::Summary summary;
    stream_test::RowTotals row;
    row.label = "0000:15:00.0 0 -> 1";
    row.total = Interval{782824898560ull, 1, 956.298503};
    row.verifies = true;
    row.words_verified = 268435456;
    summary.rows.push_back(row);
    int code = -1;
    const std::string text = capture([&](std::FILE* out) { code = stream_test::Report(out, false).finish(summary); });
    EXPECT_EQ(code, 0);
    EXPECT_EQ(text,
              "Overall test statistics:\n"
              "0000:15:00.0 0 -> 1 818.599 Mbytes/sec (782824898560 bytes in 956.298503 secs)\n"
              "0000:15:00.0 0 -> 1 Test pattern verified in 268435456 words (1073741824 bytes)\n"
              "Overall PASS\n");
}

TEST(Report, VerifyingRowWithNoDataFails) {
    stream_test::Summary summary;
    stream_test::RowTotals row;
    row.label = "p";
    row.verifies = true;
    summary.rows.push_back(row);
    int code = -1;
    const std::string text = capture([&](std::FILE* out) { code = stream_test::Report(out, false).finish(summary); });
    EXPECT_EQ(code, 1);
    EXPECT_NE(text.find("p No data received: nothing verified\nFAIL: p moved no data: nothing verified on it\n"
                        "Overall FAIL\n"),
              std::string::npos)
        << text;
}

// Only sources (H2C rows): data moved, nothing verified; the verdict says so.
TEST(Report, NoVerifyingRowFailsWithTheReason) {
    stream_test::Summary summary;
    stream_test::RowTotals row;
    row.label = "0000:15:00.0 H2C channel 0";
    row.total = Interval{4096, 1, 1.0};
    summary.rows.push_back(row);
    int code = -1;
    std::string text = capture([&](std::FILE* out) { code = stream_test::Report(out, false).finish(summary); });
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(text.ends_with("FAIL: no C2H channel under test receives from an H2C channel under test: nothing was "
                               "verified\nOverall FAIL\n"))
        << text;
    text = capture([&](std::FILE* out) { code = stream_test::Report(out, true).finish(summary); });
    EXPECT_EQ(code, 1);
    EXPECT_TRUE(text.ends_with(",\"rows\":1,\"reason\":\"no C2H channel under test receives from an H2C channel under "
                               "test: nothing was verified\"}\n"))
        << text;
}

TEST(Report, JsonLines) {
    stream_test::Summary summary;
    stream_test::RowTotals row;
    row.label = "a \"b\"";
    row.total = Interval{1000000, 2, 1.0};
    row.verifies = true;
    row.words_verified = 250000;
    summary.rows.push_back(row);
    stream_test::Failure failure{"0000:15:00.0 C2H 1", "data error", 64, pattern::Mismatch{3, 16, 0xa, 0xb}};
    summary.failures.push_back(failure);
    int code = -1;
    const std::string text = capture([&](std::FILE* out) { code = stream_test::Report(out, true).finish(summary); });
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
    const auto t0 = Clock::now();
    stream_test::RateCounter counter(t0);
    counter.add(100, t0 + 1s);
    counter.add(100, t0 + 2s);
    const Interval first = counter.take_interval();
    EXPECT_EQ(first.bytes, 200u);
    EXPECT_DOUBLE_EQ(first.seconds, 2.0);
    counter.add(50, t0 + 5s);
    const Interval second = counter.take_interval();
    EXPECT_EQ(second.bytes, 50u);
    EXPECT_DOUBLE_EQ(second.seconds, 3.0);
    EXPECT_EQ(counter.take_interval().bytes, 0u);
    const Interval total = counter.total();
    EXPECT_EQ(total.bytes, 250u);
    EXPECT_EQ(total.transfers, 3u);
    EXPECT_DOUBLE_EQ(total.seconds, 5.0);
    EXPECT_NEAR(total.mbytes_per_sec(), 250.0 / 5.0 / 1e6, 1e-12);
}

}  // namespace
