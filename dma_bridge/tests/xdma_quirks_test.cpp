// XDMA IPs that behave unlike our model but within reason (sim::XdmaConfig's quirks): the driver
// detects each, says so once per engine, and where it can, falls back so that data still moves
// and verifies. Every copy carries a fresh key, lands on a poisoned destination and is read back
// in other pieces than it was written in (docs/verification.md).
#include <chrono>
#include <mutex>

#include "dma_bridge/xdma_registers.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "xdma_rig.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace xdma_quirks_test {

using namespace xdma_test;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t kCard = 0x80000000ull;

// Opens an engine with the modes configure_engine picks for `request` (nothing stated: probed).
std::unique_ptr<xdma::Engine> open(vfio::Device& device, Direction direction, xdma::ModeRequest request,
                                   std::chrono::milliseconds timeout = 5000ms) {
    xdma::EngineOptions o{.direction = direction, .ring_descriptors = 32, .max_descriptor_length = 0x400};
    o.timeout = timeout;
    auto modes = xdma::configure_engine(device, {}, request, o);
    EXPECT_TRUE(modes.ok()) << modes.error().message();
    if (!modes.ok())
        return nullptr;
    auto engine = xdma::Engine::open(device, o);
    EXPECT_TRUE(engine.ok()) << engine.error().message();
    return engine.ok() ? std::move(engine).value() : nullptr;
}

// One H2C copy of `length` bytes keyed by `key` to the card, read back by C2H in two pieces,
// the last first, into a poisoned buffer; passes only when every byte came back.
testing::AssertionResult round_trip(xdma::Engine& h2c, xdma::Engine& c2h, vfio::DmaRegion& src, vfio::DmaRegion& dst,
                                    uint64_t length, uint32_t key) {
    fill(src.data(), length, key);
    for (uint64_t i = 0; i < length; ++i)
        dst.data()[i] = static_cast<uint8_t>(~src.data()[i]);
    if (auto id = h2c.submit_memory(src.iova(), kCard, length); !id.ok())
        return testing::AssertionFailure() << id.error().message();
    if (auto w = h2c.wait(); !w.ok())
        return testing::AssertionFailure() << w.error().message();
    const uint64_t half = length / 2;
    for (const auto& [offset, bytes] : {std::pair{half, length - half}, std::pair{uint64_t{0}, half}}) {
        if (auto id = c2h.submit_memory(dst.iova() + offset, kCard + offset, bytes); !id.ok())
            return testing::AssertionFailure() << id.error().message();
        if (auto w = c2h.wait(); !w.ok())
            return testing::AssertionFailure() << w.error().message();
    }
    for (uint64_t i = 0; i < length; ++i)
        if (dst.data()[i] != src.data()[i])
            return testing::AssertionFailure() << "key " << key << ": first bad byte at offset " << i;
    return testing::AssertionSuccess();
}

}  // namespace

// ---- a. Run does not stick after a write to the Control W1S alias ----------------------------

TEST(XdmaQuirks, RunThatDoesNotStickAfterW1sIsSetWithAPlainWriteOfControlAndSaidOnce) {
    for (const EngineModeRequest mode : {EngineModeRequest::Auto, EngineModeRequest::StopList}) {
        Warnings warnings;
        sim::XdmaConfig config = memory_design();
        config.control_w1s_ignored = true;
        Rig rig(config);
        auto h2c = open(*rig.device, Direction::H2C, {.mode = mode});
        auto c2h = open(*rig.device, Direction::C2H, {.mode = mode});
        ASSERT_TRUE(h2c && c2h);
        // The probe tells the broken alias from a missing poll-mode writeback.
        EXPECT_EQ(h2c->options().completion, CompletionMethod::PollWriteback);
        EXPECT_EQ(h2c->options().mode, mode == EngineModeRequest::Auto ? RunMode::Credits : RunMode::StopList);
        auto src = rig.region(0x3000, vfio::DmaAccess::DeviceRead);
        auto dst = rig.region(0x3000, vfio::DmaAccess::DeviceWrite);
        for (uint32_t key = 1; key <= 3; ++key)
            ASSERT_TRUE(round_trip(*h2c, *c2h, src, dst, 0x1000 * key, key)) << xdma::to_string(h2c->options().mode);
        for (const auto* engine : {h2c.get(), c2h.get()}) {
            ASSERT_EQ(engine->warnings().size(), 1u) << "once per engine, not per start";
            EXPECT_TRUE(has(engine->warnings()[0], "after a write of Run to the Control W1S alias (0x08): Run did not "
                                                   "stick; starting the engine with a write of Control (0x04) instead"))
                << engine->warnings()[0];
        }
        EXPECT_TRUE(has(h2c->warnings()[0], "Control reads back 0x04fffe")) << h2c->warnings()[0];
        EXPECT_EQ(warnings.count("0000:15:00.0 H2C 0: Control reads back 0x"), 1u);
        EXPECT_EQ(warnings.count("0000:15:00.0 C2H 0: Control reads back 0x"), 1u);
        EXPECT_TRUE(rig.model->violations().empty()) << rig.model->violations().front().what;
    }
}

// Tools install no observer: the warning reaches stderr once per engine in the process, however
// often the engine is reopened.
TEST(XdmaQuirks, WithoutAnObserverAWarningIsPrintedToStderrOncePerEngine) {
    sim::XdmaConfig config = memory_design();
    config.control_w1s_ignored = true;
    Rig rig(config);
    testing::internal::CaptureStderr();
    for (int open_again = 0; open_again < 2; ++open_again) {
        auto h2c = open(*rig.device, Direction::H2C, {});
        auto c2h = open(*rig.device, Direction::C2H, {});
        ASSERT_TRUE(h2c && c2h);
        auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
        auto dst = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
        ASSERT_TRUE(round_trip(*h2c, *c2h, src, dst, 0x1000, 60 + open_again));
    }
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed,
              "Warning: 0000:15:00.0 H2C 0: Control reads back 0x04fffe3c after a write of Run to the Control W1S "
              "alias (0x08): Run did not stick; starting the engine with a write of Control (0x04) instead\n"
              "Warning: 0000:15:00.0 C2H 0: Control reads back 0x04f83e3c after a write of Run to the Control W1S "
              "alias (0x08): Run did not stick; starting the engine with a write of Control (0x04) instead\n");
}

TEST(XdmaQuirks, AnIpWithAWorkingW1sAliasGivesNoWarning) {
    Warnings warnings;
    Rig rig(memory_design());
    auto h2c = open(*rig.device, Direction::H2C, {.mode = EngineModeRequest::StopList});
    auto c2h = open(*rig.device, Direction::C2H, {});
    ASSERT_TRUE(h2c && c2h);
    auto src = rig.region(0x2000, vfio::DmaAccess::DeviceRead);
    auto dst = rig.region(0x2000, vfio::DmaAccess::DeviceWrite);
    ASSERT_TRUE(round_trip(*h2c, *c2h, src, dst, 0x2000, 9));
    EXPECT_TRUE(warnings.lines.empty()) << warnings.lines.front();
}

// ---- b. Completed Descriptor Count stays 0 while Status says stopped -------------------------

namespace {

sim::XdmaConfig count_stuck(bool credits) {
    sim::XdmaConfig config = memory_design();
    config.descriptor_credits = credits;
    config.poll_mode_writeback = false;  // auto then reads the Completed Descriptor Count register
    config.completed_count_reads_zero = true;
    return config;
}

}  // namespace

TEST(XdmaQuirks, CompletedCountStuckAtZeroOnStopListsFallsBackToStatusWhenNotForced) {
    Warnings warnings;
    Rig rig(count_stuck(false));
    auto h2c = open(*rig.device, Direction::H2C, {});
    auto c2h = open(*rig.device, Direction::C2H, {});
    ASSERT_TRUE(h2c && c2h);
    EXPECT_EQ(h2c->options().mode, RunMode::StopList);
    EXPECT_EQ(h2c->options().completion, CompletionMethod::CompletedCountRegister);
    EXPECT_TRUE(h2c->options().completion_auto);
    auto src = rig.region(0x3000, vfio::DmaAccess::DeviceRead);
    auto dst = rig.region(0x3000, vfio::DmaAccess::DeviceWrite);
    for (uint32_t key = 1; key <= 3; ++key)
        ASSERT_TRUE(round_trip(*h2c, *c2h, src, dst, 0x1000 * key, 20 + key));
    // The first lists: H2C 0x1000 bytes in 4 descriptors of 0x400, C2H the second half in 2.
    for (const auto& [engine, descriptors] : {std::pair{h2c.get(), "4"}, std::pair{c2h.get(), "2"}}) {
        EXPECT_EQ(engine->options().completion, CompletionMethod::StatusRegister);
        ASSERT_EQ(engine->warnings().size(), 1u);
        EXPECT_EQ(engine->warnings()[0],
                  std::string("Completed Descriptor Count (0x48) reads 0 after a list of ") + descriptors +
                      " descriptors stopped at its STOP (Status descriptor_stopped, busy clear): the XDMA IP does not "
                      "count completed descriptors; completing by Status from now on (completion status)");
    }
    EXPECT_EQ(warnings.lines.size(), 2u);
}

TEST(XdmaQuirks, CompletedCountStuckAtZeroWhenForcedIsATimeoutThatSaysWhy) {
    Rig rig(count_stuck(false));
    auto h2c = open(*rig.device, Direction::H2C, {.completion = CompletionRequest::CompletedCount}, 300ms);
    ASSERT_TRUE(h2c);
    EXPECT_FALSE(h2c->options().completion_auto);
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    fill(src.data(), 0x1000, 31);
    ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard, 0x1000).ok());
    auto timed_out = h2c->wait();
    ASSERT_FALSE(timed_out.ok());
    EXPECT_EQ(timed_out.error().code, ETIMEDOUT);
    EXPECT_TRUE(has(timed_out.error().message(),
                    "Timeout after 300 ms: status 0x00000006 (descriptor_stopped descriptor_completed)"))
        << timed_out.error().message();
    EXPECT_TRUE(has(timed_out.error().message(),
                    "; Completed Descriptor Count (0x48) reads 0 of the 4 descriptors of a list while Status says the "
                    "engine stopped at its STOP (descriptor_stopped, busy clear): the XDMA IP does not count completed "
                    "descriptors; use completion status"))
        << timed_out.error().message();
    EXPECT_TRUE(h2c->warnings().empty());
    // The data did land: the card holds the key.
    std::vector<uint8_t> card(0x1000);
    ASSERT_TRUE(rig.model->card_read(kCard, card.data(), card.size()));
    EXPECT_EQ(std::memcmp(card.data(), src.data(), card.size()), 0);
}

TEST(XdmaQuirks, CompletedCountStuckAtZeroOnACreditsRingIsATimeoutThatSaysWhatToUse) {
    Rig rig(count_stuck(true));
    auto h2c = open(*rig.device, Direction::H2C, {}, 300ms);
    ASSERT_TRUE(h2c);
    EXPECT_EQ(h2c->options().mode, RunMode::Credits);
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    fill(src.data(), 0x1000, 32);
    ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard, 0x1000).ok());
    auto timed_out = h2c->wait();
    ASSERT_FALSE(timed_out.ok());
    EXPECT_TRUE(has(timed_out.error().message(),
                    "; Completed Descriptor Count (0x48) reads 0 of 4 descriptors with every credit taken (Descriptor "
                    "Credits reads 0): if their data arrived, the XDMA IP does not count completed descriptors; use "
                    "engine mode stop_list with completion status"))
        << timed_out.error().message();
}

// ---- c. A refusal lists every completion method that works on the IP ------------------------

TEST(XdmaQuirks, ARefusalListsEveryCompletionMethodThatWouldWork) {
    sim::XdmaConfig no_irq = memory_design(true);
    no_irq.interrupts = false;
    Rig without_interrupts(no_irq);
    auto choose = [](Rig& rig, xdma::ModeRequest request) {
        return xdma::choose_modes(*rig.device, 0, 0, Direction::H2C, 0, {}, request);
    };
    auto interrupt = choose(without_interrupts, {.completion = CompletionRequest::Interrupt});
    ASSERT_FALSE(interrupt.ok());
    EXPECT_TRUE(has(interrupt.error().hint, "the XDMA IP's interrupts are not usable; use poll_writeback, "
                                            "completed_count, status (with engine mode stop_list) or auto"))
        << interrupt.error().message();
    auto on_lists = choose(without_interrupts, {.mode = EngineModeRequest::StopList,
                                                .completion = CompletionRequest::Interrupt});
    ASSERT_FALSE(on_lists.ok());
    EXPECT_TRUE(has(on_lists.error().hint, "; use poll_writeback, completed_count, status or auto"))
        << on_lists.error().message();

    sim::XdmaConfig no_wb = memory_design(true);
    no_wb.poll_mode_writeback = false;
    Rig without_writeback(no_wb);
    auto writeback = choose(without_writeback, {.completion = CompletionRequest::PollWriteback});
    ASSERT_FALSE(writeback.ok());
    EXPECT_TRUE(has(writeback.error().hint, "(Control.pollmode_wb_enable read back 0); use completed_count, status "
                                            "(with engine mode stop_list), interrupt or auto"))
        << writeback.error().message();
    auto status = choose(without_writeback, {.mode = EngineModeRequest::Credits, .completion = CompletionRequest::Status});
    ASSERT_FALSE(status.ok());
    EXPECT_TRUE(has(status.error().hint, "add engine mode stop_list, or use completed_count, interrupt or auto"))
        << status.error().message();
}

// ---- d. The Alignments register checked for sense ---------------------------------------------

TEST(XdmaQuirks, BogusAlignmentsAreReportedAndIgnored) {
    Warnings warnings;
    sim::XdmaConfig config = memory_design();
    config.address_alignment = 0;
    config.length_granularity = 0;
    config.address_bits = 6;
    Rig rig(config);
    auto h2c = open(*rig.device, Direction::H2C, {});
    auto c2h = open(*rig.device, Direction::C2H, {});
    ASSERT_TRUE(h2c && c2h);
    ASSERT_EQ(h2c->warnings().size(), 3u);
    EXPECT_EQ(h2c->warnings()[0], "Alignments register (0x4C) reads 0x00000006: address_alignment 0 is not a power of "
                                  "two; ignored, assuming 64 bytes (the widest XDMA datapath)");
    EXPECT_EQ(h2c->warnings()[1], "Alignments register (0x4C) reads 0x00000006: length_granularity 0 is not a power of "
                                  "two; ignored, assuming 64 bytes (the widest XDMA datapath)");
    EXPECT_EQ(h2c->warnings()[2], "Alignments register (0x4C) reads 0x00000006: address_bits 6 makes no sense (a PCIe "
                                  "DMA engine has 32 to 64); ignored, using a 64-bit DMA mask");
    EXPECT_EQ(warnings.count("0000:15:00.0 H2C 0: Alignments register (0x4C) reads 0x00000006: "), 3u);
    EXPECT_EQ(h2c->info().address_alignment, 64u);
    EXPECT_EQ(h2c->info().length_granularity, 64u);
    EXPECT_EQ(h2c->info().address_bits, 64u);
    EXPECT_EQ(h2c->dma_mask_bits(), 64u);
    auto src = rig.region(0x2000, vfio::DmaAccess::DeviceRead);
    auto dst = rig.region(0x2000, vfio::DmaAccess::DeviceWrite);
    ASSERT_TRUE(round_trip(*h2c, *c2h, src, dst, 0x2000, 41));
    auto unaligned = h2c->submit_memory(src.iova(), kCard, 0x1008);
    ASSERT_FALSE(unaligned.ok());
    EXPECT_TRUE(has(unaligned.error().hint, "length granularity of 64 bytes")) << unaligned.error().message();
}

TEST(XdmaQuirks, CheckAlignmentsKeepsSaneFieldsAndNamesEachBogusOne) {
    xdma::ChannelInfo info;
    info.address_alignment = 48;
    info.length_granularity = 4;
    info.address_bits = 65;
    info.alignments = 0x00300441;
    const xdma::CheckedAlignments bogus = xdma::check_alignments(info, 32);
    EXPECT_EQ(bogus.address_alignment, 64u);
    EXPECT_EQ(bogus.length_granularity, 4u);
    EXPECT_EQ(bogus.address_bits, 32u);
    ASSERT_EQ(bogus.warnings.size(), 2u);
    EXPECT_TRUE(has(bogus.warnings[0], "reads 0x00300441: address_alignment 48 is not a power of two")) << bogus.warnings[0];
    EXPECT_TRUE(has(bogus.warnings[1], "address_bits 65 makes no sense (a PCIe DMA engine has 32 to 64); ignored, "
                                       "using a 32-bit DMA mask"))
        << bogus.warnings[1];
    info = xdma::ChannelInfo{};
    info.address_bits = 40;
    const xdma::CheckedAlignments sane = xdma::check_alignments(info, 64);
    EXPECT_TRUE(sane.warnings.empty());
    EXPECT_EQ(sane.address_bits, 40u);
    EXPECT_EQ(sane.address_alignment, 1u);
}

namespace {

// IOVAs below 2^36 in one 64 MiB range, and a 1 MiB range at 2^40 that best fit prefers for
// small allocations when the mask lets it.
struct HighIovaRig {
    explicit HighIovaRig(uint8_t address_bits, bool low_range = true) {
        bar = std::make_shared<sim::SimBar>(0x10000);
        std::vector<vfio::IovaRange> ranges{{1ull << 40, (1ull << 40) + 0xFFFFF}};
        if (low_range)
            ranges.push_back({(1ull << 36) - 0x4000000, (1ull << 36) - 1});
        device = std::make_unique<sim::SimDevice>(identity(), std::vector<std::shared_ptr<sim::SimBar>>{bar}, ranges);
        sim::XdmaConfig config = memory_design();
        config.address_bits = address_bits;
        model = sim::XdmaModel::attach(*device, *bar, config);
        EXPECT_TRUE(device->enable_bus_master().ok());
    }
    uint64_t ring_iova(Direction d) {
        auto regs = xdma::dma_registers(*device, 0);
        const uint64_t sgdma = xdma::block_offset(xdma::sgdma_target(d), 0);
        return regs->read32(sgdma + xdma::sgdma_reg::DESCRIPTOR_LOW_ADDRESS) |
               uint64_t{regs->read32(sgdma + xdma::sgdma_reg::DESCRIPTOR_HIGH_ADDRESS)} << 32;
    }
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    std::shared_ptr<sim::XdmaModel> model;
};

}  // namespace

TEST(XdmaQuirks, ASaneAddressBitsCapsTheDmaMaskOfTheRingAndOfTransfers) {
    HighIovaRig full(64);  // the control: a 64-bit IP's ring goes to the best fit at 2^40
    auto wide = open(*full.device, Direction::H2C, {});
    ASSERT_TRUE(wide);
    EXPECT_GE(full.ring_iova(Direction::H2C), 1ull << 40);

    Warnings warnings;
    HighIovaRig rig(36);
    auto h2c = open(*rig.device, Direction::H2C, {});
    auto c2h = open(*rig.device, Direction::C2H, {});
    ASSERT_TRUE(h2c && c2h);
    EXPECT_EQ(h2c->dma_mask_bits(), 36u);
    EXPECT_LT(rig.ring_iova(Direction::H2C), 1ull << 36);
    EXPECT_LT(rig.ring_iova(Direction::C2H), 1ull << 36);
    EXPECT_TRUE(warnings.lines.empty()) << "a sane address_bits is no warning";
    // A buffer mapped for a 64-bit mask lies beyond what the channel addresses: refused.
    auto high = vfio::DmaRegion::allocate(*rig.device, 0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(high.ok()) << high.error().message();
    ASSERT_GE(high->iova(), 1ull << 36);
    auto refused = h2c->submit_memory(high->iova(), kCard, 0x1000);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, EINVAL);
    EXPECT_TRUE(has(refused.error().hint, "descriptor 0 of the transfer: host address 0x10000"))
        << refused.error().message();
    EXPECT_TRUE(has(refused.error().hint, "reaches beyond the 36-bit DMA mask (Alignments register address_bits 36)"))
        << refused.error().message();
    // Buffers mapped with the engine's mask move and verify.
    const vfio::DmaRegion::Options read{vfio::DmaAccess::DeviceRead, vfio::BufferKind::Anonymous, h2c->dma_mask_bits()};
    const vfio::DmaRegion::Options write{vfio::DmaAccess::DeviceWrite, vfio::BufferKind::Anonymous, c2h->dma_mask_bits()};
    auto src = vfio::DmaRegion::allocate(*rig.device, 0x2000, read);
    auto dst = vfio::DmaRegion::allocate(*rig.device, 0x2000, write);
    ASSERT_TRUE(src.ok() && dst.ok());
    EXPECT_LT(src->iova(), 1ull << 36);
    ASSERT_TRUE(round_trip(*h2c, *c2h, *src, *dst, 0x2000, 51));
}

TEST(XdmaQuirks, ARingThatCannotFitTheAddressBitsNamesTheRegister) {
    HighIovaRig rig(36, false);
    xdma::EngineOptions o{.direction = Direction::H2C};
    auto engine = xdma::Engine::open(*rig.device, o);
    ASSERT_FALSE(engine.ok());
    EXPECT_EQ(engine.error().code, ENOSPC);
    EXPECT_TRUE(has(engine.error().message(), "36-bit DMA mask")) << engine.error().message();
    EXPECT_TRUE(has(engine.error().message(),
                    "(the DMA mask is the 36 address_bits of the channel's Alignments register, 0x4C)"))
        << engine.error().message();
}

// ---- e. The engines' modes, as every tool prints them ------------------------------------------

TEST(XdmaQuirks, ModesAreDescribedInTheOptionsSpelling) {
    Rig rig(memory_design(true));
    auto modes = xdma::choose_modes(*rig.device, 0, 0, Direction::H2C, 0, {}, {});
    ASSERT_TRUE(modes.ok()) << modes.error().message();
    EXPECT_EQ(xdma::describe(*modes, false), "memory-mapped, engine mode credits, completion poll_writeback (descriptor "
                                             "credits yes (probed), poll-mode writeback yes (probed))");
    xdma::Modes lists{RunMode::StopList, CompletionMethod::StatusRegister, "stated"};
    EXPECT_EQ(xdma::describe(lists, true), "stream, engine mode stop_list, completion status (stated)");
    EXPECT_STREQ(xdma::option_name(CompletionMethod::CompletedCountRegister), "completed_count");
    EXPECT_STREQ(xdma::option_name(CompletionMethod::Interrupt), "interrupt");
}

}  // namespace xdma_quirks_test
