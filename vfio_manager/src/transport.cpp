#include "vfio_manager/transport.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "vfio_manager/protocol.hpp"

namespace vfio_manager {

pdt::Result<std::string> socket_path() {
    if (const char* path = std::getenv(k_socket_env); path && *path)
        return std::string(path);
    if (::geteuid() == 0)
        return std::string("/run/pcie-dma-toolkit/vfio_manager.sock");
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
        return std::string(runtime) + "/pcie-dma-toolkit/vfio_manager.sock";
    return pdt::make_error("locate", "VFIO manager socket", ENOENT,
                           "XDG_RUNTIME_DIR is not set: set it, or name the socket in PDT_VFIO_MANAGER_SOCKET");
}

pdt::Result<PeerCredentials> peer_credentials(int fd) {
    ucred cred{};
    socklen_t length = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) < 0)
        return pdt::errno_error("getsockopt SO_PEERCRED", "VFIO manager client");
    return PeerCredentials{cred.pid, cred.uid, cred.gid};
}

std::string executable_of(pid_t pid) {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
    return ec ? std::string("(unknown)") : exe.string();
}

std::string refusal_reason(const AccessPolicy& policy, const PeerCredentials& peer) {
    if (peer.uid == 0 || peer.uid == policy.owner)
        return {};
    if (policy.group && peer.gid == *policy.group)
        return {};
    std::string why = "uid " + std::to_string(peer.uid) + " is neither the manager's uid " +
                      std::to_string(policy.owner) + " nor root";
    if (policy.group)
        why += ", and gid " + std::to_string(peer.gid) + " is not the allowed group " + std::to_string(*policy.group);
    else
        why += " (start the manager with the group allowance to serve a group)";
    return why;
}

pdt::Result<void> send_packet(int socket, const std::vector<uint8_t>& bytes, const std::vector<int>& fds) {
    iovec io{const_cast<uint8_t*>(bytes.data()), bytes.size()};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    std::vector<uint8_t> control;
    if (!fds.empty()) {
        control.assign(CMSG_SPACE(fds.size() * sizeof(int)), 0);
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
        std::memcpy(CMSG_DATA(cmsg), fds.data(), fds.size() * sizeof(int));
    }
    ssize_t sent;
    do {
        sent = ::sendmsg(socket, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return pdt::errno_error("sendmsg", "VFIO manager socket");
    if (static_cast<size_t>(sent) != bytes.size())
        return pdt::make_error("sendmsg", "VFIO manager socket", EIO,
                               "sent " + std::to_string(sent) + " of " + std::to_string(bytes.size()) + " bytes");
    return {};
}

pdt::Result<std::optional<Packet>> receive_packet(int socket) {
    Packet packet;
    packet.bytes.resize(k_max_message + 1);
    iovec io{packet.bytes.data(), packet.bytes.size()};
    alignas(cmsghdr) uint8_t control[CMSG_SPACE(4 * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t got;
    do {
        got = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got < 0)
        return pdt::errno_error("recvmsg", "VFIO manager socket");
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            packet.fds.emplace_back(fd);
        }
    }
    if (got == 0 && packet.fds.empty())
        return std::optional<Packet>();
    packet.bytes.resize(static_cast<size_t>(got));
    if (msg.msg_flags & MSG_TRUNC)
        packet.bytes.resize(k_max_message + 1);  // decode() rejects it as too long
    if (msg.msg_flags & MSG_CTRUNC)
        return pdt::make_error("recvmsg", "VFIO manager socket", EPROTO, "too many file descriptors attached");
    return std::optional<Packet>(std::move(packet));
}

}  // namespace vfio_manager
