#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "stream_tools/card_dma.hpp"
#include "stream_tools/memory_tests.hpp"

namespace {

using namespace std::chrono_literals;

TEST(MemoryAddressing, OffsetsArePowersOfTwo) {
    EXPECT_EQ(stream_tools::alias_offsets(64), (std::vector<uint64_t>{0, 8, 16, 32}));
    EXPECT_EQ(stream_tools::alias_offsets(8), (std::vector<uint64_t>{0}));
    EXPECT_EQ(stream_tools::alias_offsets(0x200000).size(), 19u);
}

// A card memory that ignores address bit `bit`: what is written at 2^bit lands on 0.
std::vector<uint64_t> read_aliased(const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& written,
                                   unsigned bit) {
    std::map<uint64_t, uint64_t> memory;
    for (size_t i = 0; i < offsets.size(); ++i)
        memory[offsets[i] & ~(uint64_t{1} << bit)] = written[i];
    std::vector<uint64_t> read;
    for (uint64_t offset : offsets)
        read.push_back(memory[offset & ~(uint64_t{1} << bit)]);
    return read;
}

TEST(MemoryAddressing, NamesTheUndecodedAddressBit) {
    const auto offsets = stream_tools::alias_offsets(1 << 20);
    std::vector<uint64_t> written;
    for (size_t i = 0; i < offsets.size(); ++i)
        written.push_back(0x1111111100000000ull + i);
    EXPECT_FALSE(stream_tools::analyse_aliasing(offsets, written, written).has_value());
    const auto problem = stream_tools::analyse_aliasing(offsets, written, read_aliased(offsets, written, 19));
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(*problem, "card offset 0x0 reads the value written at offset 0x80000: address bit 19 is not decoded "
                        "(aliasing)");
    auto corrupt = written;
    corrupt[3] ^= 0x100;
    EXPECT_EQ(*stream_tools::analyse_aliasing(offsets, written, corrupt),
              "card offset 0x20 read 0x1111111100000103 expected 0x1111111100000003");
}

// An IP whose Alignments register asks for 64-byte lengths: 64-byte words at 0 and at every
// power of two from 64; an undecoded address bit is still named, and a corrupt byte anywhere in
// a word is found.
TEST(MemoryAddressing, WordsAsWideAsTheAlignmentsNeed) {
    EXPECT_EQ(stream_tools::alias_offsets(0x200, 64), (std::vector<uint64_t>{0, 64, 128, 256}));
    xdma::ChannelInfo h2c, c2h;
    EXPECT_EQ(stream_tools::addressing_word_bytes(h2c, c2h), 8u);
    c2h.length_granularity = 64;
    EXPECT_EQ(stream_tools::addressing_word_bytes(h2c, c2h), 64u);
    h2c.address_alignment = 96;
    EXPECT_EQ(stream_tools::addressing_word_bytes(h2c, c2h), 128u);

    const auto offsets = stream_tools::alias_offsets(1 << 20, 64);
    std::vector<uint8_t> written(offsets.size() * 64);
    for (size_t i = 0; i < written.size(); ++i)
        written[i] = static_cast<uint8_t>(i * 7 + i / 64);
    EXPECT_FALSE(stream_tools::analyse_aliasing(offsets, written.data(), written.data(), 64).has_value());
    // Address bit 12 not decoded: offsets 0 and 0x1000 both read what was written last, at 0x1000.
    ASSERT_EQ(offsets[7], 0x1000u);
    std::vector<uint8_t> read = written;
    std::copy_n(written.begin() + 7 * 64, 64, read.begin());
    EXPECT_EQ(*stream_tools::analyse_aliasing(offsets, written.data(), read.data(), 64),
              "card offset 0x0 reads the value written at offset 0x1000: address bit 12 is not decoded (aliasing)");
    std::vector<uint8_t> corrupt = written;
    corrupt[2 * 64 + 40] ^= 1;  // offset 0x80, byte 40: the lane at 0x80 + 40
    const auto problem = stream_tools::analyse_aliasing(offsets, written.data(), corrupt.data(), 64);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->rfind("card offset 0xa8 read 0x", 0), 0u) << *problem;
}

// fpga_sio's Min / Mean / Max lines (Min and Max only from two transfers on); F14: no rate from
// an interval under 10 ms or 1 MiB, the figure says what was measured instead.
TEST(TransferTiming, ReportsMinMeanMaxAsFpgaSioAndNoRateOverTooShortAnInterval) {
    struct Case {
        uint64_t bytes;
        std::vector<std::chrono::milliseconds> times;
        const char* figures;
    };
    const Case cases[] = {
        {10000000, {10ms, 20ms, 40ms},
         "   Min = 250.000000 (Mbytes/sec)\n  Mean = 428.571429 (Mbytes/sec)\n   Max = 1000.000000 (Mbytes/sec)\n"},
        {10000000, {20ms}, "  Mean = 500.000000 (Mbytes/sec)\n"},
        {10000000, {5ms, 20ms},
         "   Min = 500.000000 (Mbytes/sec)\n  Mean = 800.000000 (Mbytes/sec)\n"
         "   Max: too short for a rate (10000000 bytes in 0.005000 s)\n"},
        {4096, std::vector<std::chrono::milliseconds>(1000, 20ms),
         "   Min: too short for a rate (4096 bytes in 0.020000 s)\n  Mean = 0.204800 (Mbytes/sec)\n"
         "   Max: too short for a rate (4096 bytes in 0.020000 s)\n"},
    };
    for (const Case& c : cases) {
        stream_tools::TransferTiming timing("host-to-card DMA", c.bytes);
        for (auto t : c.times)
            timing.add(t);
        EXPECT_EQ(timing.report(), "host-to-card DMA timing for " + std::to_string(c.times.size()) + " transfers of " +
                                       std::to_string(c.bytes) + " bytes:\n" + c.figures);
    }
}

}  // namespace
