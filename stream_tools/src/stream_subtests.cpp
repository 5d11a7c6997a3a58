#include "stream_tools/stream_subtests.hpp"

#include <cinttypes>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>

#include "base/format.hpp"
#include "dma_bridge/xdma_continuous_ring.hpp"
#include "dma_bridge/xdma_engine.hpp"
#include "stream_test/expected_data.hpp"
#include "subtest_failure.hpp"

namespace stream_tools {
namespace {

using Clock = std::chrono::steady_clock;
using streams::CardFunction;

using pdt::hex;

vfio::DmaRegion::Options region(vfio::DmaAccess access, const StreamSubtestOptions& o) {
    return vfio::DmaRegion::Options{access, o.buffer_kind, o.dma_mask_bits};
}

uint64_t round_down(uint64_t value, uint64_t multiple) { return value - value % std::max<uint64_t>(multiple, 1); }

// What one received piece should be, from the packet plan.
struct ExpectedPiece {
    uint64_t length = 0;  // loopback, fixed data: the piece (crc64: always 8)
    bool end_of_packet = false;
    uint64_t packet_index = 0;  // H2C packets sent before this one (crc64)
    uint64_t packet_word = 0;   // stream word index of the packet's first word (crc64)
    uint64_t packet_bytes = 0;  // (crc64)
    uint64_t piece_word = 0;    // stream word index of the piece's first word (loopback)
};

// Checks each received piece against the card function (the expected-data seam) and counts
// what it verified.
class PieceChecker {
public:
    PieceChecker(const StreamSubtestOptions& o, const pattern::Pattern& pat) : m_o(o), m_pat(pat) {}

    std::optional<std::string> check(const uint8_t* data, uint64_t length, bool eop, const ExpectedPiece& want,
                                     size_t buffer) {
        stream_test::PieceCheck checked;
        switch (m_o.function) {
        case CardFunction::Loopback: checked = loopback(data, length, eop, want); break;
        case CardFunction::Crc64:
            checked = stream_test::check_crc64(
                data, length, eop,
                stream_test::expected_crc64(m_o.pool, m_pat, want.packet_word, want.packet_bytes / 4, m_scratch),
                buffer, want.packet_index, want.packet_bytes, m_rx_bytes);
            if (checked.ok) {
                ++m_packets;
                m_packet_bytes += want.packet_bytes;
            }
            break;
        case CardFunction::FixedData:
            checked = stream_test::check_fixed_data(data, length, eop, want.length, buffer, m_rx_bytes);
            break;
        case CardFunction::Generated:  // a GPU's own data: never an XDMA stream design's
            checked.ok = false;
            checked.message = "card-generated data is not a function of an XDMA stream design";
            break;
        }
        if (!checked.ok)
            return checked.message;
        m_rx_bytes += length;
        m_verified += checked.words_verified * 4;
        return std::nullopt;
    }
    uint64_t verified() const { return m_verified; }
    // Bytes the test has covered: H2C bytes checked through their CRC (crc64), else those verified.
    uint64_t covered() const { return m_o.function == CardFunction::Crc64 ? m_packet_bytes : m_verified; }
    std::string report() const { return verified_lines(m_o.function, m_verified / 4, m_packets, m_packet_bytes); }

private:
    // Length and EOP against the packet plan, then the words.
    stream_test::PieceCheck loopback(const uint8_t* data, uint64_t length, bool eop, const ExpectedPiece& want) const {
        const uint64_t offset = want.piece_word * 4;
        if (length != want.length || eop != want.end_of_packet)
            return {false,
                    "stream byte offset " + hex(offset) + ": length " + std::to_string(length) + " EOP " +
                        std::to_string(eop) + ", expected length " + std::to_string(want.length) + " EOP " +
                        std::to_string(want.end_of_packet),
                    offset, {}, 0};
        const pattern::Mismatch m = pattern::verify(m_o.pool, m_pat, reinterpret_cast<const uint32_t*>(data),
                                                    static_cast<size_t>(length / 4), want.piece_word);
        if (!m.ok())
            return {false, "piece at stream byte offset " + hex(offset) + ": " + m.describe(want.piece_word, "piece"),
                    offset, m, 0};
        return {true, {}, 0, {}, length / 4};
    }

    const StreamSubtestOptions& m_o;
    const pattern::Pattern& m_pat;
    std::vector<uint32_t> m_scratch;
    uint64_t m_rx_bytes = 0, m_verified = 0, m_packets = 0, m_packet_bytes = 0;
};

pdt::Result<std::unique_ptr<xdma::Engine>> stream_engine(vfio::Device& device, const StreamSubtestOptions& o,
                                                         xdma::Direction direction, unsigned ring) {
    const unsigned channel = direction == xdma::Direction::H2C ? o.h2c_channel : o.c2h_channel;
    xdma::EngineOptions e =
        xdma::engine_options(direction, channel, true, o.dma_bar, 0, ring, o.dma_mask_bits, o.timeout);
    PDT_TRY(xdma::configure_engine(device, o.ip, o.modes, e));
    return xdma::Engine::open(device, e);
}

// The sizes of stream_fixed_buffers_c2h_continuous; problem set when they cannot work.
struct ContinuousPlan {
    uint64_t h2c_size = 0, c2h_size = 0;
    uint64_t packets = 0;       // H2C packets per iteration
    uint64_t receive = 0;       // C2H bytes per iteration
    std::string problem, direction = "H2C";
};

ContinuousPlan plan_continuous(const StreamSubtestOptions& o) {
    ContinuousPlan p;
    p.h2c_size = round_down(o.h2c_mapping / o.h2c_buffers, std::max<uint64_t>(o.packet_granularity, 4));
    p.c2h_size = round_down(round_down(o.c2h_mapping / o.c2h_buffers, 4), std::max<uint64_t>(o.stream_width, 4));
    if (p.h2c_size == 0 || p.c2h_size == 0) {
        p.problem = "stream_mapping_size / stream_num_descriptors is below " +
                    std::to_string(std::max<uint64_t>(o.packet_granularity, 4)) + " bytes";
        return p;
    }
    uint64_t pieces_per_packet = (p.h2c_size + p.c2h_size - 1) / p.c2h_size;
    if (o.function == CardFunction::Crc64)
        pieces_per_packet = p.c2h_size >= stream_test::kCrc64ResultBytes ? 1 : o.c2h_buffers + 1;
    p.packets = o.function == CardFunction::FixedData ? o.h2c_buffers
                                                      : std::min<uint64_t>(o.h2c_buffers, o.c2h_buffers / pieces_per_packet);
    p.receive = o.function == CardFunction::Crc64 ? p.packets * stream_test::kCrc64ResultBytes : p.packets * p.h2c_size;
    if (p.packets == 0) {
        p.direction = "C2H";
        p.problem = "the C2H ring (" + hex(o.c2h_mapping) + " bytes) cannot hold one " +
                    (o.function == CardFunction::Crc64 ? "CRC64 result" : "H2C buffer");
    }
    return p;
}

ExpectedPiece continuous_piece(const StreamSubtestOptions& o, const ContinuousPlan& p, uint64_t rx_bytes) {
    ExpectedPiece want;
    switch (o.function) {
    case CardFunction::Loopback: {
        const uint64_t in_packet = rx_bytes % p.h2c_size;
        want.length = std::min(p.c2h_size, p.h2c_size - in_packet);
        want.end_of_packet = in_packet + want.length == p.h2c_size;
        want.piece_word = rx_bytes / 4;
        break;
    }
    case CardFunction::Crc64:
        want.length = stream_test::kCrc64ResultBytes;
        want.end_of_packet = true;
        want.packet_index = rx_bytes / stream_test::kCrc64ResultBytes;
        want.packet_word = want.packet_index * (p.h2c_size / 4);
        want.packet_bytes = p.h2c_size;
        break;
    case CardFunction::FixedData:
    case CardFunction::Generated: want.length = p.c2h_size; break;
    }
    return want;
}

// The continuous ring's typed settings from the subtest's options.
xdma::ContinuousRingSettings ring_settings(const StreamSubtestOptions& o) {
    return {o.dma_bar, o.c2h_channel, o.c2h_buffers, o.buffer_kind, o.dma_mask_bits};
}

std::string overwritten_line(const xdma::ContinuousRing& ring, uint64_t c2h_size) {
    if (ring.overwritten() == 0)
        return {};
    return std::to_string(ring.overwritten()) + " C2H buffers (" + hex(ring.overwritten() * c2h_size) +
           " bytes) were overwritten by the free-running fixed-data source before they were read: not verified\n";
}

}  // namespace

std::string verified_lines(CardFunction function, uint64_t words, uint64_t h2c_packets, uint64_t h2c_bytes) {
    char text[160];
    std::string lines;
    if (function == CardFunction::Crc64) {
        std::snprintf(text, sizeof text, "CRC64 verified for %" PRIu64 " H2C packets (%" PRIu64 " bytes)\n",
                      h2c_packets, h2c_bytes);
        lines = text;
    }
    std::snprintf(text, sizeof text, "%s verified in %" PRIu64 " words\n",
                  function == CardFunction::Loopback ? "Test pattern"
                  : function == CardFunction::Crc64  ? "CRC64 results"
                                                     : "Fixed data",
                  words);
    return lines + text;
}

MemoryTestResult stream_fixed_buffers_c2h_continuous(vfio::Device& device, const StreamSubtestOptions& o,
                                                     std::FILE* out) {
    const ContinuousPlan p = plan_continuous(o);
    std::fprintf(out, "\nTesting streams using H2C %zu buffers of size %s bytes, C2H %zu buffers of size %s bytes in "
                      "continuous mode, H2C channel %u C2H channel %u\n",
                 o.h2c_buffers, hex(p.h2c_size).c_str(), o.c2h_buffers, hex(p.c2h_size).c_str(), o.h2c_channel,
                 o.c2h_channel);
    std::fflush(out);
    if (!p.problem.empty())
        return test_failure(out, p.direction, p.problem);
    const uint64_t per_packet = (p.h2c_size + 0x0FFFFFBF) / 0x0FFFFFC0;  // descriptors of the default max length
    auto h2c = stream_engine(device, o, xdma::Direction::H2C,
                             static_cast<unsigned>(std::min<uint64_t>(1023, p.packets * per_packet)));
    if (!h2c.ok())
        return test_failure(out, "H2C", h2c.error().message());
    auto h2c_data = vfio::DmaRegion::allocate(device, p.h2c_size * o.h2c_buffers, region(vfio::DmaAccess::DeviceRead, o));
    if (!h2c_data.ok())
        return test_failure(out, "H2C", h2c_data.error().message());
    const bool free_running = o.function == CardFunction::FixedData;
    auto c2h = xdma::ContinuousRing::open(device, ring_settings(o), p.c2h_size, free_running);
    if (!c2h.ok())
        return test_failure(out, "C2H", c2h.error().message());
    if (free_running)  // a buffer never written fails; not again later, as the engine may be writing it
        std::memset((*c2h)->buffer(0), stream_test::kFixedDataPoison, (*c2h)->data_bytes());
    else if (auto started = (*c2h)->start(); !started)  // ready before H2C sends, as fpga_sio's; a
        return test_failure(out, "C2H", started.error().message());  // free-running source starts when polled
    const pattern::Pattern pat(5, 0);
    PieceChecker checker(o, pat);
    uint64_t tx_word = 0, rx_bytes = 0;
    TransferTiming timing("host-to-card and card-to-host DMA", p.packets * p.h2c_size);
    while (checker.covered() < std::max<uint64_t>(o.min_bytes, 4)) {
        const auto t0 = Clock::now();
        for (uint64_t k = 0; k < p.packets; ++k) {  // one packet per H2C buffer
            uint8_t* buffer = h2c_data->data() + k * p.h2c_size;
            pattern::generate(o.pool, pat, reinterpret_cast<uint32_t*>(buffer), p.h2c_size / 4, tx_word);
            tx_word += p.h2c_size / 4;
            if (auto sent = (*h2c)->submit_stream(h2c_data->iova() + k * p.h2c_size, p.h2c_size, true); !sent.ok())
                return test_failure(out, "H2C", sent.error().message());
        }
        if (free_running && rx_bytes == 0)
            if (auto started = (*c2h)->start(); !started)
                return test_failure(out, "C2H", started.error().message());
        auto last_progress = Clock::now();
        for (uint64_t received = 0; received < p.receive;) {
            if (auto done = (*h2c)->poll(); !done.ok())
                return test_failure(out, "H2C", done.error().message());
            auto piece = (*c2h)->poll();
            if (!piece.ok())
                return test_failure(out, "C2H", piece.error().message());
            if (!*piece) {
                if (Clock::now() - last_progress > o.timeout) {
                    const std::string what = (*c2h)->name() + " Timeout: no C2H completion for " +
                                             std::to_string(o.timeout.count()) + " ms";
                    (*c2h)->report_failure(what);
                    return test_failure(out, "C2H", what);
                }
                std::this_thread::yield();
                continue;
            }
            last_progress = Clock::now();
            const auto [index, length, eop] = **piece;
            if (auto problem = checker.check((*c2h)->buffer(index), length, eop, continuous_piece(o, p, rx_bytes), index))
                return test_failure(out, "C2H", (*c2h)->name() + " " + *problem);
            (*c2h)->release(index);
            rx_bytes += length;
            received += length;
        }
        while ((*h2c)->transfers_in_flight() > 0)
            if (auto done = (*h2c)->wait(); !done.ok())
                return test_failure(out, "H2C", done.error().message());
        timing.add(Clock::now() - t0);
    }
    if (auto stopped = (*c2h)->stop(); !stopped.ok())
        return test_failure(out, "C2H", stopped.error().message());
    (void)(*h2c)->stop();
    std::fprintf(out, "%s%s%sTEST PASS\n", timing.report().c_str(), overwritten_line(**c2h, p.c2h_size).c_str(),
                 checker.report().c_str());
    return MemoryTestResult{true, {}, checker.verified()};
}

namespace {

struct PlannedPiece {
    uint64_t offset = 0;  // in the C2H mapping
    uint64_t length = 0;  // of the C2H descriptor
    ExpectedPiece want;
};

// The receives of one round: per H2C packet, pieces of at most c2h_length (loopback, fixed
// data), or one receive for its CRC64 result.
std::deque<PlannedPiece> plan_receives(const StreamSubtestOptions& o, const std::deque<std::pair<uint64_t, uint64_t>>& sends,
                                       uint64_t c2h_length, uint64_t first_word, uint64_t first_packet) {
    std::deque<PlannedPiece> receives;
    uint64_t index = first_packet;
    for (const auto& [offset, packet] : sends) {
        if (o.function == CardFunction::Crc64) {
            const ExpectedPiece want{stream_test::kCrc64ResultBytes, true, index++, first_word + offset / 4, packet, 0};
            receives.push_back(PlannedPiece{offset, std::min(c2h_length, packet), want});
            continue;
        }
        for (uint64_t in = 0; in < packet; in += c2h_length) {
            const uint64_t piece = std::min(c2h_length, packet - in);
            const bool eop = o.function == CardFunction::Loopback && in + piece == packet;
            receives.push_back(PlannedPiece{offset + in, piece, ExpectedPiece{piece, eop, 0, 0, 0, first_word + (offset + in) / 4}});
        }
    }
    return receives;
}

struct Round {
    uint64_t bytes = 0, h2c_length = 0, c2h_length = 0;
    uint64_t first_word = 0, first_packet = 0;
};

// One round of stream_variable_transfers: `bytes` from the start of both mappings.
pdt::Result<void> variable_round(xdma::Engine& h2c, xdma::Engine& c2h, const vfio::DmaRegion& h2c_data,
                                 const vfio::DmaRegion& c2h_data, const StreamSubtestOptions& o, const Round& r,
                                 const pattern::Pattern& pat, PieceChecker& checker, uint64_t& packets) {
    pattern::generate(o.pool, pat, reinterpret_cast<uint32_t*>(h2c_data.data()), r.bytes / 4, r.first_word);
    if (o.function == CardFunction::FixedData)  // a receive never written fails
        std::memset(c2h_data.data(), stream_test::kFixedDataPoison, r.bytes);
    std::deque<std::pair<uint64_t, uint64_t>> sends;  // offset, length: one packet each
    for (uint64_t offset = 0; offset < r.bytes; offset += r.h2c_length)
        sends.emplace_back(offset, std::min(r.h2c_length, r.bytes - offset));
    packets += sends.size();
    std::deque<PlannedPiece> receives = plan_receives(o, sends, r.c2h_length, r.first_word, r.first_packet), expected;
    auto last_progress = Clock::now();
    for (size_t number = 0; !receives.empty() || !expected.empty();) {
        while (!receives.empty() && c2h.free_descriptors() >= 1) {
            PDT_TRY(c2h.submit_stream(c2h_data.iova() + receives.front().offset, receives.front().length, false));
            expected.push_back(receives.front());
            receives.pop_front();
        }
        while (!sends.empty() && h2c.free_descriptors() >= h2c.descriptors_for(sends.front().second)) {
            PDT_TRY(h2c.submit_stream(h2c_data.iova() + sends.front().first, sends.front().second, true));
            sends.pop_front();
        }
        if (PDT_TRY(h2c.poll()))
            last_progress = Clock::now();
        auto done = PDT_TRY(c2h.poll());
        if (!done) {
            if (Clock::now() - last_progress > o.timeout) {
                const std::string what = "Timeout: no C2H completion for " + std::to_string(o.timeout.count()) + " ms";
                c2h.report_failure(what);
                return pdt::make_error("receive", c2h.name(), ETIMEDOUT, what);
            }
            std::this_thread::yield();
            continue;
        }
        last_progress = Clock::now();
        const PlannedPiece piece = expected.front();
        expected.pop_front();
        if (auto problem =
                checker.check(c2h_data.data() + piece.offset, done->length, done->end_of_packet, piece.want, number++))
            return pdt::make_error("receive", c2h.name(), EIO, *problem);
    }
    while (h2c.transfers_in_flight() > 0)
        PDT_TRY(h2c.wait());
    return {};
}

}  // namespace

MemoryTestResult stream_variable_transfers(vfio::Device& device, const StreamSubtestOptions& o, std::FILE* out) {
    const uint64_t granule = std::max<uint64_t>(o.packet_granularity, 4);
    Round r;
    r.bytes = round_down(std::min(o.h2c_mapping, o.c2h_mapping), granule);
    r.h2c_length = round_down(std::min(o.h2c_transfer, r.bytes), granule);
    const uint64_t c2h_most = std::min<uint64_t>({o.c2h_transfer, r.bytes, 0x0FFFFFC0}) & ~uint64_t{3};
    r.c2h_length = round_down(c2h_most, std::max<uint64_t>(o.stream_width, 4));
    std::fprintf(out, "\nTesting streams with variable size buffers:\n"
                      "  H2C mapping size %s max transfer length %s channel ID %u\n"
                      "  C2H mapping size %s max transfer length %s channel ID %u\n",
                 hex(r.bytes).c_str(), hex(r.h2c_length).c_str(), o.h2c_channel, hex(r.bytes).c_str(),
                 hex(r.c2h_length).c_str(), o.c2h_channel);
    std::fflush(out);
    if (r.h2c_length == 0 || r.c2h_length == 0)
        return test_failure(out, "H2C", "transfer_length and stream_mapping_size must be at least " + std::to_string(granule) +
                                    " bytes");
    if (o.function == CardFunction::Crc64 && r.c2h_length < stream_test::kCrc64ResultBytes)
        return test_failure(out, "C2H", "a C2H transfer length of " + hex(r.c2h_length) + " bytes cannot hold a CRC64 result");
    auto h2c = stream_engine(device, o, xdma::Direction::H2C, 64);
    if (!h2c.ok())
        return test_failure(out, "H2C", h2c.error().message());
    auto c2h = stream_engine(device, o, xdma::Direction::C2H, 64);
    if (!c2h.ok())
        return test_failure(out, "C2H", c2h.error().message());
    auto h2c_data = vfio::DmaRegion::allocate(device, r.bytes, region(vfio::DmaAccess::DeviceRead, o));
    auto c2h_data = vfio::DmaRegion::allocate(device, r.bytes, region(vfio::DmaAccess::DeviceWrite, o));
    if (!h2c_data.ok() || !c2h_data.ok())
        return test_failure(out, h2c_data.ok() ? "C2H" : "H2C", (h2c_data.ok() ? c2h_data.error() : h2c_data.error()).message());
    const pattern::Pattern pat(6, 0);
    PieceChecker checker(o, pat);
    TransferTiming timing("host-to-card and card-to-host DMA", r.bytes);
    uint64_t packets = 0;
    for (; checker.covered() < std::max<uint64_t>(o.min_bytes, 4); r.first_word += r.bytes / 4) {
        const auto t0 = Clock::now();
        r.first_packet = packets;
        auto done = variable_round(**h2c, **c2h, *h2c_data, *c2h_data, o, r, pat, checker, packets);
        if (!done.ok()) {
            (void)(*h2c)->stop();
            (void)(*c2h)->stop();
            return test_failure(out, done.error().object.find("H2C") != std::string::npos ? "H2C" : "C2H",
                        done.error().message());
        }
        timing.add(Clock::now() - t0);
    }
    (void)(*h2c)->stop();
    (void)(*c2h)->stop();
    std::fprintf(out, "%s%sTEST PASS\n", timing.report().c_str(), checker.report().c_str());
    return MemoryTestResult{true, {}, checker.verified()};
}

}  // namespace stream_tools
