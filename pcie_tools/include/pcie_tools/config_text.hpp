// Text for config spaces. dump_pci_info's default is fpga_sio's dump_pci_info, line for line
// (format_device: its identity, system, command/status and BAR lines, then its capability
// text); `--lspci` prints lspci -vvv's text, whose capability sections use lspci's field names,
// +/- flags and line layout (tabs included), so the two can be compared field by field.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "pcie_tools/config_space.hpp"
#include "pcie_tools/decode.hpp"

namespace pcie {

using Lines = std::vector<std::string>;

// lspci's flag: '+' where (value & mask) has a bit set, else '-'.
inline char flag(uint32_t value, uint32_t mask) { return (value & mask) ? '+' : '-'; }

// A PCI ID database name, or "<fallback> <id in 4 hex digits>" ("Device 7024") where it has none.
inline std::string name_or(const std::string& name, const char* fallback, uint16_t id) {
    char text[64];
    std::snprintf(text, sizeof text, "%s %04x", fallback, static_cast<unsigned>(id));
    return name.empty() ? std::string(text) : name;
}

Lines format_express(const ExpressInfo& e);
std::string format_express_head(const ExpressInfo& e);  // its title line alone  // "Capabilities: [40] Express ..." and its registers
Lines format_pm(const PmInfo& pm);
Lines format_msi(const MsiInfo& msi);
Lines format_msix(const MsixInfo& msix);
Lines format_aer(const AerInfo& aer, bool root_port);
std::string format_dsn(const DsnInfo& dsn);
// fpga_sio's identity, system, command/status and BAR lines (the first unindented, the rest
// after two spaces). Ours beside them, each a line of its own: a bridge's bus numbers, and a
// BAR whose size the access cannot tell (fpga_sio lists sized BARs only).
Lines format_header(const DeviceConfig& d, const SystemInfo& info);
// fpga_sio's capability text, read from `space` as its dump_pci_info reads it
// (format_fpga_sio.cpp).
Lines format_fpga_sio_capabilities(ConfigSpace& space);
// Everything for one device as fpga_sio prints it: header lines, then its capability text;
// then, on lines of their own, what decoding found wrong ("  Warning: ...").
Lines format_device(ConfigSpace& space, const DeviceConfig& d, const SystemInfo& info);
// Every capability in list order, lspci -vvv's text (tabs included, no leading tab).
Lines format_capabilities(const DeviceConfig& d);
// One function the way `lspci -vvv` prints it from a dump file: the title line, the header
// lines and every capability, each line as lspci has it (tabs included).
Lines format_lspci_function(const DeviceConfig& d);

// Names of the set bits of an AER status/mask/severity register ("CmpltTO", "UnsupReq", ...).
std::vector<std::string> aer_uncorrectable_names(uint32_t value);
std::vector<std::string> aer_correctable_names(uint32_t value);

}  // namespace pcie
