// bitstream::parse on the synthetic bitstream: header fields, every packet, IDCODE -> part,
// the compressed and encrypted flags, .bin input and the SLR sections of an SSI bitstream.
#include <gtest/gtest.h>

#include <cerrno>

#include "bitstream/bitstream.hpp"
#include "bitstream/parts.hpp"
#include "bitstream_image.hpp"

namespace {

using bitstream::Opcode;
using bitstream::PacketType;
using bitstream_test::Image;
using bitstream_test::ImageSpec;

bitstream::Bitstream parsed(const Image& image) {
    auto result = bitstream::parse(image.bytes);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message());
    return result.ok() ? *result : bitstream::Bitstream{};
}

TEST(BitstreamParse, HeaderFields) {
    const Image image = bitstream_test::make_image();
    const auto b = parsed(image);
    ASSERT_TRUE(b.header);
    EXPECT_EQ(b.header->design_name, "pcie_dma_top;UserID=0XFFFFFFFF;Version=2023.2");
    EXPECT_EQ(b.header->design, "pcie_dma_top");
    EXPECT_EQ(b.header->user_id, "0XFFFFFFFF");
    EXPECT_EQ(b.header->version, "2023.2");
    EXPECT_FALSE(b.header->compress_mark);
    EXPECT_EQ(b.header->part, "7a200tfbg484");
    EXPECT_EQ(b.header->date, "2026/12/04");
    EXPECT_EQ(b.header->time, "17:30:00");
    EXPECT_EQ(b.header->data_offset, image.data_offset);
    EXPECT_EQ(b.data_offset, image.data_offset);
    EXPECT_EQ(b.data_length, image.bytes.size() - image.data_offset);
    EXPECT_EQ(b.header->data_length, b.data_length);
}

TEST(BitstreamParse, PreambleAndSync) {
    const Image image = bitstream_test::make_image();
    const auto c = parsed(image).configuration;
    EXPECT_EQ(c.dummy_words, 8u);
    ASSERT_TRUE(c.bus_width_offset);
    EXPECT_EQ(*c.bus_width_offset, image.bus_width_at);
    ASSERT_EQ(c.sync_offsets.size(), 1u);
    EXPECT_EQ(c.sync_offsets[0], image.sync_at);
}

// Every packet, in order: offset, type, opcode, register, word count, the short writes' words.
TEST(BitstreamParse, EveryPacket) {
    const Image image = bitstream_test::make_image();
    const auto c = parsed(image).configuration;
    ASSERT_EQ(c.packets.size(), image.packet_count);
    struct Expected {
        PacketType type;
        Opcode opcode;
        const char* reg;
        uint32_t count;
        std::vector<uint32_t> words;
    };
    const uint32_t frame_words = 3 * bitstream_test::kFrameWords;
    const std::vector<Expected> expected{
        {PacketType::type1, Opcode::NOP, "CRC", 0, {}},
        {PacketType::type1, Opcode::write, "CMD", 1, {0x07}},
        {PacketType::type1, Opcode::NOP, "CRC", 0, {}},
        {PacketType::type1, Opcode::write, "COR0", 1, {0x02003FE5}},
        {PacketType::type1, Opcode::write, "IDCODE", 1, {0x03636093}},
        {PacketType::type1, Opcode::write, "FAR", 1, {0}},
        {PacketType::type1, Opcode::write, "CMD", 1, {0x01}},
        {PacketType::type1, Opcode::NOP, "CRC", 0, {}},
        {PacketType::type1, Opcode::write, "FDRI", 0, {}},
        {PacketType::type2, Opcode::write, "FDRI", frame_words, {}},
        {PacketType::type1, Opcode::write, "CRC", 1, {0x5A5A1234}},
        {PacketType::type1, Opcode::write, "CMD", 1, {0x05}},
        {PacketType::type1, Opcode::write, "CMD", 1, {0x0D}},
        {PacketType::type1, Opcode::NOP, "CRC", 0, {}},
        {PacketType::type1, Opcode::NOP, "CRC", 0, {}},
    };
    ASSERT_EQ(c.packets.size(), expected.size());
    size_t offset = image.sync_at + 4;
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto& p = c.packets[i];
        SCOPED_TRACE("packet " + std::to_string(i));
        EXPECT_EQ(p.offset, offset);
        EXPECT_EQ(p.type, expected[i].type);
        EXPECT_EQ(p.opcode, expected[i].opcode);
        EXPECT_EQ(p.register_name(), expected[i].reg);
        EXPECT_EQ(p.word_count, expected[i].count);
        EXPECT_EQ(p.words, expected[i].words);
        offset += 4 + (p.opcode == Opcode::write ? 4 * p.word_count : 0);
    }
    EXPECT_EQ(c.packets[9].offset, image.fdri_type2_at);
    EXPECT_EQ(c.packets[12].offset, image.desync_at);
    EXPECT_EQ(c.packets[12].command(), 0x0Du);
    EXPECT_TRUE(c.desync_seen);
    EXPECT_EQ(c.end_offset, image.bytes.size());
    EXPECT_EQ(c.trailing_bytes, 0u);
}

TEST(BitstreamParse, IdcodeAndPart) {
    const auto c = parsed(bitstream_test::make_image()).configuration;
    ASSERT_TRUE(c.idcode);
    EXPECT_EQ(*c.idcode, 0x03636093u);
    EXPECT_STREQ(bitstream::part_for_idcode(*c.idcode)->name, "XC7A200T");
}

TEST(BitstreamParts, TableOfTheDesignsParts) {
    EXPECT_STREQ(bitstream::part_for_idcode(0x0364C093)->name, "XC7K160T");
    EXPECT_STREQ(bitstream::part_for_idcode(0x0362C093)->name, "XC7A50T");
    EXPECT_STREQ(bitstream::part_for_idcode(0x0362D093)->name, "XC7A35T");
    EXPECT_STREQ(bitstream::part_for_idcode(0x04A62093)->name, "XCKU5P");
    EXPECT_STREQ(bitstream::part_for_idcode(0x04B31093)->name, "XCVU9P");
    EXPECT_STREQ(bitstream::part_for_idcode(0x04B37093)->name, "XCU200");
    EXPECT_STREQ(bitstream::part_for_idcode(0x04B71093)->name, "XCVU35P");
    // The revision [31:28] is not compared; [27:0] is.
    EXPECT_STREQ(bitstream::part_for_idcode(0x23636093)->name, "XC7A200T");
    EXPECT_FALSE(bitstream::part_for_idcode(0x03636092));
    EXPECT_EQ(bitstream::part_name(0x01234093), "unknown part");
    // No IDCODE twice in the table (revision aside).
    const auto parts = bitstream::known_parts();
    for (size_t i = 0; i < parts.size(); ++i)
        for (size_t j = i + 1; j < parts.size(); ++j)
            EXPECT_NE(parts[i].idcode & 0x0FFFFFFF, parts[j].idcode & 0x0FFFFFFF) << parts[i].name << " " << parts[j].name;
}

TEST(BitstreamParse, PlainIsNeitherCompressedNorEncrypted) {
    const auto c = parsed(bitstream_test::make_image()).configuration;
    EXPECT_FALSE(c.compressed);
    EXPECT_FALSE(c.encrypted);
}

TEST(BitstreamParse, CompressedVariant) {
    ImageSpec spec;
    spec.compressed = true;
    spec.design_name = "top;COMPRESS=TRUE;UserID=0XFFFFFFFF;Version=2023.2";
    const auto b = parsed(bitstream_test::make_image(spec));
    EXPECT_TRUE(b.configuration.compressed);
    EXPECT_FALSE(b.configuration.encrypted);
    EXPECT_TRUE(b.header->compress_mark);
}

TEST(BitstreamParse, EncryptedVariant) {
    ImageSpec spec;
    spec.encrypted = true;
    const auto c = parsed(bitstream_test::make_image(spec)).configuration;
    EXPECT_TRUE(c.encrypted);
    EXPECT_FALSE(c.compressed);
}

// CTL0's DEC counts only where MASK lets the write through (UG470: CTL0 writes are masked).
TEST(BitstreamParse, Ctl0DecUnderMaskOnly) {
    // Sync, MASK = 0 (DEC masked off), CTL0 = DEC, DESYNC.
    const std::vector<uint8_t> masked{0xAA, 0x99, 0x55, 0x66, 0x30, 0x00, 0xC0, 0x01, 0x00, 0x00, 0x00, 0x00,
                                      0x30, 0x00, 0xA0, 0x01, 0x00, 0x00, 0x00, 0x40};
    auto result = bitstream::parse(masked);
    ASSERT_TRUE(result.ok()) << result.error().message();
    EXPECT_FALSE(result->configuration.encrypted);
    auto unmasked = masked;
    unmasked[11] = 0x40;
    result = bitstream::parse(unmasked);
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result->configuration.encrypted);
}

TEST(BitstreamParse, BinInput) {
    ImageSpec spec;
    spec.with_header = false;
    const Image image = bitstream_test::make_image(spec);
    const auto b = parsed(image);
    EXPECT_FALSE(b.header);
    EXPECT_EQ(b.data_offset, 0u);
    EXPECT_EQ(b.data_length, image.bytes.size());
    EXPECT_EQ(b.configuration.sync_offsets.at(0), image.sync_at);
    EXPECT_EQ(b.configuration.packets.size(), image.packet_count);
    EXPECT_EQ(*b.configuration.idcode, 0x03636093u);
}

// Erased flash after the end of configuration is padding, not packets.
TEST(BitstreamParse, PaddingAfterDesync) {
    ImageSpec spec;
    spec.with_header = false;
    Image image = bitstream_test::make_image(spec);
    image.bytes.insert(image.bytes.end(), 64, 0xFF);
    const auto c = parsed(image).configuration;
    EXPECT_EQ(c.packets.size(), image.packet_count);
    EXPECT_EQ(c.trailing_bytes, 64u);
    EXPECT_EQ(c.end_offset, image.bytes.size() - 64);
}

// An SSI device's bitstream: a second Sync word after DESYNC starts the next SLR's packets.
TEST(BitstreamParse, SecondSyncWordStartsAnSlrSection) {
    ImageSpec spec;
    spec.with_header = false;
    spec.trailing_nops = 1;
    Image first = bitstream_test::make_image(spec);
    spec.dummy_words = 0;
    const Image second = bitstream_test::make_image(spec);
    const size_t second_sync = first.bytes.size();
    first.bytes.insert(first.bytes.end(), second.bytes.begin() + static_cast<ptrdiff_t>(second.sync_at), second.bytes.end());
    const auto c = parsed(first).configuration;
    ASSERT_EQ(c.sync_offsets.size(), 2u);
    EXPECT_EQ(c.sync_offsets[1], second_sync);
    EXPECT_EQ(c.packets.size(), first.packet_count + second.packet_count);
    EXPECT_EQ(c.packets.back().section, 1u);
    EXPECT_EQ(c.packets.front().section, 0u);
}

// As fpga_sio saw an XCU200's: DESYNC, a Sync word, then the next SLR's dummy words, bus width
// pattern and its own Sync word before its packets. The section is that SLR's Sync word's.
TEST(BitstreamParse, SlrPreambleAfterTheSyncWordIsSkipped) {
    ImageSpec spec;
    spec.with_header = false;
    Image first = bitstream_test::make_image(spec);
    const std::vector<uint8_t> sync{0xAA, 0x99, 0x55, 0x66};
    first.bytes.insert(first.bytes.end(), sync.begin(), sync.end());
    const size_t second_at = first.bytes.size();
    spec.idcode = 0x04B37093;
    const Image second = bitstream_test::make_image(spec);
    first.bytes.insert(first.bytes.end(), second.bytes.begin(), second.bytes.end());
    const auto c = parsed(first).configuration;
    ASSERT_EQ(c.sync_offsets.size(), 2u);
    EXPECT_EQ(c.sync_offsets[1], second_at + second.sync_at);
    EXPECT_EQ(c.packets.size(), first.packet_count + second.packet_count);
    EXPECT_EQ(c.packets[first.packet_count].offset, second_at + second.sync_at + 4);
    EXPECT_EQ(*c.idcode, 0x04B37093u);  // the last IDCODE write
    EXPECT_EQ(*bitstream::first_idcode(first.bytes), 0x03636093u);
    EXPECT_EQ(c.trailing_bytes, 0u);
}

}  // namespace

namespace {

// first_idcode: parsed only up to the IDCODE write, what follows is never looked at.
TEST(BitstreamFirstIdcode, FromTheWholeFileAndFromItsStart) {
    const Image image = bitstream_test::make_image();
    auto idcode = bitstream::first_idcode(image.bytes);
    ASSERT_TRUE(idcode.ok()) << idcode.error().message();
    EXPECT_EQ(*idcode, 0x03636093u);

    ImageSpec spec;
    spec.with_header = false;
    spec.idcode = 0x04A62093;
    auto start = bitstream_test::make_image(spec).bytes;
    start.resize(start.size() / 2);            // cut inside the frame data
    start.insert(start.end(), 40, 0x17);       // then words that are no packet
    idcode = bitstream::first_idcode(start);
    ASSERT_TRUE(idcode.ok()) << idcode.error().message();
    EXPECT_EQ(*idcode, 0x04A62093u);
    EXPECT_FALSE(bitstream::parse(start).ok());  // the whole parse does look at them
}

TEST(BitstreamFirstIdcode, NoneWrittenIsEnoentAtTheEnd) {
    // Sync, NOP, CMD DESYNC: no IDCODE.
    const std::vector<uint8_t> bytes{0xAA, 0x99, 0x55, 0x66, 0x20, 0x00, 0x00, 0x00,
                                     0x30, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x0D};
    const auto idcode = bitstream::first_idcode(bytes);
    ASSERT_FALSE(idcode.ok());
    EXPECT_EQ(idcode.error().code, ENOENT);
    EXPECT_EQ(idcode.error().operation, "find IDCODE");
    EXPECT_EQ(idcode.error().object, "byte offset 0x10");
    EXPECT_EQ(idcode.error().hint, "the bitstream's packets write no IDCODE before DESYNC");
}

TEST(BitstreamFirstIdcode, CorruptBeforeItIsTheParseError) {
    const std::vector<uint8_t> erased(64, 0xFF);
    const auto idcode = bitstream::first_idcode(erased);
    ASSERT_FALSE(idcode.ok());
    EXPECT_EQ(idcode.error().code, EINVAL);
    EXPECT_EQ(idcode.error().object, "byte offset 0x0");
}

}  // namespace
