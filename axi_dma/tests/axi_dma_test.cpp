// The AXI DMA driver (axi_dma.hpp) and its measurements (ddr_throughput.hpp) against the PG021
// model (sim/axi_dma_model.hpp) in both of its wirings: fpga_sio's constant source and
// discarding sink, and the loop with the card memory in a BAR. Each lie the model can tell
// fails the verified measurement; a channel that never halts or never completes times out
// naming its DMASR.
#include <gtest/gtest.h>

#include <memory>

#include "axi_dma/ddr_throughput.hpp"
#include "designs/registry.hpp"
#include "sim/axi_dma_model.hpp"

namespace {

using axi_dma::Channel;
using namespace std::chrono_literals;

constexpr uint64_t kMemory = 0x40000;  // 256 KiB: two halves of two chunks each below

// One AXI DMA model with its registers and its card memory each in a BAR, and the driver.
struct Rig {
    explicit Rig(sim::AxiDmaModel::Streams streams, streams::Lie lie = {}, bool never_halts = false,
                 bool miscounts = false, unsigned length_width = 16) {
        sim::AxiDmaModel::Config config;
        config.memory_size = kMemory;
        config.length_width = length_width;  // longest transfer 0xffc0 bytes: a half is 3 chunks
        config.streams = streams;
        config.lie = lie;
        config.never_halts = never_halts;
        config.miscounts_received = miscounts;
        model = std::make_shared<sim::AxiDmaModel>(config);
        auto register_bar = std::make_shared<sim::SimBar>(0x10000);
        register_bar->add_block(0x2000, 0x2000, model);
        auto memory_bar = std::make_shared<sim::SimBar>(kMemory);
        memory_bar->add_block(0, kMemory, model->memory_window());
        registers = std::make_unique<vfio::Bar>(0, register_bar);
        memory = std::make_unique<vfio::Bar>(2, memory_bar);
        dma = std::make_unique<axi_dma::AxiDma>(registers->window(0x2000, 0x2000).value(),
                                                axi_dma::Build{length_width, 64}, "test bar 0 offset 0x2000");
    }
    vfio::RegisterWindow memory_window() const { return memory->window(0, kMemory).value(); }
    axi_dma::VerifiedRun verified() const { return axi_dma::run_verified(*dma, memory_window(), kMemory, 1s); }

    std::shared_ptr<sim::AxiDmaModel> model;
    std::unique_ptr<vfio::Bar> registers, memory;
    std::unique_ptr<axi_dma::AxiDma> dma;
};

const auto kFixed = sim::AxiDmaModel::Streams::FixedDataAndSink;
const auto kLoop = sim::AxiDmaModel::Streams::Loopback;

TEST(AxiDmaRegisters, DmasrIsDescribedByPg021Names) {
    EXPECT_EQ(axi_dma::describe_dmasr(0x5011), "0x00005011 (Halted, DMAIntErr, IOC_Irq, Err_Irq)");
    EXPECT_EQ(axi_dma::describe_dmasr(0), "0x00000000 (no bit set)");
    EXPECT_EQ(axi_dma::Build{}.max_transfer(), (1u << 26) - 64) << "fpga_sio's longest aligned transfer";
}

TEST(AxiDmaDriver, ResetLeavesBothChannelsHaltedInTheResetState) {
    Rig rig(kFixed);
    ASSERT_TRUE(rig.dma->start(Channel::Mm2s, 0, 0x1000));
    ASSERT_TRUE(rig.dma->reset(1s));
    for (Channel channel : {Channel::Mm2s, Channel::S2mm}) {
        EXPECT_EQ(rig.dma->status(channel), axi_dma::dmasr::Halted);
        EXPECT_EQ(rig.registers->read(0x2000 + axi_dma::reg::base(channel), 4).value(), 0x00010000u)
            << "DMACR's reset value (IRQThreshold 1)";
    }
}

TEST(AxiDmaDriver, StartRefusesWhatTheIpCannotTake) {
    Rig rig(kFixed);
    const auto zero = rig.dma->start(Channel::Mm2s, 0, 0);
    ASSERT_FALSE(zero);
    EXPECT_TRUE(zero.error().usage);
    EXPECT_NE(zero.error().message().find("MM2S_LENGTH 0: a transfer is 1..65472 bytes, a multiple of 64"),
              std::string::npos) << zero.error().message();
    const auto unaligned = rig.dma->start(Channel::S2mm, 0x20, 0x40);
    ASSERT_FALSE(unaligned);
    EXPECT_NE(unaligned.error().message().find("address 0x20 is not aligned to the 64-byte data width"),
              std::string::npos) << unaligned.error().message();
}

TEST(AxiDmaDriver, AnAddressOutsideTheMemoryIsADecodeError) {
    Rig rig(kFixed);
    ASSERT_TRUE(rig.dma->reset(1s));
    ASSERT_TRUE(rig.dma->start(Channel::Mm2s, kMemory, 0x40));
    const auto done = rig.dma->wait_idle(Channel::Mm2s, 1s);
    ASSERT_FALSE(done);
    EXPECT_NE(done.error().message().find("MM2S_DMASR"), std::string::npos) << done.error().message();
    EXPECT_NE(done.error().message().find("DMADecErr: the address request points to an invalid address"),
              std::string::npos) << done.error().message();
}

TEST(AxiDmaDriver, AChannelThatNeverCompletesTimesOutNamingDmasrIdle) {
    Rig rig(kLoop);  // MM2S alone in the loop: nothing takes its stream
    ASSERT_TRUE(rig.dma->reset(1s));
    ASSERT_TRUE(rig.dma->start(Channel::Mm2s, 0, 0x40));
    const auto done = rig.dma->wait_idle(Channel::Mm2s, 20ms);
    ASSERT_FALSE(done);
    EXPECT_EQ(done.error().code, ETIMEDOUT);
    EXPECT_NE(done.error().message().find("MM2S_DMASR"), std::string::npos) << done.error().message();
    EXPECT_NE(done.error().message().find("DMASR.Idle not set within 20 ms (DMASR 0x00000000 (no bit set))"),
              std::string::npos) << done.error().message();
}

TEST(AxiDmaDriver, AChannelThatNeverHaltsFailsItsStopNamingDmasrHalted) {
    Rig rig(kFixed, {}, true);
    ASSERT_TRUE(rig.dma->reset(1s));
    ASSERT_TRUE(rig.dma->start(Channel::Mm2s, 0, 0x40));
    ASSERT_TRUE(rig.dma->wait_idle(Channel::Mm2s, 1s));
    const auto stopped = rig.dma->stop(Channel::Mm2s, 20ms);
    ASSERT_FALSE(stopped);
    EXPECT_NE(stopped.error().message().find("DMASR.Halted not set within 20 ms of clearing DMACR.RS"),
              std::string::npos) << stopped.error().message();
}

TEST(FpgaSioMeasurement, Mm2sIsTimedAndS2mmFailsWithDmaIntErrAsTheCardReported) {
    Rig rig(kFixed);
    auto mm2s = axi_dma::run_fpga_sio(*rig.dma, kMemory, true, false, 1s);
    ASSERT_TRUE(mm2s) << mm2s.error().message();
    EXPECT_FALSE(mm2s->mm2s.failed);
    EXPECT_EQ(mm2s->mm2s.timing.pass_seconds.size(), 1u);
    const std::string lines = axi_dma::fpga_sio_lines(*mm2s);
    EXPECT_EQ(lines.rfind("Direction MM2S : MM2S timing for 1 transfers of 262144 bytes:\n  Mean = ", 0), 0u) << lines;
    EXPECT_NE(lines.find("Direction S2MM : Not tested\n\n"), std::string::npos) << lines;

    auto both = axi_dma::run_fpga_sio(*rig.dma, kMemory, true, true, 1s);
    ASSERT_TRUE(both) << both.error().message();
    EXPECT_FALSE(both->mm2s.failed);
    EXPECT_TRUE(both->s2mm.failed);
    EXPECT_NE(axi_dma::fpga_sio_lines(*both).find("Direction S2MM : DMA failed with DMASR=0x00005011 at start_address=0x0\n"),
              std::string::npos) << axi_dma::fpga_sio_lines(*both);
}

TEST(VerifiedMeasurement, EveryByteOfTheMemoryIsWrittenByS2mmAndVerified) {
    Rig rig(kLoop);
    const axi_dma::VerifiedRun run = rig.verified();
    ASSERT_FALSE(run.failure) << run.failure->message();
    EXPECT_EQ(run.bytes_verified, kMemory);
    EXPECT_EQ(rig.model->transfers_started(), 2u * 2 * 3) << "two passes of three chunks, MM2S and S2MM each";
    EXPECT_EQ(axi_dma::timing_lines("S2MM", run.s2mm).rfind("S2MM timing for 2 transfers of 131072 bytes:\n   Min = ", 0),
              0u) << axi_dma::timing_lines("S2MM", run.s2mm);
    for (Channel channel : {Channel::Mm2s, Channel::S2mm})
        EXPECT_TRUE(rig.dma->status(channel) & axi_dma::dmasr::Halted) << "stopped, the stop proven";
}

TEST(VerifiedMeasurement, AModelThatMovesNothingFailsOnTheDecoy) {
    Rig rig(kLoop, {streams::Lie::Kind::MovesNothing});
    const axi_dma::VerifiedRun run = rig.verified();
    ASSERT_TRUE(run.failure);
    EXPECT_EQ(run.bytes_verified, 0u);
    EXPECT_NE(run.failure->message().find("verify S2MM transfer of 0xffc0 bytes to 0x20000"), std::string::npos)
        << run.failure->message();
    EXPECT_NE(run.failure->message().find("16368 bad words"), std::string::npos) << run.failure->message();
}

TEST(VerifiedMeasurement, AModelThatCompletesEarlyFailsOnItsTail) {
    Rig rig(kLoop, {streams::Lie::Kind::CompletesEarly});
    const axi_dma::VerifiedRun run = rig.verified();
    ASSERT_TRUE(run.failure);
    EXPECT_EQ(run.bytes_verified, 0u);
    EXPECT_NE(run.failure->message().find("16 bad words"), std::string::npos) << "the last 64 bytes: "
                                                                             << run.failure->message();
}

TEST(VerifiedMeasurement, AModelThatGoesStaleFailsAtTheFirstStaleChunk) {
    Rig rig(kLoop, {streams::Lie::Kind::StaleAfter, 3});  // transfers counted over both channels
    const axi_dma::VerifiedRun run = rig.verified();
    ASSERT_TRUE(run.failure);
    EXPECT_EQ(run.bytes_verified, 2u * 0xffc0) << "chunks 0 and 1 (S2MM transfers 0 and 2) moved";
    EXPECT_NE(run.failure->message().find("to 0x3ff80"), std::string::npos) << run.failure->message();
}

TEST(VerifiedMeasurement, AModelThatNeverHaltsFailsAfterItsBytesWereVerified) {
    Rig rig(kLoop, {}, true);
    const axi_dma::VerifiedRun run = axi_dma::run_verified(*rig.dma, rig.memory_window(), kMemory, 20ms);
    ASSERT_TRUE(run.failure);
    EXPECT_EQ(run.bytes_verified, kMemory);
    EXPECT_NE(run.failure->message().find("MM2S_DMASR"), std::string::npos) << run.failure->message();
    EXPECT_NE(run.failure->message().find("DMASR.Halted not set"), std::string::npos) << run.failure->message();
}

TEST(VerifiedMeasurement, AModelThatCountsTheReceivedBytesWrongFails) {
    Rig rig(kLoop, {}, false, true);
    const axi_dma::VerifiedRun run = rig.verified();
    ASSERT_TRUE(run.failure);
    EXPECT_EQ(run.bytes_verified, 0u);
    EXPECT_NE(run.failure->message().find("S2MM_LENGTH reads 65408 bytes received, not the 65472 MM2S sent"),
              std::string::npos) << run.failure->message();
}

TEST(FpgaSioMeasurement, ATransferThatNeverCompletesTimesOutNamingDmasrIdle) {
    Rig rig(kLoop);  // MM2S alone in the loop: nothing takes its stream
    const auto run = axi_dma::run_fpga_sio(*rig.dma, kMemory, true, false, 20ms);
    ASSERT_FALSE(run);
    EXPECT_NE(run.error().message().find("wait for MM2S transfer test bar 0 offset 0x2000 MM2S_DMASR"), std::string::npos)
        << run.error().message();
    EXPECT_NE(run.error().message().find("DMASR.Idle not set within 20 ms"), std::string::npos) << run.error().message();
}

TEST(AxiDmaDesignData, Tef1001Ddr3ThroughputHasFpgaSiosAxiDma) {
    const auto registry = designs::Registry::builtin().value();
    const designs::Design* design = registry.find("TEF1001_ddr3_throughput");
    ASSERT_NE(design, nullptr);
    const designs::Peripheral* dma = nullptr;
    for (const designs::Peripheral& p : design->peripherals)
        if (p.type == designs::PeripheralType::AxiDma)
            dma = &p;
    ASSERT_NE(dma, nullptr);
    EXPECT_EQ(dma->bar, 0u);
    EXPECT_EQ(dma->offset, 0x2000u);
    EXPECT_EQ(dma->axi_dma_memory_size, 0x200000000u);
    EXPECT_EQ(dma->axi_dma_length_width, 26u);
    EXPECT_EQ(dma->axi_dma_data_width, 64u);
    EXPECT_EQ(dma->axi_dma_streams, designs::AxiDmaStreams::FixedDataAndSink);
    EXPECT_FALSE(dma->axi_dma_memory_window_bar);
}

// The error of a design text (nullopt when it parses).
pdt::Result<void> parse_design_text(const std::string& text) {
    designs::Registry registry = designs::Registry::builtin().value();
    return registry.add_text(text, "t.json");
}

TEST(AxiDmaDesignData, BadFieldsAreNamed) {
    const std::string head = R"({"name": "x", "match": {"subsystem_vendor_id": "0x1", "subsystem_device_id": "0x1"}, "peripherals": [)";
    const auto bad_streams = parse_design_text(
        head + R"({"type": "axi_dma", "bar": 0, "offset": "0x0", "memory_size": "0x1000", "streams": "loop"}]})");
    ASSERT_FALSE(bad_streams);
    EXPECT_NE(bad_streams.error().message().find("expected \"fixed_data_and_sink\" or \"loopback\" (got \"loop\")"),
              std::string::npos) << bad_streams.error().message();
    const auto no_size = parse_design_text(head + R"({"type": "axi_dma", "bar": 0, "offset": "0x0"}]})");
    ASSERT_FALSE(no_size);
    EXPECT_NE(no_size.error().message().find("memory_size"), std::string::npos) << no_size.error().message();
    const auto wide = parse_design_text(
        head + R"({"type": "axi_dma", "bar": 0, "offset": "0x0", "memory_size": "0x1000", "length_width": 7}]})");
    ASSERT_FALSE(wide);
    EXPECT_NE(wide.error().message().find("8..26 bits"), std::string::npos) << wide.error().message();
}

}  // namespace
