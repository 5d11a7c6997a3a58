// Register-level tests of the XDMA model's IP configurations (PG195 options a design may turn
// off), its Status logging and interrupt gating by Control ie_*, the Alignments register, Status.
// busy after a stop, a DMA BAR below 64 KiB and a bridge with no memory behind it. Stepped model,
// raw registers and hand-built descriptors, independent of the driver in dma_bridge/.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "sim/xdma_model.hpp"
#include "xdma_register_rig.hpp"

// Named after the file: its helpers stay its own in a unity build (scripts/test.sh).
namespace xdma_ip_options_test {

namespace {

// Waits for the event `happened` (a register the model changes by itself once a time of its
// configuration has passed), polling it, at most `most`: true when it happened.
template <typename Condition>
bool eventually(Condition happened, std::chrono::milliseconds most = std::chrono::seconds(30)) {
    const auto give_up = std::chrono::steady_clock::now() + most;
    while (!happened()) {
        if (std::chrono::steady_clock::now() > give_up)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

using xdma_register_test::kIova;
// Control bits (PG195 H2C/C2H Channel Control 0x04).
constexpr uint32_t kRun = 1u << 0, kIeStopped = 1u << 1, kIeCompleted = 1u << 2, kIeAlign = 1u << 3,
                   kIeLength = 1u << 5, kIeIdle = 1u << 6, kPollWb = 1u << 26;
// Status bits (0x40).
constexpr uint32_t kBusy = 1u << 0, kStopped = 1u << 1, kCompleted = 1u << 2, kAlignMismatch = 1u << 3,
                   kInvalidLength = 1u << 5, kIdleStopped = 1u << 6;
// Descriptor control.
constexpr uint32_t kDescStop = 0x01, kDescCompleted = 0x02, kDescEop = 0x10;

struct Rig : xdma_register_test::RegisterRig<0x4000> {
    using RegisterRig::RegisterRig;
    // H2C 0: two descriptors of 64 bytes from host 0x1000 to card 0x0, the second with STOP.
    void h2c_list_of_two() {
        for (int i = 0; i < 128; ++i)
            host[0x1000 + i] = static_cast<uint8_t>(i ^ 0x5A);
        descriptor(0, kDescCompleted, 64, kIova + 0x1000, 0x0, kIova + 0x20);
        descriptor(0x20, kDescStop | kDescCompleted | kDescEop, 64, kIova + 0x1040, 0x40, 0);
        regs.write64(0x4080, kIova);
    }
    uint32_t writeback() const {
        uint32_t wb;
        std::memcpy(&wb, host + 0x3000, 4);
        return wb;
    }
};

bool card_equals_host(Rig& rig, uint64_t card, size_t host_offset, size_t length) {
    std::vector<uint8_t> bytes(length);
    return rig.model->card_read(card, bytes.data(), length) &&
           std::memcmp(bytes.data(), rig.host + host_offset, length) == 0;
}

}  // namespace

TEST(XdmaIpOptions, CreditsOffRegistersReadZeroAndAStopListStillCompletes) {
    Rig rig({.card_memory_size = 0x1000, .descriptor_credits = false});
    rig.regs.write32(0x6024, 0x00010001);  // credit mode enable W1S: H2C 0, C2H 0
    EXPECT_EQ(rig.regs.read32(0x6020), 0u) << "no Descriptor Credit Mode Enable register";
    rig.regs.write32(0x6020, 0x000F000F);
    EXPECT_EQ(rig.regs.read32(0x6020), 0u);
    rig.regs.write32(0x408C, 5);
    EXPECT_EQ(rig.regs.read32(0x408C), 0u) << "no Descriptor Credits register";
    EXPECT_EQ(rig.regs.read32(0x6000), 0x1FC60006u) << "the SGDMA common block itself is there";

    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kIeStopped | kIeCompleted | kRun);
    EXPECT_GT(rig.model->run_until_idle(), 0u);
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 2u);
    EXPECT_EQ(rig.regs.read32(0x0048), 2u);
    EXPECT_EQ(rig.regs.read32(0x0040), kStopped | kCompleted) << "ran to STOP, not busy";
    EXPECT_TRUE(card_equals_host(rig, 0, 0x1000, 128));
    EXPECT_TRUE(rig.model->violations().empty());
}

TEST(XdmaIpOptions, CreditsOnAnEngineWithoutCreditsWaits) {
    Rig rig({.card_memory_size = 0x1000});  // the default: credits implemented
    rig.regs.write32(0x6024, 0x1);
    EXPECT_EQ(rig.regs.read32(0x6020), 0x1u);
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kIeStopped | kIeCompleted | kRun);
    EXPECT_EQ(rig.model->run_until_idle(), 0u) << "credit mode with 0 credits: nothing is fetched";
    rig.regs.write32(0x408C, 2);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0048), 2u);
}

TEST(XdmaIpOptions, PollModeWritebackOffWritesNoWritebackWhileTheCountRegisterCounts) {
    Rig rig({.card_memory_size = 0x1000, .poll_mode_writeback = false});
    std::memset(rig.host + 0x3000, 0xEE, 4);
    rig.regs.write64(0x0088, kIova + 0x3000);
    EXPECT_EQ(rig.regs.read32(0x0088), 0u) << "no Poll Mode Write Back Address registers";
    EXPECT_EQ(rig.regs.read32(0x008C), 0u);
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kPollWb | kIeStopped | kIeCompleted | kRun);
    EXPECT_EQ(rig.regs.read32(0x0004), kIeStopped | kIeCompleted | kRun) << "pollmode_wb_enable reads back 0";
    rig.model->run_until_idle();
    EXPECT_EQ(rig.writeback(), 0xEEEEEEEEu) << "no writeback written";
    EXPECT_EQ(rig.regs.read32(0x0048), 2u) << "Completed Descriptor Count counts";
    EXPECT_TRUE(card_equals_host(rig, 0, 0x1000, 128));
}

TEST(XdmaIpOptions, PollModeWritebackOnWritesTheCount) {
    Rig rig({.card_memory_size = 0x1000});
    rig.regs.write64(0x0088, kIova + 0x3000);
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kPollWb | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.writeback(), 2u);
}

TEST(XdmaIpOptions, StatusIsLoggedOnlyWhereControlEnablesIt) {
    Rig rig({.card_memory_size = 0x1000});
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kRun);  // no ie_* bit
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), 0u) << "stopped, nothing logged";
    EXPECT_EQ(rig.regs.read32(0x0048), 2u);
    rig.regs.write32(0x000C, kRun);
    rig.regs.write32(0x0004, kIeCompleted | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kCompleted) << "descriptor_completed only";
    rig.regs.write32(0x0004, kIeIdle);  // Run cleared on an idle engine: no idle_stopped
    EXPECT_EQ(rig.regs.read32(0x0040) & kIdleStopped, 0u);
}

TEST(XdmaIpOptions, NoInterruptUnlessIeBitInterruptMaskAndIrqBlockMaskAreAllSet) {
    struct Case {
        uint32_t control, im, irq_mask;
        unsigned expected_msis;
    } cases[] = {
        {kIeStopped, kIeStopped, 0x1, 1},  // all set: one MSI
        {0, kIeStopped, 0x1, 0},           // driver forgot ie_descriptor_stopped: not logged, no MSI
        {kIeStopped, 0, 0x1, 0},           // not in the channel's Interrupt Enable Mask
        {kIeStopped, kIeStopped, 0x0, 0},  // channel not enabled in the IRQ block
    };
    for (const Case& c : cases) {
        Rig rig({.card_memory_size = 0x1000});
        ASSERT_TRUE(rig.device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
        rig.regs.write32(0x20A0, 2u);  // source 0 (H2C 0) -> vector 2
        rig.regs.write32(0x2010, c.irq_mask);
        rig.regs.write32(0x0090, c.im);
        rig.h2c_list_of_two();
        rig.regs.write32(0x0004, c.control | kRun);
        rig.model->run_until_idle();
        EXPECT_EQ(*rig.device->irq_poll(2), c.expected_msis)
            << "control 0x" << std::hex << c.control << " mask 0x" << c.im << " irq 0x" << c.irq_mask;
    }
}

TEST(XdmaIpOptions, InterruptsOffIrqBlockReadsZeroAndNoMsiIsRaised) {
    Rig rig({.card_memory_size = 0x1000, .interrupts = false});
    ASSERT_TRUE(rig.device->irq_enable(vfio::IrqIndex::Msi, 4).ok());
    EXPECT_EQ(rig.regs.read32(0x2000), 0x1FC20006u) << "the IRQ block identifies itself";
    rig.regs.write32(0x2010, 0x1);
    rig.regs.write32(0x20A0, 2u);
    EXPECT_EQ(rig.regs.read32(0x2010), 0u) << "no channel interrupt enable mask";
    EXPECT_EQ(rig.regs.read32(0x20A0), 0u);
    EXPECT_EQ(rig.regs.read32(0x3014), 0u) << "config block: MSI enable 0";
    rig.regs.write32(0x0090, kIeStopped);
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kIeStopped | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kStopped) << "status is still logged";
    for (unsigned v = 0; v < 4; ++v)
        EXPECT_EQ(*rig.device->irq_poll(v), 0u) << "vector " << v;
}

TEST(XdmaIpOptions, RunSetWhileBusyAfterAStopIsLostUntilBusyClears) {
    // PG195 has no restart of a busy engine: the model loses a Run rising edge that comes
    // while Status.busy is still set after a stop; the driver must wait for busy to clear.
    Rig rig({.card_memory_size = 0x1000, .busy_after_stop = std::chrono::milliseconds(100)});
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kIeStopped | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kStopped | kBusy) << "stopped at STOP, still busy";
    EXPECT_TRUE(rig.model->busy(sim::XdmaDirection::H2C, 0));
    rig.regs.write32(0x000C, kRun);
    rig.regs.write32(0x0008, kRun);  // restart at once: lost
    EXPECT_EQ(rig.model->run_until_idle(), 0u);
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 2u) << "the list did not run again";
    ASSERT_EQ(rig.model->violations().size(), 1u);
    EXPECT_NE(rig.model->violations()[0].what.find("Status.busy"), std::string::npos);

    EXPECT_TRUE(eventually([&] { return (rig.regs.read32(0x0040) & kBusy) == 0; })) << "busy cleared after busy_after_stop";
    rig.regs.write32(0x000C, kRun);
    rig.regs.write32(0x0008, kRun);  // restart after busy cleared: runs
    rig.model->run_until_idle();
    EXPECT_EQ(rig.model->descriptors_processed(sim::XdmaDirection::H2C, 0), 4u);
    EXPECT_EQ(rig.regs.read32(0x0048), 2u);
}

TEST(XdmaIpOptions, RunClearedOnABusyEngineLingersBusyAsWell) {
    Rig rig({.card_memory_size = 0x1000, .busy_after_stop = std::chrono::milliseconds(50)});
    rig.regs.write32(0x6024, 0x1);  // credit mode, no credits: the engine waits, busy
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kIeIdle | kRun);
    rig.regs.write32(0x000C, kRun);
    EXPECT_EQ(rig.regs.read32(0x0040), kIdleStopped | kBusy);
    EXPECT_TRUE(eventually([&] { return (rig.regs.read32(0x0040) & kBusy) == 0; })) << "busy cleared";
    EXPECT_EQ(rig.regs.read32(0x0040), kIdleStopped);
}

TEST(XdmaIpOptions, AddressAlignmentAndLengthGranularityHoldOnEveryDescriptor) {
    Rig rig({.card_memory_size = 0x1000, .address_alignment = 64, .length_granularity = 64});
    EXPECT_EQ(rig.regs.read32(0x004C), 0x00404040u);
    // First descriptor fine, second has a length of 96: invalid_length, the engine stops there.
    rig.descriptor(0, kDescCompleted, 64, kIova + 0x1000, 0x0, kIova + 0x20);
    rig.descriptor(0x20, kDescStop | kDescCompleted, 96, kIova + 0x1040, 0x40, 0);
    rig.regs.write64(0x4080, kIova);
    rig.regs.write32(0x0004, kIeLength | kIeAlign | kIeStopped | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kInvalidLength) << "stopped, not busy";
    EXPECT_EQ(rig.regs.read32(0x0048), 1u);
    // A card address off the alignment on the second descriptor: align_mismatch.
    rig.descriptor(0x20, kDescStop | kDescCompleted, 64, kIova + 0x1040, 0x48, 0);
    rig.regs.write32(0x000C, kRun);
    rig.regs.write32(0x0008, kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kAlignMismatch);
    // Both within the Alignments: the list completes.
    rig.descriptor(0x20, kDescStop | kDescCompleted, 64, kIova + 0x1040, 0x40, 0);
    rig.regs.write32(0x000C, kRun);
    rig.regs.write32(0x0008, kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kStopped);
    EXPECT_EQ(rig.regs.read32(0x0048), 2u);
}

TEST(XdmaIpOptions, StreamLengthGranularityAppliesToH2cAndC2hDescriptors) {
    Rig rig({.stream = true, .length_granularity = 8});
    rig.descriptor(0, kDescStop | kDescCompleted | kDescEop, 100, kIova + 0x1000, 0, 0);  // 100 % 8 != 0
    rig.regs.write64(0x4080, kIova);
    rig.regs.write32(0x0004, kIeLength | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kInvalidLength);
    EXPECT_EQ(rig.model->c2h_pending_bytes(0), 0u) << "nothing sent";
}

TEST(XdmaIpOptions, DmaBarOf32KiBHoldsTheBlocksBelowMsiX) {
    Rig rig({.card_memory_size = 0x1000}, 0x8000);
    EXPECT_EQ(rig.regs.read32(0x6000), 0x1FC60006u);
    EXPECT_EQ(rig.regs.read32(0x5000), 0x1FC50006u);
    EXPECT_FALSE(rig.device->bar(0).value()->read(0x8000, 4).ok()) << "MSI-X table beyond the BAR";
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kIeStopped | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kStopped);
    EXPECT_TRUE(card_equals_host(rig, 0, 0x1000, 128));
}

TEST(XdmaIpOptions, DmaBarOf16KiBLeavesTheSgdmaBlocksOut) {
    Rig rig({.card_memory_size = 0x1000}, 0x4000);
    EXPECT_EQ(rig.regs.read32(0x3000), 0x1FC30006u);
    EXPECT_FALSE(rig.device->bar(0).value()->read(0x4000, 4).ok()) << "SGDMA beyond the BAR";
}

TEST(XdmaIpOptions, NoMemoryBehindTheBridgeTheEngineNeverCompletes) {
    Rig rig({.card_memory_size = 0x1000, .card_memory_present = false});
    rig.regs.write64(0x0088, kIova + 0x3000);
    rig.h2c_list_of_two();
    rig.regs.write32(0x0004, kPollWb | kIeStopped | kIeCompleted | kRun);
    rig.model->run_until_idle();
    EXPECT_EQ(rig.regs.read32(0x0040), kBusy) << "busy, nothing completed";
    EXPECT_EQ(rig.regs.read32(0x0048), 0u);
    EXPECT_EQ(rig.writeback(), 0u);
    rig.regs.write32(0x000C, kRun);
    EXPECT_EQ(rig.regs.read32(0x0040) & kBusy, kBusy) << "clearing Run does not end an AXI transfer nobody answers";
    uint8_t card[64];
    ASSERT_TRUE(rig.model->card_read(0, card, sizeof card));
    EXPECT_EQ(card[0], 0u) << "nothing written";
    ASSERT_TRUE(rig.device->reset().ok());
    EXPECT_EQ(rig.regs.read32(0x0040), 0u) << "a device reset ends it";
}

}  // namespace xdma_ip_options_test
