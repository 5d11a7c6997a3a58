// The configuration packets (bitstream::parse_configuration) of data at a file offset taken
// from the first byte. Properties: an error is EINVAL naming a byte offset inside the data; a
// parse has a Sync word inside the data, packets in ascending order each inside the data, a
// write's words inside it, a type 2 packet only right after a type 1 with its register; what
// the packets end at and the bytes after them make up the data; an IDCODE only from an IDCODE
// write; the .bin of a header-less parse is the data itself and first_idcode its first IDCODE
// write; the report formats.
#include <cerrno>

#include "bitstream/bitstream.hpp"
#include "bitstream/report.hpp"
#include "bitstream/spi_bin.hpp"
#include "fuzz_support.hpp"

namespace {

using bitstream::Opcode;
using bitstream::PacketType;

void check_packets(const bitstream::Configuration& c, size_t base, size_t size) {
    size_t previous_end = c.sync_offsets.front() + 4;
    bool idcode_written = false;
    for (size_t i = 0; i < c.packets.size(); ++i) {
        const auto& p = c.packets[i];
        PDT_FUZZ_CHECK(p.offset >= previous_end && p.offset + 4 <= base + size);
        PDT_FUZZ_CHECK(p.section < c.sync_offsets.size());
        const size_t data_bytes = p.opcode == Opcode::write ? size_t{p.word_count} * 4 : 0;
        PDT_FUZZ_CHECK(p.data_offset == p.offset + 4 && p.data_offset + data_bytes <= base + size);
        PDT_FUZZ_CHECK(p.words.size() <= bitstream::kShortWrite);
        if (p.type == PacketType::type2) {
            PDT_FUZZ_CHECK(i > 0 && c.packets[i - 1].type == PacketType::type1);
            PDT_FUZZ_CHECK(p.address == c.packets[i - 1].address);
        }
        idcode_written |= p.writes(bitstream::Register::IDCODE) && p.word_count == 1;
        previous_end = p.data_offset + data_bytes;
    }
    PDT_FUZZ_CHECK(!c.idcode || idcode_written);
    PDT_FUZZ_CHECK(c.end_offset - base + c.trailing_bytes == size);
}

// first_idcode gives the first one-word IDCODE write of a whole parse, else ENOENT.
void check_first_idcode(const bitstream::Bitstream& whole, std::span<const uint8_t> data) {
    const auto first = bitstream::first_idcode(data);
    for (const auto& p : whole.configuration.packets)
        if (p.type == PacketType::type1 && p.writes(bitstream::Register::IDCODE) && p.words.size() == 1) {
            PDT_FUZZ_CHECK(first.ok() && *first == p.words[0]);
            return;
        }
    PDT_FUZZ_CHECK(!first.ok() && first.error().code == ENOENT);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    const size_t base = size_t{data[0]} * 4;
    const std::span<const uint8_t> config(data + 1, size - 1);
    const auto parsed = bitstream::parse_configuration(config, base);
    if (!parsed) {
        PDT_FUZZ_CHECK(parsed.error().code == EINVAL && parsed.error().operation == "parse bitstream");
        PDT_FUZZ_CHECK(parsed.error().object.rfind("byte offset 0x", 0) == 0);
        const size_t offset = std::stoull(parsed.error().object.substr(12), nullptr, 16);
        PDT_FUZZ_CHECK(offset >= base && offset <= base + config.size());
        return 0;
    }
    PDT_FUZZ_CHECK(!parsed->sync_offsets.empty());
    PDT_FUZZ_CHECK(parsed->sync_offsets.front() >= base && parsed->sync_offsets.front() + 4 <= base + config.size());
    check_packets(*parsed, base, config.size());
    if (!bitstream::has_bit_header(config)) {
        const auto whole = bitstream::parse(config);
        PDT_FUZZ_CHECK(whole.ok() && !whole->header);
        PDT_FUZZ_CHECK(bitstream::spi_flash_bin(*whole, config) == std::vector<uint8_t>(config.begin(), config.end()));
        PDT_FUZZ_CHECK(!bitstream::format_json(*whole, "fuzz.bin", config.size()).empty());
        check_first_idcode(*whole, config);
    }
    return 0;
}
