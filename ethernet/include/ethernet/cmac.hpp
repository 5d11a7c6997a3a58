// The driver of one port of the UltraScale+ Integrated 100G Ethernet Subsystem (CMAC, AMD
// PG203), over the AXI4-Lite window a design maps for it (vfio::RegisterWindow, as the sensor
// blocks and the flash reach theirs). It reads the port's status, reads and sets its
// configuration (each set read back), and latches and reads its statistics counters. Register
// and field names are PG203's (ethernet/cmac_registers.hpp).
//
// Status: the status registers are clear-on-read with latched bits (PG203: LH events stay 1 and
// LL locks stay 0 until read), so each is read twice: the first read is what latched since the
// last read, the second the present state, from which the flags are decoded.
// Statistics: a write of TICK_REG (pm_tick) copies every internal counter to its readable
// register and restarts it from zero; the readable registers keep that value until the next
// tick. Each 48-bit counter is read as its LSB word, then its MSB word (bits 47:32 in 15:0).
// Counters and status of a side the port was not built with (a Simplex TX CMAC has no RX) read
// all ones on the hardware: the driver does not read them (they are 0, not implemented).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "ethernet/cmac_registers.hpp"
#include "vfio_access/mmio.hpp"

namespace ethernet {

// What the CMAC was customised with (PG203 IP options), which its registers cannot tell:
// the CMAC operation (Duplex, Simplex TX or Simplex RX), the IEEE 802.3bj RS-FEC, and whether
// the design's GT loopback control is usable (GT_LOOPBACK_REG drives the transceivers'
// near-end PMA loopback).
struct CmacBuild {
    unsigned port = 0;  // the design's port number (its display name: "CMAC port <n>")
    bool tx = true;
    bool rx = true;
    bool rs_fec = false;
    bool gt_loopback = true;
};

// One clear-on-read status register: the first read (what latched) and the second (now).
struct StatusRegister {
    uint32_t latched = 0;
    uint32_t present = 0;
};

struct CmacStatus {
    unsigned core_mode = 0;  // CORE_MODE_REG: 0 CAUI10, 1 CAUI4, 2/3 runtime switchable
    unsigned version_major = 0;
    unsigned version_minor = 0;
    // Raw registers, as fpga_sio shows them (absent side: both 0 and not read).
    StatusRegister stat_tx_status;      // STAT_TX_STATUS_REG
    StatusRegister stat_rx_status;      // STAT_RX_STATUS_REG
    StatusRegister stat_rx_block_lock;  // STAT_RX_BLOCK_LOCK_REG
    StatusRegister stat_rx_lane_sync;   // STAT_RX_LANE_SYNC_REG
    StatusRegister stat_rx_lane_sync_err;       // STAT_RX_LANE_SYNC_ERR_REG
    StatusRegister stat_rx_lane_am_err;         // STAT_RX_LANE_AM_ERR_REG
    StatusRegister stat_rx_lane_am_len_err;     // STAT_RX_LANE_AM_LEN_ERR_REG
    StatusRegister stat_rx_lane_am_repeat_err;  // STAT_RX_LANE_AM_REPEAT_ERR_REG
    StatusRegister stat_rsfec_status;  // STAT_RSFEC_STATUS_REG (plain RO: both reads alike unless it moved)
    // Decoded from the present state.
    bool tx_local_fault = false;       // stat_tx_local_fault
    bool rx_status = false;            // stat_rx_status
    bool rx_aligned = false;           // stat_rx_aligned
    bool rx_hi_ber = false;            // stat_rx_hi_ber
    bool rx_local_fault = false;       // stat_rx_local_fault
    bool rx_remote_fault = false;      // stat_rx_remote_fault
    uint32_t block_lock_lanes = 0;     // stat_rx_block_lock[19:0], a bit per PCS lane
    uint32_t synced_lanes = 0;         // stat_rx_synced[19:0]
    unsigned rsfec_am_lock = 0;        // stat_rx_rsfec_am_lock0..3 as bits 0..3
    bool rsfec_lane_alignment = false;  // stat_rx_rsfec_lane_alignment_status
    bool rsfec_hi_ser = false;          // stat_rx_rsfec_hi_ser
};

// The configuration fields the driver reads and sets, by PG203's names.
struct CmacConfig {
    bool ctl_tx_enable = false;
    bool ctl_tx_send_lfi = false;
    bool ctl_tx_send_rfi = false;
    bool ctl_tx_send_idle = false;
    bool ctl_tx_test_pattern = false;
    bool ctl_rx_enable = false;
    bool ctl_rx_force_resync = false;
    bool ctl_rx_test_pattern = false;
    bool ctl_rx_rsfec_enable = false;
    bool ctl_tx_rsfec_enable = false;
    bool ctl_rx_rsfec_enable_correction = false;
    bool ctl_rx_rsfec_enable_indication = false;
    bool ctl_gt_loopback = false;
};

// A change of configuration: each field given is written, then read back.
struct CmacConfigChange {
    std::optional<bool> ctl_tx_enable;
    std::optional<bool> ctl_tx_send_lfi;
    std::optional<bool> ctl_tx_send_rfi;
    std::optional<bool> ctl_tx_send_idle;
    std::optional<bool> ctl_tx_test_pattern;
    std::optional<bool> ctl_rx_enable;
    std::optional<bool> ctl_rx_force_resync;
    std::optional<bool> ctl_rx_test_pattern;
    std::optional<bool> ctl_rx_rsfec_enable;
    std::optional<bool> ctl_tx_rsfec_enable;
    std::optional<bool> ctl_rx_rsfec_enable_correction;
    std::optional<bool> ctl_rx_rsfec_enable_indication;
    std::optional<bool> ctl_gt_loopback;
};

// The counters latched by one tick, by PG203's names (pg203::Counter).
struct CmacStatistics {
    std::array<uint64_t, pg203::kCounterCount> values{};
    std::array<bool, pg203::kCounterCount> implemented{};  // false: the side is absent, not read
    uint64_t operator[](pg203::Counter counter) const { return values[static_cast<unsigned>(counter)]; }
    bool saturated(pg203::Counter counter) const { return (*this)[counter] == pg203::kCounterSaturated; }
};

class Cmac {
public:
    // `location` names the window in errors ("bar 0 offset 0x10000").
    Cmac(vfio::RegisterWindow window, CmacBuild build, std::string location);

    const CmacBuild& build() const { return m_build; }
    const std::string& location() const { return m_location; }

    // CORE_VERSION_REG and CORE_MODE_REG, then every status register of the sides built. EIO
    // when CORE_VERSION_REG reads all ones (no CMAC answers there).
    pdt::Result<CmacStatus> read_status() const;
    pdt::Result<CmacConfig> read_config() const;
    // Writes each field given (read-modify-write of its register), then reads every one back;
    // a field that does not read back as written fails naming its register and field. A field
    // of a side or option the port was not built with is a usage error.
    pdt::Result<void> configure(const CmacConfigChange& change) const;
    // Resets the port as PG203's reset inputs do: ctl_gt_reset_all in GT_RESET_REG and
    // usr_rx_serdes_reset, usr_rx_reset and usr_tx_reset in RESET_REG set, held 100 us (PG203 gives
    // no minimum), then cleared. The configuration registers keep what was written.
    void reset_port() const;
    // One 32-bit register of the port's AXI4-Lite space as it reads (pg203::kRegisters names
    // them), for tools that show registers by name. A status register read here is cleared.
    uint32_t read_register(uint32_t offset) const;

    // Polls STAT_RX_STATUS_REG until stat_rx_aligned reads 1; ETIMEDOUT after `timeout`, naming
    // what is missing (no block lock on lanes ..., lanes not synced, a local or remote fault).
    pdt::Result<CmacStatus> wait_aligned(std::chrono::milliseconds timeout) const;

    // Writes TICK_REG: the counters latch for read_statistics().
    void tick() const;
    // Reads the counters latched by the last tick (LSB then MSB word each).
    pdt::Result<CmacStatistics> read_statistics() const;
    // tick() then read_statistics().
    pdt::Result<CmacStatistics> snapshot_statistics() const;

private:
    std::string where(uint32_t offset) const;
    bool counter_implemented(const pg203::CounterRegister& counter) const;

    vfio::RegisterWindow m_window;
    CmacBuild m_build;
    std::string m_location;
};

}  // namespace ethernet
