// The SFF-8472 decoder and its ethtool -m text (optical/sff8472.hpp, ethtool_text.hpp) on
// whatever a module answers. Input: a selector byte (bit 0: recompute the check codes first, so
// that mutations reach past them), then A0h (up to 256 bytes), then A2h (the rest). Properties:
// an error is EINVAL, EBADMSG or EPROTONOSUPPORT and its report is its message and a hex dump;
// a decoded module is an SFP's, has diagnostics only when A0h byte 92 bit 6 says so, and its
// text is lines of "\t<name, 41 wide> : <value>".
#include <string>

#include "fuzz_sff_support.hpp"
#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    auto [fix, a0, a2] = pdt_fuzz::sff_input(data, size);
    if (fix)
        optical::images::fix_sff8472_checksums(a0, a2);
    const auto module = optical::decode_sff8472(a0, a2);
    const std::string text = optical::sff8472_text(a0, a2);
    if (!module) {
        pdt_fuzz::check_sff_rejected(module.error(), text);
        return 0;
    }
    PDT_FUZZ_CHECK(module->identifier == 0x02 || module->identifier == 0x03);
    PDT_FUZZ_CHECK(module->diagnostics.has_value() == ((a0[92] & 0x40) != 0));
    PDT_FUZZ_CHECK(text == optical::ethtool_text(*module));
    pdt_fuzz::check_ethtool_lines(text);
    return 0;
}
