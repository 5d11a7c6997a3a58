// The SFF-8636 decoder and its ethtool -m text (optical/sff8636.hpp, ethtool_text.hpp) on
// whatever a module answers. Input: a selector byte (bit 0: recompute CC_BASE and CC_EXT
// first, so that mutations reach past them), then the lower page with upper page 00h (up to
// 256 bytes), then upper page 03h (the rest). Properties: an error is EINVAL, EBADMSG or
// EPROTONOSUPPORT and its report is its message and a hex dump; a decoded module is a QSFP's,
// has thresholds only with a page 03h of paged memory, and its text is lines of
// "\t<name, 41 wide> : <value>".
#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

namespace {

void check_sff8636_lines(const std::string& text) {
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
    const size_t page00_size = std::min<size_t>(size - 1, 256);
    std::vector<uint8_t> page00(data + 1, data + 1 + page00_size), page03(data + 1 + page00_size, data + size);
    if (fix)
        optical::images::fix_sff8636_checksums(page00);
    const auto module = optical::decode_sff8636(page00, page03);
    const std::string text = optical::sff8636_text(page00, page03);
    if (!module) {
        const int code = module.error().code;
        PDT_FUZZ_CHECK(code == EINVAL || code == EBADMSG || code == EPROTONOSUPPORT);
        PDT_FUZZ_CHECK(text.starts_with(module.error().message() + "\n"));
        PDT_FUZZ_CHECK(text.find("Offset\t\tValues\n") != std::string::npos);
        return 0;
    }
    PDT_FUZZ_CHECK(module->identifier == 0x0C || module->identifier == 0x0D || module->identifier == 0x11);
    if (module->diagnostics) {
        const bool page03_used = !page03.empty() && (page00[2] & 0x04) == 0;
        PDT_FUZZ_CHECK(module->diagnostics->alarm_warning_flags_implemented == page03_used);
        PDT_FUZZ_CHECK(module->diagnostics->temperature.thresholds.has_value() == page03_used);
    }
    PDT_FUZZ_CHECK(text == optical::ethtool_text(*module));
    check_sff8636_lines(text);
    return 0;
}
