// The CMAC register model against PG203 v3.1: reset values, CORE_VERSION_REG, alignment after
// ctl_rx_enable (lanes lock, then align) on a settable time, the clear-on-read latching of the
// status registers, GT loopback, RS-FEC status, the statistics counted from the frames given and
// latched only by TICK_REG, and the faults. Offsets are written here from the document.
#include "sim/cmac_model.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <utility>

#include "designs/registry.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"

// Named after the file: its helpers stay its own in a unity build.
namespace cmac_model_test {

namespace {

using sim::CmacModel;

constexpr uint64_t CONFIGURATION_TX_REG1 = 0x000C;
constexpr uint64_t CONFIGURATION_RX_REG1 = 0x0014;
constexpr uint64_t CORE_MODE_REG = 0x0020;
constexpr uint64_t CORE_VERSION_REG = 0x0024;
constexpr uint64_t GT_LOOPBACK_REG = 0x0090;
constexpr uint64_t RSFEC_CONFIG_ENABLE = 0x107C;
constexpr uint64_t STAT_TX_STATUS_REG = 0x0200;
constexpr uint64_t STAT_RX_STATUS_REG = 0x0204;
constexpr uint64_t STAT_RX_BLOCK_LOCK_REG = 0x020C;
constexpr uint64_t STAT_RX_LANE_SYNC_REG = 0x0210;
constexpr uint64_t TICK_REG = 0x02B0;
constexpr uint64_t STAT_RSFEC_STATUS_REG = 0x1004;
constexpr uint64_t STAT_CYCLE_COUNT = 0x02B8;
constexpr uint64_t STAT_TX_TOTAL_PACKETS = 0x0500;
constexpr uint64_t STAT_TX_TOTAL_BYTES = 0x0510;
constexpr uint64_t STAT_TX_PACKET_64_BYTES = 0x0520;
constexpr uint64_t STAT_TX_PACKET_1024_1518_BYTES = 0x0548;
constexpr uint64_t STAT_RX_TOTAL_PACKETS = 0x0608;
constexpr uint64_t STAT_RX_TOTAL_GOOD_PACKETS = 0x0610;
constexpr uint64_t STAT_RX_BAD_FCS = 0x06C0;
constexpr uint32_t kAllLanes = 0xFFFFF;

struct ModelRig {
    double seconds = 100.0;
    std::unique_ptr<CmacModel> model;
    explicit ModelRig(CmacModel::Config config = {}) {
        config.clock = [this] { return seconds; };
        config.lock_time = std::chrono::milliseconds(2);
        config.align_time = std::chrono::milliseconds(5);
        model = std::make_unique<CmacModel>(config);
    }
    uint32_t read(uint64_t offset) { return static_cast<uint32_t>(model->read(offset, 4)); }
    void write(uint64_t offset, uint32_t value) { model->write(offset, 4, value); }
    uint64_t counter(uint64_t lsb) { return read(lsb) | static_cast<uint64_t>(read(lsb + 4)) << 32; }
    void enable_and_align() {
        write(CONFIGURATION_TX_REG1, 1);
        write(CONFIGURATION_RX_REG1, 1);
        seconds += 0.010;
    }
    // No link partner on the line and GT_LOOPBACK_REG set: a signal can only be the port's own.
    void loop_back_alone() {
        model->set_link_partner(false);
        write(GT_LOOPBACK_REG, 1);
    }
};

TEST(CmacModel, ResetValuesAndCoreVersion) {
    ModelRig rig;
    EXPECT_EQ(rig.read(CORE_VERSION_REG), 0x0301u) << "v3.1: major 3 in 15:8, minor 1 in 7:0";
    EXPECT_EQ(rig.read(CORE_MODE_REG), 1u) << "CAUI4";
    for (uint64_t reg : {CONFIGURATION_TX_REG1, CONFIGURATION_RX_REG1, GT_LOOPBACK_REG, TICK_REG})
        EXPECT_EQ(rig.read(reg), 0u) << std::hex << reg;
    rig.write(CORE_VERSION_REG, 0);
    EXPECT_EQ(rig.read(CORE_VERSION_REG), 0x0301u) << "read-only";
    rig.write(CONFIGURATION_TX_REG1, 0xffffffffu);
    EXPECT_EQ(rig.read(CONFIGURATION_TX_REG1), 0x00010039u) << "only the fields PG203 defines";
}

TEST(CmacModel, LanesLockThenAlignAfterTheSetTimes) {
    ModelRig rig;
    rig.seconds += 1.0;
    EXPECT_EQ(rig.read(STAT_RX_BLOCK_LOCK_REG) | rig.read(STAT_RX_BLOCK_LOCK_REG), 0u) << "ctl_rx_enable is 0";
    rig.write(CONFIGURATION_RX_REG1, 1);
    rig.seconds += 0.001;
    (void)rig.read(STAT_RX_BLOCK_LOCK_REG);
    EXPECT_EQ(rig.read(STAT_RX_BLOCK_LOCK_REG), 0u) << "1 ms of 2";
    rig.seconds += 0.0015;
    (void)rig.read(STAT_RX_BLOCK_LOCK_REG);
    EXPECT_EQ(rig.read(STAT_RX_BLOCK_LOCK_REG), kAllLanes);
    (void)rig.read(STAT_RX_LANE_SYNC_REG);
    EXPECT_EQ(rig.read(STAT_RX_LANE_SYNC_REG), kAllLanes);
    (void)rig.read(STAT_RX_STATUS_REG);
    EXPECT_EQ(rig.read(STAT_RX_STATUS_REG) & 0x3u, 0u) << "locked, not yet aligned";
    EXPECT_NE(rig.read(STAT_RX_STATUS_REG) & 0x40u, 0u) << "stat_rx_local_fault until aligned";
    rig.seconds += 0.003;
    (void)rig.read(STAT_RX_STATUS_REG);
    EXPECT_EQ(rig.read(STAT_RX_STATUS_REG) & 0x43u, 0x3u) << "aligned, status good, no local fault";
}

TEST(CmacModel, StatusBitsLatchUntilRead) {
    ModelRig rig;
    rig.enable_and_align();
    EXPECT_EQ(rig.read(STAT_RX_STATUS_REG) & 0x2u, 0u) << "latched low: it was 0 since the last read";
    EXPECT_EQ(rig.read(STAT_RX_STATUS_REG) & 0x2u, 0x2u) << "the second read shows the present state";
    rig.write(CONFIGURATION_RX_REG1, 0);  // alignment lost...
    rig.write(CONFIGURATION_RX_REG1, 1);  // ...and training again
    rig.seconds += 0.010;
    EXPECT_EQ(rig.read(STAT_RX_BLOCK_LOCK_REG), 0u) << "the lost lock stays latched";
    EXPECT_EQ(rig.read(STAT_RX_BLOCK_LOCK_REG), kAllLanes);
    const uint32_t first = rig.read(STAT_RX_STATUS_REG);
    EXPECT_NE(first & 0x40u, 0u) << "the local fault while it trained stays latched high";
    EXPECT_EQ(rig.read(STAT_RX_STATUS_REG) & 0x40u, 0u);
}

TEST(CmacModel, GtLoopbackGivesTheSignalAndCarriesRemoteFault) {
    ModelRig rig;
    rig.model->set_link_partner(false);
    rig.enable_and_align();
    EXPECT_FALSE(rig.model->rx_aligned()) << "nothing on the line";
    rig.write(GT_LOOPBACK_REG, 1);
    EXPECT_EQ(rig.read(GT_LOOPBACK_REG), 1u);
    rig.seconds += 0.010;
    EXPECT_TRUE(rig.model->rx_aligned()) << "near-end PMA loopback: our own transmitter";
    rig.write(CONFIGURATION_TX_REG1, 1 | 0x10);  // ctl_tx_send_rfi
    (void)rig.read(STAT_RX_STATUS_REG);
    EXPECT_NE(rig.read(STAT_RX_STATUS_REG) & 0x20u, 0u) << "stat_rx_remote_fault: our RFI comes back";
}

TEST(CmacModel, RsFecStatusWhenEnabledAndMatchingInLoopback) {
    CmacModel::Config config;
    config.rs_fec = true;
    ModelRig rig(config);
    rig.loop_back_alone();
    rig.write(RSFEC_CONFIG_ENABLE, 0x1);  // RX only: the looped-back TX sends no RS-FEC
    rig.enable_and_align();
    EXPECT_FALSE(rig.model->rx_aligned()) << "RS-FEC on one side only: no lock";
    rig.write(RSFEC_CONFIG_ENABLE, 0x3);
    rig.seconds += 0.010;
    EXPECT_TRUE(rig.model->rx_aligned());
    EXPECT_EQ(rig.read(STAT_RSFEC_STATUS_REG), 0x4F00u) << "am_lock0..3 and lane_alignment_status";
}

TEST(CmacModel, CountersMoveOnlyAtATick) {
    ModelRig rig;
    rig.enable_and_align();
    EXPECT_TRUE(rig.model->pass_tx_frame(64));
    EXPECT_TRUE(rig.model->pass_tx_frame(1500));
    EXPECT_EQ(rig.counter(STAT_TX_TOTAL_PACKETS), 0u) << "not latched yet";
    rig.write(TICK_REG, 1);
    EXPECT_EQ(rig.counter(STAT_TX_TOTAL_PACKETS), 2u);
    EXPECT_EQ(rig.counter(STAT_TX_TOTAL_BYTES), 1564u);
    EXPECT_EQ(rig.counter(STAT_TX_PACKET_64_BYTES), 1u);
    EXPECT_EQ(rig.counter(STAT_TX_PACKET_1024_1518_BYTES), 1u);
    EXPECT_EQ(rig.counter(STAT_CYCLE_COUNT), static_cast<uint64_t>(0.010 * CmacModel::kCoreClockHz));
    EXPECT_TRUE(rig.model->pass_tx_frame(100));
    EXPECT_EQ(rig.counter(STAT_TX_TOTAL_PACKETS), 2u) << "reads between ticks return the latched values";
    rig.write(TICK_REG, 1);
    EXPECT_EQ(rig.counter(STAT_TX_TOTAL_PACKETS), 1u) << "each tick starts a new interval";
}

TEST(CmacModel, CountersAre48BitsInTwoWords) {
    ModelRig rig;
    rig.enable_and_align();
    for (int i = 0; i < 3; ++i)
        rig.model->pass_tx_frame(0x7fffffffffull);  // bytes above 32 bits
    rig.write(TICK_REG, 1);
    EXPECT_EQ(rig.read(STAT_TX_TOTAL_BYTES), 0xfffffffdu);
    EXPECT_EQ(rig.read(STAT_TX_TOTAL_BYTES + 4), 0x17fu) << "bits 47:32 in the MSB word";
}

TEST(CmacModel, ReceivedFramesCountOnlyWhenAligned) {
    ModelRig rig;
    rig.write(CONFIGURATION_RX_REG1, 1);
    EXPECT_FALSE(rig.model->pass_rx_frame(64)) << "not aligned yet";
    rig.seconds += 0.010;
    EXPECT_TRUE(rig.model->pass_rx_frame(64));
    EXPECT_TRUE(rig.model->pass_rx_frame(64, false));
    rig.write(TICK_REG, 1);
    EXPECT_EQ(rig.counter(STAT_RX_TOTAL_PACKETS), 2u);
    EXPECT_EQ(rig.counter(STAT_RX_TOTAL_GOOD_PACKETS), 1u);
    EXPECT_EQ(rig.counter(STAT_RX_BAD_FCS), 1u);
}

TEST(CmacModel, Faults) {
    ModelRig never;
    never.model->set_fault(CmacModel::Fault::NeverAligns);
    never.enable_and_align();
    (void)never.read(STAT_RX_BLOCK_LOCK_REG);
    EXPECT_EQ(never.read(STAT_RX_BLOCK_LOCK_REG), kAllLanes) << "every lane locks";
    EXPECT_EQ(never.read(STAT_RX_LANE_SYNC_REG), 0u) << "no alignment marker sync";
    EXPECT_FALSE(never.model->rx_aligned());

    ModelRig fcs;
    fcs.model->set_fault(CmacModel::Fault::FcsErrors);
    fcs.enable_and_align();
    fcs.model->pass_rx_frame(128);
    fcs.write(TICK_REG, 1);
    EXPECT_EQ(fcs.counter(STAT_RX_BAD_FCS), 1u);
    EXPECT_EQ(fcs.counter(STAT_RX_TOTAL_GOOD_PACKETS), 0u);

    ModelRig lying;
    lying.model->set_fault(CmacModel::Fault::LyingStatistics);
    lying.enable_and_align();
    lying.model->pass_tx_frame(128);
    lying.write(TICK_REG, 1);
    EXPECT_EQ(lying.counter(STAT_TX_TOTAL_PACKETS), 2u) << "one frame passed, two counted";
}

TEST(CmacModel, ASimplexTxPortHasNoReceiveSide) {
    CmacModel::Config config;
    config.rx = false;
    ModelRig rig(config);
    EXPECT_EQ(rig.read(STAT_RX_STATUS_REG), 0xffffffffu);
    EXPECT_EQ(rig.read(STAT_RX_TOTAL_PACKETS), 0xffffffffu);
    EXPECT_EQ(rig.read(STAT_TX_STATUS_REG), 0u);
    EXPECT_EQ(rig.read(STAT_TX_TOTAL_PACKETS), 0u);
}

TEST(CmacModel, ALoopbackTheDesignDoesNotConnectGivesNoSignal) {
    CmacModel::Config config;
    config.gt_loopback = false;
    ModelRig rig(config);
    rig.loop_back_alone();
    EXPECT_EQ(rig.read(GT_LOOPBACK_REG), 1u) << "the register reads back";
    rig.enable_and_align();
    EXPECT_FALSE(rig.model->rx_aligned()) << "but the transceivers never loop";
}

// The simulated designs with cmac peripherals: a model per port at the design's offsets, built
// as the design says (Simplex TX: no receive side).
TEST(CmacModel, SimulatedDesignsPlaceAModelPerPort) {
    const designs::Registry registry = designs::Registry::builtin().value();
    struct Expected {
        const char* design;
        unsigned bar;
        uint64_t port0, port1;
        bool rx;
    };
    for (const Expected& e : {Expected{"U200_100G_ether_duplex", 0, 0x0, 0x10000, true},
                              Expected{"U200_100G_ether_simplex_tx", 0, 0x0, 0x10000, false},
                              Expected{"open-nic", 2, 0x8000, 0xC000, true}}) {
        const designs::Design* d = registry.find(e.design);
        ASSERT_NE(d, nullptr) << e.design;
        auto made = sim::instantiate_design(*d, sim::simulated_identity(*d, sim::simulated_address(0), 41), true);
        ASSERT_TRUE(made.ok()) << made.error().message();
        EXPECT_EQ(made->cmacs.size(), 2u) << e.design;
        vfio::Bar* bar = made->device->bar(e.bar).value();
        for (uint64_t base : {e.port0, e.port1}) {
            EXPECT_EQ(bar->read(base + CORE_VERSION_REG, 4).value(), 0x0301u) << e.design << " " << std::hex << base;
            EXPECT_EQ(bar->read(base + STAT_RX_STATUS_REG, 4).value() == 0xffffffffu, !e.rx) << e.design;
        }
        made->cmacs[1]->set_link_partner(false);
        ASSERT_TRUE(bar->write(e.port1 + CONFIGURATION_RX_REG1, 4, 1).ok());
        EXPECT_EQ(bar->read(e.port0 + CONFIGURATION_RX_REG1, 4).value(), 0u) << "each port its own registers";
    }
}

// PDT_SIM_FAULT (test only) names the model's faults; at most one; the names come back.
TEST(CmacModel, PdtSimFaultNamesTheCmacFaults) {
    for (const auto& [name, fault] : {std::pair{"cmac_never_aligns", CmacModel::Fault::NeverAligns},
                                      std::pair{"cmac_fcs_errors", CmacModel::Fault::FcsErrors},
                                      std::pair{"cmac_lying_statistics", CmacModel::Fault::LyingStatistics}}) {
        auto plan = sim::parse_fault_plan(std::string(name) + ",stale_after=2");
        ASSERT_TRUE(plan.ok()) << plan.error().message();
        EXPECT_EQ(plan->cmac_fault, fault) << name;
        EXPECT_TRUE(plan->injections.empty()) << name;
        EXPECT_STREQ(sim::cmac_fault_name(fault), name);
    }
    EXPECT_EQ(sim::parse_fault_plan("engine_stall")->cmac_fault, CmacModel::Fault::None);
    auto two = sim::parse_fault_plan("cmac_never_aligns,cmac_fcs_errors");
    ASSERT_FALSE(two.ok());
    EXPECT_TRUE(two.error().usage);
    EXPECT_NE(two.error().message().find("a second CMAC fault"), std::string::npos) << two.error().message();
    auto unknown = sim::parse_fault_plan("cmac_bogus");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message().find("cmac_never_aligns, cmac_fcs_errors, cmac_lying_statistics"),
              std::string::npos)
        << unknown.error().message();
    EXPECT_FALSE(sim::parse_cmac_fault_name("none").has_value()) << "None is no fault to name";
}

// A tool's simulated bus gives every CMAC port the fault: each lane locks, none syncs, and the
// port never aligns.
TEST(CmacModel, DesignBusGivesEveryPortThePdtSimFault) {
    const designs::Registry registry = designs::Registry::builtin().value();
    setenv(sim::kFaultEnvironmentVariable, "cmac_never_aligns", 1);
    auto bus = sim::make_design_bus({"U200_100G_ether_duplex"}, registry);
    unsetenv(sim::kFaultEnvironmentVariable);
    ASSERT_TRUE(bus.ok()) << bus.error().message();
    auto device = (*bus)->open((*bus)->scan()->front());
    ASSERT_TRUE(device.ok()) << device.error().message();
    vfio::Bar* bar = (*device)->bar(0).value();
    for (uint64_t base : {0x0ull, 0x10000ull}) {
        ASSERT_TRUE(bar->write(base + CONFIGURATION_RX_REG1, 4, 1).ok());
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // lock 1 ms, align 2 ms by default
        bar->read(base + STAT_RX_BLOCK_LOCK_REG, 4).value();         // what latched before
        bar->read(base + STAT_RX_LANE_SYNC_REG, 4).value();
        EXPECT_EQ(bar->read(base + STAT_RX_BLOCK_LOCK_REG, 4).value(), 0xFFFFFu) << std::hex << base;
        EXPECT_EQ(bar->read(base + STAT_RX_LANE_SYNC_REG, 4).value(), 0u) << std::hex << base;
        EXPECT_EQ(bar->read(base + STAT_RX_STATUS_REG, 4).value() & 0x2u, 0u) << "stat_rx_aligned stays 0";
    }
}

}  // namespace

}  // namespace cmac_model_test
