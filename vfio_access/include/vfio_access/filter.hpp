// Device selection: identity filters (vendor, device, subsystem IDs; each optional) and a list
// of PCI locations. A device is selected when it matches any identity filter (or there are
// none) and, when locations are given, sits at one of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/device.hpp"
#include "vfio_access/pci_address.hpp"

namespace vfio {

struct DeviceFilter {
    std::optional<uint16_t> vendor_id;
    std::optional<uint16_t> device_id;
    std::optional<uint16_t> subsystem_vendor_id;
    std::optional<uint16_t> subsystem_device_id;

    bool matches(const DeviceIdentity& identity) const;
    // "10ee:7024 subsystem *:0002" with '*' for any.
    std::string to_string() const;
};

class DeviceSelection {
public:
    void add_filter(const DeviceFilter& filter) { m_filters.push_back(filter); }
    // Strict "dddd:bb:dd.f"; duplicates are ignored.
    pdt::Result<void> add_location(std::string_view bdf);
    void add_location(const PciAddress& address);

    bool matches(const DeviceIdentity& identity) const;
    std::vector<DeviceIdentity> select(const std::vector<DeviceIdentity>& devices) const;

    const std::vector<DeviceFilter>& filters() const { return m_filters; }
    const std::vector<PciAddress>& locations() const { return m_locations; }
    bool empty() const { return m_filters.empty() && m_locations.empty(); }

private:
    std::vector<DeviceFilter> m_filters;
    std::vector<PciAddress> m_locations;
};

// A 16-bit ID given as hex, with or without "0x" ("10ee", "0x10EE"). what names the option
// in the error ("--vendor").
pdt::Result<uint16_t> parse_hex_id(std::string_view text, std::string_view what);

}  // namespace vfio
