// cuda_copy_latency: the latency of one copy through the CUDA copy endpoint (issue to
// completion, as pcie_link_measure latency times it) against a bare cudaMemcpyAsync +
// cudaStreamSynchronize loop of the same size, in the same process, both directions. F10 asks
// that the endpoint's 4 KiB median be within 1 us of the bare call's. The data copied is
// checked: PASS only when the medians are within the limit and every byte came back as sent.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "cuda_stream/cuda_copy_endpoint.hpp"
#include "cli/command_line.hpp"
#include "cli/device_options.hpp"

namespace po = boost::program_options;
using streams::Direction;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    int gpu = 0;
    uint64_t bytes = 4096;
    unsigned samples = 1000;
    double limit_us = 1.0;
};

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

void print(const char* what, Direction d, const std::vector<double>& us) {
    std::printf("%s %s: p50 %.2f us  p90 %.2f us  p99 %.2f us  max %.2f us  (%zu samples)\n", what,
                d == Direction::H2C ? "H2D" : "D2H", percentile(us, 50), percentile(us, 90), percentile(us, 99),
                percentile(us, 100), us.size());
}

void fill(uint8_t* data, uint64_t bytes, uint64_t seed) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (uint64_t i = 0; i < bytes; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = static_cast<uint8_t>(x);
    }
}

pdt::Result<void> copy(streams::CopyEndpoint& e, Direction d, streams::HostBuffer& host, uint64_t host_offset,
                       uint64_t bytes) {
    const auto ticket = PDT_TRY(e.issue(d, 0, host, host_offset, 0, bytes));
    return e.wait(ticket, std::chrono::seconds(10));
}

// Samples of one direction through the endpoint; the data is checked after the last one.
pdt::Result<std::vector<double>> endpoint_us(streams::CopyEndpoint& e, Direction d, const Options& o, bool& good) {
    auto host = PDT_TRY(e.allocate(2 * o.bytes, streams::HostMemory::Registered));
    uint8_t* sent = host->data();
    uint8_t* got = host->data() + o.bytes;
    fill(sent, o.bytes, d == Direction::H2C ? 1 : 2);
    std::memset(got, 0, o.bytes);
    if (d == Direction::C2H)
        PDT_CHECK(copy(e, Direction::H2C, *host, 0, o.bytes));  // the card holds what D2H will read
    std::vector<double> us;
    for (unsigned i = 0; i < o.samples + 10; ++i) {  // the first ten warm up and are not kept
        const auto start = Clock::now();
        PDT_CHECK(copy(e, d, *host, d == Direction::H2C ? 0 : o.bytes, o.bytes));
        if (i >= 10)
            us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    if (d == Direction::H2C)
        PDT_CHECK(copy(e, Direction::C2H, *host, o.bytes, o.bytes));
    good = std::memcmp(sent, got, o.bytes) == 0;
    return us;
}

pdt::Result<bool> run(const Options& o) {
    cuda_stream::CopyEndpointConfig config;
    config.gpu = o.gpu;
    config.queues = 1;
    config.card_memory_bytes = std::max<uint64_t>(o.bytes, 1 << 20);
    auto endpoint = PDT_TRY(cuda_stream::open_copy_endpoint(config));
    std::printf("GPU %d: %s, %llu-byte copies\n", o.gpu, endpoint->info().name.c_str(),
                static_cast<unsigned long long>(o.bytes));
    bool pass = true;
    uint64_t verified = 0;
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        // The bare loop before and after the endpoint's, so that neither has the GPU to itself warmer.
        std::vector<double> bare = PDT_TRY(cuda_stream::bare_copy_seconds(o.gpu, d, o.bytes, o.samples / 2 + 1));
        bool good = false;
        const std::vector<double> through = PDT_TRY(endpoint_us(*endpoint, d, o, good));
        for (double s : PDT_TRY(cuda_stream::bare_copy_seconds(o.gpu, d, o.bytes, o.samples / 2 + 1)))
            bare.push_back(s);
        for (double& s : bare)
            s *= 1e6;
        print("copy endpoint (issue to completion)", d, through);
        print("bare cudaMemcpyAsync + cudaStreamSynchronize", d, bare);
        const double difference = percentile(through, 50) - percentile(bare, 50);
        const bool within = difference <= o.limit_us;
        std::printf("%s median difference: %+.2f us (limit %.2f us): %s\n", d == Direction::H2C ? "H2D" : "D2H",
                    difference, o.limit_us, within ? "within" : "OUTSIDE");
        if (!good)
            std::printf("%s data check FAILED: the bytes read back differ from those sent\n",
                        d == Direction::H2C ? "H2D" : "D2H");
        else
            verified += o.bytes;
        pass = pass && within && good;
    }
    std::printf("%s: %llu bytes verified\n", pass ? "PASS" : "FAIL", static_cast<unsigned long long>(verified));
    return pass;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<int> gpus;
    po::options_description d("cuda_copy_latency options");
    cli::add_help_and_version(d);
    cli::add_cuda_device_option(d, gpus);  // one GPU; none given: 0
    d.add_options()(
        "bytes", po::value(&o.bytes)->default_value(o.bytes), "copy size")(
        "samples", po::value(&o.samples)->default_value(o.samples), "copies timed per direction")(
        "limit_us", po::value(&o.limit_us)->default_value(o.limit_us), "largest median difference that passes");
    if (auto status = cli::parse_command_line(argc, argv, {d, cli::message_usage("cuda_copy_latency: ")}))
        return *status;
    if (gpus.size() > 1) {
        std::cerr << "cuda_copy_latency: --cuda_device: one GPU at a time\n";
        return 2;
    }
    o.gpu = gpus.empty() ? 0 : gpus.front();
    if (o.bytes == 0 || o.samples == 0) {
        std::cerr << "cuda_copy_latency: --bytes and --samples must be 1 or more\n";
        return 2;
    }
    auto result = run(o);
    if (!result.ok()) {
        std::cerr << "cuda_copy_latency: " << result.error().message() << "\n";
        return 1;
    }
    return *result ? 0 : 1;
}
