// XDMA engine behaviour: Run edges, descriptor fetch (credits, Nxt_adj, STOP), data movement
// to AXI-MM card memory or AXI4-Stream, poll-mode and C2H stream writebacks, error status.
#include <algorithm>
#include <cstring>

#include "model_support.hpp"
#include "xdma_internal.hpp"

namespace sim::xdma_impl {
namespace {

Descriptor parse(const uint8_t* raw) {
    Descriptor d;
    std::memcpy(&d.word0, raw, 4);
    std::memcpy(&d.length, raw + 4, 4);
    std::memcpy(&d.src_adr, raw + 8, 8);
    std::memcpy(&d.dst_adr, raw + 16, 8);
    std::memcpy(&d.nxt_adr, raw + 24, 8);
    d.length &= 0x0FFFFFFF;  // [27:0]; upper bits reserved
    return d;
}

}  // namespace

bool Impl::take_fault(Channel& ch, XdmaFault fault) { return model_support::take_armed_fault(ch.faults, fault); }

void Impl::violation(const Channel& ch, std::string what) {
    violations.push_back(XdmaViolation{ch.direction, ch.index, std::move(what)});
}

void Impl::set_run(Channel& ch, bool run) {
    if (run) {
        settle(ch);
        if ((ch.status & kStatusBusy) && !ch.running) {
            // Still busy from the last stop (busy_after_stop): PG195 gives no restart of a busy
            // engine, so the model loses this rising edge and the engine stays stopped.
            violation(ch, "Run set while Status.busy is still set after a stop: the engine does not start");
            return;
        }
        if (config.start_refused_after_stop.count() > 0 && ch.idle_since &&
            std::chrono::steady_clock::now() - *ch.idle_since < config.start_refused_after_stop)
            return;  // start_refused_after_stop: this IP loses a start just after busy cleared
        // Rising edge of Run: the engine starts at the SGDMA descriptor address, with the
        // completed descriptor count and the logged status bits reset (PG195 Status table).
        ch.status &= ~kStatusLoggable;
        ch.status |= kStatusBusy;
        ch.busy_until.reset();
        ch.late_due.reset();
        ch.finish_then_stop = false;
        ch.running = true;
        ch.stalled = false;
        ch.completed_count = 0;
        if (ch.perf_control & kPerfAuto)  // Performance Monitor Control.Auto: counts cleared
            ch.perf_cycles = ch.perf_data_beats = 0;
        ch.next_descriptor = ch.descriptor_address;
        ch.adjacent_remaining = ch.descriptor_adjacent & 0x3F;
        ch.current.reset();
        ch.current_filled = 0;
        if ((ch.next_descriptor % 4096) + (ch.adjacent_remaining + 1) * 32ull > 4096)
            violation(ch, "first adjacent descriptor block crosses a 4 KiB boundary");
    } else {
        if (ch.hung)
            return;  // a hung engine ignores Run
        if (ch.late_due && ch.running && !ch.stalled) {
            ch.finish_then_stop = true;  // late_engine: the write in flight lands first
            return;
        }
        abort_run(ch);
    }
}

// Clearing Run aborts the descriptor in progress; the engine goes idle.
void Impl::abort_run(Channel& ch) {
    if (ch.running)
        log_status(ch, kStatusIdleStopped);
    stop_engine(ch);
    ch.stalled = false;
    ch.current.reset();
    ch.current_filled = 0;
    ch.tails.held = HeldTail{};
    abort_stream_packet(ch);
}

// late_engine: a fetched descriptor waits config.late_engine before its data moves.
bool Impl::late(Channel& ch, bool fetched) {
    if (config.late_engine.count() == 0)
        return false;
    const auto now = std::chrono::steady_clock::now();
    if (fetched)
        ch.late_due = now + config.late_engine;
    if (ch.late_due && now < *ch.late_due)
        return true;
    ch.late_due.reset();
    return false;
}

bool Impl::has_work(const Channel& ch) const {
    if (!ch.running || ch.stalled)
        return false;
    if (ch.finish_then_stop)
        return true;  // Run cleared while a late write was in flight: it lands, then the engine stops
    if (ch.current) {
        if (!config.stream)
            return true;
        return ch.direction == XdmaDirection::H2C ? h2c_stream_ready(ch) : c2h_stream_ready(ch);
    }
    if (halted(ch))
        return false;
    return !credit_mode(ch) || ch.credits > 0;
}

// Stops the engine with error bits, as PG195 engines stop on an error. The bits are logged only
// where Control enables them (ie_*); the model stops the engine on an error either way.
void stop_with_error(Impl& impl, Channel& ch, uint32_t bits) {
    impl.log_status(ch, bits);
    impl.stop_engine(ch);
    ch.current.reset();
    ch.current_filled = 0;
    if (ch.control & kControlPollmodeWbEnable) {
        const uint32_t wb = 0x80000000u | (ch.completed_count & 0x00FFFFFF);
        (void)impl.device.dma_write(ch.poll_wb_address, &wb, sizeof wb);
    }
    impl.update_interrupts();
}

namespace {

// Fetches the descriptor at ch.next_descriptor; false when the engine stopped on an error.
bool fetch(Impl& impl, Channel& ch) {
    land_late(impl, ch);  // completes_early: the last transfer's tail lands as the next one starts
    const uint64_t at = ch.next_descriptor;
    uint8_t raw[32];
    if (at % 32 != 0) {
        impl.violation(ch, "descriptor address not 32-byte aligned");
        stop_with_error(impl, ch, kStatusDescErrorUr);
        return false;
    }
    if (impl.take_fault(ch, XdmaFault::DescriptorReadError) || !impl.device.dma_read(at, raw, sizeof raw)) {
        stop_with_error(impl, ch, kStatusDescErrorUr);
        return false;
    }
    Descriptor d = parse(raw);
    if (impl.take_fault(ch, XdmaFault::BadMagic))
        d.word0 ^= 0x00010000;
    if (d.magic() != kDescriptorMagic) {
        stop_with_error(impl, ch, kStatusMagicStopped);
        return false;
    }
    // An engine built without unaligned transfer support needs its data addresses aligned to
    // the Alignments register's address alignment (the C2H stream src_adr is a writeback).
    const uint64_t align = impl.config.address_alignment;
    const bool check_src = !(impl.config.stream && ch.direction == XdmaDirection::C2H);
    const bool check_dst = !(impl.config.stream && ch.direction == XdmaDirection::H2C);
    if (align > 1 && ((check_src && d.src_adr % align) || (check_dst && d.dst_adr % align))) {
        stop_with_error(impl, ch, kStatusAlignMismatch);
        return false;
    }
    // The Alignments register's length granularity holds for every descriptor; a length that is
    // not a multiple of it stops the engine with invalid_length (PG195 Status bit 5).
    const uint64_t granularity = impl.config.length_granularity;
    if (granularity > 1 && d.length % granularity != 0) {
        stop_with_error(impl, ch, kStatusInvalidLength);
        return false;
    }
    if (impl.credit_mode(ch))
        --ch.credits;
    if (ch.adjacent_remaining > 0) {
        ch.next_descriptor = at + 32;
        --ch.adjacent_remaining;
    } else {
        ch.next_descriptor = d.nxt_adr;
        ch.adjacent_remaining = d.nxt_adj();
        if (!(d.control() & kDescStop) && (d.nxt_adr % 4096) + (d.nxt_adj() + 1) * 32ull > 4096)
            impl.violation(ch, "adjacent descriptor block crosses a 4 KiB boundary");
    }
    ch.current = d;
    ch.current_filled = 0;
    return true;
}

bool card_range(const XdmaConfig& c, uint64_t address, uint64_t length) {
    return CardMemory::contains(c.card_memory_base, c.card_memory_size, address, length);
}

}  // namespace

void flip_bit(Impl& impl, Channel& ch, uint8_t* data, uint64_t n) {
    if (n > 0 && impl.take_fault(ch, XdmaFault::DataBitFlip))
        data[0] ^= 0x01;
}

void flip_bit(Impl& impl, Channel& ch, std::vector<uint8_t>& data) { flip_bit(impl, ch, data.data(), data.size()); }

namespace {

// The performance monitor's counts for a descriptor of `bytes`: its beats of the datapath, and
// the model's clock (xdma_internal.hpp). With Auto a STOP descriptor stops the counts.
void count_performance(const XdmaConfig& config, Channel& ch, const Descriptor& d, uint64_t bytes) {
    if (!(ch.perf_control & kPerfRun) || !(ch.control & kControlRun))
        return;
    const uint64_t beats = (bytes + config.data_width_bytes - 1) / config.data_width_bytes;
    ch.perf_data_beats = std::min(ch.perf_data_beats + beats, kPerfCountMax);
    ch.perf_cycles = std::min(ch.perf_cycles + beats + kPerfCyclesPerDescriptor, kPerfCountMax);
    if ((ch.perf_control & kPerfAuto) && (d.control() & kDescStop))
        ch.perf_control &= ~kPerfRun;
}

}  // namespace

// Completes ch.current: count, writebacks, STOP.
void complete(Impl& impl, Channel& ch, bool eop) {
    const Descriptor d = *ch.current;
    const bool c2h_stream = impl.config.stream && ch.direction == XdmaDirection::C2H;
    count_performance(impl.config, ch, d, c2h_stream ? ch.current_filled : d.length);
    end_transfer(impl, ch);
    if (c2h_stream && !(ch.control & kControlStreamWbDisable)) {
        uint32_t length = static_cast<uint32_t>(ch.current_filled);
        if (impl.take_fault(ch, XdmaFault::ShortC2hLength))
            length = length >= 4 ? length - 4 : 0;
        const uint32_t wb[2] = {kStreamWritebackMagic << 16 | (eop ? 1u : 0u), length};
        (void)impl.device.dma_write(d.src_adr, wb, sizeof wb);
    }
    ch.current.reset();
    ch.current_filled = 0;
    ch.completed_count = (ch.completed_count + 1) & 0xFFFFFFFF;
    ++ch.processed;
    if (d.control() & kDescCompleted)
        impl.log_status(ch, kStatusDescriptorCompleted);
    if (d.control() & kDescStop) {
        impl.log_status(ch, kStatusDescriptorStopped);
        impl.stop_engine(ch);
    }
    if ((ch.control & kControlPollmodeWbEnable) && (d.control() & (kDescCompleted | kDescStop))) {
        const uint32_t wb = ((ch.status & kStatusErrorMask) ? 0x80000000u : 0) | (ch.completed_count & 0x00FFFFFF);
        (void)impl.device.dma_write(ch.poll_wb_address, &wb, sizeof wb);
    }
    impl.update_interrupts();
}

namespace {

// OverrunOneByte: the byte after the block, copied as a faulty engine would (a host byte the
// IOMMU does not let it read, or a card byte past the card memory, leaves the fault unused).
void overrun_h2c(Impl& impl, Channel& ch, const Descriptor& d) {
    uint8_t byte = 0;
    const uint64_t after = d.dst_adr + d.length;
    if (std::find(ch.faults.begin(), ch.faults.end(), XdmaFault::OverrunOneByte) == ch.faults.end() ||
        !card_range(impl.config, after, 1) || !impl.device.dma_read(d.src_adr + d.length, &byte, 1))
        return;
    (void)impl.take_fault(ch, XdmaFault::OverrunOneByte);
    impl.card_memory.write(after - impl.config.card_memory_base, &byte, 1);
}

void overrun_c2h(Impl& impl, Channel& ch, const Descriptor& d) {
    uint8_t byte = 0;
    const uint64_t after = d.src_adr + d.length;
    if (!card_range(impl.config, after, 1) || !impl.take_fault(ch, XdmaFault::OverrunOneByte))
        return;
    impl.card_memory.read(after - impl.config.card_memory_base, &byte, 1);
    (void)impl.device.dma_write(d.dst_adr + d.length, &byte, 1);  // posted: the IOMMU may refuse it
}

// Moves the data of ch.current; false when the engine stopped on an error.
// Moves the current memory-mapped descriptor's data; false when the engine stopped instead.
bool move_mm_data(Impl& impl, Channel& ch) {
    if (!impl.config.card_memory_present) {
        // Nothing answers the AXI-MM master: the transfer never completes, Run or not.
        ch.hung = ch.stalled = true;
        return false;
    }
    const Descriptor& d = *ch.current;
    if (impl.mm_scratch.size() < d.length)
        impl.mm_scratch.resize(d.length);
    uint8_t* const data = impl.mm_scratch.data();
    if (ch.direction == XdmaDirection::H2C) {
        if (!impl.device.dma_read(d.src_adr, data, d.length)) {
            stop_with_error(impl, ch, kStatusReadErrorUr);
            return false;
        }
        if (!card_range(impl.config, d.dst_adr, d.length)) {
            stop_with_error(impl, ch, kStatusWriteErrorDecode);
            return false;
        }
        flip_bit(impl, ch, data, d.length);
        deliver(impl, ch, true, d.dst_adr - impl.config.card_memory_base, data, d.length);
        overrun_h2c(impl, ch, d);
    } else {
        if (!card_range(impl.config, d.src_adr, d.length)) {
            stop_with_error(impl, ch, kStatusReadErrorUr);  // C2H bit 9: read error, decode
            return false;
        }
        impl.card_memory.read(d.src_adr - impl.config.card_memory_base, data, d.length);
        flip_bit(impl, ch, data, d.length);
        // A C2H write the IOMMU blocks is a posted write: the engine does not see it (the
        // IOMMU logs the fault), as on hardware.
        deliver(impl, ch, false, d.dst_adr, data, d.length);
        overrun_c2h(impl, ch, d);
    }
    impl.bytes_moved += d.length;
    return true;
}

bool move_mm(Impl& impl, Channel& ch) {
    if (!move_mm_data(impl, ch))
        return false;
    complete(impl, ch, false);
    return true;
}

}  // namespace

bool Impl::start_timed_mm(Channel& ch) {
    if (!has_work(ch))
        return false;
    if (!ch.current && !fetch(*this, ch))
        return true;
    if (take_fault(ch, XdmaFault::EngineHang))
        ch.hung = true;
    if (ch.hung || take_fault(ch, XdmaFault::EngineStall)) {
        ch.stalled = true;
        return false;
    }
    move_mm_data(*this, ch);  // an error stops the engine (current reset): progress too
    return true;
}

void Impl::complete_timed_mm(Channel& ch) { complete(*this, ch, false); }

bool Impl::advance(Channel& ch) {
    if (!has_work(ch))
        return false;
    if (take_fault(ch, XdmaFault::EngineHang))
        ch.hung = true;
    if (ch.hung || take_fault(ch, XdmaFault::EngineStall)) {
        ch.stalled = true;  // busy for ever, until Run is cleared
        return false;
    }
    const bool fetched = !ch.current;
    if (fetched && !fetch(*this, ch))
        return true;
    if (late(ch, fetched))
        return fetched;
    bool progress = true;
    if (!config.stream)
        move_mm(*this, ch);
    else if (ch.direction == XdmaDirection::H2C)
        progress = move_h2c_stream(*this, ch) || fetched;  // a stalled H2C made progress if it fetched
    else
        move_c2h_stream(*this, ch);
    if (ch.finish_then_stop && ch.running)  // Run was cleared while the write was in flight
        abort_run(ch);
    return progress;
}

}  // namespace sim::xdma_impl
