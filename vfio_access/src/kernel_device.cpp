#include "base/format.hpp"
#include <linux/vfio.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel_internal.hpp"

namespace vfio {
namespace {

// An mmap()ed BAR. Accesses are single loads/stores of the given width with acquire/release
// ordering, so the compiler neither merges, splits nor reorders them.
class MappedBar final : public MmioBackend {
public:
    MappedBar(void* base, uint64_t size) : m_base(static_cast<uint8_t*>(base)), m_size(size) {}
    ~MappedBar() override { ::munmap(m_base, m_size); }
    uint64_t size() const override { return m_size; }
    uint64_t read(uint64_t offset, unsigned width) override {
        volatile uint8_t* p = m_base + offset;
        switch (width) {
        case 1: return __atomic_load_n(p, __ATOMIC_ACQUIRE);
        case 2: return __atomic_load_n(reinterpret_cast<volatile uint16_t*>(p), __ATOMIC_ACQUIRE);
        case 4: return __atomic_load_n(reinterpret_cast<volatile uint32_t*>(p), __ATOMIC_ACQUIRE);
        default: return __atomic_load_n(reinterpret_cast<volatile uint64_t*>(p), __ATOMIC_ACQUIRE);
        }
    }
    void write(uint64_t offset, unsigned width, uint64_t value) override {
        volatile uint8_t* p = m_base + offset;
        switch (width) {
        case 1: __atomic_store_n(p, static_cast<uint8_t>(value), __ATOMIC_RELEASE); break;
        case 2: __atomic_store_n(reinterpret_cast<volatile uint16_t*>(p), static_cast<uint16_t>(value), __ATOMIC_RELEASE); break;
        case 4: __atomic_store_n(reinterpret_cast<volatile uint32_t*>(p), static_cast<uint32_t>(value), __ATOMIC_RELEASE); break;
        default: __atomic_store_n(reinterpret_cast<volatile uint64_t*>(p), value, __ATOMIC_RELEASE); break;
        }
    }

private:
    uint8_t* m_base;
    uint64_t m_size;
};

}  // namespace

std::shared_ptr<MmioBackend> make_mapped_mmio(void* base, uint64_t size) {
    return std::make_shared<MappedBar>(base, size);
}

std::string RegionInfo::name() const {
    if (index <= VFIO_PCI_BAR5_REGION_INDEX)
        return "BAR" + std::to_string(index);
    if (index == VFIO_PCI_ROM_REGION_INDEX)
        return "ROM";
    if (index == VFIO_PCI_CONFIG_REGION_INDEX)
        return "CONFIG";
    if (index == VFIO_PCI_VGA_REGION_INDEX)
        return "VGA";
    return "region " + std::to_string(index);
}
bool RegionInfo::readable() const { return flags & VFIO_REGION_INFO_FLAG_READ; }
bool RegionInfo::writable() const { return flags & VFIO_REGION_INFO_FLAG_WRITE; }
bool RegionInfo::mmappable() const { return flags & VFIO_REGION_INFO_FLAG_MMAP; }

KernelDevice::KernelDevice(DeviceIdentity identity, std::shared_ptr<Group> group, UniqueFd fd)
    : m_identity(std::move(identity)), m_group(std::move(group)), m_fd(std::move(fd)) {}

KernelDevice::~KernelDevice() {
    if (m_irq_index)
        (void)irq_disable(*m_irq_index);
}

const GroupStatus& KernelDevice::group() const { return m_group->status(); }
ContainerInfo KernelDevice::container_info() const { return m_group->container().info(); }
Container& KernelDevice::mapping_container() const { return m_mappings ? *m_mappings : m_group->container(); }
int KernelDevice::container_fd() const { return m_group->container().fd(); }
IovaAllocator& KernelDevice::iova_allocator() { return mapping_container().allocator(); }

pdt::Result<void> KernelDevice::load_info() {
    vfio_device_info info{};
    info.argsz = sizeof info;
    if (xioctl(fd(), VFIO_DEVICE_GET_INFO, &info) < 0)
        return pdt::errno_error("VFIO_DEVICE_GET_INFO", object());
    if (!(info.flags & VFIO_DEVICE_FLAGS_PCI))
        return pdt::make_error("VFIO_DEVICE_GET_INFO", object(), ENODEV, "not a vfio-pci device");
    m_flags = info.flags;
    m_num_regions = info.num_regions;
    m_num_irqs = info.num_irqs;
    if (m_num_regions <= VFIO_PCI_CONFIG_REGION_INDEX)
        return pdt::make_error("VFIO_DEVICE_GET_INFO", object(), ENODEV,
                          "only " + std::to_string(m_num_regions) + " regions: no config space region");
    m_config = PDT_TRY(region_info(VFIO_PCI_CONFIG_REGION_INDEX));
    return {};
}

pdt::Result<RegionInfo> KernelDevice::region_info(uint32_t index) const {
    std::vector<uint8_t> bytes(sizeof(vfio_region_info), 0);
    for (int attempt = 0; attempt < 2; ++attempt) {
        vfio_region_info head{};
        head.argsz = static_cast<uint32_t>(bytes.size());
        head.index = index;
        std::memcpy(bytes.data(), &head, sizeof head);
        if (xioctl(fd(), VFIO_DEVICE_GET_REGION_INFO, bytes.data()) < 0)
            return pdt::errno_error("VFIO_DEVICE_GET_REGION_INFO", object() + " region " + std::to_string(index));
        std::memcpy(&head, bytes.data(), sizeof head);
        if (head.argsz <= bytes.size())
            break;
        bytes.assign(head.argsz, 0);  // capabilities follow: ask again with room for them
    }
    vfio_region_info info{};
    std::memcpy(&info, bytes.data(), sizeof info);
    RegionInfo region{index, info.flags, info.size, info.offset, {}};
    if ((info.flags & VFIO_REGION_INFO_FLAG_CAPS) && info.cap_offset != 0) {
        size_t offset = info.cap_offset, previous = 0;
        while (offset > previous && offset >= sizeof info && offset + sizeof(vfio_info_cap_header) <= bytes.size()) {
            vfio_info_cap_header header{};
            std::memcpy(&header, bytes.data() + offset, sizeof header);
            region.caps.push_back(header.id);
            previous = offset;
            offset = header.next;
        }
    }
    return region;
}

namespace {

// One access of the config region (VFIO_PCI_CONFIG_REGION_INDEX) of `device`: a range check,
// then the whole size moved by io (pread or pwrite at the region's file offset), or an error
// naming the operation.
template <typename Io>
pdt::Result<void> config_io(const char* operation, const std::string& device, const RegionInfo& config, uint32_t offset,
                       uint32_t size, Io io) {
    const std::string where = "PCI region 7 (CONFIG) of " + device + " offset " + pdt::hex(offset);
    if (offset > config.size || size > config.size - offset)
        return pdt::make_error(operation, where, ERANGE, "config region is " + pdt::hex(config.size) + " bytes");
    const ssize_t moved = io(size, static_cast<off_t>(config.offset + offset));
    if (moved < 0)
        return pdt::errno_error(operation, where);
    if (static_cast<uint32_t>(moved) != size)
        return pdt::make_error(operation, where, EIO,
                          std::string(operation) + " of " + std::to_string(size) + " bytes moved only " +
                              std::to_string(moved));
    return {};
}

}  // namespace

pdt::Result<void> KernelDevice::config_read(uint32_t offset, void* data, uint32_t size) {
    return config_io("config read", object(), m_config, offset, size,
                     [&](uint32_t n, off_t at) { return ::pread(fd(), data, n, at); });
}

pdt::Result<void> KernelDevice::config_write(uint32_t offset, const void* data, uint32_t size) {
    return config_io("config write", object(), m_config, offset, size,
                     [&](uint32_t n, off_t at) { return ::pwrite(fd(), data, n, at); });
}

pdt::Result<Bar*> KernelDevice::bar(unsigned index) {
    const std::string where = object() + " BAR " + std::to_string(index);
    if (index > VFIO_PCI_BAR5_REGION_INDEX)
        return pdt::make_error("map BAR", where, EINVAL, "BAR index must be 0 to 5");
    std::lock_guard lock(m_bar_mutex);
    if (m_bars[index])
        return m_bars[index].get();
    const RegionInfo region = PDT_TRY(region_info(index));
    if (region.size == 0)
        return pdt::make_error("map BAR", where, ENOENT, "BAR not implemented (or upper half of a 64-bit BAR)");
    const uint32_t bar_register = PDT_TRY(config_read32(0x10 + 4 * index));
    if (bar_register & 1u)
        return pdt::make_error("map BAR", where, ENOTSUP, "an I/O BAR cannot be memory-mapped");
    if (!region.mmappable())
        return pdt::make_error("map BAR", where, ENOTSUP, "VFIO does not allow mmap of this BAR");
    // vfio-pci (Linux 6.1's vfio_pci_core_mmap) requests the BAR's region on its first mmap
    // without a lock: a second process mapping the same BAR at that moment gets EBUSY, and a
    // retry a little later finds the region mapped. Retried for up to about 100 ms.
    void* base = MAP_FAILED;
    int error = 0;
    for (int attempt = 0; attempt < 20; ++attempt) {
        base = ::mmap(nullptr, region.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd(), static_cast<off_t>(region.offset));
        error = errno;
        if (base != MAP_FAILED || error != EBUSY)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (base == MAP_FAILED)
        return pdt::make_error("mmap", where + " (" + pdt::hex(region.size) + " bytes)", error,
                          error == EBUSY ? "another process mapping the same BAR at the same time can race in vfio-pci "
                                           "(still busy after 20 tries over 100 ms)"
                                         : "");
    m_bars[index] = std::make_unique<Bar>(index, make_mapped_mmio(base, region.size));
    return m_bars[index].get();
}

DmaAddressing KernelDevice::dma_addressing() const {
    return group().noiommu ? DmaAddressing::Physical : DmaAddressing::Iommu;
}

pdt::Result<std::shared_ptr<PhysicalPool>> KernelDevice::physical_pool() {
    if (!group().noiommu)
        return std::shared_ptr<PhysicalPool>();
    if (!m_no_iommu_allowed)
        return pdt::make_error("allocate DMA buffer", object(), EPERM,
                          "refused: " + group().path + " is a no-IOMMU group, so the device would be given physical "
                          "addresses that can reach all of RAM; the no-IOMMU opt-in accepts that (DANGER: see the "
                          "README)");
    std::shared_ptr<PhysicalPool> pool = PDT_TRY(mapping_container().physical_pool(m_physical));
    static std::once_flag danger;
    std::call_once(danger, [] { std::fprintf(stderr, "%s\n", kNoIommuDanger); });
    return pool;
}

pdt::Result<void> KernelDevice::dma_map(uint64_t iova, void* vaddr, uint64_t size, DmaAccess access) {
    Container& container = mapping_container();
    const std::string where = "IOVA " + pdt::hex(iova) + " size " + pdt::hex(size) + " for " + object();
    if (container.iommu_type() == VFIO_NOIOMMU_IOMMU)
        return pdt::make_error("VFIO_IOMMU_MAP_DMA", where, ENOTSUP, "no-IOMMU mode has no IOMMU mappings");
    vfio_iommu_type1_dma_map map{};
    map.argsz = sizeof map;
    map.flags = (allows_read(access) ? VFIO_DMA_MAP_FLAG_READ : 0u) | (allows_write(access) ? VFIO_DMA_MAP_FLAG_WRITE : 0u);
    map.vaddr = reinterpret_cast<uintptr_t>(vaddr);
    map.iova = iova;
    map.size = size;
    if (xioctl(container.fd(), VFIO_IOMMU_MAP_DMA, &map) < 0) {
        const int code = errno;
        return dma_map_error(where, code, size, current_memlock());
    }
    return {};
}

pdt::Error dma_map_error(const std::string& where, int code, uint64_t size, const MemlockState& memlock) {
    std::string hint;
    if (code == ENOMEM)
        hint = "pinned memory counts against RLIMIT_MEMLOCK: " + memlock_hint(memlock, size);
    else if (code == EEXIST)
        hint = "overlaps an existing mapping";
    else if (code == EINVAL)
        hint = "IOVA, address and size must be page aligned and inside the IOVA ranges";
    return pdt::make_error("VFIO_IOMMU_MAP_DMA", where, code, hint);
}

pdt::Result<uint64_t> KernelDevice::dma_unmap(uint64_t iova, uint64_t size) {
    vfio_iommu_type1_dma_unmap unmap{};
    unmap.argsz = sizeof unmap;
    unmap.iova = iova;
    unmap.size = size;
    if (xioctl(mapping_container().fd(), VFIO_IOMMU_UNMAP_DMA, &unmap) < 0)
        return pdt::errno_error("VFIO_IOMMU_UNMAP_DMA", "IOVA " + pdt::hex(iova) + " size " + pdt::hex(size) + " for " + object());
    return static_cast<uint64_t>(unmap.size);
}

pdt::Result<IrqInfo> KernelDevice::irq_info(IrqIndex index) {
    vfio_irq_info info{};
    info.argsz = sizeof info;
    info.index = static_cast<uint32_t>(index);
    if (xioctl(fd(), VFIO_DEVICE_GET_IRQ_INFO, &info) < 0)
        return pdt::errno_error("VFIO_DEVICE_GET_IRQ_INFO", object() + " " + to_string(index));
    return IrqInfo{index, info.count, info.flags};
}

namespace {

pdt::Result<void> set_irqs(int fd, const std::string& where, uint32_t flags, IrqIndex index, const std::vector<int32_t>& fds,
                      uint32_t count) {
    std::vector<uint8_t> bytes(sizeof(vfio_irq_set) + fds.size() * sizeof(int32_t), 0);
    vfio_irq_set set{};
    set.argsz = static_cast<uint32_t>(bytes.size());
    set.flags = flags;
    set.index = static_cast<uint32_t>(index);
    set.start = 0;
    set.count = count;
    std::memcpy(bytes.data(), &set, sizeof set);
    if (!fds.empty())
        std::memcpy(bytes.data() + sizeof set, fds.data(), fds.size() * sizeof(int32_t));
    if (xioctl(fd, VFIO_DEVICE_SET_IRQS, bytes.data()) < 0)
        return pdt::errno_error("VFIO_DEVICE_SET_IRQS", where);
    return {};
}

}  // namespace

pdt::Result<void> KernelDevice::irq_enable(IrqIndex index, unsigned vectors) {
    const std::string where = object() + " " + to_string(index);
    const IrqInfo info = PDT_TRY(irq_info(index));
    if (vectors == 0 || vectors > info.count)
        return pdt::make_error("enable interrupts", where, EINVAL,
                          std::to_string(vectors) + " vectors asked, the device offers " + std::to_string(info.count));
    if (!(info.flags & VFIO_IRQ_INFO_EVENTFD))
        return pdt::make_error("enable interrupts", where, ENOTSUP, "this interrupt cannot signal an eventfd");
    if (m_irq_index)
        PDT_CHECK(irq_disable(*m_irq_index));
    // An MSI is a memory write by the device: without Bus Master none can ever arrive.
    if (index == IrqIndex::Msi || index == IrqIndex::Msix)
        PDT_CHECK(enable_bus_master());
    std::vector<UniqueFd> owned;
    std::vector<int32_t> fds;
    for (unsigned i = 0; i < vectors; ++i) {
        owned.emplace_back(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
        if (!owned.back().valid())
            return pdt::errno_error("eventfd", where + " vector " + std::to_string(i));
        fds.push_back(owned.back().get());
    }
    PDT_CHECK(set_irqs(fd(), where, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, index, fds, vectors));
    m_irq_fds = std::move(owned);
    m_irq_index = index;
    return {};
}

pdt::Result<void> KernelDevice::irq_disable(IrqIndex index) {
    PDT_CHECK(set_irqs(fd(), object() + " " + to_string(index), VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                       index, {}, 0));
    if (m_irq_index == index) {
        m_irq_fds.clear();
        m_irq_index.reset();
    }
    return {};
}

pdt::Result<int> KernelDevice::irq_eventfd(unsigned vector) {
    if (vector >= m_irq_fds.size())
        return pdt::make_error("interrupt eventfd", object() + " vector " + std::to_string(vector), EINVAL,
                          m_irq_index ? std::to_string(m_irq_fds.size()) + " vectors enabled" : "interrupts are not enabled");
    return m_irq_fds[vector].get();
}

pdt::Result<void> KernelDevice::irq_unmask(unsigned vector) {
    if (m_irq_index != IrqIndex::Intx)
        return {};
    (void)vector;
    return set_irqs(fd(), object() + " INTx", VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK, IrqIndex::Intx, {}, 1);
}

pdt::Result<void> KernelDevice::reset() {
    if (!(m_flags & VFIO_DEVICE_FLAGS_RESET))
        return pdt::make_error("VFIO_DEVICE_RESET", object(), ENOTSUP, "the device reports no reset support");
    if (xioctl(fd(), VFIO_DEVICE_RESET, 0ul) < 0)
        return pdt::errno_error("VFIO_DEVICE_RESET", object());
    return {};
}

}  // namespace vfio
