#include <algorithm>

#include "kernel_internal.hpp"

namespace vfio {

KernelDeviceBus::KernelDeviceBus(KernelOptions options) : m_options(std::move(options)) {}
KernelDeviceBus::~KernelDeviceBus() = default;

pdt::Result<std::vector<ScannedDevice>> KernelDeviceBus::scan_devices() {
    std::vector<ScannedDevice> all = PDT_TRY(scan_pci_bus(m_options));
    std::vector<ScannedDevice> selected;
    for (ScannedDevice& d : all)
        if (m_options.selection.matches(d.identity))
            selected.push_back(std::move(d));
    return selected;
}

pdt::Result<std::vector<DeviceIdentity>> KernelDeviceBus::scan() {
    const std::vector<ScannedDevice> devices = PDT_TRY(scan_devices());
    const bool located = !m_options.selection.locations().empty();
    std::vector<DeviceIdentity> ids;
    for (const ScannedDevice& d : devices)
        if (d.bound_to_vfio() || located || m_options.include_unbound)
            ids.push_back(d.identity);
    return ids;
}

pdt::Result<std::shared_ptr<Container>> KernelDeviceBus::container() {
    if (!m_container)
        m_container = PDT_TRY(Container::open(m_options.dev_vfio_root));
    return m_container;
}

pdt::Result<ContainerInfo> KernelDeviceBus::container_info() {
    for (auto& [id, weak] : m_brokered_containers)
        if (std::shared_ptr<Container> brokered = weak.lock())
            return brokered->info();  // the broker's container of the devices open now
    std::shared_ptr<Container> c = PDT_TRY(container());
    return c->info();
}

pdt::Result<std::shared_ptr<Group>> KernelDeviceBus::group(int number) {
    for (auto& [n, weak] : m_groups)
        if (n == number)
            if (std::shared_ptr<Group> g = weak.lock())
                return g;
    // Isolated: every group gets a container (and so an IOVA space) of its own.
    std::shared_ptr<Container> c =
        PDT_TRY(m_options.isolate_iommu_groups ? Container::open(m_options.dev_vfio_root) : container());
    std::shared_ptr<Group> g = PDT_TRY(Group::open(m_options, number, c));
    if (!m_first_group_container)
        m_first_group_container = g->shared_container();
    std::erase_if(m_groups, [](const auto& entry) { return entry.second.expired(); });
    m_groups.emplace_back(number, g);
    return g;
}

pdt::Result<std::unique_ptr<KernelDevice>> KernelDeviceBus::open_brokered(const DeviceIdentity& identity) {
    BrokeredDevice got = PDT_TRY(m_options.broker->open_device(identity.address));
    std::shared_ptr<Container> container;
    for (auto& [id, weak] : m_brokered_containers)
        if (id == got.container_id)
            container = weak.lock();
    if (!container) {
        std::shared_ptr<DeviceBroker> broker = m_options.broker;
        const uint32_t id = got.container_id;
        IovaAllocator::Remote remote{
            [broker, id](uint64_t size, unsigned bits) { return broker->allocate_iova(id, size, bits); },
            [broker, id](uint64_t iova, uint64_t size) { return broker->free_iova(id, iova, size); }};
        container = Container::adopt(std::move(got.container_fd),
                                     "VFIO manager container " + std::to_string(id), got.iommu_type,
                                     IovaAllocator::remote(got.page_size, std::move(remote)));
        std::erase_if(m_brokered_containers, [](const auto& entry) { return entry.second.expired(); });
        m_brokered_containers.emplace_back(id, container);
    }
    GroupStatus status;
    status.number = got.iommu_group;
    status.path = m_options.dev_vfio_root + (got.noiommu ? "/noiommu-" : "/") + std::to_string(got.iommu_group);
    status.noiommu = got.noiommu;
    status.viable = true;
    status.container_was_set = true;
    DeviceIdentity id = identity;
    id.iommu_group = got.iommu_group;
    std::unique_ptr<KernelDevice> device(
        new KernelDevice(std::move(id), Group::brokered(std::move(status), std::move(container)), std::move(got.device_fd)));
    PDT_CHECK(device->load_info());
    return device;
}

pdt::Result<std::unique_ptr<KernelDevice>> KernelDeviceBus::open_device(const DeviceIdentity& identity) {
    if (m_options.broker) {
        auto brokered = open_brokered(identity);
        if (brokered || brokered.error().code != ENODEV || brokered.error().operation != "open")
            return brokered;
        // Not one of the broker's devices: opened directly below.
    }
    PDT_CHECK(check_vfio_available(m_options.dev_vfio_root));
    PDT_CHECK(check_bound_to_vfio(m_options.sysfs_root, identity.address));
    int number = identity.iommu_group;
    if (number < 0)
        number = sysfs_iommu_group(m_options.sysfs_root, identity.address);
    if (number < 0)
        return pdt::make_error("open", identity.address.to_string(), ENODEV,
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
    device->m_no_iommu_allowed = m_options.no_iommu;
    device->m_physical = m_options.physical;
    PDT_CHECK(device->load_info());
    device->hold_lock(std::move(lock));
    return device;
}

pdt::Result<std::unique_ptr<Device>> KernelDeviceBus::open(const DeviceIdentity& identity) {
    std::unique_ptr<KernelDevice> device = PDT_TRY(open_device(identity));
    return std::unique_ptr<Device>(std::move(device));
}

}  // namespace vfio
