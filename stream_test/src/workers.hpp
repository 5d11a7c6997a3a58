// Per-channel workers of the stream-test driver (private to stream_test).
#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "expected.hpp"
#include "stream_test/driver.hpp"

namespace stream_test::detail {

// State every worker shares: the stop request, the abort on failure, the failures.
struct Shared {
    std::atomic<bool> stop_submitting{false};
    std::atomic<bool> abort{false};
    std::mutex mutex;
    std::vector<Failure> failures;

    void fail(Failure failure);
};

struct Source {
    Source(streams::StreamChannel& c, uint64_t stream)
        : channel(c), pattern(stream, 0), packet_bytes(c.buffer_size()) {}
    streams::StreamChannel& channel;
    pattern::Pattern pattern;
    uint64_t packet_bytes;
    // How the pattern is written (set by StreamTest::run): through the caches, so the card's DMA
    // reads it hot, unless the host also verifies received data: then streaming stores leave
    // the caches to the verifier (on an H200 host: H2D alone 0.996x of the bare copy cached,
    // 0.83x streaming; both directions 0.60x cached, 0.92x streaming; docs/measurements/).
    pattern::Store store = pattern::Store::Cached;
    RateCounter counter;
    std::atomic<uint64_t> bytes_submitted{0};
    std::atomic<uint64_t> card_words_verified{0};  // checked by the card (checks_h2c_data)
    std::atomic<bool> finished{false};
    // Worker state.
    std::deque<size_t> in_flight;  // submitted buffer indices, oldest first
    uint64_t next_word = 0;
    // Options::h2c_replay, where allowed (set by StreamTest::run): each buffer's span once generated.
    bool replay = false;
    std::vector<std::optional<streams::PatternSpan>> generated;
};

struct Sink {
    Sink(streams::StreamChannel& c, Source* s, CardFunction f)
        : channel(c), source(s), function(f), expect(make_expectation(f, s, c.generated_stream())) {}
    streams::StreamChannel& channel;
    Source* source;  // null: no source feeds it
    CardFunction function;
    std::unique_ptr<Expectation> expect;  // null: counted, not verified
    RateCounter counter;
    std::atomic<uint64_t> words_verified{0};
    std::atomic<bool> finished{false};
    std::deque<size_t> in_flight;
    uint64_t rx_bytes = 0;
    uint64_t transfers = 0;  // completions taken, the one being checked included
};

// Queue every buffer of the channel; false (after recording a failure) on error.
bool start_source(Source& source, Shared& shared, const Options& options);
bool start_sink(Sink& sink, Shared& shared, const Options& options);
// Run until drained, stopped or failed; the channel is stopped on return.
void run_source(Source& source, Shared& shared, const Options& options);
void run_sink(Sink& sink, Shared& shared, const Options& options);

}  // namespace stream_test::detail
