#include <gtest/gtest.h>

#include "designs/design.hpp"

using designs::BuildTimestamp;

// The three USR_ACCESS values and their decoding printed by fpga_sio in seed 004.
TEST(BuildTimestamp, DecodesTheSeedValues) {
    EXPECT_EQ(BuildTimestamp::decode(0xC1310413).to_string(), "24/02/2024 16:16:19");
    EXPECT_EQ(BuildTimestamp::decode(0xF5B0E950).to_string(), "30/11/2024 14:37:16");
    EXPECT_EQ(BuildTimestamp::decode(0xC1310A5B).to_string(), "24/02/2024 16:41:27");
}

TEST(BuildTimestamp, FieldsSitAtTheirBitPositions) {
    // day[31:27] month[26:23] year-2000[22:17] hour[16:12] minute[11:6] second[5:0]
    EXPECT_EQ(BuildTimestamp::decode(1u << 27).day, 1u);
    EXPECT_EQ(BuildTimestamp::decode(1u << 23).month, 1u);
    EXPECT_EQ(BuildTimestamp::decode(1u << 17).year, 2001u);
    EXPECT_EQ(BuildTimestamp::decode(1u << 12).hour, 1u);
    EXPECT_EQ(BuildTimestamp::decode(1u << 6).minute, 1u);
    EXPECT_EQ(BuildTimestamp::decode(1u).second, 1u);
    const BuildTimestamp max = BuildTimestamp::decode(0xffffffff);
    EXPECT_EQ(max.day, 31u);
    EXPECT_EQ(max.month, 15u);
    EXPECT_EQ(max.year, 2063u);
    EXPECT_EQ(max.hour, 31u);
    EXPECT_EQ(max.minute, 63u);
    EXPECT_EQ(max.second, 63u);
}

TEST(BuildTimestamp, EncodeInvertsDecode) {
    for (uint32_t value : {0xC1310413u, 0xF5B0E950u, 0xC1310A5Bu, 0x0u, 0xffffffffu})
        EXPECT_EQ(BuildTimestamp::decode(value).encode(), value);
    EXPECT_EQ((BuildTimestamp{24, 2, 2024, 16, 16, 19}.encode()), 0xC1310413u);
}

TEST(BuildTimestamp, PlausibleRejectsImpossibleDates) {
    EXPECT_TRUE(BuildTimestamp::decode(0xC1310413).plausible());
    EXPECT_FALSE(BuildTimestamp::decode(0x0).plausible()) << "day 0, month 0";
    EXPECT_FALSE(BuildTimestamp::decode(0xffffffff).plausible());
}
