// Pattern generate / verify throughput on one core, next to memcpy of the same buffer size in
// the same run. Goals (F20): verify >= 2x memcpy and generate >= 1.5x memcpy per core, so that
// checking every byte never becomes the bottleneck of a soak test. memcpy reads and writes the
// buffer, verify only reads it and the sources' generate only writes it (streaming stores), so
// on a memory-bound core the goals ask each loop to run at the memory's speed.
//
// The host is noisy: rounds interleave memcpy, generate and verify (A/B/A/B), and each ratio is
// the median over the rounds of the ratio within one round, printed with its spread.
//
// Usage: pattern_benchmark [--size_mib N] [--repeats N] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "pattern/pattern.hpp"

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

// The ratios of one loop to memcpy over the rounds: median, min and max, and the goal.
struct Ratio {
    const char* key;
    const char* name;
    double goal;
    std::vector<double> rounds;
    double best_gbps = 0;
    double median() const {
        std::vector<double> v = rounds;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    }
    double min() const { return *std::min_element(rounds.begin(), rounds.end()); }
    double max() const { return *std::max_element(rounds.begin(), rounds.end()); }
    const char* verdict() const { return goal == 0 ? "no goal" : median() >= goal ? "meets its goal" : "below its goal"; }
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
    std::vector<uint32_t> a(words, 0), b(words, 0);  // touched, so page faults are not timed
    const pattern::Pattern pat(7, 3);
    const double gb = static_cast<double>(bytes) / 1e9;
    Ratio generate{"generate", "generate (streaming stores, as the sources write)", 1.5, {}};
    Ratio generate_cached{"generate_cached", "generate (cached stores)", 0, {}};
    Ratio verify{"verify", "verify", 2.0, {}};
    Ratio read{"read", "read only (OR of every word, nothing computed)", 0, {}};
    double memcpy_best = 0;
    pattern::Mismatch mismatch;
    for (int r = 0; r < repeats; ++r) {
        const double m = gb / seconds([&] { std::memcpy(b.data(), a.data(), bytes); });
        const double g = gb / seconds([&] { pat.generate(a.data(), words, 0x123456789ull, pattern::Store::NonTemporal); });
        const double v = gb / seconds([&] { mismatch = pat.verify(a.data(), words, 0x123456789ull); });
        const double c = gb / seconds([&] { pat.generate(b.data(), words, 0x123456789ull); });
        volatile uint32_t sink = 0;
        const double o = gb / seconds([&] { sink = read_all(a.data(), words); });
        (void)sink;
        if (!mismatch.ok()) {
            std::fprintf(stderr, "verify failed: %s\n", mismatch.describe().c_str());
            return 1;
        }
        memcpy_best = std::max(memcpy_best, m);
        for (auto [ratio, rate] : {std::pair{&generate, g}, {&generate_cached, c}, {&verify, v}, {&read, o}}) {
            ratio->rounds.push_back(rate / m);
            ratio->best_gbps = std::max(ratio->best_gbps, rate);
        }
    }
    const Ratio* all[] = {&generate, &generate_cached, &verify, &read};
    if (json) {
        std::printf("{\"buffer_bytes\": %zu, \"rounds\": %d, \"sanitized_build\": %s, \"memcpy_gbps\": %.3f", bytes, repeats,
                    kSanitized ? "true" : "false", memcpy_best);
        for (const Ratio* ratio : all) {
            const Ratio& r = *ratio;
            std::printf(", \"%s_gbps\": %.3f, \"%s_vs_memcpy\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, "
                        "\"goal\": %.2f, \"meets_goal\": %s}",
                        r.key, r.best_gbps, r.key, r.median(), r.min(), r.max(), r.goal,
                        r.goal > 0 && r.median() >= r.goal ? "true" : "false");
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
        std::printf("%-50s %8.3f GB/s  %.2fx memcpy (median of rounds, %.2f-%.2f)", r->name, r->best_gbps, r->median(),
                    r->min(), r->max());
        if (r->goal > 0)
            std::printf("  goal %.2fx: %s", r->goal, r->verdict());
        std::printf("\n");
    }
    return 0;
}
