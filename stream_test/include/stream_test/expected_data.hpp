// The checks behind the expected-data seam (src/expected.hpp), on one received C2H piece, for
// any driver: the stream-test driver's sinks and test_dma_bridge's sub-tests, which hold their
// own buffers and packet plans. A data error names the buffer and the first bad word's offset
// both in the buffer and in the sink's stream ("at buffer offset 0x40, stream offset 0x11040").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pattern/pattern.hpp"
#include "pattern/worker_pool.hpp"

namespace stream_test {

inline constexpr uint64_t kCrc64ResultBytes = 8;  // one CRC-64 result per H2C packet

// The result of checking one received piece.
struct PieceCheck {
    bool ok = true;
    std::string message;                        // when !ok
    uint64_t stream_byte_offset = 0;            // where in the sink's stream the error is
    std::optional<pattern::Mismatch> mismatch;  // data errors
    uint64_t words_verified = 0;                // 32-bit words of the piece checked
};

// A piece whose length or end of packet is not the expected one; `what` says what was expected.
PieceCheck bad_piece_length(uint64_t length, bool eop, uint64_t expected_length, bool expected_eop,
                            const std::string& what, uint64_t rx_bytes);

// FixedData buffers are filled with this before they are queued: not what the card sends, so a
// buffer never written fails.
inline constexpr uint8_t kFixedDataPoison = 0xA5;

// FixedData: a full buffer of `buffer_size` bytes of zeros, no end of packet.
PieceCheck check_fixed_data(const uint8_t* data, uint64_t length, bool eop, uint64_t buffer_size, size_t buffer,
                            uint64_t rx_bytes);

// Crc64: one 8-byte packet with EOP holding `expected`, the CRC of H2C packet `packet_index`
// (`packet_bytes` long).
PieceCheck check_crc64(const uint8_t* data, uint64_t length, bool eop, uint64_t expected, size_t buffer,
                       uint64_t packet_index, uint64_t packet_bytes, uint64_t rx_bytes);

// The card's CRC-64 of `words` pattern words from `first_word` (regenerated into `scratch`).
uint64_t expected_crc64(pattern::WorkerPool* pool, const pattern::Pattern& pattern, uint64_t first_word,
                        size_t words, std::vector<uint32_t>& scratch);

}  // namespace stream_test
