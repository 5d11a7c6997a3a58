// dump_pci_info as a library: device selection with fpga_sio's arguments, the dump of each
// device followed by its parent bridges up to the root (indented two spaces per level), the
// link summary of the whole path, and the same as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pcie_tools/config_space.hpp"
#include "pcie_tools/decode.hpp"
#include "pcie_tools/config_text.hpp"

namespace pcie {

// Each argument: a BDF ("dddd:bb:dd.f" or "bb:dd.f"), "<vendor>:<device>" or "<vendor>" in hex.
// No arguments: every device with vendor 0x10ee. A usage error for an argument that is none of these
// ("Invalid PCI device ID"); ENODEV when nothing matches.
Result<std::vector<PciAddress>> select_devices(ConfigBackend& bus, const std::vector<std::string>& arguments);

// The text for one selected device: itself, its bridges up to the root, then its link summary
// and, when a link on the path is downgraded, the reduced-bandwidth warning.
Result<Lines> dump_device(ConfigBackend& bus, const PciAddress& address);
Result<nlohmann::json> dump_device_json(ConfigBackend& bus, const PciAddress& address);

nlohmann::json to_json(const DeviceConfig& d, const SystemInfo& info);

}  // namespace pcie
