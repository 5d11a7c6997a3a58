// test_dma_descriptor_credits on stream designs whose card is not a loopback: the CRC64 message
// mode (fpga_sio: 64-bit LCG words, messages a multiple of the tdata width, one 8-byte CRC per
// message) and the fixed-data designs (H2C into a sink, C2H pages of zeros without EOP). Both
// run on rings of 1023 descriptors released by credits, as the loopback mode does.
#include <cinttypes>
#include <cstring>
#include <deque>

#include "base/format.hpp"
#include "pattern/crc64.hpp"
#include "pattern/pattern.hpp"
#include "stream_tools/descriptor_credits.hpp"
#include "stream_tools/stream_tools.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace stream_tools {
namespace {

constexpr uint64_t kMessages = 3 * kCreditRing;
constexpr uint64_t kCrcBytes = 8;
constexpr int kPoison = 0xA5;  // fixed data is zeros: a page never written fails

using pdt::format;

}  // namespace

pdt::Result<uint64_t> crc64_stream_credits(adapters::XdmaStreamDevice& device, const streams::LoopRoute& route,
                                        std::chrono::milliseconds timeout, std::FILE* out) {
    // Message m: (page / beat - 1 + m) tdata beats, so most messages are longer than a page.
    const uint64_t beat = device.packet_granularity(), first_beats = kCreditPage / beat - 1;
    const auto length_of = [&](uint64_t m) { return (first_beats + m) * beat; };
    auto h2c = PDT_TRY(device.open_channel(streams::Direction::H2C, route.h2c,
                                           streams::ChannelBuffers{16, length_of(kMessages - 1)}));
    auto c2h = PDT_TRY(device.open_channel(streams::Direction::C2H, route.c2h, streams::ChannelBuffers{kCreditRing, kCreditPage}));
    for (size_t i = 0; i < kCreditRing; ++i)
        PDT_CHECK(c2h->submit(i, kCreditPage, false));
    std::deque<uint64_t> expected;  // the CRC of each message sent and not yet received
    uint64_t sequence = 0, sent = 0, h2c_queued = 0, h2c_done = 0, received = 0, words = 0, descriptors = 0;
    while (received < kMessages) {
        if (stop_requested())  // Ctrl-C or SIGTERM: the channels stop (proven) as they close
            return stopped_early(c2h->name());
        while (sent < kMessages && h2c_queued - h2c_done < h2c->buffer_count()) {
            const size_t index = sent % h2c->buffer_count();
            auto* message = reinterpret_cast<uint64_t*>(h2c->buffer(index));
            for (uint64_t w = 0; w < length_of(sent) / 8; ++w)
                message[w] = sequence = pattern::lcg64_next(sequence);
            expected.push_back(pattern::crc64_card(message, length_of(sent)));
            PDT_CHECK(h2c->submit(index, length_of(sent), true));
            words += length_of(sent) / 8;
            ++sent, ++h2c_queued;
        }
        if (h2c_done < h2c_queued && PDT_TRY(h2c->poll()))
            ++h2c_done;
        const streams::Completion piece = PDT_TRY(streams::wait_loopback(*h2c, *c2h, timeout));
        ++descriptors;
        const std::string where = format("message %" PRIu64 " (%" PRIu64 " bytes)", received, length_of(received));
        if (piece.length != kCrcBytes || !piece.end_of_packet)
            return pdt::make_error("receive", c2h->name(), EIO,
                                   where + format(": length %" PRIu64 " EOP %d, expected one 8-byte CRC64 result "
                                                "with EOP",
                                                piece.length, piece.end_of_packet ? 1 : 0));
        uint64_t actual;
        std::memcpy(&actual, c2h->buffer(piece.buffer), sizeof actual);
        if (actual != expected.front())
            return pdt::make_error("receive", c2h->name(), EIO,
                                   where + format(": CRC64 0x%016" PRIx64 ", expected 0x%016" PRIx64, actual,
                                                expected.front()));
        expected.pop_front();
        ++received;
        PDT_CHECK(c2h->submit(piece.buffer, kCreditPage, false));
    }
    (void)h2c->stop();
    (void)c2h->stop();
    std::fprintf(out, "Successfully sent %" PRIu64 " messages from Ch%u->%u with a total of %" PRIu64
                      " 64-bit words, %" PRIu64 " CRC64 results verified in %" PRIu64 " descriptors\n",
                 kMessages, route.h2c, route.c2h, words, received, descriptors);
    return received * kCrcBytes;
}

pdt::Result<uint64_t> fixed_data_stream_credits(adapters::XdmaStreamDevice& device, const streams::LoopRoute& route,
                                             std::chrono::milliseconds timeout, std::FILE* out) {
    const uint64_t first_words = kCreditPage / 4 - 1;
    const auto length_of = [&](uint64_t m) { return (first_words + m) * 4; };
    auto h2c = PDT_TRY(device.open_channel(streams::Direction::H2C, route.h2c,
                                           streams::ChannelBuffers{16, (length_of(kMessages - 1) + 63) & ~63ull}));
    auto c2h = PDT_TRY(device.open_channel(streams::Direction::C2H, route.c2h, streams::ChannelBuffers{kCreditRing, kCreditPage}));
    for (size_t i = 0; i < kCreditRing; ++i) {
        std::memset(c2h->buffer(i), kPoison, kCreditPage);
        PDT_CHECK(c2h->submit(i, kCreditPage, false));
    }
    const pattern::Pattern pat(4, 0);
    uint64_t sent = 0, h2c_done = 0, word = 0, received = 0;
    while (received < kMessages || h2c_done < kMessages) {
        if (stop_requested())
            return stopped_early(c2h->name());
        while (sent < kMessages && sent - h2c_done < h2c->buffer_count()) {
            PDT_CHECK(submit_pattern_message(*h2c, pat, sent, length_of(sent), word));
            ++sent;
        }
        if (received == kMessages) {
            (void)PDT_TRY(h2c->wait(timeout));  // the sink takes every message
            ++h2c_done;
            continue;
        }
        if (h2c_done < sent && PDT_TRY(h2c->poll()))
            ++h2c_done;
        const streams::Completion piece = PDT_TRY(streams::wait_loopback(*h2c, *c2h, timeout));
        const auto* words = reinterpret_cast<const uint32_t*>(c2h->buffer(piece.buffer));
        const std::string where = format("C2H descriptor %" PRIu64, received);
        if (piece.length != kCreditPage || piece.end_of_packet)
            return pdt::make_error("receive", c2h->name(), EIO,
                                   where + format(": length %" PRIu64 " EOP %d, expected length %" PRIu64
                                                " EOP 0 (fixed data)",
                                                piece.length, piece.end_of_packet ? 1 : 0, kCreditPage));
        for (uint64_t i = 0; i < kCreditPage / 4; ++i)
            if (words[i] != 0)
                return pdt::make_error("receive", c2h->name(), EIO,
                                       where + format(": word %" PRIu64 " is 0x%08" PRIx32 ", expected 0 (fixed data)",
                                                    i, words[i]));
        ++received;
        std::memset(c2h->buffer(piece.buffer), kPoison, kCreditPage);
        PDT_CHECK(c2h->submit(piece.buffer, kCreditPage, false));
    }
    (void)h2c->stop();
    (void)c2h->stop();
    std::fprintf(out, "Successfully sent %" PRIu64 " messages into the sink of Ch%u with a total of %" PRIu64
                      " 32-bit words, and verified %" PRIu64 " descriptors of fixed data (zeros) from Ch%u\n",
                 kMessages, route.h2c, word, received, route.c2h);
    return received * kCreditPage;
}

}  // namespace stream_tools
