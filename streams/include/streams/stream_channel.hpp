// The stream endpoint seam: one direction of a DMA stream with its registered buffers. The
// XDMA driver, the edu adapter and the CUDA and ET-SoC-1 adapters implement it; the stream-test
// drivers in software_tests/ are written once against it.
//
// Data is the keyed pattern of pattern/pattern.hpp (words keyed by stream and pass). Most cards
// only move it; a card that can compute the pattern itself (a GPU) may also check what H2C
// brought (checks_h2c_data) or generate what C2H sends (generated_stream), so that the host
// verifies only the direction that ends in its memory.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace streams {

enum class Direction { H2C, C2H };  // host-to-card, card-to-host
inline const char* to_string(Direction d) { return d == Direction::H2C ? "H2C" : "C2H"; }

struct Completion {
    size_t buffer = 0;           // index of the buffer that completed
    uint64_t length = 0;         // bytes moved (C2H: bytes the card sent into the buffer)
    bool end_of_packet = false;  // C2H: the card ended the packet in this buffer
    uint64_t card_verified_bytes = 0;  // H2C on a checks_h2c_data channel: bytes the card checked
};

// Words [first_word, first_word + length / 4) of the keyed pattern (stream, pass).
struct PatternSpan {
    uint64_t stream = 0;
    uint64_t pass = 0;
    uint64_t first_word = 0;
};

class StreamChannel {
public:
    virtual ~StreamChannel() = default;

    virtual Direction direction() const = 0;
    // Names the channel for output lines: "0000:15:00.0 H2C 0".
    virtual std::string name() const = 0;

    // Buffers are DMA-mapped when the channel is created (H2C device-read-only, C2H
    // device-write-only) and stay valid for the channel's lifetime.
    virtual size_t buffer_count() const = 0;
    virtual uint64_t buffer_size() const = 0;
    virtual uint8_t* buffer(size_t index) = 0;

    // Queue a buffer: H2C sends `length` bytes from it; C2H receives up to `length` bytes.
    // Completions come back in submission order.
    virtual pdt::Result<void> submit(size_t index, uint64_t length, bool end_of_packet) = 0;
    // The next completion if one is ready, else nullopt. Errors name the channel and cause.
    virtual pdt::Result<std::optional<Completion>> poll() = 0;
    // Blocks (polling or by interrupt) for the next completion; ETIMEDOUT after timeout.
    virtual pdt::Result<Completion> wait(std::chrono::milliseconds timeout) = 0;
    // Stops the engine and abandons queued buffers; the channel is idle and reusable after.
    virtual pdt::Result<void> stop() = 0;
    // True while the engine has work queued or running.
    virtual bool busy() const = 0;
    // The driver gave up on this channel (no completion within its transfer timeout): report
    // the hardware's state where the implementation can (the XDMA adapter: its engine's
    // registers decoded, to the process's failure observer). Default: nothing to report.
    virtual void report_failure(const std::string& /*what*/) {}

    // H2C: true when the card checks every word it receives against the span it is told (a
    // mismatch is an error from poll / wait naming the stream byte offset, and completions
    // report card_verified_bytes). The source calls describe() before each submit.
    virtual bool checks_h2c_data() const { return false; }
    virtual void describe(size_t /*index*/, const PatternSpan& /*content*/) {}
    // H2C, with checks_h2c_data: true when the card side fills every copy's destination with
    // poison before the copy lands, so that a copy that moved nothing (or only part) fails the
    // card's check even when the host sends a buffer it sent before, unchanged. Only then may
    // a source resend its buffers without generating them again (stream_test::Options::h2c_replay).
    virtual bool poisons_destination() const { return false; }
    // C2H: the stream whose keyed pattern (pass 0, from word 0 on) the card generates and
    // sends in order, for a channel fed by no H2C channel; nullopt: the card only forwards.
    virtual std::optional<uint64_t> generated_stream() const { return std::nullopt; }

    // The IP's own count of what the channel moves, where it keeps one (XDMA: the channel's
    // performance monitor, PG195), as CopyEndpoint's: start_ip_counts() clears and arms it, false
    // when the IP keeps none; ip_counts() reads it once the channel stopped, in the IP's words.
    virtual bool start_ip_counts() { return false; }
    virtual std::vector<std::string> ip_counts() const { return {}; }
};

}  // namespace streams
