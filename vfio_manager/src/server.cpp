#include "vfio_manager/server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <system_error>

namespace vfio_manager {
namespace fs = std::filesystem;

struct Server::Domain {
    uint32_t id = 0;
    std::vector<vfio::DeviceIdentity> identities;
    std::unique_ptr<vfio::KernelDeviceBus> bus;
    std::vector<std::unique_ptr<vfio::KernelDevice>> devices;  // destroyed before bus
    IovaBook book;
    std::set<uint32_t> users;  // clients that opened a device of this container
};

struct Server::Client {
    uint32_t id = 0;
    vfio::UniqueFd fd;
    PeerCredentials peer;
    std::string exe;
    std::string name() const { return "PID " + std::to_string(peer.pid) + " " + exe; }
};

Server::Server(ServerOptions options, std::ostream& log) : m_options(std::move(options)), m_log(log) {
    m_policy.owner = ::geteuid();
    m_policy.group = m_options.allow_group;
}

Server::~Server() {
    if (m_listener.valid())
        ::unlink(m_options.socket_path.c_str());  // only a socket this server bound
}

pdt::Result<std::unique_ptr<Server>> Server::create(ServerOptions options, std::ostream& log) {
    PDT_CHECK(vfio::check_vfio_available(options.kernel.dev_vfio_root));  // else "not bound" would mislead
    vfio::KernelDeviceBus scanner(options.kernel);
    const std::vector<vfio::ScannedDevice> scanned = PDT_TRY(scanner.scan_devices());
    std::vector<vfio::DeviceIdentity> devices;
    for (const vfio::ScannedDevice& d : scanned)
        if (d.bound_to_vfio())
            devices.push_back(d.identity);
    if (devices.empty())
        return pdt::make_error("start", "VFIO manager", ENODEV,
                               "No available IOMMU groups to manage: no selected device is bound to vfio-pci");
    return start(std::move(options), devices, log);
}

pdt::Result<std::unique_ptr<Server>> Server::start(ServerOptions options, const std::vector<vfio::DeviceIdentity>& devices,
                                                   std::ostream& log) {
    std::unique_ptr<Server> server(new Server(std::move(options), log));
    std::map<int, Domain*> by_group;
    for (const vfio::DeviceIdentity& id : devices) {
        const int group = id.iommu_group >= 0 ? id.iommu_group
                                               : vfio::sysfs_iommu_group(server->m_options.kernel.sysfs_root, id.address);
        const int key = server->m_options.isolate_iommu_groups ? group : 0;
        if (!by_group.count(key)) {
            server->m_domains.push_back(std::make_unique<Domain>());
            server->m_domains.back()->id = static_cast<uint32_t>(server->m_domains.size());
            by_group[key] = server->m_domains.back().get();
        }
        by_group[key]->identities.push_back(id);
    }
    for (auto& domain : server->m_domains) {
        PDT_CHECK(server->open_domain(*domain));
        for (const auto& device : domain->devices)
            log << "Opened " << device->identity().description() << " in IOMMU group " << device->group().number
                << ", container " << domain->id << "\n";
    }
    PDT_CHECK(server->bind());
    log << "VFIO manager listening on " << server->m_options.socket_path << " (" << devices.size() << " devices, "
        << server->m_domains.size() << " containers)" << std::endl;
    return server;
}

pdt::Result<void> Server::open_domain(Domain& domain) {
    domain.devices.clear();
    domain.bus.reset();
    vfio::KernelOptions kernel = m_options.kernel;
    kernel.broker.reset();
    domain.bus = std::make_unique<vfio::KernelDeviceBus>(kernel);
    for (const vfio::DeviceIdentity& id : domain.identities)
        domain.devices.push_back(PDT_TRY(domain.bus->open_device(id)));
    domain.book.attach(domain.devices.empty() ? nullptr : &domain.devices.front()->iova_allocator());
    return {};
}

pdt::Result<void> Server::bind() {
    const std::string& path = m_options.socket_path;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path)
        return pdt::make_error("bind", path, ENAMETOOLONG, "the socket path must be 1 to 107 bytes");
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const fs::path dir = fs::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::exists(dir, ec)) {
        if (::mkdir(dir.c_str(), m_policy.group ? 0750 : 0700) < 0 && errno != EEXIST)
            return pdt::errno_error("mkdir", dir.string());
        if (m_policy.group && ::chown(dir.c_str(), static_cast<uid_t>(-1), *m_policy.group) < 0)
            return pdt::errno_error("chown", dir.string());
    }
    vfio::UniqueFd listener(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!listener.valid())
        return pdt::errno_error("socket", path);
    // A socket file left by a manager that died is replaced; a live one is not.
    vfio::UniqueFd probe(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (::connect(probe.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0)
        return pdt::make_error("bind", path, EADDRINUSE, "another VFIO manager is already listening there");
    ::unlink(path.c_str());
    const mode_t old_mask = ::umask(0177);
    const int rc = ::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::umask(old_mask);
    if (rc < 0)
        return pdt::errno_error("bind", path);
    m_listener = std::move(listener);
    if (m_policy.group && (::chown(path.c_str(), static_cast<uid_t>(-1), *m_policy.group) < 0 ||
                           ::chmod(path.c_str(), 0660) < 0))
        return pdt::errno_error("chown/chmod", path);
    if (::listen(m_listener.get(), 64) < 0)
        return pdt::errno_error("listen", path);
    return {};
}

StatusReply Server::status() const {
    StatusReply s;
    s.clients = static_cast<uint32_t>(m_clients.size());
    for (const auto& d : m_domains) {
        s.devices_open += static_cast<uint32_t>(d->devices.size());
        s.quarantined_regions += static_cast<uint32_t>(d->book.quarantined());
        s.iova_regions += static_cast<uint32_t>(d->book.regions() - d->book.quarantined());
    }
    s.containers_recycled = m_recycled;
    return s;
}

void Server::accept_client() {
    vfio::UniqueFd fd(::accept4(m_listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd.valid())
        return;
    auto peer = peer_credentials(fd.get());
    if (!peer) {
        m_log << "Refused a client: " << peer.error().message() << std::endl;
        return;
    }
    const std::string exe = executable_of(peer->pid);
    const std::string why = refusal_reason(m_policy, *peer);
    if (!why.empty()) {
        m_log << "Refused client PID " << peer->pid << " " << exe << ": " << why << std::endl;
        return;
    }
    auto client = std::make_unique<Client>();
    client->id = m_next_client++;
    client->fd = std::move(fd);
    client->peer = *peer;
    client->exe = exe;
    m_log << "Client " << client->name() << " connected (uid " << peer->uid << ")" << std::endl;
    m_clients.push_back(std::move(client));
}

Server::Domain* Server::find_domain(uint32_t id) {
    for (auto& d : m_domains)
        if (d->id == id)
            return d.get();
    return nullptr;
}

OpenDeviceReply Server::open_device(Client& client, const OpenDevice& request, std::vector<int>& fds) {
    OpenDeviceReply reply;
    for (auto& domain : m_domains) {
        for (auto& device : domain->devices) {
            if (device->identity().address != request.address)
                continue;
            reply.container_id = domain->id;
            reply.iommu_type = device->container_info().iommu_type;
            reply.iommu_group = device->group().number;
            reply.noiommu = device->group().noiommu;
            reply.page_size = device->iova_allocator().page_size();
            fds = {device->fd(), device->container_fd()};
            domain->users.insert(client.id);
            return reply;
        }
    }
    std::string managed;
    for (auto& domain : m_domains)
        for (auto& device : domain->devices)
            managed += (managed.empty() ? "" : ", ") + device->identity().address.to_string();
    reply.error = ReplyError::from(pdt::make_error(
        "open", request.address.to_string(), ENODEV,
        "not managed by the VFIO manager (it manages: " + (managed.empty() ? std::string("none") : managed) + ")"));
    return reply;
}

std::optional<Message> Server::reply(Client& client, const Message& request, std::vector<int>& fds) {
    Message out;
    out.sequence = request.sequence;
    if (auto* open = std::get_if<OpenDevice>(&request.body)) {
        out.body = open_device(client, *open, fds);
    } else if (auto* allocate = std::get_if<AllocateIova>(&request.body)) {
        AllocateIovaReply r;
        Domain* domain = find_domain(allocate->container_id);
        auto iova = domain && domain->users.count(client.id)
                        ? domain->book.allocate(client.id, allocate->size, allocate->dma_mask_bits)
                        : pdt::Result<uint64_t>(pdt::make_error("allocate IOVA", "container " + std::to_string(allocate->container_id),
                                                                EPERM, "open a device of that container first"));
        if (iova)
            r.iova = *iova;
        else
            r.error = ReplyError::from(iova.error());
        out.body = r;
    } else if (auto* free = std::get_if<FreeIova>(&request.body)) {
        FreeIovaReply r;
        Domain* domain = find_domain(free->container_id);
        auto freed = domain ? domain->book.free(client.id, free->iova, free->size)
                            : pdt::Result<void>(pdt::make_error("free IOVA", "container " + std::to_string(free->container_id),
                                                                ENOENT, "no such container"));
        if (!freed)
            r.error = ReplyError::from(freed.error());
        out.body = r;
    } else if (std::holds_alternative<Status>(request.body)) {
        out.body = status();
    } else {
        return std::nullopt;  // a reply type sent by a client
    }
    return out;
}

bool Server::serve(Client& client) {
    auto packet = receive_packet(client.fd.get());
    if (!packet) {
        m_log << "Client " << client.name() << ": " << packet.error().message() << "; closing that client" << std::endl;
        return false;
    }
    if (!packet->has_value())
        return false;  // end of file: the client exited or was killed
    if (!(*packet)->fds.empty()) {
        m_log << "Malformed message from client " << client.name() << ": file descriptors attached; closing that client"
              << std::endl;
        return false;
    }
    auto request = decode((*packet)->bytes.data(), (*packet)->bytes.size());
    if (!request) {
        m_log << "Malformed message from client " << client.name() << ": " << request.error().message()
              << "; closing that client" << std::endl;
        return false;
    }
    std::vector<int> fds;
    std::optional<Message> out = reply(client, *request, fds);
    if (!out) {
        m_log << "Malformed message from client " << client.name() << ": " << to_string(request->type())
              << " is a reply, not a request; closing that client" << std::endl;
        return false;
    }
    auto sent = send_packet(client.fd.get(), encode(*out), fds);
    if (!sent) {
        m_log << "Client " << client.name() << ": " << sent.error().message() << "; closing that client" << std::endl;
        return false;
    }
    return true;
}

void Server::disconnect(size_t index, const std::string& why) {
    std::unique_ptr<Client> client = std::move(m_clients[index]);
    m_clients.erase(m_clients.begin() + static_cast<std::ptrdiff_t>(index));
    size_t left = 0;
    for (auto& domain : m_domains) {
        left += domain->book.quarantine(client->id);
        domain->users.erase(client->id);
    }
    m_log << "Client " << client->name() << " " << why;
    if (left > 0)
        m_log << "; it still had " << left << " IOVA regions: quarantined until its container is recycled";
    m_log << std::endl;
    for (auto& domain : m_domains) {
        if (domain->book.quarantined() == 0 || !domain->users.empty())
            continue;
        m_log << "Recycling container " << domain->id
              << ": closing and reopening its devices and groups to drop the mappings of clients that left "
                 "(this resets the devices)"
              << std::endl;
        auto reopened = open_domain(*domain);
        ++m_recycled;
        if (!reopened)
            m_log << "Error: reopening container " << domain->id << ": " << reopened.error().message() << std::endl;
    }
}

pdt::Result<void> Server::run(const std::atomic<bool>& stop) {
    bool announced = false;
    bool had_client = false;
    for (;;) {
        if (stop && !announced) {
            m_log << "Manager will shutdown once there are no connected clients" << std::endl;
            announced = true;
        }
        if (m_clients.empty() && (stop || (m_options.once && had_client)))
            break;
        std::vector<pollfd> fds{{m_listener.get(), POLLIN, 0}};
        for (const auto& c : m_clients)
            fds.push_back({c->fd.get(), POLLIN, 0});
        const int ready = ::poll(fds.data(), fds.size(), 200);
        if (ready < 0 && errno != EINTR)
            return pdt::errno_error("poll", m_options.socket_path);
        if (ready <= 0)
            continue;
        for (size_t i = fds.size(); i-- > 1;) {
            if (fds[i].revents == 0)
                continue;
            const bool keep = (fds[i].revents & POLLIN) && serve(*m_clients[i - 1]);
            if (!keep)
                disconnect(i - 1, "disconnected");
        }
        if (fds[0].revents & POLLIN) {
            const size_t before = m_clients.size();
            accept_client();
            had_client = had_client || m_clients.size() > before;
        }
    }
    m_log << "Shutting down" << std::endl;
    ::unlink(m_options.socket_path.c_str());
    m_listener.reset();
    return {};
}

}  // namespace vfio_manager
