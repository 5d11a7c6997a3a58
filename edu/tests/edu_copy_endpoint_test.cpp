// The edu copy endpoint (edu::open_copy_endpoint) on the register model of edu (sim label): the
// limits it reports, data moved both ways, every refusal made before the device sees a transfer
// QEMU 7.2 would abort on, one copy at a time, timeouts, and the measurement tool's latency and
// sweep on it honouring its 4095-byte window.
#include <gtest/gtest.h>

#include "measure/staged.hpp"

#include <cstring>
#include <sstream>

#include "edu/edu_copy_endpoint.hpp"
#include "measure/subcommands.hpp"
#include "sim/edu_model.hpp"
#include "test_support/failed_with.hpp"

namespace edu {
namespace {

using streams::Direction;
using streams::HostMemory;
using test_support::failed_with;
using namespace std::chrono_literals;

sim::EduModelOptions delayed(std::chrono::microseconds delay) {
    sim::EduModelOptions o;
    o.dma_delay = delay;
    return o;
}

sim::EduModelOptions hanging() {
    sim::EduModelOptions o;
    o.dma_hangs = true;
    return o;
}

struct Endpoint : ::testing::Test {
    void open(sim::EduModelOptions options = {}, CopyEndpointConfig config = {}) {
        sim = sim::make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value(), options);
        auto opened = open_copy_endpoint(*sim.device, config);
        ASSERT_TRUE(opened) << opened.error().message();
        ep = std::move(*opened);
    }
    std::unique_ptr<streams::HostBuffer> buffer(uint64_t bytes = 4095) {
        auto b = ep->allocate(bytes, HostMemory::Registered);
        EXPECT_TRUE(b) << b.error().message();
        return b ? std::move(*b) : nullptr;
    }
    void TearDown() override {
        ep.reset();
        if (sim.model) {
            EXPECT_EQ(sim.model->qemu72_aborts(), 0u) << "a transfer QEMU 7.2 would abort on reached the device";
        }
    }
    sim::SimEdu sim;
    std::unique_ptr<streams::CopyEndpoint> ep;
};

TEST_F(Endpoint, ReportsEdusLimits) {
    open();
    const streams::EndpointInfo& info = ep->info();
    EXPECT_EQ(info.name, "edu 0000:01:00.0");
    EXPECT_EQ(info.pci_address, "0000:01:00.0");
    EXPECT_EQ(info.card_memory_bytes, 4095u);
    EXPECT_EQ(info.max_copy_bytes, 4095u);
    EXPECT_EQ(info.queues, 1u);
    EXPECT_EQ(info.max_in_flight, 1u);
    EXPECT_FALSE(info.can_launch);
}

TEST_F(Endpoint, ASimulatedEduNamesNoFunction) {
    CopyEndpointConfig config;
    config.name = "simulated edu", config.report_pci_address = false;
    open({}, config);
    EXPECT_EQ(ep->info().name, "simulated edu");
    EXPECT_EQ(ep->info().pci_address, "");
}

TEST_F(Endpoint, OpeningSetsBusMaster) {
    sim = sim::make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value());
    EXPECT_FALSE(sim.device->bus_master_enabled());
    auto opened = open_copy_endpoint(*sim.device, {});
    ASSERT_TRUE(opened) << opened.error().message();
    EXPECT_TRUE(sim.device->bus_master_enabled());
}

TEST(EduEndpoint, ADeviceThatIsNoEduIsRefused) {
    sim::SimEdu sim = sim::make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value(), {.identification = 0x12345678});
    auto opened = open_copy_endpoint(*sim.device, {});
    EXPECT_TRUE(failed_with(opened, ENODEV, "read 0x12345678"));
}

TEST_F(Endpoint, CopiesMoveTheBytesBothWays) {
    open();
    auto out = buffer(), in = buffer();
    for (uint64_t i = 0; i < 4095; ++i)
        out->data()[i] = static_cast<uint8_t>(i * 7 + 3);
    auto h2c = ep->issue(Direction::H2C, 0, *out, 0, 0, 4095);
    ASSERT_TRUE(h2c) << h2c.error().message();
    ASSERT_TRUE(ep->wait(*h2c, 2s));
    EXPECT_EQ(std::memcmp(sim.model->buffer().data(), out->data(), 4095), 0);
    EXPECT_EQ(sim.model->buffer()[4095], 0) << "the last byte of edu's buffer is never touched";
    // A part of the card read back at an offset, into an offset of the host buffer.
    auto c2h = ep->issue(Direction::C2H, 0, *in, 100, 1000, 2000);
    ASSERT_TRUE(c2h) << c2h.error().message();
    ASSERT_TRUE(ep->wait(*c2h, 2s));
    EXPECT_EQ(std::memcmp(in->data() + 100, out->data() + 1000, 2000), 0);
    EXPECT_EQ(sim.model->transfers(), 2u);
    ASSERT_TRUE(ep->wait(*h2c, 2s)) << "an earlier ticket is complete";
}

TEST_F(Endpoint, WhatQemuWouldAbortOnIsRefusedBeforeTheDevice) {
    open();
    auto host = buffer(8192);
    auto zero = ep->issue(Direction::H2C, 0, *host, 0, 0, 0);
    EXPECT_TRUE(failed_with(zero, EINVAL, "aborts the VM on a 0-byte DMA"));
    for (auto [offset, bytes] : {std::pair<uint64_t, uint64_t>{0, 4096}, {1, 4095}, {4095, 1}, {4096, 1}}) {
        auto beyond = ep->issue(Direction::C2H, 0, *host, 0, offset, bytes);
        ASSERT_FALSE(beyond) << offset << "+" << bytes;
        EXPECT_EQ(beyond.error().code, ERANGE);
        EXPECT_NE(beyond.error().message().find("beyond edu's card window of 4095 bytes"), std::string::npos)
            << beyond.error().message();
    }
    EXPECT_EQ(sim.model->transfers(), 0u);
}

TEST_F(Endpoint, RefusesOtherQueuesAndBuffersItCannotReach) {
    open();
    auto host = buffer();
    auto queue = ep->issue(Direction::H2C, 1, *host, 0, 0, 64);
    ASSERT_FALSE(queue);
    EXPECT_NE(queue.error().message().find("edu has 1 queue, numbered 0"), std::string::npos) << queue.error().message();
    auto pageable = ep->allocate(4095, HostMemory::Pageable);
    ASSERT_TRUE(pageable);
    auto refused = ep->issue(Direction::H2C, 0, **pageable, 0, 0, 64);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message().find("the host buffer is pageable"), std::string::npos);
    auto outside = ep->issue(Direction::H2C, 0, *host, 4000, 0, 200);
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.error().message().find("beyond the host buffer"), std::string::npos);
    EXPECT_EQ(sim.model->transfers(), 0u);
    auto none = ep->wait({0, 5}, 10ms);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message().find("no copy 5 was issued on queue 0"), std::string::npos);
}

TEST_F(Endpoint, OneCopyAtATime) {
    open(delayed(50ms));
    auto host = buffer();
    auto first = ep->issue(Direction::H2C, 0, *host, 0, 0, 64);
    ASSERT_TRUE(first);
    auto second = ep->issue(Direction::H2C, 0, *host, 0, 64, 64);
    EXPECT_TRUE(failed_with(second, EBUSY, "copy 0 is still running"));
    ASSERT_TRUE(ep->wait(*first, 2s));
    EXPECT_TRUE(ep->issue(Direction::H2C, 0, *host, 0, 64, 64));
    ASSERT_TRUE(ep->reset_queues());
}

TEST_F(Endpoint, ASlowTransferTimesOutThenResetLetsItEnd) {
    open(delayed(200ms));
    auto host = buffer();
    auto copy = ep->issue(Direction::C2H, 0, *host, 0, 0, 512);
    ASSERT_TRUE(copy);
    auto waited = ep->wait(*copy, 20ms);
    EXPECT_TRUE(failed_with(waited, ETIMEDOUT, "wait for copy 0: wait for DMA edu 0000:01:00.0 BAR0 DMA_CMD"));
    auto unusable = ep->issue(Direction::C2H, 0, *host, 0, 0, 512);
    ASSERT_FALSE(unusable);
    EXPECT_NE(unusable.error().message().find("unusable until reset_queues"), std::string::npos);
    ASSERT_TRUE(ep->reset_queues());
    auto again = ep->issue(Direction::C2H, 0, *host, 0, 0, 512);
    ASSERT_TRUE(again) << again.error().message();
    EXPECT_TRUE(ep->wait(*again, 2s));
}

TEST_F(Endpoint, AHungEduCannotBeReset) {
    CopyEndpointConfig config;
    config.drain_timeout = 50ms;
    open(hanging(), config);
    auto host = buffer();
    auto copy = ep->issue(Direction::H2C, 0, *host, 0, 0, 512);
    ASSERT_TRUE(copy);
    EXPECT_FALSE(ep->wait(*copy, 20ms));
    auto reset = ep->reset_queues();
    EXPECT_TRUE(failed_with(reset, ETIMEDOUT, "copy 0 still running after 50 ms (edu cannot abort a transfer)"));
}

// The measurement library on the edu endpoint: the default 4 KiB latency copies do not fit edu;
// they are clamped to 4095 bytes and said so, every sample is one edu transfer (its delay is the
// latency), and the bytes are verified.
TEST_F(Endpoint, LatencyIsClampedToEdusWindowAndShowsItsDelay) {
    open(delayed(3ms));
    std::ostringstream silent;
    measure::Progress progress{silent, false};
    measure::LatencySettings s;
    s.samples = 3, s.max_gap_us = 100;
    uint64_t verified = 0;
    std::vector<std::string> warnings;
    auto r = measure::run_latency(*ep, s, {}, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->bytes, 4095u);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "latency: 4 KiB copies do not fit the card window of 4095 bytes of edu 0000:01:00.0: "
                           "measured 4095 B copies instead");
    for (const measure::LatencyMode& m : r->modes)
        EXPECT_GE(m.p50, 3000.0) << m.mode;
    EXPECT_EQ(verified, 4u * 3u * 4095) << "every timed copy: 4 modes x 3 samples";
}

TEST_F(Endpoint, ASweepLeavesOutWhatEduCannotCopy) {
    open(delayed(1ms));
    std::ostringstream silent;
    measure::Progress progress{silent, false};
    measure::SweepSettings s;
    s.min_bytes = 1024, s.max_bytes = 8192, s.repeats = 1, s.iterations = 2;
    uint64_t verified = 0;
    std::vector<std::string> warnings;
    auto r = measure::run_sweep(*ep, s, {}, progress, verified, warnings);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->points.size(), 2u * 4);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "sweep: 4 KiB to 8 KiB left out: larger than the card window of 4095 bytes of edu 0000:01:00.0");
    // Every timed copy (4 variants x 2 copies) and the staged path's calibration: both
    // directions, kCalibrationCopies copies of the largest size the host buffers hold (2 KiB).
    EXPECT_EQ(verified, 2u * 4u * (1024 + 2048) + 2u * measure::kCalibrationCopies * 2048)
        << "every timed copy and every calibration copy";
}

}  // namespace
}  // namespace edu
