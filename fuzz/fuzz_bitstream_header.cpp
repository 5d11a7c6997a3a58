// The .bit header (bitstream::parse_header) and the whole file (bitstream::parse). Properties:
// an error is EINVAL, "parse bitstream", naming a byte offset inside the input; a parsed header's
// configuration data lies inside the input, its design is the design name up to the first ';';
// a parsed file's data is the header's and its packets lie inside it; the report formats.
#include <cerrno>

#include "bitstream/bitstream.hpp"
#include "bitstream/report.hpp"
#include "fuzz_support.hpp"

namespace {

void check_error(const pdt::Error& error, size_t size) {
    PDT_FUZZ_CHECK(error.code == EINVAL);
    PDT_FUZZ_CHECK(error.operation == "parse bitstream");
    PDT_FUZZ_CHECK(error.object.rfind("byte offset 0x", 0) == 0);
    PDT_FUZZ_CHECK(std::stoull(error.object.substr(12), nullptr, 16) <= size);
    PDT_FUZZ_CHECK(!error.hint.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> file(data, size);
    const auto header = bitstream::parse_header(file);
    if (!header) {
        check_error(header.error(), size);
    } else {
        PDT_FUZZ_CHECK(header->data_offset + header->data_length <= size);
        PDT_FUZZ_CHECK(header->design_name.rfind(header->design, 0) == 0);
        PDT_FUZZ_CHECK(header->design.find(';') == std::string::npos);
    }
    const auto parsed = bitstream::parse(file);
    if (!parsed) {
        check_error(parsed.error(), size);
        return 0;
    }
    PDT_FUZZ_CHECK(parsed->header.has_value() == bitstream::has_bit_header(file));
    PDT_FUZZ_CHECK(parsed->data_offset + parsed->data_length <= size);
    PDT_FUZZ_CHECK(parsed->configuration.end_offset <= parsed->data_offset + parsed->data_length);
    PDT_FUZZ_CHECK(!bitstream::format_text(*parsed, "fuzz.bit", size).empty());
    return 0;
}
