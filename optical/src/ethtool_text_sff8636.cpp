// An SFF-8636 module as `ethtool -m` prints it (ethtool's qsfp.c and module-common.c give the
// fields, their order and formats). Where ethtool's arithmetic departs from SFF-8636 (BR
// nominal FFh, the wavelength tolerance's unit, power class 2, the 7.0 and 12.9 GHz
// attenuations) the text keeps ethtool's, so the two compare equal; the decoded module keeps
// the document's values.
#include "optical/ethtool_text.hpp"

#include "optical/sff8024.hpp"
#include "text_lines.hpp"

namespace optical {

namespace {

using text::code;
using text::line;

std::string sff8636_ext_identifier_text(const Sff8636Module& m) {
    static const char* const kClasses[] = {"1.5W max. Power consumption", "1.5W max. Power consumption",
                                           "2.5W max. Power consumption", "3.5W max. Power consumption"};
    static const char* const kHighClasses[] = {"", "4.0W max. Power consumption,", "4.5W max. Power consumption,",
                                               "5.0W max. Power consumption,"};
    const uint8_t ext = m.ext_identifier;
    const std::string name = "Extended identifier description";
    std::string t = line("Extended identifier", pdt::format("0x%02x", ext));
    t += line(name, kClasses[ext >> 6]);
    t += line(name, std::string((ext & 0x08) ? "CDR present in TX," : "No CDR in TX,") +
                        ((ext & 0x04) ? " CDR present in RX" : " No CDR in RX"));
    t += line(name, std::string(kHighClasses[ext & 0x03]) +
                        ((m.power_control & 0x04) ? " High Power Class (> 3.5 W) enabled"
                                                  : " High Power Class (> 3.5 W) not enabled"));
    t += line("Power set", text::on_off(m.power_control & 0x02));
    t += line("Power override", text::on_off(m.power_control & 0x01));
    return t;
}

std::string sff8636_transmitter_text(uint8_t technology) {
    static const char* const kTechnologies[] = {
        "850 nm VCSEL", "1310 nm VCSEL", "1550 nm VCSEL", "1310 nm FP", "1310 nm DFB", "1550 nm DFB",
        "1310 nm EML", "1550 nm EML", "Others/Undefined", "1490 nm DFB", "Copper cable, unequalized",
        "Copper cable, passive equalized", "Copper cable, near and far end limiting active equalizers",
        "Copper cable, far end limiting active equalizers", "Copper cable, near end limiting active equalizers",
        "Copper cable, linear active equalizers"};
    return kTechnologies[technology >> 4];
}

std::string sff8636_wavelength_lines(const Sff8636Module& m) {
    const uint8_t technology = m.device_technology & 0xF0;
    std::string t = code("Transmitter technology", technology, sff8636_transmitter_text(technology));
    const unsigned high = m.wavelength >> 8, low = m.wavelength & 0xFF;
    if (technology >= 0xA0)
        return t + line("Attenuation at 2.5GHz", pdt::format("%udb", high)) +
               line("Attenuation at 5.0GHz", pdt::format("%udb", low)) +
               line("Attenuation at 7.0GHz", pdt::format("%udb", high)) +
               line("Attenuation at 12.9GHz", pdt::format("%udb", low));
    return t + line("Laser wavelength", pdt::format("%.04fnm", static_cast<float>(m.wavelength * 0.05))) +
           line("Laser wavelength tolerance", pdt::format("%.04fnm", static_cast<float>(m.wavelength_tolerance * 0.05)));
}

std::string sff8636_revision_text(uint8_t revision) {
    static const char* const kRevisions[] = {"Revision not specified", "SFF-8436 Rev 4.8 or earlier",
                                             "SFF-8436 Rev 4.8 or earlier", "SFF-8636 Rev 1.3 or earlier",
                                             "SFF-8636 Rev 1.4", "SFF-8636 Rev 1.5", "SFF-8636 Rev 2.0",
                                             "SFF-8636 Rev 2.5/2.6/2.7"};
    return revision < 8 ? kRevisions[revision] : "Unallocated";
}

// "None", or "[ Yes, No, No, No ]" lane 1 first.
std::string sff8636_lane_status(const char* name, unsigned lanes) {
    if (lanes == 0)
        return line(name, "None");
    std::string value = "[";
    for (unsigned lane = 0; lane < kSff8636Lanes; ++lane)
        value += pdt::format(" %s%c", (lanes >> lane & 1) ? "Yes" : "No", lane + 1 < kSff8636Lanes ? ',' : ' ');
    return line(name, value + "]");
}

// The low-speed status lines, each where the module's options say it implements the flag.
std::string sff8636_signal_lines(const Sff8636Module& m) {
    const auto& o = m.options;  // bytes 192-195
    const auto& f = m.los_fault_lol;
    std::string t;
    if (o[3] & 0x02)
        t += sff8636_lane_status("Rx loss of signal", f[0] & 0xF) + sff8636_lane_status("Tx loss of signal", f[0] >> 4);
    if (o[2] & 0x10)
        t += sff8636_lane_status("Rx loss of lock", f[2] & 0xF);
    if (o[2] & 0x20)
        t += sff8636_lane_status("Tx loss of lock", f[2] >> 4);
    if (o[3] & 0x08)
        t += sff8636_lane_status("Tx fault", f[1] & 0xF);
    if (o[1] & 0x08)
        t += sff8636_lane_status("Tx adaptive eq fault", f[1] >> 4);
    return t;
}

std::string sff8636_serial_id_text(const Sff8636Module& m) {
    std::string t = sff8636_ext_identifier_text(m);
    t += code("Connector", m.connector, connector_name(m.connector));
    t += line("Transceiver codes", text::code_bytes(m.transceiver.codes));
    // ethtool 6.x prints the last code set, and the line even when none is.
    t += line("Transceiver type", m.transceiver.descriptions.empty() ? "" : m.transceiver.descriptions.back());
    t += code("Encoding", m.encoding, encoding_name(m.encoding, EncodingTable::sff8636));
    t += line("BR Nominal", pdt::format("%uMbps", m.br_nominal * 100u));
    t += line("Rate identifier", pdt::format("0x%02x", m.extended_rate_select));
    t += line("Length (SMF)", pdt::format("%ukm", m.length_smf_km));
    t += line("Length (OM3)", pdt::format("%um", m.length_om3 * 2u));
    t += line("Length (OM2)", pdt::format("%um", m.length_om2));
    t += line("Length (OM1)", pdt::format("%um", m.length_om1));
    t += line("Length (Copper or Active cable)", pdt::format("%um", m.length_copper));
    t += sff8636_wavelength_lines(m);
    t += text::vendor_lines(m.vendor) + text::serial_lines(m.vendor);
    t += line("Revision Compliance", sff8636_revision_text(m.revision_compliance));
    return t + sff8636_signal_lines(m);
}

std::string sff8636_lane_lines(const Sff8636Diagnostics& d) {
    using text::reading;
    const char* rx_name = d.rx_power_type == RxPowerType::oma ? "Receiver signal OMA" : "Rcvr signal avg optical power";
    std::string bias, tx, rx;
    for (unsigned lane = 0; lane < kSff8636Lanes; ++lane) {
        const Sff8636Lane& l = d.lanes[lane];
        bias += line(pdt::format("Laser tx bias current (Channel %u)", lane + 1), reading(l.tx_bias.value));
        tx += line(pdt::format("Transmit avg optical power (Channel %u)", lane + 1), reading(l.tx_power.value));
        rx += line(pdt::format("%s (Channel %u)", rx_name, lane + 1), reading(l.rx_power.value));
    }
    return bias + tx + rx;
}

// The lane flags, ethtool's order: each flag of bias, TX power, RX power, lanes 1-4 in turn.
std::string sff8636_lane_flag_lines(const Sff8636Diagnostics& d) {
    const auto monitor_flags = [&](const char* name, auto member) {
        static const char* const kWhich[] = {"high alarm", "low alarm", "high warning", "low warning"};
        std::string t;
        for (int which = 0; which < 4; ++which)
            for (unsigned lane = 0; lane < kSff8636Lanes; ++lane) {
                const std::optional<Flags>& flags = (d.lanes[lane].*member).flags;
                const bool values[] = {flags && flags->high_alarm, flags && flags->low_alarm,
                                       flags && flags->high_warning, flags && flags->low_warning};
                t += line(pdt::format("%s %s (Chan %u)", name, kWhich[which], lane + 1),
                          flags ? text::on_off(values[which]) : text::kNotSupported);
            }
        return t;
    };
    return monitor_flags("Laser bias current", &Sff8636Lane::tx_bias) +
           monitor_flags("Laser tx power", &Sff8636Lane::tx_power) +
           monitor_flags("Laser rx power", &Sff8636Lane::rx_power);
}

std::string sff8636_diagnostics_text(const Sff8636Diagnostics& d) {
    std::string t = line("Module temperature", text::reading(d.temperature.value));
    t += line("Module voltage", text::reading(d.vcc.value));
    t += line("Alarm/warning flags implemented", text::yes_no(d.alarm_warning_flags_implemented));
    t += sff8636_lane_lines(d);
    if (!d.alarm_warning_flags_implemented)
        return t;
    t += sff8636_lane_flag_lines(d);
    t += text::flag_lines("Module temperature", d.temperature.flags);
    t += text::flag_lines("Module voltage", d.vcc.flags);
    return t + text::module_threshold_lines(d.tx_bias_thresholds, d.tx_power_thresholds, d.temperature.thresholds,
                                            d.vcc.thresholds, d.rx_power_thresholds);
}

}  // namespace

std::string ethtool_text(const Sff8636Module& module) {
    std::string t = code("Identifier", module.identifier, identifier_name(module.identifier));
    t += sff8636_serial_id_text(module);
    if (module.diagnostics)
        return t + sff8636_diagnostics_text(*module.diagnostics);
    // No monitors (Temperature reads 0 or FFFFh): ethtool prints them as read and stops.
    return t + line("Module temperature", text::kNotSupported) + line("Module voltage", text::kNotSupported);
}

std::string sff8636_text(std::span<const uint8_t> page00, std::span<const uint8_t> page03) {
    const RawPage pages[] = {{"lower page and page 00h", page00, 0}, {"page 03h", page03, 128}};
    return text::module_or_rejected(decode_sff8636(page00, page03), pages);
}

}  // namespace optical
