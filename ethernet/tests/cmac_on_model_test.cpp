// The CMAC driver against the register model written from PG203 (sim/cmac_model.hpp), alone and
// in the simulated designs that have CMAC ports: alignment after the model's settable time, each
// fault seen through the driver (a link that never aligns, no signal, local and remote fault,
// FCS errors, statistics that count frames never passed), and the tick semantics of the counters.
#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <memory>
#include <optional>

#include "designs/registry.hpp"
#include "ethernet/cmac.hpp"
#include "ethernet/open_cmac.hpp"
#include "sim/cmac_model.hpp"
#include "sim/design_sim.hpp"

// Named after the file: its helpers stay its own in a unity build.
namespace cmac_on_model_test {

namespace {

namespace pg203 = ethernet::pg203;
using pg203::Counter;
using sim::CmacModel;
using Change = ethernet::CmacConfigChange;

// A change of configuration that sets each of `fields` to 1.
Change setting(std::initializer_list<std::optional<bool> Change::*> fields) {
    Change change;
    for (const auto field : fields)
        change.*field = true;
    return change;
}

struct ModelRig {
    std::shared_ptr<CmacModel> model;
    std::shared_ptr<sim::SimBar> backend = std::make_shared<sim::SimBar>(CmacModel::kSize);
    vfio::Bar bar{0, backend};
    std::unique_ptr<ethernet::Cmac> cmac;
    explicit ModelRig(CmacModel::Config config = {}, ethernet::CmacBuild build = {}) {
        config.lock_time = std::chrono::milliseconds(2);
        config.align_time = std::chrono::milliseconds(5);
        model = std::make_shared<CmacModel>(config);
        backend->add_block(0, CmacModel::kSize, model);
        cmac = std::make_unique<ethernet::Cmac>(bar.window(0, CmacModel::kSize).value(), build, "bar 0 offset 0x0");
    }
    void enable() {
        const auto done = cmac->configure(setting({&Change::ctl_tx_enable, &Change::ctl_rx_enable}));
        ASSERT_TRUE(done.ok()) << done.error().message();
    }
};

TEST(CmacOnModel, AlignsAfterTheModelsTime) {
    ModelRig rig;
    const auto start = std::chrono::steady_clock::now();
    rig.enable();
    const auto status = rig.cmac->wait_aligned(std::chrono::milliseconds(1000));
    ASSERT_TRUE(status.ok()) << status.error().message();
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(5));
    EXPECT_TRUE(status->rx_aligned);
    EXPECT_TRUE(status->rx_status);
    EXPECT_EQ(status->block_lock_lanes, 0xFFFFFu);
    EXPECT_EQ(status->synced_lanes, 0xFFFFFu);
    EXPECT_FALSE(status->rx_local_fault);
    EXPECT_EQ(status->version_major, 3u);
    EXPECT_EQ(status->version_minor, 1u);
}

TEST(CmacOnModel, NoSignalIsNamedAsMissingBlockLock) {
    ModelRig rig;
    rig.model->set_link_partner(false);
    rig.enable();
    const auto status = rig.cmac->wait_aligned(std::chrono::milliseconds(20));
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ETIMEDOUT);
    EXPECT_EQ(status.error().operation, "wait for CMAC stat_rx_aligned");
    EXPECT_NE(status.error().hint.find("no block lock on PCS lanes 0-19"), std::string::npos) << status.error().hint;
    const auto local = rig.cmac->read_status();
    ASSERT_TRUE(local.ok());
    EXPECT_TRUE(local->rx_local_fault) << "not aligned: stat_rx_local_fault";
}

TEST(CmacOnModel, ALinkThatNeverAlignsIsNamed) {
    ModelRig rig;
    rig.model->set_fault(CmacModel::Fault::NeverAligns);
    rig.enable();
    const auto status = rig.cmac->wait_aligned(std::chrono::milliseconds(20));
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().hint.find("alignment markers of PCS lanes 0-19 are not synced"), std::string::npos)
        << status.error().hint;
}

TEST(CmacOnModel, GtLoopbackAlignsWithoutAPartnerAndCarriesTheRemoteFault) {
    ModelRig rig;
    rig.model->set_link_partner(false);
    ASSERT_TRUE(rig.cmac->configure(setting({&Change::ctl_gt_loopback})).ok());
    rig.enable();
    ASSERT_TRUE(rig.cmac->wait_aligned(std::chrono::milliseconds(1000)).ok());
    ASSERT_TRUE(rig.cmac->configure(setting({&Change::ctl_tx_send_rfi})).ok());
    const auto status = rig.cmac->read_status();
    ASSERT_TRUE(status.ok());
    EXPECT_TRUE(status->rx_remote_fault);
    EXPECT_TRUE(status->rx_aligned);
}

TEST(CmacOnModel, RsFecStatusWhenEnabled) {
    CmacModel::Config config;
    config.rs_fec = true;
    ethernet::CmacBuild build;
    build.rs_fec = true;
    ModelRig rig(config, build);
    ASSERT_TRUE(rig.cmac->configure(setting({&Change::ctl_rx_rsfec_enable, &Change::ctl_tx_rsfec_enable})).ok());
    rig.enable();
    const auto status = rig.cmac->wait_aligned(std::chrono::milliseconds(1000));
    ASSERT_TRUE(status.ok()) << status.error().message();
    EXPECT_EQ(status->rsfec_am_lock, 0xFu);
    EXPECT_TRUE(status->rsfec_lane_alignment);
}

TEST(CmacOnModel, CountersMoveOnlyAtATick) {
    ModelRig rig;
    rig.enable();
    ASSERT_TRUE(rig.cmac->wait_aligned(std::chrono::milliseconds(1000)).ok());
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(rig.model->pass_tx_frame(100));
    ASSERT_TRUE(rig.model->pass_rx_frame(1518));
    auto before = rig.cmac->read_statistics();
    ASSERT_TRUE(before.ok());
    EXPECT_EQ((*before)[Counter::STAT_TX_TOTAL_PACKETS], 0u) << "nothing latched before the first tick";
    auto first = rig.cmac->snapshot_statistics();
    ASSERT_TRUE(first.ok());
    EXPECT_EQ((*first)[Counter::STAT_TX_TOTAL_PACKETS], 3u);
    EXPECT_EQ((*first)[Counter::STAT_TX_TOTAL_BYTES], 300u);
    EXPECT_EQ((*first)[Counter::STAT_TX_PACKET_65_127_BYTES], 3u);
    EXPECT_EQ((*first)[Counter::STAT_RX_TOTAL_GOOD_PACKETS], 1u);
    EXPECT_EQ((*first)[Counter::STAT_RX_PACKET_1024_1518_BYTES], 1u);
    EXPECT_GT((*first)[Counter::STAT_CYCLE_COUNT], 0u);
    ASSERT_TRUE(rig.model->pass_tx_frame(64));
    auto between = rig.cmac->read_statistics();
    ASSERT_TRUE(between.ok());
    EXPECT_EQ(between->values, first->values) << "reads between ticks return the latched values";
    auto second = rig.cmac->snapshot_statistics();
    ASSERT_TRUE(second.ok());
    EXPECT_EQ((*second)[Counter::STAT_TX_TOTAL_PACKETS], 1u) << "the second interval only";
    EXPECT_EQ((*second)[Counter::STAT_TX_PACKET_64_BYTES], 1u);
}

TEST(CmacOnModel, CountersAbove32BitsAssembleFromBothWords) {
    ModelRig rig;
    rig.enable();
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(rig.model->pass_tx_frame(0x7fffffffffull));
    const auto stats = rig.cmac->snapshot_statistics();
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ((*stats)[Counter::STAT_TX_TOTAL_BYTES], 3 * 0x7fffffffffull);
}

TEST(CmacOnModel, FcsErrorsAreSeenInTheCounters) {
    ModelRig rig;
    rig.model->set_fault(CmacModel::Fault::FcsErrors);
    rig.enable();
    ASSERT_TRUE(rig.cmac->wait_aligned(std::chrono::milliseconds(1000)).ok());
    for (int i = 0; i < 4; ++i)
        ASSERT_TRUE(rig.model->pass_rx_frame(256));
    const auto stats = rig.cmac->snapshot_statistics();
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ((*stats)[Counter::STAT_RX_TOTAL_PACKETS], 4u);
    EXPECT_EQ((*stats)[Counter::STAT_RX_BAD_FCS], 4u);
    EXPECT_EQ((*stats)[Counter::STAT_RX_TOTAL_GOOD_PACKETS], 0u);
}

TEST(CmacOnModel, LyingStatisticsDisagreeWithTheFramesPassed) {
    ModelRig rig;
    rig.model->set_fault(CmacModel::Fault::LyingStatistics);
    rig.enable();
    ASSERT_TRUE(rig.cmac->wait_aligned(std::chrono::milliseconds(1000)).ok());
    uint64_t passed = 0;
    for (int i = 0; i < 5; ++i)
        passed += rig.model->pass_tx_frame(512) ? 1 : 0;
    const auto stats = rig.cmac->snapshot_statistics();
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(passed, 5u);
    EXPECT_NE((*stats)[Counter::STAT_TX_TOTAL_PACKETS], passed) << "the lie the loopback test must catch";
}

// The simulated designs that have CMAC ports, opened from their design data.
struct DesignRig {
    sim::DesignInstance instance;
    const designs::Design* design = nullptr;
    explicit DesignRig(const std::string& name) {
        static const designs::Registry registry = designs::Registry::builtin().value();
        design = registry.find(name);
        EXPECT_NE(design, nullptr) << name;
        auto made = sim::instantiate_design(*design, sim::simulated_identity(*design, sim::simulated_address(0), 41), true);
        EXPECT_TRUE(made.ok()) << made.error().message();
        instance = std::move(made).value();
    }
    std::vector<ethernet::Cmac> ports() {
        auto opened = ethernet::open_cmac_ports(*instance.device, *design, instance.device->identity().revision);
        EXPECT_TRUE(opened.ok()) << opened.error().message();
        return std::move(opened).value();
    }
};

TEST(CmacOnModel, SimulatedDesignsHaveTheirPorts) {
    for (const char* name : {"U200_100G_ether_duplex", "U200_100G_ether_simplex_tx", "open-nic"}) {
        DesignRig rig(name);
        const auto ports = rig.ports();
        ASSERT_EQ(ports.size(), 2u) << name;
        ASSERT_EQ(rig.instance.cmacs.size(), 2u) << name;
        for (unsigned port = 0; port < 2; ++port) {
            EXPECT_EQ(ports[port].build().port, port) << name;
            const auto status = ports[port].read_status();
            ASSERT_TRUE(status.ok()) << name << ": " << status.error().message();
            EXPECT_EQ(status->version_major, 3u) << name;
            EXPECT_EQ(status->core_mode, 1u) << name << ": CAUI4";
        }
    }
}

TEST(CmacOnModel, ADuplexPortOfASimulatedDesignAlignsInGtLoopback) {
    DesignRig rig("U200_100G_ether_duplex");
    const auto ports = rig.ports();
    ASSERT_EQ(ports.size(), 2u);
    rig.instance.cmacs[1]->set_link_partner(false);
    ASSERT_TRUE(ports[1]
                    .configure(setting({&Change::ctl_gt_loopback, &Change::ctl_tx_enable, &Change::ctl_rx_enable,
                                        &Change::ctl_rx_rsfec_enable, &Change::ctl_tx_rsfec_enable}))
                    .ok());
    const auto status = ports[1].wait_aligned(std::chrono::milliseconds(1000));
    ASSERT_TRUE(status.ok()) << status.error().message();
    EXPECT_EQ(status->rsfec_am_lock, 0xFu);
    const auto other = ports[0].read_config();
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other->ctl_gt_loopback) << "port 0 has registers of its own";
}

TEST(CmacOnModel, ASimplexTxPortHasNoReceiveSideToAlign) {
    DesignRig rig("U200_100G_ether_simplex_tx");
    const auto ports = rig.ports();
    ASSERT_FALSE(ports.empty());
    EXPECT_FALSE(ports[0].build().rx);
    const auto wait = ports[0].wait_aligned(std::chrono::milliseconds(10));
    ASSERT_FALSE(wait.ok());
    EXPECT_TRUE(wait.error().usage);
    const auto stats = ports[0].snapshot_statistics();
    ASSERT_TRUE(stats.ok()) << stats.error().message() << ": the RX counters (all ones) must stay unread";
}

}  // namespace

}  // namespace cmac_on_model_test
