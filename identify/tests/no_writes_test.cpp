// Identification must only read: a device under test may be running DMA for another process.
// A recording device wraps each simulated design and fails on any write, DMA map or reset.
#include <gtest/gtest.h>

#include "identify/identify.hpp"
#include "sim/design_sim.hpp"

namespace {

struct Log {
    std::vector<std::string> writes;
    size_t reads = 0;
};

class RecordingBar : public vfio::MmioBackend {
public:
    RecordingBar(vfio::Bar* inner, Log& log) : m_inner(inner), m_log(log) {}
    uint64_t size() const override { return m_inner->size(); }
    uint64_t read(uint64_t offset, unsigned width) override {
        ++m_log.reads;
        return m_inner->read(offset, width).value();
    }
    void write(uint64_t offset, unsigned width, uint64_t value) override {
        m_log.writes.push_back("BAR " + std::to_string(m_inner->index()) + " offset " + std::to_string(offset));
        (void)m_inner->write(offset, width, value);
    }

private:
    vfio::Bar* m_inner;
    Log& m_log;
};

class RecordingDevice : public vfio::Device {
public:
    RecordingDevice(std::unique_ptr<vfio::Device> inner, Log& log) : m_inner(std::move(inner)), m_log(log) {}
    const vfio::DeviceIdentity& identity() const override { return m_inner->identity(); }
    pdt::Result<void> config_read(uint32_t offset, void* data, uint32_t size) override {
        return m_inner->config_read(offset, data, size);
    }
    pdt::Result<void> config_write(uint32_t offset, const void* data, uint32_t size) override {
        m_log.writes.push_back("config offset " + std::to_string(offset));
        return m_inner->config_write(offset, data, size);
    }
    pdt::Result<vfio::Bar*> bar(unsigned index) override {
        if (!m_bars[index]) {
            vfio::Bar* inner = PDT_TRY(m_inner->bar(index));
            m_bars[index] = std::make_unique<vfio::Bar>(index, std::make_shared<RecordingBar>(inner, m_log));
        }
        return m_bars[index].get();
    }
    pdt::Result<void> dma_map(uint64_t iova, void* vaddr, uint64_t size, vfio::DmaAccess access) override {
        m_log.writes.push_back("dma_map");
        return m_inner->dma_map(iova, vaddr, size, access);
    }
    pdt::Result<uint64_t> dma_unmap(uint64_t iova, uint64_t size) override { return m_inner->dma_unmap(iova, size); }
    vfio::IovaAllocator& iova_allocator() override { return m_inner->iova_allocator(); }
    pdt::Result<vfio::IrqInfo> irq_info(vfio::IrqIndex index) override { return m_inner->irq_info(index); }
    pdt::Result<void> irq_enable(vfio::IrqIndex index, unsigned vectors) override {
        m_log.writes.push_back("irq_enable");
        return m_inner->irq_enable(index, vectors);
    }
    pdt::Result<void> irq_disable(vfio::IrqIndex index) override { return m_inner->irq_disable(index); }
    pdt::Result<int> irq_eventfd(unsigned vector) override { return m_inner->irq_eventfd(vector); }
    pdt::Result<void> reset() override {
        m_log.writes.push_back("reset");
        return m_inner->reset();
    }

private:
    std::unique_ptr<vfio::Device> m_inner;
    Log& m_log;
    std::unique_ptr<vfio::Bar> m_bars[6];
};

// A bus whose devices are the simulated ones wrapped in RecordingDevice.
class RecordingBus : public vfio::DeviceBus {
public:
    RecordingBus(std::unique_ptr<vfio::DeviceBus> inner, Log& log) : m_inner(std::move(inner)), m_log(log) {}
    std::string name() const override { return "recording"; }
    pdt::Result<std::vector<vfio::DeviceIdentity>> scan() override { return m_inner->scan(); }
    pdt::Result<std::unique_ptr<vfio::Device>> open(const vfio::DeviceIdentity& identity) override {
        std::unique_ptr<vfio::Device> inner = PDT_TRY(m_inner->open(identity));
        return std::unique_ptr<vfio::Device>(std::make_unique<RecordingDevice>(std::move(inner), m_log));
    }

private:
    std::unique_ptr<vfio::DeviceBus> m_inner;
    Log& m_log;
};

}  // namespace

TEST(IdentifyNoWrites, EveryBuiltInDesignIsIdentifiedByReadsOnly) {
    const designs::Registry registry = designs::Registry::builtin().value();
    for (size_t first = 0; first < registry.designs().size(); first += 20) {
        std::vector<std::string> batch;  // make_design_bus places at most 20 designs
        for (size_t i = first; i < std::min(first + 20, registry.designs().size()); ++i)
            batch.push_back(registry.designs()[i].name);
        Log log;
        RecordingBus bus(sim::make_design_bus(batch, registry).value(), log);
        identify::IdentifyOptions options;
        auto found = identify::identify_designs(bus, registry, options);
        ASSERT_TRUE(found.ok()) << found.error().message();
        EXPECT_EQ(found->designs.size(), batch.size());
        EXPECT_TRUE(found->failures.empty());
        EXPECT_TRUE(log.writes.empty()) << "first write: " << log.writes.front();
        EXPECT_GT(log.reads, batch.size()) << "identification reads the devices";
        for (const auto& design : found->designs) {
            auto command = design.device->config_read16(vfio::cfg::COMMAND);
            ASSERT_TRUE(command.ok());
            EXPECT_EQ(*command & vfio::cfg::COMMAND_MASTER, 0) << design.design->name << ": Bus Master left clear";
        }
    }
}

TEST(IdentifyNoWrites, RecorderSeesWrites) {
    // The recorder itself must be able to fail: a write through it is logged.
    const designs::Registry registry = designs::Registry::builtin().value();
    Log log;
    RecordingBus bus(sim::make_design_bus({"TEF1001_dma_stream_loopback"}, registry).value(), log);
    auto device = bus.open(bus.scan().value()[0]).value();
    ASSERT_TRUE(device->bar(0).value()->write(0x6000, 4, 2).ok());
    ASSERT_TRUE(device->enable_bus_master().ok());
    EXPECT_EQ(log.writes, (std::vector<std::string>{"BAR 0 offset 24576", "config offset 4"}));
}
