// A stepped XDMA model for register-level tests: raw register accesses and hand-built descriptors
// in host memory, independent of the driver in dma_bridge/.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "sim/xdma_model.hpp"
#include "stepped_device_rig.hpp"

namespace xdma_register_test {

// Where a rig maps its host memory for DMA.
constexpr uint64_t kIova = 0x100000;

// A simulated device whose BAR 0 of `bar_size` bytes holds a stepped XDMA model, with bus master
// enabled and the BAR in `regs`; `host` (HostBytes bytes, zeroed) is mapped for DMA at kIova.
template <size_t HostBytes>
struct RegisterRig : sim_test::SteppedDeviceRig<HostBytes> {
    using Base = sim_test::SteppedDeviceRig<HostBytes>;
    using Base::host;

    explicit RegisterRig(sim::XdmaConfig config, uint64_t bar_size = 0x10000) : Base(0x7024, bar_size) {
        config.stepped = true;
        model = sim::XdmaModel::attach(*this->device, *this->bar, config);
        this->enable(bar_size, kIova);
    }
    // Descriptor at host offset `at`.
    void descriptor(size_t at, uint32_t control, uint32_t length, uint64_t src, uint64_t dst, uint64_t nxt = 0) {
        const uint32_t word0 = 0xAD4Bu << 16 | control;
        std::memcpy(host + at, &word0, 4);
        std::memcpy(host + at + 4, &length, 4);
        std::memcpy(host + at + 8, &src, 8);
        std::memcpy(host + at + 16, &dst, 8);
        std::memcpy(host + at + 24, &nxt, 8);
    }
    std::shared_ptr<sim::XdmaModel> model;
};

}  // namespace xdma_register_test
