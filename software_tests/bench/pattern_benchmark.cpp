// Pattern generate / verify throughput on one core, next to memcpy of the same buffer size in
// the same run. The goal is generate and verify >= 0.8x memcpy, so that checking every byte
// does not become the bottleneck of a soak test.
//
// Usage: pattern_benchmark [--size_mib N] [--repeats N] [--json]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches a pipe or file as printed
    size_t size_mib = 256;
    int repeats = 5;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--size_mib" && i + 1 < argc)
            size_mib = std::strtoull(argv[++i], nullptr, 0);
        else if (arg == "--repeats" && i + 1 < argc)
            repeats = std::atoi(argv[++i]);
        else if (arg == "--json")
            json = true;
        else if (arg == "--help" || arg == "-h") {
            std::printf("Usage: %s [--size_mib N] [--repeats N] [--json]\n"
                        "Pattern generate / verify GB/s on one core next to memcpy of the same buffer "
                        "(default 256 MiB, best of 5).\n",
                        argv[0]);
            return 0;
        } else {
            std::fprintf(stderr, "Usage: %s [--size_mib N] [--repeats N] [--json]\n", argv[0]);
            return 2;
        }
    }
    if (size_mib == 0 || repeats <= 0) {
        std::fprintf(stderr, "--size_mib and --repeats must be positive\n");
        return 2;
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
