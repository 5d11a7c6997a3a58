// The SFF-8472 decoder and its ethtool -m text (optical/sff8472.hpp, ethtool_text.hpp) on
// whatever a module answers. Input: a selector byte (bit 0: recompute the check codes first, so
// that mutations reach past them), then A0h (up to 256 bytes), then A2h (the rest). Properties:
// an error is EINVAL, EBADMSG or EPROTONOSUPPORT and its report is its message and a hex dump;
// a decoded module is an SFP's, has diagnostics only when A0h byte 92 bit 6 says so, and its
// text is lines of "\t<name, 41 wide> : <value>".
#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

namespace {

void check_sff8472_lines(const std::string& text) {
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = text.find('\n', at);
        PDT_FUZZ_CHECK(end != std::string::npos);
        PDT_FUZZ_CHECK(text[at] == '\t' && end - at >= 45 && text.compare(at + 42, 3, " : ") == 0);
        at = end + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    const bool fix = data[0] & 1;
    const size_t a0_size = std::min<size_t>(size - 1, 256);
    std::vector<uint8_t> a0(data + 1, data + 1 + a0_size), a2(data + 1 + a0_size, data + size);
    if (fix)
        optical::images::fix_sff8472_checksums(a0, a2);
    const auto module = optical::decode_sff8472(a0, a2);
    const std::string text = optical::sff8472_text(a0, a2);
    if (!module) {
        const int code = module.error().code;
        PDT_FUZZ_CHECK(code == EINVAL || code == EBADMSG || code == EPROTONOSUPPORT);
        PDT_FUZZ_CHECK(text.starts_with(module.error().message() + "\n"));
        PDT_FUZZ_CHECK(text.find("Offset\t\tValues\n") != std::string::npos);
        return 0;
    }
    PDT_FUZZ_CHECK(module->identifier == 0x02 || module->identifier == 0x03);
    PDT_FUZZ_CHECK(module->diagnostics.has_value() == ((a0[92] & 0x40) != 0));
    PDT_FUZZ_CHECK(text == optical::ethtool_text(*module));
    check_sff8472_lines(text);
    return 0;
}
