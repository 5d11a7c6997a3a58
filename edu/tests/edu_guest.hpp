// The edu device of the tests that run inside the QEMU guest (edu/guest/edu_vm_test.cpp,
// software_tests/tests/edu_stream_vm_test.cpp): the first one the kernel VFIO bus lists, opened
// (opening resets the function), and the edu driver attached to it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "edu/edu_device.hpp"
#include "vfio_access/kernel.hpp"

namespace edu_guest {

struct Guest {
    explicit Guest(vfio::KernelOptions options) : bus(std::move(options)) {}

    // Opens the first edu device on the bus; false, with `error` set, when there is none or it
    // does not open.
    bool open_first() {
        auto ids = bus.scan();
        if (!ids || ids->empty()) {
            error = ids ? "no edu device (1234:11e8) bound to vfio-pci" : ids.error().message();
            return false;
        }
        auto opened = bus.open_device(ids->front());
        if (!opened) {
            error = opened.error().message();
            return false;
        }
        device = std::move(opened).value();
        return true;
    }

    // Attaches the edu driver to the opened device; false, with `error` set, when it does not.
    bool attach() {
        auto attached = edu::EduDevice::attach(*device);
        if (!attached) {
            error = attached.error().message();
            return false;
        }
        edu.emplace(std::move(attached).value());
        return true;
    }

    vfio::KernelDeviceBus bus;
    std::unique_ptr<vfio::KernelDevice> device;
    std::optional<edu::EduDevice> edu;
    std::string error;  // why device or edu is missing
};

}  // namespace edu_guest
