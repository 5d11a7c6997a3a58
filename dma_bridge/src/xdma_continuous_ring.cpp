#include "dma_bridge/xdma_continuous_ring.hpp"

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <thread>

#include "base/format.hpp"
#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "dma_bridge/xdma_registers.hpp"

namespace xdma {

using pdt::hex;

pdt::Result<std::unique_ptr<ContinuousRing>> ContinuousRing::open(vfio::Device& device, const ContinuousRingSettings& o,
                                                                  uint64_t size, bool free_running) {
    auto ring = std::unique_ptr<ContinuousRing>(new ContinuousRing(device, PDT_TRY(dma_registers(device, o.dma_bar))));
    ring->m_channel_index = o.c2h_channel;
    ring->m_channel = block_offset(target::C2H_CHANNEL, o.c2h_channel);
    ring->m_sgdma = block_offset(target::C2H_SGDMA, o.c2h_channel);
    ring->m_bit = sgdma_common_reg::channel_bit(Direction::C2H, o.c2h_channel);
    ring->m_count = o.buffers;
    ring->m_size = size;
    ring->m_free_running = free_running;
    ring->m_name = device.identity().address.to_string() + " C2H " + std::to_string(o.c2h_channel);
    ring->m_run = RunControl(ring->m_regs, ring->m_channel, ring->m_name,
                             [name = ring->m_name](std::string text) { notify_warning(name, text); });
    const uint32_t id = ring->reg(channel_reg::IDENTIFIER);
    if (identifier::subsystem_identifier(id) != identifier::SUBSYSTEM_IDENTIFIER ||
        identifier::target(id) != target::C2H_CHANNEL || !identifier::stream(id))
        return pdt::make_error("open continuous C2H ring", ring->m_name, ENODEV, "not an XDMA C2H stream channel");
    if (ring->reg(channel_reg::STATUS) & status::busy)
        return pdt::make_error("open continuous C2H ring", ring->m_name, EBUSY,
                               "Attempting to initialise when DMA channel busy");
    const vfio::DmaRegion::Options table_options{vfio::DmaAccess::DeviceReadWrite, o.buffer_kind, o.dma_mask_bits};
    const vfio::DmaRegion::Options data_options{vfio::DmaAccess::DeviceWrite, o.buffer_kind, o.dma_mask_bits};
    const uint64_t table = o.buffers * (sizeof(Descriptor) + sizeof(C2hStreamWriteback));
    ring->m_ring = PDT_TRY(vfio::DmaRegion::allocate(device, table, table_options));
    ring->m_data = PDT_TRY(vfio::DmaRegion::allocate(device, size * o.buffers, data_options));
    return ring;
}

uint64_t ContinuousRing::descriptor_iova(size_t i) const { return m_ring.iova() + i * sizeof(Descriptor); }

uint64_t ContinuousRing::writeback_iova(size_t i) const {
    return m_ring.iova() + m_count * sizeof(Descriptor) + i * sizeof(C2hStreamWriteback);
}

pdt::Result<void> ContinuousRing::start() {
    const uint64_t common = block_offset(target::SGDMA_COMMON);
    PDT_CHECK(m_run.clear_run());
    (void)reg(channel_reg::STATUS_RC);
    m_regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1C, m_bit);  // continuous
    m_regs.write32(common + sgdma_common_reg::DESCRIPTOR_CONTROL_W1C, m_bit);            // not halted
    std::memset(m_ring.data(), 0, m_ring.size());
    for (size_t i = 0; i < m_count; ++i) {
        const Descriptor d = Descriptor::make(descriptor_control::COMPLETED, static_cast<uint32_t>(m_size),
                                              writeback_iova(i), m_data.iova() + i * m_size,
                                              descriptor_iova((i + 1) % m_count));
        std::memcpy(m_ring.data() + i * sizeof(Descriptor), &d, sizeof d);
    }
    m_regs.write32(m_sgdma + sgdma_reg::DESCRIPTOR_LOW_ADDRESS, static_cast<uint32_t>(descriptor_iova(0)));
    m_regs.write32(m_sgdma + sgdma_reg::DESCRIPTOR_HIGH_ADDRESS, static_cast<uint32_t>(descriptor_iova(0) >> 32));
    m_regs.write32(m_sgdma + sgdma_reg::DESCRIPTOR_ADJACENT, 0);
    m_run.write_control(control::ie_desc_error | control::ie_read_error | control::ie_magic_stopped |
                        control::ie_align_mismatch | control::ie_invalid_length);
    std::atomic_thread_fence(std::memory_order_release);
    if (!m_claim.held())
        m_claim = m_device.dma_fence().claim(m_name);
    PDT_CHECK(m_run.start(std::chrono::seconds(1)));
    m_consumed = 0;
    m_overwritten = 0;
    m_running = true;
    return {};
}

pdt::Result<std::optional<ContinuousRing::Piece>> ContinuousRing::poll() {
    const uint32_t status_value = reg(channel_reg::STATUS);
    if (status_value & status::errors) {
        pdt::Error error = pdt::make_error("receive", m_name, EIO,
                                           "channel_status=" + hex(status_value) + " (" +
                                               decode_status(Direction::C2H, status_value) + ")");
        report_failure(error.message());
        return error;
    }
    const uint32_t completed = reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT);
    const uint32_t ahead = completed - static_cast<uint32_t>(m_consumed);
    if (ahead == 0)
        return std::optional<Piece>{};
    if (ahead > m_count) {
        if (!m_free_running)
            return pdt::make_error("receive", m_name, EOVERFLOW,
                                   "the engine completed more descriptors than the ring holds: data overwritten");
        // The newest m_count - 1 completions are intact; the oldest buffer is being written now.
        const uint64_t skip = ahead - (m_count - 1);
        m_consumed += skip;
        m_overwritten += skip;
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    const size_t index = static_cast<size_t>(m_consumed % m_count);
    C2hStreamWriteback wb;
    std::memcpy(&wb, m_ring.data() + m_count * sizeof(Descriptor) + index * sizeof wb, sizeof wb);
    if ((wb.wb_magic_status >> 16) != C2H_STREAM_WRITEBACK_MAGIC)
        return pdt::make_error("receive", m_name, EIO, "Incorrect stream wb_magic_status " + hex(wb.wb_magic_status));
    ++m_consumed;
    return std::optional<Piece>{Piece{index, wb.length, (wb.wb_magic_status & C2H_STREAM_WRITEBACK_EOP) != 0}};
}

void ContinuousRing::release(size_t index) {
    if (m_free_running)
        return;
    std::memset(m_ring.data() + m_count * sizeof(Descriptor) + index * sizeof(C2hStreamWriteback), 0,
                sizeof(C2hStreamWriteback));
}

pdt::Result<void> ContinuousRing::stop() {
    if (!m_claim.held())
        return {};  // never started, or stopped already
    m_running = false;
    PDT_CHECK(m_run.stop(std::chrono::seconds(1), [this] { return "status " + hex(reg(channel_reg::STATUS)); }));
    m_claim.proven();
    return {};
}

ContinuousRing::~ContinuousRing() {
    if (auto stopped = stop(); !stopped)
        m_claim.abandon(stopped.error().hint);
}

void ContinuousRing::report_failure(const std::string& what) const {
    if (!failure_observed())
        return;
    notify_failure(FailureReport{
        m_name, what, dump_channel_registers(m_regs, Direction::C2H, m_channel_index), &m_device});
}

}  // namespace xdma
