// CardDma (test_dma_bridge's memory-mapped DMA) against the XDMA model: the engine modes it is
// given, and a stalled engine's timeout naming the channel's Status bits decoded.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <set>

#include "designs/registry.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "stream_tools/qdma_card_dma.hpp"
#include "stream_tools/card_dma.hpp"
#include "stream_tools/memory_boundaries.hpp"

namespace {

using namespace std::chrono_literals;

struct Rig {
    explicit Rig(sim::XdmaConfig config) {
        vfio::DeviceIdentity id;
        id.address = *vfio::PciAddress::parse("0000:15:00.0");
        bar = std::make_shared<sim::SimBar>(0x10000);
        device = std::make_unique<sim::SimDevice>(id, std::vector<std::shared_ptr<sim::SimBar>>{bar});
        model = sim::XdmaModel::attach(*device, *bar, config);
        EXPECT_TRUE(device->enable_bus_master().ok());
    }
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    std::shared_ptr<sim::XdmaModel> model;
};

sim::XdmaConfig memory() {
    return sim::XdmaConfig{.num_h2c = 1, .num_c2h = 1, .card_memory_size = 0x100000};
}

// CardDma::open on an IP of `config` asked for the engine modes `modes`: it must refuse; why.
pdt::Error refusal(const sim::XdmaConfig& config, const xdma::ModeRequest& modes) {
    Rig rig(config);
    stream_tools::XdmaCardDma::Options options;
    options.modes = modes;
    auto dma = stream_tools::XdmaCardDma::open(*rig.device, options);
    EXPECT_FALSE(dma.ok());
    return dma.ok() ? pdt::Error{} : dma.error();
}

// A host buffer the card reads, filled with byte i = i * step + first, and one it writes (filled
// with `poison` when one is given).
struct RoundTripBuffers {
    RoundTripBuffers(sim::SimDevice& device, uint64_t size, unsigned step, unsigned first,
                     std::optional<uint8_t> poison = std::nullopt)
        : out(vfio::DmaRegion::allocate(device, size, vfio::DmaAccess::DeviceRead)),
          in(vfio::DmaRegion::allocate(device, size, vfio::DmaAccess::DeviceWrite)) {
        EXPECT_TRUE(out.ok() && in.ok());
        for (uint64_t i = 0; out.ok() && i < size; ++i)
            out->data()[i] = static_cast<uint8_t>(i * step + first);
        if (poison && in.ok())
            std::memset(in->data(), *poison, size);
    }
    pdt::Result<vfio::DmaRegion> out, in;
};

// memory_boundaries through a CardDma opened with the default options, over `memory_size` bytes
// of the rig's card memory, printing nowhere.
stream_tools::MemoryTestResult run_boundaries(Rig& rig, uint64_t memory_size) {
    auto dma = stream_tools::XdmaCardDma::open(*rig.device, stream_tools::XdmaCardDma::Options{});
    EXPECT_TRUE(dma.ok()) << dma.error().message();
    if (!dma.ok())
        return {};
    stream_tools::MemoryTestOptions options;
    options.memory_size = memory_size;
    std::FILE* out = std::fopen("/dev/null", "w");
    const stream_tools::MemoryTestResult r = stream_tools::memory_boundaries(*rig.device, *dma, options, out);
    std::fclose(out);
    return r;
}

TEST(CardDmaSim, TimeoutNamesTheChannelStatusDecoded) {
    Rig rig(memory());
    stream_tools::XdmaCardDma::Options options;
    options.timeout = 200ms;
    auto dma = stream_tools::XdmaCardDma::open(*rig.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    auto host = vfio::DmaRegion::allocate(*rig.device, 0x1000, vfio::DmaAccess::DeviceRead);
    ASSERT_TRUE(host.ok());
    rig.model->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::EngineStall);
    auto written = dma->write(*host, {stream_tools::Chunk{0, 0, 0x1000}});
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, ETIMEDOUT);
    EXPECT_EQ(written.error().object, "0000:15:00.0 H2C 0");
    EXPECT_NE(written.error().hint.find("no transfer completed within the transfer timeout of 200 ms: status "
                                        "0x00000001 (busy) completed_descriptor_count=0"),
              std::string::npos)
        << written.error().message();
}

TEST(CardDmaSim, RunsTheModesItIsGiven) {
    sim::XdmaConfig config = memory();
    config.descriptor_credits = false;
    config.poll_mode_writeback = false;
    Rig rig(config);
    stream_tools::XdmaCardDma::Options options;  // nothing stated, auto: probed
    auto dma = stream_tools::XdmaCardDma::open(*rig.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    EXPECT_EQ(dma->h2c().options().mode, xdma::RunMode::StopList);
    EXPECT_EQ(dma->c2h().options().completion, xdma::CompletionMethod::CompletedCountRegister);
    RoundTripBuffers host(*rig.device, 0x4000, 7, 1);
    ASSERT_TRUE(host.out.ok() && host.in.ok());
    auto& out = host.out;
    auto& in = host.in;
    auto done = dma->round_trip(*out, *in, {stream_tools::Chunk{0, 0, 0x2000}, stream_tools::Chunk{0x2000, 0x8000, 0x2000}});
    ASSERT_TRUE(done.ok()) << done.error().message();
    EXPECT_EQ(std::memcmp(out->data(), in->data(), 0x4000), 0);
    ASSERT_TRUE(dma->stop().ok());
}

// --completion interrupt: CardDma sleeps on the engines' MSIs (counted by wait()) instead of
// polling the completion register, in both directions, and the data still round-trips.
TEST(CardDmaSim, InterruptCompletionWaitsOnTheMsis) {
    sim::XdmaConfig config = memory();
    config.descriptor_credits = false;
    config.poll_mode_writeback = false;
    // A 50 MB/s link: each 16 KiB piece takes ~0.3 ms, so CardDma finds rounds with nothing
    // completed and sleeps on the MSIs; unthrottled, polling alone could see every completion.
    config.link_bytes_per_second = 50e6;
    Rig rig(config);
    stream_tools::XdmaCardDma::Options options;
    options.modes.completion = xdma::CompletionRequest::Interrupt;
    auto dma = stream_tools::XdmaCardDma::open(*rig.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    ASSERT_EQ(dma->h2c().options().completion, xdma::CompletionMethod::Interrupt);
    RoundTripBuffers host(*rig.device, 0x40000, 13, 5);
    ASSERT_TRUE(host.out.ok() && host.in.ok());
    auto& out = host.out;
    auto& in = host.in;
    std::vector<stream_tools::Chunk> chunks;
    for (uint64_t at = 0; at < 0x40000; at += 0x4000)
        chunks.push_back(stream_tools::Chunk{at, 0x80000 + at, 0x4000});
    auto done = dma->round_trip(*out, *in, chunks);
    ASSERT_TRUE(done.ok()) << done.error().message();
    EXPECT_EQ(std::memcmp(out->data(), in->data(), 0x40000), 0);
    EXPECT_GT(dma->h2c().counters().interrupts, 0u);
    EXPECT_GT(dma->c2h().counters().interrupts, 0u);
    auto written = dma->write(*out, {stream_tools::Chunk{0, 0, 0x40000}});
    ASSERT_TRUE(written.ok()) << written.error().message();
    const uint64_t before = dma->c2h().counters().interrupts;
    auto read = dma->read(*in, {stream_tools::Chunk{0, 0, 0x40000}});
    ASSERT_TRUE(read.ok()) << read.error().message();
    EXPECT_GT(dma->c2h().counters().interrupts, before);
    ASSERT_TRUE(dma->stop().ok());
}

// Without interrupts on the IP, --completion interrupt is refused with the reason.
TEST(CardDmaSim, InterruptCompletionOnAnIpWithoutInterruptsIsRefused) {
    sim::XdmaConfig config = memory();
    config.interrupts = false;
    const pdt::Error error = refusal(config, {.completion = xdma::CompletionRequest::Interrupt});
    EXPECT_NE(error.message().find("completion interrupt: the IRQ block's Channel Interrupt Enable Mask reads back 0, "
                                   "the XDMA IP's interrupts are not usable"),
              std::string::npos)
        << error.message();
}

TEST(CardDmaSim, ACreditsRequestOnAnIpWithoutCreditsIsRefused) {
    sim::XdmaConfig config = memory();
    config.descriptor_credits = false;
    const pdt::Error error = refusal(config, {.mode = xdma::EngineModeRequest::Credits});
    EXPECT_EQ(error.code, EINVAL);
    EXPECT_TRUE(error.usage);
    EXPECT_NE(error.hint.find("engine mode credits: the IP has no descriptor credits"), std::string::npos)
        << error.message();
}



// memory_boundaries: passes on a sound engine, and the guard bands catch an engine that
// writes one byte past the end of a block, on the card (H2C) and on the host (C2H); on an
// engine that needs 64-byte alignment every case keeps it.
class BoundarySim : public ::testing::TestWithParam<std::optional<sim::XdmaDirection>> {};

TEST_P(BoundarySim, GuardBandsCatchAnOverrunByOneByte) {
    Rig rig(memory());
    auto dma = stream_tools::XdmaCardDma::open(*rig.device, stream_tools::XdmaCardDma::Options{});
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    if (GetParam())
        rig.model->inject(*GetParam(), 0, sim::XdmaFault::OverrunOneByte);
    stream_tools::MemoryTestOptions options;
    options.memory_size = 0x100000;
    char text[16384] = {};
    std::FILE* out = fmemopen(text, sizeof text - 1, "w");
    const stream_tools::MemoryTestResult r = stream_tools::memory_boundaries(*rig.device, *dma, options, out);
    std::fclose(out);
    if (!GetParam()) {
        EXPECT_TRUE(r.passed) << r.failure;
        EXPECT_GT(r.bytes_verified, 0x100000u);
        EXPECT_NE(std::string(text).find("TEST PASS"), std::string::npos) << text;
    } else if (*GetParam() == sim::XdmaDirection::H2C) {
        EXPECT_FALSE(r.passed);
        EXPECT_NE(r.failure.find("H2C failure : guard band: card byte 0x81 past the guard band after the transfer of "
                                 "0x1 bytes at card 0x40"),
                  std::string::npos)
            << r.failure;
    } else {
        EXPECT_FALSE(r.passed);
        EXPECT_NE(r.failure.find("guard band: host byte after the C2H destination"), std::string::npos) << r.failure;
        EXPECT_NE(r.failure.find("(overrun)"), std::string::npos) << r.failure;
    }
}

INSTANTIATE_TEST_SUITE_P(Faults, BoundarySim,
                         ::testing::Values(std::nullopt, sim::XdmaDirection::H2C, sim::XdmaDirection::C2H));

TEST(BoundaryCases, SizesAndOffsetsStraddlePowersOfTwoAndFourKiB) {
    const auto cases = stream_tools::boundary_cases(1, 0x20000);
    std::set<uint64_t> sizes, card, host;
    for (const auto& c : cases) {
        sizes.insert(c.length);
        card.insert(c.card_offset);
        host.insert(c.host_offset);
    }
    for (uint64_t s : {1, 2, 3, 4, 5, 7, 8, 9, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2001, 0x2FFF, 0x3001, 0xFFFF, 0x10000, 0x10001})
        EXPECT_EQ(sizes.count(s), 1u) << s;
    EXPECT_EQ(card, (std::set<uint64_t>{0, 1, 2, 3, 0xFFF, 0x1000, 0x1001}));
    EXPECT_EQ(host, card);
    // A 64-byte unit: every size and offset a multiple of it, guard bands of 64 bytes.
    for (const auto& c : stream_tools::boundary_cases(64, 0x20000)) {
        EXPECT_EQ(c.length % 64, 0u);
        EXPECT_EQ(c.card_offset % 64, 0u);
        EXPECT_EQ(c.host_offset % 64, 0u);
    }
    // A small card memory: only the cases that fit with their guard bands.
    for (const auto& c : stream_tools::boundary_cases(1, 0x1000))
        EXPECT_LE(64 + c.card_offset + c.length + 64 + 1, 0x1000u);
    EXPECT_TRUE(stream_tools::boundary_cases(1, 100).empty());
}

TEST(BoundarySim, AlignedEngineKeepsItsAlignments) {
    sim::XdmaConfig config = memory();
    config.address_alignment = 64;
    config.length_granularity = 64;
    Rig rig(config);
    const stream_tools::MemoryTestResult r = run_boundaries(rig, 0x100000);
    EXPECT_TRUE(r.passed) << r.failure;
    EXPECT_TRUE(rig.model->violations().empty());
}

TEST(BoundarySim, TinyCardMemoryFailsNamingWhy) {
    Rig rig(sim::XdmaConfig{.num_h2c = 1, .num_c2h = 1, .card_memory_size = 0x80});
    const stream_tools::MemoryTestResult r = run_boundaries(rig, 0x80);
    EXPECT_FALSE(r.passed);
    EXPECT_NE(r.failure.find("holds no boundary transfer with its guard bands"), std::string::npos) << r.failure;
}

}  // namespace

namespace {

// U200_qdma_ram's simulated QDMA (8 MiB of card memory at 0), bus master enabled.
sim::DesignInstance qdma_card() {
    auto registry = designs::Registry::builtin();
    EXPECT_TRUE(registry.ok());
    const designs::Design* design = registry->find("U200_qdma_ram");
    EXPECT_NE(design, nullptr);
    auto instance = sim::instantiate_design(*design, sim::simulated_identity(*design, sim::simulated_address(0), 41));
    EXPECT_TRUE(instance.ok()) << instance.error().message();
    EXPECT_TRUE(instance->device->enable_bus_master().ok());
    return std::move(*instance);
}

}  // namespace

// An MM descriptor's lengthInByte holds 1..64K-1 (PG302): a piece size outside it is refused.
TEST(QdmaCardDmaSim, APieceSizeTheDescriptorCannotHoldIsRefused) {
    sim::DesignInstance card = qdma_card();
    for (uint32_t piece : {0u, 0x10000u}) {
        stream_tools::QdmaCardDma::Options options;
        options.piece_bytes = piece;
        auto dma = stream_tools::QdmaCardDma::open(*card.device, options);
        ASSERT_FALSE(dma.ok());
        EXPECT_EQ(dma.error().code, EINVAL);
        EXPECT_TRUE(dma.error().hint.find("lengthInByte holds 1..64K-1") != std::string::npos) << dma.error().message();
    }
}

// A round trip of chunks larger than the ring holds (pieces posted as descriptors free up), and
// of odd lengths and offsets: every byte read back is checked; the names say "queue".
TEST(QdmaCardDmaSim, ChunksPastTheRingAndOddLengthsRoundTrip) {
    sim::DesignInstance card = qdma_card();
    stream_tools::QdmaCardDma::Options options;
    options.piece_bytes = 0x1000;  // 0x30001 bytes: 49 descriptors, a 17-entry ring holds 16
    options.ring_entries = 17;
    auto dma = stream_tools::QdmaCardDma::open(*card.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    EXPECT_EQ((*dma)->channels(), "H2C queue 0 C2H queue 0");
    EXPECT_EQ((*dma)->descriptors_for(streams::Direction::H2C, 0x30001), 49u);
    const uint64_t size = 0x40000;
    RoundTripBuffers host(*card.device, size, 7, 3, 0xA5);  // the destination poisoned
    ASSERT_TRUE(host.out.ok() && host.in.ok());
    const std::vector<stream_tools::Chunk> chunks{{0x3, 0x1001, 0x30001}, {0x30010, 0x40000, 0x7}};
    ASSERT_TRUE((*dma)->round_trip(*host.out, *host.in, chunks).ok());
    for (const stream_tools::Chunk& c : chunks)
        EXPECT_EQ(std::memcmp(host.in->data() + c.host_offset, host.out->data() + c.host_offset, c.length), 0)
            << c.card_address;
    EXPECT_EQ(host.in->data()[0x2], 0xA5);  // outside every chunk: untouched
    EXPECT_TRUE((*dma)->stop().ok());
}

// Completion by interrupt: the queues interrupt through an aggregation ring, whose MSIs the run
// sleeps on; the data still round-trips, every byte compared.
TEST(QdmaCardDmaSim, InterruptCompletionWaitsOnTheRing) {
    sim::DesignInstance card = qdma_card();
    stream_tools::QdmaCardDma::Options options;
    options.interrupts = true;
    auto dma = stream_tools::QdmaCardDma::open(*card.device, options);
    ASSERT_TRUE(dma.ok()) << dma.error().message();
    const uint64_t size = 0x80000;
    RoundTripBuffers host(*card.device, size, 13, 1, 0xA5);  // the destination poisoned
    ASSERT_TRUE(host.out.ok() && host.in.ok());
    std::vector<stream_tools::Chunk> chunks;
    for (uint64_t at = 0; at < size; at += 0x10000)
        chunks.push_back({at, at, 0x10000});
    ASSERT_TRUE((*dma)->round_trip(*host.out, *host.in, chunks).ok());
    EXPECT_EQ(std::memcmp(host.in->data(), host.out->data(), size), 0);
    EXPECT_GT((*dma)->interrupts(), 0u);
}
