// The .bin for SPI flash against the one bitstream_image.cpp writes from the document, byte for byte.
#include <gtest/gtest.h>

#include "bitstream/spi_bin.hpp"
#include "bitstream_image.hpp"

namespace {

using bitstream_test::ImageSpec;

// The first byte where two images differ, for a failure message ("" when equal).
std::string first_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (got[i] != want[i])
            return "byte " + std::to_string(i) + ": " + std::to_string(got[i]) + " != " + std::to_string(want[i]);
    return got.size() == want.size() ? "" : "sizes " + std::to_string(got.size()) + " != " + std::to_string(want.size());
}

void expect_bin(const ImageSpec& spec) {
    const auto image = bitstream_test::make_image(spec);
    const auto parsed = bitstream::parse(image.bytes);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    const auto bin = bitstream::spi_flash_bin(*parsed, image.bytes);
    const auto expected = bitstream_test::expected_spi_bin(spec);
    EXPECT_EQ(first_difference(bin, expected), "");
    // The .bin is the configuration data alone: the Sync word's bytes as the file has them.
    ASSERT_GE(bin.size(), spec.dummy_words * 4 + 20);
    const size_t sync = spec.dummy_words * 4 + 16;
    EXPECT_EQ(std::vector<uint8_t>(bin.begin() + static_cast<ptrdiff_t>(sync), bin.begin() + static_cast<ptrdiff_t>(sync + 4)),
              (std::vector<uint8_t>{0xAA, 0x99, 0x55, 0x66}));
}

TEST(SpiFlashBin, PlainByteForByte) { expect_bin({}); }

TEST(SpiFlashBin, CompressedAndEncryptedByteForByte) {
    ImageSpec spec;
    spec.compressed = true;
    spec.encrypted = true;
    spec.frames = 5;
    expect_bin(spec);
}

// A .bin input is written back unchanged.
TEST(SpiFlashBin, BinInputUnchanged) {
    ImageSpec spec;
    spec.with_header = false;
    const auto image = bitstream_test::make_image(spec);
    const auto parsed = bitstream::parse(image.bytes);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(bitstream::spi_flash_bin(*parsed, image.bytes), bitstream_test::expected_spi_bin(spec));
}

TEST(SpiFlashBin, PaddedWithErasedBytes) {
    const auto image = bitstream_test::make_image();
    const auto parsed = bitstream::parse(image.bytes);
    ASSERT_TRUE(parsed.ok());
    const auto expected = bitstream_test::expected_spi_bin();
    const auto bin = bitstream::spi_flash_bin(*parsed, image.bytes, {false, 4096});
    ASSERT_EQ(bin.size() % 4096, 0u);
    ASSERT_GT(bin.size(), expected.size());
    EXPECT_EQ(first_difference(std::vector<uint8_t>(bin.begin(), bin.begin() + static_cast<ptrdiff_t>(expected.size())), expected), "");
    for (size_t i = expected.size(); i < bin.size(); ++i)
        ASSERT_EQ(bin[i], 0xFF) << "byte " << i;
}

// UG570 "Parallel Bus Bit Order", Table 1: the Sync word bit-swapped is 0x55 0x99 0xAA 0x66.
TEST(SpiFlashBin, BitSwapForSelectMapOnly) {
    EXPECT_EQ(bitstream::bit_swapped(0xAA), 0x55);
    EXPECT_EQ(bitstream::bit_swapped(0x99), 0x99);
    EXPECT_EQ(bitstream::bit_swapped(0x55), 0xAA);
    EXPECT_EQ(bitstream::bit_swapped(0x66), 0x66);
    EXPECT_EQ(bitstream::bit_swapped(0x01), 0x80);
    const auto image = bitstream_test::make_image();
    const auto parsed = bitstream::parse(image.bytes);
    ASSERT_TRUE(parsed.ok());
    const auto swapped = bitstream::spi_flash_bin(*parsed, image.bytes, {true, 0});
    const size_t sync = 8 * 4 + 16;
    EXPECT_EQ(std::vector<uint8_t>(swapped.begin() + sync, swapped.begin() + sync + 4),
              (std::vector<uint8_t>{0x55, 0x99, 0xAA, 0x66}));
}

}  // namespace
