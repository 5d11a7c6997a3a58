// libpci (pciutils) backend, Linux sysfs method, through the PCI access layer of vfio_access
// (vfio::PciLibrary: the one wrapper of libpci in the tree).
#include <sys/stat.h>

#include <map>

#include "sysfs_backend.hpp"
#include "vfio_access/pci_library.hpp"

namespace pcie {
namespace {

class LibpciSpace : public SysfsSpace {
public:
    LibpciSpace(vfio::PciLibrary& library, PciAddress address, uint32_t size, bool writable)
        : SysfsSpace(address, size, writable), m_library(library) {}
    Result<void> read(uint32_t offset, void* data, uint32_t length) override {
        PDT_CHECK(check_read(offset, length));
        if (!m_library.read(address(), offset, data, length))
            return access_error("read config", offset, length, EIO, "libpci pci_read_block failed");
        return {};
    }
    Result<void> write(uint32_t offset, const void* data, uint32_t length) override {
        if (!writable())
            return ConfigSpace::write(offset, data, length);
        if (!m_library.write(address(), offset, data, length))
            return access_error("write config", offset, length, EACCES, "writing config space needs root");
        return {};
    }

private:
    vfio::PciLibrary& m_library;
};

class LibpciBackend : public SysfsBackend {
public:
    LibpciBackend(std::unique_ptr<vfio::PciLibrary> library, bool writable)
        : m_library(std::move(library)), m_writable(writable) {}
    std::string name() const override { return "libpci"; }
    Result<std::vector<PciAddress>> devices() override { return m_library->functions(); }
    Result<ConfigSpace*> open(const PciAddress& address) override {
        if (auto it = m_spaces.find(address); it != m_spaces.end())
            return static_cast<ConfigSpace*>(it->second.get());
        if (!m_library->has(address))
            return pdt::make_error("open config space", address.to_string(), ENODEV, "no such PCI function (lspci -D)");
        auto space = std::make_unique<LibpciSpace>(*m_library, address, probe_size(address), m_writable);
        ConfigSpace* raw = space.get();
        m_spaces[address] = std::move(space);
        return raw;
    }
    SystemInfo system_info(const PciAddress& address) override {
        SystemInfo info = sysfs_system_info(address);
        if (auto identity = m_library->info(address)) {
            const vfio::PciIdNames names = vfio::pci_id_names(identity->vendor_id, identity->device_id);
            info.vendor_name = names.vendor;
            info.device_name = names.device;
        }
        return info;
    }

private:
    // 64 when the bytes past the header are not readable (no CAP_SYS_ADMIN), else sysfs's size.
    uint32_t probe_size(const PciAddress& address) {
        uint8_t probe[4];
        return m_library->read(address, 64, probe, 4) ? sysfs_config_size(address) : 64;
    }
    std::unique_ptr<vfio::PciLibrary> m_library;  // declared first: the spaces refer to it
    bool m_writable;
    std::map<PciAddress, std::unique_ptr<LibpciSpace>> m_spaces;
};

}  // namespace

Result<std::unique_ptr<ConfigBackend>> open_libpci_backend(bool writable) {
    struct stat st {};
    if (::stat("/sys/bus/pci/devices", &st) != 0)
        return pdt::errno_error("open", "/sys/bus/pci/devices", "libpci needs sysfs");
    vfio::PciLibraryOptions options;
    options.writable = writable;
    options.sysfs_only = true;
    auto library = PDT_TRY(vfio::PciLibrary::open(options));
    return std::unique_ptr<ConfigBackend>(new LibpciBackend(std::move(library), writable));
}

}  // namespace pcie
