#include "stream_tools/stream_subtests.hpp"

#include <atomic>
#include <cinttypes>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>

#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_engine.hpp"

namespace stream_tools {
namespace {

using Clock = std::chrono::steady_clock;

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIx64, value);
    return text;
}

MemoryTestResult fail(std::FILE* out, const std::string& direction, const std::string& message) {
    std::fprintf(out, "TEST FAIL:\n  %s failure : %s\n", direction.c_str(), message.c_str());
    return MemoryTestResult{false, direction + " failure : " + message, 0};
}

vfio::DmaRegion::Options region(vfio::DmaAccess access, const StreamSubtestOptions& o) {
    return vfio::DmaRegion::Options{access, o.buffer_kind, o.dma_mask_bits};
}

// A C2H stream channel in PG195 continuous mode: descriptor credit mode disabled, a ring of
// fixed buffers whose descriptors link in a circle with no STOP; once Run is set the engine
// follows the ring for ever. Software learns of completions from the Completed Descriptor
// Count register (reset by the rising edge of Run) and reads length / EOP from each
// descriptor's stream writeback.
class ContinuousRing {
public:
    struct Piece {
        size_t buffer = 0;
        uint32_t length = 0;
        bool end_of_packet = false;
    };

    static vfio::Result<std::unique_ptr<ContinuousRing>> open(vfio::Device& device, const StreamSubtestOptions& o,
                                                             uint64_t size) {
        using namespace xdma;
        auto ring = std::unique_ptr<ContinuousRing>(new ContinuousRing(PDT_TRY(dma_registers(device, o.dma_bar))));
        ring->m_channel = block_offset(target::C2H_CHANNEL, o.c2h_channel);
        ring->m_sgdma = block_offset(target::C2H_SGDMA, o.c2h_channel);
        ring->m_bit = sgdma_common_reg::channel_bit(Direction::C2H, o.c2h_channel);
        ring->m_count = o.c2h_buffers;
        ring->m_size = size;
        ring->m_name = device.identity().address.to_string() + " C2H " + std::to_string(o.c2h_channel);
        const uint32_t id = ring->reg(channel_reg::IDENTIFIER);
        if (identifier::subsystem_identifier(id) != identifier::SUBSYSTEM_IDENTIFIER ||
            identifier::target(id) != target::C2H_CHANNEL || !identifier::stream(id))
            return vfio::make_error("open continuous C2H ring", ring->m_name, ENODEV, "not an XDMA C2H stream channel");
        if (ring->reg(channel_reg::STATUS) & status::busy)
            return vfio::make_error("open continuous C2H ring", ring->m_name, EBUSY,
                                    "Attempting to initialise when DMA channel busy");
        const uint64_t table = o.c2h_buffers * (sizeof(Descriptor) + sizeof(C2hStreamWriteback));
        ring->m_ring = PDT_TRY(vfio::DmaRegion::allocate(device, table, region(vfio::DmaAccess::DeviceReadWrite, o)));
        ring->m_data = PDT_TRY(vfio::DmaRegion::allocate(device, size * o.c2h_buffers,
                                                         region(vfio::DmaAccess::DeviceWrite, o)));
        return ring;
    }
    ~ContinuousRing() { (void)stop(); }

    uint8_t* buffer(size_t index) const { return m_data.data() + index * m_size; }
    const std::string& name() const { return m_name; }

    void start() {
        using namespace xdma;
        const uint64_t common = block_offset(target::SGDMA_COMMON);
        set(channel_reg::CONTROL_W1C, control::run);
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
        set(channel_reg::CONTROL, control::ie_desc_error | control::ie_read_error | control::ie_magic_stopped |
                                      control::ie_align_mismatch | control::ie_invalid_length);
        std::atomic_thread_fence(std::memory_order_release);
        set(channel_reg::CONTROL_W1S, control::run);
        m_consumed = 0;
        m_running = true;
    }

    // The next completed descriptor, in ring order; nullopt when none is ready.
    vfio::Result<std::optional<Piece>> poll() {
        using namespace xdma;
        const uint32_t status_value = reg(channel_reg::STATUS);
        if (status_value & status::errors)
            return vfio::make_error("receive", m_name, EIO, "channel_status=" + hex(status_value) + " (error bits set)");
        const uint32_t completed = reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT);
        if (completed == static_cast<uint32_t>(m_consumed))
            return std::optional<Piece>{};
        if (static_cast<uint32_t>(completed - static_cast<uint32_t>(m_consumed)) > m_count)
            return vfio::make_error("receive", m_name, EOVERFLOW,
                                    "the engine completed more descriptors than the ring holds: data overwritten");
        std::atomic_thread_fence(std::memory_order_acquire);
        const size_t index = static_cast<size_t>(m_consumed % m_count);
        C2hStreamWriteback wb;
        std::memcpy(&wb, m_ring.data() + m_count * sizeof(Descriptor) + index * sizeof wb, sizeof wb);
        if ((wb.wb_magic_status >> 16) != C2H_STREAM_WRITEBACK_MAGIC)
            return vfio::make_error("receive", m_name, EIO, "Incorrect stream wb_magic_status " + hex(wb.wb_magic_status));
        ++m_consumed;
        return std::optional<Piece>{Piece{index, wb.length, (wb.wb_magic_status & C2H_STREAM_WRITEBACK_EOP) != 0}};
    }

    // The descriptor just consumed may be filled again: clear its writeback.
    void release(size_t index) {
        std::memset(m_ring.data() + m_count * sizeof(xdma::Descriptor) + index * sizeof(xdma::C2hStreamWriteback), 0,
                    sizeof(xdma::C2hStreamWriteback));
    }

    // Clears Run and waits up to 1 s for the engine to go idle.
    vfio::Result<void> stop() {
        if (!m_running)
            return {};
        m_running = false;
        set(xdma::channel_reg::CONTROL_W1C, xdma::control::run);
        const auto deadline = Clock::now() + std::chrono::seconds(1);
        while (reg(xdma::channel_reg::STATUS) & xdma::status::busy) {
            if (Clock::now() > deadline)
                return vfio::make_error("stop", m_name, ETIMEDOUT, "Timeout waiting to become idle after clearing Run bit");
            std::this_thread::yield();
        }
        return {};
    }

private:
    explicit ContinuousRing(vfio::RegisterWindow regs) : m_regs(std::move(regs)) {}
    uint32_t reg(uint64_t offset) const { return m_regs.read32(m_channel + offset); }
    void set(uint64_t offset, uint32_t value) const { m_regs.write32(m_channel + offset, value); }
    uint64_t descriptor_iova(size_t i) const { return m_ring.iova() + i * sizeof(xdma::Descriptor); }
    uint64_t writeback_iova(size_t i) const {
        return m_ring.iova() + m_count * sizeof(xdma::Descriptor) + i * sizeof(xdma::C2hStreamWriteback);
    }

    vfio::RegisterWindow m_regs;
    uint64_t m_channel = 0, m_sgdma = 0;
    uint32_t m_bit = 0;
    size_t m_count = 0;
    uint64_t m_size = 0, m_consumed = 0;
    bool m_running = false;
    std::string m_name;
    vfio::DmaRegion m_ring, m_data;
};

// Checks one received piece of the stream: its length and EOP against the packet plan, then
// its words. rx_word: stream word index of the piece's first word.
std::optional<std::string> check_piece(const pattern::Pattern& pat, const StreamSubtestOptions& o,
                                       const uint8_t* data, uint64_t length, bool eop, uint64_t expected_length,
                                       bool expected_eop, uint64_t rx_word) {
    if (length != expected_length || eop != expected_eop)
        return "stream byte offset " + hex(rx_word * 4) + ": length " + std::to_string(length) + " EOP " +
               std::to_string(eop) + ", expected length " + std::to_string(expected_length) + " EOP " +
               std::to_string(expected_eop);
    const pattern::Mismatch m =
        pattern::verify(o.pool, pat, reinterpret_cast<const uint32_t*>(data), static_cast<size_t>(length / 4), rx_word);
    if (!m.ok())
        return "stream byte offset " + hex(rx_word * 4) + ": " + m.describe();
    return std::nullopt;
}

vfio::Result<std::unique_ptr<xdma::Engine>> stream_engine(vfio::Device& device, const StreamSubtestOptions& o,
                                                          xdma::Direction direction, unsigned ring) {
    xdma::EngineOptions e;
    e.direction = direction;
    e.channel = direction == xdma::Direction::H2C ? o.h2c_channel : o.c2h_channel;
    e.stream = true;
    e.dma_bar = o.dma_bar;
    e.ring_descriptors = ring;
    e.timeout = o.timeout;
    e.dma_mask_bits = o.dma_mask_bits;
    PDT_TRY(xdma::configure_engine(device, o.ip, o.modes, e));
    return xdma::Engine::open(device, e);
}

}  // namespace

MemoryTestResult stream_fixed_buffers_c2h_continuous(vfio::Device& device, const StreamSubtestOptions& o,
                                                     std::FILE* out) {
    const uint64_t h2c_size = (o.h2c_mapping / o.h2c_buffers) & ~uint64_t{3};
    const uint64_t c2h_whole = (o.c2h_mapping / o.c2h_buffers) & ~uint64_t{3};
    const uint64_t c2h_size = c2h_whole - c2h_whole % std::max<uint64_t>(o.stream_width, 4);
    std::fprintf(out, "Testing using H2C %zu buffers of size %s bytes, C2H continuous ring of %zu buffers of size %s "
                      "bytes, H2C channel %u C2H channel %u\n",
                 o.h2c_buffers, hex(h2c_size).c_str(), o.c2h_buffers, hex(c2h_size).c_str(), o.h2c_channel,
                 o.c2h_channel);
    std::fflush(out);
    if (h2c_size == 0 || c2h_size == 0)
        return fail(out, "H2C", "stream_mapping_size / stream_num_descriptors is below 4 bytes");
    const uint64_t pieces_per_packet = (h2c_size + c2h_size - 1) / c2h_size;
    const uint64_t packets = std::min<uint64_t>(o.h2c_buffers, o.c2h_buffers / pieces_per_packet);
    if (packets == 0)
        return fail(out, "C2H", "the C2H ring (" + hex(o.c2h_mapping) + " bytes) cannot hold one H2C buffer");
    const uint64_t per_packet = (h2c_size + 0x0FFFFFBF) / 0x0FFFFFC0;  // descriptors of the default max length
    auto h2c = stream_engine(device, o, xdma::Direction::H2C,
                             static_cast<unsigned>(std::min<uint64_t>(1023, packets * per_packet)));
    if (!h2c.ok())
        return fail(out, "H2C", h2c.error().message());
    auto h2c_data = vfio::DmaRegion::allocate(device, h2c_size * o.h2c_buffers, region(vfio::DmaAccess::DeviceRead, o));
    if (!h2c_data.ok())
        return fail(out, "H2C", h2c_data.error().message());
    auto c2h = ContinuousRing::open(device, o, c2h_size);
    if (!c2h.ok())
        return fail(out, "C2H", c2h.error().message());
    (*c2h)->start();
    const pattern::Pattern pat(5, 0);
    uint64_t tx_word = 0, rx_word = 0, verified = 0;
    TransferTiming timing("host-to-card and card-to-host DMA", packets * h2c_size);
    while (verified < std::max<uint64_t>(o.min_bytes, 4)) {
        const auto t0 = Clock::now();
        for (uint64_t p = 0; p < packets; ++p) {  // one packet per H2C buffer
            uint8_t* buffer = h2c_data->data() + p * h2c_size;
            pattern::generate(o.pool, pat, reinterpret_cast<uint32_t*>(buffer), h2c_size / 4, tx_word);
            tx_word += h2c_size / 4;
            if (auto sent = (*h2c)->submit_stream(h2c_data->iova() + p * h2c_size, h2c_size, true); !sent.ok())
                return fail(out, "H2C", sent.error().message());
        }
        auto last_progress = Clock::now();
        for (uint64_t received = 0; received < packets * h2c_size;) {
            if (auto done = (*h2c)->poll(); !done.ok())
                return fail(out, "H2C", done.error().message());
            auto piece = (*c2h)->poll();
            if (!piece.ok())
                return fail(out, "C2H", piece.error().message());
            if (!*piece) {
                if (Clock::now() - last_progress > o.timeout)
                    return fail(out, "C2H", (*c2h)->name() + " Timeout: no C2H completion for " +
                                                std::to_string(o.timeout.count()) + " ms");
                std::this_thread::yield();
                continue;
            }
            last_progress = Clock::now();
            const uint64_t in_packet = received % h2c_size;
            const uint64_t expected = std::min(c2h_size, h2c_size - in_packet);
            if (auto problem = check_piece(pat, o, (*c2h)->buffer((**piece).buffer), (**piece).length,
                                           (**piece).end_of_packet, expected, in_packet + expected == h2c_size, rx_word))
                return fail(out, "C2H", (*c2h)->name() + " " + *problem);
            (*c2h)->release((**piece).buffer);
            rx_word += (**piece).length / 4;
            received += (**piece).length;
            verified += (**piece).length;
        }
        while ((*h2c)->transfers_in_flight() > 0)
            if (auto done = (*h2c)->wait(); !done.ok())
                return fail(out, "H2C", done.error().message());
        timing.add(Clock::now() - t0);
    }
    if (auto stopped = (*c2h)->stop(); !stopped.ok())
        return fail(out, "C2H", stopped.error().message());
    (void)(*h2c)->stop();
    std::fprintf(out, "%sTest pattern verified in %" PRIu64 " words\nTEST PASS\n", timing.report().c_str(), verified / 4);
    return MemoryTestResult{true, {}, verified};
}

namespace {

struct PlannedPiece {
    uint64_t offset = 0;  // in the C2H mapping
    uint64_t length = 0;
    bool end_of_packet = false;
};

// One round of stream_variable_transfers: `bytes` from the start of both mappings.
vfio::Result<void> variable_round(xdma::Engine& h2c, xdma::Engine& c2h, const vfio::DmaRegion& h2c_data,
                                  const vfio::DmaRegion& c2h_data, const StreamSubtestOptions& o, uint64_t bytes,
                                  uint64_t h2c_length, uint64_t c2h_length, const pattern::Pattern& pat,
                                  uint64_t first_word) {
    pattern::generate(o.pool, pat, reinterpret_cast<uint32_t*>(h2c_data.data()), bytes / 4, first_word);
    std::deque<std::pair<uint64_t, uint64_t>> sends;  // offset, length: one packet each
    std::deque<PlannedPiece> receives, expected;
    for (uint64_t offset = 0; offset < bytes; offset += h2c_length) {
        const uint64_t packet = std::min(h2c_length, bytes - offset);
        sends.emplace_back(offset, packet);
        for (uint64_t in = 0; in < packet; in += c2h_length) {
            const uint64_t piece = std::min(c2h_length, packet - in);
            receives.push_back(PlannedPiece{offset + in, piece, in + piece == packet});
        }
    }
    auto last_progress = Clock::now();
    while (!receives.empty() || !expected.empty()) {
        while (!receives.empty() && c2h.free_descriptors() >= 1) {
            PDT_TRY(c2h.submit_stream(c2h_data.iova() + receives.front().offset, receives.front().length, false));
            expected.push_back(receives.front());
            receives.pop_front();
        }
        while (!sends.empty() && h2c.free_descriptors() >= h2c.descriptors_for(sends.front().second)) {
            PDT_TRY(h2c.submit_stream(h2c_data.iova() + sends.front().first, sends.front().second, true));
            sends.pop_front();
        }
        if (PDT_TRY(h2c.poll()))
            last_progress = Clock::now();
        auto done = PDT_TRY(c2h.poll());
        if (!done) {
            if (Clock::now() - last_progress > o.timeout)
                return vfio::make_error("receive", c2h.name(), ETIMEDOUT,
                                        "Timeout: no C2H completion for " + std::to_string(o.timeout.count()) + " ms");
            std::this_thread::yield();
            continue;
        }
        last_progress = Clock::now();
        const PlannedPiece want = expected.front();
        expected.pop_front();
        const uint64_t word = first_word + want.offset / 4;
        if (auto problem = check_piece(pat, o, c2h_data.data() + want.offset, done->length, done->end_of_packet,
                                       want.length, want.end_of_packet, word))
            return vfio::make_error("receive", c2h.name(), EIO, *problem);
    }
    while (h2c.transfers_in_flight() > 0)
        PDT_TRY(h2c.wait());
    return {};
}

}  // namespace

MemoryTestResult stream_variable_transfers(vfio::Device& device, const StreamSubtestOptions& o, std::FILE* out) {
    const uint64_t round = std::min(o.h2c_mapping, o.c2h_mapping) & ~uint64_t{3};
    const uint64_t h2c_length = std::min(o.h2c_transfer, round) & ~uint64_t{3};
    const uint64_t c2h_most = std::min<uint64_t>({o.c2h_transfer, round, 0x0FFFFFC0}) & ~uint64_t{3};
    const uint64_t c2h_length = c2h_most - c2h_most % std::max<uint64_t>(o.stream_width, 4);
    std::fprintf(out, "Testing using H2C transfer length %s bytes, C2H transfer length %s bytes, %s bytes per round, "
                      "H2C channel %u C2H channel %u\n",
                 hex(h2c_length).c_str(), hex(c2h_length).c_str(), hex(round).c_str(), o.h2c_channel, o.c2h_channel);
    std::fflush(out);
    if (h2c_length == 0 || c2h_length == 0)
        return fail(out, "H2C", "transfer_length and stream_mapping_size must be at least 4 bytes");
    auto h2c = stream_engine(device, o, xdma::Direction::H2C, 64);
    if (!h2c.ok())
        return fail(out, "H2C", h2c.error().message());
    auto c2h = stream_engine(device, o, xdma::Direction::C2H, 64);
    if (!c2h.ok())
        return fail(out, "C2H", c2h.error().message());
    auto h2c_data = vfio::DmaRegion::allocate(device, round, region(vfio::DmaAccess::DeviceRead, o));
    auto c2h_data = vfio::DmaRegion::allocate(device, round, region(vfio::DmaAccess::DeviceWrite, o));
    if (!h2c_data.ok() || !c2h_data.ok())
        return fail(out, h2c_data.ok() ? "C2H" : "H2C", (h2c_data.ok() ? c2h_data.error() : h2c_data.error()).message());
    const pattern::Pattern pat(6, 0);
    TransferTiming timing("host-to-card and card-to-host DMA", round);
    uint64_t verified = 0;
    while (verified < std::max<uint64_t>(o.min_bytes, 4)) {
        const auto t0 = Clock::now();
        auto done = variable_round(**h2c, **c2h, *h2c_data, *c2h_data, o, round, h2c_length, c2h_length, pat, verified / 4);
        if (!done.ok()) {
            (void)(*h2c)->stop();
            (void)(*c2h)->stop();
            return fail(out, done.error().object.find("H2C") != std::string::npos ? "H2C" : "C2H",
                        done.error().message());
        }
        timing.add(Clock::now() - t0);
        verified += round;
    }
    (void)(*h2c)->stop();
    (void)(*c2h)->stop();
    std::fprintf(out, "%sTest pattern verified in %" PRIu64 " words\nTEST PASS\n", timing.report().c_str(), verified / 4);
    return MemoryTestResult{true, {}, verified};
}

}  // namespace stream_tools
