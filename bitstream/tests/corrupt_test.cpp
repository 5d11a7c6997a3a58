// A truncated or corrupt bitstream is EINVAL naming the byte offset where it goes wrong.
#include <gtest/gtest.h>

#include <cerrno>

#include "base/format.hpp"
#include "bitstream/bitstream.hpp"
#include "bitstream_image.hpp"

namespace {

using bitstream_test::Image;
using bitstream_test::ImageSpec;

// The error parse gives, which must be EINVAL at `offset` with `hint_part` in its hint.
void expect_corrupt(const std::vector<uint8_t>& bytes, size_t offset, const std::string& hint_part) {
    const auto result = bitstream::parse(bytes);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, EINVAL);
    EXPECT_EQ(result.error().operation, "parse bitstream");
    EXPECT_EQ(result.error().object, "byte offset " + pdt::hex(offset));
    EXPECT_NE(result.error().hint.find(hint_part), std::string::npos) << result.error().message();
}

Image bin_image() {
    ImageSpec spec;
    spec.with_header = false;
    return bitstream_test::make_image(spec);
}

TEST(BitstreamCorrupt, HeaderFieldLengthPastTheEnd) {
    Image image = bitstream_test::make_image();
    image.bytes[image.b_length_at] = 0x7F;  // 'b' length 0x7f0d
    expect_corrupt(image.bytes, image.b_length_at, "the 'b' field's length");
}

TEST(BitstreamCorrupt, HeaderCutInsideAField) {
    const Image image = bitstream_test::make_image();
    const std::vector<uint8_t> cut(image.bytes.begin(), image.bytes.begin() + static_cast<ptrdiff_t>(image.b_length_at + 1));
    expect_corrupt(cut, image.b_length_at, "the 'b' field's length needs 2 bytes, 1 left");
}

TEST(BitstreamCorrupt, DataLengthPastTheEnd) {
    Image image = bitstream_test::make_image();
    image.bytes.resize(image.bytes.size() - 4);  // a .bit cut short
    expect_corrupt(image.bytes, image.e_length_at, "the 'e' field's data length");
}

TEST(BitstreamCorrupt, StringWithoutNul) {
    Image image = bitstream_test::make_image();
    image.bytes[image.e_length_at - 2] = 'X';  // the 'd' field's NUL, before 'e'
    const size_t d_length_at = image.e_length_at - 1 - 9 - 2;  // key 'e', "17:30:00" and its NUL, the length
    expect_corrupt(image.bytes, d_length_at, "the 'd' field is not a NUL-terminated string");
}

TEST(BitstreamCorrupt, UnknownHeaderKey) {
    Image image = bitstream_test::make_image();
    image.bytes[image.e_length_at - 1] = 'z';
    expect_corrupt(image.bytes, image.e_length_at - 1, "unknown header field key 0x7a");
}

TEST(BitstreamCorrupt, WrongPreambleLength) {
    Image image = bitstream_test::make_image();
    image.bytes[13] = 0x00;  // the length before 'a' (0x0001) at bytes 11-12 stays; the key goes
    image.bytes[12] = 0x02;
    expect_corrupt(image.bytes, 11, "the length before the first key is not 0x0001");
}

TEST(BitstreamCorrupt, NoSyncWord) {
    const std::vector<uint8_t> erased(256, 0xFF);
    expect_corrupt(erased, 0, "no Sync word 0xAA995566 in the 256 bytes");
    Image image = bitstream_test::make_image();
    image.bytes[image.sync_at + 3] = 0x67;
    expect_corrupt(image.bytes, image.data_offset, "no Sync word");
}

TEST(BitstreamCorrupt, WordCountPastTheEnd) {
    Image image = bin_image();
    image.bytes.resize(image.fdri_type2_at + 4 + 40);  // 10 of the 303 frame words
    expect_corrupt(image.bytes, image.fdri_type2_at, "the packet's word count 303 runs past the end (10 words left)");
}

TEST(BitstreamCorrupt, Type1WordCountPastTheEnd) {
    Image image = bin_image();
    image.bytes.resize(image.desync_at + 4);  // CMD header without its word
    expect_corrupt(image.bytes, image.desync_at, "the packet's word count 1 runs past the end (0 words left)");
}

TEST(BitstreamCorrupt, Type2NotAfterType1) {
    Image image = bin_image();
    // The first packet after the Sync word becomes a type 2 header (0x50000000: no words).
    const size_t first = image.sync_at + 4;
    image.bytes[first] = 0x50;
    expect_corrupt(image.bytes, first, "type 2 packet header 0x50000000 does not follow a type 1 packet");
}

TEST(BitstreamCorrupt, Type2AfterType2) {
    Image image = bin_image();
    // A second type 2 header right after the frame data.
    const size_t after = image.fdri_type2_at + 4 + 4 * 3 * bitstream_test::kFrameWords;
    for (size_t i = 0; i < 4; ++i)
        image.bytes[after + i] = i == 0 ? 0x50 : 0x00;
    expect_corrupt(image.bytes, after, "does not follow a type 1 packet");
}

TEST(BitstreamCorrupt, UnknownHeaderType) {
    Image image = bin_image();
    const size_t first = image.sync_at + 4;
    image.bytes[first] = 0x80;  // header type 4
    expect_corrupt(image.bytes, first, "has header type 4 (a packet is type 1 or type 2)");
}

}  // namespace
