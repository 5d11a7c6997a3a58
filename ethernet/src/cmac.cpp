#include "ethernet/cmac.hpp"

#include <thread>

#include "base/format.hpp"
#include "base/spellings.hpp"

namespace ethernet {
namespace {

using pg203::Field;

// What a configuration field needs the port to be built with.
enum class CmacNeeds { Tx, Rx, RsFec, GtLoopback };

// One configuration field the driver reads and sets: its register, its PG203 name and place.
struct CmacConfigField {
    const char* name;
    const char* register_name;
    uint32_t offset;
    Field field;
    CmacNeeds needs;
    bool CmacConfig::*value;
    std::optional<bool> CmacConfigChange::*change;
};

const CmacConfigField kCmacConfigFields[] = {
    {"ctl_tx_enable", "CONFIGURATION_TX_REG1", pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_enable, CmacNeeds::Tx,
     &CmacConfig::ctl_tx_enable, &CmacConfigChange::ctl_tx_enable},
    {"ctl_tx_send_lfi", "CONFIGURATION_TX_REG1", pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_send_lfi, CmacNeeds::Tx,
     &CmacConfig::ctl_tx_send_lfi, &CmacConfigChange::ctl_tx_send_lfi},
    {"ctl_tx_send_rfi", "CONFIGURATION_TX_REG1", pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_send_rfi, CmacNeeds::Tx,
     &CmacConfig::ctl_tx_send_rfi, &CmacConfigChange::ctl_tx_send_rfi},
    {"ctl_tx_send_idle", "CONFIGURATION_TX_REG1", pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_send_idle, CmacNeeds::Tx,
     &CmacConfig::ctl_tx_send_idle, &CmacConfigChange::ctl_tx_send_idle},
    {"ctl_tx_test_pattern", "CONFIGURATION_TX_REG1", pg203::CONFIGURATION_TX_REG1, pg203::ctl_tx_test_pattern,
     CmacNeeds::Tx, &CmacConfig::ctl_tx_test_pattern, &CmacConfigChange::ctl_tx_test_pattern},
    {"ctl_rx_enable", "CONFIGURATION_RX_REG1", pg203::CONFIGURATION_RX_REG1, pg203::ctl_rx_enable, CmacNeeds::Rx,
     &CmacConfig::ctl_rx_enable, &CmacConfigChange::ctl_rx_enable},
    {"ctl_rx_force_resync", "CONFIGURATION_RX_REG1", pg203::CONFIGURATION_RX_REG1, pg203::ctl_rx_force_resync,
     CmacNeeds::Rx, &CmacConfig::ctl_rx_force_resync, &CmacConfigChange::ctl_rx_force_resync},
    {"ctl_rx_test_pattern", "CONFIGURATION_RX_REG1", pg203::CONFIGURATION_RX_REG1, pg203::ctl_rx_test_pattern,
     CmacNeeds::Rx, &CmacConfig::ctl_rx_test_pattern, &CmacConfigChange::ctl_rx_test_pattern},
    {"ctl_rx_rsfec_enable", "RSFEC_CONFIG_ENABLE", pg203::RSFEC_CONFIG_ENABLE, pg203::ctl_rx_rsfec_enable,
     CmacNeeds::RsFec, &CmacConfig::ctl_rx_rsfec_enable, &CmacConfigChange::ctl_rx_rsfec_enable},
    {"ctl_tx_rsfec_enable", "RSFEC_CONFIG_ENABLE", pg203::RSFEC_CONFIG_ENABLE, pg203::ctl_tx_rsfec_enable,
     CmacNeeds::RsFec, &CmacConfig::ctl_tx_rsfec_enable, &CmacConfigChange::ctl_tx_rsfec_enable},
    {"ctl_rx_rsfec_enable_correction", "RSFEC_CONFIG_INDICATION_CORRECTION", pg203::RSFEC_CONFIG_INDICATION_CORRECTION,
     pg203::ctl_rx_rsfec_enable_correction, CmacNeeds::RsFec, &CmacConfig::ctl_rx_rsfec_enable_correction,
     &CmacConfigChange::ctl_rx_rsfec_enable_correction},
    {"ctl_rx_rsfec_enable_indication", "RSFEC_CONFIG_INDICATION_CORRECTION", pg203::RSFEC_CONFIG_INDICATION_CORRECTION,
     pg203::ctl_rx_rsfec_enable_indication, CmacNeeds::RsFec, &CmacConfig::ctl_rx_rsfec_enable_indication,
     &CmacConfigChange::ctl_rx_rsfec_enable_indication},
    {"ctl_gt_loopback", "GT_LOOPBACK_REG", pg203::GT_LOOPBACK_REG, pg203::ctl_gt_loopback, CmacNeeds::GtLoopback,
     &CmacConfig::ctl_gt_loopback, &CmacConfigChange::ctl_gt_loopback},
};

bool cmac_built_with(const CmacBuild& build, CmacNeeds needs) {
    switch (needs) {
    case CmacNeeds::Tx: return build.tx;
    case CmacNeeds::Rx: return build.rx;
    case CmacNeeds::RsFec: return build.rs_fec;
    case CmacNeeds::GtLoopback: return build.gt_loopback;
    }
    return false;
}

// What a field needs of the build, as an error names it (base/spellings.hpp).
constexpr pdt::Spelling<CmacNeeds> kCmacNeedsTexts[] = {
    {CmacNeeds::Tx, "a transmit side (the CMAC is built Simplex RX)"},
    {CmacNeeds::Rx, "a receive side (the CMAC is built Simplex TX)"},
    {CmacNeeds::RsFec, "the RS-FEC option (the CMAC is built without it)"},
    {CmacNeeds::GtLoopback, "the GT loopback control (the design does not connect it)"}};

const char* cmac_needs_text(CmacNeeds needs) { return pdt::spelling(needs, kCmacNeedsTexts); }

StatusRegister read_twice(const vfio::RegisterWindow& window, uint32_t offset) {
    StatusRegister reg;
    reg.latched = window.read32(offset);
    reg.present = window.read32(offset);
    return reg;
}

// The lanes of a 20-bit lane mask that are 0, as "0-3, 7".
std::string cmac_missing_lanes(uint32_t lanes) {
    std::string text;
    for (unsigned lane = 0; lane < pg203::kPcsLanes; ++lane) {
        if (lanes & (1u << lane))
            continue;
        unsigned last = lane;
        while (last + 1 < pg203::kPcsLanes && !(lanes & (1u << (last + 1))))
            ++last;
        text += (text.empty() ? "" : ", ") + std::to_string(lane) + (last > lane ? "-" + std::to_string(last) : "");
        lane = last;
    }
    return text;
}

// Why a port is not aligned, from its present status.
std::string cmac_why_not_aligned(const CmacStatus& s) {
    const uint32_t all = pg203::stat_rx_block_lock.mask();
    if (s.block_lock_lanes != all)
        return "no block lock on PCS lanes " + cmac_missing_lanes(s.block_lock_lanes) +
               " (no signal: check the cable or loop, or set ctl_gt_loopback)";
    if (s.synced_lanes != all)
        return "block lock on every lane, but the alignment markers of PCS lanes " + cmac_missing_lanes(s.synced_lanes) +
               " are not synced";
    if (s.rx_local_fault)
        return "stat_rx_local_fault is set";
    return "every lane locked and synced, yet stat_rx_aligned stays 0";
}

}  // namespace

Cmac::Cmac(vfio::RegisterWindow window, CmacBuild build, std::string location)
    : m_window(std::move(window)), m_build(build), m_location(std::move(location)) {}

std::string Cmac::where(uint32_t offset) const {
    return pdt::format("CMAC port %u at %s + %s", m_build.port, m_location.c_str(), pdt::hex(offset).c_str());
}

pdt::Result<CmacStatus> Cmac::read_status() const {
    CmacStatus s;
    const uint32_t version = m_window.read32(pg203::CORE_VERSION_REG);
    if (version == 0xffffffffu)
        return pdt::make_error("read CMAC CORE_VERSION_REG", where(pg203::CORE_VERSION_REG), EIO,
                               "reads all ones: no CMAC answers there, or the device is gone");
    s.version_major = pg203::core_version_major.get(version);
    s.version_minor = pg203::core_version_minor.get(version);
    s.core_mode = pg203::core_mode.get(m_window.read32(pg203::CORE_MODE_REG));
    if (m_build.tx) {
        s.stat_tx_status = read_twice(m_window, pg203::STAT_TX_STATUS_REG);
        s.tx_local_fault = pg203::stat_tx_local_fault.get(s.stat_tx_status.present);
    }
    if (m_build.rx) {
        s.stat_rx_status = read_twice(m_window, pg203::STAT_RX_STATUS_REG);
        s.stat_rx_block_lock = read_twice(m_window, pg203::STAT_RX_BLOCK_LOCK_REG);
        s.stat_rx_lane_sync = read_twice(m_window, pg203::STAT_RX_LANE_SYNC_REG);
        s.stat_rx_lane_sync_err = read_twice(m_window, pg203::STAT_RX_LANE_SYNC_ERR_REG);
        s.stat_rx_lane_am_err = read_twice(m_window, pg203::STAT_RX_LANE_AM_ERR_REG);
        s.stat_rx_lane_am_len_err = read_twice(m_window, pg203::STAT_RX_LANE_AM_LEN_ERR_REG);
        s.stat_rx_lane_am_repeat_err = read_twice(m_window, pg203::STAT_RX_LANE_AM_REPEAT_ERR_REG);
        const uint32_t rx = s.stat_rx_status.present;
        s.rx_status = pg203::stat_rx_status.get(rx);
        s.rx_aligned = pg203::stat_rx_aligned.get(rx);
        s.rx_hi_ber = pg203::stat_rx_hi_ber.get(rx);
        s.rx_local_fault = pg203::stat_rx_local_fault.get(rx);
        s.rx_remote_fault = pg203::stat_rx_remote_fault.get(rx);
        s.block_lock_lanes = pg203::stat_rx_block_lock.get(s.stat_rx_block_lock.present);
        s.synced_lanes = pg203::stat_rx_synced.get(s.stat_rx_lane_sync.present);
    }
    if (m_build.rx && m_build.rs_fec) {
        s.stat_rsfec_status = read_twice(m_window, pg203::STAT_RSFEC_STATUS_REG);
        const uint32_t fec = s.stat_rsfec_status.present;
        s.rsfec_am_lock = pg203::stat_rx_rsfec_am_lock0.get(fec) | pg203::stat_rx_rsfec_am_lock1.get(fec) << 1 |
                          pg203::stat_rx_rsfec_am_lock2.get(fec) << 2 | pg203::stat_rx_rsfec_am_lock3.get(fec) << 3;
        s.rsfec_lane_alignment = pg203::stat_rx_rsfec_lane_alignment_status.get(fec);
        s.rsfec_hi_ser = pg203::stat_rx_rsfec_hi_ser.get(fec);
    }
    return s;
}

pdt::Result<CmacConfig> Cmac::read_config() const {
    CmacConfig config;
    for (const CmacConfigField& f : kCmacConfigFields)
        if (cmac_built_with(m_build, f.needs))
            config.*f.value = f.field.get(m_window.read32(f.offset)) != 0;
    return config;
}

pdt::Result<void> Cmac::configure(const CmacConfigChange& change) const {
    for (const CmacConfigField& f : kCmacConfigFields) {
        if (!(change.*f.change))
            continue;
        if (!cmac_built_with(m_build, f.needs))
            return pdt::usage_error(std::string("set CMAC ") + f.register_name + "." + f.name, where(f.offset),
                                    std::string("the field needs ") + cmac_needs_text(f.needs));
        const uint32_t before = m_window.read32(f.offset);
        m_window.write32(f.offset, f.field.put(before, *(change.*f.change) ? 1 : 0));
    }
    for (const CmacConfigField& f : kCmacConfigFields) {
        if (!(change.*f.change))
            continue;
        const unsigned wanted = *(change.*f.change) ? 1 : 0;
        const uint32_t reg = m_window.read32(f.offset);
        if (f.field.get(reg) != wanted)
            return pdt::make_error(std::string("set CMAC ") + f.register_name + "." + f.name, where(f.offset), EIO,
                                   pdt::format("wrote %u, %s reads back 0x%08x, %s = %u", wanted, f.register_name, reg,
                                               f.name, f.field.get(reg)));
    }
    return {};
}

pdt::Result<CmacStatus> Cmac::wait_aligned(std::chrono::milliseconds timeout) const {
    if (!m_build.rx)
        return pdt::usage_error("wait for CMAC alignment", where(pg203::STAT_RX_STATUS_REG),
                                "the CMAC is built Simplex TX: it has no receive side to align");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const uint32_t rx = m_window.read32(pg203::STAT_RX_STATUS_REG);
        if (rx != 0xffffffffu && pg203::stat_rx_aligned.get(rx))
            return read_status();
        if (std::chrono::steady_clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const CmacStatus status = PDT_TRY(read_status());
    if (status.rx_aligned)
        return status;
    return pdt::make_error("wait for CMAC stat_rx_aligned", where(pg203::STAT_RX_STATUS_REG), ETIMEDOUT,
                           pdt::format("not aligned after %lld ms: ", static_cast<long long>(timeout.count())) +
                               cmac_why_not_aligned(status));
}

void Cmac::reset_port() const {
    m_window.write32(pg203::GT_RESET_REG, pg203::ctl_gt_reset_all.mask());
    m_window.write32(pg203::RESET_REG,
                     pg203::usr_rx_serdes_reset.mask() | pg203::usr_rx_reset.mask() | pg203::usr_tx_reset.mask());
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    m_window.write32(pg203::GT_RESET_REG, 0);
    m_window.write32(pg203::RESET_REG, 0);
}

uint32_t Cmac::read_register(uint32_t offset) const { return m_window.read32(offset); }

void Cmac::tick() const { m_window.write32(pg203::TICK_REG, pg203::tick_reg.mask()); }

bool Cmac::counter_implemented(const pg203::CounterRegister& counter) const {
    const std::string name = counter.name;
    const auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
    if (starts("STAT_RX_RSFEC_"))
        return m_build.rx && m_build.rs_fec;
    if (starts("STAT_OTN_TX_"))
        return false;  // the OTN interface: no design of the toolkit builds it
    if (starts("STAT_TX_"))
        return m_build.tx;
    if (starts("STAT_RX_"))
        return m_build.rx;
    return true;  // STAT_CYCLE_COUNT
}

pdt::Result<CmacStatistics> Cmac::read_statistics() const {
    CmacStatistics stats;
    for (size_t i = 0; i < pg203::kCounterCount; ++i) {
        const pg203::CounterRegister& counter = pg203::kCounters[i];
        if (!counter_implemented(counter))
            continue;
        const uint32_t lsb = m_window.read32(counter.lsb);
        const uint32_t msb = m_window.read32(counter.lsb + 4);
        if (lsb == 0xffffffffu && msb == 0xffffffffu)
            return pdt::make_error(std::string("read CMAC ") + counter.name, where(counter.lsb), EIO,
                                   "both words read all ones (a 48-bit counter's MSB word has bits 31:16 zero): "
                                   "the counter is not built, or the device is gone");
        stats.values[i] = (static_cast<uint64_t>(msb & pg203::kCounterMsbMask) << 32) | lsb;
        stats.implemented[i] = true;
    }
    return stats;
}

pdt::Result<CmacStatistics> Cmac::snapshot_statistics() const {
    tick();
    return read_statistics();
}

}  // namespace ethernet
