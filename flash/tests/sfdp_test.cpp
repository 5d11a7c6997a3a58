// SFDP (JESD216) parsing: a table laid out by hand from JESD216's field definitions, the two
// simulated vendors' shapes, and each error.
#include <gtest/gtest.h>

#include "base/little_endian.hpp"
#include "flash/sfdp.hpp"
#include "flash/spi_nor.hpp"
#include "sim/quad_spi_model.hpp"

namespace {

// A DWORD at `at`, the table grown with erased bytes (0xFF) as needed.
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    if (b.size() < at + 4)
        b.resize(at + 4, 0xff);
    pdt::store_le(std::span(b).subspan(at, 4), v);
}

// JESD216 (original): SFDP 1.0, one parameter header, a 9-DWORD BFPT at 0x80 of a 16 MiB
// (128 Mbit) 3-byte flash with 4 KiB erase 0x20 and 64 KiB erase 0xD8.
std::vector<uint8_t> jesd216_example() {
    std::vector<uint8_t> b;
    put32(b, 0, 0x50444653);
    put32(b, 4, 0xff000100);             // minor 0, major 1, NPH 0, access protocol 0xFF
    put32(b, 8, 0x09010000);             // ID LSB 0x00, minor 0, major 1, 9 DWORDs
    put32(b, 12, 0xff000080);            // pointer 0x80, ID MSB 0xFF
    const uint32_t dw[9] = {0xfff120e5, 0x07ffffff, 0x6b08eb44, 0x3b08bb08, 0xffffffee,
                            0xffff0000, 0xffff0000, 0xd810200c, 0x00000000};
    for (int i = 0; i < 9; ++i)
        put32(b, 0x80 + 4 * i, dw[i]);
    return b;
}

TEST(Sfdp, Jesd216NineDwordTable) {
    auto info = flash::parse_sfdp(jesd216_example());
    ASSERT_TRUE(info) << info.error().message();
    EXPECT_EQ(info->density_bytes, 16u << 20);
    EXPECT_EQ(info->address_bytes, flash::AddressBytes::Three);
    ASSERT_EQ(info->erase_types.size(), 2u);
    EXPECT_EQ(info->erase_types[0].size, 4096u);
    EXPECT_EQ(info->erase_types[0].opcode, 0x20);
    EXPECT_EQ(info->erase_types[1].size, 65536u);
    EXPECT_EQ(info->erase_types[1].opcode, 0xD8);
    EXPECT_EQ(info->erase_4k_opcode, 0x20);
    EXPECT_EQ(info->page_size, 256u) << "a 9-DWORD table gives no page size: 256";
    ASSERT_TRUE(info->read_1_1_4);
    EXPECT_EQ(info->read_1_1_4->opcode, 0x6B);
    EXPECT_EQ(info->read_1_1_4->dummy_clocks, 8);
    EXPECT_EQ(info->quad_enable, flash::QuadEnable::None);
}

TEST(Sfdp, DensityAsPowerOfTwo) {
    auto b = jesd216_example();
    put32(b, 0x84, 0x80000000u | 33);  // 2^33 bits = 1 GiB
    EXPECT_EQ(flash::parse_sfdp(b)->density_bytes, uint64_t{1} << 30);
}

TEST(Sfdp, MicronShape) {
    auto info = flash::parse_sfdp(sim::flash_shape("mt25qu01g")->sfdp);
    ASSERT_TRUE(info) << info.error().message();
    EXPECT_EQ(info->density_bytes, 128u << 20);
    EXPECT_EQ(info->address_bytes, flash::AddressBytes::ThreeOrFour);
    EXPECT_EQ(info->page_size, 256u);
    EXPECT_EQ(info->erase_types.size(), 3u);
    EXPECT_TRUE(info->four_byte_instructions);
    EXPECT_TRUE(info->four_byte_table);
    EXPECT_TRUE(info->four_byte_program_12);
    EXPECT_EQ(info->four_byte_erase[0], 0x21);
    EXPECT_EQ(info->four_byte_erase[2], 0xDC);
    EXPECT_TRUE(info->flag_status_polling);
    EXPECT_EQ(info->quad_enable, flash::QuadEnable::None);
}

TEST(Sfdp, MacronixShape) {
    auto info = flash::parse_sfdp(sim::flash_shape("mx25l51245g")->sfdp);
    ASSERT_TRUE(info) << info.error().message();
    EXPECT_EQ(info->density_bytes, 64u << 20);
    EXPECT_EQ(info->quad_enable, flash::QuadEnable::Sr1Bit6);
    EXPECT_TRUE(info->enter_4byte_b7);
    EXPECT_FALSE(info->four_byte_instructions);
    EXPECT_FALSE(info->four_byte_table);
}

TEST(Sfdp, NoSignatureIsNoSfdp) {
    std::vector<uint8_t> erased(64, 0xff);
    auto info = flash::parse_sfdp(erased);
    ASSERT_FALSE(info);
    EXPECT_EQ(info.error().code, ENODEV);
    EXPECT_NE(info.error().message().find("no SFDP"), std::string::npos) << info.error().message();
    EXPECT_FALSE(flash::sfdp_extent(erased));
}

TEST(Sfdp, Errors) {
    auto b = jesd216_example();
    EXPECT_NE(flash::parse_sfdp(std::span(b).first(4)).error().message().find("SFDP header is 8"), std::string::npos);
    auto short_table = b;
    short_table[11] = 8;
    EXPECT_NE(flash::parse_sfdp(short_table).error().message().find("at least 9"), std::string::npos);
    auto outside = b;
    put32(outside, 12, 0xff000f00);
    EXPECT_NE(flash::parse_sfdp(outside).error().message().find("ends past"), std::string::npos);
    auto no_bfpt = b;
    no_bfpt[15] = 0x81;
    EXPECT_NE(flash::parse_sfdp(no_bfpt).error().message().find("no Basic Flash Parameter Table"), std::string::npos);
    auto reserved = b;
    put32(reserved, 0x80, 0xfff720e5);  // address bytes 11b
    EXPECT_NE(flash::parse_sfdp(reserved).error().message().find("reserved"), std::string::npos);
    auto no_erase = b;
    put32(no_erase, 0x9c, 0);
    EXPECT_NE(flash::parse_sfdp(no_erase).error().message().find("no erase type"), std::string::npos);
    auto zero = b;
    put32(zero, 0x84, 0x80000000u);
    EXPECT_NE(flash::parse_sfdp(zero).error().message().find("not a flash size"), std::string::npos);
}

TEST(Sfdp, ExtentCoversEveryTable) {
    EXPECT_EQ(*flash::sfdp_extent(jesd216_example()), 0x80u + 36);
}

TEST(Protection, DecodesVendorLayouts) {
    const uint64_t size = 128u << 20;
    EXPECT_EQ(flash::decode_protection(0x20, 0x00, 0, size).level, 0u);
    auto top = flash::decode_protection(0x20, 0x04, 0, size);  // Micron BP0
    EXPECT_EQ(top.begin, size - 0x10000);
    EXPECT_EQ(top.end, size);
    auto bottom = flash::decode_protection(0x20, 0x04 | 0x20 | 0x40, 0, size);  // BP3|BP0, TB
    EXPECT_EQ(bottom.level, 9u);
    EXPECT_TRUE(bottom.bottom);
    EXPECT_EQ(bottom.begin, 0u);
    EXPECT_EQ(bottom.end, 0x10000u << 8);
    auto all = flash::decode_protection(0xC2, 0x3c, 0, 64u << 20);  // Macronix BP=15
    EXPECT_EQ(all.begin, 0u);
    EXPECT_EQ(all.end, 64u << 20);
    EXPECT_EQ(flash::decode_protection(0xC2, 0x04, 0x08, 64u << 20).describe(), "BP=1 bottom: 0x0..0xffff");
}

}  // namespace
