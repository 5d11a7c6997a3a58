// XDMA engine: completion (poll-mode writeback, completed descriptor count register, status
// register, MSI), C2H stream writebacks, error reporting with decoded status and counters.
#include <atomic>
#include <cstdio>
#include <thread>

#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "dma_bridge/xdma_writeback.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "streams/fallbacks.hpp"

namespace xdma {

std::string Engine::diagnostics(uint32_t status_value) const {
    char text[320];
    std::snprintf(text, sizeof text,
                  "status 0x%08x (%s) completed_descriptor_count=%u descriptors_started=%llu "
                  "descriptors_completed=%llu credits=%u transfers_in_flight=%zu",
                  status_value, decode_status(m_options.direction, status_value).c_str(),
                  reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT), static_cast<unsigned long long>(m_started),
                  static_cast<unsigned long long>(m_completed), sgdma(sgdma_reg::DESCRIPTOR_CREDITS),
                  m_transfers.size());
    return text;
}

// Latches and returns an error naming the channel, the cause and the engine state. An
// identifier of all-ones means the device is gone, whatever the symptom was.
pdt::Error Engine::fail(int code, std::string what, const std::string& after) {
    const uint32_t id = reg(channel_reg::IDENTIFIER);
    if (id == 0xFFFFFFFFu) {
        code = ENODEV;
        what = "identifier reads 0xffffffff: device gone (link down or surprise removal); was: " + what;
    }
    const uint32_t status_value = id == 0xFFFFFFFFu ? id : read_status();
    pdt::Error error = pdt::make_error(std::string(to_string(m_options.direction)) + " " +
                                             std::to_string(m_options.channel) + " transfer",
                                         m_device.identity().address.to_string(), code,
                                         what + ": " + diagnostics(status_value) + (after.empty() ? "" : "; " + after));
    if (code != EINVAL)
        m_failure = error;
    if (code != EINVAL && code != ETIMEDOUT)  // wait() decides whether its timeout is a failure
        report_failure(error.message());
    return error;
}

std::vector<std::string> Engine::register_dump() const {
    return dump_channel_registers(m_regs, m_options.direction, m_options.channel);
}

void Engine::report_failure(const std::string& what) const {
    if (failure_observed())
        notify_failure(FailureReport{name(), what, register_dump(), &m_device});
}

pdt::Result<void> Engine::check_status(uint32_t value, const char* source) {
    if (!(value & status::errors))
        return {};
    std::string what;
    if (value & status::desc_error)
        what = "descriptor error";
    else if (value & status::magic_stopped)
        what = "magic_stopped: a descriptor's magic was not 0xAD4B";
    else if (value & status::read_error)
        what = "read error";
    else if (value & status::write_error)
        what = "write error";
    else if (value & status::align_mismatch)
        what = "align_mismatch";
    else
        what = "invalid_length";
    return fail(EIO, what + " reported in " + source + " (status " + decode_status(m_options.direction, value) + ")");
}

pdt::Result<uint64_t> Engine::hardware_completed() {
    uint32_t count = 0;
    const bool list = m_options.mode == RunMode::StopList;
    switch (m_options.completion) {
    case CompletionMethod::PollWriteback: {
        const uint32_t wb = std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(m_ring.data() + m_count_wb_offset))
                                .load(std::memory_order_acquire);
        const PollWriteback decoded = decode_poll_writeback(wb);
        if (decoded.error) {
            const uint32_t value = read_status();
            PDT_CHECK(check_status(value, "descriptor write back"));
            return fail(EIO, "Error reported in descriptor write back (no error bit left in status)");
        }
        // 24-bit count: the progress since the last look, with wrap.
        const uint64_t base = list ? m_list_base : 0;
        return base + extend_count(m_completed - base, decoded.count, poll_writeback::COUNT_MASK);
    }
    case CompletionMethod::Interrupt: {
        const uint32_t logged = reg(channel_reg::STATUS_RC);
        m_list_stopped_seen = m_list_stopped_seen || (logged & status::descriptor_stopped);
        PDT_CHECK(check_status(logged, "status (interrupt)"));
        [[fallthrough]];
    }
    case CompletionMethod::CompletedCountRegister: {
        count = reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT);
        std::atomic_thread_fence(std::memory_order_acquire);
        const uint64_t base = list ? m_list_base : 0;
        const uint64_t completed = base + extend_count(m_completed - base, count, 0xFFFFFFFFu);
        if (list && m_list_count > 0 && completed < m_list_base + m_list_count)
            return checked_count(completed);
        return completed;
    }
    case CompletionMethod::StatusRegister: {
        const uint32_t value = read_status();
        PDT_CHECK(check_status(value, "status register"));
        std::atomic_thread_fence(std::memory_order_acquire);
        if (!(value & status::busy) && (value & status::descriptor_stopped))
            return m_list_base + m_list_count;
        return m_completed;
    }
    }
    return m_completed;
}

bool Engine::stopped_at_stop(uint32_t value) const {
    return !(value & status::busy) && !(value & status::errors) &&
           ((value & status::descriptor_stopped) || m_list_stopped_seen);
}

// A list's Completed Descriptor Count (0x48) short of the list. Once it has not moved for 1 ms
// while Status says the engine stopped at the list's STOP (descriptor_stopped, busy clear, no
// error; read before the count again), the IP does not count completed descriptors. With
// --completion auto the engine completes by Status from then on (PG195: a stopped list is
// complete), with a warning; a forced method is left to the timeout, which says why.
pdt::Result<uint64_t> Engine::checked_count(uint64_t completed) {
    const auto now = std::chrono::steady_clock::now();
    if (!m_count_seen_at || completed != m_count_seen) {
        m_count_seen = completed;
        m_count_seen_at = now;
        return completed;
    }
    if (now - *m_count_seen_at < std::chrono::milliseconds(1) || !stopped_at_stop(read_status()))
        return completed;
    const uint32_t count = reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT);
    const uint64_t again = m_list_base + extend_count(m_completed - m_list_base, count, 0xFFFFFFFFu);
    if (again != completed || m_options.completion != CompletionMethod::CompletedCountRegister ||
        !m_options.completion_auto)
        return again;
    warn("Completed Descriptor Count (0x48) reads " + std::to_string(count) + " after a list of " +
         std::to_string(m_list_count) +
         " descriptors stopped at its STOP (Status descriptor_stopped, busy clear): the XDMA IP does not count "
         "completed descriptors; completing by Status from now on (completion status)");
    m_options.completion = CompletionMethod::StatusRegister;
    m_completes_by_status = true;
    streams::note_fallback("completion_by_status");
    return m_list_base + m_list_count;
}

std::string Engine::count_diagnosis() const {
    const bool reads_count = m_options.completion == CompletionMethod::CompletedCountRegister ||
                             m_options.completion == CompletionMethod::Interrupt;
    if (!reads_count || m_transfers.empty())
        return {};
    const uint32_t value = read_status();
    const uint32_t count = reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT);
    if (m_options.mode == RunMode::StopList && m_list_count > 0 && count < m_list_count && stopped_at_stop(value))
        return "Completed Descriptor Count (0x48) reads " + std::to_string(count) + " of the " +
               std::to_string(m_list_count) +
               " descriptors of a list while Status says the engine stopped at its STOP (descriptor_stopped, busy "
               "clear): the XDMA IP does not count completed descriptors; use completion status";
    if (m_options.mode == RunMode::Credits && count < m_started - m_held_credits && (value & status::busy) &&
        !(value & status::errors) && sgdma(sgdma_reg::DESCRIPTOR_CREDITS) == 0)
        return "Completed Descriptor Count (0x48) reads " + std::to_string(count) + " of " +
               std::to_string(m_started) +
               " descriptors with every credit taken (Descriptor Credits reads 0): if their data arrived, the XDMA IP "
               "does not count completed descriptors; use engine mode stop_list with completion status";
    return {};
}

// A C2H stream transfer's completion from its descriptors' writeback records.
pdt::Result<TransferCompletion> Engine::finish(const Transfer& transfer) {
    TransferCompletion done{transfer.id, 0, false};
    for (size_t i = 0; i < transfer.count; ++i) {
        const uint64_t seq = transfer.first + i;
        const size_t index = m_options.mode == RunMode::Credits ? seq % m_options.ring_descriptors : seq - m_list_base;
        C2hStreamWriteback* wb = stream_writeback(index);
        const C2hStreamWriteback record = *wb;
        *wb = C2hStreamWriteback{};
        const uint64_t capacity = std::min<uint64_t>(transfer.length - i * m_options.max_descriptor_length,
                                                     m_options.max_descriptor_length);
        const auto decoded = decode_stream_writeback(record, capacity);
        if (!decoded)
            return fail(EPROTO, decoded.error().hint);
        done.length += decoded->length;
        done.end_of_packet = decoded->end_of_packet;
    }
    return done;
}

pdt::Error Engine::more_completed_than_started(uint64_t completed) {
    return fail(EPROTO, "engine reports " + std::to_string(completed) + " completed descriptors of " +
                            std::to_string(m_started) + " started");
}

pdt::Result<std::optional<TransferCompletion>> Engine::poll() {
    if (m_failure)
        return *m_failure;
    if (m_held_credits > 0)
        flush_credits();  // coalesced credits: handed to the engine before anything waits on them
    if (m_options.mode == RunMode::StopList && m_list_count == 0 && !m_waiting_pieces.empty())
        PDT_CHECK(start_list());  // a restart that waited for Status.busy to clear
    if (m_transfers.empty())
        return std::optional<TransferCompletion>{};
    const Transfer& front = m_transfers.front();
    // Only look at the hardware when what is known does not already complete the oldest
    // transfer: one completion read (an MMIO round trip on hardware) serves a whole batch.
    if (front.waiting || m_completed < front.first + front.count) {
        const uint64_t completed = PDT_TRY(hardware_completed());
        if (completed > m_started)
            return more_completed_than_started(completed);
        m_counters.descriptors_completed += completed - m_completed;
        m_completed = completed;
    }
    if (front.waiting || m_completed < front.first + front.count)
        return std::optional<TransferCompletion>{};
    const TransferCompletion done =
        c2h_stream() ? PDT_TRY(finish(front)) : TransferCompletion{front.id, front.length, false};
    m_transfers.pop_front();
    ++m_counters.transfers_completed;
    if (m_transfers.empty() && m_completed == m_started)
        m_claim.proven();  // every descriptor it was given reported complete: it writes nothing more
    // Interrupt completion: take the MSI that announced it, whether wait() slept on it or a poll
    // between two waits found the transfer done (the model raises it with the count; on hardware
    // one that trails the count is taken by the next completion, or dropped as stale at submit).
    if (m_options.completion == CompletionMethod::Interrupt)
        m_counters.interrupts += PDT_TRY(m_device.irq_poll(m_options.msi_vector));
    // StopList: the list is done once its last transfer is taken off; start what waits.
    if (m_options.mode == RunMode::StopList && m_list_count > 0 && m_completed == m_list_base + m_list_count &&
        (m_transfers.empty() || m_transfers.front().waiting)) {
        m_list_count = 0;
        PDT_CHECK(start_list());
    }
    return std::optional<TransferCompletion>{done};
}

pdt::Result<TransferCompletion> Engine::wait(std::chrono::milliseconds timeout) {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + timeout;
    const bool interrupt = m_options.completion == CompletionMethod::Interrupt;
    for (unsigned spins = 0;; ++spins) {
        auto done = PDT_TRY(poll());
        if (done)
            return *done;
        if (m_transfers.empty())
            return pdt::make_error(std::string(to_string(m_options.direction)) + " " +
                                        std::to_string(m_options.channel) + " wait",
                                    m_device.identity().address.to_string(), EINVAL, "no transfer submitted");
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
            pdt::Error error = fail(ETIMEDOUT, "Timeout after " + std::to_string(ms) + " ms", count_diagnosis());
            m_failure.reset();  // the caller decides: wait longer, or recover()
            if (timeout >= m_options.timeout)  // the whole transfer timeout: a failure (shorter: a slice)
                report_failure(error.message());
            return error;
        }
        if (interrupt) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
            auto got = m_device.irq_wait(m_options.msi_vector, std::min(left + std::chrono::milliseconds(1),
                                                                        std::chrono::milliseconds(100)));
            if (got)
                m_counters.interrupts += *got;
            else if (got.error().code != ETIMEDOUT)
                return got.error();
        } else if (spins < 256) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }
}

}  // namespace xdma
