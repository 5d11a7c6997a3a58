#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "measure/copying.hpp"
#include "measure/progress.hpp"
#include "measure/sha256.hpp"
#include "measure/stats.hpp"

using namespace measure;

TEST(Stats, MedianOfOddAndEvenCounts) {
    EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
    EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Stats, PercentilesInterpolateBetweenOrderStatistics) {
    std::vector<double> v;
    for (int i = 1; i <= 101; ++i)
        v.push_back(i);
    EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
    EXPECT_DOUBLE_EQ(percentile(v, 50), 51);
    EXPECT_DOUBLE_EQ(percentile(v, 90), 91);
    EXPECT_DOUBLE_EQ(percentile(v, 99.9), 100.9);
    EXPECT_DOUBLE_EQ(percentile(v, 100), 101);
}

TEST(Stats, StudentTQuantiles) {
    EXPECT_NEAR(student_t_99(1), 63.657, 1e-3);
    EXPECT_NEAR(student_t_99(4), 4.604, 1e-3);
    EXPECT_NEAR(student_t_99(40), 2.704, 2e-3);   // tables: 2.704
    EXPECT_NEAR(student_t_99(120), 2.617, 2e-3);  // tables: 2.617
    EXPECT_TRUE(std::isnan(student_t_99(0)));
}

TEST(Stats, MeanOfFiveRunsWithTheir99PercentInterval) {
    // mean 10, sample sd sqrt(2.5), t(4) 4.604: half width 4.604 * 1.5811 / sqrt(5) = 3.2555
    const MeanInterval m = mean_ci99({8, 9, 10, 11, 12});
    EXPECT_DOUBLE_EQ(m.mean, 10);
    ASSERT_TRUE(m.low && m.high);
    EXPECT_NEAR(*m.low, 10 - 3.2555, 1e-3);
    EXPECT_NEAR(*m.high, 10 + 3.2555, 1e-3);
    EXPECT_EQ(m.count, 5u);
}

TEST(Stats, OneRunHasNoInterval) {
    const MeanInterval m = mean_ci99({7});
    EXPECT_DOUBLE_EQ(m.mean, 7);
    EXPECT_FALSE(m.low);
    EXPECT_FALSE(m.high);
}

// Two runs: t_0.995(1) = 63.657 would give 11 -/+ 46 GB/s ("-35.064-56.997" on an H200).
TEST(Stats, TwoRunsHaveNoInterval) {
    const MeanInterval m = mean_ci99({10.0, 12.0});
    EXPECT_DOUBLE_EQ(m.mean, 11);
    EXPECT_EQ(m.count, 2u);
    EXPECT_FALSE(m.low);
    EXPECT_FALSE(m.high);
}

TEST(Stats, TheLowerBoundNeverGoesBelowZero) {
    // mean 1.0, sd 1.5588, t(2) 9.925: 1.0 -/+ 8.93, clamped at 0 below.
    const MeanInterval m = mean_ci99({0.1, 0.1, 2.8});
    ASSERT_TRUE(m.low && m.high);
    EXPECT_EQ(*m.low, 0.0);
    EXPECT_NEAR(*m.high, 1.0 + 9.925 * 1.5588 / std::sqrt(3.0), 1e-3);
    const MeanInterval tight = mean_ci99({5, 5.1, 5.2});  // far from 0: not clamped
    ASSERT_TRUE(tight.low);
    EXPECT_GT(*tight.low, 4.0);
}

TEST(Sha256, KnownVectors) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Pattern, DetectsAChangedByteAndAWrongKey) {
    std::vector<uint8_t> data(4099);
    fill_pattern(data.data(), data.size(), 42);
    EXPECT_FALSE(find_mismatch(data.data(), data.size(), 42));
    EXPECT_EQ(find_mismatch(data.data(), data.size(), 43), 0u);
    data[4097] ^= 1;
    EXPECT_EQ(find_mismatch(data.data(), data.size(), 42), 4097u);
}

TEST(Progress, SilentWhenNotATerminal) {
    std::ostringstream out;
    Progress p(out, false);
    p.begin("sweep", 3, 3);
    for (int i = 0; i < 3; ++i)
        p.step(1);
    p.end();
    EXPECT_EQ(out.str(), "");
}

TEST(Progress, DrawsStepPercentageAndTimeLeftOnATerminal) {
    std::ostringstream out;
    Progress p(out, true);
    p.begin("sweep", 2, 2);
    p.step(1);
    p.step(1);
    EXPECT_NE(out.str().find("[sweep] step 2/2 100%"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("time left"), std::string::npos);
}

TEST(Sizes, FormatBytes) {
    EXPECT_EQ(format_bytes(4096), "4 KiB");
    EXPECT_EQ(format_bytes(256ull << 20), "256 MiB");
    EXPECT_EQ(format_bytes(65), "65 B");
}
