#include "stream_tools/numa_placement.hpp"

#include <cerrno>
#include <set>

#include "vfio_access/numa.hpp"

namespace stream_tools {

NumaPlan plan_numa_placement(const std::vector<vfio::PciAddress>& devices, const std::string& sysfs_root) {
    NumaPlan plan;
    std::set<int> nodes;
    std::string named;  // the devices with an entry, for the line
    vfio::NumaNode last;
    for (const vfio::PciAddress& address : devices) {
        auto node = vfio::device_numa_node(sysfs_root, address);
        if (!node.ok() && node.error().code == ENOENT && node.error().message().find(address.to_string() + "/numa_node") !=
                                                            std::string::npos)
            continue;  // no such device in sysfs: a simulated design
        if (!node.ok()) {
            plan.line = "NUMA: " + address.to_string() + ": " + node.error().message() + ": nothing placed";
            return plan;
        }
        named += (named.empty() ? "" : ", ") + address.to_string();
        nodes.insert(node->node);
        last = *node;
    }
    if (nodes.empty())
        return plan;
    if (nodes.size() > 1) {
        plan.line = "NUMA: " + named + " are on different nodes: nothing placed (run one node's devices per process)";
        return plan;
    }
    if (last.node < 0) {
        plan.line = "NUMA: " + named + " reports no node (numa_node -1: one node, or the platform does not say): nothing placed";
        return plan;
    }
    plan.node = last.node;
    plan.cpus = last.cpus;
    plan.line = "NUMA: " + named + " on node " + std::to_string(last.node) +
                ": host buffers and pattern threads placed on its CPUs " + last.cpu_list;
    return plan;
}

std::string apply_numa_placement(const NumaPlan& plan) {
    if (plan.cpus.empty())
        return plan.line;
    auto bound = vfio::bind_calling_thread(plan.cpus, "node " + std::to_string(plan.node));
    if (!bound.ok())
        return "NUMA: node " + std::to_string(plan.node) + ": " + bound.error().message() + ": nothing placed";
    return plan.line;
}

}  // namespace stream_tools
