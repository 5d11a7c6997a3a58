// The Serial Flash Discoverable Parameters of a SPI NOR flash (JESD216, read with opcode 0x5A):
// the SFDP header, the parameter headers, and the Basic Flash Parameter Table (BFPT) with what
// this toolkit needs of it: density, erase types, page size, address bytes, the 1-1-4 fast read,
// status polling, quad enable requirements and how to enter 4-byte addressing. Nothing here
// knows a part by name: a flash without SFDP is an error, not a table lookup.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace flash {

// JESD216 6.2.1: the SFDP signature "SFDP" read as a little-endian DWORD at SFDP address 0.
inline constexpr uint32_t kSfdpSignature = 0x50444653;
// JESD216 6.2.2/6.3: parameter ID of the BFPT (MSB 0xFF, LSB 0x00) and of the 4-byte Address
// Instruction Table (JESD216B 6.4.x: 0xFF84).
inline constexpr uint16_t kBfptId = 0xFF00;
inline constexpr uint16_t kFourByteAddressTableId = 0xFF84;
// The header and parameter headers of a flash with at most this many parameter headers fit in
// the first read; every table must lie within kSfdpMaxBytes of SFDP space.
inline constexpr size_t kSfdpMaxBytes = 4096;

// JESD216 6.3.2 parameter header.
struct ParameterHeader {
    uint16_t id = 0;            // MSB (byte 7) << 8 | LSB (byte 0)
    uint8_t major = 0, minor = 0;
    uint8_t length_dwords = 0;  // byte 3
    uint32_t pointer = 0;       // bytes 4..6, the table's SFDP byte address (DWORD aligned)
};

// BFPT DWORD 1 bits 18:17.
enum class AddressBytes { Three, ThreeOrFour, Four };
const char* to_string(AddressBytes bytes);  // "3", "3 or 4", "4"

struct EraseType {
    uint32_t size = 0;  // bytes (2^N of DWORD 8/9)
    uint8_t opcode = 0;
};

// BFPT DWORD 15 bits 22:20 (JESD216A and later): where the Quad Enable bit is.
enum class QuadEnable : uint8_t {
    None = 0,                   // 000: no QE bit; quad I/O needs no enable
    Sr2Bit1WriteSr1Sr2 = 1,     // 001: QE is bit 1 of status register 2, written with 0x01 (2 bytes)
    Sr1Bit6 = 2,                // 010: QE is bit 6 of status register 1 (0x05/0x01)
    Sr2Bit7 = 3,                // 011: QE is bit 7 of status register 2 (0x3F/0x3E)
    Sr2Bit1WriteSr1Sr2NoCheck = 4,  // 100: bit 1 of SR2, 0x01 with 2 bytes
    Sr2Bit1Read35Write01 = 5,   // 101: bit 1 of SR2, read 0x35, write 0x01 with 2 bytes
    Sr2Bit1Read35Write31 = 6,   // 110: bit 1 of SR2, read 0x35, write 0x31
    Reserved = 7,
};
std::string describe(QuadEnable qe);

struct FastRead {
    uint8_t opcode = 0;
    uint8_t dummy_clocks = 0;  // wait states
    uint8_t mode_clocks = 0;
};

struct SfdpInfo {
    uint8_t major = 0, minor = 0;  // SFDP revision (header bytes 5, 4)
    std::vector<ParameterHeader> headers;
    uint8_t bfpt_major = 0, bfpt_minor = 0, bfpt_dwords = 0;
    uint64_t density_bytes = 0;      // DWORD 2
    AddressBytes address_bytes = AddressBytes::Three;  // DWORD 1
    std::optional<uint8_t> erase_4k_opcode;  // DWORD 1 bits 1:0 = 01, opcode bits 15:8
    std::vector<EraseType> erase_types;      // DWORD 8/9, the types present (size != 0), in table order
    uint32_t page_size = 256;                // DWORD 11 bits 7:4 (2^N); 256 when the table is older
    std::optional<FastRead> read_1_1_4;      // DWORD 1 bit 22, DWORD 3 bits 31:16
    QuadEnable quad_enable = QuadEnable::None;  // DWORD 15 (none when the table is shorter)
    bool flag_status_polling = false;        // DWORD 14 bit 3 (0x70 bit 7), else legacy 0x05 WIP
    bool enter_4byte_b7 = false;             // DWORD 16 bit 24: issue 0xB7
    bool enter_4byte_wren_b7 = false;        // DWORD 16 bit 25: 0x06 then 0xB7
    bool four_byte_instructions = false;     // DWORD 16 bit 29: a dedicated 4-byte instruction set
    bool always_4byte = false;               // DWORD 16 bit 30
    // The 4-byte Address Instruction Table (0xFF84) when present: DWORD 1 bit 6 page program
    // 0x12, bit 0 read 0x13; DWORD 1 bits 12:9 erase types 1..4, DWORD 2 their 4-byte opcodes.
    bool four_byte_table = false;
    bool four_byte_read_13 = false, four_byte_program_12 = false;
    std::array<std::optional<uint8_t>, 4> four_byte_erase{};

    // The erase type of this size, if the flash has one.
    std::optional<EraseType> erase_of_size(uint32_t size) const;
};

// How much of SFDP space the header at `first` (its first 8 + 8 * 256 bytes or fewer) says
// must be read to hold every table: at most kSfdpMaxBytes. Errors: no 'SFDP' signature.
pdt::Result<size_t> sfdp_extent(std::span<const uint8_t> first);
// Parses SFDP space read from address 0. Errors (EINVAL unless said): too short; signature
// missing (ENODEV: "no SFDP"); no BFPT; a table out of the bytes given; a BFPT shorter than
// 9 DWORDs; density 0 or over 2^40 bytes; no erase type; a reserved address-bytes value.
pdt::Result<SfdpInfo> parse_sfdp(std::span<const uint8_t> bytes);

}  // namespace flash
