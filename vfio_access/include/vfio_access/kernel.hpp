// The kernel VFIO backend of the device seam (legacy container/group API, type1v2 IOMMU or
// no-IOMMU mode).
//
//   vfio::KernelOptions options;                    // paths default to /dev/vfio, /sys, /proc
//   options.selection.add_filter({.vendor_id = 0x1234, .device_id = 0x11e8});
//   vfio::KernelDeviceBus bus(options);
//   auto ids = bus.scan();                          // Result<std::vector<DeviceIdentity>>
//   auto dev = bus.open(ids->front());              // Result<std::unique_ptr<vfio::Device>>
//   vfio::Bar* bar0 = PDT_TRY((*dev)->bar(0));
//
// scan() lists the selected devices bound to vfio-pci, plus any device named by a location
// filter whatever its driver (so that open() can say why it cannot be used). All devices
// opened through one KernelDeviceBus share one container and so one IOVA allocator (one container
// per IOMMU group with isolate_iommu_groups); devices of one IOMMU group share the group.
// With options.lock.directory set, open() first takes the device's advisory lock, which the
// device then holds until it closes. Devices keep their group and container alive: a KernelDevice
// may outlive the KernelDeviceBus that opened it.
//
// A KernelDeviceBus and its devices are used from one thread at a time (BAR register accesses and
// interrupt waits may come from any thread). Release DmaRegions before their device.
//
// Every failure is an Error naming the cause: no VFIO support, no permission, device not
// bound to vfio-pci (and to what it is bound), group not viable (which other device is bound
// to what), group busy (which executable and PID hold it).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vfio_access/broker.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/device_lock.hpp"
#include "vfio_access/filter.hpp"
#include "vfio_access/iommu_info.hpp"
#include "vfio_access/permission_hint.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio {

struct KernelOptions {
    std::string dev_vfio_root = "/dev/vfio";  // container node <root>/vfio, groups <root>/<N>
    std::string sysfs_root = "/sys";          // <root>/bus/pci/devices/<bdf>/{driver,iommu_group}
    std::string proc_root = "/proc";          // searched for the holder of a busy group
    std::string pci_dump_file;                // non-empty: libpci reads this `lspci -x` dump (tests)
    DeviceSelection selection;                // empty: every device
    bool include_unbound = false;             // scan() also lists devices not bound to vfio-pci
    // open() takes each device's advisory lock first (device_lock.hpp); lock.directory empty:
    // none is taken. Devices from the broker take none: the manager shares them on purpose.
    LockOptions lock;
    bool isolate_iommu_groups = false;        // one container per IOMMU group (default: one for all)
    // Every device's DMA mappings (and IOVAs) go through the container of the first group the
    // bus opened (fpga_sio's --use_one_container_for_mappings). With isolate_iommu_groups, the
    // devices of other groups then cannot reach their buffers: their DMA must fail, which is
    // what the option is for (it tests the isolation). Without isolation it changes nothing.
    bool one_container_for_mappings = false;
    // No-IOMMU groups (/dev/vfio/noiommu-N): DMA with physical addresses from locked huge
    // pages (physical_memory.hpp), opted into by the tools' --no_iommu. Unset, a no-IOMMU
    // device still opens (config space, BARs) but every DMA buffer for it is refused.
    bool no_iommu = false;
    PhysicalPoolOptions physical;  // where the pool finds hugetlbfs, pagemap, the page counts
    // Set: devices come from this broker (the VFIO manager process) instead of opening groups.
    std::shared_ptr<DeviceBroker> broker;
};

// The default paths, unless the environment names others: PDT_DEV_VFIO_ROOT, PDT_SYSFS_ROOT,
// PDT_PROC_ROOT, PDT_PCI_DUMP_FILE (an `lspci -x` dump). Tests run the tools on fake machines so.
KernelOptions kernel_options_from_environment();

// One device found by the bus scan, with the kernel driver bound to it ("" for none).
struct ScannedDevice {
    DeviceIdentity identity;
    std::string driver;
    bool bound_to_vfio() const { return driver == "vfio-pci"; }
};

// VFIO_DEVICE_GET_REGION_INFO for one region.
struct RegionInfo {
    uint32_t index = 0;
    uint32_t flags = 0;  // VFIO_REGION_INFO_FLAG_*
    uint64_t size = 0;
    uint64_t offset = 0;  // file offset of the region in the device fd
    std::vector<uint16_t> caps;  // capability IDs (sparse mmap, type, MSI-X mappable...)

    std::string name() const;  // "BAR0".."BAR5", "ROM", "CONFIG", "VGA", "region <n>"
    bool readable() const;
    bool writable() const;
    bool mmappable() const;
};

// What VFIO_GROUP_GET_STATUS said when the group was opened.
struct GroupStatus {
    int number = -1;
    std::string path;  // /dev/vfio/<N> or /dev/vfio/noiommu-<N>
    bool noiommu = false;
    bool viable = false;
    bool container_was_set = false;
};

// The container: API version, extensions and, once a group is attached, the IOMMU model.
struct ContainerInfo {
    int api_version = 0;
    std::vector<std::pair<std::string, bool>> extensions;  // ("TYPE1", true), ... in ID order
    int iommu_type = 0;  // VFIO_TYPE1v2_IOMMU, VFIO_NOIOMMU_IOMMU...; 0 before the first group
    std::optional<IommuInfo> iommu;  // type1 only
};

class Container;
class Group;

class KernelDevice final : public Device {
public:
    ~KernelDevice() override;

    const DeviceIdentity& identity() const override { return m_identity; }
    pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) override;
    pdt::Result<void> config_write(uint32_t offset, const void* data, uint32_t size) override;
    pdt::Result<Bar*> bar(unsigned index) override;
    pdt::Result<void> dma_map(uint64_t iova, void* vaddr, uint64_t size, DmaAccess access) override;
    pdt::Result<uint64_t> dma_unmap(uint64_t iova, uint64_t size) override;
    IovaAllocator& iova_allocator() override;
    pdt::Result<IrqInfo> irq_info(IrqIndex index) override;
    // One eventfd per vector (VFIO_IRQ_SET_DATA_EVENTFD | ACTION_TRIGGER). MSI and MSI-X also
    // set Bus Master: an MSI is a memory write by the device. Enabling replaces any other
    // index enabled before.
    pdt::Result<void> irq_enable(IrqIndex index, unsigned vectors) override;
    pdt::Result<void> irq_disable(IrqIndex index) override;
    pdt::Result<int> irq_eventfd(unsigned vector) override;
    pdt::Result<void> irq_unmask(unsigned vector) override;  // INTx: VFIO_IRQ_SET_ACTION_UNMASK
    // A no-IOMMU group's device: the container's pool once the caller opted in (the first one
    // in a process prints kNoIommuDanger to stderr), else the refusal (EPERM, naming
    // --no_iommu); null for a device behind an IOMMU.
    pdt::Result<std::shared_ptr<PhysicalPool>> physical_pool() override;
    DmaAddressing dma_addressing() const override;
    pdt::Result<void> reset() override;

    // VFIO_DEVICE_GET_INFO.
    uint32_t device_flags() const { return m_flags; }
    uint32_t num_regions() const { return m_num_regions; }
    uint32_t num_irqs() const { return m_num_irqs; }
    pdt::Result<RegionInfo> region_info(uint32_t index) const;
    const GroupStatus& group() const;
    ContainerInfo container_info() const;
    int fd() const { return m_fd.get(); }
    int container_fd() const;  // the fd of the container the device's group is attached to

private:
    friend class KernelDeviceBus;
    KernelDevice(DeviceIdentity identity, std::shared_ptr<Group> group, UniqueFd fd);
    pdt::Result<void> load_info();
    std::string object() const { return m_identity.address.to_string(); }

    Container& mapping_container() const;

    DeviceIdentity m_identity;
    std::shared_ptr<Group> m_group;  // declared before m_fd: the device fd closes first
    std::shared_ptr<Container> m_mappings;  // null: the group's container takes the mappings
    UniqueFd m_fd;
    uint32_t m_flags = 0, m_num_regions = 0, m_num_irqs = 0;
    RegionInfo m_config;
    std::mutex m_bar_mutex;  // BAR mmaps are serialised
    std::unique_ptr<Bar> m_bars[6];
    std::optional<IrqIndex> m_irq_index;
    std::vector<UniqueFd> m_irq_fds;
    bool m_no_iommu_allowed = false;  // KernelOptions::no_iommu
    PhysicalPoolOptions m_physical;
};

class KernelDeviceBus final : public DeviceBus {
public:
    explicit KernelDeviceBus(KernelOptions options = {});
    ~KernelDeviceBus() override;

    std::string name() const override { return "vfio"; }
    pdt::Result<std::vector<DeviceIdentity>> scan() override;
    pdt::Result<std::unique_ptr<Device>> open(const DeviceIdentity& identity) override;

    // The selected devices (all drivers) with their bound driver.
    pdt::Result<std::vector<ScannedDevice>> scan_devices();
    pdt::Result<std::unique_ptr<KernelDevice>> open_device(const DeviceIdentity& identity);
    // Opens the container if needed (no group attached: iommu_type 0 until the first open).
    // With a broker: the container of the first brokered device still open.
    pdt::Result<ContainerInfo> container_info();
    const KernelOptions& options() const { return m_options; }

private:
    pdt::Result<std::shared_ptr<Container>> container();
    pdt::Result<std::shared_ptr<Group>> group(int number);
    pdt::Result<std::unique_ptr<KernelDevice>> open_brokered(const DeviceIdentity& identity);

    KernelOptions m_options;
    std::vector<std::pair<uint32_t, std::weak_ptr<Container>>> m_brokered_containers;
    std::shared_ptr<Container> m_container;
    std::shared_ptr<Container> m_first_group_container;  // for one_container_for_mappings
    std::vector<std::pair<int, std::weak_ptr<Group>>> m_groups;
};

// Building blocks, usable (and tested) without a VFIO device.

// The MMIO backend of a mapped BAR: takes ownership of the mapping [base, base + size)
// (munmap on destruction); single acquire loads and release stores of 1, 2, 4 or 8 bytes.
std::shared_ptr<MmioBackend> make_mapped_mmio(void* base, uint64_t size);

// libpci scan of the whole bus (or of options.pci_dump_file), no selection applied. The IOMMU
// group comes from libpci, else from the sysfs iommu_group link; the driver from sysfs.
pdt::Result<std::vector<ScannedDevice>> scan_pci_bus(const KernelOptions& options);
// The driver bound to a device ("" when none), from <sysfs_root>/bus/pci/devices/<bdf>/driver.
std::string bound_driver(const std::string& sysfs_root, const PciAddress& address);
// The IOMMU group from the sysfs iommu_group link; -1 when none.
int sysfs_iommu_group(const std::string& sysfs_root, const PciAddress& address);
// The shell commands that bind a device to vfio-pci through driver_override, unbinding it from
// `driver` first when one is bound ("" for none); the vfio-pci module must be loaded.
std::string bind_to_vfio_commands(const PciAddress& address, const std::string& driver);
// ENODEV "not bound to vfio-pci" errors naming the driver bound, or "no driver", with the
// commands that bind it.
pdt::Result<void> check_bound_to_vfio(const std::string& sysfs_root, const PciAddress& address);
// Errors for a missing <root> ("no VFIO support") or an inaccessible <root>/vfio.
pdt::Result<void> check_vfio_available(const std::string& dev_vfio_root);
// The PCI addresses in the IOMMU group of a group file (<root>/<N> or noiommu-<N>), sorted.
std::vector<std::string> group_functions(const std::string& sysfs_root, const std::string& group_path);
// The error for a group open that failed with `code` (EBUSY walks proc_root for the holder;
// EACCES, and EPERM on a group that is not no-IOMMU, say which group to join: permission_hint.hpp).
pdt::Error group_open_error(const KernelOptions& options, const std::string& path, int code);
// The error for VFIO_IOMMU_MAP_DMA of `size` bytes failing with `code` at `where`; ENOMEM names
// the RLIMIT_MEMLOCK limit `memlock` and the bytes needed.
pdt::Error dma_map_error(const std::string& where, int code, uint64_t size, const MemlockState& memlock);
// The error for a group that is not viable, naming the group's devices and their drivers.
pdt::Error group_not_viable_error(const std::string& sysfs_root, int group, const std::string& path);

}  // namespace vfio
