// libpci (pciutils) backend, Linux sysfs method.
extern "C" {
#include <pci/pci.h>
}
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "pcie_tools/backends.hpp"

namespace pcie {
namespace {

class LibpciSpace : public ConfigSpace {
public:
    LibpciSpace(pci_dev* dev, PciAddress address, uint32_t size, bool writable)
        : m_dev(dev), m_address(address), m_size(size), m_writable(writable) {}
    const PciAddress& address() const override { return m_address; }
    uint32_t size() const override { return m_size; }
    Result<void> read(uint32_t offset, void* data, uint32_t length) override {
        if (offset + length > m_size)
            return access_error("read config", offset, length, m_size == 64 ? EPERM : EIO,
                                m_size == 64 ? "only 64 bytes are readable without CAP_SYS_ADMIN; run as root" : "");
        if (!pci_read_block(m_dev, static_cast<int>(offset), static_cast<u8*>(data), static_cast<int>(length)))
            return access_error("read config", offset, length, EIO, "libpci pci_read_block failed");
        return {};
    }
    Result<void> write(uint32_t offset, const void* data, uint32_t length) override {
        if (!m_writable)
            return ConfigSpace::write(offset, data, length);
        std::vector<u8> bytes(static_cast<const u8*>(data), static_cast<const u8*>(data) + length);
        if (!pci_write_block(m_dev, static_cast<int>(offset), bytes.data(), static_cast<int>(length)))
            return access_error("write config", offset, length, EACCES, "writing config space needs root");
        return {};
    }

private:
    pci_dev* m_dev;
    PciAddress m_address;
    uint32_t m_size;
    bool m_writable;
};

class LibpciBus : public ConfigBus {
public:
    LibpciBus(pci_access* access, bool writable) : m_access(access), m_writable(writable) {}
    ~LibpciBus() override {
        m_spaces.clear();
        pci_cleanup(m_access);
    }
    std::string name() const override { return "libpci"; }
    Result<std::vector<PciAddress>> devices() override {
        std::vector<PciAddress> list;
        for (pci_dev* d = m_access->devices; d; d = d->next)
            list.push_back(address_of(d));
        std::sort(list.begin(), list.end());
        return list;
    }
    Result<ConfigSpace*> open(const PciAddress& address) override {
        if (auto it = m_spaces.find(address); it != m_spaces.end())
            return static_cast<ConfigSpace*>(it->second.get());
        for (pci_dev* d = m_access->devices; d; d = d->next) {
            if (address_of(d) != address)
                continue;
            auto space = std::make_unique<LibpciSpace>(d, address, probe_size(d, address), m_writable);
            ConfigSpace* raw = space.get();
            m_spaces[address] = std::move(space);
            return raw;
        }
        return vfio::make_error("open config space", address.to_string(), ENODEV, "no such PCI function (lspci -D)");
    }
    Result<std::optional<PciAddress>> parent(const PciAddress& address) override {
        if (auto up = sysfs_parent(address))
            return std::optional<PciAddress>(*up);
        return ConfigBus::parent(address);
    }
    SystemInfo system_info(const PciAddress& address) override {
        SystemInfo info = sysfs_system_info(address);
        for (pci_dev* d = m_access->devices; d; d = d->next) {
            if (address_of(d) != address)
                continue;
            pci_fill_info(d, PCI_FILL_IDENT);
            char name[256];
            if (pci_lookup_name(m_access, name, sizeof name, PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, d->vendor_id))
                info.vendor_name = name;
            if (pci_lookup_name(m_access, name, sizeof name, PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS, d->vendor_id,
                                d->device_id))
                info.device_name = name;
        }
        return info;
    }

private:
    static PciAddress address_of(const pci_dev* d) {
        return PciAddress{static_cast<uint16_t>(d->domain), d->bus, d->dev, d->func};
    }
    // 4096 or 256 from the sysfs file size; 64 when the extra bytes are not readable (no
    // CAP_SYS_ADMIN).
    static uint32_t probe_size(pci_dev* d, const PciAddress& address) {
        struct stat st {};
        uint32_t size = 256;
        if (::stat(("/sys/bus/pci/devices/" + address.to_string() + "/config").c_str(), &st) == 0 && st.st_size >= 4096)
            size = 4096;
        u8 probe[4];
        if (!pci_read_block(d, 64, probe, 4))
            size = 64;
        return size;
    }
    pci_access* m_access;
    bool m_writable;
    std::map<PciAddress, std::unique_ptr<LibpciSpace>> m_spaces;
};

}  // namespace

Result<std::unique_ptr<ConfigBus>> open_libpci_bus(bool writable) {
    struct stat st {};
    if (::stat("/sys/bus/pci/devices", &st) != 0)
        return vfio::errno_error("open", "/sys/bus/pci/devices", "libpci needs sysfs");
    pci_access* access = pci_alloc();
    if (!access)
        return vfio::make_error("pci_alloc", "libpci", ENOMEM);
    access->method = PCI_ACCESS_SYS_BUS_PCI;
    access->writeable = writable ? 1 : 0;
    pci_init(access);
    pci_scan_bus(access);
    return std::unique_ptr<ConfigBus>(new LibpciBus(access, writable));
}

}  // namespace pcie
