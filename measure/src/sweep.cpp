// sweep: every size, both directions, direct and staged, the variants in a random order in
// every repeat (seed 000 section 1); the staged model 1 / (1/DMA + 1/memcpy) (section 2). The
// staged path is pipelined (staged.hpp, F20); where the endpoint's driver stages pageable
// buffers itself, its copy of them (path "pageable") is measured at the largest size beside it.
#include <algorithm>
#include <cstring>

#include "measure/staged.hpp"

namespace measure {
namespace {

enum class Path { Direct, Staged, Pageable };
const char* name_of(Path p) { return p == Path::Direct ? "direct" : p == Path::Staged ? "staged" : "pageable"; }

struct Variant {
    Direction direction;
    Path path;
    bool top_only = false;  // the largest size alone
};

struct Buffers {
    std::unique_ptr<HostBuffer> source, check, user;  // registered, registered, pageable (staged)
    StagedPipeline pipeline;
};

unsigned iterations_for(const SweepSettings& s, uint64_t bytes) {
    if (s.iterations)
        return s.iterations;
    return static_cast<unsigned>(std::clamp<uint64_t>((64ull << 20) / bytes, 5, 50));
}

// Times copy `slot` of the variant; `timed` is its seconds. A staged copy's bounce slots lie in
// the registered buffer's range of the slot.
pdt::Result<void> timed_copy(CopyEndpoint& ep, const Variant& v, Buffers& b, const KeyedSlot& slot, uint64_t bytes,
                             const CommonSettings& common, double& timed) {
    HostBuffer& dma = v.direction == Direction::H2C ? *b.source : *b.check;
    const auto start = Clock::now();
    if (v.path == Path::Staged)
        PDT_CHECK(staged_copy(ep, v.direction, b.pipeline, b.user->data() + slot.host_offset, dma, slot.host_offset,
                              slot.card_offset, bytes, common.timeout));
    else
        PDT_CHECK(copy(ep, v.direction, 0, v.path == Path::Pageable ? *b.user : dma, slot.host_offset,
                       slot.card_offset, bytes, common.timeout));
    timed = seconds_since(start);
    return {};
}

// One size of one variant in one run: the median rate of its copies. Every copy has its own key
// and is checked (docs/verification.md): the copies go in batches of as many slots as the host
// buffers and the card window hold, each batch prepared before and checked after its timing.
pdt::Result<double> run_size(CopyEndpoint& ep, const Variant& v, Buffers& b, uint64_t bytes, unsigned iterations,
                             const CommonSettings& common, unsigned run, uint64_t& key, uint64_t& verified) {
    const CopyName name{ep.info().name + " sweep " + name_of(v.path) + " " + format_bytes(bytes) +
                            " run " + std::to_string(run + 1),
                        1, iterations};
    // The copies' host side (where the pattern starts or must arrive) and a scratch buffer that
    // no timed copy of this variant touches (preloads, read-backs).
    HostBuffer& data = v.path != Path::Direct ? *b.user : v.direction == Direction::H2C ? *b.source : *b.check;
    HostBuffer& scratch = v.direction == Direction::H2C ? *b.check : *b.source;
    const uint64_t per_batch = slots_that_fit(iterations, bytes, b.source->size(), 0, ep.info().card_memory_bytes);
    std::vector<double> rates;
    for (unsigned done = 0; done < iterations;) {
        const auto slots = keyed_slots(std::min<uint64_t>(per_batch, iterations - done), bytes, 0, key);
        PDT_CHECK(prepare_batch(ep, v.direction, data, scratch, slots, bytes, common.timeout));
        if (v.path == Path::Staged && v.direction == Direction::C2H)
            for (const KeyedSlot& slot : slots)  // the bounce slots too: a copy that lands nowhere leaves poison
                fill_poison(b.check->data() + slot.host_offset, bytes, slot.key);
        for (const KeyedSlot& slot : slots) {
            double seconds = 0;
            PDT_CHECK(timed_copy(ep, v, b, slot, bytes, common, seconds));
            rates.push_back(static_cast<double>(bytes) / seconds / 1e9);
        }
        PDT_CHECK(check_batch(ep, v.direction, data, scratch, slots, bytes, common.timeout,
                              CopyName{name.what, done + 1, iterations}));
        verified += bytes * slots.size();
        done += static_cast<unsigned>(slots.size());
    }
    return median(rates);
}

std::string key_of(Direction d, const std::string& path) { return std::string(to_string(d)) + "/" + path; }

}  // namespace

const SweepPoint* SweepResult::largest(Direction direction, const std::string& path) const {
    const SweepPoint* best = nullptr;
    for (const SweepPoint& p : points)
        if (p.direction == direction && p.path == path && (!best || p.bytes > best->bytes))
            best = &p;
    return best;
}

double measure_memcpy_gbps(uint8_t* to, const uint8_t* from, uint64_t bytes, unsigned runs) {
    std::memcpy(to, from, bytes);  // fault the pages in
    std::vector<double> rates;
    for (unsigned i = 0; i < runs; ++i) {
        const auto start = Clock::now();
        std::memcpy(to, from, bytes);
        rates.push_back(static_cast<double>(bytes) / seconds_since(start) / 1e9);
    }
    return median(rates);
}

// The reference's spread over the runs, and whether it marks the sweep disturbed.
void judge_disturbance(SweepResult& sweep) {
    const std::vector<double>& r = sweep.reference_runs_gbps;
    if (r.size() < 2)
        return;
    const double mid = median(r);
    sweep.reference_spread = mid > 0 ? (*std::max_element(r.begin(), r.end()) - *std::min_element(r.begin(), r.end())) / mid : 0;
    sweep.disturbed = sweep.reference_spread > sweep.disturbed_bound;
}

void summarise_sweep(SweepResult& sweep) {
    judge_disturbance(sweep);
    for (Direction d : {Direction::H2C, Direction::C2H})
        for (const char* path : {"direct", "staged", "pageable"}) {
            const SweepPoint* top = sweep.largest(d, path);
            if (!top)
                continue;
            const std::string key = key_of(d, path);
            sweep.large_copy_gbps[key] = top->rate.mean;
            for (const SweepPoint& p : sweep.points) {  // points run in ascending size per variant
                if (p.direction != d || p.path != path)
                    continue;
                if (!sweep.half_rate_bytes.count(key) && p.rate.mean >= 0.5 * top->rate.mean)
                    sweep.half_rate_bytes[key] = p.bytes;
                if (!sweep.ninety_rate_bytes.count(key) && p.rate.mean >= 0.9 * top->rate.mean)
                    sweep.ninety_rate_bytes[key] = p.bytes;
            }
        }
    sweep.staged_model.clear();
    for (const SweepPoint& staged : sweep.points) {
        if (staged.path != "staged" || sweep.memcpy_gbps <= 0)
            continue;
        for (const SweepPoint& direct : sweep.points)
            if (direct.path == "direct" && direct.direction == staged.direction && direct.bytes == staged.bytes &&
                direct.rate.mean > 0)
                sweep.staged_model.push_back({staged.direction, staged.bytes,
                                              1.0 / (1.0 / direct.rate.mean + 1.0 / sweep.memcpy_gbps),
                                              staged.rate.mean});
    }
}

namespace {

// The sizes from min to max, doubling, that fit the endpoint's card window (its limit: no copy
// reaches beyond it). Larger ones are left out with a warning; when none fits, the sweep
// measures the window's size alone and says so.
std::vector<uint64_t> sweep_sizes(const EndpointInfo& info, const SweepSettings& s, std::vector<std::string>& warnings) {
    std::vector<uint64_t> sizes, left_out;
    for (uint64_t b = s.min_bytes; b <= s.max_bytes; b *= 2)
        (b <= info.card_memory_bytes ? sizes : left_out).push_back(b);
    if (left_out.empty())
        return sizes;
    const std::string range = format_bytes(left_out.front()) +
                              (left_out.size() > 1 ? " to " + format_bytes(left_out.back()) : std::string());
    const std::string why = "larger than the card window of " + std::to_string(info.card_memory_bytes) + " bytes of " +
                            info.name;
    if (sizes.empty()) {
        sizes.push_back(info.card_memory_bytes);
        warnings.push_back("sweep: " + range + " " + why + ": measured " + format_bytes(info.card_memory_bytes) +
                           " copies instead");
    } else {
        warnings.push_back("sweep: " + range + " left out: " + why);
    }
    return sizes;
}

// Direct both ways; with the staged path, staged both ways and, where the endpoint's copies take
// pageable buffers, the driver's own staging at the largest size (else why not, in `out`).
std::vector<Variant> variants_for(const EndpointInfo& info, const SweepSettings& s, SweepResult& out) {
    std::vector<Variant> variants = {{Direction::H2C, Path::Direct}, {Direction::C2H, Path::Direct}};
    if (!s.staged)
        return variants;
    variants.insert(variants.end(), {{Direction::H2C, Path::Staged}, {Direction::C2H, Path::Staged}});
    if (info.pageable_copies)
        variants.insert(variants.end(), {{Direction::H2C, Path::Pageable, true}, {Direction::C2H, Path::Pageable, true}});
    else
        out.pageable_skipped = info.name + " copies only registered buffers: its driver stages no pageable memory";
    return variants;
}

bool measured_at(const Variant& v, size_t size_index, size_t sizes) { return !v.top_only || size_index + 1 == sizes; }

void begin_progress(Progress& progress, const SweepSettings& s, const std::vector<Variant>& variants,
                    const std::vector<uint64_t>& sizes) {
    double work = 0, steps = 0;
    for (const Variant& v : variants)
        for (size_t i = 0; i < sizes.size(); ++i)
            if (measured_at(v, i, sizes.size()))
                work += static_cast<double>(sizes[i]) * iterations_for(s, sizes[i]), ++steps;
    progress.begin("sweep", static_cast<uint64_t>(steps) * s.repeats, work * s.repeats);
}

}  // namespace

pdt::Result<SweepResult> run_sweep(CopyEndpoint& ep, const SweepSettings& s, const CommonSettings& common,
                                   Progress& progress, uint64_t& verified, std::vector<std::string>& warnings) {
    if (s.min_bytes == 0 || s.min_bytes > s.max_bytes || s.repeats == 0)
        return pdt::make_error("sweep", ep.info().name, EINVAL, "sizes must be 1 <= min <= max, repeats >= 1");
    if (ep.info().card_memory_bytes == 0)
        return pdt::make_error("sweep", ep.info().name, EINVAL, "the endpoint reports no card window to copy to");
    const std::vector<uint64_t> sizes = sweep_sizes(ep.info(), s, warnings);
    const uint64_t top = sizes.back();
    Buffers b;
    b.source = PDT_TRY(ep.allocate(top, HostMemory::Registered));
    b.check = PDT_TRY(ep.allocate(top, HostMemory::Registered));
    if (s.staged)
        b.user = PDT_TRY(ep.allocate(top, HostMemory::Pageable));

    SweepResult out;
    std::unique_ptr<ParallelMemcpy> copier;  // outlives every staged copy of this sweep
    out.repeats = s.repeats;
    out.disturbed_bound = s.disturbed_bound;
    uint64_t key = common.seed * 0x100000001b3ull;
    const uint64_t reference_bytes = std::min<uint64_t>(top, 16ull << 20);
    if (s.staged) {
        out.staged = PDT_TRY(plan_staged(ep, s, *b.source, *b.check, common, key, verified));
        const unsigned threads = s.staged_threads ? s.staged_threads : default_staged_threads();
        copier = std::make_unique<ParallelMemcpy>(threads);
        out.staged.why += "; host copies on " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") +
                          (s.staged_threads ? " (--staged_threads)" : "");
        b.pipeline = {out.staged.chunk_bytes, out.staged.depth, copier.get()};
        out.memcpy_bytes = top;
        out.memcpy_gbps = measure_memcpy_gbps(b.user->data(), b.source->data(), top, 5);
    }
    const std::vector<Variant> variants = variants_for(ep.info(), s, out);
    // medians[variant][size][run]
    std::vector<std::vector<std::vector<double>>> medians(variants.size(), std::vector<std::vector<double>>(sizes.size()));
    begin_progress(progress, s, variants, sizes);
    Rng rng(common.seed);
    for (unsigned run = 0; run < s.repeats; ++run) {
        std::vector<size_t> order(variants.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t v : order)
            for (size_t i = 0; i < sizes.size(); ++i) {
                if (!measured_at(variants[v], i, sizes.size()))
                    continue;
                const unsigned n = iterations_for(s, sizes[i]);
                medians[v][i].push_back(PDT_TRY(run_size(ep, variants[v], b, sizes[i], n, common, run, key, verified)));
                progress.step(static_cast<double>(sizes[i]) * n);
            }
        // A, after this run's B: the batches prepare both buffers afresh, so the copy is free.
        out.reference_runs_gbps.push_back(measure_memcpy_gbps(b.check->data(), b.source->data(), reference_bytes, 3));
    }
    progress.end();
    for (size_t v = 0; v < variants.size(); ++v)
        for (size_t i = 0; i < sizes.size(); ++i)
            if (!medians[v][i].empty())
                out.points.push_back({variants[v].direction, name_of(variants[v].path), sizes[i], medians[v][i],
                                      mean_ci99(medians[v][i])});
    summarise_sweep(out);
    return out;
}

}  // namespace measure
