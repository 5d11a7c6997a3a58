// An SFF-8472 module as `ethtool -m` prints it (ethtool's sfpid.c and sfpdiag.c give the
// fields, their order and formats), and the report of bytes that do not decode.
#include "optical/ethtool_text.hpp"

#include "optical/sff8024.hpp"
#include "text_lines.hpp"

namespace optical {

namespace {

using text::code;
using text::line;

std::string sff8472_ext_identifier_text(uint8_t value) {
    if (value == 0x00)
        return "GBIC not specified / not MOD_DEF compliant";
    if (value == 0x04)
        return "GBIC/SFP defined by 2-wire interface ID";
    if (value <= 0x07)
        return pdt::format("GBIC compliant with MOD_DEF %u", value);
    return "unknown";
}

std::string sff8472_rate_identifier_text(uint8_t value) {
    static const char* const kRates[] = {"unspecified", "4/2/1G Rate_Select & AS0/AS1", "8/4/2G Rx Rate_Select only",
                                         "8/4/2G Independent Rx & Tx Rate_Select", "8/4/2G Tx Rate_Select only"};
    return value < 5 ? kRates[value] : "reserved or unknown";
}

// Bytes 60-61: the laser wavelength, or for a cable (byte 8 bits 2, 3) its compliance (byte 60).
std::string sff8472_wavelength_lines(const Sff8472Module& m) {
    const unsigned compliance = m.wavelength >> 8;
    if (m.passive_cable() || m.active_cable()) {
        std::string description = compliance == 0x00 ? "unspecified"
                                  : compliance == 0x01 ? "SFF-8431 appendix E"
                                  : (compliance == 0x04 && m.active_cable()) ? "SFF-8431 limiting"
                                                                              : "unknown";
        return code(m.passive_cable() ? "Passive Cu cmplnce." : "Active Cu cmplnce.", compliance,
                    description + " [SFF-8472 rev10.4 only]");
    }
    return line("Laser wavelength", pdt::format("%unm", m.wavelength));
}

// Options (bytes 64-65): the raw bytes, then the description of the bit set that ethtool tests
// last (ethtool 6.x prints one "Option" line; up to 6.9 it printed one a bit).
std::string sff8472_option_lines(const std::array<uint8_t, 2>& options) {
    struct Bit {
        int byte;
        int bit;
        const char* text;
    };
    static const Bit kBits[] = {
        {1, 1, "RX_LOS implemented"}, {1, 2, "RX_LOS implemented, inverted"}, {1, 3, "TX_FAULT implemented"},
        {1, 4, "TX_DISABLE implemented"}, {1, 5, "RATE_SELECT implemented"},
        {1, 6, "Tunable transmitter technology"}, {1, 7, "Receiver decision threshold implemented"},
        {0, 0, "Linear receiver output implemented"}, {0, 1, "Power level 2 requirement"},
        {0, 2, "Cooled transceiver implemented"}, {0, 3, "Retimer or CDR implemented"},
        {0, 4, "Paging implemented"}, {0, 5, "Power level 3 requirement"},
    };
    const char* last = nullptr;
    for (const Bit& b : kBits)
        if (options[b.byte] & (1 << b.bit))
            last = b.text;
    const std::string text = line("Option values", pdt::format("0x%02x 0x%02x", options[0], options[1]));
    return last ? text + line("Option", last) : text;
}

std::string sff8472_serial_id_text(const Sff8472Module& m) {
    // BR: byte 12 in 100 MBd; FFh: byte 66 is the rate in 250 MBd and byte 67 the margin both ways.
    unsigned br_nominal = m.br_nominal * 100u, br_max = m.br_max, br_min = m.br_min;
    if (m.br_nominal == 0)
        br_max = br_min = 0;
    else if (m.br_nominal == 0xFF)
        br_nominal = m.br_max * 250u, br_max = br_min = m.br_min;
    std::string t = code("Extended identifier", m.ext_identifier, sff8472_ext_identifier_text(m.ext_identifier));
    t += code("Connector", m.connector, connector_name(m.connector));
    t += line("Transceiver codes", text::code_bytes(m.transceiver.codes));
    if (!m.transceiver.descriptions.empty())
        t += line("Transceiver type", m.transceiver.descriptions.back());
    t += code("Encoding", m.encoding, encoding_name(m.encoding, EncodingTable::sff8472));
    t += line("BR Nominal", pdt::format("%uMBd", br_nominal));
    t += code("Rate identifier", m.rate_identifier, sff8472_rate_identifier_text(m.rate_identifier));
    t += line("Length (SMF)", pdt::format("%ukm", m.length_smf_km));
    t += line("Length (OM2)", pdt::format("%um", m.length_om2 * 10u));
    t += line("Length (OM1)", pdt::format("%um", m.length_om1 * 10u));
    t += line("Length (Copper or Active cable)", pdt::format("%um", m.length_copper));
    t += line("Length (OM3)", pdt::format("%um", m.length_om3 * 10u));
    t += sff8472_wavelength_lines(m);
    t += text::vendor_lines(m.vendor);
    t += sff8472_option_lines(m.options);
    t += line("BR margin max", pdt::format("%u%%", br_max));
    t += line("BR margin min", pdt::format("%u%%", br_min));
    return t + text::serial_lines(m.vendor);
}

std::string sff8472_diagnostics_text(const Sff8472Diagnostics& d) {
    using text::reading;
    std::string t = line("Laser bias current", reading(d.tx_bias.value));
    t += line("Laser output power", reading(d.tx_power.value));
    t += line(d.rx_power_type == RxPowerType::oma ? "Receiver signal OMA" : "Receiver signal average optical power",
              reading(d.rx_power.value));
    t += line("Module temperature", reading(d.temperature.value));
    t += line("Module voltage", reading(d.vcc.value));
    t += line("Alarm/warning flags implemented", text::yes_no(d.alarm_warning_flags_implemented));
    if (!d.alarm_warning_flags_implemented)
        return t;
    t += text::flag_lines("Laser bias current", d.tx_bias.flags);
    t += text::flag_lines("Laser output power", d.tx_power.flags);
    t += text::flag_lines("Module temperature", d.temperature.flags);
    t += text::flag_lines("Module voltage", d.vcc.flags);
    t += text::flag_lines("Laser rx power", d.rx_power.flags);
    return t + text::module_threshold_lines(d.tx_bias.thresholds, d.tx_power.thresholds, d.temperature.thresholds,
                                            d.vcc.thresholds, d.rx_power.thresholds);
}

}  // namespace

std::string ethtool_text(const Sff8472Module& module) {
    std::string t = code("Identifier", module.identifier, identifier_name(module.identifier));
    // ethtool prints the serial ID only of a module defined by the 2-wire ID (byte 1 04h).
    if (module.ext_identifier == 0x04)
        t += sff8472_serial_id_text(module);
    t += line("Optical diagnostics support", text::yes_no(module.diagnostics.has_value()));
    if (module.diagnostics)
        t += sff8472_diagnostics_text(*module.diagnostics);
    return t;
}

std::string rejected_text(const pdt::Error& error, std::span<const RawPage> pages) {
    std::string t = error.message() + "\n";
    for (const RawPage& page : pages) {
        t += pdt::format("%s (%zu bytes):\n", page.name, page.bytes.size());
        t += hex_dump(page.bytes.data(), page.bytes.size(), page.base);
    }
    return t;
}

std::string sff8472_text(std::span<const uint8_t> a0, std::span<const uint8_t> a2) {
    const RawPage pages[] = {{"A0h", a0, 0}, {"A2h", a2, 0}};
    return text::module_or_rejected(decode_sff8472(a0, a2), pages);
}

}  // namespace optical
