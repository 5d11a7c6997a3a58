// The lspci -xxxx reader, and the capability walker on crafted broken spaces.
#include <gtest/gtest.h>

#include "crafted.hpp"
#include "pcie_tools/capabilities.hpp"
#include "pcie_tools/decode.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {
namespace {

using namespace ::sim;  // ConfigBuilder

TEST(DumpFile, ReadsShortAndLongAddressesAndIgnoresDecodedText) {
    const std::string text =
        "01:00.0 Memory controller: Xilinx Corporation Device 7024\n"
        "\tControl: I/O- Mem+ BusMaster+\n"
        "00: ee 10 24 70 06 04 10 00 01 00 80 05 00 00 00 00\n"
        "10: 00 00 30 94\n"
        "\n"
        "0001:02:03.4 Something\n"
        "00: 86 80 01 01\n";
    auto bus = DumpBackend::parse(text, "inline");
    ASSERT_TRUE(bus.ok()) << bus.error().message();
    const auto devices = (*bus)->devices().value();
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0].to_string(), "0000:01:00.0");
    EXPECT_EQ(devices[1].to_string(), "0001:02:03.4");
    ConfigSpace* space = (*bus)->open(devices[0]).value();
    EXPECT_EQ(space->size(), 0x14u);
    EXPECT_EQ(*space->read32(0), 0x702410eeu);
    EXPECT_EQ(*space->read32(0x10), 0x94300000u);
    auto past = space->read8(0x14);
    ASSERT_FALSE(past.ok());
    EXPECT_NE(past.error().message().find("0000:01:00.0 offset 0x014"), std::string::npos) << past.error().message();
}

TEST(DumpFile, GapsReadAsAllOnes) {
    auto bus = DumpBackend::parse("00:1f.3 x\n00: 86 80\n20: 01\n", "inline");
    ASSERT_TRUE(bus.ok());
    ConfigSpace* space = (*bus)->open(PciAddress{0, 0, 0x1f, 3}).value();
    EXPECT_EQ(*space->read8(0x10), 0xff);
    EXPECT_EQ(*space->read8(0x20), 0x01);
}

TEST(DumpFile, RejectsBadBytesAndOffsetsBeyond4096) {
    auto bad = DumpBackend::parse("00:00.0 x\n00: 86 8g\n", "f.lspci");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, EINVAL);
    EXPECT_NE(bad.error().message().find("f.lspci:2"), std::string::npos);
    auto beyond = DumpBackend::parse("00:00.0 x\nff8: 00 00 00 00 00 00 00 00 00\n", "f.lspci");
    ASSERT_FALSE(beyond.ok());
    EXPECT_NE(beyond.error().message().find("beyond 4096"), std::string::npos);
}

TEST(DumpFile, NoDeviceIsAnError) {
    auto none = DumpBackend::parse("just text\n", "empty.lspci");
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, ENODEV);
    auto missing = DumpBackend::load("/nonexistent/file.lspci");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ENOENT);
}

// Fuzz regression (fuzz/regressions/fuzz_lspci_dump/device_without_bytes): a device line with
// no byte line under it became a config space of 0 bytes, which nothing can read.
TEST(DumpFile, DeviceLineWithoutBytesIsNoDevice) {
    auto listing = DumpBackend::parse("00:00.0 00:H00.0o ", "f.lspci");
    ASSERT_FALSE(listing.ok());
    EXPECT_EQ(listing.error().message(),
              "parse lspci dump f.lspci: No such device (no device found; capture with lspci -xxxx -s <bdf> as root)");
    auto mixed = DumpBackend::parse("00:00.0 Host bridge\n\n01:00.0 x\n00: ee 10 24 70\n", "f.lspci");
    ASSERT_TRUE(mixed.ok()) << mixed.error().message();
    const auto devices = (*mixed)->devices().value();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].to_string(), "0000:01:00.0");
}

TEST(DumpFile, WriterRoundTrips) {
    const auto devices = test::crafted_devices();
    auto bus = DumpBackend::parse(test::crafted_dump(devices), "crafted");
    ASSERT_TRUE(bus.ok());
    for (const auto& c : devices) {
        ConfigSpace* space = (*bus)->open(c.address).value();
        std::vector<uint8_t> back(space->size());
        ASSERT_TRUE(space->read(0, back.data(), space->size()).ok());
        EXPECT_EQ(back, c.bytes) << c.name;
    }
}

CapabilityList walk(const test::Crafted& c) {
    MemoryConfigSpace space(c.address, c.bytes);
    return walk_capabilities(space);
}

const test::Crafted& broken(const std::string& name) {
    static const auto all = test::broken_devices();
    for (const auto& c : all)
        if (c.name == name)
            return c;
    throw std::runtime_error(name);
}

bool has_problem(const CapabilityList& l, const std::string& text) {
    for (const auto& p : l.problems)
        if (p.find(text) != std::string::npos)
            return true;
    return false;
}

TEST(CapabilityWalker, StopsAtALoopKeyedByOffset) {
    const auto caps = walk(broken("cap_loop"));
    ASSERT_EQ(caps.standard.size(), 2u);
    EXPECT_TRUE(has_problem(caps, "loop: capability [40] visited twice"));
}

TEST(CapabilityWalker, SameIdTwiceIsNotALoop) {
    ConfigBuilder b(0x1234, 0x1, 0x058000);
    b.add_capability(PCI_CAP_ID_VNDR, {4, 0});
    b.add_capability(PCI_CAP_ID_VNDR, {4, 0});
    b.add_msi(0);
    MemoryConfigSpace space(PciAddress{}, b.bytes());
    const auto caps = walk_capabilities(space);
    EXPECT_EQ(caps.standard.size(), 3u) << "fpga_sio's ID-keyed guard stopped at the second vendor capability";
    EXPECT_TRUE(caps.problems.empty());
}

TEST(CapabilityWalker, ReportsChainBrokenAndKeepsUnknownIds) {
    const auto caps = walk(broken("chain_broken"));
    ASSERT_EQ(caps.standard.size(), 2u);
    EXPECT_EQ(caps.standard[0].id, 0x3e);
    EXPECT_EQ(capability_name(0x3e), nullptr);
    EXPECT_TRUE(has_problem(caps, "<chain broken> at [f0]"));
}

TEST(CapabilityWalker, RejectsPointerIntoHeader) {
    const auto caps = walk(broken("pointer_into_header"));
    EXPECT_EQ(caps.standard.size(), 1u);
    EXPECT_TRUE(has_problem(caps, "points into the header"));
}

TEST(CapabilityWalker, StopsAtExtendedLoop) {
    const auto caps = walk(broken("ext_loop"));
    EXPECT_EQ(caps.extended.size(), 2u);
    EXPECT_TRUE(has_problem(caps, "loop: extended capability [100] visited twice"));
}

TEST(CapabilityWalker, TruncatedCapturesDecodeWhatIsThere) {
    const auto caps = walk(broken("truncated_256"));
    EXPECT_EQ(caps.standard.size(), 1u);
    EXPECT_TRUE(caps.extended.empty());
    const auto& short_one = broken("truncated_in_cap");
    MemoryConfigSpace space(short_one.address, short_one.bytes);
    auto decoded = decode_device(space);
    ASSERT_TRUE(decoded.ok());
    EXPECT_FALSE(decoded->express.has_value());
    bool reported = false;
    for (const auto& p : decoded->problems)
        reported = reported || p.find("PCI Express capability") != std::string::npos;
    EXPECT_TRUE(reported);
}

TEST(CapabilityWalker, AllOnesSpaceIsNoDevice) {
    MemoryConfigSpace space(PciAddress{}, std::vector<uint8_t>(4096, 0xff));
    const auto caps = walk_capabilities(space);
    EXPECT_TRUE(caps.standard.empty() && caps.extended.empty());
    auto decoded = decode_device(space);
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.error().code, ENODEV);
}

TEST(CapabilityWalker, AllOnesExtendedHeaderAfterTheFirstIsBroken) {
    ConfigBuilder b(0x1234, 0x1, 0x058000);
    b.add_express(ExpressRegs{});
    const uint16_t dsn = b.add_dsn(7);
    b.set32(dsn, b.bytes()[dsn] | 1u << 16 | 0x200u << 20).set32(0x200, 0xffffffff);
    MemoryConfigSpace space(PciAddress{}, b.bytes());
    const auto caps = walk_capabilities(space);
    EXPECT_EQ(caps.extended.size(), 1u);
    EXPECT_TRUE(has_problem(caps, "<chain broken> at extended [200]"));
}

TEST(Decode, SpeedNamesNeverIndexOutOfRange) {
    EXPECT_EQ(speed_name(0), "unknown (code 0)");
    EXPECT_EQ(speed_name(7), "unknown (code 7)");
    EXPECT_EQ(speed_name(15), "unknown (code 15)");
    EXPECT_EQ(speed_name(6), "64 GT/s");
    EXPECT_EQ(speed_name_lspci(5), "32GT/s");
}

TEST(Decode, AerStatusIsDecodedToNames) {
    const auto names = aer_uncorrectable_names(0x00104010);
    EXPECT_EQ(names, (std::vector<std::string>{"DLP", "CmpltTO", "UnsupReq"}));
    EXPECT_EQ(aer_correctable_names(0x00002041), (std::vector<std::string>{"RxErr", "BadTLP", "AdvNonFatalErr"}));
}

TEST(Decode, MaxPayloadAndReadRequest) {
    const auto devices = test::crafted_devices();
    MemoryConfigSpace space(devices[0].address, devices[0].bytes);
    auto d = decode_device(space);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(d->express);
    EXPECT_EQ(d->express->max_payload(), 512u);       // DevCtl 0x5957: [7:5] = 2
    EXPECT_EQ(d->express->max_read_request(), 4096u); // [14:12] = 5
    EXPECT_EQ(d->express->max_payload_supported(), 4096u);  // DevCap [2:0] = 5
    EXPECT_EQ(d->express->max_speed(), 5);
    EXPECT_EQ(d->express->speed(), 1);
    ASSERT_TRUE(d->dsn);
    EXPECT_EQ(format_dsn(*d->dsn).substr(format_dsn(*d->dsn).find("Number ")), "Number 48-b0-2d-00-00-f0-12-34");
}

}  // namespace
}  // namespace pcie
