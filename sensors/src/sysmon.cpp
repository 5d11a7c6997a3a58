#include "sensors/sysmon.hpp"

#include <cerrno>

#include "base/format.hpp"
#include "system_monitor.hpp"

namespace sensors {
namespace {

// PG185 register space: the SYSMON's DRP registers mirrored 4 bytes per DRP address from 0x400;
// a slave SYSMON's from 0x400 + n * 0x800 (sysmon_slave_sel n).
constexpr uint64_t kDrpBase = 0x400;
// UG580: 10-bit ADC results, MSB-justified in the 16-bit status registers (Table 3-1).
constexpr unsigned kAdcBits = 10;
// The Flag Register's REF bit: 1 when the on-chip reference is used (UG580 Table 3-2).
constexpr unsigned kFlagRef = 9;

// UG580 temperature sensor transfer functions, Temperature (C) = code * gain / 1024 - offset.
detail::TemperatureTransfer transfer(SysmonPrimitive primitive, bool on_chip_reference) {
    if (primitive == SysmonPrimitive::Sysmone1)
        return on_chip_reference ? detail::TemperatureTransfer{501.3743, 273.6777}     // Equation 2-7
                                 : detail::TemperatureTransfer{502.9098, 273.8195};    // Equation 2-5
    return on_chip_reference ? detail::TemperatureTransfer{509.3140064, 280.2308787}   // Equation 2-11
                             : detail::TemperatureTransfer{507.5921310, 279.4265768};  // Equation 2-9
}

class Sysmon : public streams::SensorBlock {
public:
    Sysmon(vfio::RegisterWindow window, unsigned slaves, SysmonPrimitive primitive, std::string location)
        : m_window(window), m_slaves(slaves), m_primitive(primitive), m_location(std::move(location)) {}

    std::string kind() const override { return "SYSMON"; }
    std::string location() const override { return m_location; }

    pdt::Result<streams::SensorSample> sample() override {
        if (m_slaves > kSysmonMaxSlaves)
            return pdt::make_error("read SYSMON", m_location, EINVAL,
                                   std::to_string(m_slaves) + " slave SYSMONs: sysmon_slave_sel selects at most " +
                                       std::to_string(kSysmonMaxSlaves) + " (PG185)");
        const uint64_t needed = kSysmonBytesPerSysmon * (1 + m_slaves);
        if (m_window.size() < needed)
            return pdt::make_error("read SYSMON", m_location, ERANGE,
                                   "the register window is " + pdt::hex(m_window.size()) + " bytes; a SYSMON with " +
                                       std::to_string(m_slaves) + " slaves spans " + pdt::hex(needed) + " (PG185)");
        streams::SensorSample out;
        for (unsigned instance = 0; instance <= m_slaves; ++instance)
            read_instance(instance, out);
        return out;
    }

private:
    void read_instance(unsigned instance, streams::SensorSample& out) const {
        detail::MonitorView view;
        view.drp_base = kDrpBase + kSysmonBytesPerSysmon * instance;
        view.bits = kAdcBits;
        view.prefix = instance == 0 ? "" : "Slave " + std::to_string(instance) + " ";
        view.flag = detail::read_flag(m_window, view.drp_base, view.prefix, out);
        if (view.flag)
            view.temperature = transfer(m_primitive, (*view.flag >> kFlagRef) & 1);
        else
            view.no_transfer = "the Flag Register reads all-ones: its REF bit, which selects the temperature "
                               "transfer function (UG580), is unknown";
        detail::read_monitor(m_window, view, out);
    }

    vfio::RegisterWindow m_window;
    unsigned m_slaves;
    SysmonPrimitive m_primitive;
    std::string m_location;
};

}  // namespace

std::unique_ptr<streams::SensorBlock> make_sysmon(vfio::RegisterWindow window, unsigned slaves,
                                                  SysmonPrimitive primitive, std::string location) {
    return std::make_unique<Sysmon>(window, slaves, primitive, std::move(location));
}

}  // namespace sensors
