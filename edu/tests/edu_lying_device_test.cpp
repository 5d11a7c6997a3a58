// The lying edu (streams::Lie on sim::EduModel, docs/verification.md) on the register model (sim label): what each
// lie does to the data, and that no data check passes on it: the measurement library's checks
// over the edu copy endpoint, and the stream-test driver of the test_dma_bridge* tools over the
// edu loopback channels, each of which passes on the honest model.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "edu/edu_copy_endpoint.hpp"
#include "edu/edu_stream.hpp"
#include "measure/subcommands.hpp"
#include "sim/edu_model.hpp"
#include "stream_test/driver.hpp"

namespace edu {
namespace {

using streams::Direction;
using streams::HostMemory;
using Kind = streams::Lie::Kind;
using namespace std::chrono_literals;

const vfio::PciAddress kAddress = vfio::PciAddress::parse("0000:01:00.0").value();

sim::EduModelOptions lying(streams::Lie lie) {
    sim::EduModelOptions o;
    o.dma_delay = std::chrono::microseconds(200);
    o.lie = lie;
    return o;
}

// Every lie the tests run, by its spelling.
struct NamedLie {
    const char* text;
    streams::Lie lie;
};
const NamedLie kLies[] = {
    {"moves_nothing", {Kind::MovesNothing, 0}},
    {"stale_after=0", {Kind::StaleAfter, 0}},
    {"stale_after=1", {Kind::StaleAfter, 1}},
    {"stale_after=3", {Kind::StaleAfter, 3}},
    {"stale_after=6", {Kind::StaleAfter, 6}},
    {"completes_early", {Kind::CompletesEarly, 0}},
};

// What the model does, copy by copy, through the endpoint (the copies themselves all succeed).
struct Model : ::testing::Test {
    void open(streams::Lie lie) {
        sim = sim::make_sim_edu(kAddress, lying(lie));
        auto opened = open_copy_endpoint(*sim.device, {});
        ASSERT_TRUE(opened) << opened.error().message();
        ep = std::move(*opened);
        auto a = ep->allocate(4095, HostMemory::Registered), b = ep->allocate(4095, HostMemory::Registered);
        ASSERT_TRUE(a && b);
        out = std::move(*a), in = std::move(*b);
    }
    void copy(Direction d, streams::HostBuffer& host, uint64_t bytes) {
        auto copied = measure::copy(*ep, d, 0, host, 0, 0, bytes, 2s);
        ASSERT_TRUE(copied) << copied.error().message();
    }
    void TearDown() override {
        ep.reset();
        if (sim.model) {
            EXPECT_EQ(sim.model->qemu72_aborts(), 0u);
        }
    }
    sim::SimEdu sim;
    std::unique_ptr<streams::CopyEndpoint> ep;
    std::unique_ptr<streams::HostBuffer> out, in;
};

TEST_F(Model, MovesNothingCompletesEveryTransferAndMovesNoByte) {
    open({Kind::MovesNothing, 0});
    std::memset(out->data(), 0x5a, 4095);
    std::memset(in->data(), 0xc3, 4095);
    copy(Direction::H2C, *out, 4095);
    copy(Direction::C2H, *in, 4095);
    EXPECT_EQ(sim.model->transfers(), 2u);
    for (size_t i = 0; i < 4095; ++i) {
        ASSERT_EQ(sim.model->buffer()[i], 0) << "edu buffer byte " << i;
        ASSERT_EQ(in->data()[i], 0xc3) << "host byte " << i;
    }
}

TEST_F(Model, StaleAfterMovesTheFirstNTransfersOfBothDirections) {
    open({Kind::StaleAfter, 2});
    std::memset(out->data(), 0x11, 100);
    copy(Direction::H2C, *out, 100);  // transfer 1 moves
    copy(Direction::C2H, *in, 100);   // transfer 2 moves
    EXPECT_EQ(in->data()[99], 0x11);
    std::memset(out->data(), 0x22, 100);
    std::memset(in->data(), 0xee, 100);
    copy(Direction::H2C, *out, 100);  // transfer 3 does not
    copy(Direction::C2H, *in, 100);   // nor 4
    EXPECT_EQ(sim.model->buffer()[0], 0x11);
    EXPECT_EQ(in->data()[0], 0xee);
    EXPECT_EQ(sim.model->transfers(), 4u);
}

TEST_F(Model, CompletesEarlyLandsTheLast64BytesAtTheNextCommand) {
    open({Kind::CompletesEarly, 0});
    std::memset(out->data(), 0x77, 1000);
    copy(Direction::H2C, *out, 1000);
    EXPECT_EQ(sim.model->buffer()[935], 0x77);
    EXPECT_EQ(sim.model->buffer()[936], 0) << "completed before its last 64 bytes landed";
    std::memset(in->data(), 0xee, 1000);
    copy(Direction::C2H, *in, 1000);  // its command lands the H2C tail first
    EXPECT_EQ(sim.model->buffer()[999], 0x77);
    EXPECT_EQ(in->data()[935], 0x77);
    EXPECT_EQ(in->data()[936], 0xee) << "completed before its last 64 bytes landed";
    copy(Direction::H2C, *out, 10);  // a shorter copy: all of it held back; the C2H tail lands
    EXPECT_EQ(in->data()[999], 0x77);
    ASSERT_TRUE(sim.model->buffer()[0] == 0x77);  // from the first copy
    sim.model->buffer()[0] = 0;
    copy(Direction::C2H, *in, 10);
    EXPECT_EQ(sim.model->buffer()[0], 0x77) << "the 10-byte H2C landed at this command";
}

// The measurement library's checks over the edu copy endpoint: latency and sweep fail with a
// data check on every lie, and pass on the honest model.
struct Measure : ::testing::Test {
    pdt::Result<void> run(const char* subcommand, streams::Lie lie) {
        sim = sim::make_sim_edu(kAddress, lying(lie));
        auto opened = open_copy_endpoint(*sim.device, {});
        if (!opened)
            return std::move(opened).error();
        std::ostringstream silent;
        measure::Progress progress{silent, false};
        uint64_t verified = 0;
        std::vector<std::string> warnings;
        if (std::string(subcommand) == "latency") {
            measure::LatencySettings s;
            s.samples = 3, s.max_gap_us = 100;
            auto r = measure::run_latency(**opened, s, {}, progress, verified, warnings);
            return r ? pdt::Result<void>{} : pdt::Result<void>{std::move(r).error()};
        }
        measure::SweepSettings s;
        s.min_bytes = 1024, s.max_bytes = 2048, s.repeats = 1, s.iterations = 2;
        auto r = measure::run_sweep(**opened, s, {}, progress, verified, warnings);
        return r ? pdt::Result<void>{} : pdt::Result<void>{std::move(r).error()};
    }
    sim::SimEdu sim;
};

TEST_F(Measure, EveryLieFailsADataCheck) {
    for (const char* subcommand : {"latency", "sweep"}) {
        auto honest = run(subcommand, {});
        EXPECT_TRUE(honest) << subcommand << " on the honest edu: " << honest.error().message();
        for (const NamedLie& l : kLies) {
            auto r = run(subcommand, l.lie);
            ASSERT_FALSE(r) << subcommand << " passed on the edu that lies " << l.text;
            EXPECT_EQ(r.error().code, EIO) << r.error().message();
            EXPECT_NE(r.error().message().find("data check"), std::string::npos)
                << subcommand << ", " << l.text << ": " << r.error().message();
        }
    }
}

// The stream-test driver (as test_dma_bridge_parallel_streams runs it) over the edu loopback.
struct Quiet final : stream_test::Observer {
    void on_interval(const std::vector<std::pair<std::string, stream_test::Interval>>&) override {}
};

constexpr uint64_t kPacket = 2048;
constexpr uint64_t kPackets = 12;

struct DriverRun {
    stream_test::Summary summary;
    std::string c2h_name;
};

DriverRun run_driver(streams::Lie lie) {
    DriverRun run;
    sim::SimEdu sim = sim::make_sim_edu(kAddress, lying(lie));
    EXPECT_TRUE(sim.device->enable_bus_master());
    auto attached = EduDevice::attach(*sim.device);
    EXPECT_TRUE(attached);
    if (!attached)
        return run;
    EduDevice edu = std::move(attached).value();
    auto created = EduLoopback::create(edu, {.buffers = 3, .buffer_size = kPacket});
    EXPECT_TRUE(created) << created.error().message();
    if (!created)
        return run;
    std::unique_ptr<EduLoopback> loop = std::move(created).value();
    run.c2h_name = loop->c2h().name();
    stream_test::Options options;
    options.transfer_timeout = 5s;
    options.duration = 30s;  // a safety net: bytes_per_source ends the run
    options.bytes_per_source = kPackets * kPacket;
    stream_test::StreamTest test(options);
    auto source = test.add_source(loop->h2c(), 0);
    EXPECT_TRUE(source);
    auto sink = source ? test.add_sink(loop->c2h(), *source) : pdt::Result<size_t>(source.error());
    EXPECT_TRUE(sink);
    if (!sink)
        return run;
    test.add_pair_row("0000:01:00.0 0 -> 0", *sink);
    Quiet quiet;
    run.summary = test.run(quiet);
    return run;
}

TEST(EduLoopbackLie, TheDriverPassesTheHonestEdu) {
    const DriverRun run = run_driver({});
    EXPECT_TRUE(run.summary.passed());
    ASSERT_EQ(run.summary.rows.size(), 1u);
    EXPECT_EQ(run.summary.rows[0].words_verified * 4, kPackets * kPacket);
}

// Each lie fails the run with a data error on the C2H channel: what came back is not what this
// packet sent (the edu buffer's stale contents, or poison, or a tail that had not landed).
TEST(EduLoopbackLie, TheDriverFailsEveryLie) {
    for (const NamedLie& l : kLies) {
        const DriverRun run = run_driver(l.lie);
        EXPECT_FALSE(run.summary.passed()) << "the driver passed the edu that lies " << l.text;
        ASSERT_FALSE(run.summary.failures.empty()) << l.text;
        const stream_test::Failure& failure = run.summary.failures.front();
        EXPECT_EQ(failure.channel, run.c2h_name) << l.text << ": " << failure.message;
        EXPECT_NE(failure.message.find("data error"), std::string::npos) << l.text << ": " << failure.message;
        EXPECT_NE(failure.message.find("stream offset 0x"), std::string::npos) << l.text << ": " << failure.message;
        ASSERT_TRUE(failure.mismatch.has_value()) << l.text << ": " << failure.message;
        if (l.lie.kind == Kind::CompletesEarly) {  // a packet's last 64 bytes had not landed
            ASSERT_TRUE(failure.stream_byte_offset.has_value());
            EXPECT_EQ(*failure.stream_byte_offset % kPacket, kPacket - 64) << failure.message;
            // Not only the last packet, whose tail has no next transfer to land at: a loopback
            // that starts the next transfer before the check lets every earlier tail land in time.
            EXPECT_LT(*failure.stream_byte_offset, (kPackets - 1) * kPacket) << failure.message;
        }
    }
}

}  // namespace
}  // namespace edu
