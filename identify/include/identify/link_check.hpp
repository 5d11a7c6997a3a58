// The reduced-bandwidth check run at every device open on the kernel's VFIO bus: the whole path
// from the device to its root port (pcie::open_device_link_warning), the device's config through
// its VFIO region, its ports through another config bus (libpci on the kernel bus).
#pragma once

#include <string>
#include <vector>

#include "vfio_access/device.hpp"

namespace pcie {
class ConfigBackend;
}

namespace identify {

// "Warning: Device <description> has reduced bandwidth" and the lines that explain it (which
// link, which port, ASPM / autonomous speed changes when the drop may be a power-saving
// downshift), then "Note: link check: ..." for what could not be read. Empty for a healthy
// path. A failure of the check itself becomes a note: the check never stops a tool.
std::vector<std::string> device_link_lines(pcie::ConfigBackend& ports, vfio::Device& device);

}  // namespace identify
