#include "vfio_access/numa.hpp"

#include <sched.h>

#include <cerrno>
#include <charconv>

#include "base/text_file.hpp"

namespace vfio {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool parse_cpu(std::string_view s, int& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 0 && out < CPU_SETSIZE;
}

}  // namespace

pdt::Result<std::vector<int>> parse_cpu_list(std::string_view text) {
    std::vector<int> cpus;
    std::string_view rest = trim(text);
    while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        const size_t dash = item.find('-');
        int first = 0, last = 0;
        const bool ok = dash == std::string_view::npos
                            ? parse_cpu(item, first) && parse_cpu(item, last)
                            : parse_cpu(item.substr(0, dash), first) && parse_cpu(item.substr(dash + 1), last);
        if (!ok || last < first || (comma != std::string_view::npos && rest.empty()))
            return pdt::make_error("parse cpu list", "\"" + std::string(text) + "\"", EINVAL,
                              "expected CPUs and ranges such as 0-3,8 (each below " + std::to_string(CPU_SETSIZE) + ")");
        for (int cpu = first; cpu <= last; ++cpu)
            cpus.push_back(cpu);
    }
    return cpus;
}

pdt::Result<NumaNode> device_numa_node(const std::string& sysfs_root, const PciAddress& address) {
    const std::string path = sysfs_root + "/bus/pci/devices/" + address.to_string() + "/numa_node";
    const std::string text = PDT_TRY(pdt::read_text_file(path, "open", "read", "the device has no sysfs entry"));
    NumaNode node;
    const std::string_view value = trim(text);
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), node.node);
    if (ec != std::errc() || end != value.data() + value.size() || node.node < -1)
        return pdt::make_error("read numa_node", path, EINVAL, "\"" + std::string(value) + "\" is not a node number");
    if (node.node < 0)
        return NumaNode{};
    const std::string list_path = sysfs_root + "/devices/system/node/node" + std::to_string(node.node) + "/cpulist";
    const std::string list = PDT_TRY(pdt::read_text_file(list_path, "open", "read", "the node has no cpulist"));
    node.cpu_list = std::string(trim(list));
    node.cpus = PDT_TRY(parse_cpu_list(list));
    return node;
}

pdt::Result<void> bind_calling_thread(const std::vector<int>& cpus, const std::string& object) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus)
        if (cpu >= 0 && cpu < CPU_SETSIZE)
            CPU_SET(cpu, &set);
    if (CPU_COUNT(&set) == 0)
        return pdt::make_error("sched_setaffinity", object, EINVAL, "no CPU to bind to");
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return pdt::make_error("sched_setaffinity", object, errno, "the node's CPUs may be outside this process's cpuset");
    return {};
}

}  // namespace vfio
