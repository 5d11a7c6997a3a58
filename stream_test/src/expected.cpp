#include "expected.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <set>

#include "base/format.hpp"
#include "pattern/crc64.hpp"
#include "workers.hpp"

namespace stream_test {
namespace {

using pdt::format;

PieceCheck bad(std::string message, uint64_t offset) { return PieceCheck{false, std::move(message), offset, {}, 0}; }

}  // namespace

PieceCheck bad_piece_length(uint64_t length, bool eop, uint64_t expected_length, bool expected_eop,
                            const std::string& what, uint64_t rx_bytes) {
    return bad(format("C2H completion length %" PRIu64 " EOP %d, expected length %" PRIu64 " EOP %d (%s)", length,
                      eop ? 1 : 0, expected_length, expected_eop ? 1 : 0, what.c_str()),
               rx_bytes);
}

PieceCheck check_fixed_data(const uint8_t* data, uint64_t length, bool eop, uint64_t buffer_size, size_t buffer,
                            uint64_t rx_bytes) {
    if (length != buffer_size || eop)
        return bad_piece_length(length, eop, buffer_size, false, "fixed data: full buffers, no end of packet",
                                rx_bytes);
    const auto* words = reinterpret_cast<const uint32_t*>(data);
    const uint64_t count = length / 4;
    pattern::Mismatch mismatch;
    for (uint64_t i = 0; i < count; ++i)
        if (words[i] != 0 && mismatch.bad_words++ == 0) {
            mismatch.first_bad_word = rx_bytes / 4 + i;
            mismatch.actual = words[i];
        }
    if (mismatch.ok())
        return PieceCheck{true, {}, 0, {}, count};
    PieceCheck checked = bad(format("fixed data error in buffer %zu at buffer offset 0x%" PRIx64
                                    ", stream offset 0x%" PRIx64 ": word 0x%08" PRIx32 ", expected 0 (%" PRIu64
                                    " bad words)",
                                    buffer, mismatch.first_bad_word * 4 - rx_bytes, mismatch.first_bad_word * 4,
                                    mismatch.actual, mismatch.bad_words),
                             mismatch.first_bad_word * 4);
    checked.mismatch = mismatch;
    return checked;
}

PieceCheck check_crc64(const uint8_t* data, uint64_t length, bool eop, uint64_t expected, size_t buffer,
                       uint64_t packet_index, uint64_t packet_bytes, uint64_t rx_bytes) {
    if (length != kCrc64ResultBytes || !eop)
        return bad_piece_length(length, eop, kCrc64ResultBytes, true,
                                format("one %" PRIu64 "-byte CRC64 per H2C packet", kCrc64ResultBytes), rx_bytes);
    uint64_t actual;
    std::memcpy(&actual, data, sizeof actual);
    if (actual == expected)
        return PieceCheck{true, {}, 0, {}, kCrc64ResultBytes / 4};
    PieceCheck checked = bad(format("CRC64 error in buffer %zu for H2C packet %" PRIu64 " (%" PRIu64
                                    " bytes): expected 0x%016" PRIx64 " actual 0x%016" PRIx64,
                                    buffer, packet_index, packet_bytes, expected, actual),
                             rx_bytes);
    checked.mismatch =
        pattern::Mismatch{1, rx_bytes / 4, static_cast<uint32_t>(expected), static_cast<uint32_t>(actual)};
    return checked;
}

uint64_t expected_crc64(pattern::WorkerPool* pool, const pattern::Pattern& pattern, uint64_t first_word,
                        size_t words, std::vector<uint32_t>& scratch) {
    scratch.resize(words);
    pattern::generate(pool, pattern, scratch.data(), words, first_word);
    return pattern::crc64_card(scratch.data(), words * 4);
}

}  // namespace stream_test

namespace stream_test::detail {
namespace {

using pdt::format;

Checked bad(std::string message, uint64_t offset) { return Checked{false, std::move(message), offset, {}, 0}; }

Checked bad_length(uint64_t length, bool eop, uint64_t expected_length, bool expected_eop, const std::string& what,
                   uint64_t offset) {
    return bad_piece_length(length, eop, expected_length, expected_eop, what, offset);
}

// Every word of a received buffer against `pattern` from stream byte rx_bytes on. The message
// names both offsets of the first bad word: in the buffer (the transfer) and in the stream.
Checked check_words(streams::StreamChannel& channel, const streams::Completion& completion, uint64_t rx_bytes,
                    const pattern::Pattern& pattern, pattern::WorkerPool* pool) {
    const auto* words = reinterpret_cast<const uint32_t*>(channel.buffer(completion.buffer));
    const pattern::Mismatch mismatch = pattern::verify(pool, pattern, words, completion.length / 4, rx_bytes / 4);
    if (mismatch.ok())
        return Checked{true, {}, 0, {}, completion.length / 4};
    const uint64_t stream_offset = mismatch.first_bad_word * 4;
    Checked checked = bad(format("data error in buffer %zu at buffer offset 0x%" PRIx64 ", stream offset 0x%" PRIx64
                                 ": expected 0x%08" PRIx32 " actual 0x%08" PRIx32 ", %" PRIu64 " bad words",
                                 completion.buffer, stream_offset - rx_bytes, stream_offset, mismatch.expected,
                                 mismatch.actual, mismatch.bad_words),
                          stream_offset);
    checked.mismatch = mismatch;
    return checked;
}

// The complement of `pattern` over the `bytes` a buffer is planned to receive from stream
// byte `at` on (non-temporal: the device overwrites it, the verifier reads it after).
void poison_words(uint8_t* buffer, uint64_t bytes, uint64_t at, const pattern::Pattern& pattern,
                  pattern::WorkerPool* pool) {
    pattern::poison(pool, pattern, reinterpret_cast<uint32_t*>(buffer), bytes / 4, at / 4, pattern::Store::NonTemporal);
}

// A sink whose data is a keyed stream (the card's own, or a source's looped back) poisons each
// buffer, whole, only before its first copy (docs/verification.md, rule 2): from then on the
// buffer holds an earlier part of the stream, whose words are keyed by their place in it and
// differ from every word the next copy must bring (rule 1), so a copy that moves nothing, part
// of it, or a stale or reused buffer's bytes still fails, and the host saves a write pass over
// every byte (F20, F27).
class PoisonOnce {
public:
    void prepare(uint8_t* buffer, uint64_t size, uint64_t at, const pattern::Pattern& pattern,
                 pattern::WorkerPool* pool) {
        if (m_poisoned.insert(buffer).second)
            poison_words(buffer, size, at, pattern, pool);
    }

private:
    std::set<const uint8_t*> m_poisoned;
};

// The source's packets come back whole, cut into C2H buffers.
class LoopbackExpectation : public Expectation {
public:
    explicit LoopbackExpectation(const Source& source) : m_source(source) {}

    // The piece this buffer receives: up to the end of the packet it falls in.
    void prepare(uint8_t* buffer, uint64_t size, pattern::WorkerPool* pool) override {
        const uint64_t packet = m_source.packet_bytes;
        const uint64_t length = std::min(packet - m_planned % packet, size);
        m_poison.prepare(buffer, size, m_planned, m_source.pattern, pool);
        m_planned += length;
    }

    Checked check(streams::StreamChannel& channel, const streams::Completion& completion, uint64_t rx_bytes,
                  pattern::WorkerPool* pool) override {
        const uint64_t packet = m_source.packet_bytes, length = completion.length;
        const uint64_t in_packet = rx_bytes % packet;
        const uint64_t expected_length = std::min(packet - in_packet, channel.buffer_size());
        const bool expected_eop = in_packet + expected_length == packet;
        if (length != expected_length || completion.end_of_packet != expected_eop)
            return bad_length(length, completion.end_of_packet, expected_length, expected_eop,
                              format("packets of %" PRIu64 " bytes", packet), rx_bytes);
        return check_words(channel, completion, rx_bytes, m_source.pattern, pool);
    }
    std::optional<uint64_t> expected_bytes(uint64_t source_bytes) const override { return source_bytes; }

private:
    const Source& m_source;
    uint64_t m_planned = 0;  // stream byte the next prepared buffer receives
    PoisonOnce m_poison;
};

// One 8-byte CRC-64 result per source packet, recomputed from the regenerated packet.
class Crc64Expectation : public Expectation {
public:
    explicit Crc64Expectation(const Source& source) : m_source(source), m_packet(source.packet_bytes / 4) {}

    // The CRC this buffer receives is computed now, kept for check(), and its complement fills
    // the result's 8 bytes.
    void prepare(uint8_t* buffer, uint64_t size, pattern::WorkerPool* pool) override {
        const uint64_t crc = crc_of(m_planned_packet, pool);
        m_planned.push_back({m_planned_packet++, crc});
        const uint64_t poison = ~crc;
        std::memcpy(buffer, &poison, std::min<uint64_t>(sizeof poison, size));
    }

    Checked check(streams::StreamChannel& channel, const streams::Completion& completion, uint64_t rx_bytes,
                  pattern::WorkerPool* pool) override {
        const uint64_t index = rx_bytes / kCrc64ResultBytes;
        const bool planned = !m_planned.empty() && m_planned.front().first == index;
        const uint64_t expected = planned ? m_planned.front().second : crc_of(index, pool);
        if (!m_planned.empty())
            m_planned.pop_front();  // one prepared buffer per completion, in order
        return check_crc64(channel.buffer(completion.buffer), completion.length, completion.end_of_packet, expected,
                           completion.buffer, index, m_source.packet_bytes, rx_bytes);
    }
    std::optional<uint64_t> expected_bytes(uint64_t source_bytes) const override {
        return source_bytes / m_source.packet_bytes * kCrc64ResultBytes;
    }

private:
    uint64_t crc_of(uint64_t packet_index, pattern::WorkerPool* pool) {
        return expected_crc64(pool, m_source.pattern, packet_index * m_packet.size(), m_packet.size(), m_packet);
    }

    const Source& m_source;
    std::vector<uint32_t> m_packet;
    // (H2C packet, its CRC) of each prepared buffer not checked yet, in queue order.
    std::deque<std::pair<uint64_t, uint64_t>> m_planned;
    uint64_t m_planned_packet = 0;  // the H2C packet whose CRC the next prepared buffer receives
};

// Zeros in full buffers, never an end of packet.
class FixedDataExpectation : public Expectation {
public:
    void prepare(uint8_t* buffer, uint64_t size, pattern::WorkerPool*) override {
        std::memset(buffer, kFixedDataPoison, size);
    }

    Checked check(streams::StreamChannel& channel, const streams::Completion& completion, uint64_t rx_bytes,
                  pattern::WorkerPool*) override {
        return check_fixed_data(channel.buffer(completion.buffer), completion.length, completion.end_of_packet,
                                channel.buffer_size(), completion.buffer, rx_bytes);
    }
    std::optional<uint64_t> expected_bytes(uint64_t) const override { return std::nullopt; }
};

// The card's own keyed pattern of one stream, whole buffers in order (a GPU generating it),
// each buffer poisoned before its first copy only (PoisonOnce).
class GeneratedExpectation : public Expectation {
public:
    explicit GeneratedExpectation(uint64_t stream) : m_pattern(stream, 0) {}

    void prepare(uint8_t* buffer, uint64_t size, pattern::WorkerPool* pool) override {
        m_poison.prepare(buffer, size, m_planned, m_pattern, pool);
        m_planned += size;
    }

    Checked check(streams::StreamChannel& channel, const streams::Completion& completion, uint64_t rx_bytes,
                  pattern::WorkerPool* pool) override {
        if (completion.length != channel.buffer_size())
            return bad_length(completion.length, completion.end_of_packet, channel.buffer_size(),
                              completion.end_of_packet, "generated data: whole buffers", rx_bytes);
        return check_words(channel, completion, rx_bytes, m_pattern, pool);
    }
    std::optional<uint64_t> expected_bytes(uint64_t) const override { return std::nullopt; }

private:
    pattern::Pattern m_pattern;
    uint64_t m_planned = 0;
    PoisonOnce m_poison;
};

}  // namespace

std::unique_ptr<Expectation> make_expectation(CardFunction function, const Source* source,
                                              std::optional<uint64_t> generated_stream) {
    switch (function) {
    case CardFunction::Generated:
        return generated_stream ? std::make_unique<GeneratedExpectation>(*generated_stream) : nullptr;
    case CardFunction::FixedData: return std::make_unique<FixedDataExpectation>();
    case CardFunction::Crc64: return source ? std::make_unique<Crc64Expectation>(*source) : nullptr;
    case CardFunction::Loopback: return source ? std::make_unique<LoopbackExpectation>(*source) : nullptr;
    }
    return nullptr;
}

}  // namespace stream_test::detail
