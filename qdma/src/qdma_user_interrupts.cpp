// User interrupts of a QDMA function (qdma_user_interrupts.hpp).
#include "qdma/qdma_user_interrupts.hpp"

#include <string>

#include "vfio_access/irq_wait.hpp"

namespace qdma {

pdt::Result<std::unique_ptr<UserInterrupts>> UserInterrupts::enable(vfio::Device& device,
                                                                    std::vector<streams::UserInterruptRoute> routes) {
    const std::string bdf = device.identity().address.to_string();
    for (const streams::UserInterruptRoute& r : routes)
        if (r.vector != r.irq || r.irq > kMaxUserVector)
            return pdt::usage_error("enable user interrupt " + std::to_string(r.irq), bdf,
                                    "on QDMA the user logic names the MSI-X vector itself (usr_irq_in_vec, 0 to 2047): "
                                    "the vector is the user interrupt's number");
    const vfio::IrqInfo msix = PDT_TRY(device.irq_info(vfio::IrqIndex::Msix));
    const vfio::IrqInfo msi = PDT_TRY(device.irq_info(vfio::IrqIndex::Msi));
    const vfio::IrqInfo& offered = msix.count > 0 ? msix : msi;
    if (offered.count == 0)
        return pdt::make_error("enable user interrupts", bdf, ENOTSUP, "the function offers no MSI-X or MSI vectors");
    PDT_CHECK(streams::check_user_interrupt_routes(routes, offered.count, bdf));
    if (!device.irq_eventfd(offered.count - 1).ok())  // enabled earlier with all of them: kept
        PDT_CHECK(device.irq_enable(offered.index, offered.count));
    for (const streams::UserInterruptRoute& r : routes)
        PDT_TRY(device.irq_poll(r.vector));  // an earlier user's count is not this run's
    return std::unique_ptr<UserInterrupts>(new UserInterrupts(device, std::move(routes)));
}

pdt::Result<std::vector<uint64_t>> UserInterrupts::wait(std::chrono::milliseconds timeout) {
    std::vector<unsigned> vectors;
    for (const streams::UserInterruptRoute& r : m_routes)
        vectors.push_back(r.vector);
    return vfio::irq_wait_any(m_device, vectors, timeout);
}

}  // namespace qdma
