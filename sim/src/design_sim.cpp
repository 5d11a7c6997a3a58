#include "sim/design_sim.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "base/format.hpp"
#include "sim/axi_dma_model.hpp"
#include "sim/bar_memory.hpp"
#include "sim/cmac_model.hpp"
#include "sim/cms_model.hpp"
#include "sim/qdma_model.hpp"
#include "sim/quad_spi_model.hpp"
#include "sim/system_monitor_models.hpp"
#include "sim/xdma_model.hpp"

namespace sim {
namespace {

constexpr uint64_t kDmaBarMinimum = 0x10000;  // PG195: the DMA register space is 64 KiB

uint64_t round_up_power_of_two(uint64_t value) {
    uint64_t size = 0x1000;
    while (size < value)
        size <<= 1;
    return size;
}

// A deterministic, design-specific DNA when the description gives none.
std::vector<uint32_t> dna_words(const designs::Design& design, size_t index) {
    const auto& given = design.simulation.dna_words;
    if (given.size() >= 3 * (index + 1))
        return {given[3 * index], given[3 * index + 1], given[3 * index + 2]};
    const size_t h = std::hash<std::string>{}(design.name) + index;
    return {static_cast<uint32_t>(h), static_cast<uint32_t>(h >> 32) ^ 0x4000u, static_cast<uint32_t>(0x40020000u | (h & 0xffff))};
}

uint32_t user_access_value(const designs::Design& design) {
    if (design.simulation.user_access_timestamp)
        return *design.simulation.user_access_timestamp;
    return designs::BuildTimestamp{1, 1, 2024, 0, 0, 0}.encode();
}

// A CMAC port as the design built it (PG203: its operation and RS-FEC).
std::shared_ptr<RegisterBlock> make_cmac_model(const designs::Peripheral& p) {
    CmacModel::Config config;
    config.tx = p.cmac_operation != designs::CmacOperation::SimplexRx;
    config.rx = p.cmac_operation != designs::CmacOperation::SimplexTx;
    config.rs_fec = p.cmac_rs_fec;
    config.gt_loopback = p.cmac_gt_loopback;
    return std::make_shared<CmacModel>(config);
}

// An AXI DMA (PG021) as the design wired it.
std::shared_ptr<RegisterBlock> make_axi_dma_model(const designs::Peripheral& p) {
    AxiDmaModel::Config config;
    config.memory_size = p.axi_dma_memory_size;
    config.length_width = p.axi_dma_length_width;
    config.streams = p.axi_dma_streams == designs::AxiDmaStreams::Loopback ? AxiDmaModel::Streams::Loopback
                                                                         : AxiDmaModel::Streams::FixedDataAndSink;
    return std::make_shared<AxiDmaModel>(config);
}

// The DDR reset GPIO with the MIG the design says it has behind it.
std::shared_ptr<RegisterBlock> make_ddr_reset_gpio_model(const designs::Peripheral& p) {
    MigResetModel::Config config;
    config.locked_after = std::chrono::microseconds(p.simulated_mig.locked_after_us);
    config.calibrated_after = std::chrono::milliseconds(p.simulated_mig.calibrated_after_ms);
    config.calibrates = p.simulated_mig.calibrates;
    config.follows_reset = p.simulated_mig.follows_reset;
    return make_ddr_reset_gpio(std::make_shared<MigResetModel>(config));
}

// The model of one peripheral; the sensor blocks read the instance's die.
std::shared_ptr<RegisterBlock> make_block(const designs::Peripheral& p, const designs::Design& design, size_t dna_index,
                                          const std::shared_ptr<DieThermal>& die) {
    using designs::PeripheralType;
    switch (p.type) {
    case PeripheralType::QuadSpi: return nullptr;  // make_quad_spi_model, which can fail
    case PeripheralType::Xadc: return make_xadc_block(die);
    case PeripheralType::Sysmon: return make_sysmon_block(die, p.sysmon_primitive, p.sysmon_slaves);
    case PeripheralType::Iic: return make_iic_block();
    case PeripheralType::BitBangedI2cGpio: return make_bit_banged_i2c_gpio_block();
    case PeripheralType::UserAccessTimestamp: return make_constant_block({user_access_value(design)});
    case PeripheralType::UltrascaleDna: return make_constant_block(dna_words(design, dna_index));
    case PeripheralType::AxiStreamSwitch: return std::make_shared<AxiStreamSwitchBlock>(p.master_ports, p.slave_ports);
    case PeripheralType::Cms: return std::make_shared<CmsModel>(die);
    case PeripheralType::Cmac: return make_cmac_model(p);
    case PeripheralType::AxiDma: return make_axi_dma_model(p);
    case PeripheralType::DdrResetGpio: return make_ddr_reset_gpio_model(p);
    case PeripheralType::M2LedGpio: return std::make_shared<AxiGpioModel>();
    }
    return nullptr;
}


// Routes of an AXI4-Stream switch (master m <- slave s) as the XDMA loopback sees them
// (H2C s -> C2H m): master ports feed C2H streams, slave ports take H2C streams.
std::optional<unsigned> c2h_for_h2c(const std::vector<std::optional<unsigned>>& routes, unsigned h2c) {
    for (size_t m = 0; m < routes.size(); ++m)
        if (routes[m] == h2c)
            return static_cast<unsigned>(m);
    return std::nullopt;
}

// Stream designs: an AXI4-Stream Switch in the fabric routes H2C streams to C2H streams through
// the model's router (every master disabled after reset); a switch named in the table but
// absent from the fabric means fixed connections, the design's default routes.
void wire_stream_routing(const designs::Design& design, uint8_t revision, DesignInstance& instance) {
    const designs::Peripheral* table_switch = nullptr;
    for (const designs::Peripheral* p : design.peripherals_for_revision(revision))
        if (p->type == designs::PeripheralType::AxiStreamSwitch)
            table_switch = p;
    if (!table_switch)
        return;  // no switch: the model's default H2C n -> C2H n
    if (instance.axi_switch) {
        std::weak_ptr<XdmaModel> weak = instance.xdma;
        instance.axi_switch->set_routing_hook([weak](const std::vector<std::optional<unsigned>>& routes) {
            if (auto xdma = weak.lock())
                xdma->set_router([routes](unsigned h2c) { return c2h_for_h2c(routes, h2c); });
        });
        instance.xdma->set_router([](unsigned) { return std::optional<unsigned>(); });
        return;
    }
    std::vector<std::optional<unsigned>> routes(table_switch->master_ports);
    for (const designs::Route& route : table_switch->default_routes)
        routes[route.master] = route.slave;
    instance.xdma->set_router([routes](unsigned h2c) { return c2h_for_h2c(routes, h2c); });
}

XdmaStreamFunction stream_function(designs::StreamFunction function) {
    switch (function) {
    case designs::StreamFunction::Loopback: return XdmaStreamFunction::Loopback;
    case designs::StreamFunction::Crc64: return XdmaStreamFunction::Crc64;
    case designs::StreamFunction::FixedData: return XdmaStreamFunction::FixedData;
    }
    return XdmaStreamFunction::Loopback;
}

// The IP options the simulated XDMA implements: simulation.xdma_ip, else what dma_bridge.xdma_ip
// states, else on (as fpga_sio's designs); the busy time after a stop; no memory behind an
// enumeration-only bridge; the Alignments register; the register quirks.
void apply_xdma_ip(const designs::Design& design, XdmaConfig& config) {
    const designs::XdmaIpOptions& stated = design.dma_bridge->xdma_ip;
    const designs::XdmaIpOptions& simulated = design.simulation.xdma_ip;
    auto pick = [](std::optional<bool> sim, std::optional<bool> given) { return sim.value_or(given.value_or(true)); };
    config.descriptor_credits = pick(simulated.descriptor_credits, stated.descriptor_credits);
    config.poll_mode_writeback = pick(simulated.poll_mode_writeback, stated.poll_mode_writeback);
    config.interrupts = pick(simulated.interrupts, stated.interrupts);
    config.busy_after_stop = std::chrono::microseconds(design.simulation.busy_after_stop_us);
    config.card_memory_present = design.dma_bridge->memory_present;
    config.address_alignment = static_cast<uint8_t>(design.simulation.address_alignment);
    config.length_granularity = static_cast<uint8_t>(design.simulation.length_granularity);
    config.address_bits = static_cast<uint8_t>(design.simulation.address_bits);
    config.control_w1s_ignored = design.simulation.control_w1s_ignored;
    config.control_reads_zero = design.simulation.control_reads_zero;
    config.control_w1c_ignored = design.simulation.control_w1c_ignored;
    config.run_clear_ignored = design.simulation.run_clear_ignored;
    config.start_refused_after_stop = std::chrono::microseconds(design.simulation.start_refused_after_stop_us);
    config.late_engine = std::chrono::milliseconds(design.simulation.late_engine_ms);
    config.completed_count_reads_zero = design.simulation.completed_count_reads_zero;
}

// The name of the card memory's file under PDT_SIM_CARD_MEMORY_DIR (dma_model.hpp), beside the
// BAR memory's: the design, then the instance's address.
std::string card_memory_key(const designs::Design& design, const vfio::DeviceIdentity& identity) {
    return design.name + "-" + identity.address.to_string() + "-card";
}

// The faults of PDT_SIM_FAULT that every engine of an XDMA or QDMA model takes alike: the lie,
// late_engine and ignores_stop.
template <class Model>
void apply_engine_faults(Model& model, const FaultPlan& faults) {
    if (faults.lie)
        model.set_lie(faults.lie);
    if (faults.late_engine.count() > 0)
        model.set_late_engine(faults.late_engine);
    if (faults.ignores_stop)
        model.set_ignores_stop();
}

// An AXI DMA's model in the instance; the card memory, where the design shows it to the host,
// at offset 0 of its BAR (left out when the BAR cannot hold it).
void attach_axi_dma(const designs::Peripheral& p, std::shared_ptr<AxiDmaModel> model,
                    std::vector<std::shared_ptr<SimBar>>& bars, DesignInstance& instance) {
    const std::optional<unsigned> window = p.axi_dma_memory_window_bar;
    if (window && *window < bars.size() && bars[*window] && p.axi_dma_memory_size <= bars[*window]->size())
        bars[*window]->add_block(0, p.axi_dma_memory_size, model->memory_window());
    instance.axi_dmas.push_back(std::move(model));
}

// PDT_SIM_FAULT's lie and ignores_stop in an AXI DMA model (never_halts: no stop is proven).
void apply_axi_dma_faults(AxiDmaModel& model, const FaultPlan& faults) {
    if (faults.lie)
        model.set_lie(faults.lie);
    if (faults.ignores_stop)
        model.set_never_halts();
}

}  // namespace

vfio::DeviceIdentity simulated_identity(const designs::Design& design, const vfio::PciAddress& address, int iommu_group) {
    vfio::DeviceIdentity id;
    id.address = address;
    id.vendor_id = design.match.vendor_id;
    id.device_id = design.match.device_id.value_or(design.simulation.device_id);
    id.subsystem_vendor_id = design.match.subsystem_vendor_id.value_or(design.simulation.subsystem_vendor_id);
    id.subsystem_device_id = design.match.subsystem_device_id.value_or(design.simulation.subsystem_device_id);
    id.revision = std::clamp(design.simulation.revision, design.match.min_revision, design.match.max_revision);
    id.class_code = design.simulation.class_code;
    id.iommu_group = iommu_group;
    return id;
}

std::map<unsigned, uint64_t> simulated_bar_sizes(const designs::Design& design) {
    std::map<unsigned, uint64_t> needed;
    if (design.dma_bridge)
        needed[design.dma_bridge->bar] = kDmaBarMinimum;
    if (design.qdma)
        needed[design.qdma->bar] = qdma_csr::kFrameSize;
    for (const designs::Peripheral& p : design.peripherals)
        needed[p.bar] = std::max(needed[p.bar], p.offset + p.frame_size());
    for (const designs::RegisterValue& r : design.simulation.registers)
        needed[r.bar] = std::max(needed[r.bar], r.offset + 4);
    for (const designs::BarMemory& m : design.simulation.bar_memory)
        needed[m.bar] = std::max(needed[m.bar], m.offset + m.size);
    for (const designs::Peripheral& p : design.peripherals)
        if (p.axi_dma_memory_window_bar)
            needed[*p.axi_dma_memory_window_bar] = std::max(needed[*p.axi_dma_memory_window_bar], p.axi_dma_memory_size);
    std::map<unsigned, uint64_t> sizes;
    for (const auto& [bar, bytes] : needed)
        sizes[bar] = round_up_power_of_two(bytes);
    for (const auto& [bar, bytes] : design.simulation.bar_sizes)
        sizes[bar] = bytes;
    return sizes;
}

pdt::Result<DesignInstance> instantiate_design(const designs::Design& design, const vfio::DeviceIdentity& identity,
                                               bool xdma_stepped, const SimulatedLink& link) {
    const auto sizes = simulated_bar_sizes(design);
    std::vector<std::shared_ptr<SimBar>> bars(sizes.empty() ? 0 : sizes.rbegin()->first + 1);
    for (const auto& [index, size] : sizes)
        bars[index] = std::make_shared<SimBar>(size);

    DesignInstance instance;
    // One die per instance, following PDT_SIM_TEMPERATURE; its DMA load is attached once the
    // device (which counts the DMA bytes) exists.
    instance.die = std::make_shared<DieThermal>(PDT_TRY(TemperatureCurve::from_environment()), nullptr);
    size_t dna_index = 0;
    for (const designs::Peripheral* p : design.peripherals_for_revision(identity.revision)) {
        if (p->type == designs::PeripheralType::AxiStreamSwitch && !design.simulation.axi_stream_switch_implemented)
            continue;  // named in the table, absent from the fabric: undefined AXI space
        // A BAR too small for the peripheral leaves it out, as a smaller BAR in the bitstream would.
        if (p->offset + p->frame_size() > bars[p->bar]->size())
            continue;
        std::shared_ptr<RegisterBlock> block;
        if (p->type == designs::PeripheralType::QuadSpi)
            block = PDT_TRY(make_quad_spi_model(p->flash, p->fifo_depth,
                                                design.name + "-" + identity.address.to_string()));
        else
            block = make_block(*p, design, dna_index, instance.die);
        if (p->type == designs::PeripheralType::UltrascaleDna)
            ++dna_index;
        if (p->type == designs::PeripheralType::AxiStreamSwitch)
            instance.axi_switch = std::static_pointer_cast<AxiStreamSwitchBlock>(block);
        if (p->type == designs::PeripheralType::Cmac)
            instance.cmacs.push_back(std::static_pointer_cast<CmacModel>(block));
        if (p->type == designs::PeripheralType::AxiDma)
            attach_axi_dma(*p, std::static_pointer_cast<AxiDmaModel>(block), bars, instance);
        if (p->type == designs::PeripheralType::DdrResetGpio || p->type == designs::PeripheralType::M2LedGpio)
            instance.gpios.push_back(std::static_pointer_cast<AxiGpioModel>(block));
        bars[p->bar]->add_block(p->offset, p->frame_size(), std::move(block));
    }
    // Constant registers (board ID GPIO inputs); one the BAR cannot hold is left out.
    for (const designs::RegisterValue& r : design.simulation.registers)
        if (r.bar < bars.size() && bars[r.bar] && r.offset + 4 <= bars[r.bar]->size())
            bars[r.bar]->add_block(r.offset, 4, make_constant_block({r.value}));
    // Memory in BARs (block RAM); a region the BAR cannot hold is left out.
    for (const designs::BarMemory& m : design.simulation.bar_memory)
        if (m.bar < bars.size() && bars[m.bar] && m.offset + m.size <= bars[m.bar]->size()) {
            const std::string key = design.name + "-" + identity.address.to_string() + "-bar" + std::to_string(m.bar) +
                                    "-" + pdt::hex(m.offset);
            instance.bar_memories.push_back(PDT_TRY(BarMemoryBlock::make(m.size, m.cleared_by_reset, key)));
            bars[m.bar]->add_block(m.offset, m.size, instance.bar_memories.back());
        }
    auto device = std::make_unique<SimDevice>(identity, bars);
    instance.die->attach_activity(device->dma_activity());
    // The Advanced Error Reporting extended capability the PCIe block of the FPGA has, first in
    // extended space (ID 0x0001, version 2, no next), with every status bit clear.
    const uint32_t aer_header = 0x0001u | 2u << 16;
    std::memcpy(&device->config_space()[0x100], &aer_header, sizeof aer_header);

    // The QDMA (PG302) in its BAR's CSR frame; its PFs map the peripherals' BARs to the
    // AXI4-Lite master. A BAR smaller than the frame (simulation.bar_sizes) leaves it out.
    if (design.qdma && bars[design.qdma->bar]->size() >= qdma_csr::kFrameSize) {
        QdmaConfig config;
        config.caps = design.simulation.qdma;
        for (const designs::Peripheral& p : design.peripherals)
            config.axi_lite_bar_mask |= 1u << p.bar;
        config.function = design.card ? design.card->physical_function : 0;
        config.card_memory_base = design.qdma->memory_base;
        config.card_memory_size = design.qdma->memory_size;
        config.stepped = xdma_stepped;
        instance.qdma = QdmaModel::attach(*device, *bars[design.qdma->bar], config);
        PDT_CHECK(instance.qdma->keep_card_memory(card_memory_key(design, identity)));
    }
    if (design.dma_bridge) {
        const designs::DmaBridge& bridge = *design.dma_bridge;
        const bool stream = bridge.mode == designs::DmaMode::Stream;
        const unsigned h2c = bridge.h2c_channels.value_or(1);
        const unsigned c2h = bridge.c2h_channels.value_or(1);
        const designs::MemoryWindow memory = bridge.memory_for_revision(identity.revision);
        XdmaConfig config;
        config.num_h2c = std::max(h2c, 1u);
        config.num_c2h = std::max(c2h, 1u);
        config.stream = stream;
        config.card_memory_base = memory.base;
        config.card_memory_size = memory.size;
        config.stepped = xdma_stepped;
        config.link_bytes_per_second = link.bytes_per_second;
        config.link_latency = link.latency;
        config.stream_function = stream_function(bridge.stream_function);
        config.stream_tdata_bytes = bridge.stream_tdata_bytes.value_or(config.stream_tdata_bytes);
        config.stream_fifo_bytes = design.simulation.stream_fifo_bytes.value_or(config.stream_fifo_bytes);
        apply_xdma_ip(design, config);
        instance.xdma = XdmaModel::attach(*device, *bars[bridge.bar], config);
        PDT_CHECK(instance.xdma->keep_card_memory(card_memory_key(design, identity)));
        if (stream)
            wire_stream_routing(design, identity.revision, instance);
    }
    instance.device = std::move(device);
    return instance;
}

vfio::PciAddress simulated_address(size_t index) {
    static constexpr uint8_t kSeedBuses[] = {0x15, 0x2d, 0x36};
    vfio::PciAddress address;
    address.bus = index < 3 ? kSeedBuses[index] : static_cast<uint8_t>(0x36 + 9 * (index - 2));
    return address;
}

int simulated_iommu_group(size_t index) {
    static constexpr int kSeedGroups[] = {41, 85, 86};
    return index < 3 ? kSeedGroups[index] : 86 + static_cast<int>(index - 2);
}

pdt::Result<std::unique_ptr<DesignBus>> make_design_bus(const std::vector<std::string>& design_names,
                                                        const designs::Registry& registry,
                                                        const vfio::LockOptions& lock, const SimulatedLink& link) {
    if (design_names.size() > 20)
        return pdt::usage_error("build simulated bus", std::to_string(design_names.size()) + " designs",
                                "at most 20 simulated designs");
    // Test-only: faults named in PDT_SIM_FAULT go into every instance's XDMA, QDMA or AXI DMA model
    // (xdma_model.hpp, qdma_model.hpp), a CMAC fault into its CMAC models (cmac_model.hpp).
    FaultPlan faults;
    if (const char* text = std::getenv(kFaultEnvironmentVariable); text && *text)
        faults = PDT_TRY(parse_fault_plan(text));
    auto bus = std::make_unique<DesignBus>();
    vfio::LockOptions sim_lock = lock;
    sim_lock.prefix = "sim-" + lock.prefix;
    for (size_t i = 0; i < design_names.size(); ++i) {
        const designs::Design* design = registry.find(design_names[i]);
        if (!design) {
            std::string known;
            for (const std::string& name : registry.names())
                known += (known.empty() ? "" : ", ") + name;
            return pdt::make_error("simulate design", design_names[i], ENOENT, "known designs: " + known);
        }
        const vfio::DeviceIdentity identity = simulated_identity(*design, simulated_address(i), simulated_iommu_group(i));
        bus->add(identity, [copy = *design, identity, faults, lock = sim_lock, link]() -> pdt::Result<std::unique_ptr<vfio::Device>> {
            std::unique_ptr<vfio::DeviceLock> held;
            if (!lock.directory.empty())
                held = PDT_TRY(vfio::DeviceLock::acquire(lock, identity.address));
            DesignInstance instance = PDT_TRY(instantiate_design(copy, identity, false, link));
            instance.device->hold_lock(std::move(held));
            if (instance.xdma) {
                for (const FaultInjection& f : faults.injections)
                    instance.xdma->inject(f.direction, f.channel, f.fault);
                apply_engine_faults(*instance.xdma, faults);
                instance.xdma->set_user_irq_lie(faults.user_irq_lie);
            }
            if (instance.qdma) {
                for (const QdmaFaultInjection& f : faults.qdma_injections)
                    instance.qdma->inject(f.direction == XdmaDirection::C2H ? QdmaQueueKind::C2H : QdmaQueueKind::H2C,
                                          f.qid, f.fault);
                apply_engine_faults(*instance.qdma, faults);
                instance.qdma->set_user_irq_lie(faults.user_irq_lie);
                instance.qdma->set_context_read_lie(faults.qdma_context_read_lie);
            }
            for (const std::shared_ptr<AxiDmaModel>& axi_dma : instance.axi_dmas)
                apply_axi_dma_faults(*axi_dma, faults);
            if (faults.lie)
                for (const std::shared_ptr<BarMemoryBlock>& memory : instance.bar_memories)
                    memory->set_lie(faults.lie);
            if (faults.cmac_fault != CmacModel::Fault::None)
                for (const std::shared_ptr<CmacModel>& cmac : instance.cmacs)
                    cmac->set_fault(faults.cmac_fault);
            return std::unique_ptr<vfio::Device>(std::move(instance.device));
        });
    }
    return bus;
}

}  // namespace sim
