// Acceptance test of F23 (dump_pci_info): each function's text is fpga_sio's dump_pci_info, line
// for line. The expected lines are built here from the raw config space with fpga_sio's printf
// format strings, as they are in its dump_pci_info.c (display_pci_device, display_pci_capabilities,
// display_power_management_capabilities, display_pci_express_capabilities,
// display_extended_pci_capabilities), independently of format_fpga_sio.cpp; functions: the
// simulated topology of --access sim (an endpoint, a root port, a switch) and every lspci
// capture of real and QEMU devices among the fixtures.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "pcie_tools/config_text.hpp"
#include "pcie_tools/dump_file.hpp"
#include "sim/config_topology.hpp"
#include "test_support/text.hpp"

namespace pcie {
namespace {

using test_support::c_format;

// '+' or '-' for a bit.
char pm(uint32_t value, unsigned bit) { return (value >> bit) & 1 ? '+' : '-'; }
uint32_t bits(uint32_t value, unsigned low, unsigned width) { return (value >> low) & ((1u << width) - 1); }

// fpga_sio's table entries for the values the fixtures hold; others are "Unknown encoding".
std::string enum_text(const std::map<uint32_t, std::string>& names, uint32_t value) {
    const auto it = names.find(value);
    return it != names.end() ? it->second : c_format("Unknown encoding 0x%x", value);
}
const std::map<uint32_t, std::string> kSpeed = {{1, "2.5 GT/s"}, {2, "5 GT/s"}, {3, "8 GT/s"}, {4, "16 GT/s"},
                                                {5, "32 GT/s"}, {6, "64 GT/s"}};

struct Raw {
    ConfigSpace& space;
    uint32_t u8(uint32_t at) { return space.read8(at).value(); }
    uint32_t u16(uint32_t at) { return space.read16(at).value(); }
    uint32_t u32(uint32_t at) { return space.read32(at).value(); }
};

double watts(uint32_t value, uint32_t scale) {
    const double kScale[] = {1.0, 0.1, 0.01, 0.001};
    if (scale == 0 && value > 0xef)
        return value == 0xf0 ? 250 : value == 0xf1 ? 275 : 300;
    return value * kScale[scale];
}

void expect_express(Raw r, uint32_t c, std::vector<std::string>& out) {
    const uint32_t flags = r.u16(c + 2), devcap = r.u32(c + 4), devctl = r.u16(c + 8), devsta = r.u16(c + 10);
    const uint32_t lnkcap = r.u32(c + 12), lnkctl = r.u16(c + 16), lnksta = r.u16(c + 18), sltcap = r.u32(c + 20);
    const uint32_t lnkcap2 = r.u32(c + 44);
    const std::map<uint32_t, std::string> types = {{0, "Express Endpoint"}, {1, "Legacy Endpoint"}, {4, "Root Port"},
                                                   {5, "Upstream Port"}, {6, "Downstream Port"},
                                                   {7, "PCIe to PCI/PCI-X Bridge"},
                                                   {9, "Root Complex Integrated Endpoint"}};
    const std::map<uint32_t, std::string> payload = {{0, "128 bytes"}, {1, "256 bytes"}, {2, "512 bytes"},
                                                     {3, "1024 bytes"}};
    const std::map<uint32_t, std::string> l0s = {{0, "Maximum of 64 ns"}, {6, "Maximum of 4 μs"}, {7, "No limit"}};
    const std::map<uint32_t, std::string> l1 = {{0, "Maximum of 1 μs"}, {6, "Maximum of 64 μs"}, {7, "No limit"}};
    const std::map<uint32_t, std::string> aspm = {{0, "not supported"}, {1, "L0s"}, {2, "L1"}, {3, "L0s and L1"}};
    const std::map<uint32_t, std::string> l0s_exit = {{0, "Less than 64 ns"}, {2, "128 ns to less than 256 ns"},
                                                      {5, "1 μs to less than 2 μs"}, {6, "2 μs to 4 μs"},
                                                      {7, "More than 4 μs"}};
    const std::map<uint32_t, std::string> l1_exit = {{0, "Less than 1 μs"}, {2, "2 μs to less than 4 μs"},
                                                     {3, "4 μs to less than 8 μs"}, {6, "32 μs to 64 μs"},
                                                     {7, "More than 64 μs"}};
    const std::map<uint32_t, std::string> aspm_control = {{0, "Disabled"}, {1, "L0s Entry Enabled"},
                                                          {2, "L1 Entry Enabled"}, {3, "L0s and L1 Entry Enabled"}};
    out.back() += c_format(" v%u %s, MSI %u", flags & 0xf, enum_text(types, bits(flags, 4, 4)).c_str(), bits(flags, 9, 5));
    out.push_back(c_format("    Link capabilities: Max speed %s Max width x%u", enum_text(kSpeed, lnkcap & 0xf).c_str(),
                           bits(lnkcap, 4, 6)));
    out.push_back(c_format("    Negotiated link status: Current speed %s Width x%u",
                           enum_text(kSpeed, lnksta & 0xf).c_str(), bits(lnksta, 4, 6)));
    std::string speeds = "    Link capabilities2: ";
    speeds += lnkcap2 ? "Supported link speeds" : "Not implemented";
    for (const auto& [bit, name] : std::map<unsigned, const char*>{{1, " 2.5 GT/s"}, {2, " 5.0 GT/s"}, {3, " 8.0 GT/s"},
                                                                   {4, " 16.0 GT/s"}})
        if (lnkcap2 & (1u << bit))
            speeds += name;
    out.push_back(speeds);
    out.push_back(c_format("    DevCap: MaxPayload %s PhantFunc %u Latency L0s %s L1 %s",
                           enum_text(payload, devcap & 7).c_str(), bits(devcap, 3, 2),
                           enum_text(l0s, bits(devcap, 6, 3)).c_str(), enum_text(l1, bits(devcap, 9, 3)).c_str()));
    out.push_back(c_format("            ExtTag%c AttnBtn%c AttnInd%c PwrInd%c RBE%c FLReset%c SlotPowerLimit %.3fW",
                           pm(devcap, 5), pm(devcap, 12), pm(devcap, 13), pm(devcap, 14), pm(devcap, 15), pm(devcap, 28),
                           watts(bits(devcap, 18, 8), bits(devcap, 26, 2))));
    out.push_back(c_format("    DevCtl: CorrErr%c NonFatalErr%c FatalErr%c UnsupReq%c", pm(devctl, 0), pm(devctl, 1),
                           pm(devctl, 2), pm(devctl, 3)));
    out.push_back(c_format("            RlxdOrd%c ExtTag%c PhantFunc%c AuxPwr%c NoSnoop%c", pm(devctl, 4), pm(devctl, 8),
                           pm(devctl, 9), pm(devctl, 10), pm(devctl, 11)));
    out.push_back(c_format("    DevSta: CorrErr%c NonFatalErr%c FatalErr%c UnsupReq%c AuxPwr%c TransPend%c", pm(devsta, 0),
                           pm(devsta, 1), pm(devsta, 2), pm(devsta, 3), pm(devsta, 4), pm(devsta, 5)));
    out.push_back(c_format("    LnkCap: Port # %u ASPM %s", lnkcap >> 24, enum_text(aspm, bits(lnkcap, 10, 2)).c_str()));
    out.push_back(c_format("            L0s Exit Latency %s", enum_text(l0s_exit, bits(lnkcap, 12, 3)).c_str()));
    out.push_back(c_format("            L1 Exit Latency %s", enum_text(l1_exit, bits(lnkcap, 15, 3)).c_str()));
    out.push_back(c_format("            ClockPM%c Surprise%c LLActRep%c BwNot%c ASPMOptComp%c", pm(lnkcap, 18),
                           pm(lnkcap, 19), pm(lnkcap, 20), pm(lnkcap, 21), pm(lnkcap, 22)));
    out.push_back(c_format("    LnkCtl: ASPM %s RCB %u bytes Disabled%c CommClk%c",
                           enum_text(aspm_control, lnkctl & 3).c_str(), (lnkctl & 8) ? 128 : 64, pm(lnkctl, 4),
                           pm(lnkctl, 6)));
    out.push_back(c_format("            ExtSynch%c ClockPM%c AutWidDis%c BWInt%c ABWMgmt%c", pm(lnkctl, 7), pm(lnkctl, 8),
                           pm(lnkctl, 9), pm(lnkctl, 10), pm(lnkctl, 11)));
    out.push_back(c_format("    LnkSta: TrErr%c Train%c SlotClk%c DLActive%c BWMgmt%c ABWMgmt%c", pm(lnksta, 10),
                           pm(lnksta, 11), pm(lnksta, 12), pm(lnksta, 13), pm(lnksta, 14), pm(lnksta, 15)));
    if (!(flags & 0x100))
        return;
    out.push_back(c_format("    SltCap: AttnBtn%c PwrCtrl%c MRL%c AttnInd%c PwrInd%c HotPlug%c Surprise%c", pm(sltcap, 0),
                           pm(sltcap, 1), pm(sltcap, 2), pm(sltcap, 3), pm(sltcap, 4), pm(sltcap, 6), pm(sltcap, 5)));
    out.push_back(c_format("            Slot #%u PowerLimit %.3fW Interlock%c NoCompl%c", sltcap >> 19,
                           watts(bits(sltcap, 7, 8), bits(sltcap, 15, 2)), pm(sltcap, 17), pm(sltcap, 18)));
}

void expect_power_management(Raw r, uint32_t c, std::vector<std::string>& out) {
    const uint32_t pmc = r.u16(c + 2), ctl = r.u16(c + 4);
    const unsigned aux_ma[] = {0, 55, 100, 160, 220, 270, 320, 375};
    out.back() += c_format(" version %u", pmc & 7);
    out.push_back(c_format("    Flags: PMEClk%c DSI%c D1%c D2%c AuxCurrent=%umA PME(D0%c,D1%c,D2%c,D3hot%c,D3cold%c)",
                           pm(pmc, 3), pm(pmc, 5), pm(pmc, 9), pm(pmc, 10), aux_ma[bits(pmc, 6, 3)], pm(pmc, 11),
                           pm(pmc, 12), pm(pmc, 13), pm(pmc, 14), pm(pmc, 15)));
    out.push_back(c_format("    Status: D%u NoSoftRst%c PME-Enable%c DSel=%u DScale=%u PME%c", ctl & 3, pm(ctl, 3),
                           pm(ctl, 8), bits(ctl, 9, 4), bits(ctl, 13, 2), pm(ctl, 15)));
}

// The capability lines of one function, as fpga_sio prints them.
std::vector<std::string> expected_capabilities(ConfigSpace& space) {
    Raw r{space};
    const std::map<uint32_t, std::string> names = {{1, "Power Management"}, {5, "Message Signaled Interrupts"},
                                                   {9, "Vendor specific"}, {0x10, "PCI Express"}, {0x11, "MSI-X"},
                                                   {0x12, "Serial-ATA HBA"}, {0x0d, "Bridge subsystem vendor/device ID"},
                                                   {0x0c, "PCI hot-plug"}, {4, "Slot Identification"}};
    const std::map<uint32_t, std::string> extended = {
        {1, "Advanced Error Reporting"}, {2, "Virtual Channel Capability"}, {3, "Device Serial Number"},
        {0x0b, "Vendor-Specific"}, {0x0d, "Access Control Services"}, {0x0e, "Alternate Routing ID"},
        {0x0f, "Address Translation Services"}, {0x10, "Single Root I/O Virtualization"},
        {0x15, "Resizable BAR"}, {0x18, "Latency Tolerance Reporting"}, {0x19, "Secondary PCIe Capability"},
        {0x1e, "L1 PM Substates"}, {0x1f, "Precision Time Measurement"}, {0x25, "Data Link Feature"},
        {0x26, "Physical Layer 16.0 GT/s"}, {0x27, "Lane Margining at Receiver"}};
    std::vector<std::string> out;
    if (!(r.u16(6) & 0x10))
        return out;
    std::set<uint32_t> seen;
    for (uint32_t p = r.u8(0x34); p != 0 && seen.insert(p).second; p = r.u8(p + 1)) {
        const uint32_t id = r.u8(p);
        out.push_back(c_format("  Capabilities: [%x] %s", p, enum_text(names, id).c_str()));
        if (id == 0x10)
            expect_express(r, p, out);
        if (id == 1)
            expect_power_management(r, p, out);
    }
    if (space.size() <= 0x100 || r.u32(0x100) == 0xffffffffu)
        return out;
    seen.clear();
    for (uint32_t at = 0x100, h = r.u32(at); at != 0 && (h & 0xffff) != 0 && seen.insert(h & 0xffff).second;
         at = h >> 20, h = r.u32(at)) {
        out.push_back(c_format("  Capabilities: [%x v%u] %s", at, bits(h, 16, 4), enum_text(extended, h & 0xffff).c_str()));
        for (uint32_t byte = 11; (h & 0xffff) == 3 && byte >= 4; --byte)
            out.back() += c_format("%s%02x", byte == 11 ? " " : "-", r.u8(at + byte));
    }
    return out;
}

// The lines of format_device from the "  Capabilities:" line on, against fpga_sio's.
void expect_fpga_sio_capabilities(ConfigSpace& space, const std::string& what) {
    const DeviceConfig decoded = decode_device(space).value();
    const Lines ours = format_device(space, decoded, SystemInfo{});
    const auto first = std::find_if(ours.begin(), ours.end(),
                                    [](const std::string& l) { return l.starts_with("  Capabilities: ["); });
    const std::vector<std::string> expected = expected_capabilities(space);
    if (expected.empty()) {  // no capability list: no capability line
        EXPECT_EQ(first, ours.end()) << what << ": " << *first;
        return;
    }
    ASSERT_GE(static_cast<size_t>(ours.end() - first), expected.size()) << what;
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(first[static_cast<long>(i)], expected[i]) << what << " line " << i;
    for (auto rest = first + static_cast<long>(expected.size()); rest != ours.end(); ++rest)
        EXPECT_TRUE(rest->starts_with("  Warning: ")) << what << ": a line fpga_sio does not print: " << *rest;
}

TEST(DumpFpgaSioFormat, SimulatedTopologyCapabilitiesAreFpgaSiosLineForLine) {
    auto bus = ::sim::make_demo_topology();
    const auto devices = bus->devices().value();
    ASSERT_GE(devices.size(), 3u);
    for (const PciAddress& a : devices)
        expect_fpga_sio_capabilities(*bus->open(a).value(), a.to_string());
}

TEST(DumpFpgaSioFormat, CapturedDevicesCapabilitiesAreFpgaSiosLineForLine) {
    size_t checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(PDT_PCIE_FIXTURES)) {
        if (entry.path().extension() != ".lspci" || !entry.path().filename().string().starts_with("qemu_"))
            continue;
        auto dump = DumpBackend::load(entry.path().string());
        ASSERT_TRUE(dump.ok()) << entry.path() << ": " << dump.error().message();
        const std::vector<PciAddress> functions = (*dump)->devices().value();
        for (const PciAddress& a : functions) {
            if ((*dump)->open(a).value()->size() < 0x100)
                continue;  // a capture of the header alone (lspci -x)
            expect_fpga_sio_capabilities(*(*dump)->open(a).value(), entry.path().filename().string() + " " + a.to_string());
            ++checked;
        }
    }
    EXPECT_GE(checked, 20u);
}

// The identity, command, status and BAR lines with fpga_sio's formats and indents.
TEST(DumpFpgaSioFormat, HeaderLinesAreFpgaSios) {
    auto bus = ::sim::make_demo_topology();
    const PciAddress endpoint{0, 1, 0, 0};
    ConfigSpace& space = *bus->open(endpoint).value();
    Raw r{space};
    SystemInfo info;
    info.vendor_name = "Xilinx Corporation";
    info.device_name = "Device";
    info.iommu_group = 7;
    info.driver = "vfio-pci";
    info.physical_slot = "3";
    info.numa_node = 0;
    info.bar_size[0] = 0x100000;
    const Lines ours = format_device(space, decode_device(space).value(), info);
    const uint32_t cmd = r.u16(4), st = r.u16(6);
    const std::vector<std::string> expected = {
        c_format("domain=%04x bus=%02x dev=%02x func=%02x rev=%02x", 0u, 1u, 0u, 0u, r.u8(8)),
        c_format("  vendor_id=%04x (%s) device_id=%04x (%s) subvendor_id=%04x subdevice_id=%04x", r.u16(0),
                 "Xilinx Corporation", r.u16(2), "Device", r.u16(0x2c), r.u16(0x2e)),
        c_format("  iommu_group=%s", "7"), c_format("  driver=%s", "vfio-pci"), c_format("  physical_slot=%s", "3"),
        c_format("  numa_node=%u", 0u),
        c_format("  control: I/O%c Mem%c BusMaster%c ParErr%c SERR%c DisINTx%c", pm(cmd, 0), pm(cmd, 1), pm(cmd, 2),
                 pm(cmd, 6), pm(cmd, 8), pm(cmd, 10)),
        c_format("  status: INTx%c <ParErr%c >TAbort%c <TAbort%c <MAbort%c >SERR%c DetParErr%c", pm(st, 3), pm(st, 8),
                 pm(st, 11), pm(st, 12), pm(st, 13), pm(st, 14), pm(st, 15)),
        c_format("  bar[%u] base_addr=%lx size=%lx is_IO=%u is_prefetchable=%u is_64=%u", 0u,
                 static_cast<unsigned long>(r.u32(0x10) & ~0xfu), 0x100000ul, 0u, 0u, 0u)};
    ASSERT_GE(ours.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(ours[i], expected[i]) << "line " << i;
    // A BAR whose size the access cannot tell: our own line, not fpga_sio's format.
    EXPECT_EQ(ours[expected.size()].find("  bar[2] base_addr="), 0u) << ours[expected.size()];
    EXPECT_NE(ours[expected.size()].find("(size not known to this access)"), std::string::npos);
}

// A read that fails ends the text on the line it interrupted, as fpga_sio's does (a space cut
// short, as an unprivileged sysfs read is, cannot reach all of a capability's registers).
TEST(DumpFpgaSioFormat, AReadThatFailsSaysSoOnTheLineItInterrupted) {
    auto bus = ::sim::make_demo_topology();
    ConfigSpace& full = *bus->open(PciAddress{0, 1, 0, 0}).value();
    std::vector<uint8_t> bytes(0x44);  // PM's Control/Status at 0x44 is past the end
    ASSERT_TRUE(full.read(0, bytes.data(), static_cast<uint32_t>(bytes.size())).ok());
    MemoryConfigSpace cut(PciAddress{0, 1, 0, 0}, bytes);
    const Lines lines = format_fpga_sio_capabilities(cut);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), "  Capabilities: [40] Power Management  PCI configuration read failed");
}

}  // namespace
}  // namespace pcie
