// The binding to Esperanto's runtime (libetrt), built only when CMake finds it under /opt/et
// (etsoc1/CMakeLists.txt); this header has no vendor type. Before the runtime is created the
// device nodes are checked (preflight): a missing driver, a card in recovery mode and a card
// another process holds each get their own message, the last naming the daemon mode.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "etsoc1/card.hpp"

namespace etsoc1 {

// A file of this process in the temp directory ($TMPDIR, else /tmp): pdt-etsoc1-runtime-<pid>.log.
std::string default_runtime_log_path();

struct RuntimeOptions {
    std::string socket;          // empty: in-process on the PCIe device layer; else the runtime daemon's socket
    std::string dev_dir = "/dev";
    std::string sys_dir = "/sys";
    // The runtime's own log (g3log through hostUtils: its warnings, errors and traces) is
    // appended to this file, never written between the tool's lines; "-": to stderr, as the
    // runtime's own programs do. One log for the process: the first card opened sets it.
    std::string log_path = default_runtime_log_path();
};

// True when this build has the runtime binding.
bool runtime_built();
pdt::Result<std::unique_ptr<Card>> open_runtime_card(const RuntimeOptions& options);

// The default socket of the runtime daemon (`server --device_type=pcie`).
inline constexpr const char* kDaemonSocket = "/var/run/et_runtime/pcie.sock";

struct DeviceNodes {
    std::vector<int> ops;   // N of each /dev/et<N>_ops
    std::vector<int> mgmt;  // N of each /dev/et<N>_mgmt
};
DeviceNodes list_device_nodes(const std::string& dev_dir);

// Tries to open a device node as the runtime would; returns 0 (then closed again) or the errno.
using NodeOpener = std::function<int(const std::string& path)>;
int open_node_briefly(const std::string& path);

// The nodes exist in pairs and every ops node can be opened now (the ops node opens once at a
// time). Errors: ENODEV (no driver or card, recovery mode), EBUSY (another process, with the
// daemon mode to use instead), EPERM (a reset in progress), EACCES.
pdt::Result<DeviceNodes> preflight(const std::string& dev_dir, const NodeOpener& try_open = open_node_briefly);

// PCI address and link of card N from sysfs (/sys/class/misc/et<N>_ops/device, then the PCI
// device's current_link_speed and current_link_width); fields left empty when unreadable.
DeviceInfo sysfs_info(int card, const std::string& sys_dir);

}  // namespace etsoc1
