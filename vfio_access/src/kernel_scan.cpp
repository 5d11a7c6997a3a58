// Bus scan with libpci, and the sysfs facts open() checks (driver, IOMMU group).
extern "C" {
#include <pci/pci.h>
}
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "vfio_access/kernel.hpp"

namespace vfio {
namespace fs = std::filesystem;
namespace {

// libpci reports fatal errors through a callback that must not return: jump back to the scan.
thread_local std::jmp_buf* t_pci_jump = nullptr;
thread_local char t_pci_message[256];

// noreturn as libpci declares the callback (clang makes it part of the function type).
__attribute__((noreturn)) void pci_error_handler(char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(t_pci_message, sizeof t_pci_message, format, args);
    va_end(args);
    std::longjmp(*t_pci_jump, 1);
}

void pci_quiet_handler(char*, ...) {}

fs::path device_dir(const std::string& sysfs_root, const PciAddress& address) {
    return fs::path(sysfs_root) / "bus/pci/devices" / address.to_string();
}

int last_component_number(const fs::path& link) {
    const std::string name = link.filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
        return -1;
    return std::stoi(name);
}

struct RawDevice {
    PciAddress address;
    uint16_t vendor, device, subsystem_vendor, subsystem_device;
    uint8_t revision;
    uint32_t class_code;
    int iommu_group;
};

// Only trivially destructible locals between setjmp and the libpci calls.
bool pci_scan(const char* dump_file, std::vector<RawDevice>& out) {
    std::jmp_buf jump;
    pci_access* access = pci_alloc();
    t_pci_jump = &jump;
    if (setjmp(jump) != 0) {
        pci_cleanup(access);
        t_pci_jump = nullptr;
        return false;
    }
    access->error = pci_error_handler;
    access->warning = pci_quiet_handler;
    access->debug = pci_quiet_handler;
    char dump_name[] = "dump.name";
    if (dump_file != nullptr) {
        access->method = PCI_ACCESS_DUMP;
        pci_set_param(access, dump_name, const_cast<char*>(dump_file));
    }
    pci_init(access);
    pci_scan_bus(access);
    for (pci_dev* dev = access->devices; dev != nullptr; dev = dev->next) {
        const unsigned known = static_cast<unsigned>(pci_fill_info(
            dev, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS | PCI_FILL_IOMMU_GROUP));
        RawDevice raw{};
        raw.address = {static_cast<uint16_t>(dev->domain), dev->bus, dev->dev, dev->func};
        raw.vendor = dev->vendor_id;
        raw.device = dev->device_id;
        raw.subsystem_vendor = (known & PCI_FILL_SUBSYS) ? dev->subsys_vendor_id : 0xffff;
        raw.subsystem_device = (known & PCI_FILL_SUBSYS) ? dev->subsys_id : 0xffff;
        raw.revision = (known & PCI_FILL_CLASS_EXT) ? dev->rev_id : pci_read_byte(dev, PCI_REVISION_ID);
        const uint8_t prog_if = (known & PCI_FILL_CLASS_EXT) ? dev->prog_if : pci_read_byte(dev, PCI_CLASS_PROG);
        raw.class_code = (static_cast<uint32_t>(dev->device_class) << 8) | prog_if;
        raw.iommu_group = -1;
        const char* group = (known & PCI_FILL_IOMMU_GROUP) ? pci_get_string_property(dev, PCI_FILL_IOMMU_GROUP) : nullptr;
        if (group != nullptr && *group != '\0')
            raw.iommu_group = std::atoi(group);
        out.push_back(raw);
    }
    pci_cleanup(access);
    t_pci_jump = nullptr;
    return true;
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

Result<std::vector<ScannedDevice>> scan_pci_bus(const KernelOptions& options) {
    std::vector<RawDevice> raw;
    raw.reserve(64);
    if (!pci_scan(options.pci_dump_file.empty() ? nullptr : options.pci_dump_file.c_str(), raw))
        return make_error("scan PCI bus", options.pci_dump_file.empty() ? "libpci" : options.pci_dump_file, EIO,
                          std::string("libpci: ") + t_pci_message);
    std::vector<ScannedDevice> devices;
    for (const RawDevice& r : raw) {
        ScannedDevice d;
        d.identity.address = r.address;
        d.identity.vendor_id = r.vendor;
        d.identity.device_id = r.device;
        d.identity.subsystem_vendor_id = r.subsystem_vendor;
        d.identity.subsystem_device_id = r.subsystem_device;
        d.identity.revision = r.revision;
        d.identity.class_code = r.class_code;
        d.identity.iommu_group = r.iommu_group >= 0 ? r.iommu_group : sysfs_iommu_group(options.sysfs_root, r.address);
        d.driver = bound_driver(options.sysfs_root, r.address);
        devices.push_back(std::move(d));
    }
    std::sort(devices.begin(), devices.end(),
              [](const ScannedDevice& a, const ScannedDevice& b) { return a.identity.address < b.identity.address; });
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

Result<void> check_bound_to_vfio(const std::string& sysfs_root, const PciAddress& address) {
    std::error_code ec;
    if (!fs::exists(device_dir(sysfs_root, address), ec))
        return make_error("open", address.to_string(), ENODEV,
                          "no such PCI device in " + (fs::path(sysfs_root) / "bus/pci/devices").string());
    const std::string driver = bound_driver(sysfs_root, address);
    if (driver == "vfio-pci")
        return {};
    const std::string bdf = address.to_string();
    return make_error("open", bdf, ENODEV,
                      std::string("not bound to vfio-pci ") + (driver.empty() ? "(no driver bound)" : "but to " + driver) +
                          "; bind it: " + bind_to_vfio_commands(address, driver));
}

Result<void> check_vfio_available(const std::string& dev_vfio_root) {
    struct stat st {};
    if (::stat(dev_vfio_root.c_str(), &st) != 0)
        return make_error("open", dev_vfio_root, errno == ENOENT ? ENODEV : errno,
                          dev_vfio_root + " does not exist: no VFIO support; load the vfio-pci module (modprobe vfio-pci)");
    const std::string container = dev_vfio_root + "/vfio";
    if (::access(container.c_str(), F_OK) != 0)
        return make_error("open", container, ENODEV, container + " does not exist: no VFIO support; load the vfio-pci module (modprobe vfio-pci)");
    if (::access(container.c_str(), R_OK | W_OK) != 0)
        return make_error("open", container, EACCES, container_permission_hint(container));
    return {};
}

}  // namespace vfio
