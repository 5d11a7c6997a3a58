// --device_routing "<bdf>[,<master>:<slave>]...": routes of a design's AXI4-Stream Switch
// (PG085). Master ports feed C2H channels, slave ports come from H2C channels; masters a routing
// does not list are disabled.
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/pci_address.hpp"

namespace tool_support {

struct SwitchRoute {
    unsigned master = 0;
    unsigned slave = 0;
    auto operator<=>(const SwitchRoute&) const = default;
};

struct DeviceRouting {
    vfio::PciAddress address;
    std::vector<SwitchRoute> routes;
};

// Usage errors name the option and the text: a bad address, a route that is not
// <master>:<slave> with ports 0..15, a master port routed twice.
pdt::Result<DeviceRouting> parse_device_routing(const std::string& option, const std::string& text);

}  // namespace tool_support
