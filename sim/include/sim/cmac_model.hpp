// A register-level model of one port of the UltraScale+ Integrated 100G Ethernet Subsystem
// (CMAC), written from AMD PG203 v3.1 ("Register Space", "Status and Statistics", the port's
// start-up): its AXI4-Lite space of 0x2000 bytes as a design maps it.
//   Configuration: GT_RESET_REG, RESET_REG, SWITCH_CORE_MODE_REG, CONFIGURATION_TX_REG1 (ctl_tx_*),
//   CONFIGURATION_RX_REG1 (ctl_rx_*), GT_LOOPBACK_REG, the RS-FEC enables: each reads back what was
//   written (the defined bits of the registers whose fields PG203 lists); CORE_MODE_REG reads 1
//   (CAUI4, the U200's 4 x 25G lanes) and CORE_VERSION_REG 0x0301 (v3.1).
//   Link: the receive side gets a signal from the line (a cable loop or a link partner, on by
//   default) or, with ctl_gt_loopback (where the design connects it), from its own transmitter
//   (near-end PMA loopback); GT_LOOPBACK_REG reads back either way. From
//   the moment ctl_rx_enable is set with a signal and no reset held, every PCS lane gets block
//   lock and alignment-marker sync after `lock_time`, then stat_rx_aligned and stat_rx_status
//   after `align_time`. Until aligned, stat_rx_local_fault (and internal_local_fault) are set.
//   A remote fault shows once aligned when the far end sends RFI (its own ctl_tx_send_rfi in
//   GT loopback, or set_partner_sends_rfi); a received local fault when it sends LFI. In GT
//   loopback the RS-FEC must be on in both directions or off in both, else no lane locks.
//   RS-FEC status (STAT_RSFEC_STATUS_REG): with ctl_rx_rsfec_enable and aligned, am_lock0..3 and
//   lane_alignment_status set.
//   Status registers are clear-on-read: latched-low bits (stat_rx_status, stat_rx_aligned, block
//   lock, lane sync) read 0 if they were 0 at any time since the last read; latched-high bits
//   (the faults) read 1 if they were 1 at any time since then.
//   Statistics: frames the MAC passes are counted (pass_tx_frame, pass_rx_frame: size with FCS)
//   in internal counters (totals, good, bytes, the size bins, bad FCS, undersize/fragment,
//   oversize/toolong/jabber against the default 64 and 9600 byte limits, PG203's DRP defaults);
//   a write of TICK_REG with bit 0 set copies them to the readable registers and restarts them
//   from zero, and STAT_CYCLE_COUNT latches the core clock cycles (322.265625 MHz) since the
//   last tick. Reads between ticks return the latched values. Counters saturate at 2^48 - 1.
//   A side the port is not built with (a Simplex TX port has no receive side) reads all ones in
//   its status and counters.
// Faults (set_fault; in a tool run, test only, PDT_SIM_FAULT=cmac_never_aligns etc.): NeverAligns (every lane locks, no alignment-marker sync, never aligned),
// FcsErrors (every received frame fails its FCS), LyingStatistics (each frame passed is counted
// with a 64-byte frame that never passed).
// Not modelled: auto-negotiation and link training, flow control, the OTN interface, test
// patterns, BIP and framing errors, the RS-FEC codeword counters (read 0), the DRP window.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "sim/sim_device.hpp"

namespace sim {

class CmacModel : public RegisterBlock {
public:
    static constexpr uint64_t kSize = 0x2000;
    static constexpr uint32_t kCoreVersion = 0x0301;  // CORE_VERSION_REG: major 3, minor 1
    static constexpr uint32_t kCoreModeCaui4 = 1;     // CORE_MODE_REG
    static constexpr double kCoreClockHz = 322265625.0;
    static constexpr unsigned kPcsLanes = 20;

    enum class Fault { None, NeverAligns, FcsErrors, LyingStatistics };

    using Clock = std::function<double()>;  // seconds, monotonic
    struct Config {
        bool tx = true;  // the CMAC operation: Duplex (both), Simplex TX or Simplex RX
        bool rx = true;
        bool rs_fec = false;  // built with the IEEE 802.3bj RS-FEC
        bool gt_loopback = true;  // the design connects ctl_gt_loopback to the transceivers
        std::chrono::microseconds lock_time{1000};   // ctl_rx_enable with a signal -> lanes locked and synced
        std::chrono::microseconds align_time{2000};  // ctl_rx_enable with a signal -> stat_rx_aligned
        Clock clock;  // steady_clock by default
    };

    CmacModel() : CmacModel(Config{}) {}
    explicit CmacModel(Config config);

    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;  // the core's reset: registers to their defaults, counters cleared

    // A frame of `size` bytes (FCS included) the transmit side sends, and one the receive side
    // gets from the line. Counted when the side is built and enabled (ctl_tx_enable; ctl_rx_enable
    // and aligned): true when it was.
    bool pass_tx_frame(uint64_t size, bool fcs_ok = true);
    bool pass_rx_frame(uint64_t size, bool fcs_ok = true);

    void set_fault(Fault fault);
    void set_link_partner(bool present);      // a signal on the line (default true)
    void set_partner_sends_rfi(bool rfi);     // the link partner's remote fault indication
    void set_partner_sends_lfi(bool lfi);     // the link partner's local fault indication
    bool rx_aligned();                        // the present state, no register latched

private:
    struct RxState {
        bool locked = false;   // block lock and lane sync on every lane
        bool synced = false;
        bool aligned = false;
    };
    double now() const;
    uint32_t reg(uint32_t offset) const;
    bool rx_conditions_locked() const;
    void update_locked();
    RxState rx_state_locked() const;
    uint32_t status_present_locked(uint32_t offset) const;
    uint32_t read_status_locked(uint32_t offset);
    uint32_t read_locked(uint32_t offset);
    void write_locked(uint32_t offset, uint32_t value);
    void count(uint32_t lsb, uint64_t amount = 1);
    void count_tx_locked(uint64_t size, bool fcs_ok);
    void count_rx_locked(uint64_t size, bool fcs_ok);
    void tick_locked();

    std::mutex m_mutex;
    Config m_config;
    Fault m_fault = Fault::None;
    bool m_link_partner = true;
    bool m_partner_rfi = false;
    bool m_partner_lfi = false;
    std::map<uint32_t, uint32_t> m_regs;           // configuration registers as written
    std::optional<double> m_rx_since;              // when the receive side last began to lock
    std::map<uint32_t, uint32_t> m_low_since_read;   // latched-low bits seen 0, by status register
    std::map<uint32_t, uint32_t> m_high_since_read;  // latched-high bits seen 1, by status register
    std::map<uint32_t, uint64_t> m_live;           // internal counters, by the LSB offset
    std::map<uint32_t, uint64_t> m_latched;        // what the last tick copied
    double m_last_tick = 0;
};

// The fault's name in PDT_SIM_FAULT (xdma_model.hpp, test only): "cmac_never_aligns",
// "cmac_fcs_errors", "cmac_lying_statistics"; "none" for Fault::None.
const char* cmac_fault_name(CmacModel::Fault fault);
// The fault named so; nullopt for any other name (and for "none").
std::optional<CmacModel::Fault> parse_cmac_fault_name(const std::string& name);

}  // namespace sim
