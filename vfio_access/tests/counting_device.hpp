// A device that logs every BAR access of the simulated (or any) device it wraps, for tests that
// prove a tool reads only, or touches nothing before a bad request is refused. It can also play a
// faulty register file (bits stuck at 0) or a device that is gone (every read all-ones).
#pragma once

#include <memory>
#include <vector>

#include "vfio_access/device.hpp"

namespace counting_test {

struct Log {
    std::vector<uint64_t> reads, writes;  // BAR offsets
    uint32_t stuck_low_bits = 0;          // a faulty register file: these bits always read 0
    bool gone = false;                    // every read all-ones
};

class CountingBar : public vfio::MmioBackend {
public:
    CountingBar(vfio::Bar* inner, Log& log) : m_inner(inner), m_log(log) {}
    uint64_t size() const override { return m_inner->size(); }
    uint64_t read(uint64_t offset, unsigned width) override {
        m_log.reads.push_back(offset);
        if (m_log.gone)
            return ~uint64_t{0} >> (64 - 8 * width);
        return m_inner->read(offset, width).value() & ~uint64_t{m_log.stuck_low_bits};
    }
    void write(uint64_t offset, unsigned width, uint64_t value) override {
        m_log.writes.push_back(offset);
        (void)m_inner->write(offset, width, value);
    }

private:
    vfio::Bar* m_inner;
    Log& m_log;
};

class CountingDevice : public vfio::Device {
public:
    CountingDevice(vfio::Device& inner, Log& log) : m_inner(inner), m_log(log) {}
    const vfio::DeviceIdentity& identity() const override { return m_inner.identity(); }
    pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) override {
        return m_inner.config_read(offset, data, size);
    }
    pdt::Result<void> config_write(uint32_t offset, const void* data, uint32_t size) override {
        m_log.writes.push_back(~uint64_t{0});
        return m_inner.config_write(offset, data, size);
    }
    pdt::Result<vfio::Bar*> bar(unsigned index) override {
        vfio::Bar* inner = PDT_TRY(m_inner.bar(index));
        if (!m_bars[index])
            m_bars[index] = std::make_unique<vfio::Bar>(index, std::make_shared<CountingBar>(inner, m_log));
        return m_bars[index].get();
    }
    pdt::Result<void> dma_map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access) override {
        m_log.writes.push_back(~uint64_t{0});
        return m_inner.dma_map(iova, vaddr, size, access);
    }
    pdt::Result<uint64_t> dma_unmap(uint64_t iova, uint64_t size) override { return m_inner.dma_unmap(iova, size); }
    vfio::IovaAllocator& iova_allocator() override { return m_inner.iova_allocator(); }
    pdt::Result<vfio::IrqInfo> irq_info(vfio::IrqIndex index) override { return m_inner.irq_info(index); }
    pdt::Result<void> irq_enable(vfio::IrqIndex index, unsigned vectors) override {
        m_log.writes.push_back(~uint64_t{0});
        return m_inner.irq_enable(index, vectors);
    }
    pdt::Result<void> irq_disable(vfio::IrqIndex index) override { return m_inner.irq_disable(index); }
    pdt::Result<int> irq_eventfd(unsigned vector) override { return m_inner.irq_eventfd(vector); }
    pdt::Result<void> reset() override {
        m_log.writes.push_back(~uint64_t{0});
        return m_inner.reset();
    }

private:
    vfio::Device& m_inner;
    Log& m_log;
    std::unique_ptr<vfio::Bar> m_bars[6];
};

}  // namespace counting_test
