// cuda_host_memory_contest: how much host memory bandwidth the verifying threads get while the
// GPU's copy engines move data both ways, and what the copies get meanwhile: the measurement
// behind the stream tools' both-directions figures (docs/measurements/h200_cuda_line_rate.md).
//
// Each host thread writes the keyed pattern into its own region with streaming stores and
// reads it back checking every word, as a source and a sink of the stream tools do.
// Exit 0 when both phases ran (every word checked), 1 on an error, 2 on a usage error.
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "cuda_stream/cuda_stream.hpp"
#include "pattern/pattern.hpp"
#include "cli/command_line.hpp"

namespace {

struct HostRates {
    double write_gbps = 0, read_gbps = 0;
    bool all_matched = true;
};

HostRates host_load(unsigned threads, uint64_t region_bytes, double seconds) {
    std::atomic<uint64_t> written{0}, read{0};
    std::atomic<bool> matched{true};
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            std::vector<uint32_t> region(region_bytes / 4);
            const pattern::Pattern p(t, 0);
            for (uint64_t pass = 0; std::chrono::steady_clock::now() < end; ++pass) {
                p.generate(region.data(), region.size(), pass * region.size(), pattern::Store::NonTemporal);
                written += region_bytes;
                if (!p.verify(region.data(), region.size(), pass * region.size()).ok())
                    matched = false;
                read += region_bytes;
            }
        });
    for (auto& w : workers)
        w.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return HostRates{written / s / 1e9, read / s / 1e9, matched.load()};
}

}  // namespace

int main(int argc, char** argv) {
    namespace po = boost::program_options;
    int gpu = 0;
    unsigned threads = 14;
    double seconds = 4;
    uint64_t region_mib = 64, buffer_mib = 8;
    po::options_description description("cuda_host_memory_contest [options]");
    description.add_options()("help,h", "show this help")("gpu", po::value(&gpu), "CUDA ordinal (default 0)")(
        "threads", po::value(&threads), "host threads (default 14)")("seconds", po::value(&seconds),
                                                                        "seconds per phase (default 4)")(
        "region_mib", po::value(&region_mib), "MiB each host thread writes and reads per pass (default 64)")(
        "buffer_mib", po::value(&buffer_mib), "MiB per copy of the bare loop, 8 in flight (default 8)");
    if (auto status = cli::parse_command_line(argc, argv, {description, cli::message_usage("Error: ")}))
        return *status;
    if (threads == 0 || seconds <= 0 || region_mib == 0 || buffer_mib == 0) {
        std::cerr << "Error: --threads, --seconds, --region_mib and --buffer_mib must be positive\n";
        return 2;
    }
    cuda_stream::BareConfig copy{gpu, 1, 8, buffer_mib << 20, cuda_stream::HostMemory::Pinned, seconds};
    auto alone_copy = cuda_stream::bare_copy_rates(copy);
    if (!alone_copy.ok()) {
        std::cerr << "Error: " << alone_copy.error().message() << "\n";
        return 1;
    }
    const HostRates alone = host_load(threads, region_mib << 20, seconds);
    // Both at once: the bare loop's third phase (both directions) runs while the host threads do.
    pdt::Result<cuda_stream::BareRates> loaded_copy{cuda_stream::BareRates{}};
    HostRates loaded;
    std::thread copier([&] { loaded_copy = cuda_stream::bare_copy_rates(copy); });
    // The bare loop measures H2D, D2H, then both: load the host through all three.
    loaded = host_load(threads, region_mib << 20, 3 * seconds);
    copier.join();
    if (!loaded_copy.ok()) {
        std::cerr << "Error: " << loaded_copy.error().message() << "\n";
        return 1;
    }
    std::printf("Host memory, %u threads, pattern written with streaming stores and read back (%llu MiB each):\n",
                threads, static_cast<unsigned long long>(region_mib));
    std::printf("  host alone:                 write %.2f GB/s + read %.2f GB/s = %.2f GB/s\n", alone.write_gbps,
                alone.read_gbps, alone.write_gbps + alone.read_gbps);
    std::printf("  host while the GPU copies:  write %.2f GB/s + read %.2f GB/s = %.2f GB/s\n", loaded.write_gbps,
                loaded.read_gbps, loaded.write_gbps + loaded.read_gbps);
    std::printf("Bare cudaMemcpyAsync (8 x %llu MiB pinned):\n", static_cast<unsigned long long>(buffer_mib));
    std::printf("  host idle:    H2D %.2f, D2H %.2f, both H2D %.2f + D2H %.2f GB/s\n", alone_copy->h2d_gbps,
                alone_copy->d2h_gbps, alone_copy->both_h2d_gbps, alone_copy->both_d2h_gbps);
    std::printf("  host loaded:  H2D %.2f, D2H %.2f, both H2D %.2f + D2H %.2f GB/s\n", loaded_copy->h2d_gbps,
                loaded_copy->d2h_gbps, loaded_copy->both_h2d_gbps, loaded_copy->both_d2h_gbps);
    if (!alone.all_matched || !loaded.all_matched) {
        std::printf("FAIL: a host region did not read back as written\n");
        return 1;
    }
    return 0;
}
