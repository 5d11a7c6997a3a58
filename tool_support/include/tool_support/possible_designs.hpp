// display_possible_fpga_designs: the PCI devices whose identity matches a known design, found
// with libpci and sysfs only (nothing is opened under VFIO, so it works before binding), with
// the driver each is bound to and the commands that bind it to vfio-pci.
#pragma once

#include <string>
#include <vector>

#include "designs/registry.hpp"
#include "vfio_access/kernel.hpp"

namespace tool_support {

struct PossibleDesign {
    vfio::ScannedDevice device;
    std::string physical_slot;                      // "" when sysfs names none
    std::vector<const designs::Design*> candidates;  // designs its PCI identity matches
};

// Every device of the scan (options' dump file / sysfs root, as the kernel bus uses) whose
// identity matches a design of the registry, in bus order.
pdt::Result<std::vector<PossibleDesign>> possible_designs(const vfio::KernelOptions& options,
                                                          const designs::Registry& registry);

// fpga_sio's line: "PCI device <bdf>[  physical slot <s>]  Design name <a>[ or <b>]  IOMMU group <g>",
// or "... No IOMMU group set, won't be able to open device using VFIO" in place of the group.
std::string possible_design_line(const PossibleDesign& possible);
// The line under it: "  bound to vfio-pci", or which driver (or none) and the commands that bind it.
std::string binding_line(const PossibleDesign& possible);

// The physical slot of a device from <sysfs_root>/bus/pci/slots/*/address ("" when none).
std::string physical_slot(const std::string& sysfs_root, const vfio::PciAddress& address);

}  // namespace tool_support
