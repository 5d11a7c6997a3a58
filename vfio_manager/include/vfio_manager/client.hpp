// A connection to the VFIO manager, used as the KernelDeviceBus's DeviceBroker:
//
//   auto client = PDT_TRY(vfio_manager::connect_if_running());  // nullptr: no manager
//   vfio::KernelOptions options;
//   options.broker = client;                                    // devices now come from it
//
// One request at a time (a mutex serialises threads); each reply is matched by sequence.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "vfio_access/broker.hpp"
#include "vfio_manager/protocol.hpp"

namespace vfio_manager {

class Client final : public vfio::DeviceBroker {
public:
    // Connects and asks for the status, so a manager that refuses this process is an error
    // here. ECONNREFUSED/ENOENT when nothing listens at path.
    static pdt::Result<std::shared_ptr<Client>> connect(const std::string& path);

    pdt::Result<vfio::BrokeredDevice> open_device(const vfio::PciAddress& address) override;
    pdt::Result<uint64_t> allocate_iova(uint32_t container_id, uint64_t size, unsigned dma_mask_bits) override;
    pdt::Result<void> free_iova(uint32_t container_id, uint64_t iova, uint64_t size) override;
    pdt::Result<StatusReply> status();
    const std::string& path() const { return m_path; }

private:
    Client(vfio::UniqueFd fd, std::string path) : m_fd(std::move(fd)), m_path(std::move(path)) {}
    // Sends the request, returns the reply of the expected type with any fds attached.
    pdt::Result<std::pair<Message, std::vector<vfio::UniqueFd>>> transact(Body request, MessageType expected);

    std::mutex m_mutex;
    vfio::UniqueFd m_fd;
    std::string m_path;
    uint32_t m_sequence = 0;
};

// The manager of socket_path() when one is listening there; nullptr when none is (no socket
// file, or a stale one nobody listens on); an Error when one is there but cannot be used
// (no permission, refused this process, speaks another protocol version).
pdt::Result<std::shared_ptr<Client>> connect_if_running();

}  // namespace vfio_manager
