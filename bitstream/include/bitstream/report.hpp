// What parse_bitstream_file prints: the header fields, the Sync word offsets, every packet
// (offset, type, opcode, register, word count, a short write's value decoded: CMD's command,
// IDCODE's part), the frame data summarised as a word count, then IDCODE, compressed, encrypted.
#pragma once

#include <string>

#include "bitstream/bitstream.hpp"

namespace bitstream {

// One packet's line: "0x000000a4 type 1 write CMD words 1: RCRC".
std::string format_packet(const Packet& packet);
// The whole report, `name` the file as the user named it.
std::string format_text(const Bitstream& parsed, const std::string& name, size_t file_size);
// The same as one JSON document.
std::string format_json(const Bitstream& parsed, const std::string& name, size_t file_size);

}  // namespace bitstream
