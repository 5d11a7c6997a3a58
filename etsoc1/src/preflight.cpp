// Device-node checks before the runtime opens a card, and the link from sysfs (runtime_card.hpp).
// Always built: it needs nothing of the vendor's.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>

#include "etsoc1/runtime_card.hpp"

namespace etsoc1 {

DeviceNodes list_device_nodes(const std::string& dev_dir) {
    DeviceNodes nodes;
    DIR* dir = opendir(dev_dir.c_str());
    if (dir == nullptr)
        return nodes;
    // et<N>_ops and et<N>_mgmt (no <regex>: GCC 12 under ASan warns inside it).
    while (const dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        const size_t underscore = name.find('_');
        if (name.rfind("et", 0) != 0 || underscore == std::string::npos || underscore == 2 || underscore > 4)
            continue;
        const std::string digits = name.substr(2, underscore - 2);
        const std::string kind = name.substr(underscore + 1);
        if (digits.find_first_not_of("0123456789") != std::string::npos || (kind != "ops" && kind != "mgmt"))
            continue;
        (kind == "ops" ? nodes.ops : nodes.mgmt).push_back(std::stoi(digits));
    }
    closedir(dir);
    std::sort(nodes.ops.begin(), nodes.ops.end());
    std::sort(nodes.mgmt.begin(), nodes.mgmt.end());
    return nodes;
}

int open_node_briefly(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ::close(fd);
    return 0;
}

pdt::Result<DeviceNodes> preflight(const std::string& dev_dir, const NodeOpener& try_open) {
    const DeviceNodes nodes = list_device_nodes(dev_dir);
    const std::string where = dev_dir + "/et<N>_ops";
    if (nodes.ops.empty())
        return pdt::make_error("find ET-SoC-1 cards", where, ENODEV,
                               "no ops device node: the et-soc1 kernel driver (et-soc1.ko) is not loaded or sees no "
                               "card (modprobe et-soc1, or make dkms in et-driver/)");
    if (nodes.ops != nodes.mgmt)
        return pdt::make_error("find ET-SoC-1 cards", where, ENODEV,
                               std::to_string(nodes.ops.size()) + " ops and " + std::to_string(nodes.mgmt.size()) +
                                   " mgmt nodes: a card is in recovery mode (only its mgmt node is up); the runtime "
                                   "refuses to start like this");
    for (int n : nodes.ops) {
        const std::string path = dev_dir + "/et" + std::to_string(n) + "_ops";
        const int error = try_open(path);
        if (error == EBUSY)
            return pdt::make_error("open", path, EBUSY,
                                   "card busy: another process holds it (the ops node opens once at a time; a runtime "
                                   "daemon, `server --device_type=pcie`, holds its cards): use the daemon mode at the "
                                   "runtime's socket " + std::string(kDaemonSocket) + ", or stop that process");
        if (error == EPERM)
            return pdt::make_error("open", path, EPERM, "the card is being reset: try again when the reset is done");
        if (error != 0)
            return pdt::make_error("open", path, error,
                                   error == EACCES ? "no permission (the driver's udev rule makes the nodes 0666)" : "");
    }
    return nodes;
}

namespace {
std::string read_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}
}  // namespace

DeviceInfo sysfs_info(int card, const std::string& sys_dir) {
    DeviceInfo info;
    info.name = "ET-SoC-1 " + std::to_string(card);
    char target[PATH_MAX] = {};
    const std::string link = sys_dir + "/class/misc/et" + std::to_string(card) + "_ops/device";
    const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    if (n <= 0)
        return info;
    const std::string path(target, static_cast<size_t>(n));
    info.pci_address = path.substr(path.rfind('/') + 1);
    const std::string device = sys_dir + "/bus/pci/devices/" + info.pci_address + "/";
    info.link_speed = read_line(device + "current_link_speed");
    info.link_width = read_line(device + "current_link_width");
    return info;
}

std::string default_runtime_log_path() {
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    return dir + "/pdt-etsoc1-runtime-" + std::to_string(getpid()) + ".log";
}

}  // namespace etsoc1
