#include "stream_tools/memory_tests.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <cinttypes>

#include "base/format.hpp"
#include "pattern/worker_pool.hpp"
#include "subtest_failure.hpp"

namespace stream_tools {
namespace {

using Clock = std::chrono::steady_clock;
// Poison: a DMA that wrote nothing leaves words of 0xA5A5A5A5, which a pattern word matches by
// chance only (one in 2^32), so no unwritten run of words verifies.
constexpr int kPoisonByte = 0xA5;

using pdt::hex;

MemoryTestResult pass(std::FILE* out, uint64_t bytes_verified) {
    std::fprintf(out, "TEST PASS\n");
    return MemoryTestResult{true, {}, bytes_verified};
}

vfio::DmaRegion::Options region(vfio::DmaAccess access, const MemoryTestOptions& options) {
    return vfio::DmaRegion::Options{access, options.buffer_kind, options.dma_mask_bits};
}

// Chunks of `length` bytes covering [0, bytes) of the host buffer and the card window.
std::vector<Chunk> plan(uint64_t base, uint64_t bytes, uint64_t length) {
    std::vector<Chunk> chunks;
    for (uint64_t offset = 0; offset < bytes; offset += length)
        chunks.push_back(Chunk{offset, base + offset, std::min(length, bytes - offset)});
    return chunks;
}

// The first bad word by card address, by its offset in the host buffer, which holds the card
// bytes from `buffer_card_offset` on, and by its offset in the C2H transfer that brought it (the
// buffer is read in transfers of `transfer_bytes`).
std::string data_error(const pattern::Mismatch& m, uint64_t memory_base, uint64_t buffer_card_offset,
                       uint64_t transfer_bytes) {
    const uint64_t in_buffer = m.first_bad_word * 4 - buffer_card_offset;
    const uint64_t transfer_start = in_buffer / transfer_bytes * transfer_bytes;
    return "card address " + hex(memory_base + m.first_bad_word * 4) + " (host buffer offset " + hex(in_buffer) +
           "; byte " + hex(in_buffer - transfer_start) + " of the C2H transfer of " + hex(transfer_bytes) +
           " bytes at card address " + hex(memory_base + buffer_card_offset + transfer_start) + ") " + m.describe();
}

// Host window of memory_variable_transfers: whole H2C transfers, at least max_buffer_size and
// the C2H transfer length, at most the card window.
uint64_t variable_window(uint64_t bytes, uint64_t length, uint64_t c2h_length, uint64_t max_buffer_size) {
    const uint64_t wanted = std::max({length, c2h_length, max_buffer_size});
    return std::min(bytes, (wanted + length - 1) / length * length);
}

// Before every card-to-host DMA its destination holds poison (docs/verification.md): a DMA that
// completes without writing, or without its last bytes, leaves words no pattern word equals.
void poison(vfio::DmaRegion& destination, uint64_t bytes) { std::memset(destination.data(), kPoisonByte, bytes); }

// Passes of fill / DMA / verify over `bytes` of card memory, `window` bytes of it at a time
// (the host buffers hold one window), in `length` (H2C) and `c2h_length` chunks. The pattern's
// word index is the card word offset, keyed by the pass; each timing block counts one pass.
MemoryTestResult round_trip_passes(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                   uint64_t bytes, uint64_t window, uint64_t length, uint64_t c2h_length,
                                   std::FILE* out) {
    auto h2c = vfio::DmaRegion::allocate(device, window, region(vfio::DmaAccess::DeviceRead, options));
    if (!h2c.ok())
        return test_failure(out, "H2C", h2c.error().message());
    auto c2h = vfio::DmaRegion::allocate(device, window, region(vfio::DmaAccess::DeviceWrite, options));
    if (!c2h.ok())
        return test_failure(out, "C2H", c2h.error().message());
    const uint64_t words = bytes / 4;
    const uint64_t passes = std::max<uint64_t>(1, (options.min_words + words - 1) / words);
    TransferTiming populate("populate test pattern", bytes), dma_timing("host-to-card and card-to-host DMA", bytes),
        verify("verify test pattern", bytes);
    for (uint64_t p = 0; p < passes; ++p) {
        const pattern::Pattern pat(0, p);
        Clock::duration fill_time{}, dma_time{}, verify_time{};
        for (uint64_t at = 0; at < bytes; at += window) {
            const uint64_t part = std::min(window, bytes - at), part_words = part / 4;
            auto* h2c_words = reinterpret_cast<uint32_t*>(h2c->data());
            poison(*c2h, part);  // what the card-to-host DMA does not write stays poison
            auto t0 = Clock::now();
            pattern::generate(options.pool, pat, h2c_words, part_words, at / 4);
            auto t1 = Clock::now();
            const std::vector<Chunk> chunks = plan(options.memory_base + at, part, length);
            auto done = length == c2h_length ? dma.round_trip(*h2c, *c2h, chunks) : dma.write(*h2c, chunks);
            if (done.ok() && length != c2h_length)
                done = dma.read(*c2h, plan(options.memory_base + at, part, c2h_length));
            if (!done.ok()) {
                (void)dma.stop();
                return test_failure(out, direction_of(done.error()), done.error().message());
            }
            auto t2 = Clock::now();
            const pattern::Mismatch m = pattern::verify(options.pool, pat, reinterpret_cast<const uint32_t*>(c2h->data()),
                                                        part_words, at / 4);
            verify_time += Clock::now() - t2;
            fill_time += t1 - t0;
            dma_time += t2 - t1;
            if (!m.ok())
                return test_failure(out, "C2H", "pass " + std::to_string(p) + ": " +
                                    data_error(m, options.memory_base, at, c2h_length));
        }
        populate.add(fill_time);
        dma_timing.add(dma_time);
        verify.add(verify_time);
    }
    std::fprintf(out, "%s%s%s", populate.report().c_str(), dma_timing.report().c_str(), verify.report().c_str());
    return pass(out, passes * words * 4);
}

}  // namespace

const char* direction_of(const pdt::Error& error) {
    return (error.operation + " " + error.object).find("H2C") != std::string::npos ? "H2C" : "C2H";
}

MemoryTestResult test_failure(std::FILE* out, const std::string& direction, const std::string& message) {
    std::fprintf(out, "TEST FAIL:\n  %s failure : %s\n", direction.c_str(), message.c_str());
    return MemoryTestResult{false, direction + " failure : " + message};
}

MemoryTestResult memory_fixed_buffers(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                      std::FILE* out) {
    const uint64_t size = std::min(options.max_buffer_size, options.memory_size) & ~uint64_t{3};
    const uint64_t count = size ? options.memory_size / size : 0;
    if (count == 0)
        return test_failure(out, "H2C", "card memory smaller than 4 bytes");
    std::fprintf(out, "\nTesting using %" PRIu64 " buffers of size %s bytes, %s\n", count, hex(size).c_str(),
                 dma.channels().c_str());
    return round_trip_passes(device, dma, options, count * size, size, size, size, out);
}

MemoryTestResult memory_variable_transfers(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                           std::FILE* out) {
    const uint64_t bytes = options.memory_size & ~uint64_t{3};
    const uint64_t length = std::min(options.transfer_length, bytes);
    const uint64_t c2h_length = std::min(options.c2h_transfer_length ? options.c2h_transfer_length : length, bytes);
    if (length == 0)
        return test_failure(out, "H2C", "card memory smaller than 4 bytes");
    std::fprintf(out, "\nTesting using:\n");
    for (streams::Direction d : {streams::Direction::H2C, streams::Direction::C2H}) {
        const uint64_t l = d == streams::Direction::H2C ? length : c2h_length;
        const size_t transfers = static_cast<size_t>((bytes + l - 1) / l);
        std::fprintf(out, "  %s transfer length %s bytes with %zu descriptors\n", dma.name(d).c_str(), hex(l).c_str(),
                     std::min<size_t>(transfers * dma.descriptors_for(d, l), dma.ring_descriptors()));
    }
    const uint64_t window = variable_window(bytes, length, c2h_length, options.max_buffer_size);
    return round_trip_passes(device, dma, options, bytes, window, length, c2h_length, out);
}

MemoryTestResult memory_host_chunks(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                    std::FILE* out) {
    const uint64_t chunk = (options.memory_size / std::max(1u, options.host_buffer_divisor)) & ~uint64_t{3};
    if (chunk == 0)
        return test_failure(out, "H2C", "host buffer (card memory / host_buffer_divisor) smaller than 4 bytes");
    const uint64_t count = options.memory_size / chunk;
    std::fprintf(out, "\nTesting using %s byte host buffers with %zu descriptors:\n  %s\n  %s\n", hex(chunk).c_str(),
                 dma.descriptors_for(streams::Direction::H2C, chunk), dma.name(streams::Direction::H2C).c_str(),
                 dma.name(streams::Direction::C2H).c_str());
    auto h2c = vfio::DmaRegion::allocate(device, chunk, region(vfio::DmaAccess::DeviceRead, options));
    auto c2h = vfio::DmaRegion::allocate(device, chunk, region(vfio::DmaAccess::DeviceWrite, options));
    if (!h2c.ok() || !c2h.ok())
        return test_failure(out, h2c.ok() ? "C2H" : "H2C", (h2c.ok() ? c2h.error() : h2c.error()).message());
    const pattern::Pattern pat(1, 0);
    const uint64_t words = chunk / 4;
    TransferTiming populate("populate test pattern", chunk), write("host-to-card DMA", chunk),
        read("card-to-host DMA", chunk), verify("verify test pattern", chunk);
    // Write all of card memory first...
    for (uint64_t i = 0; i < count; ++i) {
        auto t0 = Clock::now();
        pattern::generate(options.pool, pat, reinterpret_cast<uint32_t*>(h2c->data()), words, i * words);
        auto t1 = Clock::now();
        populate.add(t1 - t0);
        if (auto done = dma.write(*h2c, {Chunk{0, options.memory_base + i * chunk, chunk}}); !done.ok()) {
            (void)dma.stop();
            return test_failure(out, "H2C", done.error().message());
        }
        write.add(Clock::now() - t1);
    }
    // ...then read all of it back: an address the memory does not decode shows up here.
    for (uint64_t i = 0; i < count; ++i) {
        poison(*c2h, chunk);
        auto t0 = Clock::now();
        if (auto done = dma.read(*c2h, {Chunk{0, options.memory_base + i * chunk, chunk}}); !done.ok()) {
            (void)dma.stop();
            return test_failure(out, "C2H", done.error().message());
        }
        auto t1 = Clock::now();
        read.add(t1 - t0);
        const pattern::Mismatch m =
            pattern::verify(options.pool, pat, reinterpret_cast<const uint32_t*>(c2h->data()), words, i * words);
        verify.add(Clock::now() - t1);
        if (!m.ok())
            return test_failure(out, "C2H", "chunk " + std::to_string(i) + ": " +
                                data_error(m, options.memory_base, i * chunk, chunk));
    }
    std::fprintf(out, "%s%s%s%s", populate.report().c_str(), write.report().c_str(), read.report().c_str(),
                 verify.report().c_str());
    return pass(out, count * chunk);
}

std::vector<uint64_t> alias_offsets(uint64_t size, uint64_t word_bytes) {
    std::vector<uint64_t> offsets{0};
    for (uint64_t offset = word_bytes; offset != 0 && offset + word_bytes <= size; offset <<= 1)
        offsets.push_back(offset);
    return offsets;
}

std::optional<std::string> analyse_aliasing(const std::vector<uint64_t>& offsets, const uint8_t* written,
                                            const uint8_t* read, uint64_t word_bytes) {
    auto word = [&](const uint8_t* base, size_t i) { return base + i * word_bytes; };
    for (size_t i = 0; i < offsets.size(); ++i) {
        if (std::memcmp(word(read, i), word(written, i), word_bytes) == 0)
            continue;
        for (size_t j = 0; j < offsets.size(); ++j)
            if (j != i && std::memcmp(word(read, i), word(written, j), word_bytes) == 0)
                return "card offset " + hex(offsets[i]) + " reads the value written at offset " + hex(offsets[j]) +
                       ": address bit " + std::to_string(std::countr_zero(offsets[i] ^ offsets[j])) +
                       " is not decoded (aliasing)";
        uint64_t lane = 0, got = 0, expected = 0;  // the first 8 bytes that differ
        for (; lane + 8 <= word_bytes; lane += 8) {
            std::memcpy(&got, word(read, i) + lane, 8);
            std::memcpy(&expected, word(written, i) + lane, 8);
            if (got != expected)
                break;
        }
        return "card offset " + hex(offsets[i] + lane) + " read " + hex(got) + " expected " + hex(expected);
    }
    return std::nullopt;
}

std::optional<std::string> analyse_aliasing(const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& written,
                                            const std::vector<uint64_t>& read) {
    return analyse_aliasing(offsets, reinterpret_cast<const uint8_t*>(written.data()),
                            reinterpret_cast<const uint8_t*>(read.data()), 8);
}

uint64_t addressing_word_bytes(const CardDma::Alignment& h2c, const CardDma::Alignment& c2h) {
    return std::bit_ceil(std::max<uint64_t>({8, h2c.length_granularity, h2c.address_alignment, c2h.length_granularity,
                                             c2h.address_alignment}));
}

uint64_t addressing_word_bytes(const xdma::ChannelInfo& h2c, const xdma::ChannelInfo& c2h) {
    return addressing_word_bytes(CardDma::Alignment{h2c.address_alignment, h2c.length_granularity},
                                 CardDma::Alignment{c2h.address_alignment, c2h.length_granularity});
}

MemoryTestResult memory_addressing(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                   std::FILE* out) {
    const uint64_t word = addressing_word_bytes(dma.alignment(streams::Direction::H2C), dma.alignment(streams::Direction::C2H));
    const std::vector<uint64_t> offsets = alias_offsets(options.memory_size, word);
    std::fprintf(out, "\nTesting address aliasing of card memory size %s at %zu power-of-two offsets%s, %s\n",
                 hex(options.memory_size).c_str(), offsets.size(),
                 word == 8 ? "" : (", " + std::to_string(word) + "-byte words (Alignments)").c_str(),
                 dma.channels().c_str());
    const uint64_t bytes = offsets.size() * word;
    auto h2c = vfio::DmaRegion::allocate(device, bytes, region(vfio::DmaAccess::DeviceRead, options));
    auto c2h = vfio::DmaRegion::allocate(device, bytes, region(vfio::DmaAccess::DeviceWrite, options));
    if (!h2c.ok() || !c2h.ok())
        return test_failure(out, h2c.ok() ? "C2H" : "H2C", (h2c.ok() ? c2h.error() : h2c.error()).message());
    // Distinct values, different on every run: a value left by an earlier run cannot pass.
    const pattern::Pattern pat(2, static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
    pat.generate(reinterpret_cast<uint32_t*>(h2c->data()), bytes / 4, 0);
    std::vector<Chunk> chunks;
    for (size_t i = 0; i < offsets.size(); ++i)
        chunks.push_back(Chunk{i * word, options.memory_base + offsets[i], word});
    if (auto done = dma.write(*h2c, chunks); !done.ok())
        return test_failure(out, "H2C", done.error().message());
    if (auto done = dma.read(*c2h, chunks); !done.ok())
        return test_failure(out, "C2H", done.error().message());
    if (auto problem = analyse_aliasing(offsets, h2c->data(), c2h->data(), word))
        return test_failure(out, "C2H", *problem);
    return pass(out, bytes);
}

uint64_t memory_test_host_bytes(const std::string& test, const MemoryTestOptions& options) {
    if (test == "memory_fixed_buffers")  // one buffer each way
        return 2 * (std::min(options.max_buffer_size, options.memory_size) & ~uint64_t{3});
    if (test == "memory_variable_transfers") {  // one window each way
        const uint64_t bytes = options.memory_size & ~uint64_t{3};
        const uint64_t length = std::min(options.transfer_length, bytes);
        const uint64_t c2h = std::min(options.c2h_transfer_length ? options.c2h_transfer_length : length, bytes);
        return length ? 2 * variable_window(bytes, length, c2h, options.max_buffer_size) : 0;
    }
    if (test == "memory_host_chunks")
        return 2 * ((options.memory_size / std::max(1u, options.host_buffer_divisor)) & ~uint64_t{3});
    if (test == "memory_addressing")  // the widest word the Alignments register can ask for
        return 2 * 256 * alias_offsets(options.memory_size, 8).size();
    if (test == "memory_boundaries")  // four buffers of the window and its guards, at most
        return 4 * (0x12000 + 4 * 0x100);
    return 0;
}

uint64_t memory_test_card_bytes(const std::string& test, const MemoryTestOptions& options) {
    if (test == "memory_addressing")  // a 64 KiB simulated page per word
        return 0x10000 * alias_offsets(options.memory_size, 8).size();
    if (test == "memory_boundaries")  // a window of about 72 KiB: two 64 KiB simulated pages
        return std::min<uint64_t>(options.memory_size, 0x20000);
    return options.memory_size;
}

}  // namespace stream_tools
