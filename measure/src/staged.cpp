#include "measure/staged.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <thread>

namespace measure {
namespace {

struct Chunk {
    uint64_t offset = 0, bytes = 0, slot = 0;  // within the copy; slot: its bounce offset within the copy's slots
};

void host_copy(const StagedPipeline& p, uint8_t* to, const uint8_t* from, uint64_t bytes) {
    if (p.copier)
        p.copier->copy(to, from, bytes);
    else
        std::memcpy(to, from, bytes);
}

Chunk chunk(const StagedPipeline& p, uint64_t bytes, uint64_t i) {
    const uint64_t offset = i * p.chunk_bytes;
    return {offset, std::min(p.chunk_bytes, bytes - offset), (i % p.depth) * p.chunk_bytes};
}

pdt::Result<void> staged_h2c(CopyEndpoint& ep, const StagedPipeline& p, const uint8_t* user, HostBuffer& bounce,
                             uint64_t bounce_offset, uint64_t card_offset, uint64_t bytes,
                             std::chrono::milliseconds timeout) {
    const uint64_t chunks = (bytes + p.chunk_bytes - 1) / p.chunk_bytes;
    std::deque<Ticket> in_flight;
    for (uint64_t i = 0; i < chunks; ++i) {
        if (in_flight.size() >= p.depth) {  // chunk i - D still owns the slot
            PDT_CHECK(ep.wait(in_flight.front(), timeout));
            in_flight.pop_front();
        }
        const Chunk c = chunk(p, bytes, i);
        host_copy(p, bounce.data() + bounce_offset + c.slot, user + c.offset, c.bytes);
        in_flight.push_back(
            PDT_TRY(ep.issue(Direction::H2C, 0, bounce, bounce_offset + c.slot, card_offset + c.offset, c.bytes)));
    }
    if (!in_flight.empty())
        PDT_CHECK(ep.wait(in_flight.back(), timeout));  // a queue completes in order
    return {};
}

pdt::Result<void> staged_c2h(CopyEndpoint& ep, const StagedPipeline& p, uint8_t* user, HostBuffer& bounce,
                             uint64_t bounce_offset, uint64_t card_offset, uint64_t bytes,
                             std::chrono::milliseconds timeout) {
    const uint64_t chunks = (bytes + p.chunk_bytes - 1) / p.chunk_bytes;
    std::deque<Ticket> in_flight;
    const auto issue = [&](uint64_t i) -> pdt::Result<void> {
        const Chunk c = chunk(p, bytes, i);
        in_flight.push_back(
            PDT_TRY(ep.issue(Direction::C2H, 0, bounce, bounce_offset + c.slot, card_offset + c.offset, c.bytes)));
        return {};
    };
    for (uint64_t i = 0; i < std::min<uint64_t>(p.depth, chunks); ++i)
        PDT_CHECK(issue(i));
    for (uint64_t i = 0; i < chunks; ++i) {
        PDT_CHECK(ep.wait(in_flight.front(), timeout));
        in_flight.pop_front();
        const Chunk c = chunk(p, bytes, i);
        host_copy(p, user + c.offset, bounce.data() + bounce_offset + c.slot, c.bytes);
        if (i + p.depth < chunks)
            PDT_CHECK(issue(i + p.depth));
    }
    return {};
}

}  // namespace

pdt::Result<void> staged_copy(CopyEndpoint& ep, Direction direction, const StagedPipeline& p, uint8_t* user,
                              HostBuffer& bounce, uint64_t bounce_offset, uint64_t card_offset, uint64_t bytes,
                              std::chrono::milliseconds timeout) {
    if (p.chunk_bytes == 0 || p.depth == 0)
        return pdt::make_error("staged copy", ep.info().name, EINVAL, "the chunk and the depth must be 1 or more");
    if (direction == Direction::H2C)
        return staged_h2c(ep, p, user, bounce, bounce_offset, card_offset, bytes, timeout);
    return staged_c2h(ep, p, user, bounce, bounce_offset, card_offset, bytes, timeout);
}

unsigned default_staged_threads() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp(cores / 4, 1u, 4u);
}

uint64_t knee_bytes(const std::vector<CalibrationPoint>& curve, double fraction) {
    double best = 0;
    for (const CalibrationPoint& p : curve)
        best = std::max(best, p.gbps);
    for (const CalibrationPoint& p : curve)
        if (p.gbps >= fraction * best)
            return p.bytes;
    return 0;
}

namespace {

constexpr uint64_t kCalibrationMin = 64ull << 10, kCalibrationMax = 4ull << 20;
constexpr unsigned kDefaultDepth = 4;

// The largest copy a chunk may be: the card window, one copy's limit and the host buffers.
uint64_t chunk_limit(const EndpointInfo& info, uint64_t host_bytes) {
    uint64_t limit = std::min(info.card_memory_bytes, host_bytes);
    if (info.max_copy_bytes)
        limit = std::min(limit, info.max_copy_bytes);
    return limit;
}

std::vector<uint64_t> calibration_sizes(uint64_t limit) {
    std::vector<uint64_t> sizes;
    for (uint64_t b = kCalibrationMin; b <= std::min(kCalibrationMax, limit); b *= 2)
        sizes.push_back(b);
    if (sizes.empty())
        sizes.push_back(limit);
    return sizes;
}

// The median rate of kCalibrationCopies direct copies of `bytes`, each keyed and checked.
pdt::Result<double> calibrate_size(CopyEndpoint& ep, Direction d, HostBuffer& source, HostBuffer& check,
                                   uint64_t bytes, const CommonSettings& common, uint64_t& key, uint64_t& verified) {
    HostBuffer& data = d == Direction::H2C ? source : check;
    HostBuffer& scratch = d == Direction::H2C ? check : source;
    const CopyName name{ep.info().name + " sweep staged calibration " + to_string(d) + " " + format_bytes(bytes), 1,
                        kCalibrationCopies};
    std::vector<double> rates;
    for (unsigned done = 0; done < kCalibrationCopies;) {
        const uint64_t fit = slots_that_fit(kCalibrationCopies - done, bytes, data.size(), 0, ep.info().card_memory_bytes);
        const auto slots = keyed_slots(fit, bytes, 0, key);
        PDT_CHECK(prepare_batch(ep, d, data, scratch, slots, bytes, common.timeout));
        for (const KeyedSlot& slot : slots) {
            const auto start = Clock::now();
            PDT_CHECK(copy(ep, d, 0, data, slot.host_offset, slot.card_offset, bytes, common.timeout));
            rates.push_back(static_cast<double>(bytes) / seconds_since(start) / 1e9);
        }
        PDT_CHECK(check_batch(ep, d, data, scratch, slots, bytes, common.timeout, CopyName{name.what, done + 1, name.count}));
        verified += bytes * slots.size();
        done += static_cast<unsigned>(slots.size());
    }
    return median(rates);
}

// Chunk from the curve: the larger of the two directions' 90% sizes.
pdt::Result<void> chunk_from_curve(CopyEndpoint& ep, HostBuffer& source, HostBuffer& check, uint64_t limit,
                                   const CommonSettings& common, uint64_t& key, uint64_t& verified, StagedPlan& plan) {
    // No untimed warm-up copy: every copy is checked (a copy that is not could absorb a
    // corruption unseen); each size's median of kCalibrationCopies absorbs first touches.
    const std::vector<uint64_t> sizes = calibration_sizes(limit);
    std::string each;
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        std::vector<CalibrationPoint> curve;
        for (uint64_t bytes : sizes)
            curve.push_back({d, bytes, PDT_TRY(calibrate_size(ep, d, source, check, bytes, common, key, verified))});
        const uint64_t knee = knee_bytes(curve, 0.9);
        plan.chunk_bytes = std::max(plan.chunk_bytes, knee);
        each += std::string(each.empty() ? "" : ", ") + to_string(d) + " " + format_bytes(knee);
        plan.calibration.insert(plan.calibration.end(), curve.begin(), curve.end());
    }
    plan.why = "direct reaches 90% of its best rate at " + format_bytes(plan.chunk_bytes) + " (" + each + ")";
    return {};
}

void choose_depth(const EndpointInfo& info, unsigned asked, StagedPlan& plan) {
    const unsigned window = std::max(1u, info.max_in_flight);
    const unsigned wanted = asked ? asked : kDefaultDepth;
    plan.depth = std::min(wanted, window);
    plan.why += "; depth " + std::to_string(plan.depth) + (asked ? " (--staged_depth" : " (the default");
    if (plan.depth < wanted)
        plan.why += " " + std::to_string(wanted) + ", within the endpoint's " + std::to_string(window) +
                    " copies in flight";
    plan.why += ")";
}

}  // namespace

pdt::Result<StagedPlan> plan_staged(CopyEndpoint& ep, const SweepSettings& s, HostBuffer& source, HostBuffer& check,
                                    const CommonSettings& common, uint64_t& key, uint64_t& verified) {
    StagedPlan plan;
    const uint64_t limit = chunk_limit(ep.info(), std::min(source.size(), check.size()));
    if (s.staged_chunk) {
        plan.chunk_bytes = s.staged_chunk;
        plan.why = "--staged_chunk " + format_bytes(s.staged_chunk);
    } else {
        PDT_CHECK(chunk_from_curve(ep, source, check, limit, common, key, verified, plan));
    }
    if (plan.chunk_bytes > limit) {
        plan.chunk_bytes = limit >= 64 ? limit / 64 * 64 : limit;
        plan.why += ", clamped to " + format_bytes(plan.chunk_bytes) + " (card window, largest copy, host buffer)";
    }
    choose_depth(ep.info(), s.staged_depth, plan);
    return plan;
}

}  // namespace measure
