// cuda_host_memory_contest: how much host memory bandwidth the verifying threads get while the
// GPU's copy engines move data both ways, and what the copies get meanwhile: the measurement
// behind the stream tools' both-directions figures (docs/measurements/h200_cuda_line_rate.md).
//
// Each host thread writes the keyed pattern into its own region with streaming stores and
// reads it back checking every word, as a source and a sink of the stream tools do. Then each
// kind of access alone (only the writes, only the checking reads), with the host alone and while
// the GPU copies: the read and write rates scripts/h200_measure.sh bounds each verified path by.
// Exit 0 when every phase ran (every word checked), 1 on an error, 2 on a usage error.
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "cuda_stream/cuda_stream.hpp"
#include "pattern/pattern.hpp"
#include "cli/command_line.hpp"

namespace {

struct HostRates {
    double write_gbps = 0, read_gbps = 0;
    bool all_matched = true;
};

// What each host thread does per pass over its region: write it then check it (Both), or only
// one of the two (a region written once, untimed, before the checks).
enum class HostAccess { Both, WriteOnly, ReadOnly };

HostRates host_load(unsigned threads, uint64_t region_bytes, double seconds, HostAccess access = HostAccess::Both) {
    std::atomic<uint64_t> written{0}, read{0};
    std::atomic<bool> matched{true};
    std::atomic<unsigned> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            std::vector<uint32_t> region(region_bytes / 4);
            const pattern::Pattern p(t, 0);
            const bool writes = access != HostAccess::ReadOnly, reads = access != HostAccess::WriteOnly;
            if (!writes)
                p.generate(region.data(), region.size(), 0, pattern::Store::NonTemporal);
            ++ready;
            while (!go)
                std::this_thread::yield();
            const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
            for (uint64_t pass = 0; std::chrono::steady_clock::now() < end; ++pass) {
                const uint64_t first = writes ? pass * region.size() : 0;
                if (writes) {
                    p.generate(region.data(), region.size(), first, pattern::Store::NonTemporal);
                    written += region_bytes;
                }
                if (reads) {
                    if (!p.verify(region.data(), region.size(), first).ok())
                        matched = false;
                    read += region_bytes;
                }
            }
        });
    while (ready < threads)
        std::this_thread::yield();
    const auto start = std::chrono::steady_clock::now();
    go = true;
    for (auto& w : workers)
        w.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return HostRates{written / s / 1e9, read / s / 1e9, matched.load()};
}

// The GPU's copy traffic while a loaded host phase ran: the bare loop's three phases (H2D, D2H,
// both at once), each as long, averaged over the host phase that spans them (GB/s).
double mean_copy_gbps(const cuda_stream::BareRates& r) {
    return (r.h2d_gbps + r.d2h_gbps + r.both_h2d_gbps + r.both_d2h_gbps) / 3;
}

// One kind of host access with the host alone, then while the bare loop copies (all three of its
// phases), with the copy rates meanwhile; all_matched false where a region did not read back as
// written.
struct AccessRates {
    HostRates alone, loaded;
    cuda_stream::BareRates copy;
};
pdt::Result<AccessRates> contest(const cuda_stream::BareConfig& copy, unsigned threads, uint64_t region_bytes,
                                 HostAccess access) {
    AccessRates rates;
    rates.alone = host_load(threads, region_bytes, copy.seconds_per_mode, access);
    pdt::Result<cuda_stream::BareRates> loaded_copy{cuda_stream::BareRates{}};
    std::thread copier([&] { loaded_copy = cuda_stream::bare_copy_rates(copy); });
    // The bare loop measures H2D, D2H, then both: load the host through all three.
    rates.loaded = host_load(threads, region_bytes, 3 * copy.seconds_per_mode, access);
    copier.join();
    rates.copy = PDT_TRY(std::move(loaded_copy));
    return rates;
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
    const uint64_t region_bytes = region_mib << 20;
    auto both = contest(copy, threads, region_bytes, HostAccess::Both);
    auto writes = both.ok() ? contest(copy, threads, region_bytes, HostAccess::WriteOnly) : both;
    auto reads = writes.ok() ? contest(copy, threads, region_bytes, HostAccess::ReadOnly) : writes;
    if (!reads.ok()) {
        std::cerr << "Error: " << reads.error().message() << "\n";
        return 1;
    }
    const HostRates &alone = both->alone, &loaded = both->loaded;
    const cuda_stream::BareRates& loaded_copy = both->copy;
    std::printf("Host memory, %u threads, pattern written with streaming stores and read back (%llu MiB each):\n",
                threads, static_cast<unsigned long long>(region_mib));
    std::printf("  host alone:                 write %.2f GB/s + read %.2f GB/s = %.2f GB/s\n", alone.write_gbps,
                alone.read_gbps, alone.write_gbps + alone.read_gbps);
    std::printf("  host while the GPU copies:  write %.2f GB/s + read %.2f GB/s = %.2f GB/s\n", loaded.write_gbps,
                loaded.read_gbps, loaded.write_gbps + loaded.read_gbps);
    std::printf("Bare cudaMemcpyAsync (8 x %llu MiB pinned):\n", static_cast<unsigned long long>(buffer_mib));
    std::printf("  host idle:    H2D %.2f, D2H %.2f, both H2D %.2f + D2H %.2f GB/s\n", alone_copy->h2d_gbps,
                alone_copy->d2h_gbps, alone_copy->both_h2d_gbps, alone_copy->both_d2h_gbps);
    std::printf("  host loaded:  H2D %.2f, D2H %.2f, both H2D %.2f + D2H %.2f GB/s\n", loaded_copy.h2d_gbps,
                loaded_copy.d2h_gbps, loaded_copy.both_h2d_gbps, loaded_copy.both_d2h_gbps);
    // One kind of access at a time: the rates scripts/h200_measure.sh reads (keep these words).
    std::printf("Host memory, %u threads, one kind of access at a time (writes: generated with streaming stores; "
                "reads: checked):\n",
                threads);
    std::printf("  written alone:                      %.2f GB/s\n", writes->alone.write_gbps);
    std::printf("  written while the GPU copies:       %.2f GB/s (the GPU's copies meanwhile %.2f GB/s on average)\n",
                writes->loaded.write_gbps, mean_copy_gbps(writes->copy));
    std::printf("  read alone:                         %.2f GB/s\n", reads->alone.read_gbps);
    std::printf("  read while the GPU copies:          %.2f GB/s (the GPU's copies meanwhile %.2f GB/s on average)\n",
                reads->loaded.read_gbps, mean_copy_gbps(reads->copy));
    std::printf("  written and read, while the GPU copies: the GPU's copies meanwhile %.2f GB/s on average\n",
                mean_copy_gbps(loaded_copy));
    if (!alone.all_matched || !loaded.all_matched || !reads->alone.all_matched || !reads->loaded.all_matched) {
        std::printf("FAIL: a host region did not read back as written\n");
        return 1;
    }
    return 0;
}
