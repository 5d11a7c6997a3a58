// The CMAC register map against PG203 v3.1, "Register Space": the register offsets of its
// Configuration Register Space and of its Status and Statistics Register Map, the bit positions
// of the fields the driver uses (the registers' field tables), and the statistics counters' LSB
// offsets (the MSB, bits 47:32, at +0x4). The expected tables are written here
// from the document, independently of ethernet/cmac_registers.hpp.
#include "ethernet/cmac_registers.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <set>
#include <string>

// Named after the file: its helpers stay its own in a unity build.
namespace cmac_registers_test {

namespace {

namespace pg203 = ethernet::pg203;

struct DocumentedRegister {
    const char* name;
    uint32_t offset;
};

// PG203 Register Space, the registers by name and address.
const DocumentedRegister kPg203Registers[] = {
    {"GT_RESET_REG", 0x0000}, {"RESET_REG", 0x0004}, {"SWITCH_CORE_MODE_REG", 0x0008},
    {"CONFIGURATION_TX_REG1", 0x000C}, {"CONFIGURATION_RX_REG1", 0x0014}, {"CORE_MODE_REG", 0x0020},
    {"CORE_VERSION_REG", 0x0024}, {"CONFIGURATION_TX_BIP_OVERRIDE", 0x002C},
    {"CONFIGURATION_TX_FLOW_CONTROL_CONTROL_REG1", 0x0030}, {"CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG1", 0x0034},
    {"CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG2", 0x0038}, {"CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG3", 0x003C},
    {"CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG4", 0x0040}, {"CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG5", 0x0044},
    {"CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG1", 0x0048}, {"CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG2", 0x004C},
    {"CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG3", 0x0050}, {"CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG4", 0x0054},
    {"CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG5", 0x0058}, {"CONFIGURATION_TX_OTN_PKT_LEN_REG", 0x005C},
    {"CONFIGURATION_TX_OTN_CTL_REG", 0x0060}, {"CONFIGURATION_RX_FLOW_CONTROL_CONTROL_REG1", 0x0084},
    {"CONFIGURATION_RX_FLOW_CONTROL_CONTROL_REG2", 0x0088}, {"GT_LOOPBACK_REG", 0x0090},
    {"CONFIGURATION_AN_CONTROL_REG1", 0x00A0}, {"CONFIGURATION_AN_CONTROL_REG2", 0x00A4},
    {"CONFIGURATION_AN_ABILITY", 0x00A8}, {"CONFIGURATION_LT_CONTROL_REG1", 0x00AC},
    {"CONFIGURATION_LT_TRAINED_REG", 0x00B0}, {"CONFIGURATION_LT_PRESET_REG", 0x00B4},
    {"CONFIGURATION_LT_INIT_REG", 0x00B8}, {"CONFIGURATION_LT_SEED_REG0", 0x00BC},
    {"CONFIGURATION_LT_SEED_REG1", 0x00C0}, {"CONFIGURATION_LT_COEFFICIENT_REG0", 0x00C4},
    {"CONFIGURATION_LT_COEFFICIENT_REG1", 0x00C8}, {"USER_REG0", 0x00CC},
    {"RSFEC_CONFIG_INDICATION_CORRECTION", 0x1000}, {"RSFEC_CONFIG_ENABLE", 0x107C},
    {"STAT_TX_STATUS_REG", 0x0200}, {"STAT_RX_STATUS_REG", 0x0204}, {"STAT_STATUS_REG1", 0x0208},
    {"STAT_RX_BLOCK_LOCK_REG", 0x020C}, {"STAT_RX_LANE_SYNC_REG", 0x0210}, {"STAT_RX_LANE_SYNC_ERR_REG", 0x0214},
    {"STAT_RX_LANE_AM_ERR_REG", 0x0218}, {"STAT_RX_LANE_AM_LEN_ERR_REG", 0x021C},
    {"STAT_RX_LANE_AM_REPEAT_ERR_REG", 0x0220}, {"STAT_RX_PCSL_DEMUXED", 0x0224},
    {"STAT_RX_PCS_LANE_NUM_REG1", 0x0228}, {"STAT_RX_PCS_LANE_NUM_REG2", 0x022C},
    {"STAT_RX_PCS_LANE_NUM_REG3", 0x0230}, {"STAT_RX_PCS_LANE_NUM_REG4", 0x0234},
    {"STAT_RX_BIP_OVERRIDE_REG", 0x0238}, {"STAT_TX_OTN_STATUS_REG", 0x023C}, {"STAT_AN_STATUS_REG", 0x0258},
    {"STAT_AN_ABILITY_REG", 0x025C}, {"STAT_AN_LINK_CTL_REG_1", 0x0260}, {"STAT_LT_STATUS_REG1", 0x0264},
    {"STAT_LT_STATUS_REG2", 0x0268}, {"STAT_LT_STATUS_REG3", 0x026C}, {"STAT_LT_STATUS_REG4", 0x0270},
    {"STAT_LT_COEFFICIENT0_REG", 0x0274}, {"STAT_LT_COEFFICIENT1_REG", 0x0278}, {"STAT_AN_LINK_CTL_REG_2", 0x027C},
    {"TICK_REG", 0x02B0}, {"STAT_RSFEC_STATUS_REG", 0x1004}, {"STAT_RSFEC_LANE_MAPPING_REG", 0x1018},
    {"STAT_TX_OTN_RSFEC_STATUS_REG", 0x1044},
};

TEST(CmacRegisterMap, EveryRegisterAtPg203sOffsetAndNoOther) {
    std::map<std::string, uint32_t> ours;
    for (size_t i = 0; i < pg203::kRegisterCount; ++i)
        EXPECT_TRUE(ours.emplace(pg203::kRegisters[i].name, pg203::kRegisters[i].offset).second)
            << pg203::kRegisters[i].name << " twice";
    for (const DocumentedRegister& r : kPg203Registers) {
        const auto found = ours.find(r.name);
        ASSERT_NE(found, ours.end()) << r.name << " missing from the map";
        EXPECT_EQ(found->second, r.offset) << r.name;
        ours.erase(found);
    }
    EXPECT_TRUE(ours.empty()) << ours.begin()->first << " is not a PG203 register";
}

TEST(CmacRegisterMap, TheNamedConstantsAreTheTablesOffsets) {
    EXPECT_EQ(pg203::CONFIGURATION_TX_REG1, 0x000Cu);
    EXPECT_EQ(pg203::CONFIGURATION_RX_REG1, 0x0014u);
    EXPECT_EQ(pg203::GT_LOOPBACK_REG, 0x0090u);
    EXPECT_EQ(pg203::STAT_RX_STATUS_REG, 0x0204u);
    EXPECT_EQ(pg203::TICK_REG, 0x02B0u);
    EXPECT_EQ(pg203::RSFEC_CONFIG_ENABLE, 0x107Cu);
    EXPECT_EQ(pg203::STAT_RSFEC_STATUS_REG, 0x1004u);
    EXPECT_LE(pg203::RSFEC_CONFIG_ENABLE + 4u, pg203::kFrameSize);
}

// Bit positions as PG203's register tables give them: {mask, field}.
TEST(CmacRegisterMap, FieldPositionsArePg203s) {
    const std::pair<uint32_t, pg203::Field> fields[] = {
        {0x00000001, pg203::ctl_gt_reset_all},     {0x000003FF, pg203::usr_rx_serdes_reset},
        {0x40000000, pg203::usr_rx_reset},         {0x80000000, pg203::usr_tx_reset},
        {0x00000001, pg203::ctl_tx_enable},        {0x00000008, pg203::ctl_tx_send_lfi},
        {0x00000010, pg203::ctl_tx_send_rfi},      {0x00000020, pg203::ctl_tx_send_idle},
        {0x00010000, pg203::ctl_tx_test_pattern},  {0x00000001, pg203::ctl_rx_enable},
        {0x00000080, pg203::ctl_rx_force_resync},  {0x00000100, pg203::ctl_rx_test_pattern},
        {0x00000003, pg203::core_mode},            {0x000000FF, pg203::core_version_minor},
        {0x0000FF00, pg203::core_version_major},   {0x00000001, pg203::ctl_gt_loopback},
        {0x00000001, pg203::ctl_rx_rsfec_enable_correction}, {0x00000002, pg203::ctl_rx_rsfec_enable_indication},
        {0x00000004, pg203::ctl_rx_rsfec_ieee_error_indication_mode},
        {0x00000001, pg203::ctl_rx_rsfec_enable},  {0x00000002, pg203::ctl_tx_rsfec_enable},
        {0x00000001, pg203::stat_tx_local_fault},  {0x00000001, pg203::stat_rx_status},
        {0x00000002, pg203::stat_rx_aligned},      {0x00000004, pg203::stat_rx_misaligned},
        {0x00000008, pg203::stat_rx_aligned_err},  {0x00000010, pg203::stat_rx_hi_ber},
        {0x00000020, pg203::stat_rx_remote_fault}, {0x00000040, pg203::stat_rx_local_fault},
        {0x00000080, pg203::stat_rx_internal_local_fault}, {0x00000100, pg203::stat_rx_received_local_fault},
        {0x000FFFFF, pg203::stat_rx_block_lock},   {0x000FFFFF, pg203::stat_rx_synced},
        {0x00000004, pg203::stat_rx_rsfec_hi_ser}, {0x00000008, pg203::stat_rx_rsfec_hi_ser_lh},
        {0x00000100, pg203::stat_rx_rsfec_am_lock0}, {0x00000200, pg203::stat_rx_rsfec_am_lock1},
        {0x00000400, pg203::stat_rx_rsfec_am_lock2}, {0x00000800, pg203::stat_rx_rsfec_am_lock3},
        {0x00004000, pg203::stat_rx_rsfec_lane_alignment_status}, {0x00000001, pg203::tick_reg},
    };
    for (const auto& [mask, field] : fields)
        EXPECT_EQ(field.mask(), mask) << "shift " << field.shift << " width " << field.width;
}

TEST(CmacRegisterMap, FieldGetAndPutKeepTheOtherBits) {
    EXPECT_EQ(pg203::ctl_tx_send_rfi.put(0xffffffffu, 0), 0xffffffefu);
    EXPECT_EQ(pg203::ctl_tx_send_rfi.put(0x1u, 1), 0x11u);
    EXPECT_EQ(pg203::core_version_major.get(0x0301), 3u);
    EXPECT_EQ(pg203::core_version_minor.get(0x0301), 1u);
}

// PG203 Status and Statistics Space: the counters' LSB words (MSB at +4).
TEST(CmacRegisterMap, CountersAtPg203sOffsets) {
    std::map<std::string, uint32_t> expected = {
        {"STAT_CYCLE_COUNT", 0x02B8}, {"STAT_RX_BAD_CODE", 0x0418}, {"STAT_TX_FRAME_ERROR", 0x0458},
        {"STAT_TX_TOTAL_PACKETS", 0x0500}, {"STAT_TX_TOTAL_GOOD_PACKETS", 0x0508}, {"STAT_TX_TOTAL_BYTES", 0x0510},
        {"STAT_TX_TOTAL_GOOD_BYTES", 0x0518},
        {"STAT_TX_BAD_FCS", 0x05B8}, {"STAT_TX_UNICAST", 0x05D0}, {"STAT_TX_MULTICAST", 0x05D8},
        {"STAT_TX_BROADCAST", 0x05E0}, {"STAT_TX_VLAN", 0x05E8}, {"STAT_TX_PAUSE", 0x05F0},
        {"STAT_TX_USER_PAUSE", 0x05F8}, {"STAT_RX_TOTAL_PACKETS", 0x0608}, {"STAT_RX_TOTAL_GOOD_PACKETS", 0x0610},
        {"STAT_RX_TOTAL_BYTES", 0x0618}, {"STAT_RX_TOTAL_GOOD_BYTES", 0x0620},
        {"STAT_RX_UNDERSIZE", 0x0698}, {"STAT_RX_FRAGMENT", 0x06A0}, {"STAT_RX_OVERSIZE", 0x06A8},
        {"STAT_RX_TOOLONG", 0x06B0}, {"STAT_RX_JABBER", 0x06B8}, {"STAT_RX_BAD_FCS", 0x06C0},
        {"STAT_RX_PACKET_BAD_FCS", 0x06C8}, {"STAT_RX_STOMPED_FCS", 0x06D0}, {"STAT_RX_UNICAST", 0x06D8},
        {"STAT_RX_MULTICAST", 0x06E0}, {"STAT_RX_BROADCAST", 0x06E8}, {"STAT_RX_VLAN", 0x06F0},
        {"STAT_RX_PAUSE", 0x06F8}, {"STAT_RX_USER_PAUSE", 0x0700}, {"STAT_RX_INRANGEERR", 0x0708},
        {"STAT_RX_TRUNCATED", 0x0710}, {"STAT_OTN_TX_JABBER", 0x0718}, {"STAT_OTN_TX_OVERSIZE", 0x0720},
        {"STAT_OTN_TX_UNDERSIZE", 0x0728}, {"STAT_OTN_TX_TOOLONG", 0x0730}, {"STAT_OTN_TX_FRAGMENT", 0x0738},
        {"STAT_OTN_TX_PACKET_BAD_FCS", 0x0740}, {"STAT_OTN_TX_STOMPED_FCS", 0x0748}, {"STAT_OTN_TX_BAD_CODE", 0x0750},
        {"STAT_RX_RSFEC_CORRECTED_CW_INC", 0x1008}, {"STAT_RX_RSFEC_UNCORRECTED_CW_INC", 0x1010},
        {"STAT_RX_RSFEC_ERR_COUNT0_INC", 0x101C}, {"STAT_RX_RSFEC_ERR_COUNT1_INC", 0x1024},
        {"STAT_RX_RSFEC_ERR_COUNT2_INC", 0x102C}, {"STAT_RX_RSFEC_ERR_COUNT3_INC", 0x1034},
        {"STAT_RX_RSFEC_CW_INC", 0x103C},
    };
    // STAT_RX_BIP_ERR_0..19 from 0x02C0 and STAT_RX_FRAMING_ERR_0..19 from 0x0360, 8 bytes apart.
    for (uint32_t lane = 0; lane < 20; ++lane) {
        expected["STAT_RX_BIP_ERR_" + std::to_string(lane)] = 0x02C0 + 8 * lane;
        expected["STAT_RX_FRAMING_ERR_" + std::to_string(lane)] = 0x0360 + 8 * lane;
    }
    // The packet-size histograms, STAT_TX_PACKET_<bin> from 0x0520 (to STAT_TX_PACKET_SMALL at
    // 0x0588) and STAT_RX_PACKET_<bin> from 0x0628 (to STAT_RX_PACKET_SMALL at 0x0690), 8 bytes apart.
    const char* const bins[] = {"64_BYTES", "65_127_BYTES", "128_255_BYTES", "256_511_BYTES",
        "512_1023_BYTES", "1024_1518_BYTES", "1519_1522_BYTES", "1523_1548_BYTES", "1549_2047_BYTES",
        "2048_4095_BYTES", "4096_8191_BYTES", "8192_9215_BYTES", "LARGE", "SMALL"};
    for (uint32_t bin = 0; bin < std::size(bins); ++bin) {
        expected[std::string("STAT_TX_PACKET_") + bins[bin]] = 0x0520 + 8 * bin;
        expected[std::string("STAT_RX_PACKET_") + bins[bin]] = 0x0628 + 8 * bin;
    }
    ASSERT_EQ(expected["STAT_TX_PACKET_SMALL"], 0x0588u);
    ASSERT_EQ(expected["STAT_RX_PACKET_SMALL"], 0x0690u);
    std::set<uint32_t> offsets;
    for (size_t i = 0; i < pg203::kCounterCount; ++i) {
        const pg203::CounterRegister& c = pg203::kCounters[i];
        EXPECT_EQ(static_cast<size_t>(c.counter), i) << c.name << ": enumerator and row out of step";
        const auto found = expected.find(c.name);
        ASSERT_NE(found, expected.end()) << c.name << " is not a PG203 counter, or listed twice";
        EXPECT_EQ(c.lsb, found->second) << c.name;
        EXPECT_TRUE(offsets.insert(c.lsb).second) << c.name << " shares its offset";
        expected.erase(found);
    }
    EXPECT_TRUE(expected.empty()) << expected.begin()->first << " missing from the counters";
    EXPECT_EQ(pg203::kCounterSaturated, 0xFFFFFFFFFFFFull) << "48-bit counters";
}

}  // namespace

}  // namespace cmac_registers_test
