// Bytes and completion times of one output row (a loopback pair or one channel). The worker
// that drives the channel adds completions; the reporting thread takes interval figures.
// As in fpga_sio, an interval runs from the previous interval's last completion to this
// interval's last completion, so the printed rate does not jitter with the report timer.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

namespace stream_test {

using Clock = std::chrono::steady_clock;

struct Interval {
    uint64_t bytes = 0;
    uint64_t transfers = 0;
    double seconds = 0.0;
    // Mbytes/sec with Mbyte = 1e6 bytes; 0 when no time elapsed.
    double mbytes_per_sec() const { return seconds > 0.0 ? static_cast<double>(bytes) / seconds / 1e6 : 0.0; }
};

class RateCounter {
public:
    explicit RateCounter(Clock::time_point start = Clock::now());

    // Forgets everything and starts counting at start.
    void reset(Clock::time_point start);
    void add(uint64_t bytes, Clock::time_point when);
    // Figures since the previous take_interval() (or the start); starts the next interval.
    Interval take_interval();
    // Figures from the start to the last completion.
    Interval total() const;

private:
    mutable std::mutex m_mutex;
    Clock::time_point m_start;
    Clock::time_point m_last;
    Clock::time_point m_interval_start;
    uint64_t m_bytes = 0;
    uint64_t m_transfers = 0;
    uint64_t m_interval_bytes = 0;
    uint64_t m_interval_transfers = 0;
};

}  // namespace stream_test
