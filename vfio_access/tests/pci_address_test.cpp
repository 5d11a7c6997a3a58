#include <gtest/gtest.h>

#include "vfio_access/pci_address.hpp"

using vfio::PciAddress;

TEST(PciAddress, ParsesAndFormatsRoundTrip) {
    auto parsed = PciAddress::parse("0000:2d:00.0");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    EXPECT_EQ(parsed->domain, 0);
    EXPECT_EQ(parsed->bus, 0x2d);
    EXPECT_EQ(parsed->device, 0);
    EXPECT_EQ(parsed->function, 0);
    EXPECT_EQ(parsed->to_string(), "0000:2d:00.0");
    EXPECT_EQ(PciAddress::parse("ABCD:FF:1F.7")->to_string(), "abcd:ff:1f.7");
}

TEST(PciAddress, KeepsDeviceAndFunctionApart) {
    // fpga_sio swapped device and function in one parser; ours must not.
    auto parsed = PciAddress::parse("0000:00:1b.4");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->device, 0x1b);
    EXPECT_EQ(parsed->function, 4);
}

struct BadAddress {
    const char* text;
    const char* why;
};

class PciAddressRejects : public ::testing::TestWithParam<BadAddress> {};

TEST_P(PciAddressRejects, WithReason) {
    auto parsed = PciAddress::parse(GetParam().text);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error().code, EINVAL);
    EXPECT_NE(parsed.error().message().find(GetParam().why), std::string::npos) << parsed.error().message();
    EXPECT_NE(parsed.error().message().find("dddd:bb:dd.f"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Cases, PciAddressRejects,
                         ::testing::Values(BadAddress{"0000:15:00.0x", "wrong length"},
                                           BadAddress{"15:00.0", "wrong length"},
                                           BadAddress{"", "wrong length"},
                                           BadAddress{"0000-15:00.0", "misplaced separator"},
                                           BadAddress{"0000:15:00:0", "misplaced separator"},
                                           BadAddress{"000g:15:00.0", "non-hex digit"},
                                           BadAddress{"0000:15:20.0", "device number above 0x1f"},
                                           BadAddress{"0000:15:00.8", "function number above 7"}));
