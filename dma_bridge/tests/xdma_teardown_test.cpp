// F21: no DMA buffer is released under a live engine, and Run is set and cleared with proof from
// what the IP shows. The model's start and stop quirks (sim::XdmaConfig: Control reading 0, the
// W1C alias ignored, Run no write clears, a start lost just after a stop, a late engine), each
// with the driver's fallback and its one warning, or the named cause where none is safe. The
// simulated IOMMU counts every access to an IOVA after the driver unmapped it; a test process
// that counted one fails at exit (sim_device.hpp), and these tests also assert the count.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "dma_bridge/xdma_ip.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "streams/fallbacks.hpp"
#include "vfio_access/device_lock.hpp"
#include "xdma_rig.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace xdma_teardown_test {

using namespace xdma_test;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t kCard = 0x80000000ull;

std::unique_ptr<xdma::Engine> open(vfio::Device& device, Direction direction, RunMode mode,
                                   std::chrono::milliseconds timeout = 5000ms) {
    xdma::EngineOptions o{.direction = direction, .ring_descriptors = 16, .max_descriptor_length = 0x1000};
    o.mode = mode;
    o.completion = CompletionMethod::CompletedCountRegister;
    o.timeout = timeout;
    auto engine = xdma::Engine::open(device, o);
    EXPECT_TRUE(engine.ok()) << engine.error().message();
    return engine.ok() ? std::move(engine).value() : nullptr;
}

// H2C then C2H of `length` keyed bytes into a poisoned destination; true when every byte came back.
testing::AssertionResult round_trip(xdma::Engine& h2c, xdma::Engine& c2h, Rig& rig, uint64_t length, uint32_t key) {
    auto src = rig.region(length, vfio::DmaAccess::DeviceRead);
    auto dst = rig.region(length, vfio::DmaAccess::DeviceWrite);
    fill(src.data(), length, key);
    for (uint64_t i = 0; i < length; ++i)
        dst.data()[i] = static_cast<uint8_t>(~src.data()[i]);
    for (auto* step : {&h2c, &c2h}) {
        xdma::Engine& e = *step;
        auto id = &e == &h2c ? e.submit_memory(src.iova(), kCard, length) : e.submit_memory(dst.iova(), kCard, length);
        if (!id.ok())
            return testing::AssertionFailure() << id.error().message();
        if (auto w = e.wait(); !w.ok())
            return testing::AssertionFailure() << w.error().message();
    }
    if (std::memcmp(src.data(), dst.data(), length) != 0)
        return testing::AssertionFailure() << "key " << key << ": data differ";
    return testing::AssertionSuccess();
}

// Opens both engines of channel 0 in `mode` and moves three keyed round trips through them.
testing::AssertionResult three_round_trips(Rig& rig, RunMode mode, std::unique_ptr<xdma::Engine>& h2c,
                                           std::unique_ptr<xdma::Engine>& c2h) {
    h2c = open(*rig.device, Direction::H2C, mode);
    c2h = open(*rig.device, Direction::C2H, mode);
    if (!h2c || !c2h)
        return testing::AssertionFailure() << "an engine did not open";
    for (uint32_t key = 1; key <= 3; ++key)
        if (auto done = round_trip(*h2c, *c2h, rig, 0x800 * key, key); !done)
            return done << " (" << xdma::to_string(mode) << ")";
    return testing::AssertionSuccess();
}

}  // namespace

// ---- the fence -------------------------------------------------------------------------------

TEST(DmaFence, ARegionReleasedUnderAClaimStaysMappedUntilTheClaimIsProven) {
    Warnings warnings;
    Rig rig(memory_design(true));
    const size_t before = rig.device->iommu().mapping_count();
    auto claim = rig.device->dma_fence().claim("test writer");
    {
        auto region = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
        EXPECT_EQ(rig.device->iommu().mapping_count(), before + 1);
    }
    EXPECT_EQ(rig.device->iommu().mapping_count(), before + 1) << "released under a claim: kept";
    EXPECT_EQ(rig.device->dma_fence().releases_deferred(), 1u);
    EXPECT_EQ(warnings.count("were kept mapped"), 0u) << warnings.all();
    claim.proven();
    EXPECT_EQ(rig.device->iommu().mapping_count(), before) << "the claim proven: unmapped";
    EXPECT_EQ(rig.device->dma_fence().releases_deferred(), 0u);
    // F21: what was kept is said, once, naming the writer.
    EXPECT_EQ(warnings.count("test writer: 1 DMA buffer(s) released while it could still write were kept mapped "
                             "until it was seen stopped"),
              1u)
        << warnings.all();
    auto again = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);  // the IOVA went back to the allocator
    EXPECT_EQ(rig.device->iommu().mapping_count(), before + 1);
}

TEST(DmaFence, AClaimDroppedUnprovenKeepsEveryLaterReleaseAndSaysWhoseItWas) {
    Warnings warnings;
    Rig rig(memory_design(true));
    const size_t before = rig.device->iommu().mapping_count();
    { auto dropped = rig.device->dma_fence().claim("0000:15:00.0 C2H 0"); }
    EXPECT_EQ(warnings.count("0000:15:00.0 C2H 0: the engine was released without a proven stop; the device's DMA "
                             "buffers released from now on stay mapped until it is closed"),
              1u)
        << warnings.all();
    { auto region = rig.region(0x2000, vfio::DmaAccess::DeviceWrite); }
    EXPECT_EQ(rig.device->iommu().mapping_count(), before + 1);
    ASSERT_EQ(rig.device->dma_fence().abandoned().size(), 1u);
    EXPECT_EQ(rig.device->dma_fence().abandoned()[0], "0000:15:00.0 C2H 0: the engine was released without a proven stop");
}

TEST(SimIommu, AnAccessToAReleasedIovaIsCountedOneNeverMappedOrALiesLateWriteIsNot) {
    Rig rig(memory_design(true));
    uint64_t iova = 0;
    {
        auto region = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
        iova = region.iova();
    }
    const uint32_t word = 0x12345678;
    testing::internal::CaptureStderr();
    EXPECT_FALSE(rig.device->dma_write(iova + 8, &word, sizeof word).ok());
    EXPECT_EQ(sim::SimIommu::released_iova_accesses(), 1u);
    {
        sim::SimIommu::LyingWriteScope lie;
        EXPECT_FALSE(rig.device->dma_write(iova, &word, sizeof word).ok());
    }
    EXPECT_FALSE(rig.device->dma_write(0x7000'0000'0000ull, &word, sizeof word).ok());  // never mapped
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(sim::SimIommu::released_iova_accesses(), 1u);
    const auto faults = rig.device->iommu().faults();
    ASSERT_EQ(faults.size(), 3u);
    EXPECT_EQ(faults[0].reason, "released");
    EXPECT_EQ(faults[2].reason, "unmapped");
    EXPECT_TRUE(has(printed, "sim IOMMU: DMA write of IOVA")) << printed;
    EXPECT_TRUE(has(printed, "after the driver unmapped it (a lying engine's late write)")) << printed;
    sim::SimIommu::forgive_released_iova_accesses();  // provoked here on purpose
    EXPECT_EQ(sim::SimIommu::released_iova_accesses(), 0u);
}

// ---- a late engine: its write lands after the tool stopped waiting --------------------------

// The wait times out while the engine's C2H write is still in flight; the caller drops its buffer
// before it stops the engine (the F21 error path). The engine's claim keeps the mapping; stop()
// waits for busy to clear (the write landed), proves the stop, and only then is it unmapped.
TEST(XdmaTeardown, ABufferDroppedBeforeTheStopOfALateEngineIsUnmappedOnlyAfterItsWriteLanded) {
    for (const RunMode mode : {RunMode::Credits, RunMode::StopList}) {
        sim::XdmaConfig config = memory_design();
        config.late_engine = 150ms;
        Rig rig(config);
        auto c2h = open(*rig.device, Direction::C2H, mode, 20ms);
        ASSERT_TRUE(c2h);
        const size_t before = rig.device->iommu().mapping_count();
        {
            auto dst = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
            ASSERT_TRUE(c2h->submit_memory(dst.iova(), kCard, 0x1000).ok());
            auto waited = c2h->wait();
            ASSERT_FALSE(waited.ok());
            EXPECT_EQ(waited.error().code, ETIMEDOUT);
            EXPECT_TRUE(c2h->may_write());
        }  // released before the stop: kept
        EXPECT_EQ(rig.device->iommu().mapping_count(), before + 1) << xdma::to_string(mode);
        ASSERT_TRUE(c2h->stop().ok());
        EXPECT_FALSE(c2h->may_write());
        EXPECT_EQ(rig.device->iommu().mapping_count(), before) << "unmapped once the stop was proven";
        EXPECT_GE(rig.model->descriptors_processed(sim::XdmaDirection::C2H, 0), 1u) << "the late write landed";
        EXPECT_EQ(sim::SimIommu::released_iova_accesses(), 0u);
        EXPECT_TRUE(rig.device->iommu().faults().empty());
    }
}

// Later than the stop can wait for (idle_wait): the stop is not proven, the engine keeps its claim
// and, destroyed, abandons it naming the channel; the buffer stays mapped and the write lands in it.
TEST(XdmaTeardown, AStopThatCannotBeProvenKeepsTheBuffersMappedAndSaysSo) {
    Warnings warnings;
    sim::XdmaConfig config = memory_design();
    config.late_engine = 400ms;
    Rig rig(config);
    xdma::EngineOptions o{.direction = Direction::C2H, .ring_descriptors = 16, .max_descriptor_length = 0x1000};
    o.completion = CompletionMethod::CompletedCountRegister;
    o.timeout = 20ms;
    o.idle_wait = 50ms;
    auto c2h = xdma::Engine::open(*rig.device, o);
    ASSERT_TRUE(c2h.ok());
    const size_t before = rig.device->iommu().mapping_count();
    {
        auto dst = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
        ASSERT_TRUE((*c2h)->submit_memory(dst.iova(), kCard, 0x1000).ok());
        ASSERT_FALSE((*c2h)->wait().ok());
    }
    auto stopped = (*c2h)->stop();
    ASSERT_FALSE(stopped.ok());
    EXPECT_TRUE(has(stopped.error().message(), "Timeout waiting to become idle after clearing Run bit"))
        << stopped.error().message();
    c2h->reset();
    EXPECT_EQ(warnings.count("0000:15:00.0 C2H 0: Timeout waiting to become idle after clearing Run bit"), 1u)
        << warnings.all();
    EXPECT_EQ(warnings.count("stay mapped until it is closed"), 1u) << warnings.all();
    std::this_thread::sleep_for(500ms);  // the write lands, in memory still mapped
    EXPECT_GE(rig.device->iommu().mapping_count(), before + 1);
    EXPECT_EQ(sim::SimIommu::released_iova_accesses(), 0u);
    EXPECT_TRUE(rig.device->iommu().faults().empty());
}

// ---- start and stop proven by what the IP shows ----------------------------------------------

// A memory design with one quirk set, both engines of channel 0 opened in `mode` and three keyed
// round trips moved through them; the warnings collected meanwhile.
struct QuirkRun {
    QuirkRun(bool sim::XdmaConfig::*quirk, RunMode mode) : rig(with(quirk)) { moved = three_round_trips(rig, mode, h2c, c2h); }
    static sim::XdmaConfig with(bool sim::XdmaConfig::*quirk) {
        sim::XdmaConfig config = memory_design();
        config.*quirk = true;
        return config;
    }
    Warnings warnings;
    Rig rig;
    std::unique_ptr<xdma::Engine> h2c, c2h;
    testing::AssertionResult moved = testing::AssertionFailure();
};

TEST(XdmaRunControl, AControlThatReadsZeroIsJudgedByStatusWithOneWarning) {
    for (const RunMode mode : {RunMode::Credits, RunMode::StopList}) {
        QuirkRun run(&sim::XdmaConfig::control_reads_zero, mode);
        ASSERT_TRUE(run.moved);
        ASSERT_TRUE(run.h2c->stop().ok());
        EXPECT_EQ(run.warnings.count("Control (0x04) reads back 0x00000000 after a write of 0x"), 2u) << run.warnings.all();
        EXPECT_EQ(run.warnings.count("the engine's start and stop are judged by Status (0x40)"), 2u);
        EXPECT_EQ(run.h2c->fallbacks(), std::vector<std::string>{"control_not_readable"});
        EXPECT_TRUE(run.rig.model->violations().empty()) << run.rig.model->violations().front().what;
    }
}

TEST(XdmaRunControl, AnIgnoredW1cAliasIsClearedWithAPlainWriteAndTheStopStillProven) {
    for (const RunMode mode : {RunMode::Credits, RunMode::StopList}) {
        QuirkRun run(&sim::XdmaConfig::control_w1c_ignored, mode);
        ASSERT_TRUE(run.moved);
        ASSERT_TRUE(run.c2h->stop().ok());
        EXPECT_FALSE(run.rig.model->busy(sim::XdmaDirection::C2H, 0));
        EXPECT_EQ(run.warnings.count("Run reads back set after a write of Run to the Control W1C alias (0x0C): the alias "
                                     "is ignored; clearing Run with a write of Control (0x04) instead"),
                  mode == RunMode::StopList ? 2u : 1u)
            << "once per engine that cleared Run\n" << run.warnings.all();
        EXPECT_EQ(run.c2h->fallbacks(), std::vector<std::string>{"control_w1c_ignored"});
        // Open again: the channel is idle, not "busy at open".
        run.c2h.reset();
        EXPECT_TRUE(open(*run.rig.device, Direction::C2H, mode) != nullptr);
    }
    const auto used = streams::fallbacks_used();
    EXPECT_NE(std::find(used.begin(), used.end(), "control_w1c_ignored"), used.end());
}

TEST(XdmaRunControl, ARunThatNoWriteClearsFailsTheStopNamingTheIpAndKeepsTheBuffers) {
    Warnings warnings;
    sim::XdmaConfig config = memory_design();
    config.run_clear_ignored = true;
    Rig rig(config);
    auto h2c = open(*rig.device, Direction::H2C, RunMode::Credits);
    auto c2h = open(*rig.device, Direction::C2H, RunMode::Credits);
    ASSERT_TRUE(h2c && c2h);
    ASSERT_TRUE(round_trip(*h2c, *c2h, rig, 0x1000, 7));
    auto stopped = c2h->stop();
    ASSERT_FALSE(stopped.ok());
    EXPECT_TRUE(has(stopped.error().message(), "stop XDMA engine 0000:15:00.0 C2H 0: Input/output error (Run reads "
                                               "back set after a write of the Control W1C alias (0x0C) and of Control "
                                               "(0x04): the IP keeps Run set"))
        << stopped.error().message();
    EXPECT_FALSE(c2h->may_write()) << "nothing in flight: every descriptor it was given completed";
    // With a transfer in flight, the claim outlives the engine: abandoned, named.
    auto dst = rig.region(0x1000, vfio::DmaAccess::DeviceWrite);
    rig.model->inject(sim::XdmaDirection::C2H, 0, sim::XdmaFault::EngineStall);
    ASSERT_TRUE(c2h->submit_memory(dst.iova(), kCard, 0x1000).ok());
    c2h.reset();
    EXPECT_EQ(warnings.count("0000:15:00.0 C2H 0: Run reads back set after a write of the Control W1C alias (0x0C) and "
                             "of Control (0x04): the IP keeps Run set, so the engine may still write the buffers it "
                             "was given; the device's DMA buffers released from now on stay mapped"),
              1u)
        << "the fence's warning, naming the channel and why\n" << warnings.all();
    const size_t mapped = rig.device->iommu().mapping_count();
    dst = vfio::DmaRegion();
    EXPECT_EQ(rig.device->iommu().mapping_count(), mapped) << "kept: the engine may still write it";
    // A channel found busy at open by the same process names its own leftover.
    auto again = xdma::Engine::open(*rig.device, {.direction = Direction::C2H});
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(has(again.error().message(), "Attempting to initialise when DMA channel busy (our own: this process "
                                             "could not stop it earlier: Run reads back set"))
        << again.error().message();
}

TEST(XdmaRunControl, AStartRefusedJustAfterAStopIsRetriedWithOneWarning) {
    Warnings warnings;
    sim::XdmaConfig config = memory_design();
    config.start_refused_after_stop = 20ms;
    Rig rig(config);
    auto h2c = open(*rig.device, Direction::H2C, RunMode::StopList);
    auto c2h = open(*rig.device, Direction::C2H, RunMode::StopList);
    ASSERT_TRUE(h2c && c2h);
    for (uint32_t key = 1; key <= 3; ++key)
        ASSERT_TRUE(round_trip(*h2c, *c2h, rig, 0x400 * key, key));
    // Two lists back to back: the second start comes within microseconds of the first's stop.
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    for (int list = 0; list < 2; ++list) {
        ASSERT_TRUE(h2c->submit_memory(src.iova(), kCard, 0x1000).ok());
        ASSERT_TRUE(h2c->wait().ok());
    }
    EXPECT_EQ(warnings.count("0000:15:00.0 H2C 0: the engine refused "), 1u) << "once per engine\n" << warnings.all();
    EXPECT_GE(warnings.count("start(s) just after a stop (Status showed neither busy nor a stop after Run was set); it "
                             "started "),
              1u);
    EXPECT_EQ(h2c->fallbacks(), std::vector<std::string>{"start_refused_after_stop"});
    EXPECT_TRUE(rig.model->violations().empty()) << rig.model->violations().front().what;
}

TEST(XdmaRunControl, AStartRefusedForLongerThanTheBoundFailsNamingIt) {
    sim::XdmaConfig config = memory_design();
    config.start_refused_after_stop = 2000ms;
    Rig rig(config);
    xdma::EngineOptions o{.direction = Direction::H2C, .ring_descriptors = 16, .max_descriptor_length = 0x1000};
    o.mode = RunMode::StopList;
    o.completion = CompletionMethod::CompletedCountRegister;
    o.idle_wait = 30ms;
    auto h2c = xdma::Engine::open(*rig.device, o);
    ASSERT_TRUE(h2c.ok());
    auto src = rig.region(0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE((*h2c)->submit_memory(src.iova(), kCard, 0x1000).ok());
    ASSERT_TRUE((*h2c)->wait().ok());  // the first start: no stop before it
    auto second = (*h2c)->submit_memory(src.iova(), kCard, 0x1000);
    auto failed = second.ok() ? (*h2c)->wait().error() : second.error();
    EXPECT_TRUE(has(failed.message(), "the engine did not start: Run was set ")) << failed.message();
    EXPECT_TRUE(has(failed.message(), "never showed it busy or stopped")) << failed.message();
    EXPECT_TRUE(has(failed.message(), "the IP refuses to start")) << failed.message();
}

// A channel busy at open that this process never ran: with no device lock held, another process
// may be using it; with this process holding the device lock, it is an earlier run's leftover.
TEST(XdmaRunControl, AChannelBusyAtOpenIsNamedByWhoseItMayBe) {
    Rig rig(memory_design());
    const auto regs = rig.device->bar(0).value()->window(0, 0x10000).value();
    regs.write32(0x6024, 1u << 16);  // C2H 0 credit mode (SGDMA common W1S): with no credits it waits, busy
    regs.write32(0x1000 + 0x08, 1);  // C2H 0 Control W1S: Run, as another program would
    auto other = xdma::Engine::open(*rig.device, {.direction = Direction::C2H});
    ASSERT_FALSE(other.ok());
    EXPECT_TRUE(has(other.error().message(), "Attempting to initialise when DMA channel busy (another user of the "
                                             "channel? no device lock was taken, so another process may be using it)"))
        << other.error().message();
    const auto dir = std::filesystem::temp_directory_path() / ("pdt_teardown_lock_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    vfio::LockOptions options;
    options.directory = dir.string();
    auto lock = vfio::DeviceLock::acquire(options, rig.device->identity().address);
    ASSERT_TRUE(lock.ok()) << lock.error().message();
    rig.device->hold_lock(std::move(lock).value());
    auto leftover = xdma::Engine::open(*rig.device, {.direction = Direction::C2H});
    ASSERT_FALSE(leftover.ok());
    EXPECT_TRUE(has(leftover.error().message(), "(a leftover of an earlier run that could not stop it: this process "
                                                "holds the device lock"))
        << leftover.error().message();
    regs.write32(0x1000 + 0x0C, 1);
    std::filesystem::remove_all(dir);
}

}  // namespace xdma_teardown_test
