// The CMAC driver against hand-set registers (a fake window): status decoding from the second
// of two reads, 48-bit counters read LSB word then MSB word after TICK_REG, the sides a port is
// not built with left unread, configuration set and read back with a mismatch named, and the
// errors' operation, object and hint.
#include "ethernet/cmac.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

// Named after the file: its helpers stay its own in a unity build.
namespace cmac_test {

namespace {

namespace pg203 = ethernet::pg203;
using ethernet::Cmac;
using ethernet::CmacBuild;

// A CMAC's 0x2000 bytes as 32-bit words; unset words read `fill`. Each access is logged.
// Writes to `stuck` offsets keep the bits of `stuck_mask` as they were.
class FakeCmacRegs : public vfio::MmioBackend {
public:
    std::map<uint64_t, uint32_t> regs;
    std::map<uint64_t, std::vector<uint32_t>> queued;  // successive values a register reads
    std::vector<std::pair<char, uint64_t>> log;          // 'r' or 'w', offset
    std::map<uint64_t, uint32_t> stuck;                  // offset -> bits that do not change
    uint32_t fill = 0;
    uint64_t size() const override { return pg203::kFrameSize; }
    uint64_t read(uint64_t offset, unsigned) override {
        log.emplace_back('r', offset);
        auto q = queued.find(offset);
        if (q != queued.end() && !q->second.empty()) {
            const uint32_t v = q->second.front();
            q->second.erase(q->second.begin());
            return v;
        }
        const auto found = regs.find(offset);
        return found == regs.end() ? fill : found->second;
    }
    void write(uint64_t offset, unsigned, uint64_t value) override {
        log.emplace_back('w', offset);
        const auto s = stuck.find(offset);
        const uint32_t keep = s == stuck.end() ? 0 : s->second;
        regs[offset] = (regs[offset] & keep) | (static_cast<uint32_t>(value) & ~keep);
    }
};

struct Rig {
    std::shared_ptr<FakeCmacRegs> regs = std::make_shared<FakeCmacRegs>();
    vfio::Bar bar{0, regs};
    Cmac cmac(CmacBuild build = {}) {
        return Cmac(bar.window(0, pg203::kFrameSize).value(), build, "bar 0 offset 0x10000");
    }
};

TEST(CmacDriver, StatusIsDecodedFromTheSecondRead) {
    Rig rig;
    rig.regs->regs[pg203::CORE_VERSION_REG] = 0x0301;
    rig.regs->regs[pg203::CORE_MODE_REG] = 1;
    rig.regs->queued[pg203::STAT_RX_STATUS_REG] = {0x00000060, 0x00000003};  // faults latched, now aligned
    rig.regs->queued[pg203::STAT_RX_BLOCK_LOCK_REG] = {0x000F0000, 0x000FFFFF};
    rig.regs->queued[pg203::STAT_RX_LANE_SYNC_REG] = {0x0, 0x000FFFFF};
    CmacBuild build;
    build.rs_fec = true;
    rig.regs->regs[pg203::STAT_RSFEC_STATUS_REG] = 0x4F00;
    const auto s = rig.cmac(build).read_status();
    ASSERT_TRUE(s.ok()) << s.error().message();
    EXPECT_EQ(s->version_major, 3u);
    EXPECT_EQ(s->version_minor, 1u);
    EXPECT_EQ(s->core_mode, 1u);
    EXPECT_TRUE(s->rx_aligned);
    EXPECT_TRUE(s->rx_status);
    EXPECT_FALSE(s->rx_remote_fault) << "latched in the first read only";
    EXPECT_FALSE(s->rx_local_fault);
    EXPECT_EQ(s->stat_rx_status.latched, 0x60u);
    EXPECT_EQ(s->stat_rx_status.present, 0x3u);
    EXPECT_EQ(s->block_lock_lanes, 0xFFFFFu);
    EXPECT_EQ(s->synced_lanes, 0xFFFFFu);
    EXPECT_EQ(s->rsfec_am_lock, 0xFu);
    EXPECT_TRUE(s->rsfec_lane_alignment);
}

TEST(CmacDriver, NoCmacThereIsAnErrorNamingTheRegister) {
    Rig rig;
    rig.regs->fill = 0xffffffffu;
    const auto s = rig.cmac().read_status();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().operation, "read CMAC CORE_VERSION_REG");
    EXPECT_EQ(s.error().object, "CMAC port 0 at bar 0 offset 0x10000 + 0x24");
    EXPECT_NE(s.error().hint.find("all ones"), std::string::npos);
}

TEST(CmacDriver, CountersAreReadLsbThenMsbAfterTheTick) {
    Rig rig;
    const uint32_t lsb = pg203::counter_lsb(pg203::Counter::STAT_TX_TOTAL_BYTES);  // PG203's 0x0510
    rig.regs->regs[lsb] = 0x89abcdefu;
    rig.regs->regs[lsb + 4] = 0xffff1234u;  // bits 31:16 are not the counter's
    const auto stats = rig.cmac().snapshot_statistics();
    ASSERT_TRUE(stats.ok()) << stats.error().message();
    EXPECT_EQ((*stats)[pg203::Counter::STAT_TX_TOTAL_BYTES], 0x123489abcdefull);
    ASSERT_FALSE(rig.regs->log.empty());
    EXPECT_EQ(rig.regs->log.front(), std::make_pair('w', uint64_t{pg203::TICK_REG})) << "the tick first";
    EXPECT_EQ(rig.regs->regs[pg203::TICK_REG], 1u);
    for (size_t i = 1; i + 1 < rig.regs->log.size(); i += 2) {
        EXPECT_EQ(rig.regs->log[i].first, 'r');
        EXPECT_EQ(rig.regs->log[i + 1].second, rig.regs->log[i].second + 4) << "MSB right after its LSB";
    }
}

TEST(CmacDriver, ASaturatedCounterIsSaid) {
    Rig rig;
    const uint32_t lsb = pg203::counter_lsb(pg203::Counter::STAT_RX_BAD_FCS);  // PG203's 0x06C0
    rig.regs->regs[lsb] = 0xffffffffu;
    rig.regs->regs[lsb + 4] = 0xffffu;
    const auto stats = rig.cmac().read_statistics();
    ASSERT_TRUE(stats.ok());
    EXPECT_TRUE(stats->saturated(pg203::Counter::STAT_RX_BAD_FCS));
    EXPECT_FALSE(stats->saturated(pg203::Counter::STAT_TX_BAD_FCS));
}

TEST(CmacDriver, ASideNotBuiltIsNotRead) {
    Rig rig;
    CmacBuild simplex_tx;
    simplex_tx.rx = false;
    const Cmac cmac = rig.cmac(simplex_tx);
    rig.regs->regs[pg203::CORE_VERSION_REG] = 0x0301;
    ASSERT_TRUE(cmac.read_status().ok());
    ASSERT_TRUE(cmac.read_statistics().ok());
    std::set<uint64_t> read;
    for (const auto& [kind, offset] : rig.regs->log)
        if (kind == 'r')
            read.insert(offset);
    EXPECT_EQ(read.count(pg203::STAT_RX_STATUS_REG), 0u);
    EXPECT_EQ(read.count(pg203::counter_lsb(pg203::Counter::STAT_RX_TOTAL_PACKETS)), 0u);
    EXPECT_EQ(read.count(pg203::STAT_RSFEC_STATUS_REG), 0u);
    EXPECT_EQ(read.count(pg203::counter_lsb(pg203::Counter::STAT_OTN_TX_JABBER)), 0u) << "no OTN interface";
    EXPECT_EQ(read.count(pg203::counter_lsb(pg203::Counter::STAT_TX_TOTAL_PACKETS)), 1u);
    const auto stats = cmac.read_statistics();
    EXPECT_FALSE(stats->implemented[static_cast<unsigned>(pg203::Counter::STAT_RX_TOTAL_PACKETS)]);
    EXPECT_TRUE(stats->implemented[static_cast<unsigned>(pg203::Counter::STAT_TX_TOTAL_PACKETS)]);
    EXPECT_TRUE(stats->implemented[static_cast<unsigned>(pg203::Counter::STAT_CYCLE_COUNT)]);

    ethernet::CmacConfigChange change;
    change.ctl_rx_enable = true;
    const auto refused = cmac.configure(change);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(refused.error().usage);
    EXPECT_EQ(refused.error().operation, "set CMAC CONFIGURATION_RX_REG1.ctl_rx_enable");
    EXPECT_NE(refused.error().hint.find("Simplex TX"), std::string::npos);
}

TEST(CmacDriver, ConfigurationIsSetAndReadBack) {
    Rig rig;
    rig.regs->regs[pg203::CONFIGURATION_TX_REG1] = 0x00010000;  // ctl_tx_test_pattern, kept
    ethernet::CmacConfigChange change;
    change.ctl_tx_enable = true;
    change.ctl_tx_send_rfi = true;
    change.ctl_rx_enable = true;
    change.ctl_gt_loopback = true;
    ASSERT_TRUE(rig.cmac().configure(change).ok());
    EXPECT_EQ(rig.regs->regs[pg203::CONFIGURATION_TX_REG1], 0x00010011u);
    EXPECT_EQ(rig.regs->regs[pg203::CONFIGURATION_RX_REG1], 0x1u);
    EXPECT_EQ(rig.regs->regs[pg203::GT_LOOPBACK_REG], 0x1u);
    const auto config = rig.cmac().read_config();
    ASSERT_TRUE(config.ok());
    EXPECT_TRUE(config->ctl_tx_enable);
    EXPECT_TRUE(config->ctl_tx_send_rfi);
    EXPECT_FALSE(config->ctl_tx_send_idle);
    EXPECT_TRUE(config->ctl_gt_loopback);
}

TEST(CmacDriver, AFieldThatDoesNotReadBackIsNamed) {
    Rig rig;
    rig.regs->stuck[pg203::GT_LOOPBACK_REG] = 0x1;  // ctl_gt_loopback stays 0
    ethernet::CmacConfigChange change;
    change.ctl_tx_enable = true;
    change.ctl_gt_loopback = true;
    const auto result = rig.cmac().configure(change);
    ASSERT_FALSE(result.ok());
    EXPECT_FALSE(result.error().usage) << "the device, not the request";
    EXPECT_EQ(result.error().operation, "set CMAC GT_LOOPBACK_REG.ctl_gt_loopback");
    EXPECT_EQ(result.error().object, "CMAC port 0 at bar 0 offset 0x10000 + 0x90");
    EXPECT_EQ(result.error().hint, "wrote 1, GT_LOOPBACK_REG reads back 0x00000000, ctl_gt_loopback = 0");
}

TEST(CmacDriver, RsFecFieldsNeedTheOption) {
    Rig rig;
    ethernet::CmacConfigChange change;
    change.ctl_rx_rsfec_enable = true;
    const auto refused = rig.cmac().configure(change);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().operation, "set CMAC RSFEC_CONFIG_ENABLE.ctl_rx_rsfec_enable");
    CmacBuild fec;
    fec.rs_fec = true;
    EXPECT_TRUE(rig.cmac(fec).configure(change).ok());
    EXPECT_EQ(rig.regs->regs[pg203::RSFEC_CONFIG_ENABLE], 0x1u);
}

}  // namespace

}  // namespace cmac_test
