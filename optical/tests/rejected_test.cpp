// EEPROMs that do not decode: a failed check code (CC_BASE, CC_EXT, CC_DMI), an identifier the
// document does not describe, too few bytes. Each is an error naming the byte, and its report
// is the error with a hex dump of the raw bytes, never a decode.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "optical/ethtool_text.hpp"
#include "optical_images/module_images.hpp"

namespace rejected_test {

using namespace optical;

// A decode that failed with `code`, its error naming `object`.
template <typename Module>
::testing::AssertionResult rejected_with(const pdt::Result<Module>& module, int code, const std::string& object) {
    if (module.ok())
        return ::testing::AssertionFailure() << "decoded, expected an error naming " << object;
    if (module.error().code != code)
        return ::testing::AssertionFailure() << "code " << module.error().code << ", expected " << code << ": "
                                             << module.error().message();
    if (module.error().object != object)
        return ::testing::AssertionFailure() << "object \"" << module.error().object << "\", expected \"" << object << "\"";
    return ::testing::AssertionSuccess();
}

void expect_rejected(const std::string& text, const std::string& object) {
    EXPECT_TRUE(text.starts_with("decode SFF-")) << text;
    EXPECT_NE(text.find(object), std::string::npos) << text;
    EXPECT_NE(text.find("Offset\t\tValues\n------\t\t------\n0x0000:\t\t"), std::string::npos) << text;
    EXPECT_EQ(text.find("Vendor name"), std::string::npos) << text;
    EXPECT_EQ(text.find("Identifier "), std::string::npos) << text;
}

TEST(Sff8472Rejected, EachChecksum) {
    struct Case {
        size_t page, at;
        const char* object;
    } cases[] = {{0, 20, "A0h byte 63 (CC_BASE)"}, {0, 70, "A0h byte 95 (CC_EXT)"}, {2, 10, "A2h byte 95 (CC_DMI)"}};
    for (const Case& c : cases) {
        images::SfpImage image = images::sfp_10gbase_sr();
        (c.page == 0 ? image.a0 : image.a2)[c.at] ^= 0x01;
        EXPECT_TRUE(rejected_with(decode_sff8472(image.a0, image.a2), EBADMSG, c.object));
        expect_rejected(sff8472_text(image.a0, image.a2), c.object);
    }
}

TEST(Sff8472Rejected, HexDumpHoldsTheBytes) {
    images::SfpImage image = images::sfp_10gbase_sr();
    image.a0[63] ^= 0xFF;
    const std::string text = sff8472_text(image.a0, image.a2);
    EXPECT_NE(text.find("A0h (256 bytes):\nOffset\t\tValues\n------\t\t------\n0x0000:\t\t03 04 07 10 00 00 00 00 00 00 00 06 67 00 00 00 \n"
                        "0x0010:\t\t08 03 00 1e 50 44 54 20 4f 50 54 49 43 53 20 20 \n"),
              std::string::npos) << text;
    EXPECT_NE(text.find("A2h (256 bytes):\nOffset\t\tValues\n"), std::string::npos);
    EXPECT_NE(text.find("\n0x00f0:\t\t"), std::string::npos);
}

TEST(Sff8472Rejected, UnknownIdentifier) {
    for (uint8_t identifier : {0x00, 0x11, 0x80}) {
        images::SfpImage image = images::sfp_10gbase_sr();
        image.a0[0] = identifier;
        images::fix_sff8472_checksums(image.a0, image.a2);
        const auto module = decode_sff8472(image.a0, image.a2);
        ASSERT_TRUE(rejected_with(module, EPROTONOSUPPORT, "A0h byte 0 (Identifier)"));
        // The identifiers SFF-8472 describes, named as SFF-8024 table 4-1 names them.
        EXPECT_TRUE(module.error().hint.ends_with(
            " is not one SFF-8472 describes (02h module soldered to motherboard, 03h SFP)"))
            << module.error().hint;
        expect_rejected(sff8472_text(image.a0, image.a2), "identifier 0x");
    }
}

TEST(Sff8472Rejected, TooFewBytes) {
    const images::SfpImage image = images::sfp_10gbase_sr();
    EXPECT_TRUE(rejected_with(decode_sff8472(std::span(image.a0).first(100), image.a2), EINVAL, "A0h"));
    // Diagnostics implemented: A2h is needed.
    EXPECT_TRUE(rejected_with(decode_sff8472(image.a0, std::span(image.a2).first(64)), EINVAL,
                              "A2h (A0h byte 92: diagnostics implemented)"));
    expect_rejected(sff8472_text(image.a0, {}), "A2h");
    EXPECT_FALSE(decode_sff8472({}, {}).ok());
}

TEST(Sff8636Rejected, EachChecksum) {
    for (const auto& [at, object] : {std::pair<size_t, const char*>{150, "page 00h byte 191 (CC_BASE)"},
                                     std::pair<size_t, const char*>{200, "page 00h byte 223 (CC_EXT)"}}) {
        images::QsfpImage image = images::qsfp28_100gbase_sr4();
        image.page00[at] ^= 0x20;
        EXPECT_TRUE(rejected_with(decode_sff8636(image.page00, image.page03), EBADMSG, object));
        const std::string text = sff8636_text(image.page00, image.page03);
        expect_rejected(text, object);
        EXPECT_NE(text.find("page 03h (128 bytes):\nOffset\t\tValues\n------\t\t------\n0x0080:\t\t"), std::string::npos)
            << text;
    }
}

TEST(Sff8636Rejected, UnknownIdentifier) {
    images::QsfpImage image = images::qsfp28_100gbase_sr4();
    image.page00[0] = 0x03;  // SFP: not SFF-8636's
    const auto module = decode_sff8636(image.page00, image.page03);
    ASSERT_TRUE(rejected_with(module, EPROTONOSUPPORT, "lower page byte 0 (Identifier)"));
    EXPECT_EQ(module.error().hint, "identifier 0x03 (SFP) is not one SFF-8636 describes (0Ch QSFP, 0Dh QSFP+, 11h QSFP28)");
    expect_rejected(sff8636_text(image.page00, image.page03), "Identifier");
}

TEST(Sff8636Rejected, TooFewBytes) {
    const images::QsfpImage image = images::qsfp28_100gbase_sr4();
    EXPECT_TRUE(rejected_with(decode_sff8636(std::span(image.page00).first(200), image.page03), EINVAL,
                              "lower page and page 00h"));
    EXPECT_TRUE(rejected_with(decode_sff8636(image.page00, std::span(image.page03).first(40)), EINVAL, "page 03h"));
    expect_rejected(sff8636_text(image.page00, std::span(image.page03).first(40)), "page 03h");
}

}  // namespace rejected_test
