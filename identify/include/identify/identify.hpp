// Design identification: match the devices of a bus (kernel VFIO or simulated) to the known
// designs of a registry, then describe each by reading it: XDMA channels from their
// identifier registers, the user-access build timestamp, peripherals, AXI4-Stream Switch
// routes. Identification only reads (BARs and config space): it never writes to a device and
// does not need bus mastering, so it is safe while another process runs DMA.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "designs/registry.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "ethernet/cmac.hpp"
#include "vfio_access/device.hpp"

namespace pcie {
class ConfigBackend;
}

namespace identify {

struct DmaBridgeInfo {
    unsigned bar = 0;
    designs::DmaMode mode = designs::DmaMode::Stream;
    uint64_t memory_base = 0;
    uint64_t memory_size = 0;
    xdma::Channels channels;  // from the PG195 identifier and Alignments registers
    unsigned num_h2c() const { return static_cast<unsigned>(channels.h2c.size()); }
    unsigned num_c2h() const { return static_cast<unsigned>(channels.c2h.size()); }
};

// The QDMA Subsystem (PG302) as its global CSR registers describe it (identify/src/qdma.cpp).
struct QdmaInfo {
    unsigned bar = 0;
    uint64_t memory_base = 0;
    uint64_t memory_size = 0;  // 0: none described, no "QDMA bar" line
    // QDMA_GLBL2_MISC_CAP decoded, in fpga_sio's words ("RTL Base", "vivado 2022.1", ...).
    std::string rtl_version, vivado_release, ip_type, device_type;
    // The capabilities, decoded only for an EQDMA soft IP (the register layout known).
    bool supported = false;
    unsigned num_pfs = 0;      // PFs whose PFn_BAR_MAP is not 0 (QDMA_GLBL2_PF_BARLITE_INT)
    unsigned num_queues = 0;   // MULTQ_MAX (QDMA_GLBL2_CHANNEL_QDMA_CAP)
    unsigned mm_channels = 0;  // no register gives it: 1, as fpga_sio
    bool flr_present = false, st_enabled = false, mm_enabled = false, mailbox_enabled = false;
    bool mm_completion_enabled = false;  // the EQDMA MISC_CAP has no such bit: false
    bool debug_mode = false;
    std::string desc_engine_mode;  // "Internal and Bypass mode", "Bypass only mode", ...
};

// Reads the QDMA's global CSR registers (read-only). ENODEV when the config block identifier is
// not the QDMA's 0x1FD3 (all-ones: the device is gone).
pdt::Result<QdmaInfo> read_qdma(vfio::Device& device, const designs::Qdma& qdma);

struct PeripheralInfo {
    designs::PeripheralType type = designs::PeripheralType::QuadSpi;
    unsigned bar = 0;
    uint64_t offset = 0;
};

struct SwitchInfo {
    unsigned bar = 0;
    uint64_t offset = 0;
    // routes[m]: the slave port feeding master port m, nullopt when m is disabled.
    std::vector<std::optional<unsigned>> routes;
};

// A CMAC port (PG203) as fpga_sio shows it: where the design places it, what it was built with,
// and its status (read_cmac_ports).
struct CmacPortInfo {
    unsigned bar = 0;
    uint64_t offset = 0;
    ethernet::CmacBuild build;
    ethernet::CmacStatus status;
};

struct DnaInfo {
    unsigned slr = 0;
    std::array<uint32_t, 3> words{};  // at +0x0, +0x4, +0x8
};

struct IdentifiedDesign {
    const designs::Design* design = nullptr;
    vfio::DeviceIdentity identity;
    // The platform's physical slot of the device (sysfs /sys/bus/pci/slots, as libpci reports
    // it), set by the caller that knows the platform; empty: none (simulated devices).
    std::string physical_slot;
    std::unique_ptr<vfio::Device> device;  // left open for the caller (tests, DMA tools)
    std::optional<DmaBridgeInfo> dma_bridge;
    std::optional<QdmaInfo> qdma;
    std::optional<uint32_t> user_access_timestamp;
    std::optional<uint32_t> board_version;  // designs with a version_register (Project-0)
    std::vector<DnaInfo> dna;
    std::vector<PeripheralInfo> peripherals;  // in design order
    std::optional<SwitchInfo> axi_switch;
    std::vector<CmacPortInfo> cmac_ports;  // in design order, once read_cmac_ports has read them
    std::vector<std::string> warnings;  // what the design describes but the device lacks
};

// fpga_sio's display of the CMAC ports (display_cmac_ports): reads each CMAC port the design
// lists, on `device` (the identified one), into design.cmac_ports, its status registers twice (what latched, then the present
// state). They are clear-on-read, so this clears what had latched: identification itself never
// reads them (a tool that diagnoses a link keeps what latched); display_identified_pcie_fpga_designs
// does, as fpga_sio does, and format_text prints them. Returns a line for each port that could
// not be read (a warning: no CMAC answers there).
std::vector<std::string> read_cmac_ports(vfio::Device& device, IdentifiedDesign& design);

// Whether the device's content matches the design's register_value (true when it has none).
bool content_matches(vfio::Device& device, const designs::Design& design);
// "a or b or c": the designs a device's PCI identity matches (display_possible_fpga_designs).
std::string candidate_names(const std::vector<const designs::Design*>& candidates);

// Describes `device` as `design` by reading it. Fails only when the device cannot be read
// (ENODEV when the DMA bridge identifiers read all-ones: the device is gone).
pdt::Result<IdentifiedDesign> identify_device(vfio::Device& device, const designs::Design& design);

struct Identification {
    std::vector<IdentifiedDesign> designs;
    std::vector<pdt::Error> failures;  // matching devices that could not be opened or read
};

struct IdentifyOptions {
    std::vector<vfio::PciAddress> locations;  // empty: every device of the bus
    // Receives the VFIO-layer lines "Opening device <bdf> (<vvvv>:<dddd>) with IOMMU group <g>"
    // and "Skipping ... as no IOMMU group"; null for none.
    std::ostream* progress = nullptr;
    // The bus serving the ports above each opened device, for the reduced-bandwidth check
    // (identify/link_check.hpp) whose lines follow "Opening device" on progress. Null: libpci
    // when `bus` is the kernel's VFIO bus; no check on a simulated bus (it has no ports).
    pcie::ConfigBackend* link_ports = nullptr;
};

// Scans the bus, opens each device whose identity matches a design of the registry and
// identifies it. Fails only when the bus cannot be scanned.
pdt::Result<Identification> identify_designs(vfio::DeviceBus& bus, const designs::Registry& registry,
                                             const IdentifyOptions& options);

// The lines display_identified_pcie_fpga_designs prints for one design, fpga_sio's block line for
// line: an empty line, "Design <display name>:", then lines indented by 2 ("  PCI device <bdf>
// rev <rr> IOMMU group <g>", the DMA bridge channel table, QDMA, peripherals, switch routes);
// our own lines (Card ..., CMS registers ...) in the same style, each on a line of its own.
std::string format_text(const IdentifiedDesign& design);
// {"designs": [...]} for --json.
std::string format_json(const std::vector<IdentifiedDesign>& designs);

}  // namespace identify
