// The SFF-8636 decoder and its ethtool -m text (optical/sff8636.hpp, ethtool_text.hpp) on
// whatever a module answers. Input: a selector byte (bit 0: recompute CC_BASE and CC_EXT
// first, so that mutations reach past them), then the lower page with upper page 00h (up to
// 256 bytes), then upper page 03h (the rest). Properties: an error is EINVAL, EBADMSG or
// EPROTONOSUPPORT and its report is its message and a hex dump; a decoded module is a QSFP's,
// has thresholds only with a page 03h of paged memory, and its text is lines of
// "\t<name, 41 wide> : <value>".
#include <string>

#include "fuzz_sff_support.hpp"
#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    auto [fix, page00, page03] = pdt_fuzz::sff_input(data, size);
    if (fix)
        optical::images::fix_sff8636_checksums(page00);
    const auto module = optical::decode_sff8636(page00, page03);
    const std::string text = optical::sff8636_text(page00, page03);
    if (!module) {
        pdt_fuzz::check_sff_rejected(module.error(), text);
        return 0;
    }
    PDT_FUZZ_CHECK(module->identifier == 0x0C || module->identifier == 0x0D || module->identifier == 0x11);
    if (module->diagnostics) {
        const bool page03_used = !page03.empty() && (page00[2] & 0x04) == 0;
        PDT_FUZZ_CHECK(module->diagnostics->alarm_warning_flags_implemented == page03_used);
        PDT_FUZZ_CHECK(module->diagnostics->temperature.thresholds.has_value() == page03_used);
    }
    PDT_FUZZ_CHECK(text == optical::ethtool_text(*module));
    pdt_fuzz::check_ethtool_lines(text);
    return 0;
}
