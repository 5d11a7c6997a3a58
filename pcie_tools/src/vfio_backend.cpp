// --access vfio: functions bound to vfio-pci are read through their VFIO config region (the
// whole space, no CAP_SYS_ADMIN needed); every other function (the ports above them) through
// libpci (writable for pcie_set_speed, which writes only the port above). Opening a VFIO
// device makes the kernel reset the function, as any VFIO user does, unless a VFIO manager is
// running: the device then comes from the manager, which keeps it open.
#include <algorithm>
#include <map>

#include "sysfs_backend.hpp"
#include "vfio_access/kernel.hpp"
#include "vfio_manager/client.hpp"

namespace pcie {
namespace {

class VfioBackend : public SysfsBackend {
public:
    VfioBackend(vfio::KernelOptions options, std::vector<vfio::DeviceIdentity> bound, std::unique_ptr<ConfigBackend> base)
        : m_kernel(std::move(options)), m_bound(std::move(bound)), m_base(std::move(base)) {}
    std::string name() const override { return "vfio"; }

    Result<std::vector<PciAddress>> devices() override {
        std::vector<PciAddress> list;
        if (m_base)
            list = PDT_TRY(m_base->devices());
        for (const auto& id : m_bound)
            if (std::find(list.begin(), list.end(), id.address) == list.end())
                list.push_back(id.address);
        std::sort(list.begin(), list.end());
        return list;
    }

    Result<ConfigSpace*> open(const PciAddress& address) override {
        if (auto it = m_spaces.find(address); it != m_spaces.end())
            return static_cast<ConfigSpace*>(it->second.get());
        for (const auto& id : m_bound) {
            if (id.address != address)
                continue;
            auto device = PDT_TRY(m_kernel.open(id));
            auto space = std::make_unique<VfioConfigSpace>(*device);
            ConfigSpace* raw = space.get();
            m_devices[address] = std::move(device);
            m_spaces[address] = std::move(space);
            return raw;
        }
        if (m_base)
            return m_base->open(address);
        return pdt::make_error("open config space", address.to_string(), ENODEV,
                               "not bound to vfio-pci, and libpci could not be opened");
    }
    SystemInfo system_info(const PciAddress& address) override {
        return m_base ? m_base->system_info(address) : sysfs_system_info(address);
    }

private:
    vfio::KernelDeviceBus m_kernel;
    std::vector<vfio::DeviceIdentity> m_bound;
    std::unique_ptr<ConfigBackend> m_base;
    std::map<PciAddress, std::unique_ptr<vfio::Device>> m_devices;
    std::map<PciAddress, std::unique_ptr<VfioConfigSpace>> m_spaces;  // refer to m_devices: destroyed first
};

}  // namespace

Result<std::unique_ptr<ConfigBackend>> open_vfio_backend(const vfio::LockOptions& lock, bool writable) {
    vfio::KernelOptions options;
    options.broker = PDT_TRY(vfio_manager::connect_if_running());
    options.lock = lock;
    vfio::KernelDeviceBus scanner(options);
    auto bound = PDT_TRY(scanner.scan());
    auto base = open_libpci_backend(writable);
    return std::unique_ptr<ConfigBackend>(new VfioBackend(std::move(options), std::move(bound),
                                                        base ? std::move(*base) : std::unique_ptr<ConfigBackend>()));
}

}  // namespace pcie
