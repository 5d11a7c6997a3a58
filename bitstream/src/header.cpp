// The .bit file header (bitstream.hpp: BitHeader): length-prefixed fields, key 'a' to 'e'.
#include <string>

#include "bitstream/bitstream.hpp"
#include "reader.hpp"

namespace bitstream {

namespace {

using detail::corrupt;
using detail::Reader;

constexpr uint32_t kPreambleLength = 0x0009;  // 0f f0 0f f0 0f f0 0f f0 00
constexpr uint32_t kKeyLength = 0x0001;       // the length before the first key

// A NUL-terminated string field 'a' to 'd': 2-byte length, then the string with its NUL.
pdt::Result<std::string> string_field(Reader& in, char key) {
    const std::string what = std::string("the '") + key + "' field";
    const size_t length_at = in.offset();
    const uint32_t length = PDT_TRY(in.number(2, what + "'s length"));
    if (!in.has(length))
        return corrupt(length_at, what + "'s length " + std::to_string(length) + " runs past the end of the file (" +
                                      std::to_string(in.left()) + " bytes left)");
    const auto value = in.take(length);
    if (length == 0 || value.back() != 0)
        return corrupt(length_at, what + " is not a NUL-terminated string");
    return std::string(reinterpret_cast<const char*>(value.data()), length - 1);
}

// 'a': "<design>;UserID=0X...;Version=2023.2" (and COMPRESS=TRUE when compressed).
void split_design_name(BitHeader& header) {
    const std::string& text = header.design_name;
    size_t at = text.find(';');
    header.design = text.substr(0, at);
    while (at != std::string::npos) {
        const size_t next = text.find(';', at + 1);
        const std::string item = text.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
        if (item.rfind("UserID=", 0) == 0)
            header.user_id = item.substr(7);
        else if (item.rfind("Version=", 0) == 0)
            header.version = item.substr(8);
        else if (item == "COMPRESS=TRUE")
            header.compress_mark = true;
        at = next;
    }
}

pdt::Result<void> preamble(Reader& in) {
    const uint32_t length = PDT_TRY(in.number(2, "the header's first length"));
    if (length != kPreambleLength)
        return corrupt(0, "a .bit file begins with the length 0x0009, not " + pdt::hex(length));
    if (!in.has(length))
        return corrupt(in.offset(), "the header's first field runs past the end of the file");
    in.take(length);
    const size_t key_at = in.offset();
    if (PDT_TRY(in.number(2, "the length before the first key")) != kKeyLength)
        return corrupt(key_at, "the length before the first key is not 0x0001");
    return {};
}

pdt::Result<void> data_length(Reader& in, BitHeader& header) {
    const size_t length_at = in.offset();
    header.data_length = PDT_TRY(in.number(4, "the 'e' field's length"));
    header.data_offset = in.offset();
    if (!in.has(header.data_length))
        return corrupt(length_at, "the 'e' field's data length " + std::to_string(header.data_length) +
                                      " runs past the end of the file (" + std::to_string(in.left()) + " bytes left)");
    return {};
}

}  // namespace

bool has_bit_header(std::span<const uint8_t> file) {
    return file.size() >= 2 && file[0] == 0x00 && file[1] == kPreambleLength;
}

pdt::Result<BitHeader> parse_header(std::span<const uint8_t> file) {
    Reader in(file, 0);
    PDT_CHECK(preamble(in));
    BitHeader header;
    for (;;) {
        const size_t key_at = in.offset();
        const char key = static_cast<char>(PDT_TRY(in.number(1, "a header field's key")));
        switch (key) {
        case 'a':
            header.design_name = PDT_TRY(string_field(in, key));
            split_design_name(header);
            break;
        case 'b':
            header.part = PDT_TRY(string_field(in, key));
            break;
        case 'c':
            header.date = PDT_TRY(string_field(in, key));
            break;
        case 'd':
            header.time = PDT_TRY(string_field(in, key));
            break;
        case 'e':
            PDT_CHECK(data_length(in, header));
            return header;
        default:
            return corrupt(key_at, "unknown header field key " + pdt::hex(static_cast<uint8_t>(key)) +
                                       " (expected 'a' to 'e')");
        }
    }
}

pdt::Result<Bitstream> parse(std::span<const uint8_t> file) {
    Bitstream parsed;
    parsed.data_length = file.size();
    if (has_bit_header(file)) {
        parsed.header = PDT_TRY(parse_header(file));
        parsed.data_offset = parsed.header->data_offset;
        parsed.data_length = parsed.header->data_length;
    }
    parsed.configuration =
        PDT_TRY(parse_configuration(file.subspan(parsed.data_offset, parsed.data_length), parsed.data_offset));
    return parsed;
}

}  // namespace bitstream
