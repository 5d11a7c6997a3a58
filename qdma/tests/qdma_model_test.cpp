// The driver against sim's QDMA model on the built-in QDMA designs: MM copies on
// VD100_qdma_ddr4 and U200_qdma_ram, stream loopback on open-nic (channels and stream device), keyed data with poisoned
// destinations and every byte checked; a restart; and the model's faults and lies, which must
// make the driver fail or the data check fail, never pass unmoved data.
#include <gtest/gtest.h>

#include <cstring>

#include "copy_endpoint_calls.hpp"
#include "qdma/qdma_copy_endpoint.hpp"
#include "qdma/qdma_registers.hpp"
#include "qdma/qdma_stream_channel.hpp"
#include "qdma/qdma_stream_device.hpp"
#include "qdma_keyed_bytes.hpp"
#include "qdma_model_rig.hpp"
#include "test_support/failed_with.hpp"

namespace {

using namespace std::chrono_literals;
using namespace copy_endpoint_test;
using qdma_test::keyed;
using qdma_test::mismatches;
using test_support::failed_with;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

qdma::CopyEndpointConfig config_for(const std::string& name) {
    const designs::Design& d = qdma_model_test::design(name);
    qdma::CopyEndpointConfig c;
    c.name = "0000:15:00.0 " + name;
    c.function.bar = d.qdma->bar;
    c.card_memory_base = d.qdma->memory_base;
    c.card_memory_size = d.qdma->memory_size;
    c.queues = 2;
    c.ring_entries = 65;
    return c;
}

std::unique_ptr<streams::CopyEndpoint> open(sim::DesignInstance& instance, const std::string& name) {
    return opened(qdma::open_copy_endpoint(*instance.device, config_for(name)));
}

// A built-in QDMA design's simulated instance and the copy endpoint open on it (nullptr when it
// did not open: the test has failed).
struct OnModel {
    sim::DesignInstance instance;
    std::unique_ptr<streams::CopyEndpoint> e;
};
OnModel opened_on(const std::string& name) {
    OnModel on{qdma_model_test::instance(name), nullptr};
    on.e = open(on.instance, name);
    return on;
}

// H2C then C2H of `bytes` at `card_offset` on queue q; returns the C2H bytes that differ.
size_t round_trip(streams::CopyEndpoint& e, unsigned q, uint64_t card_offset, uint64_t bytes, uint32_t key) {
    auto out = buffer(e, bytes), in = buffer(e, bytes);
    keyed(out->data(), bytes, key);
    std::memset(in->data(), 0xA5, bytes);  // poisoned
    issue(e, streams::Direction::H2C, q, *out, 0, card_offset, bytes);
    auto waited = e.wait(issue(e, streams::Direction::C2H, q, *in, 0, card_offset, bytes), 5s);
    EXPECT_TRUE(waited.ok()) << waited.error().message();
    return mismatches(in->data(), bytes, key);
}

class QdmaOnModelMm : public ::testing::TestWithParam<const char*> {};

TEST_P(QdmaOnModelMm, KeyedCopiesEveryByteCheckedOnBothQueues) {
    auto [instance, e] = opened_on(GetParam());
    ASSERT_NE(e, nullptr);
    for (unsigned q = 0; q < 2; ++q) {
        const uint64_t bytes = 0x31000 + 12, offset = 0x100000 * q + 0x40;
        EXPECT_EQ(round_trip(*e, q, offset, bytes, 20 + q), 0u) << "queue " << q;
        std::vector<uint8_t> card(bytes);
        ASSERT_TRUE(instance.qdma->card_read(config_for(GetParam()).card_memory_base + offset, card.data(), bytes));
        EXPECT_EQ(mismatches(card.data(), bytes, 20 + q), 0u) << "card memory, queue " << q;
    }
    // The last bytes of the card memory.
    EXPECT_EQ(round_trip(*e, 1, e->info().card_memory_bytes - 0x2000, 0x2000, 77), 0u);
}

INSTANTIATE_TEST_SUITE_P(Designs, QdmaOnModelMm, ::testing::Values("VD100_qdma_ddr4", "U200_qdma_ram"));

TEST(QdmaOnModel, AQueueRestartsAndAReopenFindsItsQueuesClean) {
    auto instance = qdma_model_test::instance("VD100_qdma_ddr4");
    std::vector<std::string> warnings;
    auto c = config_for("VD100_qdma_ddr4");
    c.warn = [&](const std::string& line) { warnings.push_back(line); };
    {
        auto e = std::move(qdma::open_copy_endpoint(*instance.device, c)).value();
        EXPECT_EQ(round_trip(*e, 0, 0, 0x10000, 1), 0u);
        ASSERT_TRUE(e->reset_queues().ok());
        EXPECT_EQ(round_trip(*e, 0, 0x8000, 0x10000, 2), 0u);
    }
    // The first endpoint tore its queues down (qen invalidated): a second open finds none enabled.
    auto again = std::move(qdma::open_copy_endpoint(*instance.device, c)).value();
    EXPECT_TRUE(warnings.empty()) << warnings[0];
    EXPECT_EQ(round_trip(*again, 1, 0x4000, 0x9000, 3), 0u);
}

TEST(QdmaOnModel, AMovesNothingCardNeverVerifies) {
    auto [instance, e] = opened_on("U200_qdma_ram");
    ASSERT_NE(e, nullptr);
    instance.qdma->set_lie(streams::Lie{streams::Lie::Kind::MovesNothing});
    EXPECT_GT(round_trip(*e, 0, 0, 0x8000, 5), 0x7000u);
}

TEST(QdmaOnModel, AStaleCardFailsOnceItStopsMoving) {
    auto [instance, e] = opened_on("U200_qdma_ram");
    ASSERT_NE(e, nullptr);
    instance.qdma->set_lie(streams::Lie{streams::Lie::Kind::StaleAfter, 4});  // 4 descriptors move
    EXPECT_EQ(round_trip(*e, 0, 0, 0x8000, 6), 0u);      // one H2C and one C2H descriptor
    EXPECT_EQ(round_trip(*e, 0, 0x10000, 0x8000, 7), 0u);
    EXPECT_GT(round_trip(*e, 0, 0x20000, 0x8000, 8), 0x7000u);  // nothing moved: the check fails
}

TEST(QdmaOnModel, ACardThatCompletesEarlyFailsTheCheck) {
    auto [instance, e] = opened_on("U200_qdma_ram");
    ASSERT_NE(e, nullptr);
    instance.qdma->set_lie(streams::Lie{streams::Lie::Kind::CompletesEarly});
    EXPECT_GT(round_trip(*e, 0, 0, 0x8000, 9), 0u);  // the tail is not there when the copy completes
}

// One 4 KiB copy in direction `d` on `queue` of `e`, after `fault` was injected into that MM queue
// of the model: what its wait ends with.
pdt::Result<void> wait_after_fault(sim::DesignInstance& instance, streams::CopyEndpoint& e, streams::Direction d,
                                   unsigned queue, sim::QdmaFault fault, std::chrono::milliseconds timeout) {
    instance.qdma->inject(d == streams::Direction::H2C ? sim::QdmaQueueKind::H2C : sim::QdmaQueueKind::C2H, queue,
                          fault);
    auto host = buffer(e, 0x1000);
    return e.wait(issue(e, d, queue, *host, 0, 0, 0x1000), timeout);
}

// A fault of an MM queue, the wait it ends and what the error names.
struct MmQueueFault {
    const char* name;
    streams::Direction direction;
    unsigned queue;
    sim::QdmaFault fault;
    std::chrono::milliseconds timeout;
    int code;
    const char* names;
};

const MmQueueFault kMmQueueFaults[] = {
    {"descriptor error", streams::Direction::H2C, 1, sim::QdmaFault::DescriptorError, 5s, EIO,
     "descriptor fetch error"},
    {"stalled queue: the wait times out", streams::Direction::C2H, 0, sim::QdmaFault::QueueStall, 100ms, ETIMEDOUT,
     "C2H MM queue 0"},
};

// Each fault fails the wait naming it; the queues reset, the queue copies again.
TEST(QdmaOnModel, AnMmQueueFaultFailsTheWaitNamingItUntilTheQueuesReset) {
    for (const MmQueueFault& f : kMmQueueFaults) {
        SCOPED_TRACE(f.name);
        auto [instance, e] = opened_on("VD100_qdma_ddr4");
        ASSERT_NE(e, nullptr);
        EXPECT_TRUE(failed_with(wait_after_fault(instance, *e, f.direction, f.queue, f.fault, f.timeout), f.code,
                                f.names));
        ASSERT_TRUE(e->reset_queues().ok());
        EXPECT_EQ(round_trip(*e, f.queue, 0, 0x1000, 10), 0u);
    }
}

}  // namespace

namespace {

struct StreamLoop {
    std::shared_ptr<qdma::Function> function;
    std::unique_ptr<streams::StreamChannel> h2c, c2h;
};

StreamLoop open_stream_loop(sim::DesignInstance& instance, uint32_t qid, size_t count = 8, uint64_t c2h_size = 4096) {
    StreamLoop loop;
    qdma::FunctionOptions options;
    options.bar = qdma_model_test::design("open-nic").qdma->bar;
    auto f = qdma::Function::open(*instance.device, options);
    EXPECT_TRUE(f.ok()) << f.error().message();
    if (!f.ok()) return loop;
    loop.function = std::move(f).value();
    auto h2c = qdma::open_stream_channel(loop.function, streams::Direction::H2C, qid, {count, 0x8000});
    auto c2h = qdma::open_stream_channel(loop.function, streams::Direction::C2H, qid, {count, c2h_size});
    EXPECT_TRUE(h2c.ok()) << h2c.error().message();
    EXPECT_TRUE(c2h.ok()) << c2h.error().message();
    if (h2c.ok()) loop.h2c = std::move(h2c).value();
    if (c2h.ok()) loop.c2h = std::move(c2h).value();
    for (size_t b = 0; loop.c2h && b < count; ++b) {
        std::memset(loop.c2h->buffer(b), 0xA5, c2h_size);  // poisoned
        EXPECT_TRUE(loop.c2h->submit(b, c2h_size, false).ok());
    }
    return loop;
}

// Sends a packet of `bytes` and receives it; the bytes that differ (every byte checked), or
// `bytes` when it did not come back whole.
size_t packet_round_trip(StreamLoop& loop, size_t h2c_buffer, uint64_t bytes, uint32_t key, uint32_t* buffers = nullptr) {
    keyed(loop.h2c->buffer(h2c_buffer), bytes, key);
    EXPECT_TRUE(loop.h2c->submit(h2c_buffer, bytes, true).ok());
    auto sent = loop.h2c->wait(5s);
    EXPECT_TRUE(sent.ok()) << sent.error().message();
    std::vector<uint8_t> got;
    uint32_t used = 0;
    for (;;) {
        auto done = loop.c2h->wait(5s);
        EXPECT_TRUE(done.ok()) << done.error().message();
        if (!done.ok()) return bytes;
        uint8_t* b = loop.c2h->buffer(done->buffer);
        got.insert(got.end(), b, b + done->length);
        std::memset(b, 0xA5, loop.c2h->buffer_size());  // poisoned again before it goes back
        EXPECT_TRUE(loop.c2h->submit(done->buffer, loop.c2h->buffer_size(), false).ok());
        ++used;
        if (done->end_of_packet) break;
    }
    if (buffers) *buffers = used;
    if (got.size() != bytes) return bytes;
    return mismatches(got.data(), bytes, key);
}

TEST(QdmaOnModelStream, OpenNicPacketsLoopBackAcrossColorWrapsEveryByteChecked) {
    auto instance = qdma_model_test::instance("open-nic");
    StreamLoop loop = open_stream_loop(instance, 3);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    for (uint32_t i = 0; i < 50; ++i)  // the 17-entry completion ring wraps three times
        ASSERT_EQ(packet_round_trip(loop, i % 8, 60 + 97 * i, 300 + i), 0u) << "packet " << i;
    uint32_t buffers = 0;
    EXPECT_EQ(packet_round_trip(loop, 0, 0x7000 + 3, 400, &buffers), 0u);
    EXPECT_EQ(buffers, 8u);  // 7 whole 4 KiB buffers and 3 bytes
}

TEST(QdmaOnModelStream, OpenNicHasNoMmEngines) {
    auto instance = qdma_model_test::instance("open-nic");
    qdma::CopyEndpointConfig c;
    c.card_memory_size = 0x1000;
    auto e = qdma::open_copy_endpoint(*instance.device, c);
    EXPECT_TRUE(failed_with(e, ENODEV, "H2C_ENG"));
}

TEST(QdmaOnModelStream, AMovesNothingCardNeverVerifies) {
    auto instance = qdma_model_test::instance("open-nic");
    StreamLoop loop = open_stream_loop(instance, 0);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    instance.qdma->set_lie(streams::Lie{streams::Lie::Kind::MovesNothing});
    EXPECT_GT(packet_round_trip(loop, 0, 4000, 11), 3900u);
}

TEST(QdmaOnModelStream, ACompletionErrorFailsAndStopRecovers) {
    auto instance = qdma_model_test::instance("open-nic");
    StreamLoop loop = open_stream_loop(instance, 5);
    ASSERT_TRUE(loop.h2c && loop.c2h);
    instance.qdma->inject(sim::QdmaQueueKind::C2H, 5, sim::QdmaFault::CompletionError);
    keyed(loop.h2c->buffer(0), 256, 1);
    ASSERT_TRUE(loop.h2c->submit(0, 256, true).ok());
    ASSERT_TRUE(loop.h2c->wait(5s).ok());
    auto failed = loop.c2h->wait(5s);
    EXPECT_TRUE(failed_with(failed, EIO, "error bit set"));
    ASSERT_TRUE(loop.c2h->stop().ok());
    for (size_t b = 0; b < loop.c2h->buffer_count(); ++b)
        ASSERT_TRUE(loop.c2h->submit(b, loop.c2h->buffer_size(), false).ok());
    EXPECT_EQ(packet_round_trip(loop, 1, 1000, 12), 0u);
}

}  // namespace


namespace {

TEST(QdmaOnModelStreamDevice, OpenNicAsAStreamDeviceLoopsEachRoute) {
    auto instance = qdma_model_test::instance("open-nic");
    qdma::StreamDeviceConfig config;
    config.design_name = "open-nic";
    config.channels = 2;
    config.routes = {{0, 0}, {1, 1}};
    auto opened = qdma::open_stream_device(*instance.device, config);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    streams::StreamDevice& device = **opened;
    EXPECT_EQ(device.design_name(), "open-nic");
    EXPECT_EQ(device.h2c_channels(), 2u);
    EXPECT_EQ(device.routes().size(), 2u);
    for (const streams::LoopRoute& route : device.routes()) {
        StreamLoop loop;
        auto h2c = device.open_channel(streams::Direction::H2C, route.h2c, {4, 0x4000});
        auto c2h = device.open_channel(streams::Direction::C2H, route.c2h, {4, 4096});
        ASSERT_TRUE(h2c.ok() && c2h.ok());
        loop.h2c = std::move(h2c).value();
        loop.c2h = std::move(c2h).value();
        for (size_t b = 0; b < 4; ++b)
            ASSERT_TRUE(loop.c2h->submit(b, 4096, false).ok());
        EXPECT_EQ(packet_round_trip(loop, 0, 5000, 500 + route.h2c), 0u) << "route " << route.h2c;
    }
    auto past = device.open_channel(streams::Direction::C2H, 2, {4, 4096});
    ASSERT_FALSE(past.ok());
    EXPECT_TRUE(has(past.error().message(), "the device has 2 stream channel(s) each way")) << past.error().message();
}

TEST(QdmaOnModelStreamDevice, AMemoryMappedQdmaHasNoStreamQueues) {
    auto instance = qdma_model_test::instance("VD100_qdma_ddr4");
    qdma::StreamDeviceConfig config;
    config.design_name = "VD100_qdma_ddr4";
    auto opened = qdma::open_stream_device(*instance.device, config);
    EXPECT_TRUE(failed_with(opened, ENODEV, "H2C_ST 0, C2H_ST 0"));
    config.routes = {{0, 3}};
    auto route = qdma::open_stream_device(*instance.device, config);
    ASSERT_FALSE(route.ok());
    EXPECT_TRUE(has(route.error().message(), "route H2C 0 -> C2H 3 names a channel past 0")) << route.error().message();
}

}  // namespace

namespace {

TEST(QdmaOnModelInterrupts, CopiesCompleteOnTheAggregationRingsInterrupt) {
    auto instance = qdma_model_test::instance("U200_qdma_ram");
    auto c = config_for("U200_qdma_ram");
    c.interrupts = true;
    c.interrupt_ring = 3;
    c.msi_vector = 2;
    auto e = qdma::open_copy_endpoint(*instance.device, c);
    ASSERT_TRUE(e.ok()) << e.error().message();
    for (unsigned q = 0; q < 2; ++q)
        EXPECT_EQ(round_trip(**e, q, 0x10000 * q, 0x18000 + 8, 40 + q), 0u) << "queue " << q;
    // The interrupts came: the vector's eventfd was signalled and read (0 left pending).
    const qdma::InterruptContext ring = qdma::InterruptContext::decode([&] {
        auto f = qdma::Function::open(*instance.device, {});
        return f.ok() ? (*f)->context_read(3, 0x8).value() : std::array<uint32_t, 8>{};
    }());
    EXPECT_TRUE(ring.valid);
    EXPECT_EQ(ring.vec, 2);
    EXPECT_GT(ring.pidx, 0u);  // entries were written to the ring
}

TEST(QdmaOnModelInterrupts, AMovesNothingCardStillNeverVerifies) {
    auto instance = qdma_model_test::instance("U200_qdma_ram");
    auto c = config_for("U200_qdma_ram");
    c.interrupts = true;
    auto e = qdma::open_copy_endpoint(*instance.device, c);
    ASSERT_TRUE(e.ok()) << e.error().message();
    instance.qdma->set_lie(streams::Lie{streams::Lie::Kind::MovesNothing});
    EXPECT_GT(round_trip(**e, 0, 0, 0x8000, 41), 0x7000u);
}

TEST(QdmaOnModelInterrupts, ARingPastTheContextsIsRefused) {
    auto instance = qdma_model_test::instance("U200_qdma_ram");
    auto c = config_for("U200_qdma_ram");
    c.interrupts = true;
    c.interrupt_ring = 256;
    auto e = qdma::open_copy_endpoint(*instance.device, c);
    EXPECT_TRUE(failed_with(e, EINVAL, "ring 256 (0..255)"));
}

}  // namespace
