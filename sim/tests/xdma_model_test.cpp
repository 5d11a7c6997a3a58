// Register-level tests of the XDMA model (PG195) with raw register accesses and hand-built
// descriptors, independent of the driver in dma_bridge/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "sim/xdma_model.hpp"
#include "xdma_register_rig.hpp"

namespace {

using xdma_register_test::kIova;
using Rig = xdma_register_test::RegisterRig<0x4000>;

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

// PG195 IRQ block: User Interrupt Request (0x2040) is the source AND'd with the enable mask;
// Pending (0x2048) holds a request until it is acknowledged; an enabled request sends the MSI of
// its User Vector Number field (0x2080: irq 1 in [12:8]) and is acknowledged.
TEST(XdmaModel, UserInterruptRequestsAreHeldWhileMaskedAndSentOnceEnabled) {
    Rig rig({.num_h2c = 1, .num_c2h = 1, .card_memory_size = 0x1000, .user_interrupts = 2});
    ASSERT_TRUE(rig.device->irq_enable(vfio::IrqIndex::Msi, 8).ok());
    rig.regs.write32(0x2080, 5u << 8);  // user interrupt 1 -> vector 5
    ASSERT_TRUE(rig.device->request_user_interrupt(1).ok());
    EXPECT_EQ(rig.regs.read32(0x2048), 2u) << "masked: pending";
    EXPECT_EQ(rig.regs.read32(0x2040), 0u) << "masked: no request";
    EXPECT_EQ(*rig.device->irq_poll(5), 0u);
    rig.regs.write32(0x2008, 0xFu);  // W1S: only the IP's two user interrupts stick
    EXPECT_EQ(rig.regs.read32(0x2004), 3u);
    EXPECT_EQ(*rig.device->irq_poll(5), 1u) << "a mask set on a held source interrupts";
    EXPECT_EQ(rig.regs.read32(0x2048), 0u) << "acknowledged";
    ASSERT_TRUE(rig.device->request_user_interrupt(1).ok());
    ASSERT_TRUE(rig.device->request_user_interrupt(1).ok());
    EXPECT_EQ(*rig.device->irq_poll(5), 2u) << "one message per request";
    EXPECT_FALSE(rig.device->request_user_interrupt(2).ok()) << "usr_irq_req has two lines";
    auto plan = sim::parse_fault_plan("user_irq_doubles");
    ASSERT_TRUE(plan.ok()) << plan.error().message();
    EXPECT_EQ(plan->user_irq_lie, sim::UserIrqLie::Doubles);
    EXPECT_EQ(sim::parse_fault_plan("user_irq_drops")->user_irq_lie, sim::UserIrqLie::Drops);
    EXPECT_EQ(sim::parse_fault_plan("user_irq_ignores_mask")->user_irq_lie, sim::UserIrqLie::IgnoresMask);
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

namespace {

// One memory-mapped descriptor of `length` bytes on channel 0 of `direction`, run to STOP.
void run_one(Rig& rig, bool h2c, uint32_t length, uint64_t host_offset, uint64_t card) {
    const uint64_t host = kIova + host_offset;
    rig.descriptor(0, 0x13, length, h2c ? host : card, h2c ? card : host, 0);
    const uint64_t channel = h2c ? 0x0000 : 0x1000, sgdma = h2c ? 0x4080 : 0x5080;
    rig.regs.write32(channel + 0x0004, 0);  // Run falls: the next write is a rising edge
    rig.regs.write64(sgdma, kIova);
    rig.regs.write32(channel + 0x0004, kIeStopped | kIeCompleted | 1u);
    rig.model->run_until_idle();
}

sim::XdmaConfig memory_config() { return {.card_memory_base = 0x8000, .card_memory_size = 0x1000}; }

}  // namespace

TEST(XdmaModel, MovesNothingCompletesEveryTransferAndMovesNoByte) {
    Rig rig(memory_config());
    rig.model->set_lie({streams::Lie::Kind::MovesNothing, 0});
    for (int i = 0; i < 256; ++i)
        rig.host[0x1000 + i] = static_cast<uint8_t>(i + 1);
    run_one(rig, true, 256, 0x1000, 0x8100);
    EXPECT_EQ(rig.regs.read32(0x0048), 1u) << "completed, as an honest engine";
    EXPECT_EQ(rig.regs.read32(0x0040), 0x6u) << "descriptor stopped | completed, not busy";
    uint8_t card[256];
    ASSERT_TRUE(rig.model->card_read(0x8100, card, 256));
    EXPECT_EQ(std::count(card, card + 256, 0), 256) << "card memory as it was";
    ASSERT_TRUE(rig.model->card_write(0x8200, rig.host + 0x1000, 256));
    std::memset(rig.host + 0x2000, 0xEE, 256);
    run_one(rig, false, 256, 0x2000, 0x8200);
    EXPECT_EQ(rig.regs.read32(0x1048), 1u);
    EXPECT_EQ(std::count(rig.host + 0x2000, rig.host + 0x2100, 0xEE), 256) << "host memory as it was";
}

TEST(XdmaModel, StaleAfterMovesTheFirstTransfersOnly) {
    Rig rig(memory_config());
    rig.model->set_lie({streams::Lie::Kind::StaleAfter, 1});
    std::memset(rig.host + 0x1000, 0x11, 64);
    run_one(rig, true, 64, 0x1000, 0x8100);
    std::memset(rig.host + 0x1000, 0x22, 64);
    run_one(rig, true, 64, 0x1000, 0x8100);
    EXPECT_EQ(rig.regs.read32(0x0048), 1u) << "the second completed too";
    uint8_t card[64];
    ASSERT_TRUE(rig.model->card_read(0x8100, card, 64));
    EXPECT_EQ(std::count(card, card + 64, 0x11), 64) << "the first transfer's bytes: the second moved none";
}

TEST(XdmaModel, CompletesEarlyLandsTheLastBytesAtTheNextTransfer) {
    Rig rig(memory_config());
    rig.model->set_lie({streams::Lie::Kind::CompletesEarly, 0, std::chrono::milliseconds(0)});
    std::memset(rig.host + 0x1000, 0x33, 256);
    run_one(rig, true, 256, 0x1000, 0x8100);
    EXPECT_EQ(rig.regs.read32(0x0040), 0x6u) << "reported complete";
    uint8_t card[256];
    ASSERT_TRUE(rig.model->card_read(0x8100, card, 256));
    EXPECT_EQ(std::count(card, card + 192, 0x33), 192);
    EXPECT_EQ(std::count(card + 192, card + 256, 0), 64) << "the last 64 bytes have not landed";
    run_one(rig, true, 32, 0x1000, 0x8400);  // the channel's next transfer starts (late_by 0)
    ASSERT_TRUE(rig.model->card_read(0x8100, card, 256));
    EXPECT_EQ(std::count(card, card + 256, 0x33), 256) << "landed when the next transfer started";
    ASSERT_TRUE(rig.model->card_read(0x8400, card, 32));
    EXPECT_EQ(std::count(card, card + 32, 0), 32) << "a transfer shorter than 64 bytes lands late whole";
}

TEST(XdmaModel, LiesParseForTheEnvironmentSeam) {
    auto plan = sim::parse_fault_plan("stale_after=3,data_bit_flip");
    ASSERT_TRUE(plan.ok()) << plan.error().message();
    EXPECT_EQ(plan->lie.kind, streams::Lie::Kind::StaleAfter);
    EXPECT_EQ(plan->lie.stale_after, 3u);
    ASSERT_EQ(plan->injections.size(), 1u);
    EXPECT_EQ(sim::parse_fault_plan("moves_nothing")->lie.kind, streams::Lie::Kind::MovesNothing);
    EXPECT_EQ(sim::parse_fault_plan("completes_early")->lie.kind, streams::Lie::Kind::CompletesEarly);
    EXPECT_FALSE(sim::parse_fault_plan("bad_magic")->lie) << "no lie named";
    for (const char* bad : {"stale_after=", "stale_after=x", "stale_after=-1", "moves_nothing,completes_early"}) {
        auto r = sim::parse_fault_plan(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, EINVAL) << bad;
        EXPECT_NE(r.error().message().find("stale_after=N"), std::string::npos) << r.error().message();
    }
    EXPECT_EQ(streams::to_string(streams::parse_lie("x", "stale_after=7").value()), "stale_after=7");
    auto stuck = sim::parse_fault_plan("late_engine=1500,ignores_stop");
    ASSERT_TRUE(stuck.ok()) << stuck.error().message();
    EXPECT_TRUE(stuck->ignores_stop);
    EXPECT_EQ(stuck->late_engine, std::chrono::milliseconds(1500));
    EXPECT_FALSE(sim::parse_fault_plan("late_engine=2")->ignores_stop);
}

TEST(XdmaModel, CompletesEarlyHoldsTheTailPastABusyEnginesNextTransfer) {
    Rig rig(memory_config());
    rig.model->set_lie({streams::Lie::Kind::CompletesEarly, 0});  // late_by 200 ms
    std::memset(rig.host + 0x1000, 0x44, 128);
    run_one(rig, true, 128, 0x1000, 0x8100);
    run_one(rig, true, 128, 0x1000, 0x8200);  // at once: an engine kept busy
    uint8_t card[128];
    ASSERT_TRUE(rig.model->card_read(0x8100, card, 128));
    EXPECT_EQ(std::count(card + 64, card + 128, 0), 64) << "not landed within 200 ms of its completion";
}
