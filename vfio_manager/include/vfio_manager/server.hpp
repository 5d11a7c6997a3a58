// The VFIO multi-process manager: owns the IOMMU groups and containers of the devices bound
// to vfio-pci and keeps the devices open (so VFIO resets none of them between tools); serves
// clients on a Unix SOCK_SEQPACKET socket (see transport.hpp for who may connect): hands each
// client the device fd and the container fd (SCM_RIGHTS), allocates IOVA centrally per
// container (each request's DMA mask honoured), and when a client goes away (EOF: it exited or
// was killed) quarantines the IOVA it still held and, once no client uses that container,
// recycles it: the devices and groups are closed (which drops every mapping the kernel kept
// for the dead client, and resets the device it may have left mid-DMA) and opened again.
// A malformed message closes that client only, and is logged.
#pragma once

#include <atomic>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vfio_access/kernel.hpp"
#include "vfio_manager/iova_book.hpp"
#include "vfio_manager/protocol.hpp"
#include "vfio_manager/transport.hpp"

namespace vfio_manager {

struct ServerOptions {
    vfio::KernelOptions kernel;          // which devices (selection) and paths; broker must be unset
    bool isolate_iommu_groups = false;   // one container per IOMMU group, else one for all
    bool once = false;                   // stop the first time the client count drops to 0
    std::optional<gid_t> allow_group;    // also serve clients of this primary group
    std::string socket_path;
};

class Server {
public:
    // Scans the selected vfio-pci devices and starts: ENODEV "No available IOMMU groups to
    // manage" when there are none.
    static pdt::Result<std::unique_ptr<Server>> create(ServerOptions options, std::ostream& log);
    // Opens the given devices (none is allowed: the protocol alone) and binds the socket.
    static pdt::Result<std::unique_ptr<Server>> start(ServerOptions options,
                                                      const std::vector<vfio::DeviceIdentity>& devices,
                                                      std::ostream& log);
    ~Server();

    // Serves until `stop` is set (then once no client is connected) or, with `once`, until the
    // client count drops to 0. Unlinks the socket on return.
    pdt::Result<void> run(const std::atomic<bool>& stop);
    StatusReply status() const;
    const std::string& path() const { return m_options.socket_path; }

private:
    struct Domain;
    struct Client;
    Server(ServerOptions options, std::ostream& log);
    pdt::Result<void> open_domain(Domain& domain);
    pdt::Result<void> bind();
    void accept_client();
    // false: the client is to be closed.
    bool serve(Client& client);
    std::optional<Message> reply(Client& client, const Message& request, std::vector<int>& fds);
    OpenDeviceReply open_device(Client& client, const OpenDevice& request, std::vector<int>& fds);
    Domain* find_domain(uint32_t id);
    void disconnect(size_t index, const std::string& why);

    ServerOptions m_options;
    std::ostream& m_log;
    AccessPolicy m_policy;
    vfio::UniqueFd m_listener;
    std::vector<std::unique_ptr<Domain>> m_domains;
    std::vector<std::unique_ptr<Client>> m_clients;
    uint32_t m_next_client = 1;
    uint32_t m_recycled = 0;
};

}  // namespace vfio_manager
