// Names from the PCI ID database for every backend (dump files and simulated topologies
// included), in the shapes lspci prints them; the lookups are vfio::pci_id_names (libpci).
#include "pcie_tools/sections.hpp"
#include "vfio_access/pci_library.hpp"

namespace pcie {

std::string lookup_vendor(uint16_t vendor) { return vfio::pci_id_names(vendor, 0xffff).vendor; }

std::string lookup_device(uint16_t vendor, uint16_t device) { return vfio::pci_id_names(vendor, device).device; }

PciNames lookup_names(uint16_t vendor, uint16_t device, uint32_t class_code, uint16_t sub_vendor,
                      uint16_t sub_device) {
    vfio::PciIdNames ids = vfio::pci_id_names(vendor, device, class_code, sub_vendor, sub_device);
    PciNames n;
    n.title = ids.class_name + ": " + ids.vendor_device;
    n.prog_if = std::move(ids.prog_if);
    n.vendor = std::move(ids.vendor);
    n.device = std::move(ids.device);
    n.subsystem = std::move(ids.subsystem);
    return n;
}

}  // namespace pcie
