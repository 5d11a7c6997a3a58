// The XDMA card-memory copy endpoint (streams::CopyEndpoint) against the XDMA model: a pattern to
// the card and back, queue ordering, several copies in flight, bad ranges, a card-reported
// failure, a timeout, and copy rates that come out as the model's link rate was set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "copy_endpoint_calls.hpp"
#include "dma_bridge/xdma_copy_endpoint.hpp"
#include "xdma_rig.hpp"

namespace {

using namespace std::chrono_literals;
using namespace copy_endpoint_test;
using xdma_test::Rig;

constexpr uint64_t kBase = 0x80000000ull;

xdma::CopyEndpointConfig endpoint_config(uint64_t card_memory_size = 0x100000) {
    xdma::CopyEndpointConfig c;
    c.name = "0000:15:00.0 test_design";
    c.card_memory_base = kBase;
    c.card_memory_size = card_memory_size;
    return c;
}

std::unique_ptr<streams::CopyEndpoint> open(Rig& rig, const xdma::CopyEndpointConfig& config = endpoint_config()) {
    return opened(xdma::open_copy_endpoint(*rig.device, config));
}

TEST(XdmaCopyEndpoint, APatternGoesToTheCardAndBack) {
    Rig rig(xdma_test::memory_design());
    auto e = open(rig);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->info().queues, 2u);
    EXPECT_EQ(e->info().card_memory_bytes, 0x100000u);
    EXPECT_EQ(e->info().pci_address, "0000:15:00.0");
    EXPECT_EQ(e->info().name, "0000:15:00.0 test_design");
    EXPECT_GT(e->info().max_in_flight, 1u);
    EXPECT_FALSE(e->info().can_launch);
    EXPECT_EQ(e->info().engine_mode, "credits");  // what pcie_link_measure prints (text and JSON)
    EXPECT_EQ(e->info().completion, "poll_writeback");
    for (unsigned q = 0; q < e->info().queues; ++q) {
        auto out = buffer(*e, 0x10000), in = buffer(*e, 0x10000);
        xdma_test::fill(out->data(), 0x10000, 11 + q);
        issue(*e, Direction::H2C, q, *out, 0, 0x20000 * q + 0x1000, 0x10000);
        // Not waited for: the queue keeps the card-to-host copy behind the host-to-card one.
        const streams::Ticket back = issue(*e, Direction::C2H, q, *in, 0, 0x20000 * q + 0x1000, 0x10000);
        auto waited = e->wait(back, 2s);
        ASSERT_TRUE(waited.ok()) << waited.error().message();
        EXPECT_EQ(std::memcmp(out->data(), in->data(), 0x10000), 0) << "queue " << q;
        std::vector<uint8_t> card(0x10000);
        ASSERT_TRUE(rig.model->card_read(kBase + 0x20000 * q + 0x1000, card.data(), card.size()));
        EXPECT_EQ(std::memcmp(out->data(), card.data(), card.size()), 0) << "queue " << q;
    }
    EXPECT_TRUE(rig.model->violations().empty());
}

// Stepped model: the engines move data only in run_until_idle, so what was submitted shows.
TEST(XdmaCopyEndpoint, CopiesOfOneDirectionAreInFlightTogetherTheOtherWaitsItsTurn) {
    Rig rig(xdma_test::memory_design(true));
    auto e = open(rig);
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 0x8000);
    xdma_test::fill(host->data(), 0x4000, 5);
    std::vector<streams::Ticket> writes;
    for (unsigned i = 0; i < 8; ++i)
        writes.push_back(issue(*e, Direction::H2C, 0, *host, i * 0x800, i * 0x800, 0x800));
    const streams::Ticket read = issue(*e, Direction::C2H, 0, *host, 0x4000, 0, 0x4000);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 8u) << "all eight were in flight at once";
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::C2H, 0), 0u) << "the read started before the writes completed";
    ASSERT_TRUE(e->wait(writes.back(), 100ms).ok());  // sees the writes done, submits the read
    rig.model->run_until_idle();
    auto waited = e->wait(read, 100ms);
    ASSERT_TRUE(waited.ok()) << waited.error().message();
    EXPECT_EQ(std::memcmp(host->data(), host->data() + 0x4000, 0x4000), 0);
    EXPECT_TRUE(e->wait(writes.front(), 0ms).ok()) << "an earlier ticket of the queue completed before a later one";
}

TEST(XdmaCopyEndpoint, QueueOrderHoldsAcrossDirections) {
    Rig rig(xdma_test::memory_design());
    auto e = open(rig);
    ASSERT_NE(e, nullptr);
    auto a = buffer(*e, 0x4000), b = buffer(*e, 0x4000), got = buffer(*e, 0x8000);
    xdma_test::fill(a->data(), 0x4000, 1);
    xdma_test::fill(b->data(), 0x4000, 2);
    issue(*e, Direction::H2C, 1, *a, 0, 0, 0x4000);
    issue(*e, Direction::C2H, 1, *got, 0, 0, 0x4000);
    issue(*e, Direction::H2C, 1, *b, 0, 0, 0x4000);  // overwrites what the read before it must see
    const streams::Ticket last = issue(*e, Direction::C2H, 1, *got, 0x4000, 0, 0x4000);
    ASSERT_TRUE(e->wait(last, 2s).ok());
    EXPECT_EQ(std::memcmp(got->data(), a->data(), 0x4000), 0);
    EXPECT_EQ(std::memcmp(got->data() + 0x4000, b->data(), 0x4000), 0);
}

void expect_refused(const pdt::Result<streams::Ticket>& t, int code, const std::string& text) {
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, code) << t.error().message();
    EXPECT_NE(t.error().message().find("0000:15:00.0 test_design"), std::string::npos) << t.error().message();
    EXPECT_NE(t.error().message().find(text), std::string::npos) << t.error().message();
}

TEST(XdmaCopyEndpoint, BadRangesAreRefusedNamingTheEndpointAndRange) {
    Rig rig(xdma_test::memory_design());
    auto e = open(rig);
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 0x2000);
    expect_refused(e->issue(Direction::H2C, 0, *host, 0, 0xFF000, 0x2000), ERANGE,
                   "issue H2C copy on queue 0 of 0000:15:00.0 test_design");
    expect_refused(e->issue(Direction::C2H, 0, *host, 0, 0xFF000, 0x2000), ERANGE,
                   "card range [0xff000, 0x101000): beyond the card memory of 0x100000 bytes");
    expect_refused(e->issue(Direction::C2H, 0, *host, 0, ~uint64_t{0} - 1, 0x10), ERANGE, "beyond the card memory");
    expect_refused(e->issue(Direction::H2C, 0, *host, 0x1000, 0, 0x1001), ERANGE,
                   "beyond the host buffer of 0x2000 bytes");
    expect_refused(e->issue(Direction::H2C, 2, *host, 0, 0, 0x10), EINVAL, "2 queue(s), numbered from 0");
    expect_refused(e->issue(Direction::H2C, 0, *host, 0, 0, 0), EINVAL, "at least one byte");
    Rig other_rig(xdma_test::memory_design());
    auto other = open(other_rig);
    ASSERT_NE(other, nullptr);
    auto foreign = buffer(*other, 0x1000);
    expect_refused(e->issue(Direction::H2C, 0, *foreign, 0, 0, 0x10), EINVAL, "not allocated by this endpoint");
    // Pageable memory is offered for the host's own use (a staged copy's user buffer), never DMA.
    auto pageable = e->allocate(0x1000, HostMemory::Pageable);
    ASSERT_TRUE(pageable.ok()) << pageable.error().message();
    EXPECT_EQ((*pageable)->memory(), HostMemory::Pageable);
    expect_refused(e->issue(Direction::C2H, 0, **pageable, 0, 0, 0x10), EINVAL,
                   "pageable: the XDMA engines reach only IOMMU-mapped memory");
    auto never = e->wait(streams::Ticket{0, 99}, 10ms);
    ASSERT_FALSE(never.ok());
    EXPECT_EQ(never.error().code, EINVAL);
    EXPECT_NE(never.error().message().find("no copy 99 was issued on queue 0"), std::string::npos);
}

TEST(XdmaCopyEndpoint, UnalignedCopiesAreRefusedWhereTheEngineNeedsAlignment) {
    sim::XdmaConfig config = xdma_test::memory_design();
    config.address_alignment = 64;
    config.length_granularity = 4;
    Rig rig(config);
    auto e = open(rig);
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 0x2000);
    expect_refused(e->issue(Direction::H2C, 0, *host, 0, 0x10, 0x100), EINVAL,
                   "card range [0x10, 0x110): the engine's Alignments register asks addresses aligned to 64 bytes");
    expect_refused(e->issue(Direction::C2H, 0, *host, 0x8, 0, 0x100), EINVAL, "aligned to 64 bytes");
    expect_refused(e->issue(Direction::C2H, 0, *host, 0, 0, 0x102), EINVAL, "lengths a multiple of 4 bytes");
    EXPECT_TRUE(e->wait(issue(*e, Direction::H2C, 0, *host, 0x40, 0x40, 0x100), 2s).ok());
}

// An endpoint on the memory design and a host buffer of 0x1000 bytes, with `fault` injected into the engine of
// `channel` in `direction`.
struct FaultedEndpoint {
    FaultedEndpoint(sim::XdmaDirection direction, unsigned channel, sim::XdmaFault fault) {
        rig.model->inject(direction, channel, fault);
    }
    Rig rig{xdma_test::memory_design()};
    std::unique_ptr<streams::CopyEndpoint> e = open(rig);
    std::unique_ptr<streams::HostBuffer> host = e ? buffer(*e, 0x1000) : nullptr;
};

TEST(XdmaCopyEndpoint, ATimeoutIsEtimedoutAndResetQueuesRecovers) {
    FaultedEndpoint faulted(sim::XdmaDirection::H2C, 0, sim::XdmaFault::EngineStall);
    ASSERT_NE(faulted.e, nullptr);
    auto& [rig, e, host] = faulted;
    const streams::Ticket t = issue(*e, Direction::H2C, 0, *host, 0, 0x3000, 0x1000);
    // The stall has hit the engine before the 100 ms run out, so reset_queues() clears it, not
    // the copy after it (a loaded machine may run the engine thread late).
    ASSERT_TRUE(xdma_test::fault_applied(*rig.model, sim::XdmaDirection::H2C, 0));
    auto waited = e->wait(t, 100ms);
    ASSERT_FALSE(waited.ok());
    EXPECT_EQ(waited.error().code, ETIMEDOUT);
    EXPECT_NE(waited.error().message().find("wait for copy 0 on queue 0 of 0000:15:00.0 test_design"), std::string::npos)
        << waited.error().message();
    EXPECT_NE(waited.error().message().find("not completed within 100 ms; oldest copy 0 H2C card [0x80003000, "
                                            "0x80004000) on 0000:15:00.0 H2C 0: status 0x00000001 (busy)"),
              std::string::npos)
        << waited.error().message();
    auto refused = e->issue(Direction::H2C, 0, *host, 0, 0, 0x10);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("unusable until reset_queues"), std::string::npos) << refused.error().message();
    ASSERT_TRUE(e->reset_queues().ok());
    xdma_test::fill(host->data(), 0x1000, 9);
    auto back = buffer(*e, 0x1000);
    issue(*e, Direction::H2C, 0, *host, 0, 0x3000, 0x1000);
    ASSERT_TRUE(e->wait(issue(*e, Direction::C2H, 0, *back, 0, 0x3000, 0x1000), 2s).ok());
    EXPECT_EQ(std::memcmp(host->data(), back->data(), 0x1000), 0);
}

TEST(XdmaCopyEndpoint, ACopyTheCardReportsFailedIsAnErrorNamingIt) {
    FaultedEndpoint faulted(sim::XdmaDirection::C2H, 1, sim::XdmaFault::DescriptorReadError);
    ASSERT_NE(faulted.e, nullptr);
    auto& [rig, e, host] = faulted;
    auto waited = e->wait(issue(*e, Direction::C2H, 1, *host, 0, 0, 0x1000), 2s);
    ASSERT_FALSE(waited.ok());
    EXPECT_NE(waited.error().code, ETIMEDOUT);
    EXPECT_NE(waited.error().message().find("wait for copy 0 on queue 1 of 0000:15:00.0 test_design"), std::string::npos)
        << waited.error().message();
    EXPECT_NE(waited.error().message().find("the card reported it failed"), std::string::npos) << waited.error().message();
    EXPECT_NE(waited.error().message().find("C2H 1"), std::string::npos) << waited.error().message();
}

TEST(XdmaCopyEndpoint, OpeningNeedsMemoryMappedChannelsAndCardMemory) {
    Rig stream(xdma_test::stream_design());
    auto no_channels = xdma::open_copy_endpoint(*stream.device, endpoint_config());
    ASSERT_FALSE(no_channels.ok());
    EXPECT_EQ(no_channels.error().code, ENODEV);
    EXPECT_NE(no_channels.error().message().find("no memory-mapped H2C and C2H channel pair"), std::string::npos)
        << no_channels.error().message();
    Rig memory(xdma_test::memory_design());
    auto no_memory = xdma::open_copy_endpoint(*memory.device, endpoint_config(0));
    ASSERT_FALSE(no_memory.ok());
    EXPECT_EQ(no_memory.error().code, EINVAL);
    EXPECT_NE(no_memory.error().message().find("no card memory"), std::string::npos);
}

// The model's link rate (per direction) and latency as timed copies, issue to completion, show
// them: the best of three 4 MiB copies each way is within 10% of the 50 MB/s set, and the best
// of ten 4 KiB copies on a link with 50 ms latency takes 50 ms plus its 82 us of transfer,
// within 10% (the best of many: on a loaded machine a thread may wake late, never early; with
// a 2 ms latency, every one of twenty copies came out 2 ms late while a compiler ran).
double best_rate(streams::CopyEndpoint& e, streams::HostBuffer& host, Direction d, uint64_t bytes, int runs = 3) {
    double best = 0;
    for (int run = 0; run < runs; ++run) {
        const auto start = std::chrono::steady_clock::now();
        auto waited = e.wait(issue(e, d, 0, host, 0, 0, bytes), 5s);
        EXPECT_TRUE(waited.ok()) << waited.error().message();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::max(best, static_cast<double>(bytes) / took.count());
    }
    return best;
}

TEST(XdmaCopyEndpoint, CopyRatesAndLatencyComeOutAsTheLinkWasSet) {
    sim::XdmaConfig config = xdma_test::memory_design();
    config.card_memory_size = 0x800000;
    config.link_bytes_per_second = 50e6;
    Rig rig(config);
    auto e = open(rig, endpoint_config(0x800000));
    ASSERT_NE(e, nullptr);
    auto host = buffer(*e, 0x400000);
    for (Direction d : {Direction::H2C, Direction::C2H})
        EXPECT_NEAR(best_rate(*e, *host, d, 0x400000), 50e6, 5e6) << to_string(d);

    config.link_latency = 50ms;
    Rig slow(config);
    auto l = open(slow, endpoint_config(0x800000));
    ASSERT_NE(l, nullptr);
    auto small = buffer(*l, 0x1000);
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        const double seconds = 0x1000 / best_rate(*l, *small, d, 0x1000, 10);
        EXPECT_NEAR(seconds, 50.082e-3, 5e-3) << to_string(d);
    }
}

}  // namespace
