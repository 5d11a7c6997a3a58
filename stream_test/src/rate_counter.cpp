#include "stream_test/rate_counter.hpp"

namespace stream_test {

RateCounter::RateCounter(Clock::time_point start) : m_start(start), m_last(start), m_interval_start(start) {}

void RateCounter::reset(Clock::time_point start) {
    std::lock_guard lock(m_mutex);
    m_start = m_last = m_interval_start = start;
    m_bytes = m_transfers = m_interval_bytes = m_interval_transfers = 0;
}

void RateCounter::add(uint64_t bytes, Clock::time_point when) {
    std::lock_guard lock(m_mutex);
    m_bytes += bytes;
    ++m_transfers;
    if (when > m_last)
        m_last = when;
}

Interval RateCounter::take_interval(bool last) {
    std::lock_guard lock(m_mutex);
    Interval interval;
    interval.bytes = m_bytes - m_interval_bytes;
    interval.transfers = m_transfers - m_interval_transfers;
    interval.seconds = std::chrono::duration<double>(m_last - m_interval_start).count();
    interval.too_short = interval.bytes > 0 && (interval.seconds < kMinRateSeconds || interval.bytes < kMinRateBytes);
    interval.carried = interval.too_short && !last;
    if (interval.carried)
        return interval;  // still open: the next interval starts where this one did
    m_interval_start = m_last;
    m_interval_bytes = m_bytes;
    m_interval_transfers = m_transfers;
    return interval;
}

Interval RateCounter::total() const {
    std::lock_guard lock(m_mutex);
    return Interval{m_bytes, m_transfers, std::chrono::duration<double>(m_last - m_start).count()};
}

}  // namespace stream_test
