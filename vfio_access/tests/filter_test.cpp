#include <gtest/gtest.h>

#include "vfio_access/filter.hpp"

namespace {

vfio::DeviceIdentity identity(const char* bdf, uint16_t vendor, uint16_t device, uint16_t sub_vendor = 0xffff,
                              uint16_t sub_device = 0xffff) {
    return {.address = vfio::PciAddress::parse(bdf).value(),
            .vendor_id = vendor,
            .device_id = device,
            .subsystem_vendor_id = sub_vendor,
            .subsystem_device_id = sub_device};
}

}  // namespace

TEST(DeviceFilter, EmptyFilterMatchesAnyDevice) {
    EXPECT_TRUE(vfio::DeviceFilter{}.matches(identity("0000:01:00.0", 0x10ee, 0x7024)));
}

TEST(DeviceFilter, EachGivenFieldMustMatch) {
    const vfio::DeviceFilter filter{0x10ee, 0x7024, 0x0002, 0x0010};
    EXPECT_TRUE(filter.matches(identity("0000:01:00.0", 0x10ee, 0x7024, 0x0002, 0x0010)));
    EXPECT_FALSE(filter.matches(identity("0000:01:00.0", 0x10ef, 0x7024, 0x0002, 0x0010)));
    EXPECT_FALSE(filter.matches(identity("0000:01:00.0", 0x10ee, 0x7025, 0x0002, 0x0010)));
    EXPECT_FALSE(filter.matches(identity("0000:01:00.0", 0x10ee, 0x7024, 0x0003, 0x0010)));
    EXPECT_FALSE(filter.matches(identity("0000:01:00.0", 0x10ee, 0x7024, 0x0002, 0x0011)));
}

TEST(DeviceFilter, DeviceIdIsCheckedWithoutVendor) {
    // fpga_sio guarded the device test by the vendor test; a device-only filter must work.
    vfio::DeviceFilter filter;
    filter.device_id = 0x11e8;
    EXPECT_TRUE(filter.matches(identity("0000:00:03.0", 0x1234, 0x11e8)));
    EXPECT_FALSE(filter.matches(identity("0000:00:03.0", 0x1234, 0x11e9)));
}

TEST(DeviceFilter, TextShowsWildcards) {
    vfio::DeviceFilter filter;
    filter.vendor_id = 0x10ee;
    filter.subsystem_device_id = 0x2;
    EXPECT_EQ(filter.to_string(), "10ee:* subsystem *:0002");
}

TEST(DeviceSelection, EmptySelectionSelectsEverything) {
    vfio::DeviceSelection selection;
    const std::vector devices{identity("0000:00:03.0", 0x1234, 0x11e8), identity("0000:01:00.0", 0x10ee, 0x7024)};
    EXPECT_TRUE(selection.empty());
    EXPECT_EQ(selection.select(devices).size(), 2u);
}

TEST(DeviceSelection, AnyIdentityFilterMaySelect) {
    vfio::DeviceSelection selection;
    selection.add_filter({0x1234, 0x11e8, {}, {}});
    selection.add_filter({0x10ee, {}, {}, {}});
    const std::vector devices{identity("0000:00:03.0", 0x1234, 0x11e8), identity("0000:01:00.0", 0x10ee, 0x7024),
                              identity("0000:02:00.0", 0x8086, 0x1533)};
    const auto selected = selection.select(devices);
    ASSERT_EQ(selected.size(), 2u);
    EXPECT_EQ(selected[0].address.to_string(), "0000:00:03.0");
    EXPECT_EQ(selected[1].address.to_string(), "0000:01:00.0");
}

TEST(DeviceSelection, LocationsAndIdentitiesMustBothMatch) {
    vfio::DeviceSelection selection;
    selection.add_filter({0x10ee, {}, {}, {}});
    ASSERT_TRUE(selection.add_location("0000:02:00.0").ok());
    ASSERT_TRUE(selection.add_location("0000:01:00.0").ok());
    const std::vector devices{identity("0000:00:03.0", 0x10ee, 0x11e8), identity("0000:01:00.0", 0x10ee, 0x7024),
                              identity("0000:02:00.0", 0x8086, 0x1533)};
    const auto selected = selection.select(devices);
    ASSERT_EQ(selected.size(), 1u);
    EXPECT_EQ(selected[0].address.to_string(), "0000:01:00.0");
}

TEST(DeviceSelection, DuplicateLocationsAreKeptOnce) {
    vfio::DeviceSelection selection;
    ASSERT_TRUE(selection.add_location("0000:01:00.0").ok());
    ASSERT_TRUE(selection.add_location("0000:01:00.0").ok());
    EXPECT_EQ(selection.locations().size(), 1u);
}

TEST(DeviceSelection, BadLocationIsRejected) {
    vfio::DeviceSelection selection;
    const auto added = selection.add_location("0000:01:00.0x");
    ASSERT_FALSE(added.ok());
    EXPECT_NE(added.error().message().find("0000:01:00.0x"), std::string::npos) << added.error().message();
    EXPECT_TRUE(selection.locations().empty());
}

TEST(ParseHexId, AcceptsPlainAndPrefixedHex) {
    EXPECT_EQ(vfio::parse_hex_id("10ee", "--vendor").value(), 0x10ee);
    EXPECT_EQ(vfio::parse_hex_id("0x10EE", "--vendor").value(), 0x10ee);
    EXPECT_EQ(vfio::parse_hex_id("2", "--vendor").value(), 0x2);
}

TEST(ParseHexId, RejectsJunkAndOverflow) {
    for (const char* bad : {"", "0x", "10eg", "12345", "10ee "}) {
        const auto parsed = vfio::parse_hex_id(bad, "--vendor");
        ASSERT_FALSE(parsed.ok()) << bad;
        EXPECT_EQ(parsed.error().code, EINVAL);
        EXPECT_NE(parsed.error().message().find("--vendor"), std::string::npos);
    }
}
