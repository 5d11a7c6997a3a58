// The one wrapper of libpci (pciutils) in the tree: the bus scan of the kernel backend
// (scan_pci_bus) and the libpci config-space backend of pcie_tools both use it. It owns the
// pci_access handle (RAII), turns libpci's fatal-error callback (which must not return) into
// an Error instead of an exit, and keeps libpci's types out of every other header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/pci_address.hpp"

namespace vfio {

struct PciLibraryOptions {
    std::string dump_file;  // non-empty: libpci's dump method reads this `lspci -x` file instead of sysfs
    bool writable = false;  // open for config writes (pcie_set_speed only; needs root)
    bool sysfs_only = false;  // libpci's Linux sysfs method alone, not its automatic choice
};

// What libpci knows of a function without reading past the first 64 bytes: identity and,
// from sysfs, the IOMMU group (-1 when unknown).
struct PciFunctionInfo {
    PciAddress address;
    uint16_t vendor_id = 0xffff, device_id = 0xffff;
    uint16_t subsystem_vendor_id = 0xffff, subsystem_device_id = 0xffff;  // 0xffff: unknown
    uint8_t revision = 0;
    uint32_t class_code = 0;  // base class, sub class, prog-if
    int iommu_group = -1;
};

class PciLibrary {
public:
    // pci_alloc, pci_init, pci_scan_bus; EIO with libpci's message when it reports a fatal error.
    static pdt::Result<std::unique_ptr<PciLibrary>> open(const PciLibraryOptions& options = {});
    ~PciLibrary();
    PciLibrary(const PciLibrary&) = delete;
    PciLibrary& operator=(const PciLibrary&) = delete;

    // Every function found, in address order.
    std::vector<PciAddress> functions() const;
    bool has(const PciAddress& address) const;
    pdt::Result<PciFunctionInfo> info(const PciAddress& address);
    // Config-space block access; false when libpci could not do it (unprivileged reads past
    // byte 64, writes without root or without `writable`, a fatal libpci error).
    bool read(const PciAddress& address, uint32_t offset, void* data, uint32_t length);
    bool write(const PciAddress& address, uint32_t offset, const void* data, uint32_t length);
    struct State;

private:
    explicit PciLibrary(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

// Names from the PCI ID database (pci.ids) alone, with no bus access, so that functions found
// by any backend (dump files and simulated topologies included) get lspci's names. One
// process-wide libpci handle serves them under a lock; a fatal libpci error gives empty names.
struct PciIdNames {
    std::string class_name;     // lspci's title class: "PCI bridge", or "Class 0604" when unknown
    std::string vendor_device;  // lspci's title rest: "Red Hat, Inc. QEMU PCIe Root port" (numbers when unknown)
    std::string prog_if;        // "Normal decode"; empty when unknown
    std::string vendor, device;  // empty when unknown
    std::string subsystem;      // "Red Hat, Inc. Device 0000" (numbers when unknown)
};
PciIdNames pci_id_names(uint16_t vendor_id, uint16_t device_id, uint32_t class_code = 0,
                        uint16_t subsystem_vendor_id = 0xffff, uint16_t subsystem_device_id = 0xffff);

}  // namespace vfio
