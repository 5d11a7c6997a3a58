// Our decode agrees with `lspci -vvv` on every token of every line it prints for a function:
// each fixture (real captures of this machine, the QEMU guest with root ports, a switch,
// bridges and integrated endpoints, the H200 machine, plus crafted spaces for capabilities QEMU
// cannot make) is decoded by us (format_lspci_function) and by the real lspci (-F), both texts
// are aligned line by line and compared word by word. Any difference fails the test unless the
// allow-list below accepts it, with its reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <unistd.h>

#include "crafted.hpp"
#include "lspci_text.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/dump_info.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {
namespace {

namespace fs = std::filesystem;

std::string lspci_name(const PciAddress& a) {
    const std::string full = a.to_string();
    return a.domain == 0 ? full.substr(5) : full;
}

// The allow-list: lines where lspci 3.9 (Debian 12) is the one behind the spec.
bool allowed(const std::string& theirs, const std::string& ours) {
    // lspci 3.9 prints "RsvdP" for a Supported Link Speeds vector that includes 64 GT/s (PCIe 6.0).
    if (theirs.find("Supported Link Speeds: RsvdP") != std::string::npos)
        return ours.find("64GT/s") != std::string::npos;
    // A capability pointer below 0x40 points into the header: lspci decodes header bytes as a
    // capability there, we stop the walk and say so.
    if (std::regex_search(theirs, std::regex("^\tCapabilities: \\[[0-3][0-9a-f]\\] ")))
        return ours.find("<points into the header>") != std::string::npos;
    // CXL Extensions DVSEC for Ports: lspci 3.9 labels the Alternate Memory Base/Limit
    // "AlternateBus" (a second time), and tests bits 1 and 3 of the Port Power Management
    // Initialization Status for PMComplete, where CXL 2.0 section 8.1.5 defines bit 0.
    if (std::regex_search(theirs, std::regex("^\t\tAlternateBus:\t[0-9a-f]{4}-[0-9a-f]{4}$")))
        return ours == std::regex_replace(theirs, std::regex("AlternateBus"), "AlternateMem");
    if (theirs.rfind("\t\tCXLPortSta:\tPMComplete", 0) == 0)
        return ours.rfind("\t\tCXLPortSta:\tPMComplete", 0) == 0;
    return false;
}

struct FixtureResult {
    unsigned functions = 0, total = 0, matched = 0, allowed = 0;
};

FixtureResult compare_fixture(const std::string& path) {
    FixtureResult result;
    int status = 0;
    const std::string text = test::run_command("lspci -vvv -F '" + path + "' 2>/dev/null", &status);
    EXPECT_EQ(status, 0) << "lspci -vvv -F " << path;
    const auto theirs_all = test::split_functions(text);
    auto bus = DumpBackend::load(path);
    EXPECT_TRUE(bus.ok()) << (bus ? "" : bus.error().message());
    if (!bus)
        return result;
    const auto listed = (*bus)->devices();
    EXPECT_TRUE(listed.ok());
    const std::vector<PciAddress> addresses = listed ? *listed : std::vector<PciAddress>{};
    for (const PciAddress& address : addresses) {
        ConfigSpace* space = *(*bus)->open(address);
        auto decoded = decode_device(*space);
        const auto theirs = theirs_all.find(lspci_name(address));
        if (!decoded) {
            EXPECT_TRUE(theirs == theirs_all.end()) << path << ": lspci shows " << lspci_name(address);
            continue;
        }
        EXPECT_TRUE(theirs != theirs_all.end()) << path << ": lspci did not show " << lspci_name(address);
        if (theirs == theirs_all.end())
            continue;
        const test::TokenReport r = test::compare_tokens(theirs->second, format_lspci_function(*decoded), allowed);
        ++result.functions;
        result.total += r.total;
        result.matched += r.matched;
        result.allowed += r.allowed;
        for (const std::string& m : r.mismatches)
            ADD_FAILURE() << path << " " << lspci_name(address) << ":\n  " << m;
    }
    std::cout << "lspci tokens " << fs::path(path).filename().string() << ": " << result.matched << "/" << result.total
              << " matched in " << result.functions << " functions (" << result.allowed << " allowed)\n";
    return result;
}

bool have_lspci() {
    int status = 0;
    test::run_command("lspci --version >/dev/null 2>&1", &status);
    return status == 0;
}

TEST(LspciCompare, EveryTokenOfEveryCapturedFixture) {
    if (!have_lspci())
        GTEST_SKIP() << "lspci (pciutils) not installed";
    unsigned files = 0, total = 0, matched = 0;
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(PDT_PCIE_FIXTURES))
        if (entry.path().extension() == ".lspci")
            paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    for (const fs::path& p : paths) {
        const FixtureResult r = compare_fixture(p.string());
        ++files;
        total += r.total;
        matched += r.matched;
    }
    EXPECT_GE(files, 5u) << "fixtures missing in " << PDT_PCIE_FIXTURES;
    EXPECT_GT(total, 2000u);
    std::cout << "lspci tokens, all captured fixtures: " << matched << "/" << total << " in " << files << " files\n";
}

TEST(LspciCompare, EveryTokenOfCraftedSpaces) {
    if (!have_lspci())
        GTEST_SKIP() << "lspci (pciutils) not installed";
    auto devices = test::crafted_devices();
    const auto broken = test::broken_devices();
    devices.insert(devices.end(), broken.begin(), broken.end());
    const auto more = test::crafted_capability_devices();
    devices.insert(devices.end(), more.begin(), more.end());
    const auto cxl = test::crafted_cxl_devices();
    devices.insert(devices.end(), cxl.begin(), cxl.end());
    const fs::path path = fs::temp_directory_path() / ("pcie_crafted_" + std::to_string(::getpid()) + ".lspci");
    std::ofstream(path) << test::crafted_dump(devices);
    if (const char* keep = std::getenv("PDT_CRAFTED_DUMP"))  // to look at both texts by hand
        fs::copy_file(path, keep, fs::copy_options::overwrite_existing);
    const FixtureResult r = compare_fixture(path.string());
    fs::remove(path);
    EXPECT_GT(r.total, 1000u);
}

// The comparison can fail: one flag printed wrong, a missing line and an extra line are caught.
TEST(LspciCompare, DetectsDifferences) {
    const test::Lines theirs = {"00:01.0 PCI bridge: X", "\tLnkCap:\tPort #0, Speed 8GT/s", "\t\tClockPM- Surprise-"};
    test::TokenReport same = test::compare_tokens(theirs, theirs, nullptr);
    EXPECT_EQ(same.matched, same.total);
    EXPECT_TRUE(same.mismatches.empty());
    const test::Lines flag = {"00:01.0 PCI bridge: X", "\tLnkCap:\tPort #0, Speed 8GT/s", "\t\tClockPM- Surprise+"};
    test::TokenReport r = test::compare_tokens(theirs, flag, nullptr);
    EXPECT_EQ(r.total, 11u);
    EXPECT_EQ(r.matched, 10u);
    ASSERT_EQ(r.mismatches.size(), 1u);
    EXPECT_NE(r.mismatches[0].find("Surprise+"), std::string::npos);
    r = test::compare_tokens(theirs, {theirs[0], theirs[2]}, nullptr);
    EXPECT_EQ(r.matched, 6u);
    EXPECT_EQ(r.mismatches.size(), 1u);
    r = test::compare_tokens(theirs, {theirs[0], theirs[1], theirs[2], "\textra line"}, nullptr);
    EXPECT_EQ(r.matched, r.total);
    EXPECT_EQ(r.mismatches.size(), 1u);
    r = test::compare_tokens({"\tLnkCap2: Supported Link Speeds: RsvdP"}, {"\tLnkCap2: Supported Link Speeds: 2.5-64GT/s"},
                             allowed);
    EXPECT_TRUE(r.mismatches.empty());
    EXPECT_EQ(r.allowed, 1u);
    // The CXL port allowances accept lspci's label and bit only, not another range.
    r = test::compare_tokens({"\t\tAlternateBus:\td000-d0f0"}, {"\t\tAlternateMem:\td000-d0f0"}, allowed);
    EXPECT_TRUE(r.mismatches.empty());
    r = test::compare_tokens({"\t\tAlternateBus:\td000-d0f0"}, {"\t\tAlternateMem:\td000-d0ff"}, allowed);
    EXPECT_FALSE(r.mismatches.empty());
    r = test::compare_tokens({"\t\tCXLPortSta:\tPMComplete-"}, {"\t\tCXLPortSta:\tPMComplete+"}, allowed);
    EXPECT_TRUE(r.mismatches.empty());
    r = test::compare_tokens({"\t\tCXLPortSta:\tPMComplete-"}, {"\t\tCXLPortCtl:\tPMComplete+"}, allowed);
    EXPECT_FALSE(r.mismatches.empty());
}

}  // namespace
}  // namespace pcie

namespace pcie {
namespace {

const nlohmann::json* capability(const nlohmann::json& device, const std::string& name_prefix) {
    for (const nlohmann::json& c : device.at("capabilities"))
        if (c.at("name").get<std::string>().rfind(name_prefix, 0) == 0)
            return &c;
    return nullptr;
}

// What --json says of the function at `address` itself (the first entry of its path). Where it cannot be dumped,
// a failure with the error, and an empty object that fails the test at its first field.
nlohmann::json function_json(ConfigBackend& bus, const PciAddress& address) {
    auto dumped = dump_device_json(bus, address);
    EXPECT_TRUE(dumped.ok()) << dumped.error().message();
    return dumped.ok() ? dumped->at("path").at(0) : nlohmann::json::object();
}

// The decoded registers of the capability of `device` whose name starts with `name_prefix`. Where it has none, a
// failure naming it, and an empty object that fails the test at its first register.
const nlohmann::json& registers(const nlohmann::json& device, const std::string& name_prefix) {
    static const nlohmann::json none = nlohmann::json::object();
    const nlohmann::json* c = capability(device, name_prefix);
    EXPECT_NE(c, nullptr) << "no capability " << name_prefix;
    return c ? c->at("registers") : none;
}

// --json carries the fields lspci decodes, register by register, for the capabilities decoded
// into sections, and the slot, root and AER root registers.
TEST(LspciCompare, JsonCarriesTheDecodedFields) {
    const auto devices = test::crafted_capability_devices();
    auto bus = DumpBackend::parse(test::crafted_dump(devices), "crafted");
    ASSERT_TRUE(bus.ok());
    const nlohmann::json port = function_json(**bus, PciAddress{0, 0, 3, 0});
    const nlohmann::json& acs = registers(port, "Access Control Services");
    EXPECT_EQ(acs.at("ACSCap").at("SrcValid"), true);
    EXPECT_EQ(acs.at("ACSCap").at("EgressCtrl"), false);
    const nlohmann::json& dpc = registers(port, "Downstream Port Containment");
    EXPECT_EQ(dpc.at("DpcCap").at("INT Msg"), "#4");
    EXPECT_EQ(dpc.at("Source").at("value"), "0100");
    EXPECT_EQ(port.at("express").at("slot_number"), 3u);
    EXPECT_EQ(port.at("express").at("pme_requester_id"), "0300");
    EXPECT_EQ(port.at("aer").at("error_source_correctable"), "2100");
    const nlohmann::json e = function_json(**bus, PciAddress{0, 0x20, 0, 0});
    EXPECT_EQ(registers(e, "Single Root I/O Virtualization").at("VFs").at("Total VFs"), "8");
    EXPECT_EQ(registers(e, "L1 PM Substates").at("L1SubCtl1").at("LTR1.2_Threshold"), "163840ns");
    EXPECT_EQ(registers(e, "PCI Advanced Features").at("AFCap").at("FLR"), true);
}

// The same for CXL's DVSECs, Multicast, Root Complex Link Declaration, Enhanced Allocation and VPD.
TEST(LspciCompare, JsonCarriesCxlMulticastLinkAndAllocationFields) {
    auto bus = DumpBackend::parse(test::crafted_dump(test::crafted_cxl_devices()), "crafted");
    ASSERT_TRUE(bus.ok());
    const nlohmann::json m = function_json(**bus, PciAddress{0, 0x51, 0, 0});
    const nlohmann::json& cxl = registers(m, "Designated Vendor-Specific: Vendor=1e98 ID=0000");
    EXPECT_EQ(cxl.at("CXLCap").at("Mem HW Init"), true);
    EXPECT_EQ(cxl.at("CXLCap").at("HDMCount"), "1");
    EXPECT_EQ(cxl.at("Cache Size").at("Cache Size"), "00040000");
    EXPECT_EQ(cxl.at("Range1").at("value"), "0000001000000000-00000010ffffffff");
    EXPECT_EQ(cxl.at("Range1").at("timeout"), "4s");
    const nlohmann::json& locator = registers(m, "Designated Vendor-Specific: Vendor=1e98 ID=0008");
    EXPECT_EQ(locator.at("Block2").at("ID"), "CXL device registers");
    EXPECT_EQ(locator.at("Block2").at("offset"), "0000000000010000");
    const nlohmann::json& mc = registers(m, "Multicast");
    EXPECT_EQ(mc.at("McastCap").at("WindowSz"), "12 (4096 bytes)");
    EXPECT_EQ(mc.at("McastCtl").at("NumGroups"), "16");
    EXPECT_EQ(registers(m, "Vital Product Data").at("VPD").at("value"), "Not readable");
    const nlohmann::json p = function_json(**bus, PciAddress{0, 0x50, 1, 0});
    const nlohmann::json& link = registers(p, "Root Complex Link");
    EXPECT_EQ(link.at("Desc").at("EltType"), "Egress");
    EXPECT_EQ(link.at("Link1").at("LinkType"), "Config");
    EXPECT_EQ(link.at("Link1").at("value"), "05:1c.2");
    EXPECT_EQ(registers(p, "Multicast").at("McastOverlayBAR").at("OverlaySize"), "12 (4096 bytes)");
    EXPECT_EQ(registers(p, "Designated Vendor-Specific: Vendor=1e98 ID=0003").at("AlternateMem").at("value"),
              "d000-d0f0");
    const nlohmann::json rciep = function_json(**bus, PciAddress{0, 0, 0x1c, 0});
    const nlohmann::json& ea = registers(rciep, "Enhanced Allocation (EA): NumEntries=3");
    EXPECT_EQ(ea.at("Entry 1").at("Base"), "4000000000");
    EXPECT_EQ(ea.at("Entry 2").at("PrimaryProperties"), "memory space resource unavailable for use");
    EXPECT_EQ(ea.at("Entry 2").at("Enable"), false);
}

}  // namespace
}  // namespace pcie
