// XDMA IP options beyond fpga_sio's: mode choice (stated, requested, probed), the safe probe,
// small DMA BARs, the Alignments register on every descriptor, decoded status on timeouts.
#include <chrono>

#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "xdma_rig.hpp"

using namespace xdma_test;
using xdma::CompletionMethod;
using xdma::CompletionRequest;
using xdma::Direction;
using xdma::EngineModeRequest;
using xdma::RunMode;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

vfio::Result<xdma::Modes> choose(Rig& rig, const xdma::IpOptions& stated, xdma::ModeRequest request,
                                 Direction direction = Direction::H2C) {
    return xdma::choose_modes(*rig.device, 0, 0, direction, 0, stated, request);
}

}  // namespace

TEST(XdmaIpOptions, ParsesTheOptionSpellings) {
    EXPECT_EQ(*xdma::parse_engine_mode("stop_list"), EngineModeRequest::StopList);
    EXPECT_EQ(*xdma::parse_engine_mode("credits"), EngineModeRequest::Credits);
    EXPECT_EQ(*xdma::parse_completion("completed_count"), CompletionRequest::CompletedCount);
    EXPECT_EQ(*xdma::parse_completion("interrupt"), CompletionRequest::Interrupt);
    auto bad = xdma::parse_engine_mode("stoplist");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message(), "parse option --engine_mode \"stoplist\": Invalid argument (one of auto, credits, stop_list)");
    auto bad_completion = xdma::parse_completion("poll");
    ASSERT_FALSE(bad_completion.ok());
    EXPECT_TRUE(has(bad_completion.error().hint, "poll_writeback, completed_count, status, interrupt"));
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
    auto modes = choose(rig, {}, {});
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
    auto automatic = choose(rig, none, {});
    ASSERT_TRUE(automatic.ok());
    EXPECT_EQ(automatic->mode, RunMode::StopList);
    EXPECT_EQ(automatic->completion, CompletionMethod::CompletedCountRegister);
    EXPECT_TRUE(has(automatic->basis, "descriptor credits no (stated)")) << automatic->basis;

    auto credits = choose(rig, none, {.mode = EngineModeRequest::Credits});
    ASSERT_FALSE(credits.ok());
    EXPECT_EQ(credits.error().code, EINVAL);
    EXPECT_TRUE(has(credits.error().message(), "--engine_mode credits: the IP has no descriptor credits (the design "
                                               "data states the XDMA IP has none)"))
        << credits.error().message();
    auto writeback = choose(rig, none, {.completion = CompletionRequest::PollWriteback});
    ASSERT_FALSE(writeback.ok());
    EXPECT_TRUE(has(writeback.error().hint, "--completion poll_writeback: the IP has no poll-mode writeback"));
    auto interrupt = choose(rig, none, {.completion = CompletionRequest::Interrupt});
    ASSERT_FALSE(interrupt.ok());
    EXPECT_TRUE(has(interrupt.error().hint, "interrupts are not usable")) << interrupt.error().message();
    auto status_on_ring = choose(rig, {}, {.mode = EngineModeRequest::Credits, .completion = CompletionRequest::Status});
    ASSERT_FALSE(status_on_ring.ok());
    EXPECT_TRUE(has(status_on_ring.error().hint, "--completion status needs STOP-terminated lists"));
    auto status = choose(rig, none, {.completion = CompletionRequest::Status});
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
    EXPECT_TRUE(has(length.error().hint, "length 0x50 is not a multiple of the channel's length granularity of 64"))
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
