#include "user_design/card_copy.hpp"

#include <algorithm>
#include <cerrno>
#include <memory>

#include "base/format.hpp"

namespace user_design {
namespace {

using Clock = std::chrono::steady_clock;

// The host buffer every chunk of `range` goes through.
pdt::Result<std::unique_ptr<streams::HostBuffer>> chunk_buffer(streams::CopyEndpoint& endpoint, const CardRange& range) {
    uint64_t bytes = std::min(range.bytes, kChunkBytes);
    if (endpoint.info().max_copy_bytes > 0)
        bytes = std::min(bytes, endpoint.info().max_copy_bytes);
    return endpoint.allocate(bytes, streams::HostMemory::Registered);
}

// One copy of host[0, bytes) and card[card_offset, +bytes), waited for; the time from its issue to
// its completion. A failed wait leaves the endpoint's queues reset (the error is the wait's).
pdt::Result<std::chrono::nanoseconds> timed_copy(streams::CopyEndpoint& endpoint, streams::Direction direction,
                                                 streams::HostBuffer& host, uint64_t card_offset, uint64_t bytes,
                                                 std::chrono::milliseconds timeout) {
    const Clock::time_point start = Clock::now();
    const streams::Ticket ticket = PDT_TRY(endpoint.issue(direction, 0, host, 0, card_offset, bytes));
    if (auto waited = endpoint.wait(ticket, timeout); !waited.ok()) {
        (void)endpoint.reset_queues();
        return waited.error();
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
}

// Calls fn(at, bytes) for each chunk of a range of `total` bytes, `chunk` at a time; the first error.
template <class Fn>
pdt::Result<void> for_each_chunk(uint64_t total, uint64_t chunk, Fn&& fn) {
    for (uint64_t at = 0; at < total; at += chunk)
        PDT_CHECK(fn(at, std::min(chunk, total - at)));
    return {};
}

void complement(const uint8_t* from, uint8_t* to, uint64_t bytes) {
    for (uint64_t i = 0; i < bytes; ++i)
        to[i] = static_cast<uint8_t>(~from[i]);
}

// The card's range read back and compared with the file's bytes, or with their complement (the
// decoy); each read lands in a buffer holding the opposite of what it should bring.
pdt::Result<std::optional<Difference>> compare_range(streams::CopyEndpoint& endpoint, const FileData& data,
                                                     const CardRange& range, bool decoy,
                                                     std::chrono::milliseconds timeout) {
    auto host = PDT_TRY(chunk_buffer(endpoint, range));
    std::vector<uint8_t> expected(host->size());
    std::optional<Difference> first;
    PDT_CHECK(for_each_chunk(range.bytes, host->size(), [&](uint64_t at, uint64_t bytes) -> pdt::Result<void> {
        PDT_CHECK(data.read(at, bytes, decoy ? host->data() : expected.data()));
        complement(decoy ? host->data() : expected.data(), decoy ? expected.data() : host->data(), bytes);
        (void)PDT_TRY(timed_copy(endpoint, streams::Direction::C2H, *host, range.offset + at, bytes, timeout));
        if (auto differs = first_difference(expected.data(), host->data(), bytes, at)) {
            if (!first)
                first = *differs;
            else
                first->differing_bytes += differs->differing_bytes;
        }
        return {};
    }));
    return first;
}

}  // namespace

pdt::Result<CardRange> card_range(const streams::EndpointInfo& info, uint64_t window_base, uint64_t address,
                                  uint64_t bytes) {
    const std::string window = "[" + pdt::hex(window_base) + ", " + pdt::hex(window_base + info.card_memory_bytes) + ")";
    if (bytes == 0)
        return pdt::make_error("address card memory", info.name, EINVAL, "a copy moves at least one byte");
    if (address < window_base || address - window_base > info.card_memory_bytes ||
        bytes > info.card_memory_bytes - (address - window_base))
        return pdt::make_error("address card memory", info.name, ERANGE,
                               "bytes [" + pdt::hex(address) + ", " + pdt::hex(address + bytes) +
                                   ") are not all in the card memory " + window);
    return CardRange{address - window_base, bytes};
}

std::chrono::nanoseconds CopyTimes::total() const {
    std::chrono::nanoseconds sum{0};
    for (std::chrono::nanoseconds t : repetitions)
        sum += t;
    return sum;
}

double CopyTimes::bytes_per_second() const {
    const double seconds = std::chrono::duration<double>(total()).count();
    return seconds > 0 ? static_cast<double>(bytes) * static_cast<double>(repetitions.size()) / seconds : 0;
}

pdt::Result<CopyTimes> copy_to_card(streams::CopyEndpoint& endpoint, const FileData& data, const CardRange& range,
                                    unsigned count, std::chrono::milliseconds timeout) {
    auto host = PDT_TRY(chunk_buffer(endpoint, range));
    const uint64_t chunk = host->size();
    const bool read_once = range.bytes <= chunk;  // one chunk: the file is read once for every repetition
    if (read_once)
        PDT_CHECK(data.read(0, range.bytes, host->data()));
    CopyTimes times{range.bytes, {}};
    for (unsigned repetition = 0; repetition < count; ++repetition) {
        std::chrono::nanoseconds spent{0};
        PDT_CHECK(for_each_chunk(range.bytes, chunk, [&](uint64_t at, uint64_t bytes) -> pdt::Result<void> {
            if (!read_once)
                PDT_CHECK(data.read(at, bytes, host->data()));
            spent += PDT_TRY(timed_copy(endpoint, streams::Direction::H2C, *host, range.offset + at, bytes, timeout));
            return {};
        }));
        times.repetitions.push_back(spent);
    }
    return times;
}

pdt::Result<CopyTimes> copy_from_card(streams::CopyEndpoint& endpoint, FileSink& sink, const CardRange& range,
                                      unsigned count, std::chrono::milliseconds timeout,
                                      std::optional<Difference>* unmoved) {
    auto host = PDT_TRY(chunk_buffer(endpoint, range));
    std::unique_ptr<streams::HostBuffer> again;
    if (unmoved)
        again = PDT_TRY(chunk_buffer(endpoint, range));
    CopyTimes times{range.bytes, {}};
    for (unsigned repetition = 0; repetition < count; ++repetition) {
        std::chrono::nanoseconds spent{0};
        PDT_CHECK(for_each_chunk(range.bytes, host->size(), [&](uint64_t at, uint64_t bytes) -> pdt::Result<void> {
            if (unmoved && *unmoved)
                return {};  // stopped at an unmoved byte
            std::fill_n(host->data(), bytes, kReadFill);
            spent += PDT_TRY(timed_copy(endpoint, streams::Direction::C2H, *host, range.offset + at, bytes, timeout));
            if (unmoved) {
                complement(host->data(), again->data(), bytes);
                (void)PDT_TRY(timed_copy(endpoint, streams::Direction::C2H, *again, range.offset + at, bytes, timeout));
                if ((*unmoved = first_difference(host->data(), again->data(), bytes, at)))
                    return {};
            }
            return sink.write(host->data(), bytes);
        }));
        if (unmoved && *unmoved)
            break;
        times.repetitions.push_back(spent);
    }
    return times;
}

pdt::Result<std::optional<Difference>> write_decoy(streams::CopyEndpoint& endpoint, const FileData& data,
                                                   const CardRange& range, std::chrono::milliseconds timeout) {
    {
        auto host = PDT_TRY(chunk_buffer(endpoint, range));
        PDT_CHECK(for_each_chunk(range.bytes, host->size(), [&](uint64_t at, uint64_t bytes) -> pdt::Result<void> {
            PDT_CHECK(data.read(at, bytes, host->data()));
            complement(host->data(), host->data(), bytes);
            (void)PDT_TRY(timed_copy(endpoint, streams::Direction::H2C, *host, range.offset + at, bytes, timeout));
            return {};
        }));
    }
    return compare_range(endpoint, data, range, true, timeout);
}

pdt::Result<std::optional<Difference>> compare_card(streams::CopyEndpoint& endpoint, const FileData& data,
                                                    const CardRange& range, std::chrono::milliseconds timeout) {
    return compare_range(endpoint, data, range, false, timeout);
}

std::optional<Difference> first_difference(const uint8_t* expected, const uint8_t* found, uint64_t bytes,
                                           uint64_t base) {
    const auto [e, f] = std::mismatch(expected, expected + bytes, found);
    if (e == expected + bytes)
        return std::nullopt;
    const uint64_t at = static_cast<uint64_t>(e - expected);
    Difference d{base + at, *e, *f, 0};
    for (uint64_t i = at; i < bytes; ++i)
        d.differing_bytes += expected[i] != found[i] ? 1 : 0;
    return d;
}

}  // namespace user_design
