#include <algorithm>

#include "kernel_internal.hpp"

namespace vfio {

KernelBus::KernelBus(KernelOptions options) : m_options(std::move(options)) {}
KernelBus::~KernelBus() = default;

Result<std::vector<ScannedDevice>> KernelBus::scan_devices() {
    std::vector<ScannedDevice> all = PDT_TRY(scan_pci_bus(m_options));
    std::vector<ScannedDevice> selected;
    for (ScannedDevice& d : all)
        if (m_options.selection.matches(d.identity))
            selected.push_back(std::move(d));
    return selected;
}

Result<std::vector<DeviceIdentity>> KernelBus::scan() {
    const std::vector<ScannedDevice> devices = PDT_TRY(scan_devices());
    const bool located = !m_options.selection.locations().empty();
    std::vector<DeviceIdentity> ids;
    for (const ScannedDevice& d : devices)
        if (d.bound_to_vfio() || located || m_options.include_unbound)
            ids.push_back(d.identity);
    return ids;
}

Result<std::shared_ptr<Container>> KernelBus::container() {
    if (!m_container)
        m_container = PDT_TRY(Container::open(m_options.dev_vfio_root));
    return m_container;
}

Result<ContainerInfo> KernelBus::container_info() {
    std::shared_ptr<Container> c = PDT_TRY(container());
    return c->info();
}

Result<std::shared_ptr<Group>> KernelBus::group(int number) {
    for (auto& [n, weak] : m_groups)
        if (n == number)
            if (std::shared_ptr<Group> g = weak.lock())
                return g;
    std::shared_ptr<Container> c =
        m_options.isolate_iommu_groups ? PDT_TRY(Container::open(m_options.dev_vfio_root)) : PDT_TRY(container());
    std::shared_ptr<Group> g = PDT_TRY(Group::open(m_options, number, c));
    if (!m_first_group_container)
        m_first_group_container = g->shared_container();
    std::erase_if(m_groups, [](const auto& entry) { return entry.second.expired(); });
    m_groups.emplace_back(number, g);
    return g;
}

Result<std::unique_ptr<KernelDevice>> KernelBus::open_device(const DeviceIdentity& identity) {
    PDT_CHECK(check_vfio_available(m_options.dev_vfio_root));
    PDT_CHECK(check_bound_to_vfio(m_options.sysfs_root, identity.address));
    int number = identity.iommu_group;
    if (number < 0)
        number = sysfs_iommu_group(m_options.sysfs_root, identity.address);
    if (number < 0)
        return make_error("open", identity.address.to_string(), ENODEV,
                          "no IOMMU group (enable the IOMMU, e.g. intel_iommu=on, or vfio no-IOMMU mode)");
    std::unique_ptr<DeviceLock> lock;  // taken before the group opens; released if the open fails
    if (!m_options.lock.directory.empty())
        lock = PDT_TRY(DeviceLock::acquire(m_options.lock, identity.address));
    std::shared_ptr<Group> g = PDT_TRY(group(number));
    UniqueFd fd = PDT_TRY(g->device_fd(identity.address));
    DeviceIdentity id = identity;
    id.iommu_group = number;
    std::unique_ptr<KernelDevice> device(new KernelDevice(std::move(id), std::move(g), std::move(fd)));
    if (m_options.one_container_for_mappings && m_first_group_container != device->m_group->shared_container())
        device->m_mappings = m_first_group_container;
    PDT_CHECK(device->load_info());
    device->hold_lock(std::move(lock));
    return device;
}

Result<std::unique_ptr<Device>> KernelBus::open(const DeviceIdentity& identity) {
    std::unique_ptr<KernelDevice> device = PDT_TRY(open_device(identity));
    return std::unique_ptr<Device>(std::move(device));
}

}  // namespace vfio
