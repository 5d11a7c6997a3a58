// Capability sections decoded the way lspci -vvv prints them, kept as fields too, so that the
// text and the --json output carry the same things. A decoder fills one CapSection through
// the Text builder: each flag ("SrcValid+") or value ("Max snoop latency: 0ns") is appended to
// the register's text and recorded as a field of that register.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pcie_tools/capabilities.hpp"
#include "pcie_tools/config_space.hpp"

namespace pcie {

using Lines = std::vector<std::string>;

// One register (or line group) of a capability: "\t\tName:\tField+ Field- Key value, ...".
class Text {
public:
    // `head` is printed after the two-tab indent ("ACSCap:\t"); `name` keys its fields.
    Text(std::string name, std::string head, std::string indent = "\t\t");
    Text& flag(const std::string& name, bool on);                      // " Name+" / " Name-"
    Text& flag_colon(const std::string& name, bool on);                // " Name:+" (PTM's style)
    Text& value(const std::string& name, const std::string& value, const std::string& join = " ");
    Text& shown(const std::string& value);  // the value alone, field "value"
    Text& raw(const std::string& text);                                // punctuation, no field
    Text& line(const std::string& indent = "\t\t\t");                  // continuation line
    Text& tight();  // the next item follows without a space
    // This register's first line continues the previous register's last line (lspci prints
    // Multicast's McastCtl on the McastCap line for endpoints).
    Text& continues_line();
    bool continues() const { return m_continues; }

    const std::string& name() const { return m_name; }
    Lines lines() const;
    const nlohmann::json& fields() const { return m_fields; }

private:
    void begin_item();
    std::string m_name;
    Lines m_lines;
    bool m_at_start = true;
    bool m_continues = false;
    nlohmann::json m_fields = nlohmann::json::object();
};

struct CapSection {
    Capability cap;
    std::string title;  // after "Capabilities: [off] " / "[off vN] "
    std::vector<Text> registers;

    Lines lines() const;         // lspci layout, title line first
    nlohmann::json json() const;  // {"offset", "id", "name", "registers": {reg: {field: value}}}
};

// Reads registers of one capability; a failed read marks the section unreadable (lspci then
// prints the title only) and reads as 0.
class CapReader {
public:
    CapReader(ConfigSpace& space, uint16_t base) : m_space(space), m_base(base) {}
    uint32_t l(uint32_t offset);
    uint16_t w(uint32_t offset);
    uint8_t b(uint32_t offset);
    bool ok() const { return m_ok; }

private:
    ConfigSpace& m_space;
    uint16_t m_base;
    bool m_ok = true;
};

struct DeviceConfig;
// Decodes every capability that has no dedicated decoder (PM, MSI, MSI-X, PCI Express, AER and
// DSN have their own); a capability we do not decode gets lspci's title alone.
std::vector<CapSection> decode_sections(ConfigSpace& space, const DeviceConfig& d);

// Text helpers the decoders share: printf into a string, bit n of a register, a decimal number.
namespace section_text {
template <typename... Args>
std::string fmt(const char* format, Args... args) {
    char text[160];
    std::snprintf(text, sizeof text, format, args...);
    return text;
}
inline bool bit(uint32_t v, unsigned n) { return (v >> n) & 1u; }
inline std::string num(uint64_t v) { return std::to_string(v); }
inline std::string hex16(uint64_t v) { return fmt("%016llx", static_cast<unsigned long long>(v)); }
}  // namespace section_text

// Decoders, one file per spec area (sections_std.cpp, sections_ext_<area>.cpp, sections_cxl.cpp).
// Each returns false for an unknown ID.
bool decode_standard_section(CapReader& r, const DeviceConfig& d, CapSection& s);
bool decode_ext_translation_power_link(CapReader& r, const DeviceConfig& d, CapSection& s);
bool decode_ext_virtual_functions_resources(CapReader& r, const DeviceConfig& d, CapSection& s);
bool decode_ext_multicast_rc_link(CapReader& r, const DeviceConfig& d, CapSection& s);
// CXL's DVSECs (DVSEC Vendor ID 1E98h), after the title; `id`, `rev`, `length` from the DVSEC headers.
void decode_cxl_dvsec(CapReader& r, CapSection& s, uint16_t id, unsigned rev, unsigned length);

// PCI ID database names (pci.ids through libpci); empty when unknown or unavailable.
struct PciNames {
    std::string title;      // "PCI bridge: Red Hat, Inc. QEMU PCIe Root port"
    std::string prog_if;    // "Normal decode" or empty
    std::string vendor, device;
    std::string subsystem;  // "Red Hat, Inc. Device 0000"
};
PciNames lookup_names(uint16_t vendor, uint16_t device, uint32_t class_code, uint16_t sub_vendor,
                      uint16_t sub_device);
std::string lookup_vendor(uint16_t vendor);
std::string lookup_device(uint16_t vendor, uint16_t device);

}  // namespace pcie
