// The XDMA driver against the register-level model: discovery, every transfer kind with every
// run mode and completion method, splitting, ring wrap, credits, adjacency.
#include <chrono>
#include <tuple>

#include "dma_bridge/xdma_descriptor.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "xdma_rig.hpp"

using namespace xdma_test;

TEST(XdmaDiscovery, CountsChannelsAndReportsAlignments) {
    Rig rig(memory_design(true));
    auto regs = xdma::dma_registers(*rig.device, 0);
    ASSERT_TRUE(regs.ok()) << regs.error().message();
    auto mm = xdma::discover(*regs, false);
    ASSERT_TRUE(mm.ok());
    ASSERT_EQ(mm->h2c.size(), 2u);
    ASSERT_EQ(mm->c2h.size(), 2u);
    EXPECT_EQ(mm->c2h[1].channel, 1u);
    EXPECT_EQ(mm->c2h[1].version, 6u);
    EXPECT_EQ(xdma::describe(mm->h2c[0]),
              "H2C 0 memory-mapped version 6 address_alignment=1 length_granularity=1 address_bits=64");
    auto st = xdma::discover(*regs, true);
    ASSERT_TRUE(st.ok());
    EXPECT_TRUE(st->h2c.empty()) << "a wrong stream expectation gives 0 channels, as in fpga_sio";
    EXPECT_TRUE(st->c2h.empty());
}

TEST(XdmaDiscovery, AllOnesIdentifierIsDeviceGone) {
    auto bar = std::make_shared<sim::SimBar>(0x10000);  // nothing claims it: reads all-ones
    sim::SimDevice device(identity(), {bar});
    auto regs = xdma::dma_registers(device, 0);
    ASSERT_TRUE(regs.ok());
    auto found = xdma::discover(*regs, Direction::H2C, false);
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.error().code, ENODEV);
    EXPECT_NE(found.error().message().find("device gone"), std::string::npos) << found.error().message();
}

TEST(XdmaDiscovery, SmallBarMapsOnlyTheBar) {
    auto bar = std::make_shared<sim::SimBar>(0x8000);  // every block the driver touches fits
    sim::SimDevice device(identity(), {bar});
    auto regs = xdma::dma_registers(device, 0);
    ASSERT_TRUE(regs.ok()) << regs.error().message();
    EXPECT_EQ(regs->size(), 0x8000u);
    EXPECT_TRUE(xdma::check_engine_blocks(*regs, Direction::C2H, 3).ok());
}

TEST(XdmaEngine, OpenRejectsBadOptionsWithReasons) {
    Rig rig(memory_design(true));
    auto open = [&](xdma::EngineOptions o) { return xdma::Engine::open(*rig.device, o); };
    auto bad_ring = open({.ring_descriptors = 1024});
    ASSERT_FALSE(bad_ring.ok());
    EXPECT_NE(bad_ring.error().hint.find("1..1023"), std::string::npos);
    auto status_credits = open({.mode = RunMode::Credits, .completion = CompletionMethod::StatusRegister});
    ASSERT_FALSE(status_credits.ok());
    EXPECT_NE(status_credits.error().hint.find("STOP-terminated"), std::string::npos);
    auto no_channel = open({.channel = 2});
    ASSERT_FALSE(no_channel.ok());
    EXPECT_EQ(no_channel.error().code, ENODEV);
    EXPECT_NE(no_channel.error().hint.find("has 2 H2C memory-mapped channels"), std::string::npos);
    auto wrong_kind = open({.stream = true});
    ASSERT_FALSE(wrong_kind.ok());
    auto no_msi = open({.completion = CompletionMethod::Interrupt, .msi_vector = 1});
    ASSERT_FALSE(no_msi.ok());
    EXPECT_NE(no_msi.error().hint.find("irq_enable"), std::string::npos);
}

TEST(XdmaEngine, OpenRefusesABusyChannel) {
    Rig rig(memory_design(true));
    auto first = rig.engine({.direction = Direction::C2H});
    ASSERT_TRUE(first);  // credits ring: Run set, busy waiting for credits
    auto second = xdma::Engine::open(*rig.device, {.direction = Direction::C2H});
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, EBUSY);
}

// ---- Every transfer kind x run mode x completion method -------------------------------------

using Kind = std::tuple<RunMode, CompletionMethod>;

class XdmaTransfer : public ::testing::TestWithParam<Kind> {
protected:
    xdma::EngineOptions options(Direction d, bool stream) {
        xdma::EngineOptions o{.direction = d, .channel = 1, .stream = stream};
        o.mode = std::get<0>(GetParam());
        o.completion = std::get<1>(GetParam());
        o.msi_vector = d == Direction::H2C ? 2 : 5;
        o.ring_descriptors = 16;
        o.max_descriptor_length = 256;  // make transfers span descriptors
        o.timeout = std::chrono::milliseconds(5000);
        return o;
    }
    void enable_msi(Rig& rig) {
        if (std::get<1>(GetParam()) == CompletionMethod::Interrupt) {
            ASSERT_TRUE(rig.device->irq_enable(vfio::IrqIndex::Msi, 8).ok());
        }
    }
    // Both engines of channel 1 in the modes under test (MSI enabled where they complete by interrupt) and a source
    // and a destination buffer of 0x4000 bytes.
    Loop loop(Rig& rig, bool stream) {
        enable_msi(rig);
        return {rig.engine(options(Direction::H2C, stream)), rig.engine(options(Direction::C2H, stream)),
                rig.region(0x4000, vfio::DmaAccess::DeviceRead), rig.region(0x4000, vfio::DmaAccess::DeviceWrite)};
    }
    void expect_interrupts(const xdma::Engine& e) {
        if (std::get<1>(GetParam()) == CompletionMethod::Interrupt) {
            EXPECT_GT(e.counters().interrupts, 0u) << "completion came by MSI";
        }
    }
};

TEST_P(XdmaTransfer, MemoryMappedRoundTrip) {
    Rig rig(memory_design());
    auto [h2c, c2h, src, dst] = loop(rig, false);
    ASSERT_TRUE(h2c && c2h);
    for (int round = 0; round < 3; ++round) {
        const uint64_t length = 1000 + round * 700;  // 4..11 descriptors of 256 bytes
        const uint64_t card = 0x80000000ull + 0x1000 * round + 3;
        fill(src.data(), length, round);
        auto id = h2c->submit_memory(src.iova(), card, length);
        ASSERT_TRUE(id.ok()) << id.error().message();
        auto done = h2c->wait();
        ASSERT_TRUE(done.ok()) << done.error().message();
        EXPECT_EQ(done->id, *id);
        EXPECT_EQ(done->length, length);
        ASSERT_TRUE(c2h->submit_memory(dst.iova(), card, length).ok());
        auto back = c2h->wait();
        ASSERT_TRUE(back.ok()) << back.error().message();
        EXPECT_EQ(std::memcmp(dst.data(), src.data(), length), 0) << "round " << round;
    }
    EXPECT_EQ(h2c->counters().descriptors_completed, 4u + 7u + 10u);
    expect_interrupts(*h2c);
    expect_interrupts(*c2h);
    EXPECT_TRUE(rig.model->violations().empty());
}

TEST_P(XdmaTransfer, StreamLoopbackWithSeveralTransfersInFlight) {
    Rig rig(stream_design());
    auto [h2c, c2h, src, dst] = loop(rig, true);
    ASSERT_TRUE(h2c && c2h);
    const uint64_t sizes[3] = {200, 256, 64};  // one descriptor each on C2H (buffers of 256)
    uint64_t offset = 0;
    for (int i = 0; i < 3; ++i) {  // arm receive before transmit
        ASSERT_TRUE(c2h->submit_stream(dst.iova() + i * 256, 256, false).ok());
    }
    for (int i = 0; i < 3; ++i) {
        fill(src.data() + offset, sizes[i], 10 + i);
        ASSERT_TRUE(h2c->submit_stream(src.iova() + offset, sizes[i], true).ok());
        offset += sizes[i];
    }
    offset = 0;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(h2c->wait().ok());
        auto got = c2h->wait();
        ASSERT_TRUE(got.ok()) << got.error().message();
        EXPECT_EQ(got->length, sizes[i]);
        EXPECT_TRUE(got->end_of_packet);
        EXPECT_EQ(std::memcmp(dst.data() + i * 256, src.data() + offset, sizes[i]), 0) << "packet " << i;
        offset += sizes[i];
    }
    expect_interrupts(*c2h);
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, XdmaTransfer,
    ::testing::Values(Kind{RunMode::Credits, CompletionMethod::PollWriteback},
                      Kind{RunMode::Credits, CompletionMethod::CompletedCountRegister},
                      Kind{RunMode::Credits, CompletionMethod::Interrupt},
                      Kind{RunMode::StopList, CompletionMethod::PollWriteback},
                      Kind{RunMode::StopList, CompletionMethod::CompletedCountRegister},
                      Kind{RunMode::StopList, CompletionMethod::StatusRegister},
                      Kind{RunMode::StopList, CompletionMethod::Interrupt}),
    [](const auto& info) {
        std::string name = std::string(xdma::to_string(std::get<0>(info.param))) + "_" +
                           xdma::to_string(std::get<1>(info.param));
        for (char& c : name)
            if (!isalnum(static_cast<unsigned char>(c)))
                c = '_';
        return name;
    });

// ---- Ring behaviour -------------------------------------------------------------------------

TEST(XdmaEngine, CreditsRingWrapsManyTimes) {
    Rig rig(memory_design());
    auto h2c = rig.engine({.direction = Direction::H2C, .ring_descriptors = 8});
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    fill(src.data(), 0x1000, 1);
    unsigned submitted = 0, completed = 0;
    while (completed < 100) {
        for (; submitted < 100 && h2c->free_descriptors() > 0; ++submitted)
            ASSERT_TRUE(h2c->submit_memory(src.iova() + (submitted % 64) * 64, 0x80000000ull + submitted * 64, 64).ok());
        auto done = h2c->wait();
        ASSERT_TRUE(done.ok()) << done.error().message();
        EXPECT_EQ(done->id, completed);
        ++completed;
    }
    EXPECT_EQ(h2c->counters().descriptors_completed, 100u);
    uint8_t card[64];
    ASSERT_TRUE(rig.model->card_read(0x80000000ull + 99 * 64, card, 64));
    EXPECT_EQ(std::memcmp(card, src.data() + (99 % 64) * 64, 64), 0);
}

TEST(XdmaEngine, CreditExhaustionRefusesAndTheEngineProcessesOnlyCreditedDescriptors) {
    Rig rig(memory_design(true));  // stepped: nothing moves until the test steps
    auto h2c = rig.engine({.direction = Direction::H2C, .ring_descriptors = 4});
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 64).ok());
    rig.model->run_until_idle();
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 3u) << "3 credits, 3 descriptors";
    EXPECT_TRUE(rig.model->busy(sim::XdmaDirection::H2C, 0)) << "running, waiting for credits";
    ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 64).ok());
    auto full = h2c->submit_memory(src.iova(), 0x80000000ull, 64);
    ASSERT_FALSE(full.ok()) << "4 descriptors in flight on a ring of 4";
    EXPECT_EQ(full.error().code, EAGAIN);
    EXPECT_NE(full.error().message().find("ring full"), std::string::npos);
    auto too_big = h2c->submit_memory(src.iova(), 0x80000000ull, 5ull * 0x0FFFFFC0);
    ASSERT_FALSE(too_big.ok());
    EXPECT_EQ(too_big.error().code, EINVAL);
    for (int i = 0; i < 4; ++i) {
        auto done = h2c->poll();
        ASSERT_TRUE(done.ok());
        EXPECT_EQ(done->has_value(), i < 3) << "the 4th is credited but not yet processed";
    }
    rig.model->run_until_idle();
    EXPECT_TRUE(h2c->poll()->has_value());
    EXPECT_EQ(h2c->free_descriptors(), 4u);
}

TEST(XdmaEngine, StopListUsesAdjacentBlocksWithoutCrossingFourKiB) {
    Rig rig(memory_design(true));
    auto h2c = rig.engine({.direction = Direction::H2C, .mode = RunMode::StopList, .ring_descriptors = 300,
                           .max_descriptor_length = 64});
    auto src = rig.region(0x10000, vfio::DmaAccess::DeviceRead);
    fill(src.data(), 300 * 64, 3);
    ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 300 * 64).ok());
    EXPECT_GT(rig.model->run_until_idle(), 0u);
    auto done = h2c->poll();
    ASSERT_TRUE(done.ok() && done->has_value()) << (done.ok() ? "not complete" : done.error().message());
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 300u);
    EXPECT_FALSE(rig.model->busy(sim::XdmaDirection::H2C, 0)) << "stopped at STOP";
    for (const auto& v : rig.model->violations())
        ADD_FAILURE() << v.what;
    std::vector<uint8_t> card(300 * 64);
    ASSERT_TRUE(rig.model->card_read(0x80000000ull, card.data(), card.size()));
    EXPECT_EQ(std::memcmp(card.data(), src.data(), card.size()), 0);
}

TEST(XdmaEngine, StopListQueuesTransfersSubmittedWhileAListRuns) {
    Rig rig(memory_design(true));
    auto c2h = rig.engine({.direction = Direction::C2H, .mode = RunMode::StopList, .ring_descriptors = 8});
    auto dst = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(c2h->submit_memory(dst.iova() + i * 64, 0x80000000ull, 64).ok());
    EXPECT_EQ(c2h->counters().lists_started, 1u) << "the 2nd and 3rd wait for the 1st list to stop";
    for (int i = 0; i < 3; ++i) {
        rig.model->run_until_idle();
        auto done = c2h->poll();
        ASSERT_TRUE(done.ok() && done->has_value());
        EXPECT_EQ((*done)->id, static_cast<uint64_t>(i));
    }
    EXPECT_EQ(c2h->counters().lists_started, 2u) << "the 2nd and 3rd went as one list";
}

TEST(XdmaModelThrottle, LinkRateBoundsTheTransferTime) {
    auto config = memory_design();
    config.link_bytes_per_second = 100e6;  // 1 MiB takes >= ~10 ms
    Rig rig(config);
    auto h2c = rig.engine({.direction = Direction::H2C, .max_descriptor_length = 0x10000});
    auto src = rig.region(0x100000, vfio::DmaAccess::DeviceRead);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 0x100000).ok());
    ASSERT_TRUE(h2c->wait().ok());
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(9));
}

// ---- The descriptors the driver writes, read back through the IOMMU as the engine sees them --

namespace {

xdma::Descriptor fetch(Rig& rig, uint64_t iova) {
    xdma::Descriptor d;
    EXPECT_TRUE(rig.device->iommu().read(iova, &d, sizeof d).ok());
    return d;
}

}  // namespace

TEST(XdmaEngine, StopListDescriptorsFieldByField) {
    Rig rig(stream_design(true));
    auto h2c = rig.engine({.direction = Direction::H2C, .stream = true, .mode = RunMode::StopList,
                           .max_descriptor_length = 100});
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(h2c->submit_stream(src.iova(), 250, true).ok());
    auto* bar = rig.device->bar(0).value();
    const uint64_t first = *bar->read(0x4080, 4) | *bar->read(0x4084, 4) << 32;
    EXPECT_EQ(*bar->read(0x4088, 4), 2u) << "SGDMA Descriptor Adjacent: two more after the first";
    const xdma::Descriptor d0 = fetch(rig, first), d1 = fetch(rig, first + 32), d2 = fetch(rig, first + 64);
    for (const auto& d : {d0, d1, d2})
        EXPECT_EQ(d.magic, 0xAD4B);
    EXPECT_EQ(d0.control, xdma::descriptor_control::COMPLETED);
    EXPECT_EQ(d1.control, xdma::descriptor_control::COMPLETED);
    EXPECT_EQ(d2.control, xdma::descriptor_control::COMPLETED | xdma::descriptor_control::EOP |
                              xdma::descriptor_control::STOP) << "EOP and STOP only on the last";
    EXPECT_EQ(d0.length, 100u);
    EXPECT_EQ(d2.length, 50u);
    EXPECT_EQ(d0.src_adr, src.iova());
    EXPECT_EQ(d1.src_adr, src.iova() + 100);
    EXPECT_EQ(d2.src_adr, src.iova() + 200);
    EXPECT_EQ(d0.nxt_adr, first + 32);
    EXPECT_EQ(d1.nxt_adr, first + 64);
    EXPECT_EQ(d0.nxt_adj, 1u) << "after d1 one more (d2) is contiguous";
    EXPECT_EQ(d1.nxt_adj, 0u);
    EXPECT_EQ(first % 4096, 0u);
}

TEST(XdmaEngine, CreditsRingC2hStreamDescriptorsPointAtTheirWriteback) {
    Rig rig(stream_design(true));
    auto c2h = rig.engine({.direction = Direction::C2H, .stream = true, .ring_descriptors = 4});
    auto dst = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
    auto* bar = rig.device->bar(0).value();
    const uint64_t ring = *bar->read(0x5080, 4) | *bar->read(0x5084, 4) << 32;
    EXPECT_EQ(*bar->read(0x5088, 4), 0u) << "no adjacent descriptors on a credits ring";
    EXPECT_EQ(*bar->read(0x6020, 4), 1u << 16) << "credit mode enabled for C2H 0";
    auto check = [&](int slot, uint64_t buffer) {
        const xdma::Descriptor d = fetch(rig, ring + slot * 32);
        EXPECT_EQ(d.magic, 0xAD4B);
        EXPECT_EQ(d.control, xdma::descriptor_control::COMPLETED);
        EXPECT_EQ(d.length, 128u);
        EXPECT_EQ(d.dst_adr, buffer);
        EXPECT_EQ(d.nxt_adr, ring + ((slot + 1) % 4) * 32) << "ring linked in a circle";
        EXPECT_NE(d.src_adr, 0u) << "C2H stream src_adr: this descriptor's writeback record";
        EXPECT_EQ(d.src_adr % 8, 0u);
    };
    for (int i = 0; i < 4; ++i) {
        ASSERT_TRUE(c2h->submit_stream(dst.iova() + i * 128, 128, false).ok());
        check(i, dst.iova() + i * 128);
        EXPECT_EQ(*bar->read(0x508C, 4), static_cast<uint64_t>(i + 1)) << "credits add up";
    }
    rig.model->push_c2h(0, std::vector<uint8_t>(128, 0x5A), true);
    rig.model->run_until_idle();
    auto done = c2h->poll();
    ASSERT_TRUE(done.ok() && done->has_value());
    EXPECT_EQ((*done)->length, 128u);
    EXPECT_TRUE((*done)->end_of_packet);
    EXPECT_EQ(dst.data()[0], 0x5A);
    ASSERT_TRUE(c2h->submit_stream(dst.iova() + 4 * 128, 128, false).ok());
    check(0, dst.iova() + 4 * 128);  // the 5th reuses slot 0
}
