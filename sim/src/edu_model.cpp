#include "sim/edu_model.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "edu_spec.hpp"

namespace sim {

using namespace edu_spec;  // the register map from QEMU's spec (edu_spec.hpp), not the adapter's

uint64_t EduModel::read(uint64_t offset, unsigned width) {
    if (offset < 0x80 && width != 4)
        return ~uint64_t{0};
    std::lock_guard lock(m_mutex);
    switch (offset) {
    case reg::IDENTIFICATION: return m_options.identification;
    case reg::LIVENESS: return m_options.broken_liveness ? m_liveness : ~m_liveness;
    case reg::FACTORIAL: return m_factorial;
    case reg::STATUS: return 0;
    case reg::IRQ_STATUS: return m_irq_status;
    case reg::DMA_SRC: return m_src;
    case reg::DMA_DST: return m_dst;
    case reg::DMA_COUNT: return m_count;
    case reg::DMA_CMD: return m_cmd;
    default: return ~uint64_t{0};
    }
}

void EduModel::write(uint64_t offset, unsigned width, uint64_t value) {
    if (offset < 0x80 && width != 4)
        return;
    std::unique_lock lock(m_mutex);
    const bool running = (m_cmd & DMA_CMD_START) != 0;
    switch (offset) {
    case reg::LIVENESS: m_liveness = static_cast<uint32_t>(value); break;
    case reg::FACTORIAL: {
        uint32_t f = 1;
        for (uint32_t i = 2; i <= value; ++i)
            f *= i;
        m_factorial = f;
        break;
    }
    case reg::IRQ_RAISE: raise(static_cast<uint32_t>(value)); break;
    case reg::IRQ_ACK: m_irq_status &= ~static_cast<uint32_t>(value); break;
    case reg::DMA_SRC: if (!running) m_src = value; break;
    case reg::DMA_DST: if (!running) m_dst = value; break;
    case reg::DMA_COUNT: if (!running) m_count = value; break;
    case reg::DMA_CMD:
        if (!running && (value & DMA_CMD_START)) {
            m_cmd = value;
            land_tail();  // the engine starts its next transfer
            if (!m_options.dma_hangs) {
                lock.unlock();
                if (m_timer.joinable())
                    m_timer.join();  // the previous transfer's timer has finished its work
                m_timer = std::jthread([this](std::stop_token stop) { timer(stop); });
            }
        }
        break;
    default: break;
    }
}

void EduModel::timer(std::stop_token stop) {
    std::unique_lock lock(m_mutex);
    // The transfer's delay, cut short when stop() asks: then the transfer never runs.
    m_cancel.wait_for(lock, stop, m_options.dma_delay, [] { return false; });
    if (!stop.stop_requested())
        run_dma();
}

void EduModel::stop() {
    m_timer.request_stop();
    if (m_timer.joinable())
        m_timer.join();
}

unsigned EduModel::qemu72_aborts() const {
    std::lock_guard lock(m_mutex);
    return m_qemu72_aborts;
}

unsigned EduModel::transfers() const {
    std::lock_guard lock(m_mutex);
    return m_transfers;
}

void EduModel::reset() {
    stop();
    std::lock_guard lock(m_mutex);
    m_liveness = m_factorial = m_irq_status = 0;
    m_src = m_dst = m_count = m_cmd = 0;
    m_tail.reset();  // bytes held back by completes_early never land
}

void EduModel::raise(uint32_t bits) {
    if (!m_options.irq_without_status)
        m_irq_status |= bits;
    m_device.raise_msi(0);
}

void EduModel::run_dma() {
    const bool to_ram = (m_cmd & DMA_CMD_TO_RAM) != 0;
    const uint64_t edu_address = to_ram ? m_src : m_dst;
    const uint64_t host = (to_ram ? m_dst : m_src) & ((uint64_t{1} << DMA_MASK_BITS) - 1);
    const uint64_t offset = edu_address - DMA_BUFFER_ADDRESS;
    // QEMU 7.2 checks with a half-open range and hw_error()s: count 0, or reaching byte 4095.
    if (edu_address < DMA_BUFFER_ADDRESS || m_count == 0 || offset + m_count >= DMA_BUFFER_SIZE) {
        ++m_qemu72_aborts;
    } else {
        const uint64_t moved = bytes_moved_now(m_count);
        if (moved > 0 && to_ram)
            (void)m_device.dma_write(host, m_buffer.data() + offset, moved);  // edu ignores faults
        else if (moved > 0)
            (void)m_device.dma_read(host, m_buffer.data() + offset, moved);
        if (m_options.lie.kind == streams::Lie::Kind::CompletesEarly)
            hold_back_tail(to_ram, host, offset, moved);
    }
    ++m_transfers;
    const bool irq = (m_cmd & DMA_CMD_IRQ) != 0;
    m_cmd &= ~uint64_t{DMA_CMD_START};
    if (irq)
        raise(DMA_IRQ);
}

uint64_t EduModel::bytes_moved_now(uint64_t count) const {
    switch (m_options.lie.kind) {
    case streams::Lie::Kind::None: return count;
    case streams::Lie::Kind::MovesNothing: return 0;
    case streams::Lie::Kind::StaleAfter: return m_options.lie.moves(m_transfers) ? count : 0;
    case streams::Lie::Kind::CompletesEarly: return count - std::min(streams::kLateTailBytes, count);
    }
    return count;
}

// The held-back bytes are taken now (what the engine had in flight) and land at the next command.
void EduModel::hold_back_tail(bool to_ram, uint64_t host, uint64_t offset, uint64_t moved) {
    Tail tail{to_ram, host + moved, offset + moved, std::vector<uint8_t>(m_count - moved)};
    if (to_ram)
        std::memcpy(tail.bytes.data(), m_buffer.data() + tail.offset, tail.bytes.size());
    else
        (void)m_device.dma_read(tail.host, tail.bytes.data(), tail.bytes.size());
    m_tail = std::move(tail);
}

void EduModel::land_tail() {
    if (!m_tail)
        return;
    if (m_tail->to_ram) {
        SimIommu::LyingWriteScope lying;  // may land after its buffer was released: the lie's doing
        (void)m_device.dma_write(m_tail->host, m_tail->bytes.data(), m_tail->bytes.size());
    }
    else
        std::memcpy(m_buffer.data() + m_tail->offset, m_tail->bytes.data(), m_tail->bytes.size());
    m_tail.reset();
}

SimEdu& SimEdu::operator=(SimEdu&& other) noexcept {
    if (model)
        model->stop();
    device = std::move(other.device);
    model = std::move(other.model);
    return *this;
}

SimEdu::~SimEdu() {
    if (model)
        model->stop();  // no transfer may run into a device being destroyed
}

SimEdu make_sim_edu(const vfio::PciAddress& address, EduModelOptions options) {
    vfio::DeviceIdentity identity;
    identity.address = address;
    identity.vendor_id = VENDOR_ID;
    identity.device_id = DEVICE_ID;
    identity.subsystem_vendor_id = 0x1af4;
    identity.subsystem_device_id = 0x1100;
    identity.revision = 0x10;
    identity.class_code = 0xff0000;
    auto bar0 = std::make_shared<sim::SimBar>(BAR0_SIZE);
    SimEdu edu;
    edu.device = std::make_unique<sim::SimDevice>(identity, std::vector<std::shared_ptr<sim::SimBar>>{bar0},
                                                  std::vector<vfio::IovaRange>{{0x10000, (uint64_t{1} << 48) - 1}}, 1);
    edu.model = std::make_shared<EduModel>(*edu.device, options);
    bar0->add_block(0, BAR0_SIZE, edu.model);
    return edu;
}

}  // namespace sim
