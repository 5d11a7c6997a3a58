// time_memmapped's work on the devices its command line names (tools/measure/, its main's alone).
#pragma once

#include <string>
#include <vector>

#include "measure/mmio_timing.hpp"
#include "tool_support/bar_tool_usage.hpp"

namespace time_memmapped {

struct Selection {
    std::vector<std::string> sim_designs;  // --sim_design: simulated designs
    std::vector<std::string> devices;      // --device: kernel vfio-pci devices, known design or not (QEMU's edu)
    unsigned bar = 0;
    measure::MmioTimingRequest request;
    bool json = false;
};

// Opens the devices, times each; the exit status (0, 1 a device failed or a request refused).
int run(const tool_support::CheckedUsage& checked, const Selection& selection);

}  // namespace time_memmapped
