// XDMA IP options beyond fpga_sio's: mode choice (stated, requested, probed), the safe probe,
// small DMA BARs, the Alignments register on every descriptor, decoded status on timeouts.
#include <chrono>

#include "dma_bridge/xdma_registers.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "xdma_rig.hpp"

using namespace xdma_test;

namespace {

pdt::Result<xdma::Modes> choose(vfio::Device& device, const xdma::IpOptions& stated, xdma::ModeRequest request,
                                Direction direction = Direction::H2C) {
    return xdma::choose_modes(device, 0, 0, direction, 0, stated, request);
}

}  // namespace

// The tables the command-line layer parses with: each request spelt once, and printed back the same.
TEST(XdmaIpOptions, EachRequestHasOneSpellingThatPrintsBack) {
    for (const auto& s : xdma::kEngineModeSpellings)
        EXPECT_STREQ(xdma::to_string(s.value), s.name);
    for (const auto& s : xdma::kCompletionSpellings)
        EXPECT_STREQ(xdma::to_string(s.value), s.name);
    EXPECT_STREQ(xdma::to_string(EngineModeRequest::StopList), "stop_list");
    EXPECT_STREQ(xdma::to_string(CompletionRequest::CompletedCount), "completed_count");
    EXPECT_EQ(std::size(xdma::kEngineModeSpellings), 3u);
    EXPECT_EQ(std::size(xdma::kCompletionSpellings), 5u);
}

TEST(XdmaIpOptions, ProbeOfAFullIpFindsCreditsAndWritebackAndRestoresRegisters) {
    Rig rig(memory_design(true));
    auto regs = xdma::dma_registers(*rig.device, 0);
    ASSERT_TRUE(regs.ok());
    const uint32_t control_before = regs->read32(xdma::block_offset(xdma::target::C2H_CHANNEL, 1) + 0x04);
    auto probed = xdma::probe_ip(*regs, Direction::C2H, 1);
    ASSERT_TRUE(probed.ok()) << probed.error().message();
    EXPECT_TRUE(probed->descriptor_credits);
    EXPECT_TRUE(probed->poll_mode_writeback);
    EXPECT_EQ(regs->read32(xdma::block_offset(xdma::target::C2H_CHANNEL, 1) + 0x04), control_before);
    EXPECT_EQ(regs->read32(xdma::block_offset(xdma::target::SGDMA_COMMON) + 0x10), 0u) << "halt bit restored";
    EXPECT_EQ(regs->read32(xdma::block_offset(xdma::target::SGDMA_COMMON) + 0x20), 0u) << "credit mode restored";
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::C2H, 1), 0u) << "no DMA";
    auto modes = choose(*rig.device, {}, {});
    ASSERT_TRUE(modes.ok());
    EXPECT_EQ(modes->mode, RunMode::Credits);
    EXPECT_EQ(modes->completion, CompletionMethod::PollWriteback);
    EXPECT_TRUE(has(modes->basis, "descriptor credits yes (probed)")) << modes->basis;
}

TEST(XdmaIpOptions, ProbeRefusesABusyChannel) {
    Rig rig(memory_design(true));
    auto engine = rig.engine({.direction = Direction::H2C});  // credits ring: Run set, busy
    ASSERT_TRUE(engine);
    auto regs = xdma::dma_registers(*rig.device, 0);
    auto probed = xdma::probe_ip(*regs, Direction::H2C, 0);
    ASSERT_FALSE(probed.ok());
    EXPECT_EQ(probed.error().code, EBUSY);
    EXPECT_TRUE(has(probed.error().hint, "probing needs an idle channel")) << probed.error().message();
}

TEST(XdmaIpOptions, StatedOptionsDecideWithoutProbingAndExplicitChoicesTheIpLacksAreRefused) {
    Rig rig(memory_design(true));
    const xdma::IpOptions none{.descriptor_credits = false, .poll_mode_writeback = false, .interrupts = false};
    auto automatic = choose(*rig.device, none, {});
    ASSERT_TRUE(automatic.ok());
    EXPECT_EQ(automatic->mode, RunMode::StopList);
    EXPECT_EQ(automatic->completion, CompletionMethod::CompletedCountRegister);
    EXPECT_TRUE(has(automatic->basis, "descriptor credits no (stated)")) << automatic->basis;

    auto credits = choose(*rig.device, none, {.mode = EngineModeRequest::Credits});
    ASSERT_FALSE(credits.ok());
    EXPECT_EQ(credits.error().code, EINVAL);
    EXPECT_TRUE(credits.error().usage);  // a mode the IP lacks: the request, not the device, is at fault
    EXPECT_TRUE(has(credits.error().message(), "engine mode credits: the IP has no descriptor credits (the design "
                                               "data states the XDMA IP has none)"))
        << credits.error().message();
    auto writeback = choose(*rig.device, none, {.completion = CompletionRequest::PollWriteback});
    ASSERT_FALSE(writeback.ok());
    EXPECT_TRUE(writeback.error().usage);
    EXPECT_TRUE(has(writeback.error().hint, "completion poll_writeback: the IP has no poll-mode writeback"));
    auto interrupt = choose(*rig.device, none, {.completion = CompletionRequest::Interrupt});
    ASSERT_FALSE(interrupt.ok());
    EXPECT_TRUE(has(interrupt.error().hint, "interrupts are not usable")) << interrupt.error().message();
    auto status_on_ring = choose(*rig.device, {}, {.mode = EngineModeRequest::Credits, .completion = CompletionRequest::Status});
    ASSERT_FALSE(status_on_ring.ok());
    EXPECT_TRUE(has(status_on_ring.error().hint, "completion status needs STOP-terminated lists"));
    EXPECT_FALSE(has(status_on_ring.error().message(), "--")) << "the driver names no option";
    auto status = choose(*rig.device, none, {.completion = CompletionRequest::Status});
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(status->completion, CompletionMethod::StatusRegister);
}

TEST(XdmaIpOptions, InterruptCompletionEnablesMsiOnceAndSpreadsVectors) {
    Rig rig(memory_design());
    xdma::EngineOptions h2c{.direction = Direction::H2C, .channel = 1};
    auto modes = xdma::configure_engine(*rig.device, {}, {.completion = CompletionRequest::Interrupt}, h2c);
    ASSERT_TRUE(modes.ok()) << modes.error().message();
    EXPECT_EQ(h2c.completion, CompletionMethod::Interrupt);
    EXPECT_EQ(h2c.msi_vector, 1u);
    xdma::EngineOptions c2h{.direction = Direction::C2H, .channel = 1};
    ASSERT_TRUE(xdma::configure_engine(*rig.device, {}, {.completion = CompletionRequest::Interrupt}, c2h).ok());
    EXPECT_EQ(c2h.msi_vector, 5u);
    auto e1 = rig.engine(h2c);
    auto e2 = rig.engine(c2h);
    ASSERT_TRUE(e1 && e2);
    auto src = rig.region(0x2000, vfio::DmaAccess::DeviceRead);
    auto dst = rig.region(0x2000, vfio::DmaAccess::DeviceWrite);
    fill(src.data(), 0x2000, 7);
    ASSERT_TRUE(e1->submit_memory(src.iova(), 0x80000000ull, 0x2000).ok());
    auto w1 = e1->wait(std::chrono::milliseconds(5000));
    ASSERT_TRUE(w1.ok()) << w1.error().message();
    ASSERT_TRUE(e2->submit_memory(dst.iova(), 0x80000000ull, 0x2000).ok());
    auto w2 = e2->wait(std::chrono::milliseconds(5000));
    ASSERT_TRUE(w2.ok()) << w2.error().message();
    EXPECT_EQ(std::memcmp(src.data(), dst.data(), 0x2000), 0);
    EXPECT_EQ(xdma::msi_vector_for(Direction::C2H, 3, 4), 3u);
    EXPECT_EQ(xdma::msi_vector_for(Direction::H2C, 2, 1), 0u);
}

// ---- Small DMA BAR ---------------------------------------------------------------------------

TEST(XdmaSmallBar, BlocksBeyondTheBarAreNamedWithTheBarSize) {
    auto bar = std::make_shared<sim::SimBar>(0x4000);  // channel blocks fit, SGDMA blocks do not
    sim::SimDevice device(identity(), {bar});
    auto regs = xdma::dma_registers(device, 0);
    ASSERT_TRUE(regs.ok()) << regs.error().message();
    EXPECT_EQ(regs->size(), 0x4000u);
    auto found = xdma::discover(*regs, Direction::H2C, false);
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.error().code, ERANGE);
    EXPECT_EQ(found.error().message(),
              "check XDMA register blocks H2C SGDMA 0 block at 0x4000..0x40ff: Numerical result out of range (does not "
              "fit the DMA BAR 0 of 0x4000 bytes (register space from offset 0x0); the driver needs it)");
    auto engine = xdma::Engine::open(device, {});
    ASSERT_FALSE(engine.ok());
    EXPECT_TRUE(has(engine.error().message(), "SGDMA")) << engine.error().message();
    auto tiny = std::make_shared<sim::SimBar>(0x80);
    sim::SimDevice tiny_device(identity(), {tiny});
    auto none = xdma::dma_registers(tiny_device, 0);
    ASSERT_FALSE(none.ok());
    EXPECT_TRUE(has(none.error().hint, "the BAR is 0x80 bytes")) << none.error().message();
}

TEST(XdmaSmallBar, EngineBlocksAreCheckedOneByOne) {
    auto bar = std::make_shared<sim::SimBar>(0x6000);  // everything but SGDMA common
    sim::SimDevice device(identity(), {bar});
    auto regs = xdma::dma_registers(device, 0);
    ASSERT_TRUE(regs.ok());
    EXPECT_TRUE(xdma::check_block(*regs, xdma::target::C2H_SGDMA, 3).ok());
    auto common = xdma::check_engine_blocks(*regs, Direction::C2H, 0);
    ASSERT_FALSE(common.ok());
    EXPECT_TRUE(has(common.error().message(), "SGDMA common block at 0x6000..0x60ff")) << common.error().message();
    EXPECT_TRUE(has(common.error().message(), "0x6000 bytes")) << common.error().message();
}

// ---- Alignments register ---------------------------------------------------------------------

TEST(XdmaAlignments, EveryDescriptorKeepsAddressAlignmentAndLengthGranularity) {
    sim::XdmaConfig config = memory_design();
    config.address_alignment = 64;
    config.length_granularity = 64;
    Rig rig(config);
    xdma::EngineOptions o{.direction = Direction::H2C, .mode = RunMode::StopList};
    o.max_descriptor_length = 1000;  // rounded down to 960: pieces stay multiples of 64
    o.completion = CompletionMethod::CompletedCountRegister;
    auto h2c = rig.engine(o);
    ASSERT_TRUE(h2c);
    EXPECT_EQ(h2c->options().max_descriptor_length, 960u);
    auto src = rig.region(0x4000, vfio::DmaAccess::DeviceRead);
    fill(src.data(), 0x4000, 3);
    auto misaligned = h2c->submit_memory(src.iova() + 8, 0x80000000ull, 0x1000);
    ASSERT_FALSE(misaligned.ok());
    EXPECT_EQ(misaligned.error().code, EINVAL);
    EXPECT_TRUE(has(misaligned.error().message(), "0000:15:00.0 H2C 0")) << misaligned.error().message();
    EXPECT_TRUE(has(misaligned.error().hint, "source address 0x"));
    EXPECT_TRUE(has(misaligned.error().hint, "is not a multiple of the channel's address alignment of 64 bytes"));
    auto card = h2c->submit_memory(src.iova(), 0x80000000ull + 4, 0x1000);
    ASSERT_FALSE(card.ok());
    EXPECT_TRUE(has(card.error().hint, "destination address 0x80000004")) << card.error().message();
    auto length = h2c->submit_memory(src.iova(), 0x80000000ull, 0x1010);
    ASSERT_FALSE(length.ok());
    EXPECT_TRUE(has(length.error().hint, "descriptor 4 of the transfer: length 0x110 is not a multiple of the channel's length granularity of 64"))
        << length.error().message();
    auto good = h2c->submit_memory(src.iova(), 0x80000000ull, 0x4000);  // 18 pieces of <= 960
    ASSERT_TRUE(good.ok()) << good.error().message();
    auto done = h2c->wait(std::chrono::milliseconds(5000));
    ASSERT_TRUE(done.ok()) << done.error().message();
    std::vector<uint8_t> card_bytes(0x4000);
    ASSERT_TRUE(rig.model->card_read(0x80000000ull, card_bytes.data(), card_bytes.size()));
    EXPECT_EQ(std::memcmp(card_bytes.data(), src.data(), 0x4000), 0);
    EXPECT_TRUE(rig.model->violations().empty());
}

// ---- Decoded status on a timeout -------------------------------------------------------------

TEST(XdmaTimeout, NamesTheStatusBitsDecoded) {
    Rig rig(memory_design());
    auto h2c = rig.engine({.direction = Direction::H2C});
    ASSERT_TRUE(h2c);
    rig.model->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::EngineStall);
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 0x1000).ok());
    auto timed_out = h2c->wait(std::chrono::milliseconds(100));
    ASSERT_FALSE(timed_out.ok());
    EXPECT_EQ(timed_out.error().code, ETIMEDOUT);
    EXPECT_TRUE(has(timed_out.error().message(), "Timeout after 100 ms: status 0x00000001 (busy)"))
        << timed_out.error().message();
    EXPECT_TRUE(has(h2c->describe_state(), "status 0x00000001 (busy) completed_descriptor_count=0"))
        << h2c->describe_state();
    EXPECT_EQ(xdma::decode_status(Direction::H2C, 0x00080006),
              "descriptor_stopped descriptor_completed desc_error(unsupported request)");
}

// ---- Against the model in each IP configuration ----------------------------------------------

namespace {

struct IpCase {
    const char* name;
    bool credits, writeback, interrupts;
    uint64_t bar_size;
    CompletionRequest completion;
    RunMode expected_mode;
    CompletionMethod expected_completion;
};

const IpCase kIpCases[] = {
    {"fpga_sio_like", true, true, true, 0x10000, CompletionRequest::Auto, RunMode::Credits, CompletionMethod::PollWriteback},
    {"no_credits", false, true, true, 0x10000, CompletionRequest::Auto, RunMode::StopList, CompletionMethod::PollWriteback},
    {"no_writeback", true, false, true, 0x10000, CompletionRequest::Auto, RunMode::Credits,
     CompletionMethod::CompletedCountRegister},
    {"neither", false, false, true, 0x10000, CompletionRequest::Auto, RunMode::StopList,
     CompletionMethod::CompletedCountRegister},
    {"neither_status", false, false, true, 0x10000, CompletionRequest::Status, RunMode::StopList,
     CompletionMethod::StatusRegister},
    {"small_bar", true, true, true, 0x8000, CompletionRequest::Auto, RunMode::Credits, CompletionMethod::PollWriteback},
    {"interrupts", true, true, true, 0x10000, CompletionRequest::Interrupt, RunMode::Credits, CompletionMethod::Interrupt},
    {"interrupts_no_credits", false, false, true, 0x10000, CompletionRequest::Interrupt, RunMode::StopList,
     CompletionMethod::Interrupt},
};

sim::XdmaConfig ip_design(const IpCase& c, bool stream) {
    sim::XdmaConfig config = stream ? stream_design() : memory_design();
    config.descriptor_credits = c.credits;
    config.poll_mode_writeback = c.writeback;
    config.interrupts = c.interrupts;
    return config;
}

struct IpRig : Rig {
    IpRig(const IpCase& c, bool stream) : Rig(ip_design(c, stream), c.bar_size) {}
    std::unique_ptr<xdma::Engine> open(const IpCase& c, Direction d, unsigned channel, bool stream) {
        xdma::EngineOptions o{.direction = d, .channel = channel, .stream = stream, .ring_descriptors = 32};
        if (!stream)
            o.max_descriptor_length = 512;  // memory transfers span descriptors (a C2H stream buffer is one)
        o.timeout = std::chrono::milliseconds(5000);
        auto modes = xdma::configure_engine(*device, {}, {.completion = c.completion}, o);  // nothing stated: probed
        EXPECT_TRUE(modes.ok()) << modes.error().message();
        if (!modes.ok())
            return nullptr;
        EXPECT_EQ(o.mode, c.expected_mode) << modes->basis;
        EXPECT_EQ(o.completion, c.expected_completion) << modes->basis;
        return engine(o);
    }
    // Both engines of `channel` and buffers of `size` bytes. Memory opens H2C first, a stream C2H first: the
    // second engine's modes are probed with the first one open.
    Loop loop(const IpCase& c, unsigned channel, bool stream, uint64_t size) {
        Loop l;
        if (stream)
            l.c2h = open(c, Direction::C2H, channel, true);
        l.h2c = open(c, Direction::H2C, channel, stream);
        if (!stream)
            l.c2h = open(c, Direction::C2H, channel, false);
        l.src = region(size, vfio::DmaAccess::DeviceRead);
        l.dst = region(size, vfio::DmaAccess::DeviceWrite);
        return l;
    }
};

}  // namespace

class XdmaIpConfiguration : public ::testing::TestWithParam<IpCase> {};

TEST_P(XdmaIpConfiguration, ProbedModesMoveMemoryMappedData) {
    const IpCase& c = GetParam();
    IpRig rig(c, false);
    auto [h2c, c2h, src, dst] = rig.loop(c, 1, false, 0x3000);
    ASSERT_TRUE(h2c && c2h);
    for (int round = 0; round < 4; ++round) {  // lists restart (stop list), the ring goes on (credits)
        const uint64_t length = 0x800 + 0x700 * round;
        fill(src.data(), length, round);
        std::memset(dst.data(), 0, length);
        ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull + round * 0x100, length).ok());
        auto w = h2c->wait();
        ASSERT_TRUE(w.ok()) << w.error().message();
        ASSERT_TRUE(c2h->submit_memory(dst.iova(), 0x80000000ull + round * 0x100, length).ok());
        auto r = c2h->wait();
        ASSERT_TRUE(r.ok()) << r.error().message();
        EXPECT_EQ(std::memcmp(src.data(), dst.data(), length), 0) << "round " << round;
    }
    if (c.expected_completion == CompletionMethod::Interrupt) {
        EXPECT_GT(h2c->counters().interrupts + c2h->counters().interrupts, 0u) << "completions came by MSI";
    }
    EXPECT_TRUE(rig.model->violations().empty()) << rig.model->violations().front().what;
}

TEST_P(XdmaIpConfiguration, ProbedModesLoopAStream) {
    const IpCase& c = GetParam();
    IpRig rig(c, true);
    auto [h2c, c2h, src, dst] = rig.loop(c, 0, true, 0x2000);
    ASSERT_TRUE(h2c && c2h);
    for (int round = 0; round < 3; ++round) {
        const uint64_t length = 0x1000 + 0x400 * round;
        fill(src.data(), length, 10 + round);
        ASSERT_TRUE(c2h->submit_stream(dst.iova(), 0x2000, false).ok());
        ASSERT_TRUE(h2c->submit_stream(src.iova(), length, true).ok());
        auto sent = h2c->wait();
        ASSERT_TRUE(sent.ok()) << sent.error().message();
        auto got = c2h->wait();
        ASSERT_TRUE(got.ok()) << got.error().message();
        EXPECT_EQ(got->length, length);
        EXPECT_TRUE(got->end_of_packet);
        EXPECT_EQ(std::memcmp(src.data(), dst.data(), length), 0) << "round " << round;
    }
    EXPECT_TRUE(rig.model->violations().empty()) << rig.model->violations().front().what;
}

INSTANTIATE_TEST_SUITE_P(EachIp, XdmaIpConfiguration, ::testing::ValuesIn(kIpCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(XdmaIpOptions, ProbeReadsBackWhatTheIpLacks) {
    IpCase c{"none", false, false, false, 0x10000, CompletionRequest::Auto, RunMode::StopList,
             CompletionMethod::CompletedCountRegister};
    IpRig rig(c, false);
    auto regs = xdma::dma_registers(*rig.device, 0);
    ASSERT_TRUE(regs.ok());
    auto probed = xdma::probe_ip(*regs, Direction::C2H, 0);
    ASSERT_TRUE(probed.ok()) << probed.error().message();
    EXPECT_FALSE(probed->descriptor_credits);
    EXPECT_FALSE(probed->poll_mode_writeback);
    EXPECT_FALSE(probed->interrupts);
    auto credits = choose(*rig.device, {}, {.mode = EngineModeRequest::Credits});
    ASSERT_FALSE(credits.ok());
    EXPECT_TRUE(has(credits.error().hint, "Descriptor Credit Mode Enable read back 0")) << credits.error().message();
    auto interrupt = choose(*rig.device, {}, {.completion = CompletionRequest::Interrupt});
    ASSERT_FALSE(interrupt.ok());
    EXPECT_TRUE(has(interrupt.error().hint, "Channel Interrupt Enable Mask reads back 0")) << interrupt.error().message();
    // An engine told to use what the IP lacks refuses before Run is set.
    auto ring = xdma::Engine::open(*rig.device, {.direction = Direction::H2C, .mode = RunMode::Credits,
                                                 .completion = CompletionMethod::CompletedCountRegister});
    ASSERT_FALSE(ring.ok());
    EXPECT_EQ(ring.error().code, ENOTSUP);
    EXPECT_TRUE(has(ring.error().hint, "Descriptor Credit Mode Enable (0x6020) reads back 0")) << ring.error().message();
    auto writeback = xdma::Engine::open(*rig.device, {.direction = Direction::H2C, .mode = RunMode::StopList,
                                                      .completion = CompletionMethod::PollWriteback});
    ASSERT_FALSE(writeback.ok());
    EXPECT_TRUE(has(writeback.error().hint, "Control.pollmode_wb_enable (bit 26) reads back 0"))
        << writeback.error().message();
    EXPECT_FALSE(rig.model->busy(sim::XdmaDirection::H2C, 0));
}

// ---- Restart after a STOP list waits for Status.busy (PG195) ---------------------------------

TEST(XdmaBusyAfterStop, RestartWaitsForBusyToClear) {
    sim::XdmaConfig config = memory_design();
    config.busy_after_stop = std::chrono::milliseconds(30);
    Rig rig(config);
    auto h2c = rig.engine({.direction = Direction::H2C, .mode = RunMode::StopList,
                           .completion = CompletionMethod::CompletedCountRegister});
    ASSERT_TRUE(h2c);
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    const auto start = std::chrono::steady_clock::now();
    for (int list = 0; list < 4; ++list) {
        fill(src.data(), 0x1000, list);
        ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 0x1000).ok());
        auto done = h2c->wait(std::chrono::milliseconds(2000));
        ASSERT_TRUE(done.ok()) << "list " << list << ": " << done.error().message();
        std::vector<uint8_t> card(0x1000);
        ASSERT_TRUE(rig.model->card_read(0x80000000ull, card.data(), card.size()));
        EXPECT_EQ(std::memcmp(card.data(), src.data(), card.size()), 0) << "list " << list;
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(90)) << "three restarts waited";
    EXPECT_EQ(h2c->counters().lists_started, 4u);
    EXPECT_TRUE(rig.model->violations().empty()) << rig.model->violations().front().what;
}

TEST(XdmaBusyAfterStop, BusyThatNeverClearsIsATimeoutNamingIt) {
    sim::XdmaConfig config = memory_design();
    config.busy_after_stop = std::chrono::seconds(5);
    Rig rig(config);
    auto h2c = rig.engine({.direction = Direction::H2C, .mode = RunMode::StopList,
                           .completion = CompletionMethod::CompletedCountRegister,
                           .idle_wait = std::chrono::milliseconds(50)});
    ASSERT_TRUE(h2c);
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 0x1000).ok());
    ASSERT_TRUE(h2c->wait(std::chrono::milliseconds(2000)).ok());
    ASSERT_TRUE(h2c->submit_memory(src.iova(), 0x80000000ull, 0x1000).ok());
    auto second = h2c->wait(std::chrono::milliseconds(2000));
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, ETIMEDOUT);
    EXPECT_TRUE(has(second.error().message(), "Status.busy still set 50 ms after the last list completed")) << second.error().message();
    EXPECT_TRUE(has(second.error().message(), "status 0x00000007 (busy descriptor_stopped descriptor_completed)")) << second.error().message();
    EXPECT_TRUE(rig.model->violations().empty()) << "Run was never set while busy";
}

TEST(XdmaIpOptions, ProbeRefusesAChannelTheDesignLacks) {
    Rig rig(memory_design(true));  // 2 H2C, 2 C2H
    auto regs = xdma::dma_registers(*rig.device, 0);
    auto probed = xdma::probe_ip(*regs, Direction::H2C, 3);
    ASSERT_FALSE(probed.ok());
    EXPECT_EQ(probed.error().code, ENODEV);
    EXPECT_TRUE(has(probed.error().hint, "no such channel")) << probed.error().message();
}
