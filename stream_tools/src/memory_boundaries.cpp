#include "stream_tools/memory_boundaries.hpp"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <numeric>
#include <vector>

#include "base/format.hpp"
#include "subtest_failure.hpp"

namespace stream_tools {
namespace {

constexpr uint64_t kLargestSize = 0x10000;  // sizes go to one byte past 64 KiB

using pdt::hex;

uint64_t round_up(uint64_t value, uint64_t unit) { return (value + unit - 1) / unit * unit; }

std::vector<uint64_t> rounded_unique(std::vector<uint64_t> values, uint64_t unit) {
    for (uint64_t& v : values)
        v = round_up(v, unit);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

std::vector<uint64_t> boundary_offsets(uint64_t unit) { return rounded_unique({0, 1, 2, 3, 0xFFF, 0x1000, 0x1001}, unit); }

std::vector<uint64_t> boundary_sizes(uint64_t unit) {
    std::vector<uint64_t> sizes{1, 2, 3};
    for (uint64_t p = 4; p <= kLargestSize; p <<= 1)
        sizes.insert(sizes.end(), {p - 1, p, p + 1});
    for (uint64_t k = 2; k <= 3; ++k)  // 4 KiB multiples that are not powers of two
        sizes.insert(sizes.end(), {k * 0x1000 - 1, k * 0x1000, k * 0x1000 + 1});
    return rounded_unique(sizes, unit);
}

// Host guard bytes have bit 7 set, card guard bytes clear: a host byte that lands in a card
// guard (an engine reading past its source) never matches.
uint8_t host_guard(uint64_t i) { return static_cast<uint8_t>(0x80 | ((i * 5 + 0x25) & 0x7F)); }
uint8_t card_guard(uint64_t i) { return static_cast<uint8_t>((i * 7 + 0x11) & 0x7F); }
uint8_t data_byte(uint64_t test_case, uint64_t j) {
    uint64_t z = (test_case << 40) + (j >> 3) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<uint8_t>((z ^ (z >> 31)) >> (8 * (j & 7)));
}

uint64_t channel_unit(CardDma& dma) {
    uint64_t unit = 1;
    for (streams::Direction d : {streams::Direction::H2C, streams::Direction::C2H}) {
        const CardDma::Alignment a = dma.alignment(d);
        unit = std::lcm(unit, std::lcm(std::max<uint64_t>(a.address_alignment, 1), std::max<uint64_t>(a.length_granularity, 1)));
    }
    return unit;
}

// The host guard bands either side of a C2H destination [at, at + length) of `host`; the first
// changed byte, named, or an empty string.
std::string check_host_guards(const uint8_t* host, uint64_t at, uint64_t length, uint64_t guard, const std::string& what) {
    for (uint64_t i = at - guard; i < at + length + guard; ++i) {
        if (i == at)
            i = at + length;
        if (host[i] != host_guard(i))
            return "guard band: host byte " + std::string(i < at ? "before" : "after") + " the C2H destination of " + what +
                   " at buffer offset " + hex(i) + " changed to " + hex(host[i]) + ", expected " + hex(host_guard(i)) +
                   (i < at ? " (underrun)" : " (overrun)");
    }
    return {};
}

// Why a card byte differs: a host guard byte (bit 7 set where card bytes have it clear) is an
// engine that read past its source; one bit off is a corrupted write; else the position says.
std::string cause(uint8_t actual, uint8_t expected, uint64_t offset, uint64_t at, uint64_t length) {
    const bool after = offset >= at + length, before = offset < at;
    if ((actual & 0x80) && !(expected & 0x80) && (before || after))
        return after ? " (overrun: a host byte past the source)" : " (underrun: a host byte before the source)";
    if (std::has_single_bit(static_cast<unsigned>(actual ^ expected)))
        return " (1 bit flipped)";
    return after ? " (overrun)" : before ? " (underrun)" : "";
}

struct Buffers {
    vfio::DmaRegion h2c_data, h2c_guard, c2h_data, c2h_check;
};

class BoundaryRun {
public:
    BoundaryRun(CardDma& dma, const MemoryTestOptions& options, uint64_t unit, Buffers& buffers)
        : m_dma(dma), m_options(options), m_guard(boundary_guard_bytes(unit)), m_unit(unit), m_b(buffers) {}

    // Reads the window twice, so that every byte the cases read has a known value: each read into
    // a destination between host guard bands, the first prefilled with host guard bytes, the
    // second with their complement, and the two compared byte by byte. A read that moved nothing
    // leaves the two prefills, a flipped bit one read: either differs, so the bytes learnt are
    // verified like those of every other transfer of the test.
    pdt::Result<void> learn_window(vfio::Device& device, uint64_t window) {
        const std::string what = "the window read of " + hex(window) + " bytes at card address " +
                                 hex(m_options.memory_base);
        std::vector<uint8_t> reads[2];
        for (int n = 0; n < 2; ++n) {
            auto region = PDT_TRY(vfio::DmaRegion::allocate(
                device, window + 2 * m_guard,
                vfio::DmaRegion::Options{vfio::DmaAccess::DeviceWrite, m_options.buffer_kind, m_options.dma_mask_bits}));
            for (uint64_t i = 0; i < region.size(); ++i) {
                const bool inside = i >= m_guard && i < m_guard + window;
                region.data()[i] = static_cast<uint8_t>(n == 1 && inside ? ~host_guard(i) : host_guard(i));
            }
            if (auto read = m_dma.read(region, {Chunk{m_guard, m_options.memory_base, window}}); !read) {
                (void)m_dma.stop();  // before `region` goes: the engine was given its address
                return std::move(read).error();
            }
            if (auto bad = check_host_guards(region.data(), m_guard, window, m_guard, what); !bad.empty())
                return pdt::make_error("memory_boundaries", "C2H", EIO, bad);
            reads[n].assign(region.data() + m_guard, region.data() + m_guard + window);
        }
        for (uint64_t i = 0; i < window; ++i)
            if (reads[0][i] != reads[1][i])
                return pdt::make_error("memory_boundaries", "C2H", EIO,
                                       "two reads of the window differ at card address " +
                                           hex(m_options.memory_base + i) + ": " + hex(reads[0][i]) + " then " +
                                           hex(reads[1][i]) + " (byte " + hex(i) + " of " + what +
                                           ", host buffer offset " + hex(m_guard + i) + ")");
        m_shadow = std::move(reads[0]);
        return {};
    }

    // One case; the failure text ("H2C" or "C2H", message) or nothing.
    std::optional<std::pair<std::string, std::string>> run(size_t index, const BoundaryCase& c) {
        const uint64_t g = m_guard, at = g + c.card_offset, card = m_options.memory_base + at, host = g + c.host_offset;
        const std::string what = hex(c.length) + " bytes at card " + hex(card) + " host offset " + hex(c.host_offset);
        // 1. Card guard bands (and the range between them) from a host buffer followed by host guard bytes.
        for (uint64_t i = 0; i < c.length + 3 * g; ++i)
            m_b.h2c_guard.data()[i] = i < c.length + 2 * g ? card_guard(at - g + i) : host_guard(i);
        if (auto done = m_dma.write(m_b.h2c_guard, {Chunk{0, card - g, c.length + 2 * g}}); !done.ok())
            return dma_failure(done.error());
        for (uint64_t i = 0; i < c.length + 2 * g; ++i)
            m_shadow[at - g + i] = card_guard(at - g + i);
        // 2. The data, from between host guard bands.
        uint8_t* src = m_b.h2c_data.data();
        for (uint64_t i = host - g; i < host + c.length + g; ++i)
            src[i] = i >= host && i < host + c.length ? data_byte(index, i - host) : host_guard(i);
        if (auto done = m_dma.write(m_b.h2c_data, {Chunk{host, card, c.length}}); !done.ok())
            return dma_failure(done.error());
        std::copy(src + host, src + host + c.length, m_shadow.begin() + static_cast<std::ptrdiff_t>(at));
        // 3. The data back, into a destination between host guard bands.
        uint8_t* dst = m_b.c2h_data.data();
        for (uint64_t i = host - g; i < host + c.length + g; ++i)
            dst[i] = host_guard(i);
        if (auto done = m_dma.read(m_b.c2h_data, {Chunk{host, card, c.length}}); !done.ok())
            return dma_failure(done.error());
        if (auto bad = check_host_guards(dst, host, c.length, g, what); !bad.empty())
            return std::pair{std::string("C2H"), bad};
        for (uint64_t j = 0; j < c.length; ++j)
            if (dst[host + j] != src[host + j])
                return std::pair{std::string("C2H"), "card address " + hex(card + j) + " of " + what + " read " +
                                                         hex(dst[host + j]) + " expected " + hex(src[host + j])};
        // 4. The card guard bands and one unit past them.
        return check_card_guards(c, at, what);
    }

private:
    std::optional<std::pair<std::string, std::string>> dma_failure(const pdt::Error& error) {
        (void)m_dma.stop();
        return std::pair{std::string(direction_of(error)), error.message()};
    }

    std::optional<std::pair<std::string, std::string>> check_card_guards(const BoundaryCase& c, uint64_t at,
                                                                        const std::string& what) {
        const uint64_t g = m_guard, span = c.length + 2 * g + m_unit;
        uint8_t* dst = m_b.c2h_check.data();
        for (uint64_t i = 0; i < span + 2 * g; ++i)
            dst[i] = host_guard(i);
        if (auto done = m_dma.read(m_b.c2h_check, {Chunk{g, m_options.memory_base + at - g, span}}); !done.ok())
            return dma_failure(done.error());
        if (auto bad = check_host_guards(dst, g, span, g, "the guard-band read of " + what); !bad.empty())
            return std::pair{std::string("C2H"), bad};
        for (uint64_t i = 0; i < span; ++i) {
            const uint64_t window_offset = at - g + i;
            if (dst[g + i] == m_shadow[window_offset])
                continue;
            const std::string where = window_offset < at                ? "in the guard band before"
                                      : window_offset < at + c.length   ? "inside"
                                      : window_offset < at + c.length + g ? "in the guard band after"
                                                                          : "past the guard band after";
            return std::pair{std::string("H2C"), "guard band: card byte " + hex(m_options.memory_base + window_offset) +
                                                     " " + where + " the transfer of " + what + " changed to " +
                                                     hex(dst[g + i]) + ", expected " + hex(m_shadow[window_offset]) +
                                                     cause(dst[g + i], m_shadow[window_offset], window_offset, at, c.length)};
        }
        return std::nullopt;
    }

    CardDma& m_dma;
    const MemoryTestOptions& m_options;
    uint64_t m_guard, m_unit;
    Buffers& m_b;
    std::vector<uint8_t> m_shadow;  // the window's bytes as the card should hold them
};

}  // namespace

uint64_t boundary_guard_bytes(uint64_t unit) { return round_up(64, unit); }

uint64_t boundary_window_bytes(uint64_t unit, uint64_t memory_size) {
    const uint64_t g = boundary_guard_bytes(unit);
    const uint64_t wanted = g + boundary_offsets(unit).back() + boundary_sizes(unit).back() + g + unit;
    return std::min(wanted, memory_size / unit * unit);
}

std::vector<BoundaryCase> boundary_cases(uint64_t unit, uint64_t window_bytes) {
    const uint64_t g = boundary_guard_bytes(unit);
    const std::vector<uint64_t> offsets = boundary_offsets(unit);
    std::vector<BoundaryCase> cases;
    size_t k = 0;
    for (uint64_t size : boundary_sizes(unit))
        for (size_t i = 0; i < offsets.size(); ++i, ++k) {
            // Each size at every card offset; host offsets rotate so every pairing of both occurs.
            const uint64_t card = offsets[i], host = offsets[(i + k / offsets.size()) % offsets.size()];
            if (g + card + size + g + unit <= window_bytes)
                cases.push_back({size, card, host});
        }
    return cases;
}

MemoryTestResult memory_boundaries(vfio::Device& device, CardDma& dma, const MemoryTestOptions& options,
                                   std::FILE* out) {
    const uint64_t unit = channel_unit(dma), g = boundary_guard_bytes(unit);
    const uint64_t window = boundary_window_bytes(unit, options.memory_size);
    const std::vector<BoundaryCase> cases = boundary_cases(unit, window);
    std::string offsets;
    for (uint64_t o : boundary_offsets(unit))
        offsets += (offsets.empty() ? "" : ", ") + hex(o);
    std::fprintf(out, "\nTesting transfer boundaries using %zu transfers, sizes %s..%s bytes at card and host offsets %s, "
                      "%" PRIu64 "-byte guard bands, %s\n",
                 cases.size(), hex(cases.empty() ? 0 : cases.front().length).c_str(),
                 hex(cases.empty() ? 0 : std::max_element(cases.begin(), cases.end(), [](auto& a, auto& b) {
                                             return a.length < b.length;
                                         })->length).c_str(),
                 offsets.c_str(), g, dma.channels().c_str());
    if (cases.empty())
        return test_failure(out, "H2C", "card memory of " + hex(options.memory_size) + " bytes holds no boundary transfer with its guard bands");
    const uint64_t host_bytes = window + 2 * g;
    const auto read_only = vfio::DmaRegion::Options{vfio::DmaAccess::DeviceRead, options.buffer_kind, options.dma_mask_bits};
    const auto write_only = vfio::DmaRegion::Options{vfio::DmaAccess::DeviceWrite, options.buffer_kind, options.dma_mask_bits};
    auto h2c_data = vfio::DmaRegion::allocate(device, host_bytes, read_only);
    auto h2c_guard = vfio::DmaRegion::allocate(device, host_bytes + g, read_only);
    auto c2h_data = vfio::DmaRegion::allocate(device, host_bytes, write_only);
    auto c2h_check = vfio::DmaRegion::allocate(device, host_bytes + 2 * g + unit, write_only);
    for (auto* r : {&h2c_data, &h2c_guard, &c2h_data, &c2h_check})
        if (!r->ok())
            return test_failure(out, r == &h2c_data || r == &h2c_guard ? "H2C" : "C2H", r->error().message());
    Buffers buffers{std::move(*h2c_data), std::move(*h2c_guard), std::move(*c2h_data), std::move(*c2h_check)};
    BoundaryRun run(dma, options, unit, buffers);
    if (auto learned = run.learn_window(device, window); !learned.ok()) {
        (void)dma.stop();
        return test_failure(out, "C2H", learned.error().message());
    }
    uint64_t verified = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
        if (auto failure = run.run(i, cases[i]))
            return test_failure(out, failure->first, failure->second);
        verified += cases[i].length;
    }
    std::fprintf(out, "TEST PASS\n");
    return MemoryTestResult{true, {}, verified};
}

}  // namespace stream_tools
