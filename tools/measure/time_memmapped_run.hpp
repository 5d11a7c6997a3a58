// time_memmapped's work on the devices its command line names (tools/measure/, its main's alone).
#pragma once

#include <string>
#include <vector>

#include "measure/bar_copy.hpp"
#include "measure/mmio_timing.hpp"
#include "tool_support/bar_tool_usage.hpp"
#include "tool_support/device_targets.hpp"

namespace time_memmapped {

struct Selection {
    std::vector<std::string> sim_designs;  // --sim_design: simulated designs
    std::vector<std::string> devices;      // --device: kernel vfio-pci devices, known design or not (QEMU's edu)
    unsigned bar = 0;
    measure::MmioTimingRequest request;
    bool json = false;
    // --copy: whole-window copies (fpga_sio's time_memmapped_libpciaccess); copy.size 0: from
    // the offset to the BAR's end.
    bool copy = false;
    measure::BarCopyRequest copy_request{};
};

// The write-combined accessor of the target's BAR (sysfs resource<N>_wc), null when there is
// none; `note` says which, or why none ("WC: not available (...)").
std::unique_ptr<measure::MmioAccessor> wc_accessor(const tool_support::DeviceTarget& t, unsigned bar, std::string& note);

// --copy on one target (time_memmapped_copy.cpp): the exit status (0 every byte of every copy
// verified, 1 a mismatch or a refused region, 2 a region that cannot be).
int copy_target(const tool_support::DeviceTarget& t, const Selection& selection);

// Opens the devices, times each; the exit status (0, 1 a device failed or a request refused).
int run(const tool_support::CheckedUsage& checked, const Selection& selection);

}  // namespace time_memmapped
