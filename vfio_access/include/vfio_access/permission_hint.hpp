// What a user who lacks permission must do, as Error hints: the VFIO device file with its
// owner, group and mode, the group to join (and scripts/vfio-setup, which binds a device and
// gives that group read/write), and, for DMA mappings, the RLIMIT_MEMLOCK limit with the
// bytes a mapping needs and the commands that raise it. README "Running as a normal user".
//
// Each hint is built from a plain description (DeviceFileAccess, MemlockState), so that tests
// can state every case; describe_device_file() and current_memlock() read the real ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vfio {

// The system group whose members get read/write on /dev/vfio/<N> of devices bound to vfio-pci
// (packaging/udev/70-pcie-dma-toolkit-vfio.rules, scripts/vfio-setup).
inline constexpr const char* VFIO_USER_GROUP = "pcie-dma";

struct DeviceFileAccess {
    std::string path;
    std::string owner;             // user name, or the uid when it has none
    std::string group;             // group name, or the gid when it has none
    unsigned mode = 0;             // permission bits (0660, ...)
    std::string user;              // the process's user name (or uid)
    bool process_in_group = false; // the process holds `group` (primary or supplementary)
    bool listed_in_group = false;  // the group database lists the user as a member
    bool listed_in_user_group = false;  // ... as a member of VFIO_USER_GROUP
};

// stat() of `path`, its owner and group by name, and the calling process's membership.
// Empty when the file cannot be stat()ed.
std::optional<DeviceFileAccess> describe_device_file(const std::string& path);

// What to do about EACCES/EPERM opening a VFIO group file. `functions` are the PCI addresses
// in that IOMMU group (for the vfio-setup command); `access` empty: the file is unknown.
std::string group_permission_hint(const std::string& path, const std::optional<DeviceFileAccess>& access,
                                  const std::vector<std::string>& functions);

// What to do about a container node (/dev/vfio/vfio) the process cannot read and write.
std::string container_permission_hint(const std::string& path);

// Pinned-memory accounting of the calling process.
struct MemlockState {
    std::optional<uint64_t> limit;  // RLIMIT_MEMLOCK soft limit in bytes; empty: unlimited
    uint64_t locked = 0;            // bytes already locked/pinned (VmLck of /proc/self/status)
    bool ipc_lock = false;          // CAP_IPC_LOCK in effect: the limit does not apply
};

// getrlimit(RLIMIT_MEMLOCK) and /proc/<status_path> (VmLck, CapEff).
MemlockState current_memlock(const std::string& status_path = "/proc/self/status");

// The hint for VFIO_IOMMU_MAP_DMA failing with ENOMEM for a mapping of `mapping_bytes`:
// the limit, the bytes needed and the commands that raise it; or, when the limit cannot be
// the cause, the other causes (the mapping-count limit, memory).
std::string memlock_hint(const MemlockState& state, uint64_t mapping_bytes);

}  // namespace vfio
