// Decoders: read a function's config space into plain structs first (raw register values
// plus what was found where); printing (format.hpp) and checks (link.hpp) work on the structs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pcie_tools/capabilities.hpp"
#include "pcie_tools/registers.hpp"
#include "pcie_tools/sections.hpp"

namespace pcie {

struct BarInfo {
    unsigned index = 0;
    bool io = false;
    bool is_64 = false;
    bool prefetchable = false;
    uint64_t base = 0;
    std::optional<uint64_t> size;  // known only from the OS (sizing needs a write)
};

struct HeaderInfo {
    uint16_t vendor_id = 0xffff, device_id = 0xffff;
    uint16_t command = 0, status = 0;
    uint8_t revision = 0;
    uint32_t class_code = 0;  // base class, sub class, prog-if
    uint8_t header_type = 0;  // without the multi-function bit
    bool multifunction = false;
    uint16_t subsystem_vendor_id = 0, subsystem_id = 0;  // type 0 only
    uint8_t primary_bus = 0, secondary_bus = 0, subordinate_bus = 0;  // type 1 only
    std::vector<BarInfo> bars;
};

struct PmInfo {
    uint16_t offset = 0, pmc = 0, pmcsr = 0;
};
struct MsiInfo {
    uint16_t offset = 0, flags = 0;
    uint64_t address = 0;
    uint16_t data = 0;
    uint32_t mask = 0, pending = 0;  // when per-vector masking is capable
};
struct MsixInfo {
    uint16_t offset = 0, flags = 0;
    uint32_t table = 0, pba = 0;
};

struct ExpressInfo {
    uint16_t offset = 0;
    uint16_t flags = 0;
    uint32_t devcap = 0, lnkcap = 0, sltcap = 0, devcap2 = 0, lnkcap2 = 0;
    uint16_t devctl = 0, devsta = 0, lnkctl = 0, lnksta = 0, sltctl = 0, sltsta = 0;
    uint16_t devctl2 = 0, devsta2 = 0, lnkctl2 = 0, lnksta2 = 0;
    uint16_t rootctl = 0, rootcap = 0;  // Root Ports and Root Complex Event Collectors
    uint32_t rootsta = 0;
    // Facts of the function lspci uses to choose lines: device/function 0 (LnkCap2/LnkCtl2 of
    // endpoints) and a memory BAR (AtomicOpsCap completer bits of endpoints).
    bool function0 = true;
    bool has_mem_bar = false;

    uint8_t version() const { return flags & PCI_EXP_FLAGS_VERS; }
    reg::PortType type() const { return static_cast<reg::PortType>((flags & PCI_EXP_FLAGS_TYPE) >> 4); }
    bool slot() const { return flags & PCI_EXP_FLAGS_SLOT; }
    bool has_link() const;     // every type except Root Complex integrated endpoint / event collector
    bool has_v2() const { return version() >= 2; }
    bool is_downstream_side() const;  // Root Port or switch Downstream Port (owns Retrain Link)
    uint8_t max_speed() const { return lnkcap & PCI_EXP_LNKCAP_SLS; }
    uint8_t max_width() const { return (lnkcap & PCI_EXP_LNKCAP_MLW) >> 4; }
    uint8_t speed() const { return lnksta & PCI_EXP_LNKSTA_CLS; }
    uint8_t width() const { return (lnksta & PCI_EXP_LNKSTA_NLW) >> 4; }
    // Supported Link Speeds as a bit vector (bit n = speed code n); from LnkCap2 when it is
    // implemented, else every code up to LnkCap's Max Link Speed.
    uint32_t supported_speeds() const;
    unsigned max_payload() const { return 128u << ((devctl >> 5) & 7); }
    unsigned max_read_request() const { return 128u << ((devctl >> 12) & 7); }
    unsigned max_payload_supported() const { return 128u << (devcap & 7); }
};

struct AerInfo {
    uint16_t offset = 0;
    uint8_t version = 0;
    uint32_t uncor_status = 0, uncor_mask = 0, uncor_sever = 0, cor_status = 0, cor_mask = 0, cap_control = 0;
    uint32_t header_log[4] = {};
    bool root = false;  // Root Port / Root Complex Event Collector: the root error registers below
    uint32_t root_command = 0, root_status = 0;
    uint16_t cor_source = 0, uncor_source = 0;
};

struct DsnInfo {
    uint16_t offset = 0;
    uint64_t serial = 0;
};

struct DeviceConfig {
    PciAddress address;
    uint32_t config_size = 0;
    HeaderInfo header;
    CapabilityList caps;
    std::optional<PmInfo> pm;
    std::optional<MsiInfo> msi;
    std::optional<MsixInfo> msix;
    std::optional<ExpressInfo> express;
    // A PCI Express capability whose registers could not all be read: offset and flags only
    // (lspci then prints its title line alone).
    std::optional<ExpressInfo> express_truncated;
    std::optional<AerInfo> aer;
    std::optional<DsnInfo> dsn;
    std::vector<CapSection> sections;  // every other capability, lspci's decoding (sections.hpp)
    std::vector<uint8_t> header_bytes;  // the first 64 bytes as read (lspci-style header lines)
    std::vector<std::string> problems;  // capability walk problems and unreadable registers
};

// Fails only when the header cannot be read or reads as all-ones (no device there).
Result<DeviceConfig> decode_device(ConfigSpace& space);
Result<ExpressInfo> decode_express(ConfigSpace& space, uint16_t offset);
// Finds and decodes the PCI Express capability; ENOENT when there is none.
Result<ExpressInfo> read_express(ConfigSpace& space);

// Speed code names: "2.5 GT/s" (fpga_sio style) or "2.5GT/s" (lspci style); codes outside
// 1..6 give "unknown (code N)" / "unknown" instead of indexing a table.
std::string speed_name(uint8_t code);
std::string speed_name_lspci(uint8_t code);
double speed_gts(uint8_t code);  // 0 for unknown codes
const char* port_type_name(reg::PortType type);

}  // namespace pcie
