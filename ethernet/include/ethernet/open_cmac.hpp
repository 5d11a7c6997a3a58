// Opening the CMAC ports a design lists (its cmac peripherals for the device's revision): each a
// Cmac driver over the port's window of its BAR, built as the design says it was built.
#pragma once

#include <vector>

#include "designs/design.hpp"
#include "ethernet/cmac.hpp"
#include "vfio_access/device.hpp"

namespace ethernet {

// What the design says the port was built with.
CmacBuild cmac_build(const designs::Peripheral& peripheral);
// The design's CMAC ports in its order; none when it lists none. Fails when a port's BAR cannot
// hold its window.
pdt::Result<std::vector<Cmac>> open_cmac_ports(vfio::Device& device, const designs::Design& design, uint8_t revision);

}  // namespace ethernet
