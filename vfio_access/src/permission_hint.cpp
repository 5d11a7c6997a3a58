#include "vfio_access/permission_hint.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

namespace vfio {

namespace {

constexpr const char* README_SECTION = "README \"Running as a normal user\"";
constexpr int CAP_IPC_LOCK_BIT = 14;  // linux/capability.h

std::string user_name(uid_t uid) {
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* found = nullptr;
    if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr)
        return found->pw_name;
    return std::to_string(uid);
}

// The group's name and whether the database lists `user` as a member (or as its primary group).
std::pair<std::string, bool> group_entry(gid_t gid, const std::string& user) {
    std::vector<char> buffer(65536);
    group entry{};
    group* found = nullptr;
    if (getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr)
        return {std::to_string(gid), false};
    bool listed = false;
    for (char** member = found->gr_mem; member != nullptr && *member != nullptr; ++member)
        listed = listed || user == *member;
    std::vector<char> pw_buffer(16384);
    passwd pw{};
    passwd* pw_found = nullptr;
    if (getpwnam_r(user.c_str(), &pw, pw_buffer.data(), pw_buffer.size(), &pw_found) == 0 && pw_found != nullptr)
        listed = listed || pw_found->pw_gid == gid;
    return {found->gr_name, listed};
}

bool user_listed_in(const char* group_name, const std::string& user) {
    std::vector<char> buffer(65536);
    group entry{};
    group* found = nullptr;
    if (getgrnam_r(group_name, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr)
        return false;
    return group_entry(found->gr_gid, user).second;
}

bool process_holds_group(gid_t gid) {
    if (getegid() == gid)
        return true;
    const int count = getgroups(0, nullptr);
    if (count <= 0)
        return false;
    std::vector<gid_t> groups(static_cast<size_t>(count));
    const int got = getgroups(count, groups.data());
    for (int i = 0; i < got; ++i)
        if (groups[static_cast<size_t>(i)] == gid)
            return true;
    return false;
}

std::string octal(unsigned mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode & 07777u);
    return text;
}

std::string bind_commands(const std::vector<std::string>& functions) {
    if (functions.empty())
        return "`sudo vfio-setup bind <bdf>`";
    std::string text;
    for (const std::string& bdf : functions)
        text += (text.empty() ? "" : " and ") + ("`sudo vfio-setup bind " + bdf + "`");
    return text;
}

std::string join_command(const std::string& group, const std::string& user) {
    return "`sudo usermod -aG " + group + " " + user + "`, then log in again";
}

// The file grants its group read/write, and that group is not root's: the group to join.
bool grants_group(const DeviceFileAccess& access) {
    return (access.mode & 060u) == 060u && access.group != "root" && access.group != "0";
}

std::string bytes_text(uint64_t bytes) {
    std::string text = std::to_string(bytes) + " bytes";
    if (bytes >= 1024)
        text += " (" + std::to_string(bytes / 1024) + " KiB)";
    return text;
}

}  // namespace

std::optional<DeviceFileAccess> describe_device_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return std::nullopt;
    DeviceFileAccess access;
    access.path = path;
    access.owner = user_name(st.st_uid);
    access.user = user_name(geteuid());
    auto [group, listed] = group_entry(st.st_gid, access.user);
    access.group = group;
    access.listed_in_group = listed;
    access.mode = st.st_mode & 07777u;
    access.process_in_group = process_holds_group(st.st_gid);
    access.listed_in_user_group = user_listed_in(VFIO_USER_GROUP, access.user);
    return access;
}

std::string group_permission_hint(const std::string& path, const std::optional<DeviceFileAccess>& access,
                                  const std::vector<std::string>& functions) {
    const std::string lead = "no read/write permission on " + path;
    if (!access)
        return lead + ": as root run " + bind_commands(functions) + " (binds to vfio-pci and gives group " +
               VFIO_USER_GROUP + " read/write), then join that group: " + join_command(VFIO_USER_GROUP, "$USER") +
               "; " + README_SECTION;
    const DeviceFileAccess& a = *access;
    const std::string facts = lead + " (owner " + a.owner + ", group " + a.group + ", mode " + octal(a.mode) + ")";
    if (!grants_group(a)) {
        if (a.group == VFIO_USER_GROUP)
            return facts + ": group " + a.group + " lacks read/write: `sudo chmod 0660 " + path +
                   "` (vfio-setup bind and the udev rule set 0660); " + README_SECTION;
        return facts + ": only " + a.owner + " may open it. As root run " + bind_commands(functions) +
               " (with the udev rule 70-pcie-dma-toolkit-vfio.rules it gives group " + VFIO_USER_GROUP +
               " read/write)" +
               (a.listed_in_user_group ? "; user " + a.user + " is in that group already"
                                       : ", then join that group: " + join_command(VFIO_USER_GROUP, a.user)) +
               "; " + README_SECTION;
    }
    if (!a.process_in_group && a.listed_in_group)
        return facts + ": user " + a.user + " is a member of group " + a.group +
               " but this process started before joining it: log in again (or run `newgrp " + a.group + "`)";
    if (!a.process_in_group)
        return facts + ": user " + a.user + " is not in group " + a.group + ": " + join_command(a.group, a.user) +
               " (" + README_SECTION + ")";
    return facts + ": user " + a.user + " holds group " + a.group +
           ", yet the open was refused: a security module (AppArmor, SELinux) or a container's device "
           "cgroup denies it";
}

std::string container_permission_hint(const std::string& path) {
    std::string text = "no read/write permission on " + path;
    if (auto a = describe_device_file(path))
        text += " (owner " + a->owner + ", group " + a->group + ", mode " + octal(a->mode) + ")";
    return text + ": the kernel makes it mode 0666, every user may open the container and the group files " +
           "/dev/vfio/<N> hold the access control: `sudo chmod 0666 " + path + "`; " + README_SECTION;
}

MemlockState current_memlock(const std::string& status_path) {
    MemlockState state;
    rlimit limit{};
    if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        state.limit = static_cast<uint64_t>(limit.rlim_cur);
    std::ifstream status(status_path);
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmLck:", 0) == 0)
            state.locked = std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
        else if (line.rfind("CapEff:", 0) == 0)
            state.ipc_lock = (std::strtoull(line.c_str() + 7, nullptr, 16) >> CAP_IPC_LOCK_BIT) & 1u;
    }
    return state;
}

std::string memlock_hint(const MemlockState& state, uint64_t mapping_bytes) {
    const uint64_t needed = state.locked + mapping_bytes;
    const std::string other_causes =
        "so the container may have reached vfio_iommu_type1.dma_entry_limit (65535 mappings), or memory is short";
    if (state.ipc_lock)
        return "the process has CAP_IPC_LOCK, so RLIMIT_MEMLOCK does not limit it; " + other_causes;
    if (!state.limit)
        return "RLIMIT_MEMLOCK is unlimited; " + other_causes;
    if (needed <= *state.limit)
        return "RLIMIT_MEMLOCK is " + bytes_text(*state.limit) + " and " + bytes_text(needed) +
               " are needed in all: within the limit, " + other_causes;
    const uint64_t kib = (needed + 1023) / 1024;
    return "RLIMIT_MEMLOCK (ulimit -l) is " + bytes_text(*state.limit) + "; this mapping of " +
           bytes_text(mapping_bytes) + " needs " + bytes_text(needed) + " locked in all (" +
           std::to_string(state.locked) + " bytes already locked by this process). Raise it in the shell that "
           "starts the tool: `ulimit -l " + std::to_string(kib) +
           "` (KiB, the least for this mapping: the tool's other buffers may need more, and `ulimit -l unlimited` "
           "saves counting; above the hard limit `ulimit -H -l` only root may raise it), or for good with a line `@" +
           VFIO_USER_GROUP + " - memlock unlimited` in /etc/security/limits.d/pcie-dma.conf and a new login "
           "(systemd services: LimitMEMLOCK=); " + README_SECTION;
}

}  // namespace vfio
