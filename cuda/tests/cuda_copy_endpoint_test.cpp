// The CUDA copy endpoint (streams::CopyEndpoint) on a real GPU (label gpu). Without one, every
// GPU test skips and says why; NoGpuIsAnErrorThatSaysWhy checks the error the tool prints.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "copy_endpoint_calls.hpp"
#include "cuda_stream/cuda_copy_endpoint.hpp"
#include "require_gpu.hpp"

namespace {

using namespace std::chrono_literals;
using namespace copy_endpoint_test;

void fill(uint8_t* data, uint64_t bytes, uint64_t seed) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (uint64_t i = 0; i < bytes; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = static_cast<uint8_t>(x);
    }
}

std::unique_ptr<streams::CopyEndpoint> open(uint64_t card = 64ull << 20, unsigned queues = 2) {
    cuda_stream::CopyEndpointConfig config;
    config.card_memory_bytes = card;
    config.queues = queues;
    config.max_in_flight = 8;
    return opened(cuda_stream::open_copy_endpoint(config));
}

TEST(CudaCopyEndpoint, NoGpuIsAnErrorThatSaysWhy) {
    auto count = cuda_stream::gpu_count();
    cuda_stream::CopyEndpointConfig config;
    if (count.ok()) {
        config.gpu = *count;  // one past the last
        auto e = cuda_stream::open_copy_endpoint(config);
        ASSERT_FALSE(e.ok());
        EXPECT_NE(e.error().message().find("numbered from 0"), std::string::npos) << e.error().message();
        return;
    }
    auto e = cuda_stream::open_copy_endpoint(config);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().code, ENODEV) << e.error().message();
    EXPECT_NE(e.error().message().find("cudaGetDeviceCount"), std::string::npos) << e.error().message();
    auto bare = cuda_stream::bare_copy_seconds(0, Direction::H2C, 4096, 10);
    ASSERT_FALSE(bare.ok());
    EXPECT_EQ(bare.error().code, ENODEV) << bare.error().message();
}

TEST(CudaCopyEndpoint, APatternGoesToTheCardAndBackInEveryHostMemory) {
    REQUIRE_GPU();
    auto e = open();
    ASSERT_NE(e, nullptr);
    const auto& info = e->info();
    EXPECT_EQ(info.queues, 2u);
    EXPECT_EQ(info.card_memory_bytes, 64ull << 20);
    EXPECT_TRUE(info.can_launch);
    EXPECT_EQ(info.pci_address.size(), 12u) << info.pci_address;
    EXPECT_EQ(info.name.rfind(info.pci_address + " ", 0), 0u) << info.name;
    for (HostMemory memory : {HostMemory::Registered, HostMemory::Pageable, HostMemory::RegisteredHugePages}) {
        const uint64_t bytes = 3ull << 20;
        auto out = e->allocate(bytes, memory);
        if (!out.ok() && memory == HostMemory::RegisteredHugePages) {
            std::cout << "huge pages not tried: " << out.error().message() << "\n";
            continue;
        }
        ASSERT_TRUE(out.ok()) << out.error().message();
        auto in = buffer(*e, bytes, memory);
        ASSERT_NE(in, nullptr);
        EXPECT_EQ((*out)->memory(), memory);
        fill((*out)->data(), bytes, 1 + static_cast<int>(memory));
        for (unsigned q = 0; q < info.queues; ++q) {
            std::memset(in->data(), 0, bytes);
            issue(*e, Direction::H2C, q, **out, 0, (8ull << 20) * q + 4097, bytes);
            const streams::Ticket back = issue(*e, Direction::C2H, q, *in, 0, (8ull << 20) * q + 4097, bytes);
            auto waited = e->wait(back, 10s);
            ASSERT_TRUE(waited.ok()) << waited.error().message();
            EXPECT_EQ(std::memcmp((*out)->data(), in->data(), bytes), 0) << to_string(memory) << ", queue " << q;
        }
    }
}

TEST(CudaCopyEndpoint, QueueOrderHoldsAcrossDirections) {
    REQUIRE_GPU();
    auto e = open();
    ASSERT_NE(e, nullptr);
    const uint64_t n = 1ull << 20;
    auto a = buffer(*e, n, HostMemory::Registered), b = buffer(*e, n, HostMemory::Registered);
    auto got = buffer(*e, 2 * n, HostMemory::Registered);
    fill(a->data(), n, 1);
    fill(b->data(), n, 2);
    std::vector<streams::Ticket> tickets;
    tickets.push_back(issue(*e, Direction::H2C, 1, *a, 0, 0, n));
    tickets.push_back(issue(*e, Direction::C2H, 1, *got, 0, 0, n));
    tickets.push_back(issue(*e, Direction::H2C, 1, *b, 0, 0, n));  // overwrites what the read before it must see
    tickets.push_back(issue(*e, Direction::C2H, 1, *got, n, 0, n));
    ASSERT_TRUE(e->wait(tickets.back(), 10s).ok());
    for (const auto& t : tickets)
        EXPECT_TRUE(e->wait(t, 0ms).ok()) << "an earlier ticket of the queue completed before a later one";
    EXPECT_EQ(std::memcmp(got->data(), a->data(), n), 0);
    EXPECT_EQ(std::memcmp(got->data() + n, b->data(), n), 0);
}

void expect_refused(const pdt::Result<streams::Ticket>& t, const std::string& name, int code, const std::string& text) {
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, code) << t.error().message();
    EXPECT_NE(t.error().message().find(name), std::string::npos) << t.error().message();
    EXPECT_NE(t.error().message().find(text), std::string::npos) << t.error().message();
}

TEST(CudaCopyEndpoint, BadRangesAreRefusedNamingTheEndpointAndRange) {
    REQUIRE_GPU();
    auto e = open(1ull << 20);
    ASSERT_NE(e, nullptr);
    const std::string name = e->info().name;
    auto host = buffer(*e, 0x2000, HostMemory::Registered);
    expect_refused(e->issue(Direction::H2C, 0, *host, 0, 0xFF000, 0x2000), name, ERANGE,
                   "card range [0xff000, 0x101000): beyond the card memory of 0x100000 bytes");
    expect_refused(e->issue(Direction::C2H, 0, *host, 0, ~uint64_t{0} - 1, 0x10), name, ERANGE, "beyond the card memory");
    expect_refused(e->issue(Direction::H2C, 0, *host, 0x1000, 0, 0x1001), name, ERANGE,
                   "beyond the host buffer of 0x2000 bytes");
    expect_refused(e->issue(Direction::H2C, 2, *host, 0, 0, 0x10), name, EINVAL, "2 queue(s), numbered from 0");
    expect_refused(e->issue(Direction::H2C, 0, *host, 0, 0, 0), name, EINVAL, "at least one byte");
    auto none = e->wait(streams::Ticket{0, 5}, 0ms);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, EINVAL) << none.error().message();
    auto empty = e->launch_empty(0, 0, 1s);
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.error().code, EINVAL) << empty.error().message();
}

TEST(CudaCopyEndpoint, InFlightCopiesAreBoundedPerQueue) {
    REQUIRE_GPU();
    auto e = open(256ull << 20, 1);
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 32ull << 20, HostMemory::Registered);
    std::vector<streams::Ticket> tickets;
    // 8 copies of 32 MiB take milliseconds: the ninth finds all eight in flight.
    for (unsigned i = 0; i < e->info().max_in_flight; ++i)
        tickets.push_back(issue(*e, Direction::H2C, 0, *host, 0, (32ull << 20) * i, 32ull << 20));
    auto ninth = e->issue(Direction::H2C, 0, *host, 0, 0, 32ull << 20);
    ASSERT_FALSE(ninth.ok());
    EXPECT_EQ(ninth.error().code, EBUSY) << ninth.error().message();
    ASSERT_TRUE(e->wait(tickets.back(), 10s).ok());
    EXPECT_TRUE(e->issue(Direction::H2C, 0, *host, 0, 0, 4096).ok());
}

TEST(CudaCopyEndpoint, ATimeoutIsEtimedoutAndResetQueuesRecovers) {
    REQUIRE_GPU();
    auto e = open(256ull << 20, 1);
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 256ull << 20, HostMemory::Registered);
    const streams::Ticket slow = issue(*e, Direction::C2H, 0, *host, 0, 0, 256ull << 20);  // ~5 ms at 55 GB/s
    auto waited = e->wait(slow, 0ms);
    ASSERT_FALSE(waited.ok());
    EXPECT_EQ(waited.error().code, ETIMEDOUT) << waited.error().message();
    EXPECT_NE(waited.error().message().find("wait for copy 0 on queue 0 of " + e->info().name), std::string::npos)
        << waited.error().message();
    auto refused = e->issue(Direction::H2C, 0, *host, 0, 0, 4096);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("unusable until reset_queues"), std::string::npos) << refused.error().message();
    ASSERT_TRUE(e->reset_queues().ok());
    fill(host->data(), 4096, 9);
    issue(*e, Direction::H2C, 0, *host, 0, 1 << 20, 4096);
    const streams::Ticket back = issue(*e, Direction::C2H, 0, *host, 8192, 1 << 20, 4096);
    ASSERT_TRUE(e->wait(back, 10s).ok());
    EXPECT_EQ(std::memcmp(host->data(), host->data() + 8192, 4096), 0);
}

TEST(CudaCopyEndpoint, EmptyKernelsLaunchAndWaitBehindTheQueuesCopies) {
    REQUIRE_GPU();
    auto e = open();
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 16ull << 20, HostMemory::Registered);
    const streams::Ticket copy = issue(*e, Direction::H2C, 0, *host, 0, 0, 16ull << 20);
    auto launched = e->launch_empty(0, 100, 10s);
    ASSERT_TRUE(launched.ok()) << launched.error().message();
    EXPECT_TRUE(e->wait(copy, 0ms).ok()) << "the copy queued before the kernels completed before them";
    EXPECT_TRUE(e->launch_empty(1, 1, 10s).ok());
}

TEST(CudaCopyEndpoint, TheBareReferenceTimesEachCopy) {
    REQUIRE_GPU();
    auto seconds = cuda_stream::bare_copy_seconds(0, Direction::H2C, 4096, 20);
    ASSERT_TRUE(seconds.ok()) << seconds.error().message();
    ASSERT_EQ(seconds->size(), 20u);
    for (double s : *seconds)
        EXPECT_TRUE(s > 0 && s < 0.1) << s;
}

}  // namespace
