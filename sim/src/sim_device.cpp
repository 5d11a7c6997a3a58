#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/format.hpp"
#include "sim/config_topology.hpp"
#include "sim/sim_device.hpp"

namespace sim {

void SimBar::add_block(uint64_t offset, uint64_t size, std::shared_ptr<RegisterBlock> block) {
    m_slots.push_back(Slot{offset, size, std::move(block)});
    std::sort(m_slots.begin(), m_slots.end(), [](const Slot& a, const Slot& b) { return a.offset < b.offset; });
}

const SimBar::Slot* SimBar::find(uint64_t offset) const {
    for (const Slot& slot : m_slots)
        if (offset >= slot.offset && offset - slot.offset < slot.size)
            return &slot;
    return nullptr;
}

uint64_t SimBar::read(uint64_t offset, unsigned width) {
    if (const Slot* slot = find(offset))
        return slot->block->read(offset - slot->offset, width);
    return width == 8 ? m_unclaimed : m_unclaimed & ((1ull << (width * 8)) - 1);
}

void SimBar::write(uint64_t offset, unsigned width, uint64_t value) {
    if (const Slot* slot = find(offset))
        slot->block->write(offset - slot->offset, width, value);
}

void SimBar::reset() {
    for (Slot& slot : m_slots)
        slot.block->reset();
}

SimDevice::SimDevice(vfio::DeviceIdentity identity, std::vector<std::shared_ptr<SimBar>> bars,
                     std::vector<vfio::IovaRange> iova_ranges, unsigned msi_vectors)
    : m_identity(identity), m_bar_backends(std::move(bars)), m_iova_allocator(std::move(iova_ranges), 4096),
      m_msi_vectors(msi_vectors) {
    auto put16 = [this](uint32_t off, uint16_t v) { std::memcpy(&m_config[off], &v, 2); };
    put16(vfio::cfg::VENDOR_ID, identity.vendor_id);
    put16(vfio::cfg::DEVICE_ID, identity.device_id);
    m_config[vfio::cfg::REVISION_ID] = identity.revision;
    m_config[0x09] = identity.class_code & 0xff;
    m_config[0x0a] = (identity.class_code >> 8) & 0xff;
    m_config[0x0b] = (identity.class_code >> 16) & 0xff;
    put16(vfio::cfg::SUBSYSTEM_VENDOR_ID, identity.subsystem_vendor_id);
    put16(vfio::cfg::SUBSYSTEM_ID, identity.subsystem_device_id);
    put16(vfio::cfg::COMMAND, vfio::cfg::COMMAND_MEMORY);
    for (size_t i = 0; i < m_bar_backends.size(); ++i)
        m_bars.push_back(m_bar_backends[i] ? std::make_unique<vfio::Bar>(static_cast<unsigned>(i), m_bar_backends[i]) : nullptr);
}

SimDevice::~SimDevice() {
    for (auto it = m_destroy_actions.rbegin(); it != m_destroy_actions.rend(); ++it)
        (*it)();
    close_eventfds();
}

pdt::Result<void> SimDevice::config_read(uint32_t offset, void* data, uint32_t size) {
    if (offset > m_config.size() || size > m_config.size() - offset)
        return pdt::make_error("config read", m_identity.address.to_string(), EINVAL, "beyond 4 KiB config space");
    std::lock_guard lock(m_config_mutex);
    std::memcpy(data, &m_config[offset], size);
    return {};
}

pdt::Result<void> SimDevice::config_write(uint32_t offset, const void* data, uint32_t size) {
    if (offset > m_config.size() || size > m_config.size() - offset)
        return pdt::make_error("config write", m_identity.address.to_string(), EINVAL, "beyond 4 KiB config space");
    std::lock_guard lock(m_config_mutex);
    // Only the Command register is writable in the simulated header; other writes are dropped,
    // as read-only registers drop them on hardware.
    for (uint32_t i = 0; i < size; ++i) {
        const uint32_t at = offset + i;
        if (at == vfio::cfg::COMMAND || at == vfio::cfg::COMMAND + 1)
            m_config[at] = static_cast<const uint8_t*>(data)[i];
    }
    return {};
}

pdt::Result<vfio::Bar*> SimDevice::bar(unsigned index) {
    if (index >= m_bars.size() || !m_bars[index])
        return pdt::make_error("map BAR", m_identity.address.to_string() + " BAR " + std::to_string(index), ENODEV,
                               "the simulated design has no such BAR");
    return m_bars[index].get();
}

pdt::Result<void> SimDevice::dma_map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access) {
    return m_iommu.map(iova, vaddr, size, access);
}

pdt::Result<uint64_t> SimDevice::dma_unmap(uint64_t iova, uint64_t size) { return m_iommu.unmap(iova, size); }

pdt::Result<vfio::IrqInfo> SimDevice::irq_info(vfio::IrqIndex index) {
    if (index != vfio::IrqIndex::Msi)
        return vfio::IrqInfo{index, 0, 0};
    return vfio::IrqInfo{index, m_msi_vectors, 1 /* VFIO_IRQ_INFO_EVENTFD */};
}

pdt::Result<void> SimDevice::irq_enable(vfio::IrqIndex index, unsigned vectors) {
    if (index != vfio::IrqIndex::Msi || vectors == 0 || vectors > m_msi_vectors)
        return pdt::make_error("VFIO_DEVICE_SET_IRQS", m_identity.address.to_string(), EINVAL,
                               std::string(vfio::to_string(index)) + " with " + std::to_string(vectors) +
                                   " vectors not supported; the simulated device has " +
                                   std::to_string(m_msi_vectors) + " MSI vectors");
    std::lock_guard lock(m_irq_mutex);
    for (int fd : m_eventfds)
        ::close(fd);
    m_eventfds.clear();
    for (unsigned v = 0; v < vectors; ++v) {
        const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (fd < 0)
            return pdt::errno_error("eventfd", m_identity.address.to_string());
        m_eventfds.push_back(fd);
    }
    return {};
}

pdt::Result<void> SimDevice::irq_disable(vfio::IrqIndex) {
    close_eventfds();
    return {};
}

void SimDevice::close_eventfds() {
    std::lock_guard lock(m_irq_mutex);
    for (int fd : m_eventfds)
        ::close(fd);
    m_eventfds.clear();
}

pdt::Result<int> SimDevice::irq_eventfd(unsigned vector) {
    std::lock_guard lock(m_irq_mutex);
    if (vector >= m_eventfds.size())
        return pdt::make_error("interrupt eventfd", m_identity.address.to_string() + " vector " + std::to_string(vector),
                               ENXIO, "vector not enabled; call irq_enable first");
    return m_eventfds[vector];
}

void SimDevice::raise_msi(unsigned vector) {
    std::lock_guard lock(m_irq_mutex);
    if (vector < m_eventfds.size()) {
        const uint64_t one = 1;
        (void)!::write(m_eventfds[vector], &one, sizeof one);
    }
}

void SimDevice::set_user_interrupt_input(UserInterruptInput input) { m_user_interrupt_input = std::move(input); }

pdt::Result<void> SimDevice::request_user_interrupt(unsigned irq) {
    if (!m_user_interrupt_input)
        return pdt::make_error("request user interrupt " + std::to_string(irq), m_identity.address.to_string(), ENODEV,
                               "the simulated device has no DMA IP that takes user interrupts");
    return m_user_interrupt_input(irq);
}

pdt::Result<void> SimDevice::reset() {
    for (auto& bar : m_bar_backends)
        if (bar)
            bar->reset();
    for (auto& action : m_reset_actions)
        action();
    const uint16_t command = vfio::cfg::COMMAND_MEMORY;
    std::lock_guard lock(m_config_mutex);
    std::memcpy(&m_config[vfio::cfg::COMMAND], &command, 2);
    return {};
}

bool SimDevice::bus_master_enabled() const {
    std::lock_guard lock(m_config_mutex);
    return (m_config[vfio::cfg::COMMAND] & vfio::cfg::COMMAND_MASTER) != 0;
}

pdt::Result<void> SimDevice::require_bus_master(uint64_t iova, uint64_t length, bool write) {
    if (bus_master_enabled())
        return {};
    char object[64];
    std::snprintf(object, sizeof object, "IOVA 0x%llx length 0x%llx", static_cast<unsigned long long>(iova),
                  static_cast<unsigned long long>(length));
    return pdt::make_error(write ? "DMA write" : "DMA read", object, EACCES,
                           "Bus Master is clear in the Command register of " + m_identity.address.to_string());
}

pdt::Result<void> SimDevice::dma_read(uint64_t iova, void* dst, uint64_t length) {
    PDT_CHECK(require_bus_master(iova, length, false));
    *m_dma_bytes += length;
    return m_iommu.read(iova, dst, length);
}

pdt::Result<void> SimDevice::dma_write(uint64_t iova, const void* src, uint64_t length) {
    PDT_CHECK(require_bus_master(iova, length, true));
    *m_dma_bytes += length;
    return m_iommu.write(iova, src, length);
}

void DesignBus::add(vfio::DeviceIdentity identity, Factory factory) { m_devices.emplace_back(identity, std::move(factory)); }

pdt::Result<std::vector<vfio::DeviceIdentity>> DesignBus::scan() {
    std::vector<vfio::DeviceIdentity> identities;
    for (const auto& [identity, factory] : m_devices)
        identities.push_back(identity);
    return identities;
}

pdt::Result<std::unique_ptr<vfio::Device>> DesignBus::open(const vfio::DeviceIdentity& identity) {
    for (const auto& [known, factory] : m_devices)
        if (known.address == identity.address)
            return factory();
    return pdt::make_error("open simulated device", identity.address.to_string(), ENODEV, "no simulated design at that address");
}

std::vector<std::string> SimDevice::iommu_faults() const {
    std::vector<std::string> lines;
    for (const DmaFault& f : m_iommu.faults())
        lines.push_back(std::string("device ") + (f.write ? "write" : "read") + " at IOVA " + pdt::hex(f.iova) + ", " +
                        std::to_string(f.length) + " bytes: " + f.reason);
    return lines;
}

}  // namespace sim
