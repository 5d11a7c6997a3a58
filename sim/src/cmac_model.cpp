#include "sim/cmac_model.hpp"

#include <algorithm>

#include "base/spellings.hpp"
#include "model_support.hpp"

namespace sim {

// PG203 Register Space: the offsets and fields the model answers, written from the document.
namespace cmac_pg203 {
constexpr uint32_t GT_RESET_REG = 0x0000;
constexpr uint32_t RESET_REG = 0x0004;
constexpr uint32_t CONFIGURATION_TX_REG1 = 0x000C;
constexpr uint32_t CONFIGURATION_RX_REG1 = 0x0014;
constexpr uint32_t CORE_MODE_REG = 0x0020;
constexpr uint32_t CORE_VERSION_REG = 0x0024;
constexpr uint32_t GT_LOOPBACK_REG = 0x0090;
constexpr uint32_t RSFEC_CONFIG_INDICATION_CORRECTION = 0x1000;
constexpr uint32_t RSFEC_CONFIG_ENABLE = 0x107C;
constexpr uint32_t STAT_TX_STATUS_REG = 0x0200;
constexpr uint32_t STAT_RX_STATUS_REG = 0x0204;
constexpr uint32_t STAT_RX_BLOCK_LOCK_REG = 0x020C;
constexpr uint32_t STAT_RX_LANE_SYNC_REG = 0x0210;
constexpr uint32_t STAT_RX_BIP_OVERRIDE_REG = 0x0238;
constexpr uint32_t TICK_REG = 0x02B0;
constexpr uint32_t STAT_RSFEC_STATUS_REG = 0x1004;
// The counters: 48 bits as LSB and MSB words, the first at STAT_CYCLE_COUNT, the last of the
// MAC's at STAT_OTN_TX_BAD_CODE; the RS-FEC ones between STAT_RSFEC_STATUS_REG and 0x1044.
constexpr uint32_t STAT_CYCLE_COUNT = 0x02B8;
constexpr uint32_t kCountersEnd = 0x0758;
constexpr uint32_t kRsfecCountersBegin = 0x1008;
constexpr uint32_t kRsfecCountersEnd = 0x1044;
constexpr uint32_t STAT_RSFEC_LANE_MAPPING_REG = 0x1018;
// Counter LSB offsets: the transmit block starts at STAT_TX_TOTAL_PACKETS, the receive block at
// STAT_RX_TOTAL_PACKETS, each with the same order of totals and size bins.
constexpr uint32_t STAT_TX_TOTAL_PACKETS = 0x0500;
constexpr uint32_t STAT_RX_TOTAL_PACKETS = 0x0608;
constexpr uint32_t kTotalGoodPackets = 0x08;  // from the block's start
constexpr uint32_t kTotalBytes = 0x10;
constexpr uint32_t kTotalGoodBytes = 0x18;
constexpr uint32_t kPacket64Bytes = 0x20;  // then 65_127 ... 8192_9215, LARGE, SMALL, 8 apart
constexpr uint32_t STAT_TX_BAD_FCS = 0x05B8;
constexpr uint32_t STAT_TX_FRAME_ERROR = 0x0458;
constexpr uint32_t STAT_OTN_TX_JABBER = 0x0718;
constexpr uint32_t STAT_RX_UNDERSIZE = 0x0698;
constexpr uint32_t STAT_RX_FRAGMENT = 0x06A0;
constexpr uint32_t STAT_RX_OVERSIZE = 0x06A8;
constexpr uint32_t STAT_RX_TOOLONG = 0x06B0;
constexpr uint32_t STAT_RX_JABBER = 0x06B8;
constexpr uint32_t STAT_RX_BAD_FCS = 0x06C0;
constexpr uint32_t STAT_RX_PACKET_BAD_FCS = 0x06C8;
// Defined bits of the registers whose fields PG203 lists (others keep all 32 bits).
constexpr uint32_t kTxReg1Bits = 0x00010039;       // ctl_tx_enable, send_lfi/rfi/idle, test_pattern
constexpr uint32_t kRxReg1Bits = 0x00000181;       // ctl_rx_enable, force_resync, test_pattern
constexpr uint32_t kResetRegBits = 0xC00003FF;     // usr_rx_serdes_reset[9:0], usr_rx_reset, usr_tx_reset
// STAT_RX_STATUS_REG: stat_rx_status 0 and stat_rx_aligned 1 latch low; the others latch high.
constexpr uint32_t kRxStatusLatchLow = 0x3;
constexpr uint32_t kAllLanes = (1u << CmacModel::kPcsLanes) - 1;
constexpr uint64_t kSaturated = (1ull << 48) - 1;
// PG203's DRP defaults of ctl_rx_min_packet_len and ctl_rx_max_packet_len.
constexpr uint64_t kRxMinPacketLen = 64;
constexpr uint64_t kRxMaxPacketLen = 9600;

// The size bin of a frame (index from kPacket64Bytes, 8 bytes each): 64, 65-127, 128-255,
// 256-511, 512-1023, 1024-1518, 1519-1522, 1523-1548, 1549-2047, 2048-4095, 4096-8191,
// 8192-9215, larger (LARGE), smaller than 64 (SMALL).
uint32_t size_bin(uint64_t size) {
    constexpr uint64_t kUpper[] = {64, 127, 255, 511, 1023, 1518, 1522, 1548, 2047, 4095, 8191, 9215};
    if (size < 64)
        return 13;
    for (uint32_t bin = 0; bin < 12; ++bin)
        if (size <= kUpper[bin])
            return bin;
    return 12;
}
}  // namespace cmac_pg203


CmacModel::CmacModel(Config config) : m_config(std::move(config)) { reset(); }

double CmacModel::now() const { return m_config.clock ? m_config.clock() : model_support::steady_seconds(); }

uint32_t CmacModel::reg(uint32_t offset) const {
    const auto found = m_regs.find(offset);
    return found == m_regs.end() ? 0 : found->second;
}

void CmacModel::reset() {
    std::lock_guard lock(m_mutex);
    m_regs.clear();
    m_rx_since.reset();
    m_live.clear();
    m_latched.clear();
    m_low_since_read.clear();
    m_high_since_read.clear();
    m_last_tick = now();
    update_locked();
}

// The receive side is trying to lock: built, enabled, a signal, no reset held, and in GT loopback
// the same RS-FEC setting both ways.
bool CmacModel::rx_conditions_locked() const {
    const bool loopback = (reg(cmac_pg203::GT_LOOPBACK_REG) & 1) && m_config.tx && m_config.gt_loopback;
    const bool signal = loopback || m_link_partner;
    const bool in_reset = (reg(cmac_pg203::GT_RESET_REG) & 1) || (reg(cmac_pg203::RESET_REG) & 0x400003FFu);
    const uint32_t fec = reg(cmac_pg203::RSFEC_CONFIG_ENABLE);
    const bool fec_matches = !loopback || !m_config.rs_fec || ((fec & 1) == ((fec >> 1) & 1));
    return m_config.rx && (reg(cmac_pg203::CONFIGURATION_RX_REG1) & 1) && signal && !in_reset && fec_matches;
}

CmacModel::RxState CmacModel::rx_state_locked() const {
    RxState state;
    if (!m_rx_since)
        return state;
    const double elapsed = now() - *m_rx_since;
    state.locked = elapsed >= std::chrono::duration<double>(m_config.lock_time).count();
    state.synced = state.locked && m_fault != Fault::NeverAligns;
    state.aligned = state.synced && elapsed >= std::chrono::duration<double>(m_config.align_time).count();
    return state;
}

uint32_t CmacModel::status_present_locked(uint32_t offset) const {
    const RxState rx = rx_state_locked();
    switch (offset) {
    case cmac_pg203::STAT_TX_STATUS_REG: {
        const bool tx_init = (reg(cmac_pg203::GT_RESET_REG) & 1) || (reg(cmac_pg203::RESET_REG) & 0x80000000u);
        return tx_init ? 1u : 0u;  // stat_tx_local_fault
    }
    case cmac_pg203::STAT_RX_STATUS_REG: {
        const bool loopback = (reg(cmac_pg203::GT_LOOPBACK_REG) & 1) && m_config.tx && m_config.gt_loopback;
        const bool rfi = loopback ? (reg(cmac_pg203::CONFIGURATION_TX_REG1) & 0x10) != 0 : m_partner_rfi;
        const bool lfi = loopback ? (reg(cmac_pg203::CONFIGURATION_TX_REG1) & 0x08) != 0 : m_partner_lfi;
        uint32_t value = 0;
        if (rx.aligned)
            value |= 0x1 | 0x2;  // stat_rx_status, stat_rx_aligned
        if (rx.aligned && rfi)
            value |= 0x20;  // stat_rx_remote_fault
        if (!rx.aligned)
            value |= 0x40 | 0x80;  // stat_rx_local_fault, stat_rx_internal_local_fault
        if (rx.aligned && lfi)
            value |= 0x40 | 0x100;  // stat_rx_local_fault, stat_rx_received_local_fault
        return value;
    }
    case cmac_pg203::STAT_RX_BLOCK_LOCK_REG: return rx.locked ? cmac_pg203::kAllLanes : 0;
    case cmac_pg203::STAT_RX_LANE_SYNC_REG: return rx.synced ? cmac_pg203::kAllLanes : 0;
    }
    return 0;
}

// Seen since the last read: the latched-low bits that were 0, the latched-high bits that were 1.
void CmacModel::update_locked() {
    const bool rx_now = rx_conditions_locked();
    if (rx_now && !m_rx_since)
        m_rx_since = now();
    if (!rx_now)
        m_rx_since.reset();
    for (uint32_t offset : {cmac_pg203::STAT_TX_STATUS_REG, cmac_pg203::STAT_RX_STATUS_REG,
                            cmac_pg203::STAT_RX_BLOCK_LOCK_REG, cmac_pg203::STAT_RX_LANE_SYNC_REG}) {
        const uint32_t present = status_present_locked(offset);
        const uint32_t latch_low = offset == cmac_pg203::STAT_RX_STATUS_REG ? cmac_pg203::kRxStatusLatchLow
                                   : offset == cmac_pg203::STAT_TX_STATUS_REG ? 0u : cmac_pg203::kAllLanes;
        m_low_since_read[offset] |= ~present & latch_low;
        m_high_since_read[offset] |= present & ~latch_low;
    }
}

uint32_t CmacModel::read_status_locked(uint32_t offset) {
    update_locked();
    const uint32_t present = status_present_locked(offset);
    const uint32_t value = (present & ~m_low_since_read[offset]) | m_high_since_read[offset];
    const uint32_t latch_low = offset == cmac_pg203::STAT_RX_STATUS_REG ? cmac_pg203::kRxStatusLatchLow
                               : offset == cmac_pg203::STAT_TX_STATUS_REG ? 0u : cmac_pg203::kAllLanes;
    m_low_since_read[offset] = ~present & latch_low;  // clear on read: the present state stays
    m_high_since_read[offset] = present & ~latch_low;
    return value;
}

uint32_t CmacModel::read_locked(uint32_t offset) {
    const bool rx_status = offset >= cmac_pg203::STAT_RX_STATUS_REG && offset <= cmac_pg203::STAT_RX_BIP_OVERRIDE_REG;
    if ((offset == cmac_pg203::STAT_TX_STATUS_REG && !m_config.tx) || (rx_status && !m_config.rx))
        return 0xffffffffu;  // the side is not built
    switch (offset) {
    case cmac_pg203::CORE_MODE_REG: return kCoreModeCaui4;
    case cmac_pg203::CORE_VERSION_REG: return kCoreVersion;
    case cmac_pg203::TICK_REG: return 0;  // write-only
    case cmac_pg203::STAT_TX_STATUS_REG:
    case cmac_pg203::STAT_RX_STATUS_REG:
    case cmac_pg203::STAT_RX_BLOCK_LOCK_REG:
    case cmac_pg203::STAT_RX_LANE_SYNC_REG: return read_status_locked(offset);
    case cmac_pg203::STAT_RSFEC_STATUS_REG: {
        if (!m_config.rx || !m_config.rs_fec)
            return 0xffffffffu;
        update_locked();
        const bool on = (reg(cmac_pg203::RSFEC_CONFIG_ENABLE) & 1) && rx_state_locked().aligned;
        return on ? 0x4F00u : 0u;  // am_lock0..3 (11:8), lane_alignment_status (14)
    }
    case cmac_pg203::STAT_RSFEC_LANE_MAPPING_REG: return 0xE4;  // lanes in order 0, 1, 2, 3
    }
    const bool mac_counter = offset >= cmac_pg203::STAT_CYCLE_COUNT && offset < cmac_pg203::kCountersEnd;
    const bool fec_counter = offset >= cmac_pg203::kRsfecCountersBegin && offset < cmac_pg203::kRsfecCountersEnd;
    if (fec_counter)
        return m_config.rx && m_config.rs_fec ? 0u : 0xffffffffu;
    if (mac_counter) {
        const uint32_t lsb = offset & ~7u;
        const bool tx_counter = (lsb >= cmac_pg203::STAT_TX_TOTAL_PACKETS && lsb < cmac_pg203::STAT_RX_TOTAL_PACKETS) ||
                                lsb == cmac_pg203::STAT_TX_FRAME_ERROR;
        const bool rx_counter = lsb >= cmac_pg203::STAT_RX_TOTAL_PACKETS ||
                                (lsb > cmac_pg203::STAT_CYCLE_COUNT && lsb < cmac_pg203::STAT_TX_FRAME_ERROR);
        if ((tx_counter && !m_config.tx) || (rx_counter && !m_config.rx) || lsb >= cmac_pg203::STAT_OTN_TX_JABBER)
            return 0xffffffffu;  // a side not built; the OTN counters (no OTN interface)
        const auto found = m_latched.find(lsb);
        const uint64_t value = found == m_latched.end() ? 0 : found->second;
        return (offset & 4) ? static_cast<uint32_t>((value >> 32) & 0xffff) : static_cast<uint32_t>(value);
    }
    return reg(offset);
}

void CmacModel::write_locked(uint32_t offset, uint32_t value) {
    switch (offset) {
    case cmac_pg203::TICK_REG:
        if (value & 1)
            tick_locked();
        return;
    case cmac_pg203::CORE_MODE_REG:
    case cmac_pg203::CORE_VERSION_REG: return;  // read-only
    case cmac_pg203::CONFIGURATION_TX_REG1: value &= cmac_pg203::kTxReg1Bits; break;
    case cmac_pg203::CONFIGURATION_RX_REG1: value &= cmac_pg203::kRxReg1Bits; break;
    case cmac_pg203::RESET_REG: value &= cmac_pg203::kResetRegBits; break;
    case cmac_pg203::GT_RESET_REG:
    case cmac_pg203::GT_LOOPBACK_REG: value &= 1; break;
    case cmac_pg203::RSFEC_CONFIG_ENABLE: value &= m_config.rs_fec ? 0x3u : 0u; break;
    case cmac_pg203::RSFEC_CONFIG_INDICATION_CORRECTION: value &= m_config.rs_fec ? 0x7u : 0u; break;
    default:
        if (offset >= cmac_pg203::STAT_TX_STATUS_REG)
            return;  // the status and statistics space is read-only
    }
    update_locked();
    m_regs[offset] = value;
    update_locked();
}

uint64_t CmacModel::read(uint64_t offset, unsigned width) {
    std::lock_guard lock(m_mutex);
    return model_support::read_by_registers(offset, width,
                                            [&](uint64_t at) { return read_locked(static_cast<uint32_t>(at)); });
}

void CmacModel::write(uint64_t offset, unsigned width, uint64_t value) {
    std::lock_guard lock(m_mutex);
    if (width == 4 && offset % 4 == 0)
        write_locked(static_cast<uint32_t>(offset), static_cast<uint32_t>(value));
}

void CmacModel::count(uint32_t lsb, uint64_t amount) {
    uint64_t& counter = m_live[lsb];
    counter = std::min(cmac_pg203::kSaturated, counter + amount);
}

void CmacModel::tick_locked() {
    const double t = now();
    count(cmac_pg203::STAT_CYCLE_COUNT, static_cast<uint64_t>(std::max(0.0, t - m_last_tick) * kCoreClockHz));
    m_last_tick = t;
    m_latched = m_live;
    m_live.clear();
}

void CmacModel::count_tx_locked(uint64_t size, bool fcs_ok) {
    count(cmac_pg203::STAT_TX_TOTAL_PACKETS);
    count(cmac_pg203::STAT_TX_TOTAL_PACKETS + cmac_pg203::kTotalBytes, size);
    count(cmac_pg203::STAT_TX_TOTAL_PACKETS + cmac_pg203::kPacket64Bytes + 8 * cmac_pg203::size_bin(size));
    if (fcs_ok) {
        count(cmac_pg203::STAT_TX_TOTAL_PACKETS + cmac_pg203::kTotalGoodPackets);
        count(cmac_pg203::STAT_TX_TOTAL_PACKETS + cmac_pg203::kTotalGoodBytes, size);
    } else {
        count(cmac_pg203::STAT_TX_BAD_FCS);
    }
}

void CmacModel::count_rx_locked(uint64_t size, bool fcs_ok) {
    count(cmac_pg203::STAT_RX_TOTAL_PACKETS);
    count(cmac_pg203::STAT_RX_TOTAL_PACKETS + cmac_pg203::kTotalBytes, size);
    count(cmac_pg203::STAT_RX_TOTAL_PACKETS + cmac_pg203::kPacket64Bytes + 8 * cmac_pg203::size_bin(size));
    if (size < cmac_pg203::kRxMinPacketLen) {
        count(fcs_ok ? cmac_pg203::STAT_RX_UNDERSIZE : cmac_pg203::STAT_RX_FRAGMENT);
        return;
    }
    if (size > cmac_pg203::kRxMaxPacketLen) {
        count(cmac_pg203::STAT_RX_TOOLONG);
        count(fcs_ok ? cmac_pg203::STAT_RX_OVERSIZE : cmac_pg203::STAT_RX_JABBER);
        return;
    }
    if (fcs_ok) {
        count(cmac_pg203::STAT_RX_TOTAL_PACKETS + cmac_pg203::kTotalGoodPackets);
        count(cmac_pg203::STAT_RX_TOTAL_PACKETS + cmac_pg203::kTotalGoodBytes, size);
    } else {
        count(cmac_pg203::STAT_RX_BAD_FCS);
        count(cmac_pg203::STAT_RX_PACKET_BAD_FCS);
    }
}

bool CmacModel::pass_tx_frame(uint64_t size, bool fcs_ok) {
    std::lock_guard lock(m_mutex);
    if (!m_config.tx || !(reg(cmac_pg203::CONFIGURATION_TX_REG1) & 1))
        return false;
    count_tx_locked(size, fcs_ok);
    if (m_fault == Fault::LyingStatistics)
        count_tx_locked(64, true);
    return true;
}

bool CmacModel::pass_rx_frame(uint64_t size, bool fcs_ok) {
    std::lock_guard lock(m_mutex);
    update_locked();
    if (!rx_state_locked().aligned || !(reg(cmac_pg203::CONFIGURATION_RX_REG1) & 1))
        return false;
    count_rx_locked(size, fcs_ok && m_fault != Fault::FcsErrors);
    if (m_fault == Fault::LyingStatistics)
        count_rx_locked(64, true);
    return true;
}

void CmacModel::set_fault(Fault fault) {
    std::lock_guard lock(m_mutex);
    m_fault = fault;
}

void CmacModel::set_link_partner(bool present) {
    std::lock_guard lock(m_mutex);
    update_locked();
    m_link_partner = present;
    update_locked();
}

void CmacModel::set_partner_sends_rfi(bool rfi) {
    std::lock_guard lock(m_mutex);
    update_locked();
    m_partner_rfi = rfi;
    update_locked();
}

void CmacModel::set_partner_sends_lfi(bool lfi) {
    std::lock_guard lock(m_mutex);
    update_locked();
    m_partner_lfi = lfi;
    update_locked();
}

bool CmacModel::rx_aligned() {
    std::lock_guard lock(m_mutex);
    update_locked();
    return rx_state_locked().aligned;
}

namespace {

constexpr pdt::Spelling<CmacModel::Fault> kCmacFaultNames[] = {
    {CmacModel::Fault::None, "none"},
    {CmacModel::Fault::NeverAligns, "cmac_never_aligns"},
    {CmacModel::Fault::FcsErrors, "cmac_fcs_errors"},
    {CmacModel::Fault::LyingStatistics, "cmac_lying_statistics"},
};

}  // namespace

const char* cmac_fault_name(CmacModel::Fault fault) { return pdt::spelling(fault, kCmacFaultNames); }

std::optional<CmacModel::Fault> parse_cmac_fault_name(const std::string& name) {
    for (const auto& entry : kCmacFaultNames)
        if (entry.value != CmacModel::Fault::None && name == entry.name)
            return entry.value;
    return std::nullopt;
}

}  // namespace sim
