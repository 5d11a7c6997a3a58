#include "vfio_access/filter.hpp"

#include <algorithm>
#include <cstdio>

namespace vfio {
namespace {

bool field_matches(const std::optional<uint16_t>& want, uint16_t have) { return !want || *want == have; }

std::string field_text(const std::optional<uint16_t>& value) {
    if (!value)
        return "*";
    char text[8];
    std::snprintf(text, sizeof text, "%04x", *value);
    return text;
}

}  // namespace

bool DeviceFilter::matches(const DeviceIdentity& identity) const {
    return field_matches(vendor_id, identity.vendor_id) && field_matches(device_id, identity.device_id) &&
           field_matches(subsystem_vendor_id, identity.subsystem_vendor_id) &&
           field_matches(subsystem_device_id, identity.subsystem_device_id);
}

std::string DeviceFilter::to_string() const {
    return field_text(vendor_id) + ":" + field_text(device_id) + " subsystem " + field_text(subsystem_vendor_id) + ":" +
           field_text(subsystem_device_id);
}

pdt::Result<void> DeviceSelection::add_location(std::string_view bdf) {
    const PciAddress address = PDT_TRY(PciAddress::parse(bdf));
    add_location(address);
    return {};
}

void DeviceSelection::add_location(const PciAddress& address) {
    if (std::find(m_locations.begin(), m_locations.end(), address) == m_locations.end())
        m_locations.push_back(address);
}

bool DeviceSelection::matches(const DeviceIdentity& identity) const {
    const bool identity_ok = m_filters.empty() || std::any_of(m_filters.begin(), m_filters.end(), [&](const DeviceFilter& f) {
                                 return f.matches(identity);
                             });
    const bool location_ok = m_locations.empty() ||
                             std::find(m_locations.begin(), m_locations.end(), identity.address) != m_locations.end();
    return identity_ok && location_ok;
}

std::vector<DeviceIdentity> DeviceSelection::select(const std::vector<DeviceIdentity>& devices) const {
    std::vector<DeviceIdentity> selected;
    std::copy_if(devices.begin(), devices.end(), std::back_inserter(selected),
                 [&](const DeviceIdentity& d) { return matches(d); });
    return selected;
}

pdt::Result<uint16_t> parse_hex_id(std::string_view text, std::string_view what) {
    std::string_view digits = text;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        digits.remove_prefix(2);
    const std::string object = std::string(what) + " '" + std::string(text) + "'";
    if (digits.empty() || digits.size() > 4)
        return pdt::usage_error("parse ID", object, "expected 1 to 4 hex digits, e.g. 10ee");
    unsigned value = 0;
    for (char c : digits) {
        unsigned nibble;
        if (c >= '0' && c <= '9')
            nibble = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            nibble = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            nibble = static_cast<unsigned>(c - 'A' + 10);
        else
            return pdt::usage_error("parse ID", object, "expected 1 to 4 hex digits, e.g. 10ee");
        value = value * 16 + nibble;
    }
    return static_cast<uint16_t>(value);
}

}  // namespace vfio
