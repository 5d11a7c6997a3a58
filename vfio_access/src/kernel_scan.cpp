// Bus scan through the PCI access layer (pci_library.hpp), and the sysfs facts open() checks
// (driver, IOMMU group).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "vfio_access/kernel.hpp"
#include "vfio_access/pci_library.hpp"

namespace vfio {
namespace fs = std::filesystem;
namespace {

fs::path device_dir(const std::string& sysfs_root, const PciAddress& address) {
    return fs::path(sysfs_root) / "bus/pci/devices" / address.to_string();
}

int last_component_number(const fs::path& link) {
    const std::string name = link.filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
        return -1;
    return std::stoi(name);
}

}  // namespace

KernelOptions kernel_options_from_environment() {
    KernelOptions options;
    const auto from_environment = [](const char* name, std::string& value) {
        if (const char* text = std::getenv(name); text && *text)
            value = text;
    };
    from_environment("PDT_DEV_VFIO_ROOT", options.dev_vfio_root);
    from_environment("PDT_SYSFS_ROOT", options.sysfs_root);
    from_environment("PDT_PROC_ROOT", options.proc_root);
    from_environment("PDT_PCI_DUMP_FILE", options.pci_dump_file);
    return options;
}

std::string bound_driver(const std::string& sysfs_root, const PciAddress& address) {
    std::error_code ec;
    const fs::path link = fs::read_symlink(device_dir(sysfs_root, address) / "driver", ec);
    return ec ? std::string() : link.filename().string();
}

int sysfs_iommu_group(const std::string& sysfs_root, const PciAddress& address) {
    std::error_code ec;
    const fs::path link = fs::read_symlink(device_dir(sysfs_root, address) / "iommu_group", ec);
    return ec ? -1 : last_component_number(link);
}

pdt::Result<std::vector<ScannedDevice>> scan_pci_bus(const KernelOptions& options) {
    PciLibraryOptions library_options;
    library_options.dump_file = options.pci_dump_file;
    auto library = PDT_TRY(PciLibrary::open(library_options));
    std::vector<ScannedDevice> devices;
    for (const PciAddress& address : library->functions()) {
        const PciFunctionInfo info = PDT_TRY(library->info(address));
        ScannedDevice d;
        d.identity.address = address;
        d.identity.vendor_id = info.vendor_id;
        d.identity.device_id = info.device_id;
        d.identity.subsystem_vendor_id = info.subsystem_vendor_id;
        d.identity.subsystem_device_id = info.subsystem_device_id;
        d.identity.revision = info.revision;
        d.identity.class_code = info.class_code;
        d.identity.iommu_group = info.iommu_group >= 0 ? info.iommu_group : sysfs_iommu_group(options.sysfs_root, address);
        d.driver = bound_driver(options.sysfs_root, address);
        devices.push_back(std::move(d));
    }
    return devices;
}

std::string bind_to_vfio_commands(const PciAddress& address, const std::string& driver) {
    const std::string bdf = address.to_string();
    const std::string device = "/sys/bus/pci/devices/" + bdf;
    std::string commands;
    if (!driver.empty())
        commands = "echo " + bdf + " | sudo tee " + device + "/driver/unbind; ";
    return commands + "echo vfio-pci | sudo tee " + device + "/driver_override; echo " + bdf +
           " | sudo tee /sys/bus/pci/drivers/vfio-pci/bind";
}

pdt::Result<void> check_bound_to_vfio(const std::string& sysfs_root, const PciAddress& address) {
    std::error_code ec;
    if (!fs::exists(device_dir(sysfs_root, address), ec))
        return pdt::make_error("open", address.to_string(), ENODEV,
                          "no such PCI device in " + (fs::path(sysfs_root) / "bus/pci/devices").string());
    const std::string driver = bound_driver(sysfs_root, address);
    if (driver == "vfio-pci")
        return {};
    const std::string bdf = address.to_string();
    return pdt::make_error("open", bdf, ENODEV,
                      std::string("not bound to vfio-pci ") + (driver.empty() ? "(no driver bound)" : "but to " + driver) +
                          "; bind it: " + bind_to_vfio_commands(address, driver));
}

pdt::Result<void> check_vfio_available(const std::string& dev_vfio_root) {
    struct stat st {};
    if (::stat(dev_vfio_root.c_str(), &st) != 0)
        return pdt::make_error("open", dev_vfio_root, errno == ENOENT ? ENODEV : errno,
                          dev_vfio_root + " does not exist: no VFIO support; load the vfio-pci module (modprobe vfio-pci)");
    const std::string container = dev_vfio_root + "/vfio";
    if (::access(container.c_str(), F_OK) != 0)
        return pdt::make_error("open", container, ENODEV, container + " does not exist: no VFIO support; load the vfio-pci module (modprobe vfio-pci)");
    if (::access(container.c_str(), R_OK | W_OK) != 0)
        return pdt::make_error("open", container, EACCES, container_permission_hint(container));
    return {};
}

}  // namespace vfio
