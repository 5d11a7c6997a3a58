#include "tool_support/possible_designs.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "identify/identify.hpp"

namespace tool_support {

std::string physical_slot(const std::string& sysfs_root, const vfio::PciAddress& address) {
    namespace fs = std::filesystem;
    const std::string bdf = address.to_string();
    const std::string slot_address = bdf.substr(0, bdf.rfind('.'));  // dddd:bb:dd
    std::error_code ec;
    for (const fs::directory_entry& slot : fs::directory_iterator(fs::path(sysfs_root) / "bus/pci/slots", ec)) {
        std::ifstream file(slot.path() / "address");
        std::string text;
        if (std::getline(file, text) && text == slot_address)
            return slot.path().filename().string();
    }
    return "";
}

pdt::Result<std::vector<PossibleDesign>> possible_designs(const vfio::KernelOptions& options,
                                                          const designs::Registry& registry) {
    std::vector<PossibleDesign> found;
    for (vfio::ScannedDevice& device : PDT_TRY(vfio::scan_pci_bus(options))) {
        std::vector<const designs::Design*> candidates = registry.candidates(device.identity);
        if (candidates.empty())
            continue;
        const std::string slot = physical_slot(options.sysfs_root, device.identity.address);
        found.push_back(PossibleDesign{std::move(device), slot, std::move(candidates)});
    }
    return found;
}

std::string possible_design_line(const PossibleDesign& possible) {
    std::string line = "PCI device " + possible.device.identity.address.to_string();
    if (!possible.physical_slot.empty())
        line += "  physical slot " + possible.physical_slot;
    line += "  Design name " + identify::candidate_names(possible.candidates);
    const int group = possible.device.identity.iommu_group;
    line += group >= 0 ? "  IOMMU group " + std::to_string(group)
                       : std::string("  No IOMMU group set, won't be able to open device using VFIO");
    return line;
}

std::string binding_line(const PossibleDesign& possible) {
    const vfio::ScannedDevice& d = possible.device;
    if (d.bound_to_vfio())
        return "  bound to vfio-pci";
    return std::string("  ") + (d.driver.empty() ? "bound to no driver" : "bound to " + d.driver) +
           ", not vfio-pci; bind it: " + vfio::bind_to_vfio_commands(d.identity.address, d.driver);
}

}  // namespace tool_support
