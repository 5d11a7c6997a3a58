// Pattern generate / verify throughput on one core, next to memcpy of the same buffer size in
// the same run. The goal is generate and verify >= 0.8x memcpy, so that checking every byte
// does not become the bottleneck of a soak test.
//
// Usage: pattern_benchmark [--size_mib N] [--repeats N] [--json]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "pattern/pattern.hpp"

namespace {

template <typename F>
double best_seconds(int repeats, F&& body) {
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        body();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        best = std::min(best, elapsed.count());
    }
    return best;
}

// Two buffers of --size_mib each are allocated: 64 GiB in all at most.
constexpr long kMaxSizeMib = 32768;
constexpr long kMaxRepeats = 1000;

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

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    size_t size_mib = 256;
    int repeats = 5;
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
            if (arg == "--size_mib")
                size_mib = static_cast<size_t>(*value);
            else
                repeats = static_cast<int>(*value);
        } else if (arg == "--json") {
            json = true;
        } else if (arg == "--help" || arg == "-h") {
            std::printf("Usage: %s [--size_mib N] [--repeats N] [--json]\n"
                        "Pattern generate / verify GB/s on one core next to memcpy of the same buffer "
                        "(default 256 MiB, best of 5; at most %ld MiB and %ld repeats).\n",
                        argv[0], kMaxSizeMib, kMaxRepeats);
            return 0;
        } else {
            std::fprintf(stderr, "Error: unrecognised argument '%s'\nUsage: %s [--size_mib N] [--repeats N] [--json]\n",
                         arg.c_str(), argv[0]);
            return 2;
        }
    }
    const size_t bytes = size_mib << 20;
    const size_t words = bytes / 4;
    std::vector<uint32_t> a(words, 0), b(words, 0);  // touched, so page faults are not timed
    const pattern::Pattern pat(7, 3);

    const double memcpy_s = best_seconds(repeats, [&] { std::memcpy(b.data(), a.data(), bytes); });
    const double generate_s = best_seconds(repeats, [&] { pat.generate(a.data(), words, 0x123456789ull); });
    pattern::Mismatch mismatch;
    const double verify_s = best_seconds(repeats, [&] { mismatch = pat.verify(a.data(), words, 0x123456789ull); });
    if (!mismatch.ok()) {
        std::fprintf(stderr, "verify failed: %s\n", mismatch.describe().c_str());
        return 1;
    }
    const double gb = static_cast<double>(bytes) / 1e9;
    const double memcpy_rate = gb / memcpy_s, generate_rate = gb / generate_s, verify_rate = gb / verify_s;
    if (json) {
        std::printf("{\"buffer_bytes\": %zu, \"repeats\": %d, \"memcpy_gbps\": %.3f, \"generate_gbps\": %.3f, "
                    "\"verify_gbps\": %.3f, \"generate_vs_memcpy\": %.3f, \"verify_vs_memcpy\": %.3f}\n",
                    bytes, repeats, memcpy_rate, generate_rate, verify_rate, generate_rate / memcpy_rate,
                    verify_rate / memcpy_rate);
    } else {
        std::printf("Buffer %zu MiB, best of %d runs, one core (GB/s = 1e9 bytes of buffer per second)\n",
                    size_mib, repeats);
        std::printf("memcpy   %8.3f GB/s\n", memcpy_rate);
        std::printf("generate %8.3f GB/s  %.2fx memcpy\n", generate_rate, generate_rate / memcpy_rate);
        std::printf("verify   %8.3f GB/s  %.2fx memcpy\n", verify_rate, verify_rate / memcpy_rate);
    }
    return 0;
}
