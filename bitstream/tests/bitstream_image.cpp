// The synthetic bitstream of the tests (bitstream_image.hpp).
#include "bitstream_image.hpp"

namespace bitstream_test {

namespace {

// Packet headers from their fields, UG470 Table 5-20 (type 1) and Table 5-22 (type 2).
constexpr uint32_t kNop = 0x20000000;  // type 1, OPCODE 00
uint32_t type1_write(uint32_t address, uint32_t count) { return (1u << 29) | (2u << 27) | (address << 13) | count; }
uint32_t type2_write(uint32_t count) { return (2u << 29) | (2u << 27) | count; }

// Register addresses and command codes, UG470 Table 5-23 and Table 5-25.
enum : uint32_t { CRC = 0x00, FAR = 0x01, FDRI = 0x02, CMD = 0x04, CTL0 = 0x05, MASK = 0x06, COR0 = 0x09,
                  MFWR = 0x0A, CBC = 0x0B, IDCODE = 0x0C };
enum : uint32_t { RCRC = 0x07, WCFG = 0x01, MFW = 0x02, START = 0x05, DESYNC = 0x0D };

class Writer {
public:
    size_t size() const { return m_bytes.size(); }
    void byte(uint8_t value) { m_bytes.push_back(value); }
    void be(uint32_t value, int bytes) {
        for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8)
            byte(static_cast<uint8_t>(value >> shift));
    }
    void word(uint32_t value) { be(value, 4); }
    void string_field(char key, const std::string& text, size_t* length_at = nullptr) {
        byte(static_cast<uint8_t>(key));
        if (length_at)
            *length_at = size();
        be(static_cast<uint32_t>(text.size() + 1), 2);
        for (char c : text)
            byte(static_cast<uint8_t>(c));
        byte(0);
    }
    std::vector<uint8_t> take() { return std::move(m_bytes); }

private:
    std::vector<uint8_t> m_bytes;
};

void write_header(Writer& out, const ImageSpec& spec, Image& image, uint32_t data_length) {
    out.be(0x0009, 2);
    for (uint8_t b : {0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x0f, 0xf0, 0x00})
        out.byte(b);
    out.be(0x0001, 2);
    out.string_field('a', spec.design_name);
    out.string_field('b', spec.part, &image.b_length_at);
    out.string_field('c', spec.date);
    out.string_field('d', spec.time);
    out.byte('e');
    image.e_length_at = out.size();
    out.be(data_length, 4);
}

void packet(Writer& out, Image& image, uint32_t header, std::initializer_list<uint32_t> words = {}) {
    out.word(header);
    for (uint32_t w : words)
        out.word(w);
    ++image.packet_count;
}

void frame_packets(Writer& out, const ImageSpec& spec, Image& image) {
    packet(out, image, type1_write(FAR, 1), {0x00000000});
    packet(out, image, type1_write(CMD, 1), {WCFG});
    packet(out, image, kNop);
    packet(out, image, type1_write(FDRI, 0));
    image.fdri_type2_at = out.size();
    const uint32_t words = spec.frames * kFrameWords;
    packet(out, image, type2_write(words));
    for (uint32_t i = 0; i < words; ++i)
        out.word(frame_word(i));
    if (spec.compressed) {
        packet(out, image, type1_write(CMD, 1), {MFW});
        packet(out, image, type1_write(FAR, 1), {0x00000100});
        packet(out, image, type1_write(MFWR, 2), {0x00000000, 0x00000000});
    }
}

void configuration(Writer& out, const ImageSpec& spec, Image& image) {
    image.data_offset = out.size();
    for (uint32_t i = 0; i < spec.dummy_words; ++i)
        out.word(0xFFFFFFFF);
    image.bus_width_at = out.size();
    out.word(0x000000BB);
    out.word(0x11220044);
    out.word(0xFFFFFFFF);
    out.word(0xFFFFFFFF);
    image.sync_at = out.size();
    out.word(0xAA995566);
    packet(out, image, kNop);
    packet(out, image, type1_write(CMD, 1), {RCRC});
    packet(out, image, kNop);
    packet(out, image, type1_write(COR0, 1), {0x02003FE5});
    packet(out, image, type1_write(IDCODE, 1), {spec.idcode});
    if (spec.encrypted) {
        packet(out, image, type1_write(MASK, 1), {0x00000040});
        packet(out, image, type1_write(CTL0, 1), {0x00000040});
        packet(out, image, type1_write(CBC, 4), {0x01234567, 0x89ABCDEF, 0x01234567, 0x89ABCDEF});
    }
    frame_packets(out, spec, image);
    packet(out, image, type1_write(CRC, 1), {0x5A5A1234});
    packet(out, image, type1_write(CMD, 1), {START});
    image.desync_at = out.size();
    packet(out, image, type1_write(CMD, 1), {DESYNC});
    for (uint32_t i = 0; i < spec.trailing_nops; ++i)
        packet(out, image, kNop);
}

}  // namespace

uint32_t frame_word(uint32_t i) { return 0xC0DE0000u ^ (i * 0x9E3779B9u); }

Image make_image(const ImageSpec& spec) {
    Image image;
    Writer data;
    configuration(data, spec, image);
    const auto config = data.take();
    Writer out;
    if (spec.with_header)
        write_header(out, spec, image, static_cast<uint32_t>(config.size()));
    const size_t base = out.size();
    for (uint8_t b : config)
        out.byte(b);
    for (size_t* at : {&image.data_offset, &image.bus_width_at, &image.sync_at, &image.fdri_type2_at, &image.desync_at})
        *at += base;
    image.bytes = out.take();
    return image;
}

// The configuration words in UG470's order, as literal words of the document's examples
// (the order of UG470's "Bitstream Composition": dummy, bus width, Sync, NOP, CMD RCRC, ..., CMD
// DESYNC, NOPs).
std::vector<uint8_t> expected_spi_bin(const ImageSpec& spec) {
    std::vector<uint32_t> words(spec.dummy_words, 0xFFFFFFFF);
    words.insert(words.end(), {0x000000BB, 0x11220044, 0xFFFFFFFF, 0xFFFFFFFF, 0xAA995566, 0x20000000,
                               0x30008001, 0x00000007, 0x20000000, 0x30012001, 0x02003FE5, 0x30018001, spec.idcode});
    if (spec.encrypted)
        words.insert(words.end(), {0x3000C001, 0x00000040, 0x3000A001, 0x00000040, 0x30016004, 0x01234567,
                                   0x89ABCDEF, 0x01234567, 0x89ABCDEF});
    words.insert(words.end(), {0x30002001, 0x00000000, 0x30008001, 0x00000001, 0x20000000, 0x30004000,
                               0x50000000 | (spec.frames * kFrameWords)});
    for (uint32_t i = 0; i < spec.frames * kFrameWords; ++i)
        words.push_back(frame_word(i));
    if (spec.compressed)
        words.insert(words.end(), {0x30008001, 0x00000002, 0x30002001, 0x00000100, 0x30014002, 0, 0});
    words.insert(words.end(), {0x30000001, 0x5A5A1234, 0x30008001, 0x00000005, 0x30008001, 0x0000000D});
    words.insert(words.end(), spec.trailing_nops, 0x20000000);
    std::vector<uint8_t> bin;
    for (uint32_t w : words)
        for (int shift = 24; shift >= 0; shift -= 8)
            bin.push_back(static_cast<uint8_t>(w >> shift));
    return bin;
}

}  // namespace bitstream_test
