// The manager's socket: where it lives, who may use it, and packets with file descriptors.
//
// Path: $PDT_VFIO_MANAGER_SOCKET when set; else /run/pcie-dma-toolkit/vfio_manager.sock for
// root; else $XDG_RUNTIME_DIR/pcie-dma-toolkit/vfio_manager.sock. The manager creates the
// folder 0700 (0750 with an allowed group) and the socket 0600 (0660), and checks each
// client's SO_PEERCRED: only its own uid and root are served, plus one group when named.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/unique_fd.hpp"

namespace vfio_manager {

inline constexpr const char* k_socket_env = "PDT_VFIO_MANAGER_SOCKET";

// The socket path for this process (see above); ENOENT when neither the variable, root, nor
// XDG_RUNTIME_DIR gives one.
pdt::Result<std::string> socket_path();

struct PeerCredentials {
    pid_t pid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
};
pdt::Result<PeerCredentials> peer_credentials(int fd);
// "/usr/bin/tool" from /proc/<pid>/exe, or "(unknown)".
std::string executable_of(pid_t pid);

struct AccessPolicy {
    uid_t owner = 0;                   // the manager's uid
    std::optional<gid_t> group;        // --allow_group: also serve this (primary) group
};
// Empty when the peer is served; else why not.
std::string refusal_reason(const AccessPolicy& policy, const PeerCredentials& peer);

struct Packet {
    std::vector<uint8_t> bytes;  // more than k_max_message bytes when the packet was truncated
    std::vector<vfio::UniqueFd> fds;
};
// One SOCK_SEQPACKET packet with `fds` as SCM_RIGHTS (never blocks: EAGAIN when full).
pdt::Result<void> send_packet(int socket, const std::vector<uint8_t>& bytes, const std::vector<int>& fds = {});
// One packet; nullopt at end of file (the peer closed or died).
pdt::Result<std::optional<Packet>> receive_packet(int socket);

}  // namespace vfio_manager
