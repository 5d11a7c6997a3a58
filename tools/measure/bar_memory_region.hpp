// The check of a BAR region a tool writes as memory (memmapped_persistence, time_memmapped
// --copy): tools/measure/, its mains' alone.
#pragma once

#include <vector>

#include "tool_support/device_targets.hpp"
#include "vfio_access/bar_access.hpp"

namespace bar_memory_region {

// The region checked before any access: inside the BAR, a width of `widths` the BAR takes,
// aligned (vfio::check_bar_region); never the XDMA DMA BAR (registers) nor a design
// peripheral's registers (a write could start or reset it): EPERM naming them.
pdt::Result<vfio::Bar*> check(const tool_support::DeviceTarget& t, const vfio::BarRegion& region,
                              const std::vector<unsigned>& widths);

}  // namespace bar_memory_region
