// NUMA placement (F20): a PCIe device's node, the node's CPUs, and binding the calling thread
// (and the threads it starts afterwards) to them, so that host buffers allocated and first
// touched afterwards, and the pattern worker threads, sit on the device's node.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/pci_address.hpp"

namespace vfio {

// "0-3,8,10-11" (sysfs cpulist) -> {0,1,2,3,8,10,11}. An empty or whitespace-only list is
// empty; anything else that is not such a list is EINVAL naming the text.
pdt::Result<std::vector<int>> parse_cpu_list(std::string_view text);

struct NumaNode {
    int node = -1;          // -1: the platform reports none (a single-node machine, a VM)
    std::vector<int> cpus;  // the node's CPUs (empty when node is -1)
    std::string cpu_list;   // as sysfs prints it, "16-31"
};
// <sysfs_root>/bus/pci/devices/<bdf>/numa_node, and that node's cpulist. ENOENT when the
// device has no sysfs entry (a simulated design).
pdt::Result<NumaNode> device_numa_node(const std::string& sysfs_root, const PciAddress& address);

// Binds the calling thread to `cpus` (sched_setaffinity); threads it starts later inherit it.
pdt::Result<void> bind_calling_thread(const std::vector<int>& cpus, const std::string& object);

}  // namespace vfio
