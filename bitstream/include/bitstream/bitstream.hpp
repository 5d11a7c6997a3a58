// A Xilinx 7 series / UltraScale(+) bitstream, as a .bit file (Vivado's write_bitstream: a
// field-length-prefixed header, then the configuration data) or a .bin file (the configuration
// data alone, write_bitstream -bin_file): its header fields, the dummy and bus width detection
// words, the Sync word, every configuration packet (UG470 chapter 5 "Configuration Packets",
// UG570 "Configuration Packets"), the IDCODE the bitstream checks and whether it is compressed or encrypted.
//
//   auto file = pdt::read_text_file(path, ...);
//   auto parsed = bitstream::parse(bitstream::bytes(*file));
//   if (parsed && parsed->idcode) { auto part = bitstream::part_for_idcode(*parsed->idcode); ... }
//
// A truncated or corrupt input is EINVAL, the Error's object naming the byte offset in the file
// ("byte offset 0x1c") and its hint what is wrong there. Versal PDI files are out of scope.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "bitstream/registers.hpp"

namespace bitstream {

// The header of a .bit file. No Xilinx document describes it; its layout is the one every
// .bit file shows: a 2-byte big-endian length and that many bytes (0x0009: 0f f0 0f f0 0f f0
// 0f f0 00), a 2-byte length 0x0001, then fields each a key byte, a big-endian length (2 bytes
// for 'a' to 'd', 4 bytes for 'e') and its value: 'a' the design name, 'b' the part, 'c' the
// date, 'd' the time (NUL-terminated strings), 'e' the length of the configuration data that
// follows.
struct BitHeader {
    std::string design_name;  // 'a' as written: "top;UserID=0XFFFFFFFF;Version=2023.2"
    std::string design;       // 'a' before its first ';'
    std::string user_id;      // 'a''s UserID=... ("" when absent)
    std::string version;      // 'a''s Version=... (the Vivado version; "" when absent)
    bool compress_mark = false;  // 'a' holds COMPRESS=TRUE (write_bitstream's mark)
    std::string part;         // 'b': "7a200tfbg484"
    std::string date;         // 'c': "2026/12/04"
    std::string time;         // 'd': "17:30:00"
    uint32_t data_length = 0; // 'e': bytes of configuration data after the header
    size_t data_offset = 0;   // where that data begins in the file
};

struct Packet {
    size_t offset = 0;        // byte offset of the header word in the file
    PacketType type = PacketType::type1;
    Opcode opcode = Opcode::NOP;
    uint32_t address = 0;     // register address; a type 2 packet's is its type 1 packet's
    uint32_t word_count = 0;  // a write's data words follow it; a read's come out of the device
    size_t data_offset = 0;   // byte offset of the first data word (of a write)
    size_t section = 0;       // index of the Sync word it follows (one per SLR of an SSI device)
    // The data words of a write of at most kShortWrite words (register values), empty otherwise.
    std::vector<uint32_t> words;

    std::string register_name() const { return bitstream::register_name(address); }
    bool writes(Register reg) const { return opcode == Opcode::write && address == static_cast<uint32_t>(reg); }
    // The command a one-word write to CMD gives.
    std::optional<uint32_t> command() const;
};
constexpr uint32_t kShortWrite = 8;

// The configuration data from the dummy words on (UG470 "Bitstream Composition",
// "Bus Width Auto Detection").
struct Configuration {
    size_t dummy_words = 0;                     // 0xFFFFFFFF words before the first Sync word
    std::optional<size_t> bus_width_offset;     // 0x000000BB 0x11220044, when present
    std::vector<size_t> sync_offsets;           // each Sync word (0xAA995566); at least one
    std::vector<Packet> packets;
    std::optional<uint32_t> idcode;             // the last one-word write to IDCODE
    bool compressed = false;  // a write to MFWR or the MFW command (multiple frame writes)
    bool encrypted = false;   // a CBC write, or a CTL0 write with DEC [6] set under MASK
    bool desync_seen = false; // the DESYNC command that ends configuration
    size_t end_offset = 0;    // the byte after the last packet
    size_t trailing_bytes = 0;  // bytes after the end of configuration that are no packet (padding)
};

struct Bitstream {
    std::optional<BitHeader> header;  // absent for a .bin
    size_t data_offset = 0;           // the configuration data in the file
    size_t data_length = 0;
    Configuration configuration;
};

inline std::span<const uint8_t> bytes(std::string_view text) {
    return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// True when the file begins as a .bit file does (the 2-byte length 0x0009).
bool has_bit_header(std::span<const uint8_t> file);

// The .bit header; EINVAL naming the byte offset for a field past the end, a missing 'e', an
// unknown key, a string without its NUL or a data length past the end of the file.
pdt::Result<BitHeader> parse_header(std::span<const uint8_t> file);

// The configuration packets of `data` (the bytes from the dummy words on); `base` is the
// data's offset in the file, which errors and offsets name. EINVAL for no Sync word, a packet
// whose word count runs past the end, a type 2 packet not after a type 1, an unknown header
// type before DESYNC.
pdt::Result<Configuration> parse_configuration(std::span<const uint8_t> data, size_t base = 0);

// A .bit or .bin file: the header when it has one, then its configuration.
pdt::Result<Bitstream> parse(std::span<const uint8_t> file);

// The IDCODE the packets write first, parsed only as far as that write, so that the start of
// a flash (or of a file) is enough and what follows it is not looked at: parse's errors for what
// comes before it; ENOENT ("find IDCODE", the offset where the packets end) when none is written.
pdt::Result<uint32_t> first_idcode(std::span<const uint8_t> file);

}  // namespace bitstream
