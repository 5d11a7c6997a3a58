// libpciaccess backend.
#include <pciaccess.h>

#include <algorithm>
#include <map>

#include "sysfs_backend.hpp"

namespace pcie {
namespace {

class PciaccessSpace : public SysfsSpace {
public:
    PciaccessSpace(pci_device* dev, PciAddress address, uint32_t size, bool writable)
        : SysfsSpace(address, size, writable), m_dev(dev) {}
    Result<void> read(uint32_t offset, void* data, uint32_t length) override {
        PDT_CHECK(check_read(offset, length));
        pciaddr_t got = 0;
        const int rc = pci_device_cfg_read(m_dev, data, offset, length, &got);
        if (rc != 0 || got != length)
            return access_error("read config", offset, length, rc ? rc : EIO, "pci_device_cfg_read");
        return {};
    }
    Result<void> write(uint32_t offset, const void* data, uint32_t length) override {
        if (!writable())
            return ConfigSpace::write(offset, data, length);
        pciaddr_t done = 0;
        const int rc = pci_device_cfg_write(m_dev, data, offset, length, &done);
        if (rc != 0 || done != length)
            return access_error("write config", offset, length, rc ? rc : EIO, "writing config space needs root");
        return {};
    }

private:
    pci_device* m_dev;
};

class PciaccessBackend : public SysfsBackend {
public:
    explicit PciaccessBackend(bool writable) : m_writable(writable) {
        pci_device_iterator* it = pci_slot_match_iterator_create(nullptr);
        while (pci_device* d = pci_device_next(it))
            m_devices[PciAddress{static_cast<uint16_t>(d->domain), d->bus, d->dev, d->func}] = d;
        pci_iterator_destroy(it);
    }
    ~PciaccessBackend() override {
        m_spaces.clear();
        pci_system_cleanup();
    }
    std::string name() const override { return "libpciaccess"; }
    Result<std::vector<PciAddress>> devices() override {
        std::vector<PciAddress> list;
        for (const auto& [address, dev] : m_devices)
            list.push_back(address);
        return list;
    }
    Result<ConfigSpace*> open(const PciAddress& address) override {
        if (auto it = m_spaces.find(address); it != m_spaces.end())
            return static_cast<ConfigSpace*>(it->second.get());
        const auto dev = m_devices.find(address);
        if (dev == m_devices.end())
            return pdt::make_error("open config space", address.to_string(), ENODEV, "no such PCI function (lspci -D)");
        // 64 when the bytes past the header are not readable (no CAP_SYS_ADMIN), else sysfs's size.
        uint8_t probe[4];
        pciaddr_t got = 0;
        const bool readable = pci_device_cfg_read(dev->second, probe, 64, 4, &got) == 0 && got == 4;
        const uint32_t size = readable ? sysfs_config_size(address) : 64;
        auto space = std::make_unique<PciaccessSpace>(dev->second, address, size, m_writable);
        ConfigSpace* raw = space.get();
        m_spaces[address] = std::move(space);
        return raw;
    }
    SystemInfo system_info(const PciAddress& address) override {
        SystemInfo info = sysfs_system_info(address);
        if (const auto dev = m_devices.find(address); dev != m_devices.end()) {
            if (const char* v = pci_device_get_vendor_name(dev->second))
                info.vendor_name = v;
            if (const char* d = pci_device_get_device_name(dev->second))
                info.device_name = d;
        }
        return info;
    }

private:
    bool m_writable;
    std::map<PciAddress, pci_device*> m_devices;
    std::map<PciAddress, std::unique_ptr<PciaccessSpace>> m_spaces;
};

}  // namespace

Result<std::unique_ptr<ConfigBackend>> open_pciaccess_backend(bool writable) {
    const int rc = pci_system_init();
    if (rc != 0)
        return pdt::make_error("pci_system_init", "libpciaccess", rc, "libpciaccess needs sysfs");
    return std::unique_ptr<ConfigBackend>(new PciaccessBackend(writable));
}

}  // namespace pcie
