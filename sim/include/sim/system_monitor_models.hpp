// Register models of the on-die system monitors, written from the documents: the 7-series XADC
// behind the XADC Wizard (UG480, PG091) and the UltraScale SYSMONE1 / UltraScale+ SYSMONE4
// behind the System Management Wizard (UG580, PG185), with the slave SYSMONs of SSI parts.
//
// Each read converts the die as it is now (DieThermal): the temperature follows its curve and
// the DMA load, the supplies droop a few mV with the load, each slave SYSMON sits a degree and a
// half warmer than the one before. The maximum and minimum status registers record what the
// measurement registers returned since reset; the alarms follow the thresholds of the alarm
// registers (UG480 / UG580 "Automatic Alarms"), with the documented hysteresis.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "designs/design.hpp"
#include "sim/die_thermal.hpp"
#include "sim/sim_device.hpp"

namespace sim {

enum class MonitorKind { Xadc, Sysmone1, Sysmone4 };

struct SystemMonitorConfig {
    MonitorKind kind = MonitorKind::Xadc;
    unsigned slaves = 0;            // SYSMON of an SSI part: slave SYSMONs (sysmon_slave_sel 1..3)
    bool on_chip_reference = true;  // the Flag Register's REF bit (UG580: selects the transfer function)
};

class SystemMonitorModel : public RegisterBlock {
public:
    // The wizards' AXI4-Lite core registers (PG091, PG185 register space).
    static constexpr uint64_t SRR = 0x00, SR = 0x04, AOSR = 0x08, CONVSTR = 0x0C, SYSMONRR = 0x10;
    static constexpr uint64_t GIER = 0x5C, IPISR = 0x60, IPIER = 0x68;
    static constexpr uint32_t SRR_RESET = 0xA;  // the value that resets the core (PG091, PG185)
    // DRP addresses (UG480 Tables 3-1 and 3-2, UG580 Table 3-1).
    static constexpr unsigned TEMPERATURE = 0x00, VCCINT = 0x01, VCCAUX = 0x02, VCCBRAM = 0x06;
    static constexpr unsigned MAX_TEMP = 0x20, MIN_TEMP = 0x24, FLAG = 0x3F;
    static constexpr unsigned CONFIG0 = 0x40, CONFIG1 = 0x41, CONFIG2 = 0x42;
    static constexpr unsigned TEMP_UPPER = 0x50, OT_UPPER = 0x53, TEMP_LOWER = 0x54, OT_LOWER = 0x57;
    // Each SYSMON of an SSI part has 0x800 bytes (PG185, sysmon_slave_sel); the XADC has one.
    static constexpr uint64_t kSlaveStride = 0x800;

    SystemMonitorModel(std::shared_ptr<DieThermal> die, SystemMonitorConfig config);

    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;

    // Offset of the DRP registers of SYSMON `instance` (0: the master): 0x200 on the XADC
    // (PG091), 0x400 + 0x800 * instance on a SYSMON (PG185).
    uint64_t drp_base(unsigned instance) const;
    // The 16-bit status register value of `celsius` / `volts` as this primitive converts it.
    uint16_t temperature_code(double celsius) const;
    uint16_t supply_code(double volts) const;

private:
    static constexpr unsigned kChannels = 4;  // Temperature, VCCINT, VCCAUX, VCCBRAM
    struct Monitor {
        std::array<uint16_t, 0x100> control{};  // 40h..FFh as written (status 00h..3Fh computed)
        std::array<uint16_t, kChannels> max{}, min{};
        std::array<bool, kChannels> alarm{};
        bool ot = false;
    };
    struct Conversion {
        std::array<uint16_t, kChannels> code{};  // MSB-justified 16-bit status values
    };

    uint32_t read32_locked(uint64_t offset);
    void write32_locked(uint64_t offset, uint32_t value);
    uint16_t read_drp_locked(unsigned instance, unsigned address);
    Conversion convert_locked(unsigned instance);
    void evaluate_alarms_locked(unsigned instance, const Conversion& now);
    uint16_t flag_locked(unsigned instance) const;
    uint32_t aosr_locked() const;
    void reset_hard_macro_locked();
    void reset_control_locked(Monitor& monitor) const;
    std::array<double, 3> nominal_supplies() const;

    std::shared_ptr<DieThermal> m_die;
    SystemMonitorConfig m_config;
    std::mutex m_mutex;
    std::vector<Monitor> m_monitors;  // [0] the master
    uint32_t m_gier = 0, m_ipisr = 0, m_ipier = 0;
};

// XADC Wizard (PG091) over the XADC of a 7-series part (UG480): supplies 1.0 / 1.8 / 1.0 V.
std::shared_ptr<SystemMonitorModel> make_xadc_block(std::shared_ptr<DieThermal> die);
// System Management Wizard (PG185) over `primitive` (UG580) with `slaves` slave SYSMONs:
// supplies 0.95 / 1.8 / 0.95 V (SYSMONE1, UltraScale) or 0.85 / 1.8 / 0.85 V (SYSMONE4).
std::shared_ptr<SystemMonitorModel> make_sysmon_block(std::shared_ptr<DieThermal> die,
                                                      designs::SysmonPrimitive primitive, unsigned slaves);

}  // namespace sim
