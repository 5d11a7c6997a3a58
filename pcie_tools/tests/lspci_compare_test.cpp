// Our decode agrees with lspci -vvv on every field both print: each fixture (real captures of
// this machine, the QEMU guest and the H200 machine, plus crafted spaces) is decoded by us and
// by the real lspci (-F), and both texts are compared register by register, field by field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

#include "crafted.hpp"
#include "lspci_text.hpp"
#include "pcie_tools/dump_file.hpp"
#include "pcie_tools/format.hpp"

namespace pcie {
namespace {

namespace fs = std::filesystem;

std::string short_name(const PciAddress& a) {
    const std::string full = a.to_string();
    return a.domain == 0 ? full.substr(5) : full;
}

std::string lspci_name(const std::string& name) { return name.rfind("0000:", 0) == 0 ? name.substr(5) : name; }

// Known, documented divergences where lspci 3.9 is the one behind the spec.
bool known_divergence(const std::string& reg, const std::string& field, const std::string& ours,
                      const std::string& theirs) {
    // lspci 3.9 prints "RsvdP" for a Supported Link Speeds vector that includes 64 GT/s.
    if (reg.ends_with("/LnkCap2") && field == "Supported" && theirs == "Link Speeds: RsvdP" &&
        ours.find("64GT/s") != std::string::npos)
        return true;
    return false;
}

struct Comparison {
    unsigned fields = 0;
    std::set<std::string> registers;
};

Comparison compare_fixture(const std::string& path) {
    Comparison result;
    int status = 0;
    const std::string text = test::run_command("lspci -vvv -F '" + path + "' 2>/dev/null", &status);
    EXPECT_EQ(status, 0) << "lspci -vvv -F " << path;
    const test::Devices theirs_all = test::parse_lspci(text);
    auto bus = DumpBackend::load(path);
    EXPECT_TRUE(bus.ok()) << (bus ? "" : bus.error().message());
    if (!bus)
        return result;
    const std::vector<PciAddress> addresses = (*bus)->devices().value();
    for (const PciAddress& address : addresses) {
        ConfigSpace* space = *(*bus)->open(address);
        auto decoded = decode_device(*space);
        if (!decoded)
            continue;
        const test::Registers ours = test::parse_registers(format_device(*decoded, SystemInfo{}));
        test::Registers theirs;
        bool shown = false;
        for (const auto& [name, regs] : theirs_all)
            if (lspci_name(name) == short_name(address)) {
                theirs = regs;
                shown = true;
            }
        EXPECT_TRUE(shown) << path << ": lspci did not show " << short_name(address);
        for (const auto& [reg, their_fields] : theirs) {
            const auto mine = ours.find(reg);
            if (mine == ours.end())
                continue;
            const std::string where = path + " " + short_name(address) + " [" + reg + "]";
            if (reg.ends_with("/header")) {
                const std::string& our_text = mine->second.at("text");
                if (our_text.rfind("Unknown", 0) != 0) {
                    EXPECT_EQ(their_fields.at("text").rfind(our_text, 0), 0u) << where << " ours: " << our_text
                                                                               << " lspci: " << their_fields.at("text");
                }
                continue;
            }
            result.registers.insert(reg.substr(reg.find('/') + 1));
            for (const auto& [field, value] : their_fields) {
                const auto our_value = mine->second.find(field);
                if (our_value == mine->second.end())
                    continue;
                ++result.fields;
                if (!known_divergence(reg, field, our_value->second, value)) {
                    EXPECT_EQ(our_value->second, value) << where << " field " << field;
                }
            }
        }
        // Every PCI Express function: the four registers of the acceptance test were compared.
        if (decoded->express)
            for (const char* name : {"DevCap", "DevCtl", "LnkCap", "LnkSta"}) {
                bool found = false;
                for (const auto& [reg, f] : theirs)
                    found = found || (reg.ends_with(std::string("/") + name) && ours.count(reg));
                EXPECT_TRUE(found) << path << " " << short_name(address) << ": " << name << " not compared";
            }
    }
    return result;
}

bool have_lspci() {
    int status = 0;
    test::run_command("lspci --version >/dev/null 2>&1", &status);
    return status == 0;
}

TEST(LspciCompare, EveryCapturedFixtureAgreesWithLspci) {
    if (!have_lspci())
        GTEST_SKIP() << "lspci (pciutils) not installed";
    unsigned files = 0, fields = 0;
    std::set<std::string> registers;
    for (const auto& entry : fs::directory_iterator(PDT_PCIE_FIXTURES)) {
        if (entry.path().extension() != ".lspci")
            continue;
        SCOPED_TRACE(entry.path().string());
        const Comparison c = compare_fixture(entry.path().string());
        ++files;
        fields += c.fields;
        registers.insert(c.registers.begin(), c.registers.end());
    }
    EXPECT_GE(files, 5u) << "fixtures missing in " << PDT_PCIE_FIXTURES;
    for (const char* name : {"DevCap", "DevCtl", "DevSta", "LnkCap", "LnkCtl", "LnkSta", "DevCap2", "DevCtl2",
                             "LnkCap2", "LnkCtl2", "LnkSta2", "SltCap", "UESta", "CESta", "AERCap", "Flags", "Status"})
        EXPECT_TRUE(registers.count(name)) << name << " never compared";
    EXPECT_GT(fields, 500u);
    std::cout << "compared " << fields << " fields in " << files << " fixtures\n";
}

TEST(LspciCompare, CraftedSpacesAgreeWithLspci) {
    if (!have_lspci())
        GTEST_SKIP() << "lspci (pciutils) not installed";
    auto devices = test::crafted_devices();
    const auto broken = test::broken_devices();
    devices.insert(devices.end(), broken.begin(), broken.end());
    const fs::path path = fs::temp_directory_path() / ("pcie_crafted_" + std::to_string(::getpid()) + ".lspci");
    std::ofstream(path) << test::crafted_dump(devices);
    const Comparison c = compare_fixture(path.string());
    fs::remove(path);
    EXPECT_GT(c.fields, 300u);
}

// The comparison can fail: a decoder that printed one flag wrong is caught.
TEST(LspciCompare, DetectsADifference) {
    const test::Fields ours = test::parse_fields(" Port #0, Speed 8GT/s, Width x4\nClockPM- Surprise+");
    const test::Fields theirs = test::parse_fields("\tPort #0, Speed 8GT/s, Width x4\n\t\t\tClockPM- Surprise-");
    EXPECT_EQ(ours.at("Speed"), "8GT/s");
    EXPECT_EQ(ours.at("Width"), "x4");
    EXPECT_EQ(ours.at("Port"), "#0");
    EXPECT_NE(ours.at("Surprise"), theirs.at("Surprise"));
    EXPECT_EQ(ours.at("ClockPM"), theirs.at("ClockPM"));
}

}  // namespace
}  // namespace pcie
