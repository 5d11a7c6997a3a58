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

// An interval shorter than this, or moving fewer bytes, gives no rate worth printing: a few
// completions that land together make one up (an H200 run printed 79 GB/s, above the link
// rate, for a final part interval of 0.0017 s).
inline constexpr double kMinRateSeconds = 0.010;
inline constexpr uint64_t kMinRateBytes = uint64_t{1} << 20;

struct Interval {
    uint64_t bytes = 0;
    uint64_t transfers = 0;
    double seconds = 0.0;
    // Under kMinRateSeconds or kMinRateBytes (and not empty): printed without a rate.
    bool too_short = false;
    // Too short, and still open: its bytes and time are counted again in the next interval.
    bool carried = false;
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
    // An interval too short for a rate (Interval::too_short) is not closed but carried into
    // the next one (Interval::carried), unless `last`: the run's final part interval, which
    // comes back marked too short.
    Interval take_interval(bool last = false);
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
