// The devices of tools that reach a device's BARs whatever it is (time_memmapped,
// memmapped_persistence, test_dma_descriptor_credits --reset_test): --sim_design designs, or
// any vfio-pci --device, a known design or not (QEMU's edu, an ivshmem BAR).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "designs/registry.hpp"
#include "vfio_access/device.hpp"

namespace tool_support {

struct DeviceTarget {
    vfio::Device* device = nullptr;
    std::vector<const designs::Design*> designs;  // the designs it may be (none: an unknown device)
    bool simulated = false;
};

struct TargetSelection {
    std::vector<std::string> sim_designs;  // --sim_design: simulated designs
    std::vector<std::string> devices;      // --device: kernel vfio-pci devices (checked by the main)
    bool edu_sim = false;                  // QEMU's edu register model instead of either
};

// Opens each device named, calls `fn` on it and closes it; returns the highest status (1 when a
// device did not open or none was found). Lines of the opening go to `info`.
int for_each_target(const designs::Registry& registry, const TargetSelection& selection, std::ostream& info,
                    const std::function<int(const DeviceTarget&)>& fn);

// The widths a BAR's registers take: PG195's 32-bit XDMA registers in a design's DMA BAR; QEMU's
// edu device takes 4 and 8 bytes (QEMU docs/specs/edu.rst); otherwise `otherwise`.
std::vector<unsigned> bar_widths(const DeviceTarget& t, unsigned bar, const std::vector<unsigned>& otherwise);
// Whether `bar` is a design's XDMA DMA BAR.
bool is_dma_bar(const DeviceTarget& t, unsigned bar);
// The design's name, else "vvvv:dddd".
std::string target_name(const DeviceTarget& t);

}  // namespace tool_support
