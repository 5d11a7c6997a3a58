// The edu loopback stream pair on the edu register model: packets sent H2C come back C2H in
// order, every byte; misuse and timeouts are reported with the channel's name.
#include <gtest/gtest.h>

#include <cstring>

#include "edu/edu_stream.hpp"
#include "loopback_packet.hpp"
#include "sim/edu_model.hpp"

namespace edu {
namespace {

using sim::SimEdu;
using sim::make_sim_edu;

using namespace std::chrono_literals;

struct Loopback : ::testing::Test {
    void SetUp() override {
        sim = make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value(), {.dma_delay = std::chrono::microseconds(200)});
        ASSERT_TRUE(sim.device->enable_bus_master().ok());
        edu.emplace(std::move(EduDevice::attach(*sim.device)).value());
        auto created = EduLoopback::create(*edu, {.buffers = 3, .buffer_size = 1024});
        ASSERT_TRUE(created.ok()) << created.error().message();
        loop = std::move(created).value();
    }
    void TearDown() override {
        loop.reset();
        EXPECT_EQ(sim.model->qemu72_aborts(), 0u);
    }
    SimEdu sim;
    std::optional<EduDevice> edu;
    std::unique_ptr<EduLoopback> loop;
};

TEST_F(Loopback, PacketsComeBackInOrder) {
    auto& h2c = loop->h2c();
    auto& c2h = loop->c2h();
    EXPECT_EQ(h2c.name(), "0000:01:00.0 H2C 0");
    EXPECT_EQ(c2h.direction(), streams::Direction::C2H);
    ASSERT_EQ(h2c.buffer_count(), 3u);
    ASSERT_EQ(c2h.buffer_size(), 1024u);
    for (size_t b = 0; b < 3; ++b) {
        for (size_t i = 0; i < 1024; ++i)
            h2c.buffer(b)[i] = static_cast<uint8_t>(b * 31 + i);
        std::memset(c2h.buffer(b), 0xff, 1024);
    }
    for (size_t b = 0; b < 3; ++b) {
        ASSERT_TRUE(h2c.submit(b, 1000 + b, b == 2).ok());
        ASSERT_TRUE(c2h.submit(b, 1024, false).ok());
    }
    EXPECT_TRUE(h2c.busy());
    for (size_t b = 0; b < 3; ++b) {
        ASSERT_TRUE(stream_channel_test::packet_came_back(h2c, b, c2h, b, 1000 + b, b == 2, 5s));
        EXPECT_EQ(c2h.buffer(b)[1000 + b], 0xff);
    }
    EXPECT_FALSE(h2c.busy());
    EXPECT_FALSE(c2h.busy());
    EXPECT_EQ(sim.model->transfers(), 6u);
}

TEST_F(Loopback, ReceiveWithoutSendTimesOut) {
    ASSERT_TRUE(loop->c2h().submit(0, 100, false).ok());
    auto r = loop->c2h().wait(20ms);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ETIMEDOUT);
    EXPECT_NE(r.error().message().find("0000:01:00.0 C2H 0"), std::string::npos);
    EXPECT_NE(r.error().message().find("receives only what H2C sent"), std::string::npos);
    ASSERT_TRUE(loop->c2h().stop().ok());
    EXPECT_FALSE(loop->c2h().busy());
}

TEST_F(Loopback, SubmitChecksBufferAndLength) {
    auto bad_index = loop->h2c().submit(3, 10, false);
    ASSERT_FALSE(bad_index.ok());
    EXPECT_NE(bad_index.error().message().find("buffer 3 of 3"), std::string::npos);
    auto empty = loop->h2c().submit(0, 0, false);
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().message().find("length 0 outside 1..1024"), std::string::npos);
    EXPECT_FALSE(loop->h2c().submit(0, 1025, false).ok());
}

TEST_F(Loopback, PollIsEmptyBeforeCompletion) {
    auto nothing = loop->h2c().poll();
    ASSERT_TRUE(nothing.ok());
    EXPECT_FALSE(nothing->has_value());
}

TEST(LoopbackCreate, RejectsBuffersEduCannotMove) {
    SimEdu sim = make_sim_edu(vfio::PciAddress::parse("0000:01:00.0").value());
    EduDevice edu = std::move(EduDevice::attach(*sim.device)).value();
    auto r = EduLoopback::create(edu, {.buffers = 2, .buffer_size = 4096});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, EINVAL);
    EXPECT_NE(r.error().message().find("1..4095 bytes"), std::string::npos);
}

}  // namespace
}  // namespace edu
