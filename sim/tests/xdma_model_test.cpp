// Register-level tests of the XDMA model (PG195) with raw register accesses and hand-built
// descriptors, independent of the driver in dma_bridge/.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/xdma_model.hpp"

namespace {

struct Rig {
    explicit Rig(sim::XdmaConfig config) {
        config.stepped = true;
        vfio::DeviceIdentity id;
        id.address = *vfio::PciAddress::parse("0000:01:00.0");
        id.vendor_id = 0x10ee;
        id.device_id = 0x7024;
        bar = std::make_shared<sim::SimBar>(0x10000);
        device = std::make_unique<sim::SimDevice>(id, std::vector<std::shared_ptr<sim::SimBar>>{bar});
        model = sim::XdmaModel::attach(*device, *bar, config);
        EXPECT_TRUE(device->enable_bus_master().ok());
        regs = *device->bar(0).value()->window(0, 0x10000, vfio::Access64::SplitLowHigh);
        EXPECT_TRUE(device->dma_map(0x100000, host, sizeof host, vfio::DmaAccess::DeviceReadWrite).ok());
    }
    // Descriptor at host offset `at`.
    void descriptor(size_t at, uint32_t control, uint32_t length, uint64_t src, uint64_t dst, uint64_t nxt) {
        const uint32_t word0 = 0xAD4Bu << 16 | control;
        std::memcpy(host + at, &word0, 4);
        std::memcpy(host + at + 4, &length, 4);
        std::memcpy(host + at + 8, &src, 8);
        std::memcpy(host + at + 16, &dst, 8);
        std::memcpy(host + at + 24, &nxt, 8);
    }
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    std::shared_ptr<sim::XdmaModel> model;
    vfio::RegisterWindow regs;
    alignas(4096) uint8_t host[0x4000] = {};
};

constexpr uint64_t kIova = 0x100000;
// Control ie_* bits (PG195): a Status bit is logged only when its ie_* bit is set.
constexpr uint32_t kIeStopped = 1u << 1, kIeCompleted = 1u << 2, kIeAlign = 1u << 3, kIeMagic = 1u << 4,
                   kIeLength = 1u << 5, kIeAll = 0x00FFFE7E;

}  // namespace

TEST(XdmaModel, IdentifiersCarryTargetStreamChannelAndVersion) {
    Rig rig({.num_h2c = 2, .num_c2h = 1, .stream = true});
    EXPECT_EQ(rig.regs.read32(0x0000), 0x1FC08006u);
    EXPECT_EQ(rig.regs.read32(0x0100), 0x1FC08106u);
    EXPECT_EQ(rig.regs.read32(0x0200), 0u) << "H2C 2 not implemented";
    EXPECT_EQ(rig.regs.read32(0x1000), 0x1FC18006u);
    EXPECT_EQ(rig.regs.read32(0x2000), 0x1FC20006u);
    EXPECT_EQ(rig.regs.read32(0x3000), 0x1FC30006u);
    EXPECT_EQ(rig.regs.read32(0x4100), 0x1FC48106u);
    EXPECT_EQ(rig.regs.read32(0x6000), 0x1FC60006u);
    EXPECT_EQ(rig.regs.read32(0x004C), 0x00010140u);
}

TEST(XdmaModel, SixtyFourBitAccessesBehaveAsTheIp) {
    Rig rig({.card_memory_size = 0x1000});
    auto* bar = rig.device->bar(0).value();
    EXPECT_EQ(*bar->read(0x0000, 8), ~0ull);
    ASSERT_TRUE(bar->write(0x4080, 8, 0x1122334455667788ull).ok());
    EXPECT_EQ(rig.regs.read32(0x4080), 0x55667788u);
    EXPECT_EQ(rig.regs.read32(0x4084), 0u) << "upper half not written by a 64-bit write";
    rig.regs.write64(0x4080, 0x1122334455667788ull);
    EXPECT_EQ(rig.regs.read64(0x4080), 0x1122334455667788ull);
}

TEST(XdmaModel, CreditRegisterAccumulatesAndResetsWhenCreditModeDisabled) {
    Rig rig({.card_memory_size = 0x1000});
    rig.regs.write32(0x408C, 5);
    EXPECT_EQ(rig.regs.read32(0x408C), 0u) << "ignored without credit mode";
    rig.regs.write32(0x6024, 1);  // credit mode enable W1S, H2C 0
    rig.regs.write32(0x408C, 1000);
    rig.regs.write32(0x408C, 23);
    EXPECT_EQ(rig.regs.read32(0x408C), 1023u);
    EXPECT_TRUE(rig.model->violations().empty());
    rig.regs.write32(0x408C, 1);
    ASSERT_EQ(rig.model->violations().size(), 1u);
    EXPECT_NE(rig.model->violations()[0].what.find("overflow"), std::string::npos);
    rig.regs.write32(0x6028, 1);  // credit mode W1C
    EXPECT_EQ(rig.regs.read32(0x408C), 0u);
}

TEST(XdmaModel, MemoryMappedStopListMovesDataAndWritesBack) {
    Rig rig({.card_memory_base = 0x8000, .card_memory_size = 0x1000});
    for (int i = 0; i < 64; ++i)
        rig.host[0x1000 + i] = static_cast<uint8_t>(i + 1);
    rig.descriptor(0, 0x13, 64, kIova + 0x1000, 0x8100, 0);  // STOP | COMPLETED | EOP
    rig.regs.write64(0x0088, kIova + 0x3000);              // poll-mode writeback address
    rig.regs.write64(0x4080, kIova);
    rig.regs.write32(0x0004, 1u << 26 | kIeStopped | kIeCompleted | 1u);  // pollmode_wb_enable | Run
    EXPECT_EQ(rig.regs.read32(0x0040) & 1u, 1u) << "busy";
    EXPECT_GT(rig.model->run_until_idle(), 0u);
    uint8_t card[64];
    ASSERT_TRUE(rig.model->card_read(0x8100, card, 64));
    EXPECT_EQ(std::memcmp(card, rig.host + 0x1000, 64), 0);
    uint32_t wb;
    std::memcpy(&wb, rig.host + 0x3000, 4);
    EXPECT_EQ(wb, 1u);
    EXPECT_EQ(rig.regs.read32(0x0048), 1u);
    EXPECT_EQ(rig.regs.read32(0x0040), 0x6u) << "descriptor stopped | completed, not busy";
    EXPECT_EQ(rig.regs.read32(0x0044), 0x6u);
    EXPECT_EQ(rig.regs.read32(0x0040), 0u) << "clear on read";
}

TEST(XdmaModel, BadMagicStopsTheEngineWithMagicStopped) {
    Rig rig({.card_memory_size = 0x1000});
    rig.descriptor(0, 0x13, 64, kIova + 0x1000, 0, 0);
    rig.host[2] = 0;  // corrupt magic
    rig.regs.write64(0x4080, kIova);
    rig.regs.write32(0x0004, kIeMagic | 1);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), 0x10u);
}

TEST(XdmaModel, StreamLoopbackWritesC2hWriteback) {
    Rig rig({.num_h2c = 1, .num_c2h = 1, .stream = true});
    for (int i = 0; i < 100; ++i)
        rig.host[0x1000 + i] = static_cast<uint8_t>(0xA0 + i);
    rig.descriptor(0, 0x13, 100, kIova + 0x1000, 0, 0);                 // H2C, EOP
    rig.descriptor(0x800, 0x03, 256, kIova + 0x3800, kIova + 0x2000, 0);  // C2H into 0x2000
    rig.regs.write64(0x4080, kIova);
    rig.regs.write64(0x5080, kIova + 0x800);
    rig.regs.write32(0x1004, 1);
    rig.regs.write32(0x0004, 1);
    rig.model->run_until_idle();
    EXPECT_EQ(std::memcmp(rig.host + 0x2000, rig.host + 0x1000, 100), 0);
    uint32_t wb[2];
    std::memcpy(wb, rig.host + 0x3800, 8);
    EXPECT_EQ(wb[0], 0x52B40001u);
    EXPECT_EQ(wb[1], 100u);
}

TEST(XdmaModel, ChannelInterruptRaisesTheProgrammedMsiVector) {
    Rig rig({.num_h2c = 1, .num_c2h = 1, .card_memory_size = 0x1000});
    ASSERT_TRUE(rig.device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    rig.descriptor(0, 0x03, 16, 0, kIova + 0x1000, 0);  // C2H 0, STOP | COMPLETED
    rig.regs.write32(0x2014, 1u << 1);                   // channel IRQ enable: source 1 = C2H 0
    rig.regs.write32(0x20A0, 3u << 8);                   // source 1 -> vector 3
    rig.regs.write32(0x1090, 1u << 1);                   // interrupt on descriptor stopped
    rig.regs.write64(0x5080, kIova);
    rig.regs.write32(0x1004, kIeStopped | 1);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x204C), 2u) << "channel interrupt pending";
    EXPECT_EQ(*rig.device->irq_poll(3), 1u);
    EXPECT_EQ(*rig.device->irq_poll(0), 0u);
    rig.regs.read32(0x1044);
    EXPECT_EQ(rig.regs.read32(0x2044), 0u) << "request drops when status is cleared";
}

TEST(XdmaModel, UnalignedAddressIsAlignMismatchWhenTheEngineNeedsAlignment) {
    Rig rig({.card_memory_size = 0x1000, .address_alignment = 64});
    EXPECT_EQ(rig.regs.read32(0x004C), 0x00400140u);
    rig.descriptor(0, 0x13, 64, kIova + 0x1000 + 8, 0x40, 0);
    rig.regs.write64(0x4080, kIova);
    rig.regs.write32(0x0004, kIeAlign | 1);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), 0x8u) << "align_mismatch, engine stopped";
}

// OverrunOneByte: H2C writes the host byte after its source to the card byte after its
// destination; C2H writes the card byte after its source to the host byte after its destination.
TEST(XdmaModel, OverrunOneByteWritesTheByteAfterTheBlock) {
    Rig rig({.card_memory_base = 0x8000, .card_memory_size = 0x1000});
    for (int i = 0; i < 65; ++i)
        rig.host[0x1000 + i] = static_cast<uint8_t>(0x40 + i);
    const uint8_t card_guard[2] = {0xC3, 0xC3};
    ASSERT_TRUE(rig.model->card_write(0x8100 + 64, card_guard, 2));
    rig.model->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::OverrunOneByte);
    rig.descriptor(0, 0x13, 64, kIova + 0x1000, 0x8100, 0);
    rig.regs.write64(0x4080, kIova);
    rig.regs.write32(0x0004, kIeStopped | 1u);
    rig.model->run_until_idle();
    uint8_t after[2];
    ASSERT_TRUE(rig.model->card_read(0x8100 + 64, after, 2));
    EXPECT_EQ(after[0], 0x40 + 64) << "the host byte after the source";
    EXPECT_EQ(after[1], 0xC3) << "only one byte";

    std::memset(rig.host + 0x2000, 0x5A, 66);
    rig.model->inject(sim::XdmaDirection::C2H, 0, sim::XdmaFault::OverrunOneByte);
    rig.descriptor(0x100, 0x13, 64, 0x8100, kIova + 0x2000, 0);
    rig.regs.write64(0x5080, kIova + 0x100);
    rig.regs.write32(0x1004, kIeStopped | 1u);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.host[0x2000 + 64], 0x40 + 64) << "the card byte after the source";
    EXPECT_EQ(rig.host[0x2000 + 65], 0x5A);
}

// faults_pending: an injected fault counts until the engine applies it (here: an EngineHang
// when the engine takes its descriptor); other channels and unknown channels hold none.
TEST(XdmaModel, FaultsPendingUntilTheEngineAppliesThem) {
    Rig rig({.card_memory_base = 0x8000, .card_memory_size = 0x1000});
    rig.model->inject(sim::XdmaDirection::H2C, 0, sim::XdmaFault::EngineHang);
    EXPECT_EQ(rig.model->faults_pending(sim::XdmaDirection::H2C, 0), 1u);
    EXPECT_EQ(rig.model->faults_pending(sim::XdmaDirection::C2H, 0), 0u);
    EXPECT_EQ(rig.model->faults_pending(sim::XdmaDirection::H2C, 7), 0u) << "no such channel";
    rig.descriptor(0, 0x13, 64, kIova + 0x1000, 0x8100, 0);
    rig.regs.write64(0x4080, kIova);
    EXPECT_EQ(rig.model->run_until_idle(), 0u) << "Run not set: nothing taken";
    EXPECT_EQ(rig.model->faults_pending(sim::XdmaDirection::H2C, 0), 1u);
    rig.regs.write32(0x0004, kIeStopped | 1u);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.model->faults_pending(sim::XdmaDirection::H2C, 0), 0u);
    EXPECT_TRUE(rig.model->busy(sim::XdmaDirection::H2C, 0)) << "hung";
}

TEST(XdmaModel, FaultNamesParseForTheEnvironmentSeam) {
    for (sim::XdmaFault fault : sim::all_faults())
        EXPECT_EQ(sim::parse_fault_name(sim::fault_name(fault)), fault);
    auto parsed = sim::parse_fault_injections("engine_stall@C2H1,short_c2h_length,data_bit_flip");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message();
    ASSERT_EQ(parsed->size(), 3u);
    EXPECT_EQ((*parsed)[0].direction, sim::XdmaDirection::C2H);
    EXPECT_EQ((*parsed)[0].channel, 1u);
    EXPECT_EQ((*parsed)[1].direction, sim::XdmaDirection::C2H) << "short_c2h_length defaults to C2H 0";
    EXPECT_EQ((*parsed)[2].direction, sim::XdmaDirection::H2C);
    auto bad = sim::parse_fault_injections("engine_stal");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message().find("unknown fault"), std::string::npos) << bad.error().message();
    EXPECT_NE(bad.error().message().find("engine_stall"), std::string::npos) << "lists the names";
    bad = sim::parse_fault_injections("bad_magic@X2C0");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message().find("bad channel 'X2C0'"), std::string::npos) << bad.error().message();
}
