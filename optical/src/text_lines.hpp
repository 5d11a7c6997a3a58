// The line formats of `ethtool -m` (private to optical): "\t%-41s : %s" and the unit formats of
// its DDM readings (ethtool's sff-common.h: temperature "%.2f degrees C / %.2f degrees F",
// voltage "%.4f V", bias "%.3f mA", power "%.4f mW / %.2f dBm").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/format.hpp"
#include "base/result.hpp"
#include "optical/diagnostics.hpp"
#include "optical/ethtool_text.hpp"
#include "optical/module_info.hpp"

namespace optical::text {

inline constexpr const char* kNotSupported = "Not supported";

inline std::string line(const std::string& name, const std::string& value) {
    return pdt::format("\t%-41s : %s\n", name.c_str(), value.c_str());
}

// "0x07 (LC)", or "0x07" without a description.
inline std::string code(const std::string& name, unsigned value, const std::string& description) {
    return line(name, pdt::format("0x%02x (%s)", value, description.c_str()));
}

// The raw code bytes of "Transceiver codes": "0x10 0x00 ...".
inline std::string code_bytes(const std::vector<uint8_t>& codes) {
    std::string text;
    for (uint8_t c : codes)
        text += pdt::format(text.empty() ? "0x%02x" : " 0x%02x", c);
    return text;
}

// The vendor's name, OUI, PN and rev, as both documents print them one after another.
inline std::string vendor_lines(const VendorInfo& v) {
    return line("Vendor name", v.name) + line("Vendor OUI", pdt::format("%02x:%02x:%02x", v.oui[0], v.oui[1], v.oui[2])) +
           line("Vendor PN", v.part_number) + line("Vendor rev", v.revision);
}

// The vendor's SN and date code.
inline std::string serial_lines(const VendorInfo& v) {
    return line("Vendor SN", v.serial_number) + line("Date code", v.date_code);
}

inline std::string on_off(bool on) { return on ? "On" : "Off"; }
inline std::string yes_no(bool yes) { return yes ? "Yes" : "No"; }

inline std::string reading(const Temperature& t) {
    return pdt::format("%.2f degrees C / %.2f degrees F", t.celsius(), t.fahrenheit());
}
inline std::string reading(const SupplyVoltage& v) { return pdt::format("%.4f V", v.volts()); }
inline std::string reading(const BiasCurrent& b) { return pdt::format("%.3f mA", b.milliamps()); }
inline std::string reading(const OpticalPower& p) {
    return pdt::format("%.4f mW / %.2f dBm", p.milliwatts(), p.dbm());
}

template <typename T>
std::string reading(const std::optional<T>& value) {
    return value ? reading(*value) : kNotSupported;
}

// A monitor's four threshold lines: high alarm, low alarm, high warning, low warning. A monitor
// without thresholds says so.
template <typename T>
std::string threshold_lines(const std::string& name, const std::optional<Thresholds<T>>& limits) {
    const auto one = [&](const char* which, const T& value) {
        return line(name + " " + which + " threshold", limits ? reading(value) : kNotSupported);
    };
    const Thresholds<T> t = limits.value_or(Thresholds<T>{});
    return one("high alarm", t.high_alarm) + one("low alarm", t.low_alarm) + one("high warning", t.high_warning) +
           one("low warning", t.low_warning);
}

// The 20 threshold lines, in ethtool's order: bias, TX power, temperature, voltage, RX power.
inline std::string module_threshold_lines(const std::optional<Thresholds<BiasCurrent>>& bias,
                                          const std::optional<Thresholds<OpticalPower>>& tx_power,
                                          const std::optional<Thresholds<Temperature>>& temperature,
                                          const std::optional<Thresholds<SupplyVoltage>>& vcc,
                                          const std::optional<Thresholds<OpticalPower>>& rx_power) {
    return threshold_lines("Laser bias current", bias) + threshold_lines("Laser output power", tx_power) +
           threshold_lines("Module temperature", temperature) + threshold_lines("Module voltage", vcc) +
           threshold_lines("Laser rx power", rx_power);
}

// The four flag lines of a monitor ("<name> high alarm : Off", ...), "<suffix>" after each name.
inline std::string flag_lines(const std::string& name, const std::optional<Flags>& flags,
                              const std::string& suffix = "") {
    const auto one = [&](const char* which, bool on) {
        return line(name + " " + which + suffix, flags ? on_off(on) : kNotSupported);
    };
    const Flags f = flags.value_or(Flags{});
    return one("high alarm", f.high_alarm) + one("low alarm", f.low_alarm) + one("high warning", f.high_warning) +
           one("low warning", f.low_warning);
}

// A decoded module's text, or the report of the bytes that did not decode.
template <typename Module>
std::string module_or_rejected(const pdt::Result<Module>& module, std::span<const RawPage> pages) {
    return module ? ethtool_text(*module) : rejected_text(module.error(), pages);
}

}  // namespace optical::text
