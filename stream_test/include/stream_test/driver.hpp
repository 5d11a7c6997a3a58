// Stream-test driver, written once against streams::StreamChannel so that XDMA stream
// channels, the edu adapter and later CUDA / ET-SoC-1 adapters all run the same tests.
//
// Sources (H2C channels) send a keyed, seekable pattern (pattern::Pattern, stream = source
// id) continuously; every buffer is regenerated for its stream offset before it is resent,
// so each pass through the ring carries different data. Sinks (C2H channels) check every
// received byte against the stream of the source routed to them, while running, and check
// packet lengths and end-of-packet flags. The first failure stops the whole test.
//
// A loopback pair (test_dma_bridge_parallel_streams) is one source and the sink it loops to;
// independent streams (test_dma_bridge_independent_streams) report every channel on its own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "cli/transfer_timeout.hpp"
#include "pattern/pattern.hpp"
#include "pattern/worker_pool.hpp"
#include "stream_test/rate_counter.hpp"
#include "streams/stream_channel.hpp"
#include "streams/stream_device.hpp"

namespace stream_test {

// What the card does between a source and the sink it feeds: the stream device seam's
// (streams/stream_device.hpp), which src/expected.hpp turns into what a sink checks.
using streams::CardFunction;

struct Options {
    // No completion for this long while work is queued is a failure.
    std::chrono::milliseconds transfer_timeout{cli::kDefaultTransferTimeout};
    std::chrono::milliseconds report_interval{10000};
    // Stop (as for Ctrl-C) after this long; nullopt: run until stop is set.
    std::optional<std::chrono::milliseconds> duration;
    // Each source stops (as for Ctrl-C) once it has sent this many bytes; nullopt: no limit.
    std::optional<uint64_t> bytes_per_source;
    // Set from a SIGINT handler (or a test): stop submitting, drain, report. May be null.
    const std::atomic<bool>* stop = nullptr;
    // Set by a watch that fails the run (a sensor over --max_temperature): stop submitting and
    // drain as for stop; the caller adds the failure to the summary. May be null.
    const std::atomic<bool>* stop_failing = nullptr;
    // Shares pattern generation and verification; null: each channel's thread does its own.
    pattern::WorkerPool* pool = nullptr;
    // F20: a source whose card checks its data and poisons each copy's destination first
    // (StreamChannel::poisons_destination), and that feeds no sink, generates each buffer once
    // and then resends it with the span it was generated for: the host spends no core on
    // generation; every word is still checked, and data that did not move meets poison.
    bool h2c_replay = false;
};

// A failure, with what the user needs to find it: the channel, the transfer, where in the
// stream, and for data errors the first bad word (expected vs actual) and the count of bad
// words. A data error's message gives the first bad word's offset in the buffer and in the
// stream: "transfer 17: data error in buffer 3 at buffer offset 0x40, stream offset 0x11040:
// expected 0x... actual 0x..., 5 bad words".
struct Failure {
    std::string channel;         // StreamChannel::name()
    std::string message;         // one line
    std::optional<uint64_t> stream_byte_offset;
    std::optional<pattern::Mismatch> mismatch;  // data errors; first_bad_word is a stream word index
    std::optional<uint64_t> transfer = std::nullopt;  // a C2H check's failure: the completion's number on the channel, from 1
};

struct RowTotals {
    std::string label;
    Interval total;
    bool verifies = false;          // the row has a verifying sink
    uint64_t words_verified = 0;
    CardFunction function = CardFunction::Loopback;  // what its sink checked against
    bool on_card = false;             // a source row whose words the card checked (checks_h2c_data)
    bool replayed = false;            // a source row that resent its buffers (Options::h2c_replay)
    uint64_t card_words_verified = 0;  // a pair row: H2C words its card checked before looping back
    std::optional<Failure> failure;
};

struct Summary {
    std::vector<RowTotals> rows;
    std::vector<Failure> failures;  // in the order they happened
    bool stopped_by_user = false;
    // The host's cost: the process's CPU time (user + system, over every thread, so a simulated
    // device's or a vendor runtime's threads count too) over the run's wall time.
    double cpu_seconds = 0, wall_seconds = 0;
    // The IP's own count of every transfer of the run, where its channels keep one
    // (StreamChannel::ip_counts: XDMA's performance monitors), sources' first.
    std::vector<std::string> ip_counts;
    uint64_t bytes_verified() const;  // host- and card-verified bytes of every row
    // PASS: no failure, at least one row, every row moved data, every verifying row checked
    // at least one word, and at least one row verifies: never PASS when nothing was tested.
    bool passed() const;
};

namespace detail {
struct Source;
struct Sink;
struct Shared;
}  // namespace detail

// Called from the thread that runs the test.
struct Observer {
    virtual ~Observer() = default;
    virtual void on_start() {}
    virtual void on_interval(const std::vector<std::pair<std::string, Interval>>& rows) = 0;
    // Right after each on_interval: every row's totals so far (bytes, words verified, its first
    // failure) and the failures so far, for the run's metrics.
    virtual void on_progress(const std::vector<RowTotals>& rows, const std::vector<Failure>& failures) {
        (void)rows;
        (void)failures;
    }
};

class StreamTest {
public:
    explicit StreamTest(Options options);
    ~StreamTest();

    // A source sends the pattern of `stream` from channel (H2C), one packet per buffer.
    pdt::Result<size_t> add_source(streams::StreamChannel& channel, uint64_t stream);
    // A sink receives on channel (C2H) and checks what the card function makes of source
    // `from` (whose packet size sets the expected lengths and EOP positions). from = nullopt:
    // counted, not verified (FixedData: still verified, its data does not depend on a source;
    // Generated: from must be nullopt and the channel must name its generated_stream).
    // Crc64 needs source packets of a multiple of 8 bytes and sink buffers of at least 8.
    pdt::Result<size_t> add_sink(streams::StreamChannel& channel, std::optional<size_t> from,
                                 CardFunction function = CardFunction::Loopback);
    // Output rows, printed in the order added. A pair row counts and verifies at its sink.
    // label: "0000:15:00.0 0 -> 1" or "0000:01:00.0 H2C channel 0".
    void add_pair_row(std::string label, size_t sink);
    void add_source_row(std::string label, size_t source);
    void add_sink_row(std::string label, size_t sink);

    // Runs until stop / duration / failure; every channel is stopped (idle) on return.
    Summary run(Observer& observer);

private:
    struct Row {
        std::string label;
        bool is_source = false;
        size_t index = 0;
        bool pair = false;
    };
    RateCounter& counter(const Row& row);
    RowTotals totals(const Row& row, const std::vector<Failure>& failures);
    std::vector<std::pair<std::string, Interval>> take_intervals(bool last = false);
    void report_interval(Observer& observer, detail::Shared& shared);

    Options m_options;
    std::vector<std::unique_ptr<detail::Source>> m_sources;
    std::vector<std::unique_ptr<detail::Sink>> m_sinks;
    std::vector<Row> m_rows;
};

}  // namespace stream_test
