// The register map of the UltraScale+ Integrated 100G Ethernet Subsystem (CMAC), AMD PG203 v3.1,
// chapter "Register Space": the section Configuration Register Space, its table of the
// configuration registers (0x0000-0x00CC, RS-FEC configuration at 0x1000 and 0x107C) and their
// field tables; the section Status and Statistics Register Space, its Status and Statistics
// Register Map (0x0200 up, counters from 0x02B8, the RS-FEC status and counters from 0x1004) and
// the field tables of the status registers. Every name is PG203's register or field name; the
// offsets are from the CMAC's AXI4-Lite base. Cross-checked against the register header Vivado
// 2025.1 generates for the IP (as carried by fpga_sio, which corrects its two typos: the LSB of
// STAT_RX_BIP_ERR_0 is 0x02C0 and the MSB of STAT_RX_PACKET_128_255_BYTES is 0x063C; and
// CONFIGURATION_LT_SEED_REG1 is 0x00C0).
//
// Access types (PG203): the configuration registers are RW; TICK_REG is WO; the status
// registers are clear-on-read, each bit latched high (LH: an event stays 1 until read) or
// latched low (LL: a lost lock or alignment stays 0 until read), so a second read shows the
// present state; the statistics counters are RO, 48 bits as an LSB word (bits 31:0) then an MSB
// word (bits 47:32 in its 15:0), and hold the value latched by the last write of TICK_REG
// (pm_tick), counting again from zero for the next interval; they saturate at all ones.
// STAT_CYCLE_COUNT counts the SerDes clock cycles between two writes of TICK_REG.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ethernet::pg203 {

// Configuration Space.
inline constexpr uint32_t GT_RESET_REG = 0x0000;
inline constexpr uint32_t RESET_REG = 0x0004;
inline constexpr uint32_t SWITCH_CORE_MODE_REG = 0x0008;
inline constexpr uint32_t CONFIGURATION_TX_REG1 = 0x000C;
inline constexpr uint32_t CONFIGURATION_RX_REG1 = 0x0014;
inline constexpr uint32_t CORE_MODE_REG = 0x0020;
inline constexpr uint32_t CORE_VERSION_REG = 0x0024;
inline constexpr uint32_t CONFIGURATION_TX_BIP_OVERRIDE = 0x002C;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_CONTROL_REG1 = 0x0030;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG1 = 0x0034;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG2 = 0x0038;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG3 = 0x003C;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG4 = 0x0040;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_REFRESH_REG5 = 0x0044;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG1 = 0x0048;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG2 = 0x004C;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG3 = 0x0050;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG4 = 0x0054;
inline constexpr uint32_t CONFIGURATION_TX_FLOW_CONTROL_QUANTA_REG5 = 0x0058;
inline constexpr uint32_t CONFIGURATION_TX_OTN_PKT_LEN_REG = 0x005C;
inline constexpr uint32_t CONFIGURATION_TX_OTN_CTL_REG = 0x0060;
inline constexpr uint32_t CONFIGURATION_RX_FLOW_CONTROL_CONTROL_REG1 = 0x0084;
inline constexpr uint32_t CONFIGURATION_RX_FLOW_CONTROL_CONTROL_REG2 = 0x0088;
inline constexpr uint32_t GT_LOOPBACK_REG = 0x0090;
inline constexpr uint32_t CONFIGURATION_AN_CONTROL_REG1 = 0x00A0;
inline constexpr uint32_t CONFIGURATION_AN_CONTROL_REG2 = 0x00A4;
inline constexpr uint32_t CONFIGURATION_AN_ABILITY = 0x00A8;
inline constexpr uint32_t CONFIGURATION_LT_CONTROL_REG1 = 0x00AC;
inline constexpr uint32_t CONFIGURATION_LT_TRAINED_REG = 0x00B0;
inline constexpr uint32_t CONFIGURATION_LT_PRESET_REG = 0x00B4;
inline constexpr uint32_t CONFIGURATION_LT_INIT_REG = 0x00B8;
inline constexpr uint32_t CONFIGURATION_LT_SEED_REG0 = 0x00BC;
inline constexpr uint32_t CONFIGURATION_LT_SEED_REG1 = 0x00C0;
inline constexpr uint32_t CONFIGURATION_LT_COEFFICIENT_REG0 = 0x00C4;
inline constexpr uint32_t CONFIGURATION_LT_COEFFICIENT_REG1 = 0x00C8;
inline constexpr uint32_t USER_REG0 = 0x00CC;
inline constexpr uint32_t RSFEC_CONFIG_INDICATION_CORRECTION = 0x1000;
inline constexpr uint32_t RSFEC_CONFIG_ENABLE = 0x107C;

// Status and Statistics Space: the status registers.
inline constexpr uint32_t STAT_TX_STATUS_REG = 0x0200;
inline constexpr uint32_t STAT_RX_STATUS_REG = 0x0204;
inline constexpr uint32_t STAT_STATUS_REG1 = 0x0208;
inline constexpr uint32_t STAT_RX_BLOCK_LOCK_REG = 0x020C;
inline constexpr uint32_t STAT_RX_LANE_SYNC_REG = 0x0210;
inline constexpr uint32_t STAT_RX_LANE_SYNC_ERR_REG = 0x0214;
inline constexpr uint32_t STAT_RX_LANE_AM_ERR_REG = 0x0218;
inline constexpr uint32_t STAT_RX_LANE_AM_LEN_ERR_REG = 0x021C;
inline constexpr uint32_t STAT_RX_LANE_AM_REPEAT_ERR_REG = 0x0220;
inline constexpr uint32_t STAT_RX_PCSL_DEMUXED = 0x0224;
inline constexpr uint32_t STAT_RX_PCS_LANE_NUM_REG1 = 0x0228;
inline constexpr uint32_t STAT_RX_PCS_LANE_NUM_REG2 = 0x022C;
inline constexpr uint32_t STAT_RX_PCS_LANE_NUM_REG3 = 0x0230;
inline constexpr uint32_t STAT_RX_PCS_LANE_NUM_REG4 = 0x0234;
inline constexpr uint32_t STAT_RX_BIP_OVERRIDE_REG = 0x0238;
inline constexpr uint32_t STAT_TX_OTN_STATUS_REG = 0x023C;
inline constexpr uint32_t STAT_AN_STATUS_REG = 0x0258;
inline constexpr uint32_t STAT_AN_ABILITY_REG = 0x025C;
inline constexpr uint32_t STAT_AN_LINK_CTL_REG_1 = 0x0260;
inline constexpr uint32_t STAT_LT_STATUS_REG1 = 0x0264;
inline constexpr uint32_t STAT_LT_STATUS_REG2 = 0x0268;
inline constexpr uint32_t STAT_LT_STATUS_REG3 = 0x026C;
inline constexpr uint32_t STAT_LT_STATUS_REG4 = 0x0270;
inline constexpr uint32_t STAT_LT_COEFFICIENT0_REG = 0x0274;
inline constexpr uint32_t STAT_LT_COEFFICIENT1_REG = 0x0278;
inline constexpr uint32_t STAT_AN_LINK_CTL_REG_2 = 0x027C;
inline constexpr uint32_t TICK_REG = 0x02B0;
inline constexpr uint32_t STAT_RSFEC_STATUS_REG = 0x1004;
inline constexpr uint32_t STAT_RSFEC_LANE_MAPPING_REG = 0x1018;
inline constexpr uint32_t STAT_TX_OTN_RSFEC_STATUS_REG = 0x1044;

// Every register above with its name, for tools that dump by name and for the map's test.
struct NamedRegister {
    const char* name;
    uint32_t offset;
};
extern const NamedRegister kRegisters[];
extern const size_t kRegisterCount;

// A field of a register: bits [shift + width - 1 : shift].
struct Field {
    uint32_t shift;
    uint32_t width;
    constexpr uint32_t mask() const { return (width >= 32 ? 0xffffffffu : ((1u << width) - 1)) << shift; }
    constexpr uint32_t get(uint32_t reg) const { return (reg & mask()) >> shift; }
    constexpr uint32_t put(uint32_t reg, uint32_t value) const { return (reg & ~mask()) | ((value << shift) & mask()); }
};

// The fields the driver uses, by PG203's signal names.
// GT_RESET_REG
inline constexpr Field ctl_gt_reset_all{0, 1};
// RESET_REG
inline constexpr Field usr_rx_serdes_reset{0, 10};
inline constexpr Field usr_rx_reset{30, 1};
inline constexpr Field usr_tx_reset{31, 1};
// CONFIGURATION_TX_REG1
inline constexpr Field ctl_tx_enable{0, 1};
inline constexpr Field ctl_tx_send_lfi{3, 1};
inline constexpr Field ctl_tx_send_rfi{4, 1};
inline constexpr Field ctl_tx_send_idle{5, 1};
inline constexpr Field ctl_tx_test_pattern{16, 1};
// CONFIGURATION_RX_REG1
inline constexpr Field ctl_rx_enable{0, 1};
inline constexpr Field ctl_rx_force_resync{7, 1};
inline constexpr Field ctl_rx_test_pattern{8, 1};
// CORE_MODE_REG: 0 CAUI10, 1 CAUI4, 2 Runtime Switchable CAUI10, 3 Runtime Switchable CAUI4.
inline constexpr Field core_mode{0, 2};
// CORE_VERSION_REG (v3.1 reads major 3, minor 1)
inline constexpr Field core_version_minor{0, 8};
inline constexpr Field core_version_major{8, 8};
// GT_LOOPBACK_REG: 1 near-end PMA loopback in the transceivers, 0 normal operation.
inline constexpr Field ctl_gt_loopback{0, 1};
// RSFEC_CONFIG_INDICATION_CORRECTION
inline constexpr Field ctl_rx_rsfec_enable_correction{0, 1};
inline constexpr Field ctl_rx_rsfec_enable_indication{1, 1};
inline constexpr Field ctl_rx_rsfec_ieee_error_indication_mode{2, 1};
// RSFEC_CONFIG_ENABLE
inline constexpr Field ctl_rx_rsfec_enable{0, 1};
inline constexpr Field ctl_tx_rsfec_enable{1, 1};
// STAT_TX_STATUS_REG
inline constexpr Field stat_tx_local_fault{0, 1};
// STAT_RX_STATUS_REG
inline constexpr Field stat_rx_status{0, 1};
inline constexpr Field stat_rx_aligned{1, 1};
inline constexpr Field stat_rx_misaligned{2, 1};
inline constexpr Field stat_rx_aligned_err{3, 1};
inline constexpr Field stat_rx_hi_ber{4, 1};
inline constexpr Field stat_rx_remote_fault{5, 1};
inline constexpr Field stat_rx_local_fault{6, 1};
inline constexpr Field stat_rx_internal_local_fault{7, 1};
inline constexpr Field stat_rx_received_local_fault{8, 1};
// STAT_RX_BLOCK_LOCK_REG and STAT_RX_LANE_SYNC_REG: one bit per PCS lane (20 lanes).
inline constexpr Field stat_rx_block_lock{0, 20};
inline constexpr Field stat_rx_synced{0, 20};
inline constexpr unsigned kPcsLanes = 20;
// STAT_RSFEC_STATUS_REG
inline constexpr Field stat_rx_rsfec_hi_ser{2, 1};
inline constexpr Field stat_rx_rsfec_hi_ser_lh{3, 1};
inline constexpr Field stat_rx_rsfec_am_lock0{8, 1};
inline constexpr Field stat_rx_rsfec_am_lock1{9, 1};
inline constexpr Field stat_rx_rsfec_am_lock2{10, 1};
inline constexpr Field stat_rx_rsfec_am_lock3{11, 1};
inline constexpr Field stat_rx_rsfec_lane_alignment_status{14, 1};
// TICK_REG
inline constexpr Field tick_reg{0, 1};

// The counters of each PCS lane: <name>_0 to <name>_19 from a base, 8 bytes apart (STAT_RX_BIP_ERR_0
// from 0x02C0, STAT_RX_FRAMING_ERR_0 from 0x0360). X(name, lsb_offset) for each lane.
#define PDT_PG203_LANE(X, name, base, lane) X(name##_##lane, (base) + 8 * (lane))
#define PDT_PG203_PCS_LANES(X, name, base)                                                                 \
    PDT_PG203_LANE(X, name, base, 0) PDT_PG203_LANE(X, name, base, 1) PDT_PG203_LANE(X, name, base, 2)     \
    PDT_PG203_LANE(X, name, base, 3) PDT_PG203_LANE(X, name, base, 4) PDT_PG203_LANE(X, name, base, 5)     \
    PDT_PG203_LANE(X, name, base, 6) PDT_PG203_LANE(X, name, base, 7) PDT_PG203_LANE(X, name, base, 8)     \
    PDT_PG203_LANE(X, name, base, 9) PDT_PG203_LANE(X, name, base, 10) PDT_PG203_LANE(X, name, base, 11)   \
    PDT_PG203_LANE(X, name, base, 12) PDT_PG203_LANE(X, name, base, 13) PDT_PG203_LANE(X, name, base, 14)  \
    PDT_PG203_LANE(X, name, base, 15) PDT_PG203_LANE(X, name, base, 16) PDT_PG203_LANE(X, name, base, 17)  \
    PDT_PG203_LANE(X, name, base, 18) PDT_PG203_LANE(X, name, base, 19)

// The packet-size histograms: STAT_TX_PACKET_<bin> from 0x0520 and STAT_RX_PACKET_<bin> from 0x0628,
// a counter per bin 8 bytes apart, the bins in PG203's order (64 bytes up to 9215, then LARGE
// and SMALL). X(name, lsb_offset) for each bin of one side (TX or RX) at its base.
#define PDT_PG203_BIN(X, side, base, bin, index) X(STAT_##side##_PACKET_##bin, (base) + 8 * (index))
#define PDT_PG203_PACKET_SIZE_HISTOGRAM(X, side, base)                                                     \
    PDT_PG203_BIN(X, side, base, 64_BYTES, 0) PDT_PG203_BIN(X, side, base, 65_127_BYTES, 1)                \
    PDT_PG203_BIN(X, side, base, 128_255_BYTES, 2) PDT_PG203_BIN(X, side, base, 256_511_BYTES, 3)          \
    PDT_PG203_BIN(X, side, base, 512_1023_BYTES, 4) PDT_PG203_BIN(X, side, base, 1024_1518_BYTES, 5)       \
    PDT_PG203_BIN(X, side, base, 1519_1522_BYTES, 6) PDT_PG203_BIN(X, side, base, 1523_1548_BYTES, 7)      \
    PDT_PG203_BIN(X, side, base, 1549_2047_BYTES, 8) PDT_PG203_BIN(X, side, base, 2048_4095_BYTES, 9)      \
    PDT_PG203_BIN(X, side, base, 4096_8191_BYTES, 10) PDT_PG203_BIN(X, side, base, 8192_9215_BYTES, 11)    \
    PDT_PG203_BIN(X, side, base, LARGE, 12) PDT_PG203_BIN(X, side, base, SMALL, 13)

// The statistics counters (Status and Statistics Space), each by its PG203 name without the
// _LSB/_MSB suffix and the offset of its LSB word; the MSB word follows 4 bytes later.
// X(name, lsb_offset)
#define PDT_PG203_COUNTERS(X)                                                                              \
    X(STAT_CYCLE_COUNT, 0x02B8)                                                                            \
    PDT_PG203_PCS_LANES(X, STAT_RX_BIP_ERR, 0x02C0) PDT_PG203_PCS_LANES(X, STAT_RX_FRAMING_ERR, 0x0360)    \
    X(STAT_RX_BAD_CODE, 0x0418) X(STAT_TX_FRAME_ERROR, 0x0458)                                             \
    X(STAT_TX_TOTAL_PACKETS, 0x0500) X(STAT_TX_TOTAL_GOOD_PACKETS, 0x0508) X(STAT_TX_TOTAL_BYTES, 0x0510)  \
    X(STAT_TX_TOTAL_GOOD_BYTES, 0x0518) PDT_PG203_PACKET_SIZE_HISTOGRAM(X, TX, 0x0520)                     \
    X(STAT_TX_BAD_FCS, 0x05B8) X(STAT_TX_UNICAST, 0x05D0)                                                  \
    X(STAT_TX_MULTICAST, 0x05D8) X(STAT_TX_BROADCAST, 0x05E0) X(STAT_TX_VLAN, 0x05E8)                      \
    X(STAT_TX_PAUSE, 0x05F0) X(STAT_TX_USER_PAUSE, 0x05F8)                                                 \
    X(STAT_RX_TOTAL_PACKETS, 0x0608) X(STAT_RX_TOTAL_GOOD_PACKETS, 0x0610) X(STAT_RX_TOTAL_BYTES, 0x0618)  \
    X(STAT_RX_TOTAL_GOOD_BYTES, 0x0620) PDT_PG203_PACKET_SIZE_HISTOGRAM(X, RX, 0x0628)                     \
    X(STAT_RX_UNDERSIZE, 0x0698) X(STAT_RX_FRAGMENT, 0x06A0)                                               \
    X(STAT_RX_OVERSIZE, 0x06A8) X(STAT_RX_TOOLONG, 0x06B0) X(STAT_RX_JABBER, 0x06B8)                       \
    X(STAT_RX_BAD_FCS, 0x06C0) X(STAT_RX_PACKET_BAD_FCS, 0x06C8) X(STAT_RX_STOMPED_FCS, 0x06D0)            \
    X(STAT_RX_UNICAST, 0x06D8) X(STAT_RX_MULTICAST, 0x06E0) X(STAT_RX_BROADCAST, 0x06E8)                   \
    X(STAT_RX_VLAN, 0x06F0) X(STAT_RX_PAUSE, 0x06F8) X(STAT_RX_USER_PAUSE, 0x0700)                         \
    X(STAT_RX_INRANGEERR, 0x0708) X(STAT_RX_TRUNCATED, 0x0710)                                             \
    X(STAT_OTN_TX_JABBER, 0x0718) X(STAT_OTN_TX_OVERSIZE, 0x0720) X(STAT_OTN_TX_UNDERSIZE, 0x0728)         \
    X(STAT_OTN_TX_TOOLONG, 0x0730) X(STAT_OTN_TX_FRAGMENT, 0x0738) X(STAT_OTN_TX_PACKET_BAD_FCS, 0x0740)   \
    X(STAT_OTN_TX_STOMPED_FCS, 0x0748) X(STAT_OTN_TX_BAD_CODE, 0x0750)                                     \
    X(STAT_RX_RSFEC_CORRECTED_CW_INC, 0x1008) X(STAT_RX_RSFEC_UNCORRECTED_CW_INC, 0x1010)                  \
    X(STAT_RX_RSFEC_ERR_COUNT0_INC, 0x101C) X(STAT_RX_RSFEC_ERR_COUNT1_INC, 0x1024)                        \
    X(STAT_RX_RSFEC_ERR_COUNT2_INC, 0x102C) X(STAT_RX_RSFEC_ERR_COUNT3_INC, 0x1034)                        \
    X(STAT_RX_RSFEC_CW_INC, 0x103C)

// One enumerator per counter, in the table's order.
enum class Counter : unsigned {
#define PDT_PG203_COUNTER_ENUM(name, lsb) name,
    PDT_PG203_COUNTERS(PDT_PG203_COUNTER_ENUM)
#undef PDT_PG203_COUNTER_ENUM
};

struct CounterRegister {
    Counter counter;
    const char* name;
    uint32_t lsb;  // the MSB word is at lsb + 4
};
inline constexpr CounterRegister kCounters[] = {
#define PDT_PG203_COUNTER_ROW(name, lsb) {Counter::name, #name, lsb},
    PDT_PG203_COUNTERS(PDT_PG203_COUNTER_ROW)
#undef PDT_PG203_COUNTER_ROW
};
inline constexpr size_t kCounterCount = sizeof kCounters / sizeof kCounters[0];
// The LSB word's offset of a counter.
constexpr uint32_t counter_lsb(Counter counter) { return kCounters[static_cast<unsigned>(counter)].lsb; }
inline constexpr uint32_t kCounterMsbMask = 0xffff;                 // MSB word: counter bits 47:32 in 15:0
inline constexpr uint64_t kCounterSaturated = (1ull << 48) - 1;     // a saturated counter reads all ones

// The bytes of a CMAC's AXI4-Lite space the designs map (the highest register, RSFEC_CONFIG_ENABLE
// at 0x107C, inside it).
inline constexpr uint64_t kFrameSize = 0x2000;

}  // namespace ethernet::pg203
