// Seed 000's shapes, reproduced on the fake card through the adapter's copy endpoint (the link
// measurement tool's seam): the staged rate follows 1/(1/DMA + 1/memcpy); latency after an
// idle gap is set by the runtime's polling interval; two host-to-card commands in one stream
// move half as much as one, one in each of two streams as much as one. (Through
// pcie_link_measure --endpoint etsoc1 once that tool is merged; here, the endpoint directly.)
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

#include "etsoc1/endpoint.hpp"
#include "etsoc1/fake_card.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using measure::Direction;

struct Bench {
    explicit Bench(etsoc1::FakeParameters p) : card(p) {
        etsoc1::EndpointConfig config;
        config.card_memory_bytes = 32u << 20;
        auto opened = etsoc1::open_endpoint(card, config);
        EXPECT_TRUE(opened.ok()) << opened.error().message();
        endpoint = std::move(*opened);
        host = std::move(endpoint->allocate(32u << 20, measure::HostMemory::Pageable).value());
    }
    // Seconds from issuing copies (queue, card offset) of `bytes` each to the last completion.
    double time(Direction d, const std::vector<std::pair<unsigned, uint64_t>>& copies, uint64_t bytes) {
        std::vector<measure::Ticket> tickets;
        const auto began = Clock::now();
        for (const auto& [queue, offset] : copies)
            tickets.push_back(*endpoint->issue(d, queue, *host, offset, offset, bytes));
        for (const auto& t : tickets)
            EXPECT_TRUE(endpoint->wait(t, 10000ms).ok());
        return std::chrono::duration<double>(Clock::now() - began).count();
    }
    etsoc1::FakeCard card;
    std::unique_ptr<measure::CopyEndpoint> endpoint;
    std::unique_ptr<measure::HostBuffer> host;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Rates slow enough (tens of milliseconds a copy) that a loaded host's scheduling delays, which
// add to every copy's time, stay within the tolerance; the median of five copies each.
TEST(Shapes, StagedRateFollowsDmaAndMemcpyInSeries) {
    const double dma = 0.5;
    std::vector<double> measured;
    for (double memcpy : {0.25, 0.5, 1.5}) {
        etsoc1::FakeParameters p;
        p.dma_channel_gbps = p.link_gbps = dma;
        p.memcpy_gbps = memcpy;
        Bench s(p);
        const uint64_t bytes = 8u << 20;
        std::vector<double> rates;
        for (int i = 0; i < 5; ++i)
            rates.push_back(bytes / s.time(Direction::H2C, {{0, 0}}, bytes) / 1e9);
        const double expected = 1.0 / (1.0 / dma + 1.0 / memcpy);
        EXPECT_NEAR(median(rates), expected, 0.15 * expected) << "memcpy " << memcpy << " GB/s";
        std::printf("staged H2C of 8 MiB, DMA %.2f GB/s, memcpy %.2f GB/s: %.3f GB/s (1/(1/DMA + 1/memcpy) = %.3f)\n",
                    dma, memcpy, median(rates), expected);
        measured.push_back(median(rates));
    }
    EXPECT_LT(measured[0], measured[1]);  // a faster host memcpy stages faster, below the DMA rate
    EXPECT_LT(measured[1], measured[2]);
    EXPECT_LT(measured[2], dma);
}

TEST(Shapes, LatencyAfterAnIdleGapIsSetByTheIdlePollingInterval) {
    Bench s(etsoc1::FakeParameters{});
    std::mt19937 random(1);
    std::uniform_int_distribution<int> gap_us(0, 1000);
    std::vector<double> idle, busy;
    for (int i = 0; i < 40; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(gap_us(random)));
        idle.push_back(s.time(Direction::H2C, {{0, 0}}, 4096) * 1e6);
    }
    for (int i = 0; i < 40; ++i)
        busy.push_back(s.time(Direction::H2C, {{0, 0}}, 4096) * 1e6);
    const double mean_idle = std::accumulate(idle.begin(), idle.end(), 0.0) / idle.size();
    const double wire_us = 4096 / 12e3 + 4096 / 10e3;  // DMA and memcpy of 4 KiB: under a microsecond
    // Uniform over the 500 us sleep: a mean near 250 us, two orders above the copy itself.
    EXPECT_GT(mean_idle, 120.0);
    EXPECT_GT(mean_idle, 100 * wire_us);
    EXPECT_LT(mean_idle, 2000.0);
    std::printf("4 KiB latency: after a 0-1 ms idle gap mean %.0f us (median %.0f), back to back median %.0f us\n",
                mean_idle, median(idle), median(busy));
}

TEST(Shapes, TwoCommandsInOneStreamMoveHalfAsMuchAsOneTwoStreamsAsMuch) {
    etsoc1::FakeParameters p;
    p.dma_channel_gbps = p.link_gbps = 0.125;  // slow: tens of milliseconds against host delays
    p.memcpy_gbps = 1e6;  // DMA-only: the seed's no-op bounce copy
    Bench s(p);
    const uint64_t bytes = 4u << 20;
    // Rounds of the three cases, interleaved, and the median of each: a loaded host's scheduling
    // delays add to single samples and come and go.
    std::vector<double> ones, sames, twos;
    for (int i = 0; i < 5; ++i) {
        ones.push_back(bytes / s.time(Direction::H2C, {{0, 0}}, bytes));
        sames.push_back(2 * bytes / s.time(Direction::H2C, {{0, 0}, {0, bytes}}, bytes));
        twos.push_back(2 * bytes / s.time(Direction::H2C, {{0, 0}, {1, bytes}}, bytes));
    }
    const double one = median(ones), same = median(sames), two = median(twos);
    EXPECT_NEAR(same / one, 0.5, 0.08);
    EXPECT_NEAR(two / one, 1.0, 0.12);
    std::printf("rate ratios to one command: two in one stream %.2f, one in each of two streams %.2f\n", same / one,
                two / one);
}

TEST(Shapes, EndpointDescribesAStagedCardWhoseHostMemoryIsPlain) {
    Bench s(etsoc1::FakeParameters{});
    EXPECT_TRUE(s.endpoint->info().driver_stages);
    EXPECT_TRUE(s.endpoint->info().can_launch);
    EXPECT_EQ(s.endpoint->info().max_copy_bytes, 1024ull << 20);
    // No registered memory exists for this card: a registered buffer is plain memory, and says so.
    auto registered = s.endpoint->allocate(4096, measure::HostMemory::Registered);
    ASSERT_TRUE(registered.ok());
    EXPECT_EQ((*registered)->memory(), measure::HostMemory::Pageable);
    auto huge = s.endpoint->allocate(4096, measure::HostMemory::RegisteredHugePages);
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.error().code, ENOTSUP);
    EXPECT_NE(huge.error().message().find("staged through its bounce buffer"), std::string::npos);
    EXPECT_FALSE(s.endpoint->issue(Direction::H2C, 4, *s.host, 0, 0, 4096).ok());
    EXPECT_FALSE(s.endpoint->issue(Direction::H2C, 0, *s.host, 0, 32u << 20, 4096).ok());
    EXPECT_TRUE(s.endpoint->launch_empty(0, 10, 5000ms).ok());
}

}  // namespace
