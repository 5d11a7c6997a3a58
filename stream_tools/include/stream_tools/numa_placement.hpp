// NUMA placement of a stream run (F20 item 4): host buffers and the pattern worker threads on
// the node of the devices under test, said in the output.
#pragma once

#include <string>
#include <vector>

#include "vfio_access/pci_address.hpp"

namespace stream_tools {

struct NumaPlan {
    std::vector<int> cpus;  // bind to these (empty: nothing placed)
    int node = -1;
    std::string line;       // "NUMA: ..." for the report; empty when no device has a sysfs entry
};

// From <sysfs_root>/bus/pci/devices/<bdf>/numa_node of each device: one node for all of them
// gives its CPUs; no node (-1), several nodes, or an unreadable entry place nothing and say why.
// Devices without a sysfs entry (simulated designs) are left out; with none left, no line.
NumaPlan plan_numa_placement(const std::vector<vfio::PciAddress>& devices, const std::string& sysfs_root);

// Binds the calling thread to plan.cpus (before the worker pool starts and any buffer is
// allocated: both inherit the node). Returns the line to print (the plan's, or why binding failed).
std::string apply_numa_placement(const NumaPlan& plan);

}  // namespace stream_tools
