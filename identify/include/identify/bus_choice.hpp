// The bus a tool works on: the simulated designs named with --sim_design, else the kernel's
// VFIO devices. Simulated designs are only ever chosen explicitly.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "designs/registry.hpp"
#include "vfio_access/device.hpp"

namespace identify {

vfio::Result<std::unique_ptr<vfio::Bus>> open_bus(const std::vector<std::string>& sim_designs,
                                                  const designs::Registry& registry,
                                                  const std::vector<vfio::PciAddress>& locations);

}  // namespace identify
