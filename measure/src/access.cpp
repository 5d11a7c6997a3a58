// access: the pcie-bench method (Neugebauer et al., SIGCOMM 2018): small transfers at offsets
// into a host window of 4 KiB to 64 MiB, sequential or random, with the host cache warm or
// cold, on 4 KiB and huge-page buffers; a window that outgrows the IOTLB shows as a falling rate.
//
// Every transfer's bytes are checked, outside the timed batches: each transfer has a card region
// of its own (transfer i at card offset i x the slot size), so that
//   H2C: after the point, the card regions are read back (into poison, in two copies, the last
//        piece first: docs/verification.md) and each is compared with the window bytes its
//        transfer read;
//   C2H: the card regions hold the pattern (written in two copies, the last piece first) and,
//        after each batch, each transfer's window bytes are compared with its region's; before
//        the batch they hold poison; a C2H batch holds at most as many transfers as the window
//        has slots, so that none overwrote another before its check.
#include <algorithm>
#include <cstring>
#include <deque>
#include <unordered_set>

#include "measure/subcommands.hpp"

namespace measure {
namespace {

constexpr size_t kBatches = 8;
constexpr uint64_t kSpreadStep = 41;  // odd: 64 consecutive transfers start at 64 distinct offsets

struct Point {
    uint64_t bytes, offset, window;
    bool spread;  // transfer i at offset (41 i) mod 64 into its slot, instead of `offset`
    std::string pattern, cache;
};

uint64_t round_up_64(uint64_t v) { return (v + 63) / 64 * 64; }

// Host slots are `bytes` (plus the 63 a spread adds) rounded up to 64 B; a transfer lies inside
// its slot, so transfers in different slots never overlap.
uint64_t slot_stride(const Point& p) { return round_up_64(p.bytes + (p.spread ? 63 : 0)); }
uint64_t slot_count(const Point& p) { return (p.window - p.bytes - (p.spread ? 63 : p.offset)) / slot_stride(p) + 1; }
uint64_t transfer_offset(const Point& p, size_t i) { return p.spread ? (i * kSpreadStep) % 64 : p.offset; }

void make_cold(uint8_t* data, uint64_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
    const uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
    for (uintptr_t line = reinterpret_cast<uintptr_t>(data) / 64 * 64; line < end; line += 64)
        __builtin_ia32_clflush(reinterpret_cast<const void*>(line));
#else
    (void)data, (void)bytes;  // no user-space flush here: "cold" is as warm as the last touch left it
#endif
}

uint64_t make_warm(const uint8_t* data, uint64_t bytes) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < bytes; i += 64)
        sum += data[i];
    return sum;
}

// `count` distinct slots of `slots`, drawn at random (Floyd's algorithm), in a random order.
std::vector<uint64_t> distinct_slots(uint64_t slots, size_t count, Rng& rng) {
    std::unordered_set<uint64_t> chosen;
    std::vector<uint64_t> out;
    for (uint64_t j = slots - count; j < slots; ++j) {
        const uint64_t t = std::uniform_int_distribution<uint64_t>(0, j)(rng);
        const uint64_t pick = chosen.insert(t).second ? t : j;
        if (pick == j)
            chosen.insert(j);
        out.push_back(pick);
    }
    std::shuffle(out.begin(), out.end(), rng);
    return out;
}

// The transfers' host offsets and where each timed batch ends. Sequential: slot i mod slots;
// random: any slot, except that a C2H batch draws distinct slots.
struct Plan {
    std::vector<uint64_t> host;
    std::vector<size_t> batch_ends;
};

Plan make_plan(const Point& p, Direction d, unsigned transfers, Rng& rng) {
    const uint64_t slots = slot_count(p), stride = slot_stride(p);
    size_t batch = std::max<size_t>(1, transfers / kBatches);
    if (d == Direction::C2H)
        batch = static_cast<size_t>(std::min<uint64_t>(batch, slots));
    std::uniform_int_distribution<uint64_t> pick(0, slots - 1);
    Plan plan;
    for (size_t first = 0; first < transfers; first += batch) {
        const size_t n = std::min<size_t>(batch, transfers - first);
        std::vector<uint64_t> slot(n);
        if (p.pattern == "random" && d == Direction::C2H)
            slot = distinct_slots(slots, n, rng);
        else
            for (size_t k = 0; k < n; ++k)
                slot[k] = p.pattern == "random" ? pick(rng) : (first + k) % slots;
        for (size_t k = 0; k < n; ++k)
            plan.host.push_back(slot[k] * stride + transfer_offset(p, first + k));
        plan.batch_ends.push_back(first + n);
    }
    return plan;
}

// Seconds per transfer of transfers [first, end), up to max_in_flight in flight on queue 0.
pdt::Result<double> time_batch(CopyEndpoint& ep, Direction d, HostBuffer& host, const Plan& plan, size_t first,
                               size_t end, uint64_t bytes, uint64_t card_stride, const CommonSettings& c) {
    const unsigned window = std::max(1u, ep.info().max_in_flight);
    std::deque<Ticket> in_flight;
    const auto start = Clock::now();
    for (size_t i = first; i < end; ++i) {
        if (in_flight.size() >= window) {
            PDT_CHECK(ep.wait(in_flight.front(), c.timeout));
            in_flight.pop_front();
        }
        in_flight.push_back(PDT_TRY(ep.issue(d, 0, host, plan.host[i], i * card_stride, bytes)));
    }
    PDT_CHECK(ep.wait(in_flight.back(), c.timeout));
    return seconds_since(start) / static_cast<double>(end - first);
}

// Transfer i's bytes as they arrived against what it was given.
pdt::Result<void> check_transfer(CopyEndpoint& ep, Direction d, const uint8_t* arrived, const uint8_t* sent,
                                 uint64_t bytes, size_t i, size_t transfers, uint64_t host_offset,
                                 uint64_t card_offset) {
    if (std::memcmp(arrived, sent, bytes) == 0)
        return {};
    uint64_t at = 0;
    while (at < bytes && arrived[at] == sent[at])
        ++at;
    return check_failure(d, at, bytes, CopyName{ep.info().name + " access", i + 1, transfers}, host_offset,
                         card_offset);
}

// Poison (rule 2): the complement of what the bytes must become.
void poison_from(uint8_t* to, const uint8_t* expected, uint64_t bytes) {
    for (uint64_t b = 0; b < bytes; ++b)
        to[b] = static_cast<uint8_t>(~expected[b]);
}

// H2C: every transfer's card region read back in one copy and compared with the window.
pdt::Result<void> check_h2c(CopyEndpoint& ep, const Plan& plan, HostBuffer& host, HostBuffer& scratch, uint64_t bytes,
                            uint64_t card_stride, const CommonSettings& c) {
    const size_t transfers = plan.host.size();
    for (size_t i = 0; i < transfers; ++i)
        poison_from(scratch.data() + i * card_stride, host.data() + plan.host[i], bytes);
    PDT_CHECK(copy_last_piece_first(ep, Direction::C2H, scratch, 0, 0, transfers * card_stride, c.timeout));
    for (size_t i = 0; i < transfers; ++i)
        PDT_CHECK(check_transfer(ep, Direction::H2C, scratch.data() + i * card_stride, host.data() + plan.host[i], bytes,
                                 i, transfers, plan.host[i], i * card_stride));
    return {};
}

// C2H: the batch's window bytes against the card regions' pattern (still in `scratch`); on a
// cold point the lines the check read are flushed again before the next batch.
pdt::Result<void> check_c2h_batch(CopyEndpoint& ep, const Plan& plan, size_t first, size_t end, HostBuffer& host,
                                  HostBuffer& scratch, const Point& p, uint64_t card_stride) {
    for (size_t i = first; i < end; ++i) {
        PDT_CHECK(check_transfer(ep, Direction::C2H, host.data() + plan.host[i], scratch.data() + i * card_stride,
                                 p.bytes, i, plan.host.size(), plan.host[i], i * card_stride));
        if (p.cache == "cold")
            make_cold(host.data() + plan.host[i], p.bytes);
    }
    return {};
}

pdt::Result<AccessPoint> run_point(CopyEndpoint& ep, Direction d, const Point& p, HostBuffer& host, HostBuffer& scratch,
                                   unsigned transfers, const CommonSettings& c, Rng& rng, uint64_t key,
                                   uint64_t& verified) {
    const Plan plan = make_plan(p, d, transfers, rng);
    const uint64_t card_stride = round_up_64(p.bytes);
    if (d == Direction::H2C) {
        fill_pattern(host.data(), p.window, key);
    } else {
        PDT_CHECK(preload_card(ep, scratch, 0, transfers * card_stride, key, c.timeout));
        std::memset(host.data(), 0, p.window);
        PDT_CHECK(stage_decoy(ep, host, 0, p.window, c.timeout));  // zeros, not the pattern, in the bounce buffer
    }
    volatile uint64_t sink = 0;
    if (p.cache == "warm")
        sink = sink + make_warm(host.data(), p.window);
    else
        make_cold(host.data(), p.window);
    // Timed in batches; the point's rate is the median batch's, so that a preemption of the
    // measuring thread spoils one batch, not the point.
    std::vector<double> batch_seconds;
    size_t first = 0;
    for (size_t end : plan.batch_ends) {
        if (d == Direction::C2H)  // the batch's slots hold poison, and are as cold as the point asks
            for (size_t i = first; i < end; ++i) {
                poison_from(host.data() + plan.host[i], scratch.data() + i * card_stride, p.bytes);
                if (p.cache == "cold")
                    make_cold(host.data() + plan.host[i], p.bytes);
            }
        batch_seconds.push_back(PDT_TRY(time_batch(ep, d, host, plan, first, end, p.bytes, card_stride, c)));
        if (d == Direction::C2H)
            PDT_CHECK(check_c2h_batch(ep, plan, first, end, host, scratch, p, card_stride));
        first = end;
    }
    if (d == Direction::H2C)
        PDT_CHECK(check_h2c(ep, plan, host, scratch, p.bytes, card_stride, c));
    const double seconds = median(batch_seconds) * transfers;  // per-transfer median, scaled
    AccessPoint a{p.bytes, p.offset, p.window, p.pattern, p.cache, "", transfers, 0, 0};
    a.offset_spread = p.spread;
    a.bytes_verified = p.bytes * transfers;
    verified += a.bytes_verified;
    a.gbps = static_cast<double>(p.bytes) * transfers / seconds / 1e9;
    a.mean_us = seconds * 1e6 / transfers;
    return a;
}

std::vector<Point> make_points(const AccessSettings& s, const std::vector<uint64_t>& sizes,
                               const std::vector<uint64_t>& windows, uint64_t max_copy_bytes) {
    const bool spread = s.offsets.empty();
    const std::vector<uint64_t> offsets = spread ? std::vector<uint64_t>{0} : s.offsets;
    std::vector<Point> points;
    for (uint64_t w : windows)
        for (uint64_t b : sizes)
            for (uint64_t o : offsets)
                for (const std::string& pattern : s.patterns)
                    for (const std::string& cache : s.caches)
                        if (b > 0 && b + (spread ? 63 : o) <= w && b <= max_copy_bytes)
                            points.push_back({b, o, w, spread, pattern, cache});
    return points;
}

}  // namespace

std::vector<uint64_t> default_access_sizes() {
    std::vector<uint64_t> out;
    for (uint64_t b = 64; b <= 2048; b *= 2)
        out.insert(out.end(), {b - 1, b, b + 1});
    return out;
}

pdt::Result<AccessResult> run_access(CopyEndpoint& ep, const AccessSettings& s, const CommonSettings& c,
                                     Progress& progress, uint64_t& verified, std::vector<std::string>& warnings) {
    const std::vector<uint64_t> sizes = s.sizes.empty() ? default_access_sizes() : s.sizes;
    std::vector<uint64_t> windows = s.windows;
    if (windows.empty())
        for (uint64_t w = 4096; w <= (64ull << 20); w *= 2)
            windows.push_back(w);
    const uint64_t max_copy = ep.info().max_copy_bytes ? ep.info().max_copy_bytes : UINT64_MAX;
    const std::vector<Point> points = make_points(s, sizes, windows, max_copy);
    if (points.empty() || s.transfers == 0)
        return pdt::make_error("access", ep.info().name, EINVAL,
                               "no size fits its window (size + offset <= window; a spread of offsets takes 63)");
    // A card region per transfer, so that every transfer's bytes can be checked.
    const uint64_t regions = s.transfers * round_up_64(*std::max_element(sizes.begin(), sizes.end()));
    if (regions > ep.info().card_memory_bytes)
        return pdt::make_error("access", ep.info().name, EINVAL,
                               std::to_string(s.transfers) + " transfers need " + std::to_string(regions) +
                                   " bytes of card memory (a region each, to check every transfer); the card has " +
                                   std::to_string(ep.info().card_memory_bytes) + ": give fewer --access_transfers");
    const uint64_t largest = *std::max_element(windows.begin(), windows.end());
    auto scratch = PDT_TRY(ep.allocate(regions, HostMemory::Registered));
    AccessResult out;
    out.direction = s.direction;
    out.in_flight = std::max(1u, ep.info().max_in_flight);
    Rng rng(c.seed ^ 0xacce55);
    uint64_t key = c.seed * 0xE7037ED1A0B428DBull;
    progress.begin("access", points.size() * s.memories.size(), static_cast<double>(points.size() * s.memories.size()));
    for (HostMemory memory : s.memories) {
        auto host = ep.allocate(largest, memory);
        if (!host) {
            warnings.push_back(std::string("access: ") + to_string(memory) + " buffers left out: " +
                               host.error().message());
            continue;
        }
        for (const Point& p : points) {
            AccessPoint a = PDT_TRY(run_point(ep, s.direction, p, **host, *scratch, s.transfers, c, rng, ++key, verified));
            a.memory = to_string(memory);
            out.points.push_back(a);
            progress.step(1);
        }
    }
    progress.end();
    if (out.points.empty())
        return pdt::make_error("access", ep.info().name, ENOTSUP, "no host buffer kind could be allocated");
    return out;
}

}  // namespace measure
