// time_memmapped --copy's library part (bar_copy.hpp).
#include "measure/bar_copy.hpp"

#include "base/format.hpp"
#include "measure/bar_persistence.hpp"

namespace measure {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kHostDecoy = 0xDEC0DEC0DEC0DEC0ull;  // xor'ed into the expected word

struct Pass {
    MmioAccessor& accessor;
    const BarCopyRequest& request;
    std::vector<uint64_t> source, destination;
};

void fill_source(Pass& p, unsigned pass) {
    for (size_t i = 0; i < p.source.size(); ++i)
        p.source[i] = persistence_value(p.request.key + pass, p.request.offset + 8 * i, 8);
}

std::chrono::nanoseconds copy_to_card(Pass& p) {
    for (size_t i = 0; i < p.source.size(); ++i) {  // the decoy, untimed
        const uint64_t decoy = ~p.source[i];
        p.accessor.write(p.request.offset + 8 * i, 8, &decoy);
    }
    const auto start = Clock::now();
    for (size_t i = 0; i < p.source.size(); ++i)
        p.accessor.write(p.request.offset + 8 * i, 8, &p.source[i]);
    p.accessor.drain();
    (void)p.accessor.read(p.request.offset, 8);  // the flushing read
    return Clock::now() - start;
}

std::chrono::nanoseconds copy_to_host(Pass& p) {
    for (size_t i = 0; i < p.source.size(); ++i)
        p.destination[i] = p.source[i] ^ kHostDecoy;
    const auto start = Clock::now();
    for (size_t i = 0; i < p.destination.size(); ++i)
        p.destination[i] = p.accessor.read(p.request.offset + 8 * i, 8);
    return Clock::now() - start;
}

std::optional<BarCopyMismatch> verify(const Pass& p, unsigned pass) {
    for (size_t i = 0; i < p.source.size(); ++i) {
        const uint64_t expected = p.source[i], read = p.destination[i];
        if (read == expected)
            continue;
        const std::string why = read == ~expected ? "the BAR still held the decoy written before the copy: "
                                                    "the host-to-card copy did not land there"
                                : read == (expected ^ kHostDecoy)
                                    ? "the host buffer still held its decoy: the card-to-host copy did not move it"
                                    : "neither decoy: stale or wrong data";
        return BarCopyMismatch{p.request.offset + 8 * i, expected, read, pass, why};
    }
    return std::nullopt;
}

}  // namespace

std::string BarCopyRun::describe_mismatch() const {
    if (!mismatch)
        return "";
    return "offset " + pdt::hex(mismatch->offset) + " (pass " + std::to_string(mismatch->pass) + "): read " +
           pdt::hex(mismatch->read) + ", expected " + pdt::hex(mismatch->expected) + ": " + mismatch->why;
}

BarCopyRun copy_bar_window(MmioAccessor& accessor, const BarCopyRequest& request) {
    BarCopyRun run;
    run.mapping = accessor.mapping();
    const size_t words = static_cast<size_t>(request.size / 8);
    Pass p{accessor, request, std::vector<uint64_t>(words), std::vector<uint64_t>(words)};
    const uint64_t passes = request.size == 0 ? 0 : std::max<uint64_t>(1, request.total_bytes / request.size);
    for (unsigned pass = 0; pass < passes; ++pass) {
        fill_source(p, pass);
        run.to_card.push_back(copy_to_card(p));
        run.to_host.push_back(copy_to_host(p));
        run.mismatch = verify(p, pass);
        if (run.mismatch)
            break;
        run.bytes_verified += request.size;
    }
    return run;
}

}  // namespace measure
