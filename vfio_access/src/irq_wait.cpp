// irq_wait_any (irq_wait.hpp).
#include "vfio_access/irq_wait.hpp"

#include <poll.h>

#include <cerrno>
#include <string>

namespace vfio {

pdt::Result<std::vector<uint64_t>> irq_wait_any(Device& device, const std::vector<unsigned>& vectors,
                                                std::chrono::milliseconds timeout) {
    std::vector<pollfd> fds;
    for (const unsigned vector : vectors)
        fds.push_back(pollfd{PDT_TRY(device.irq_eventfd(vector)), POLLIN, 0});
    int rc;
    do {
        rc = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
    } while (rc < 0 && errno == EINTR);
    const std::string bdf = device.identity().address.to_string();
    if (rc < 0)
        return pdt::errno_error("poll interrupt eventfds", bdf);
    if (rc == 0)
        return pdt::make_error("wait for an interrupt", bdf, ETIMEDOUT,
                               "none within " + std::to_string(timeout.count()) + " ms");
    std::vector<uint64_t> counts;
    for (const unsigned vector : vectors)
        counts.push_back(PDT_TRY(device.irq_poll(vector)));
    return counts;
}

}  // namespace vfio
