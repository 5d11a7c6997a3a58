// XDMA engine: open, (re)initialise, submit (credits ring or STOP-terminated lists), stop.
#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "dma_bridge/xdma_registers.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <thread>

namespace xdma {
namespace {

constexpr size_t kAlign = 64;
size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Each run mode and completion method in text and in the options' spelling, a row a value.
template <typename E>
struct Names {
    E value;
    const char* text;
    const char* option;
};
constexpr Names<RunMode> kRunModeNames[] = {{RunMode::Credits, "credits", "credits"},
                                            {RunMode::StopList, "stop-list", "stop_list"}};
constexpr Names<CompletionMethod> kCompletionNames[] = {
    {CompletionMethod::PollWriteback, "poll-mode writeback", "poll_writeback"},
    {CompletionMethod::CompletedCountRegister, "completed descriptor count register", "completed_count"},
    {CompletionMethod::StatusRegister, "status register", "status"},
    {CompletionMethod::Interrupt, "interrupt", "interrupt"}};

// The `column` of `value`'s row; "?" for a value the table lacks.
template <typename E, size_t N>
const char* name_of(E value, const Names<E> (&table)[N], const char* Names<E>::*column) {
    for (const Names<E>& names : table)
        if (names.value == value)
            return names.*column;
    return "?";
}

}  // namespace

const char* to_string(RunMode mode) { return name_of(mode, kRunModeNames, &Names<RunMode>::text); }

const char* to_string(CompletionMethod method) { return name_of(method, kCompletionNames, &Names<CompletionMethod>::text); }

const char* option_name(RunMode mode) { return name_of(mode, kRunModeNames, &Names<RunMode>::option); }

const char* option_name(CompletionMethod method) {
    return name_of(method, kCompletionNames, &Names<CompletionMethod>::option);
}

std::string Engine::name() const {
    if (m_name.empty())
        m_name = m_device.identity().address.to_string() + " " + to_string(m_options.direction) + " " +
                 std::to_string(m_options.channel);
    return m_name;
}

pdt::Result<std::unique_ptr<Engine>> Engine::open(vfio::Device& device, EngineOptions options) {
    std::unique_ptr<Engine> engine(new Engine(device, options));
    const std::string object = engine->name();
    auto invalid = [&](std::string hint) { return pdt::make_error("open XDMA engine", object, EINVAL, std::move(hint)); };
    if (options.ring_descriptors < 1 || options.ring_descriptors > MAX_DESCRIPTOR_CREDITS)
        return invalid("ring_descriptors must be 1..1023, not " + std::to_string(options.ring_descriptors));
    if (options.max_descriptor_length < 1 || options.max_descriptor_length > MAX_DESCRIPTOR_LENGTH)
        return invalid("max_descriptor_length must be 1..0x0FFFFFFF");
    if (options.coalesce_limit < 1 || options.coalesce_limit > MAX_DESCRIPTOR_CREDITS)
        return invalid("coalesce_limit must be 1..1023, not " + std::to_string(options.coalesce_limit));
    if (options.completion == CompletionMethod::StatusRegister && options.mode != RunMode::StopList)
        return invalid("status-register completion needs STOP-terminated lists (RunMode::StopList)");

    engine->m_regs = PDT_TRY(dma_registers(device, options.dma_bar, options.register_offset));
    PDT_CHECK(check_engine_blocks(engine->m_regs, options.direction, options.channel));
    const auto channels = PDT_TRY(discover(engine->m_regs, options.direction, options.stream));
    if (options.channel >= channels.size())
        return pdt::make_error("open XDMA engine", object, ENODEV,
                               "the design has " + std::to_string(channels.size()) + " " + to_string(options.direction) +
                                   (options.stream ? " stream" : " memory-mapped") + " channels");
    engine->m_info = channels[options.channel];
    // The Alignments register checked for sense (PG195 channel register 0x4C); a sane
    // address_bits below the mask asked for lowers the engine's DMA mask.
    const CheckedAlignments checked = check_alignments(engine->m_info, options.dma_mask_bits);
    engine->m_info.address_alignment = checked.address_alignment;
    engine->m_info.length_granularity = checked.length_granularity;
    engine->m_info.address_bits = checked.address_bits;
    engine->m_dma_mask_bits = std::min(options.dma_mask_bits, checked.address_bits);
    engine->m_host_limit = engine->m_dma_mask_bits >= 64 ? ~0ull : (1ull << engine->m_dma_mask_bits) - 1;
    for (const std::string& warning : checked.warnings)
        engine->warn(warning);
    // Pieces of a split transfer must keep the Alignments register's address alignment and
    // length granularity (PG195 channel Alignments, 0x4C).
    const uint32_t unit = std::lcm(std::max(engine->m_info.address_alignment, 1u),
                                   std::max(engine->m_info.length_granularity, 1u));
    engine->m_options.max_descriptor_length -= engine->m_options.max_descriptor_length % unit;
    if (engine->m_options.max_descriptor_length == 0)
        return invalid("max_descriptor_length " + std::to_string(options.max_descriptor_length) +
                       " is below the channel's alignment unit of " + std::to_string(unit) + " bytes");
    engine->m_channel_base = block_offset(channel_target(options.direction), options.channel);
    engine->m_sgdma_base = block_offset(sgdma_target(options.direction), options.channel);
    if (options.direction == Direction::C2H) {
        const auto h2c = PDT_TRY(discover(engine->m_regs, Direction::H2C, options.stream));
        engine->m_irq_source = static_cast<unsigned>(h2c.size()) + options.channel;
    } else {
        engine->m_irq_source = options.channel;
    }
    if (options.completion == CompletionMethod::Interrupt) {
        auto fd = device.irq_eventfd(options.msi_vector);
        if (!fd)
            return pdt::make_error("open XDMA engine", object, fd.error().code,
                                   "MSI vector " + std::to_string(options.msi_vector) +
                                       " not enabled; call Device::irq_enable(Msi, n) before opening engines");
    }
    if (engine->reg(channel_reg::STATUS) & status::busy)
        return engine->busy_at_open();
    engine->m_run = RunControl(engine->m_regs, engine->m_channel_base, object,
                               [raw = engine.get()](std::string text) { raw->warn(std::move(text)); });

    const size_t n = options.ring_descriptors;
    engine->m_count_wb_offset = round_up(n * sizeof(Descriptor), kAlign);
    engine->m_stream_wb_offset = engine->m_count_wb_offset + kAlign;
    const size_t size = engine->m_stream_wb_offset + round_up(n * sizeof(C2hStreamWriteback), kAlign);
    auto ring = vfio::DmaRegion::allocate(device, size, vfio::DmaRegion::Options{vfio::DmaAccess::DeviceReadWrite,
                                                                                 vfio::BufferKind::Anonymous,
                                                                                 engine->m_dma_mask_bits});
    if (!ring && engine->m_dma_mask_bits < options.dma_mask_bits)
        return pdt::make_error("open XDMA engine", object, ring.error().code,
                               ring.error().message() + " (the DMA mask is the " +
                                   std::to_string(engine->m_dma_mask_bits) +
                                   " address_bits of the channel's Alignments register, 0x4C)");
    engine->m_ring = PDT_TRY(std::move(ring));
    PDT_CHECK(engine->initialise());
    return engine;
}

Engine::~Engine() {
    if (m_ring.size() == 0)
        return;
    auto stopped = stop();
    m_regs.write32(block_offset(target::IRQ_BLOCK) + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK_W1C, 1u << m_irq_source);
    if (!stopped && m_claim.held())  // its ring and the buffers it was given stay mapped
        m_claim.abandon(stopped.error().hint);
}

// Busy before this process initialised it: ours (this process could not stop it earlier), an
// earlier run's leftover (this process holds the device lock, so no toolkit process shares the
// device), or possibly another process (no lock was taken).
pdt::Error Engine::busy_at_open() const {
    std::string why = "Attempting to initialise when DMA channel busy";
    const std::string prefix = name() + ": ";
    for (const std::string& abandoned : m_device.dma_fence().abandoned())
        if (abandoned.compare(0, prefix.size(), prefix) == 0)
            return pdt::make_error("open XDMA engine", name(), EBUSY,
                                   why + " (our own: this process could not stop it earlier: " +
                                       abandoned.substr(prefix.size()) + ")");
    if (m_device.lock() != nullptr)
        why += " (a leftover of an earlier run that could not stop it: this process holds the device lock, so no "
               "other process of the toolkit uses the device; a device reset recovers the channel)";
    else
        why += " (another user of the channel? no device lock was taken, so another process may be using it)";
    return pdt::make_error("open XDMA engine", name(), EBUSY, why);
}

void Engine::claim_writes() {
    if (!m_claim.held())
        m_claim = m_device.dma_fence().claim(name());
}

std::vector<std::string> Engine::fallbacks() const {
    std::vector<std::string> names = m_run.fallbacks();
    if (m_completes_by_status)
        names.emplace_back("completion_by_status");
    return names;
}

uint64_t Engine::writeback_iova(size_t index) const {
    return m_ring.iova() + m_stream_wb_offset + index * sizeof(C2hStreamWriteback);
}

uint64_t Engine::descriptor_iova(size_t index) const { return m_ring.iova() + index * sizeof(Descriptor); }

C2hStreamWriteback* Engine::stream_writeback(size_t index) const {
    return reinterpret_cast<C2hStreamWriteback*>(m_ring.data() + m_stream_wb_offset) + index;
}

uint32_t Engine::read_status() const { return reg(channel_reg::STATUS); }

size_t Engine::free_descriptors() const {
    const size_t used = static_cast<size_t>(m_started - m_completed) + m_waiting_pieces.size();
    return used >= m_options.ring_descriptors ? 0 : m_options.ring_descriptors - used;
}

size_t Engine::descriptors_for(uint64_t length) const {
    return length == 0 ? 1 : static_cast<size_t>((length + m_options.max_descriptor_length - 1) / m_options.max_descriptor_length);
}

// The channel set up in the order of PG195's programming sequence (per channel; the steps as
// shared/reference/xdma_pg195.md section 10 numbers them), Run cleared and proven first: each step
// below names the registers it writes, under the heading of PG195's register tables.
pdt::Result<void> Engine::initialise() {
    PDT_CHECK(m_run.clear_run());
    (void)reg(channel_reg::STATUS_RC);  // "H2C/C2H Channel Status (0x44)": clear on read, the logged status
    PDT_CHECK(set_credit_mode());       // step 7, before Run can be set
    clear_halt();                       // step 6
    std::memset(m_ring.data(), 0, m_ring.size());
    set_poll_mode_writeback_address();  // step 3
    PDT_CHECK(write_channel_control());  // step 4
    route_channel_interrupt();
    forget_transfers();
    if (m_options.mode == RunMode::Credits)
        PDT_CHECK(start_credit_ring());  // steps 2, 5 and 8
    return {};
}

// "SGDMA Common Registers (0x6)", Descriptor Credit Mode Enable (0x6020, W1S 0x6024, W1C 0x6028).
// Disabling credit mode resets the credits to 0; enable it again for a credits ring. An IP built
// without descriptor credits reads the enable back as 0 and would run the ring for ever: refused
// before Run is set.
pdt::Result<void> Engine::set_credit_mode() {
    const uint32_t common = static_cast<uint32_t>(block_offset(target::SGDMA_COMMON));
    const uint32_t bit = sgdma_common_reg::channel_bit(m_options.direction, m_options.channel);
    m_regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1C, bit);
    if (m_options.mode != RunMode::Credits)
        return {};
    m_regs.write32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE_W1S, bit);
    if (!(m_regs.read32(common + sgdma_common_reg::DESCRIPTOR_CREDIT_MODE_ENABLE) & bit))
        return pdt::make_error("initialise XDMA engine", name(), ENOTSUP,
                               "credits ring: Descriptor Credit Mode Enable (0x6020) reads back 0, the XDMA IP "
                               "has no descriptor credits; use STOP-terminated lists (engine mode stop_list)");
    return {};
}

// "SGDMA Common Registers (0x6)", SGDMA Descriptor Control (W1C 0x6018): the channel's halt bit
// cleared, so that the engine fetches descriptors.
void Engine::clear_halt() {
    const uint32_t common = static_cast<uint32_t>(block_offset(target::SGDMA_COMMON));
    m_regs.write32(common + sgdma_common_reg::DESCRIPTOR_CONTROL_W1C,
                   sgdma_common_reg::channel_bit(m_options.direction, m_options.channel));
}

// "H2C/C2H Channel Registers", Poll Mode Low/High Write Back Address (0x88, 0x8C): where the
// completed count is written (inside the ring's mapping).
void Engine::set_poll_mode_writeback_address() {
    const uint64_t count_wb = m_ring.iova() + m_count_wb_offset;
    set_reg(channel_reg::POLL_MODE_LOW_WRITE_BACK_ADDRESS, static_cast<uint32_t>(count_wb));
    set_reg(channel_reg::POLL_MODE_HIGH_WRITE_BACK_ADDRESS, static_cast<uint32_t>(count_wb >> 32));
}

// The Control bits whose events the engine logs in Status: every error, and each completed
// descriptor (every descriptor has COMPLETED); a list also ends in a stop.
uint32_t Engine::status_events() const {
    using namespace channel_reg;
    uint32_t events = control::ie_desc_error | control::ie_read_error | control::ie_magic_stopped |
                      control::ie_align_mismatch | control::ie_invalid_length | control::ie_descriptor_completed;
    if (m_options.direction == Direction::H2C)
        events |= control::ie_write_error;
    if (m_options.mode == RunMode::StopList)
        events |= control::ie_descriptor_stopped;
    return events;
}

// "H2C/C2H Channel Control (0x04)": the events, and poll-mode writeback when the completion is
// read from it. Poll-mode writeback is there when Control keeps its enable; where Control does not
// read back at all, when the Poll Mode Write Back Address registers keep the address written.
pdt::Result<void> Engine::write_channel_control() {
    using namespace channel_reg;
    const bool poll_wb = m_options.completion == CompletionMethod::PollWriteback;
    m_run.write_control(status_events() | (poll_wb ? control::pollmode_wb_enable : 0u));
    if (!poll_wb)
        return {};
    const uint32_t count_wb_low = static_cast<uint32_t>(m_ring.iova() + m_count_wb_offset);
    const bool present = m_run.control_reads_back() ? (reg(CONTROL) & control::pollmode_wb_enable) != 0
                                                    : reg(POLL_MODE_LOW_WRITE_BACK_ADDRESS) == count_wb_low;
    if (!present)
        return pdt::make_error("initialise XDMA engine", name(), ENOTSUP,
                               std::string("Control.pollmode_wb_enable (bit 26) reads back 0: the XDMA IP has no "
                                           "poll-mode writeback; use completion completed_count, ") +
                                   (m_options.mode == RunMode::StopList ? "status" : "status (with engine mode stop_list)") +
                                   ", interrupt (where the IP's interrupts work) or auto");
    return {};
}

// "H2C/C2H Channel Interrupt Enable Mask (0x90)" and "IRQ Block Registers (0x2)": with interrupt
// completion, the channel's events raise its interrupt source, routed to the MSI vector in the
// Channel Vector Number register and unmasked (Channel Interrupt Enable Mask W1S 0x2014), stale
// interrupts dropped; else the source is masked (W1C 0x2018).
void Engine::route_channel_interrupt() {
    const uint32_t irq = static_cast<uint32_t>(block_offset(target::IRQ_BLOCK));
    const bool interrupt = m_options.completion == CompletionMethod::Interrupt;
    set_reg(channel_reg::INTERRUPT_ENABLE_MASK, interrupt ? status_events() : 0);
    if (!interrupt) {
        m_regs.write32(irq + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK_W1C, 1u << m_irq_source);
        return;
    }
    const uint32_t vector_reg = irq + irq_reg::CHANNEL_VECTOR_NUMBER + (m_irq_source / 4) * 4;
    const unsigned shift = (m_irq_source % 4) * 8;
    const uint32_t vectors = m_regs.read32(vector_reg);
    m_regs.write32(vector_reg, (vectors & ~(0x1Fu << shift)) | (m_options.msi_vector & 0x1F) << shift);
    m_regs.write32(irq + irq_reg::CHANNEL_INTERRUPT_ENABLE_MASK_W1S, 1u << m_irq_source);
    (void)m_device.irq_poll(m_options.msi_vector);
}

// What was in flight is abandoned: the counts start again from 0.
void Engine::forget_transfers() {
    m_transfers.clear();
    m_transfers.reserve(m_options.ring_descriptors);
    m_waiting_pieces.clear();
    m_waiting_pieces.reserve(m_options.ring_descriptors);
    m_held_credits = 0;
    m_next_slot = 0;
    m_started = m_completed = m_list_base = 0;
    m_list_count = 0;
    m_failure.reset();
    m_stopped = false;
    m_restart_deadline.reset();
}

// Steps 2, 5 and 8 for a credits ring: the ring linked in a circle once (credits then hand its
// descriptors to the running engine), "H2C/C2H SGDMA Registers (0x4)" Descriptor Low/High Address
// (0x80, 0x84) at its first descriptor and Descriptor Adjacent (0x88) 0, then Run.
pdt::Result<void> Engine::start_credit_ring() {
    for (size_t i = 0; i < m_options.ring_descriptors; ++i)
        write_descriptor(i, Piece{}, descriptor_iova((i + 1) % m_options.ring_descriptors), 0);
    set_sgdma(sgdma_reg::DESCRIPTOR_LOW_ADDRESS, static_cast<uint32_t>(descriptor_iova(0)));
    set_sgdma(sgdma_reg::DESCRIPTOR_HIGH_ADDRESS, static_cast<uint32_t>(descriptor_iova(0) >> 32));
    set_sgdma(sgdma_reg::DESCRIPTOR_ADJACENT, 0);
    std::atomic_thread_fence(std::memory_order_release);
    return start_engine();
}

// Run set and proven by Status (RunControl::start), a refused start retried for idle_wait.
pdt::Result<void> Engine::start_engine() {
    if (auto started = m_run.start(m_options.idle_wait); !started)
        return fail(started.error().code, started.error().hint);
    return {};
}

void Engine::warn(std::string text) {
    notify_warning(name(), text);
    m_warnings.push_back(std::move(text));
}

pdt::Result<void> Engine::stop() {
    if (auto stopped = m_run.stop(m_options.idle_wait, [this] { return diagnostics(read_status()); }); !stopped) {
        report_failure(stopped.error().message());
        return stopped;  // the claim stays: the engine may still write what it was given
    }
    m_claim.proven();  // Run and busy read back clear: it writes nothing more
    m_transfers.clear();
    m_waiting_pieces.clear();
    m_held_credits = 0;  // never written; Run's falling edge cleared the register's credits
    m_list_count = 0;
    m_stopped = true;
    m_failure.reset();  // idle now; the next submit starts afresh
    return {};
}

pdt::Result<void> Engine::recover() {
    PDT_CHECK(stop());
    return initialise();
}

}  // namespace xdma
