// What a sink (C2H channel) should receive, given what its source (H2C channel) sent: the seam
// between the stream-test driver and the card function of a design (private to stream_test).
//   Loopback   the source's packets, byte for byte, cut into C2H buffers, EOP on the last piece;
//   Crc64      one 8-byte packet per source packet: its CRC-64 (pattern/crc64.hpp);
//   FixedData  full buffers of zeros without EOP, whatever the source sent;
//   Generated  the keyed pattern of the channel's generated_stream, whole buffers in order.
// Every buffer is poisoned before every submit (docs/verification.md, rule 2): filled with
// what the expected data cannot be where it lands (the complement of the pattern, of the CRC,
// non-zero bytes for zeros), so a completion that wrote nothing, or not its last bytes, fails.
// Loopback and Generated data are keyed streams: their buffers are poisoned before the first
// submit only, and hold an earlier part of the stream after (rule 1).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stream_test/expected_data.hpp"
#include "stream_test/driver.hpp"

namespace stream_test::detail {

struct Source;

using Checked = PieceCheck;  // the result of checking one completion

class Expectation {
public:
    virtual ~Expectation() = default;
    // Called on every buffer before it is queued (again) to the channel, in the order they are
    // queued (the order they complete in): poisons what the buffer is planned to receive.
    virtual void prepare(uint8_t* buffer, uint64_t size, pattern::WorkerPool* pool) = 0;
    // Checks one completion; rx_bytes: what the sink received before it.
    virtual Checked check(streams::StreamChannel& channel, const streams::Completion& completion,
                          uint64_t rx_bytes, pattern::WorkerPool* pool) = 0;
    // Bytes the sink receives for `source_bytes` sent; nullopt: no end (drained only on stop).
    virtual std::optional<uint64_t> expected_bytes(uint64_t source_bytes) const = 0;
};

// source may be null for FixedData and Generated (the data does not depend on it; Generated
// checks the pattern of generated_stream); for the others null means not verified, and this
// returns null.
std::unique_ptr<Expectation> make_expectation(CardFunction function, const Source* source,
                                              std::optional<uint64_t> generated_stream);

}  // namespace stream_test::detail
