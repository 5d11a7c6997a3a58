#include "sensors/xadc.hpp"

#include <cerrno>

#include "base/format.hpp"
#include "system_monitor.hpp"

namespace sensors {
namespace {

// PG091 register space: the Alarm Output Status Register, and the XADC's DRP registers
// mirrored 4 bytes per DRP address from 0x200.
constexpr uint64_t AOSR = 0x08;
constexpr uint64_t kXadcDrpBase = 0x200;
// UG480 temperature sensor transfer function: Temperature (C) = code * 503.975 / 4096 - 273.15,
// on the 12-bit code (the 12 MSBs of the status register, Table 3-1).
constexpr unsigned kXadcAdcBits = 12;
constexpr detail::TemperatureTransfer kTemperature{503.975, 273.15};

class Xadc : public streams::SensorBlock {
public:
    Xadc(vfio::RegisterWindow window, std::string location) : m_window(window), m_location(std::move(location)) {}

    std::string kind() const override { return "XADC"; }
    std::string location() const override { return m_location; }

    pdt::Result<streams::SensorSample> sample() override {
        if (m_window.size() < kXadcFrameBytes)
            return pdt::make_error("read XADC", m_location, ERANGE,
                                   "the register window is " + pdt::hex(m_window.size()) +
                                       " bytes; the XADC Wizard's registers span " + pdt::hex(kXadcFrameBytes) +
                                       " (PG091)");
        streams::SensorSample out;
        detail::MonitorView view;
        view.drp_base = kXadcDrpBase;
        view.bits = kXadcAdcBits;
        view.temperature = kTemperature;
        view.flag = detail::read_flag(m_window, kXadcDrpBase, "", out);
        const uint32_t aosr = m_window.read32(AOSR);
        if (aosr != 0xFFFFFFFFu)
            view.aosr = aosr;
        else
            out.status.push_back("AOSR reads 0xffffffff (all-ones): its alarm bits mean nothing");
        detail::read_monitor(m_window, view, out);
        return out;
    }

private:
    vfio::RegisterWindow m_window;
    std::string m_location;
};

}  // namespace

std::unique_ptr<streams::SensorBlock> make_xadc(vfio::RegisterWindow window, std::string location) {
    return std::make_unique<Xadc>(window, std::move(location));
}

}  // namespace sensors
