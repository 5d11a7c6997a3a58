// The Text / CapSection builder, the register reader and the section dispatcher.
#include <cstdio>

#include "pcie_tools/decode.hpp"
#include "pcie_tools/sections.hpp"

namespace pcie {

Text::Text(std::string name, std::string head, std::string indent) : m_name(std::move(name)) {
    m_lines.push_back(indent + head);
    m_at_start = head.empty() || head.back() == '\t' || head.back() == ' ';
}

void Text::begin_item() {
    if (!m_at_start)
        m_lines.back() += ' ';
    m_at_start = false;
}

Text& Text::flag(const std::string& name, bool on) {
    begin_item();
    m_lines.back() += name + (on ? '+' : '-');
    m_fields[name] = on;
    return *this;
}

Text& Text::flag_colon(const std::string& name, bool on) {
    begin_item();
    m_lines.back() += name + ":" + (on ? '+' : '-');
    m_fields[name] = on;
    return *this;
}

Text& Text::value(const std::string& name, const std::string& value, const std::string& join) {
    begin_item();
    m_lines.back() += name + join + value;
    m_fields[name] = value;
    return *this;
}

Text& Text::shown(const std::string& value) {
    begin_item();
    m_lines.back() += value;
    m_fields["value"] = value;
    return *this;
}

Text& Text::raw(const std::string& text) {
    m_lines.back() += text;
    return *this;
}

Text& Text::line(const std::string& indent) {
    m_lines.push_back(indent);
    m_at_start = true;
    return *this;
}

Text& Text::tight() {
    m_at_start = true;
    return *this;
}

Text& Text::continues_line() {
    m_continues = true;
    return *this;
}

Lines Text::lines() const { return m_lines; }

Lines CapSection::lines() const {
    char head[48];
    if (cap.extended)
        std::snprintf(head, sizeof head, "Capabilities: [%03x v%u] ", cap.offset, cap.version);
    else
        std::snprintf(head, sizeof head, "Capabilities: [%02x] ", cap.offset);
    Lines out{head + title};
    for (const Text& t : registers) {
        const Lines lines = t.lines();
        for (size_t i = 0; i < lines.size(); ++i)
            if (i == 0 && t.continues())
                out.back() += lines[i];
            else
                out.push_back(lines[i]);
    }
    return out;
}

nlohmann::json CapSection::json() const {
    nlohmann::json regs = nlohmann::json::object();
    for (const Text& t : registers) {
        nlohmann::json& slot = regs[t.name()];
        slot = slot.is_object() ? slot : nlohmann::json::object();
        slot.update(t.fields());
    }
    nlohmann::json j = {{"offset", cap.offset}, {"id", cap.id}, {"name", title}, {"registers", regs}};
    if (cap.extended) {
        j["extended"] = true;
        j["version"] = cap.version;
    }
    return j;
}

uint32_t CapReader::l(uint32_t offset) {
    auto r = m_space.read32(m_base + offset);
    m_ok = m_ok && r.ok();
    return r ? *r : 0;
}
uint16_t CapReader::w(uint32_t offset) {
    auto r = m_space.read16(m_base + offset);
    m_ok = m_ok && r.ok();
    return r ? *r : 0;
}
uint8_t CapReader::b(uint32_t offset) {
    auto r = m_space.read8(m_base + offset);
    m_ok = m_ok && r.ok();
    return r ? *r : 0;
}

namespace {

bool has_own_decoder(const Capability& c) {
    if (c.extended)
        return c.id == PCI_EXT_CAP_ID_ERR || c.id == PCI_EXT_CAP_ID_DSN;
    return c.id == PCI_CAP_ID_PM || c.id == PCI_CAP_ID_MSI || c.id == PCI_CAP_ID_MSIX || c.id == PCI_CAP_ID_EXP;
}

CapSection decode_one(ConfigSpace& space, const DeviceConfig& d, const Capability& c) {
    CapSection s;
    s.cap = c;
    CapReader r(space, c.offset);
    const bool known = c.extended ? (decode_ext_translation_power_link(r, d, s) ||
                                     decode_ext_virtual_functions_resources(r, d, s) || decode_ext_multicast_rc_link(r, d, s))
                                  : decode_standard_section(r, d, s);
    if (!known) {
        char text[64];
        if (c.extended)
            std::snprintf(text, sizeof text, "Extended Capability ID %#x", c.id);
        else
            std::snprintf(text, sizeof text, "Capability ID %#02x [%04x]", c.id, static_cast<unsigned>(r.w(2)));
        s.title = text;
    }
    if (!r.ok())
        s.registers.clear();
    return s;
}

}  // namespace

std::vector<CapSection> decode_sections(ConfigSpace& space, const DeviceConfig& d) {
    std::vector<CapSection> out;
    for (const auto* list : {&d.caps.standard, &d.caps.extended})
        for (const Capability& c : *list)
            if (!has_own_decoder(c))
                out.push_back(decode_one(space, d, c));
    return out;
}

}  // namespace pcie
