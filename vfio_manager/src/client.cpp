#include "vfio_manager/client.hpp"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "vfio_manager/transport.hpp"

namespace vfio_manager {

pdt::Result<std::shared_ptr<Client>> Client::connect(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path)
        return pdt::make_error("connect", path, ENAMETOOLONG, "the socket path must be 1 to 107 bytes");
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    vfio::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!fd.valid())
        return pdt::errno_error("socket", path);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) < 0)
        return pdt::errno_error("connect", path,
                                errno == EACCES ? "the VFIO manager's socket belongs to another user" : "");
    std::shared_ptr<Client> client(new Client(std::move(fd), path));
    PDT_CHECK(client->status());
    return client;
}

pdt::Result<std::pair<Message, std::vector<vfio::UniqueFd>>> Client::transact(Body request, MessageType expected) {
    std::lock_guard lock(m_mutex);
    Message out{++m_sequence, std::move(request)};
    const pdt::Error closed = pdt::make_error(to_string(out.type()), "VFIO manager " + m_path, ECONNRESET,
                                              "the manager closed the connection (it refuses clients of another "
                                              "uid, and closes a client after a malformed message: see its log)");
    auto sent = send_packet(m_fd.get(), encode(out));
    if (!sent)
        return sent.error().code == EPIPE || sent.error().code == ECONNRESET ? closed : sent.error();
    auto packet = receive_packet(m_fd.get());
    if (!packet)
        return packet.error().code == ECONNRESET ? closed : packet.error();
    if (!packet->has_value())
        return closed;
    Message in = PDT_TRY(decode((*packet)->bytes.data(), (*packet)->bytes.size()));
    if (in.sequence != out.sequence || in.type() != expected)
        return pdt::make_error(to_string(out.type()), "VFIO manager " + m_path, EPROTO,
                               std::string("expected ") + to_string(expected) + " " + std::to_string(out.sequence) +
                                   ", got " + to_string(in.type()) + " " + std::to_string(in.sequence));
    return std::make_pair(std::move(in), std::move((*packet)->fds));
}

pdt::Result<vfio::BrokeredDevice> Client::open_device(const vfio::PciAddress& address) {
    auto [message, fds] = PDT_TRY(transact(OpenDevice{address}, MessageType::OpenDeviceReply));
    const auto& reply = std::get<OpenDeviceReply>(message.body);
    if (reply.error.code != 0)
        return reply.error.to_error();
    if (fds.size() != 2)
        return pdt::make_error("open", address.to_string() + " through the VFIO manager", EPROTO,
                               std::to_string(fds.size()) + " file descriptors received, expected 2");
    vfio::BrokeredDevice device;
    device.device_fd = std::move(fds[0]);
    device.container_fd = std::move(fds[1]);
    device.container_id = reply.container_id;
    device.iommu_type = reply.iommu_type;
    device.iommu_group = reply.iommu_group;
    device.noiommu = reply.noiommu;
    device.page_size = reply.page_size;
    return device;
}

pdt::Result<uint64_t> Client::allocate_iova(uint32_t container_id, uint64_t size, unsigned dma_mask_bits) {
    auto [message, fds] = PDT_TRY(transact(AllocateIova{container_id, dma_mask_bits, size}, MessageType::AllocateIovaReply));
    const auto& reply = std::get<AllocateIovaReply>(message.body);
    if (reply.error.code != 0)
        return reply.error.to_error();
    return reply.iova;
}

pdt::Result<void> Client::free_iova(uint32_t container_id, uint64_t iova, uint64_t size) {
    auto [message, fds] = PDT_TRY(transact(FreeIova{container_id, iova, size}, MessageType::FreeIovaReply));
    const auto& reply = std::get<FreeIovaReply>(message.body);
    if (reply.error.code != 0)
        return reply.error.to_error();
    return {};
}

pdt::Result<StatusReply> Client::status() {
    auto [message, fds] = PDT_TRY(transact(Status{}, MessageType::StatusReply));
    return std::get<StatusReply>(message.body);
}

pdt::Result<std::shared_ptr<Client>> connect_if_running() {
    auto path = socket_path();
    if (!path)
        return std::shared_ptr<Client>();
    auto client = Client::connect(*path);
    if (!client && (client.error().code == ENOENT || client.error().code == ECONNREFUSED) &&
        client.error().operation == "connect")
        return std::shared_ptr<Client>();
    return client;
}

}  // namespace vfio_manager
