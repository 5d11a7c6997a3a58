// Waiting on several interrupt vectors of a device at once (Device::irq_wait waits on one): the
// eventfds of all polled together, so that interrupts of different sources are counted apart.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/device.hpp"

namespace vfio {

// Waits up to `timeout` until any of `vectors` (each enabled on `device`) signals; then each
// vector's interrupts since its last wait, in the order given (0 for those that did not signal).
// ETIMEDOUT ("none within <ms> ms") when none came; ENXIO for a vector not enabled.
pdt::Result<std::vector<uint64_t>> irq_wait_any(Device& device, const std::vector<unsigned>& vectors,
                                                std::chrono::milliseconds timeout);

}  // namespace vfio
