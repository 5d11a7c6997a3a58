// access: the pcie-bench method (Neugebauer et al., SIGCOMM 2018): small transfers at offsets
// into a host window of 4 KiB to 64 MiB, sequential or random, with the host cache warm or
// cold, on 4 KiB and huge-page buffers; a window that outgrows the IOTLB shows as a falling rate.
#include <algorithm>
#include <cstring>
#include <deque>

#include "measure/subcommands.hpp"

namespace measure {
namespace {

constexpr size_t kBatches = 8;

struct Point {
    uint64_t bytes, offset, window;
    std::string pattern, cache;
};

void make_cold(uint8_t* data, uint64_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
    for (uint64_t i = 0; i < bytes; i += 64)
        __builtin_ia32_clflush(data + i);
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

// The host offsets of the transfers: slots of `bytes` rounded up to 64 B, plus the offset.
std::vector<uint64_t> host_offsets(const Point& p, unsigned transfers, Rng& rng) {
    const uint64_t stride = (p.bytes + 63) / 64 * 64;
    const uint64_t slots = (p.window - p.offset - p.bytes) / stride + 1;
    std::vector<uint64_t> out(transfers);
    std::uniform_int_distribution<uint64_t> pick(0, slots - 1);
    for (unsigned i = 0; i < transfers; ++i)
        out[i] = (p.pattern == "random" ? pick(rng) : i % slots) * stride + p.offset;
    return out;
}

vfio::Result<AccessPoint> run_point(CopyEndpoint& ep, Direction d, const Point& p, HostBuffer& host, HostBuffer& scratch,
                                    unsigned transfers, const CommonSettings& c, Rng& rng, uint64_t key,
                                    uint64_t& verified) {
    const std::vector<uint64_t> offsets = host_offsets(p, transfers, rng);
    if (d == Direction::H2C) {
        fill_pattern(host.data(), p.window, key);
    } else {
        PDT_CHECK(preload_card(ep, scratch, 0, p.bytes, key, c.timeout));
        std::memset(host.data(), 0, p.window);
    }
    volatile uint64_t sink = 0;
    if (p.cache == "warm")
        sink = sink + make_warm(host.data(), p.window);
    else
        make_cold(host.data(), p.window);
    // Timed in batches; the point's rate is the median batch's, so that a preemption of the
    // measuring thread spoils one batch, not the point.
    const unsigned window = std::max(1u, ep.info().max_in_flight);
    const size_t batch = std::max<size_t>(1, offsets.size() / kBatches);
    std::vector<double> batch_seconds;
    for (size_t first = 0; first < offsets.size(); first += batch) {
        const size_t end = std::min(offsets.size(), first + batch);
        std::deque<Ticket> in_flight;
        const auto start = Clock::now();
        for (size_t i = first; i < end; ++i) {
            if (in_flight.size() >= window) {
                PDT_CHECK(ep.wait(in_flight.front(), c.timeout));
                in_flight.pop_front();
            }
            in_flight.push_back(PDT_TRY(ep.issue(d, 0, host, offsets[i], 0, p.bytes)));
        }
        PDT_CHECK(ep.wait(in_flight.back(), c.timeout));
        batch_seconds.push_back(seconds_since(start) / static_cast<double>(end - first));
    }
    const double seconds = median(batch_seconds) * transfers;  // per-transfer median, scaled
    // The last transfer is checked: H2C its bytes on the card, C2H its bytes in the window.
    const uint64_t last = offsets.back();
    if (d == Direction::H2C) {
        std::memset(scratch.data(), 0, p.bytes);
        PDT_CHECK(copy(ep, Direction::C2H, 0, scratch, 0, 0, p.bytes, c.timeout));
        if (std::memcmp(scratch.data(), host.data() + last, p.bytes) != 0)
            return check_failure(d, 0, p.bytes, ep.info().name + " access window offset " + std::to_string(last));
    } else if (auto at = find_mismatch(host.data() + last, p.bytes, key)) {
        return check_failure(d, *at, p.bytes, ep.info().name + " access window offset " + std::to_string(last));
    }
    verified += p.bytes;
    AccessPoint a{p.bytes, p.offset, p.window, p.pattern, p.cache, "", transfers, 0, 0};
    a.gbps = static_cast<double>(p.bytes) * transfers / seconds / 1e9;
    a.mean_us = seconds * 1e6 / transfers;
    return a;
}

}  // namespace

std::vector<uint64_t> default_access_sizes() {
    std::vector<uint64_t> out;
    for (uint64_t b = 64; b <= 2048; b *= 2)
        out.insert(out.end(), {b - 1, b, b + 1});
    return out;
}

vfio::Result<AccessResult> run_access(CopyEndpoint& ep, const AccessSettings& s, const CommonSettings& c,
                                      Progress& progress, uint64_t& verified, std::vector<std::string>& warnings) {
    const std::vector<uint64_t> sizes = s.sizes.empty() ? default_access_sizes() : s.sizes;
    const std::vector<uint64_t> offsets = s.offsets.empty() ? std::vector<uint64_t>{0} : s.offsets;
    std::vector<uint64_t> windows = s.windows;
    if (windows.empty())
        for (uint64_t w = 4096; w <= (64ull << 20); w *= 2)
            windows.push_back(w);
    std::vector<Point> points;
    for (uint64_t w : windows)
        for (uint64_t b : sizes)
            for (uint64_t o : offsets)
                for (const std::string& pattern : s.patterns)
                    for (const std::string& cache : s.caches)
                        if (b > 0 && b + o <= w && b <= ep.info().card_memory_bytes && b <= ep.info().max_copy_bytes)
                            points.push_back({b, o, w, pattern, cache});
    if (points.empty() || s.transfers == 0)
        return vfio::make_error("access", ep.info().name, EINVAL, "no size fits its window (size + offset <= window)");
    const uint64_t largest = *std::max_element(windows.begin(), windows.end());
    auto scratch = PDT_TRY(ep.allocate(*std::max_element(sizes.begin(), sizes.end()), HostMemory::Registered));
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
        return vfio::make_error("access", ep.info().name, ENOTSUP, "no host buffer kind could be allocated");
    return out;
}

}  // namespace measure
