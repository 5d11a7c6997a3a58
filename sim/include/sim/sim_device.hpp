// A simulated PCI function behind the device seam. Models reach host memory only through the
// DMA mappings the driver made (SimIommu): an unmapped IOVA or a wrong-direction access is a
// fault, logged like a DMAR fault, as the kernel's IOMMU does.
#pragma once

#include <array>
#include <cerrno>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "vfio_access/device.hpp"

namespace sim {

// A block of registers inside a simulated BAR; offsets are relative to the block.
class RegisterBlock {
public:
    virtual ~RegisterBlock() = default;
    virtual uint64_t read(uint64_t offset, unsigned width) = 0;
    virtual void write(uint64_t offset, unsigned width, uint64_t value) = 0;
    virtual void reset() {}
};

// A memory BAR made of register blocks at fixed offsets. Reads of unclaimed space return
// `unclaimed_value` (AXI decode errors read back with the top bit set on real designs).
class SimBar : public vfio::MmioBackend {
public:
    explicit SimBar(uint64_t size, uint64_t unclaimed_value = 0xffffffffffffffffull) : m_size(size), m_unclaimed(unclaimed_value) {}
    void add_block(uint64_t offset, uint64_t size, std::shared_ptr<RegisterBlock> block);
    uint64_t size() const override { return m_size; }
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset();

private:
    struct Slot {
        uint64_t offset, size;
        std::shared_ptr<RegisterBlock> block;
    };
    const Slot* find(uint64_t offset) const;
    uint64_t m_size;
    uint64_t m_unclaimed;
    std::vector<Slot> m_slots;
};

struct DmaFault {
    uint64_t iova = 0;
    uint64_t length = 0;
    bool write = false;  // device write (C2H) or read (H2C)
    std::string reason;  // "unmapped", "released" (unmapped by the driver earlier), "not writable", ...
};

// The IOMMU in front of a simulated device. Besides faulting what is unmapped, it remembers
// every range the driver unmapped: a device access there is a DMA after release, the hazard
// of a buffer freed under a live engine. Each such access is printed at once ("sim IOMMU:
// ...") and counted for the whole process; a process that counted any exits with status 1
// when it ends (a test, or a tool on a simulated design, fails on it), unless forgiven.
class SimIommu {
public:
    // Accesses to released IOVAs counted in this process (lying engines' late writes aside).
    static uint64_t released_iova_accesses();
    // For the tests that provoke one on purpose: forgets the count.
    static void forgive_released_iova_accesses();
    // While one lives in a thread, that thread's device accesses are a lying engine's late
    // writes (streams/lie.hpp completes_early): faulted and printed, but not counted.
    class LyingWriteScope {
    public:
        LyingWriteScope();
        ~LyingWriteScope();
        LyingWriteScope(const LyingWriteScope&) = delete;
        LyingWriteScope& operator=(const LyingWriteScope&) = delete;
    };

    pdt::Result<void> map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access);
    uint64_t unmap(uint64_t iova, uint64_t size);  // bytes unmapped (whole mappings only)
    // Copies between a device address and host memory; fails with EFAULT on a fault.
    pdt::Result<void> read(uint64_t iova, void* dst, uint64_t length);
    pdt::Result<void> write(uint64_t iova, const void* src, uint64_t length);
    std::vector<DmaFault> faults() const;
    size_t mapping_count() const;

private:
    struct Mapping {
        uint8_t* vaddr;
        uint64_t size;
        vfio::DmaAccess access;
    };
    pdt::Result<void> fault(uint64_t iova, uint64_t length, bool write, const char* reason);
    bool released(uint64_t iova) const;  // inside a range the driver unmapped (m_mutex held)
    mutable std::shared_mutex m_mutex;
    std::map<uint64_t, Mapping> m_mappings;  // by IOVA
    std::map<uint64_t, uint64_t> m_released;  // unmapped ranges, start -> end, merged
    mutable std::mutex m_fault_mutex;
    std::vector<DmaFault> m_faults;
};

class SimDevice : public vfio::Device {
public:
    // config: the 4 KiB config space image (header filled from identity when left zero).
    SimDevice(vfio::DeviceIdentity identity, std::vector<std::shared_ptr<SimBar>> bars,
              std::vector<vfio::IovaRange> iova_ranges = {{0x10000, (1ull << 48) - 1}}, unsigned msi_vectors = 16);
    ~SimDevice() override;

    const vfio::DeviceIdentity& identity() const override { return m_identity; }
    pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) override;
    pdt::Result<void> config_write(uint32_t offset, const void* data, uint32_t size) override;
    pdt::Result<vfio::Bar*> bar(unsigned index) override;
    pdt::Result<void> dma_map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access) override;
    pdt::Result<uint64_t> dma_unmap(uint64_t iova, uint64_t size) override;
    vfio::IovaAllocator& iova_allocator() override { return m_iova_allocator; }
    pdt::Result<vfio::IrqInfo> irq_info(vfio::IrqIndex index) override;
    pdt::Result<void> irq_enable(vfio::IrqIndex index, unsigned vectors) override;
    pdt::Result<void> irq_disable(vfio::IrqIndex index) override;
    pdt::Result<int> irq_eventfd(unsigned vector) override;
    pdt::Result<void> reset() override;

    // Model side.
    bool bus_master_enabled() const;
    pdt::Result<void> dma_read(uint64_t iova, void* dst, uint64_t length);         // device reads host
    pdt::Result<void> dma_write(uint64_t iova, const void* src, uint64_t length);  // device writes host
    void raise_msi(unsigned vector);  // no-op unless that vector is enabled
    // The card's user logic requesting user interrupt `irq` of the DMA IP (XDMA usr_irq_req,
    // QDMA usr_irq_in_vld): the IP model attached to the device takes it through the input it
    // set (set_user_interrupt_input). Tests and a tool's simulated mode (user_interrupts
    // --sim_raise) call it. ENODEV when no IP model takes user interrupts.
    using UserInterruptInput = std::function<pdt::Result<void>(unsigned irq)>;
    void set_user_interrupt_input(UserInterruptInput input);
    // The input of an IP model the device owns: its request_user_interrupt while it lives.
    template <typename Model>
    void set_user_interrupt_model(const std::shared_ptr<Model>& model) {
        set_user_interrupt_input([weak = std::weak_ptr<Model>(model)](unsigned irq) -> pdt::Result<void> {
            if (auto held = weak.lock())
                return held->request_user_interrupt(irq);
            return pdt::make_error("request user interrupt " + std::to_string(irq), "simulated IP", ENODEV,
                                   "the model is gone");
        });
    }
    pdt::Result<void> request_user_interrupt(unsigned irq);
    SimIommu& iommu() { return m_iommu; }
    std::vector<std::string> iommu_faults() const override;
    // Bytes moved by dma_read and dma_write so far: the load the die-temperature model follows.
    std::shared_ptr<const std::atomic<uint64_t>> dma_activity() const { return m_dma_bytes; }
    std::array<uint8_t, 4096>& config_space() { return m_config; }
    // Extra reset actions of the models (run by reset() after the BAR blocks reset).
    void on_reset(std::function<void()> action) { m_reset_actions.push_back(std::move(action)); }
    // Actions run first in the destructor, while the IOMMU and interrupts still exist: models
    // with engine threads stop them here (and may keep themselves alive by capture).
    void on_destroy(std::function<void()> action) { m_destroy_actions.push_back(std::move(action)); }

private:
    pdt::Result<void> require_bus_master(uint64_t iova, uint64_t length, bool write);
    void close_eventfds();

    vfio::DeviceIdentity m_identity;
    std::array<uint8_t, 4096> m_config{};
    mutable std::mutex m_config_mutex;
    std::vector<std::shared_ptr<SimBar>> m_bar_backends;
    std::vector<std::unique_ptr<vfio::Bar>> m_bars;
    vfio::IovaAllocator m_iova_allocator;
    SimIommu m_iommu;
    unsigned m_msi_vectors;
    std::mutex m_irq_mutex;
    std::vector<int> m_eventfds;
    std::vector<std::function<void()>> m_reset_actions;
    std::vector<std::function<void()>> m_destroy_actions;
    UserInterruptInput m_user_interrupt_input;
    std::shared_ptr<std::atomic<uint64_t>> m_dma_bytes = std::make_shared<std::atomic<uint64_t>>(0);
};

// A simulated bus: devices are created when opened, from factories registered with an identity.
class DesignBus : public vfio::DeviceBus {
public:
    using Factory = std::function<pdt::Result<std::unique_ptr<vfio::Device>>()>;
    void add(vfio::DeviceIdentity identity, Factory factory);
    std::string name() const override { return "simulated"; }
    bool simulated() const override { return true; }
    pdt::Result<std::vector<vfio::DeviceIdentity>> scan() override;
    pdt::Result<std::unique_ptr<vfio::Device>> open(const vfio::DeviceIdentity& identity) override;

private:
    std::vector<std::pair<vfio::DeviceIdentity, Factory>> m_devices;
};

}  // namespace sim
