// The one way a tool main opens its devices: the bus its options choose (--sim_design designs,
// else the kernel's VFIO devices), identification of the known designs on it, and the report
// every tool gives the same way: identification warnings, devices that failed, and, when no
// known design was found, the real cause (vfio-pci not loaded, a device bound to another
// driver and the commands that bind it to vfio-pci, no matching device).
//
//   tool_support::DesignSelection selection{sim_designs, locations};
//   tool_support::OpenedDesigns opened = tool_support::open_designs(registry, selection, &std::cout, std::cerr);
//   if (opened.found.designs.empty()) return opened.status;  // 1, or 2 for a usage error
//   ... use opened.found.designs ...
//   return opened.status == 0 ? status : opened.status;       // a failed device fails the run
#pragma once

#include <chrono>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "designs/registry.hpp"
#include "identify/identify.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/kernel.hpp"

namespace tool_support {

struct DesignSelection {
    std::vector<std::string> sim_designs;     // --sim_design: simulated designs instead of the kernel's
    std::vector<vfio::PciAddress> locations;  // --device: only these locations (empty: all)
    std::chrono::milliseconds lock_timeout{0};  // --lock_timeout: wait this long for a busy device
    bool isolate_iommu_groups = false;          // --isolate_iommu_groups: a container per IOMMU group
    bool one_container_for_mappings = false;    // --use_one_container_for_mappings (kernel bus only)
    // The XDMA link of the simulated designs (sim::SimulatedLink): bytes per second per direction
    // and latency per descriptor; 0: unthrottled (pcie_link_measure --sim_rate_gbps, --sim_latency_us).
    double sim_link_bytes_per_second = 0;
    std::chrono::microseconds sim_link_latency{0};
    // --no_iommu: devices of no-IOMMU VFIO groups may DMA with physical addresses (kernel bus only).
    bool no_iommu = false;
};

// Exit status of a usage error.
inline constexpr int kUsageError = 2;

// The message (without "Error: ") of an unknown --sim_design name, the same in every tool.
std::string unknown_design_message(const std::string& name);

// The first usage error of the selection (an unknown --sim_design name), or nullopt.
std::optional<std::string> selection_error(const DesignSelection& selection, const designs::Registry& registry);

// The kernel backend's paths: /dev/vfio, /sys, /proc and libpci's own access, unless the
// environment names others (PDT_DEV_VFIO_ROOT, PDT_SYSFS_ROOT, PDT_PROC_ROOT, PDT_PCI_DUMP_FILE:
// an `lspci -x` dump), which tests use to run the tools against a fake machine. Device locks
// are taken in lock_directory() (timeout 0: set by open_bus from the selection).
vfio::KernelOptions kernel_options();

// Where the advisory device locks live: PDT_LOCK_DIR, else vfio::default_lock_directory().
std::string lock_directory();
// The lock options of simulated designs: none (no lock), unless PDT_LOCK_SIM=1 asks for locks
// on them too (in lock_directory(), files "sim-<bdf>.lock"), as the locking tests do.
vfio::LockOptions sim_lock_options(std::chrono::milliseconds timeout);

// The bus of the selection: the simulated designs, else the kernel's VFIO devices (through the
// VFIO manager when one is running: vfio_manager::connect_if_running()).
pdt::Result<std::unique_ptr<vfio::DeviceBus>> open_bus(const DesignSelection& selection, const designs::Registry& registry);

// "vfio-pci is not loaded: /dev/vfio does not exist (load it: sudo modprobe vfio-pci)", or the
// permission problem, when the VFIO container node cannot be used; nullopt when it can.
std::optional<std::string> vfio_unavailable(const std::string& dev_vfio_root);

// Why the kernel bus shows no known design: vfio-pci not loaded, each matching device bound to
// another driver (with the commands that bind it), or no matching device. One line each.
std::vector<std::string> explain_no_design(const vfio::KernelOptions& options, const designs::Registry& registry,
                                           const std::vector<vfio::PciAddress>& locations);

// A design a tool runs on, as the board-health watch needs it (board_health.hpp): its open
// device, its design data and its identity (address, revision).
struct DesignUnderTest {
    vfio::Device* device = nullptr;
    const designs::Design* design = nullptr;
    vfio::DeviceIdentity identity;
};
// The designs of an identification, as DesignUnderTest.
std::vector<DesignUnderTest> designs_under_test(const identify::Identification& found);

struct OpenedDesigns {
    // 0: designs identified, none failed; 1: no known design found, the bus could not be
    // scanned, or a device could not be opened or read; 2: usage error (unknown design).
    int status = 0;
    std::unique_ptr<vfio::DeviceBus> bus;  // declared before `found`: outlives the devices
    identify::Identification found;
};

// Opens the bus and identifies the selected designs (on the kernel bus with each one's physical
// slot from sysfs); "Opening device ..." lines go to
// progress (null: none). On errors it writes every "Warning: <bdf> <design>: <text>" line, an
// "Error: <message>" line for each device that failed, and when nothing was found the
// "Error: no known FPGA design found ..." line followed by its causes.
OpenedDesigns open_designs(const designs::Registry& registry, const DesignSelection& selection, std::ostream* progress,
                           std::ostream& errors);

// Sets each identified design's physical slot from <sysfs_root>/bus/pci/slots (the kernel bus;
// open_designs does it there): "" where the platform names none.
void set_physical_slots(identify::Identification& found, const std::string& sysfs_root);

// "Warning: <bdf> <design>: <text>" for each identification warning.
void report_warnings(const identify::Identification& found, std::ostream& errors);

// Parses --device texts; the message of the first bad one in `error`.
std::optional<std::vector<vfio::PciAddress>> parse_locations(const std::vector<std::string>& texts,
                                                             const std::string& option, std::string& error);

}  // namespace tool_support
