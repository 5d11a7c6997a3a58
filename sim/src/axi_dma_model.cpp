#include "sim/axi_dma_model.hpp"

#include <algorithm>
#include <vector>

#include "card_memory.hpp"
#include "model_support.hpp"

namespace sim {

namespace {

// PG021 Register Space, Direct Register Mode; offsets within a channel's registers.
constexpr uint64_t kDmacr = 0x00, kDmasr = 0x04, kAddress = 0x18, kAddressMsb = 0x1C, kLength = 0x28;
constexpr uint64_t kS2mmBase = 0x30;
// DMACR fields (PG021 MM2S_DMACR / S2MM_DMACR).
constexpr uint32_t kRs = 1u << 0, kResetBit = 1u << 2;
constexpr uint32_t kDmacrResetValue = 0x00010000u;  // IRQThreshold = 1
// DMASR fields (PG021 MM2S_DMASR / S2MM_DMASR).
constexpr uint32_t kHalted = 1u << 0, kIdle = 1u << 1, kDmaIntErr = 1u << 4, kDmaDecErr = 1u << 6;
constexpr uint32_t kIocIrq = 1u << 12, kDlyIrq = 1u << 13, kErrIrq = 1u << 14;
constexpr uint32_t kWriteOneToClear = kIocIrq | kDlyIrq | kErrIrq;

// The card memory seen by the host through a BAR: little-endian accesses of 1..8 bytes.
class AxiDmaMemoryWindow : public RegisterBlock {
public:
    explicit AxiDmaMemoryWindow(std::shared_ptr<AxiDmaModel> model) : m_model(std::move(model)) {}
    uint64_t read(uint64_t offset, unsigned width) override {
        uint64_t value = 0;
        m_model->memory_read(offset, &value, width);
        return value;
    }
    void write(uint64_t offset, unsigned width, uint64_t value) override { m_model->memory_write(offset, &value, width); }

private:
    std::shared_ptr<AxiDmaModel> m_model;
};

}  // namespace

struct AxiDmaModel::Channel {
    uint32_t dmacr = kDmacrResetValue;
    uint32_t dmasr = kHalted;
    uint64_t address = 0;  // SA / DA, with its MSB register
    uint32_t length = 0;   // LENGTH as written; S2MM: the bytes received once the transfer ends
    bool active = false;
    uint64_t done = 0;     // bytes of the active transfer moved so far
    uint64_t lie_index = 0;  // the active transfer's place among those the lie counts
    std::vector<uint8_t> late_tail;  // completes_early: the tail held back, and where it lands
    uint64_t late_address = 0;
};

AxiDmaModel::AxiDmaModel(Config config)
    : m_config(config), m_memory(std::make_unique<CardMemory>()), m_mm2s(std::make_unique<Channel>()),
      m_s2mm(std::make_unique<Channel>()) {}

AxiDmaModel::~AxiDmaModel() = default;

uint64_t AxiDmaModel::read(uint64_t offset, unsigned width) {
    std::lock_guard lock(m_mutex);
    return model_support::read_by_registers(offset, width, [this](uint64_t at) { return read_register(at); });
}

void AxiDmaModel::write(uint64_t offset, unsigned width, uint64_t value) {
    std::lock_guard lock(m_mutex);
    if (width >= 4 && offset % 4 == 0) {
        write_register(offset, static_cast<uint32_t>(value));
        if (width == 8)
            write_register(offset + 4, static_cast<uint32_t>(value >> 32));
    }
}

void AxiDmaModel::reset() {
    std::lock_guard lock(m_mutex);
    reset_core();
}

uint32_t AxiDmaModel::read_register(uint64_t offset) {
    Channel& channel = offset >= kS2mmBase ? *m_s2mm : *m_mm2s;
    switch (offset >= kS2mmBase ? offset - kS2mmBase : offset) {
    case kDmacr: return channel.dmacr;
    case kDmasr: advance(); return channel.dmasr;
    case kAddress: return static_cast<uint32_t>(channel.address);
    case kAddressMsb: return static_cast<uint32_t>(channel.address >> 32);
    case kLength: return channel.length;
    default: return 0;
    }
}

void AxiDmaModel::write_register(uint64_t offset, uint32_t value) {
    Channel& channel = offset >= kS2mmBase ? *m_s2mm : *m_mm2s;
    switch (offset >= kS2mmBase ? offset - kS2mmBase : offset) {
    case kDmacr: write_control(channel, value); break;
    case kDmasr: channel.dmasr &= ~(value & kWriteOneToClear); break;
    case kAddress: channel.address = (channel.address & ~0xffffffffull) | value; break;
    case kAddressMsb: channel.address = (channel.address & 0xffffffffull) | static_cast<uint64_t>(value) << 32; break;
    case kLength: start(channel, value & static_cast<uint32_t>((1ull << m_config.length_width) - 1)); break;
    default: break;
    }
}

// PG021 DMACR: Reset resets the whole core (both channels); RS = 1 runs the channel (Halted
// deasserts); RS = 0 flushes what is pending and halts (Halted asserts once it has).
void AxiDmaModel::write_control(Channel& channel, uint32_t value) {
    if (value & kResetBit) {
        reset_core();
        return;
    }
    const bool was_running = channel.dmacr & kRs;
    channel.dmacr = value;
    if ((value & kRs) && !was_running && !(channel.dmasr & (kDmaIntErr | kDmaDecErr)))
        channel.dmasr &= ~kHalted;
    if (!(value & kRs) && was_running) {
        channel.active = false;
        channel.dmasr &= ~kIdle;
        if (!m_config.never_halts)
            channel.dmasr |= kHalted;
    }
}

// PG021 Direct Register Mode: writing a non-zero LENGTH to a running channel starts its
// transfer; while halted the write has no effect on DMA operations.
void AxiDmaModel::start(Channel& channel, uint32_t length) {
    channel.length = length;
    if (!(channel.dmacr & kRs) || (channel.dmasr & kHalted) || length == 0 || channel.active)
        return;
    if (!channel.late_tail.empty()) {  // a completes_early tail lands with the next transfer
        m_memory->write_at(0, m_config.memory_size, channel.late_address, channel.late_tail.data(),
                           channel.late_tail.size());
        channel.late_tail.clear();
    }
    channel.active = true;
    channel.done = 0;
    channel.dmasr &= ~kIdle;
    ++m_transfers;
    channel.lie_index = m_lie_counted++;
}

void AxiDmaModel::advance() {
    for (Channel* channel : {m_mm2s.get(), m_s2mm.get()})
        if (channel->active && !CardMemory::contains(0, m_config.memory_size, channel->address, channel->length))
            end_with_error(*channel, kDmaDecErr);
    if (m_config.streams == Streams::FixedDataAndSink)
        advance_fixed_data_and_sink();
    else
        advance_loopback();
}

void AxiDmaModel::advance_fixed_data_and_sink() {
    if (m_mm2s->active)
        complete(*m_mm2s);  // the sink takes every beat: the bytes are read and dropped
    if (m_s2mm->active) {  // LENGTH bytes of constant data land; the packet goes on without TLAST
        static const std::vector<uint8_t> constant(0x10000, 0);
        for (uint64_t done = 0; done < m_s2mm->length; done += constant.size())
            land(*m_s2mm, m_s2mm->address + done, constant.data(), std::min<uint64_t>(constant.size(), m_s2mm->length - done));
        end_with_error(*m_s2mm, kDmaIntErr);
    }
}

// MM2S's packet (its LENGTH bytes, TLAST on the last) flows into S2MM only while both run.
void AxiDmaModel::advance_loopback() {
    if (!m_mm2s->active || !m_s2mm->active)
        return;
    const uint64_t packet_left = m_mm2s->length - m_mm2s->done;
    const uint64_t room = m_s2mm->length - m_s2mm->done;
    const uint64_t bytes = std::min(packet_left, room);
    std::vector<uint8_t> data(bytes);
    m_memory->read_at(0, m_config.memory_size, m_mm2s->address + m_mm2s->done, data.data(), bytes);
    land(*m_s2mm, m_s2mm->address + m_s2mm->done, data.data(), bytes);
    m_mm2s->done += bytes;
    m_s2mm->done += bytes;
    if (packet_left <= room) {  // TLAST reached S2MM: both transfers end
        m_s2mm->length = static_cast<uint32_t>(m_s2mm->done - (m_config.miscounts_received ? 64 : 0));
        complete(*m_mm2s);
        complete(*m_s2mm);
    } else {  // S2MM is full before the packet's end
        end_with_error(*m_s2mm, kDmaIntErr);
    }
}

// What S2MM writes to the card memory, as the lie says.
void AxiDmaModel::land(Channel& s2mm, uint64_t address, const uint8_t* data, uint64_t length) {
    const streams::Lie& lie = m_config.lie;
    if (!lie.moves(s2mm.lie_index))
        return;
    uint64_t now = length;
    if (lie.late_tail()) {
        const uint64_t tail = std::min<uint64_t>(length, streams::kLateTailBytes);
        now = length - tail;
        s2mm.late_tail.assign(data + now, data + length);
        s2mm.late_address = address + now;
    }
    m_memory->write_at(0, m_config.memory_size, address, data, now);
}

// PG021 DMASR error bits: the channel halts gracefully, DMACR.RS cleared, Halted set.
void AxiDmaModel::end_with_error(Channel& channel, uint32_t error_bits) {
    channel.active = false;
    channel.dmacr &= ~kRs;
    channel.dmasr = (channel.dmasr & ~kIdle) | error_bits | kErrIrq | (error_bits == kDmaIntErr ? kIocIrq : 0u);
    channel.dmasr |= kHalted;
}

void AxiDmaModel::complete(Channel& channel) {
    channel.active = false;
    channel.dmasr |= kIdle | kIocIrq;
}

// PG021 DMACR.Reset: "all registers and bits are in the Reset State"; the card memory is not
// the IP's and keeps its bytes, a held late tail never lands.
void AxiDmaModel::reset_core() {
    *m_mm2s = Channel{};
    *m_s2mm = Channel{};
}

std::shared_ptr<RegisterBlock> AxiDmaModel::memory_window() { return std::make_shared<AxiDmaMemoryWindow>(shared_from_this()); }

bool AxiDmaModel::memory_read(uint64_t address, void* dst, uint64_t length) {
    std::lock_guard lock(m_mutex);
    return m_memory->read_at(0, m_config.memory_size, address, dst, length);
}

bool AxiDmaModel::memory_write(uint64_t address, const void* src, uint64_t length) {
    std::lock_guard lock(m_mutex);
    return m_memory->write_at(0, m_config.memory_size, address, src, length);
}

void AxiDmaModel::set_lie(streams::Lie lie) {
    std::lock_guard lock(m_mutex);
    m_config.lie = lie;
    m_lie_counted = 0;
}

void AxiDmaModel::set_never_halts() {
    std::lock_guard lock(m_mutex);
    m_config.never_halts = true;
}

uint64_t AxiDmaModel::transfers_started() const {
    std::lock_guard lock(m_mutex);
    return m_transfers;
}

}  // namespace sim
