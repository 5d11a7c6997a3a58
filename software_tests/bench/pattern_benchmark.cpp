// Pattern generate / verify throughput on one core, next to memcpy of the same buffer size in
// the same run. Goals (F20): verify >= 2x memcpy and generate >= 1.5x memcpy per core, so that
// checking every byte never becomes the bottleneck of a soak test. memcpy reads and writes the
// buffer, verify only reads it and the sources' generate only writes it (streaming stores), so
// on a memory-bound core the goals ask each loop to run at the memory's speed.
//
// The host is noisy: rounds interleave memcpy, generate and verify (A/B/A/B), and each ratio is
// the median over the rounds of the ratio within one round, printed with its spread. The loops
// after memcpy run in an order rotated every round, so that none always follows the same one
// (and inherits its dirty lines or pending stores).
//
// Each goal is set beside the core's own limit for that kind of access, measured in the same
// rounds: a read with nothing computed (verify's limit) and streaming stores of a constant (the
// sources' generate's limit). Where a loop misses its goal, the output says how close it runs
// to that limit, and whether the limit itself lies below the goal.
//
// Usage: pattern_benchmark [--size_mib N] [--repeats N] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pattern/pattern.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

// A read of the buffer on one core: an OR over every word, with nothing computed; beside verify,
// it shows whether verify's arithmetic or the memory sets verify's speed.
#if defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
__attribute__((noinline)) uint32_t read_all(const uint32_t* __restrict src, size_t words) {
    uint32_t acc = 0;
    for (size_t i = 0; i < words; ++i)
        acc |= src[i];
    return acc;
}

// Streaming stores of a constant over the buffer, as wide as the sources' generate stores them
// (AVX-512 where the core has it): the most a core writes memory with those stores, with nothing
// computed; beside the streaming generate.
#if defined(__x86_64__)
__attribute__((target("avx512f"), noinline)) void store_all_512(uint32_t* dst, size_t words) {
    const __m512i value = _mm512_set1_epi32(0x5a5a5a5a);
    for (size_t i = 0; i + 16 <= words; i += 16)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), value);
    _mm_sfence();
}

__attribute__((noinline)) void store_all_128(uint32_t* dst, size_t words) {
    const __m128i value = _mm_set1_epi32(0x5a5a5a5a);
    for (size_t i = 0; i + 4 <= words; i += 4)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), value);
    _mm_sfence();
}

// dst is 64-byte aligned and words a multiple of 16 (whole MiB).
void store_all(uint32_t* dst, size_t words) {
    if (__builtin_cpu_supports("avx512f"))
        store_all_512(dst, words);
    else
        store_all_128(dst, words);
}
#else
void store_all(uint32_t* dst, size_t words) { std::fill_n(dst, words, 0x5a5a5a5au); }
#endif

template <typename F>
double seconds(F&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Two buffers of --size_mib each are allocated: 64 GiB in all at most.
constexpr long kMaxSizeMib = 32768;
constexpr long kMaxRepeats = 1000;
constexpr const char* kUsage = "Usage: %s [--size_mib N] [--repeats N] [--json]\n";

// A decimal count in 1..max; nullopt for anything else (a sign, a suffix, an overflow).
std::optional<long> parse_count(const char* text, long max) {
    const std::string s(text);
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const long value = std::stol(s);
    if (value < 1 || value > max)
        return std::nullopt;
    return value;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The ratios of one loop to memcpy over the rounds: median, min and max; the goal, and the loop
// that measures the core's limit for this one's kind of access.
struct Ratio {
    Ratio(const char* key_, const char* name_, double goal_, const Ratio* limit_ = nullptr)
        : key(key_), name(name_), goal(goal_), limit(limit_) {}
    const char* key;
    const char* name;
    double goal;
    const Ratio* limit;
    std::vector<double> rounds;
    double best_gbps = 0;
    double median() const { return median_of(rounds); }
    double min() const { return *std::min_element(rounds.begin(), rounds.end()); }
    double max() const { return *std::max_element(rounds.begin(), rounds.end()); }
    bool meets_goal() const { return goal > 0 && median() >= goal; }
    // This loop's speed as a share of its limit's, the median of the rounds' shares.
    double of_limit() const {
        std::vector<double> shares;
        for (size_t i = 0; i < rounds.size(); ++i)
            shares.push_back(rounds[i] / limit->rounds[i]);
        return median_of(shares);
    }
    std::string verdict() const {
        char text[200];
        if (meets_goal() || !limit)
            std::snprintf(text, sizeof text, "goal %.2fx: %s", goal, meets_goal() ? "meets its goal" : "below its goal");
        else
            std::snprintf(text, sizeof text, "goal %.2fx: below its goal, at %.2f of the core's limit (%s %.2fx)%s", goal,
                          of_limit(), limit->key, limit->median(),
                          limit->median() < goal ? ", which is itself below the goal" : "");
        return text;
    }
};

// Page-aligned, touched (so that page faults are not timed) buffer.
struct Buffer {
    explicit Buffer(size_t bytes) : words(static_cast<uint32_t*>(std::aligned_alloc(4096, bytes))) {
        if (words)
            std::memset(words.get(), 0, bytes);
    }
    struct Free {
        void operator()(uint32_t* p) const { std::free(p); }
    };
    std::unique_ptr<uint32_t[], Free> words;
};

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    size_t size_mib = 256;
    int repeats = 7;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--size_mib" || arg == "--repeats") && i + 1 < argc) {
            const char* text = argv[++i];
            const long max = arg == "--size_mib" ? kMaxSizeMib : kMaxRepeats;
            const std::optional<long> value = parse_count(text, max);
            if (!value) {
                std::fprintf(stderr, "Error: %s %s: expected a number in the range 1..%ld\n", arg.c_str(), text, max);
                return 2;
            }
            (arg == "--size_mib" ? (void)(size_mib = static_cast<size_t>(*value)) : (void)(repeats = static_cast<int>(*value)));
        } else if (arg == "--json") {
            json = true;
        } else if (arg == "--help" || arg == "-h") {
            std::printf(kUsage, argv[0]);
            std::printf("Pattern generate / verify GB/s on one core next to memcpy of the same buffer, in interleaved "
                        "rounds (default 256 MiB, 7 rounds; at most %ld MiB and %ld rounds).\n",
                        kMaxSizeMib, kMaxRepeats);
            return 0;
        } else {
            std::fprintf(stderr, "Error: unrecognised argument '%s'\n", arg.c_str());
            std::fprintf(stderr, kUsage, argv[0]);
            return 2;
        }
    }
    const size_t bytes = size_mib << 20;
    const size_t words = bytes / 4;
    Buffer a(bytes), b(bytes);
    if (!a.words || !b.words) {
        std::fprintf(stderr, "Error: cannot allocate two buffers of %zu MiB\n", size_mib);
        return 1;
    }
    const pattern::Pattern pat(7, 3);
    const double gb = static_cast<double>(bytes) / 1e9;
    Ratio read{"read_only", "read only (OR of every word, nothing computed)", 0};
    Ratio store{"store_only", "streaming stores only (a constant, nothing computed)", 0};
    Ratio generate{"generate", "generate (streaming stores, as the sources write)", 1.5, &store};
    Ratio generate_cached{"generate_cached", "generate (cached stores)", 0};
    Ratio verify{"verify", "verify", 2.0, &read};
    double memcpy_best = 0;
    pattern::Mismatch mismatch;
    volatile uint32_t sink = 0;
    uint32_t* const pa = a.words.get();
    uint32_t* const pb = b.words.get();
    // Each loop ends with `a` holding the pattern, so verify may run after any of them.
    const std::vector<std::pair<Ratio*, std::function<void()>>> loops = {
        {&generate, [&] { pat.generate(pa, words, 0x123456789ull, pattern::Store::NonTemporal); }},
        {&verify, [&] { mismatch.merge(pat.verify(pa, words, 0x123456789ull)); }},
        {&generate_cached, [&] { pat.generate(pb, words, 0x123456789ull); }},
        {&read, [&] { sink = read_all(pa, words); }},
        {&store, [&] { store_all(pb, words); }},
    };
    pat.generate(pa, words, 0x123456789ull);
    for (int r = 0; r < repeats; ++r) {
        const double m = gb / seconds([&] { std::memcpy(pb, pa, bytes); });
        memcpy_best = std::max(memcpy_best, m);
        for (size_t k = 0; k < loops.size(); ++k) {
            const auto& [ratio, body] = loops[(k + static_cast<size_t>(r)) % loops.size()];
            const double rate = gb / seconds(body);
            ratio->rounds.push_back(rate / m);
            ratio->best_gbps = std::max(ratio->best_gbps, rate);
        }
    }
    (void)sink;
    // Rotated, verify does not always follow the streaming generate, and may check what an
    // earlier generate left: the streaming generate's output is checked once more, untimed, over
    // a poisoned buffer. Any mismatch of the rounds or of this check fails the benchmark.
    pat.poison(pa, words, 0x123456789ull);
    pat.generate(pa, words, 0x123456789ull, pattern::Store::NonTemporal);
    mismatch.merge(pat.verify(pa, words, 0x123456789ull));
    if (!mismatch.ok()) {
        std::fprintf(stderr, "verify failed: %s\n", mismatch.describe().c_str());
        return 1;
    }
    const Ratio* all[] = {&generate, &store, &generate_cached, &verify, &read};
    if (json) {
        std::printf("{\"buffer_bytes\": %zu, \"rounds\": %d, \"sanitized_build\": %s, \"memcpy_gbps\": %.3f", bytes, repeats,
                    kSanitized ? "true" : "false", memcpy_best);
        for (const Ratio* ratio : all) {
            const Ratio& r = *ratio;
            std::printf(", \"%s_gbps\": %.3f, \"%s_vs_memcpy\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, "
                        "\"goal\": %.2f, \"meets_goal\": %s",
                        r.key, r.best_gbps, r.key, r.median(), r.min(), r.max(), r.goal, r.meets_goal() ? "true" : "false");
            if (r.limit)
                std::printf(", \"limit\": \"%s\", \"of_limit\": %.3f", r.limit->key, r.of_limit());
            std::printf("}");
        }
        std::printf("}\n");
        return 0;
    }
    std::printf("Buffer %zu MiB, %d interleaved rounds, one core (GB/s = 1e9 bytes of buffer per second, best round)\n",
                size_mib, repeats);
    if (kSanitized)
        std::printf("Warning: a sanitized build: these figures are the sanitizer's, not the loops' (build Release)\n");
    std::printf("memcpy   %8.3f GB/s\n", memcpy_best);
    for (const Ratio* r : all) {
        std::printf("%-53s %8.3f GB/s  %.2fx memcpy (median of rounds, %.2f-%.2f)", r->name, r->best_gbps, r->median(),
                    r->min(), r->max());
        if (r->goal > 0)
            std::printf("  %s", r->verdict().c_str());
        std::printf("\n");
    }
    return 0;
}
