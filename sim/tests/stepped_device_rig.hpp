// What the register-level rigs of sim's DMA models share (xdma_register_rig.hpp, qdma_rig.hpp): a
// simulated Xilinx device at 0000:01:00.0 with one BAR, the BAR in `regs`, and `HostBytes` bytes
// of host memory (zeroed) mapped for DMA.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/sim_device.hpp"
#include "sim_device_at.hpp"
#include "vfio_access/mmio.hpp"

namespace sim_test {

template <size_t HostBytes>
struct SteppedDeviceRig {
    // The device (vendor 0x10ee, `device_id`) with BAR 0 of `bar_size` bytes; a rig attaches its
    // model to `device` and `bar`, then calls enable().
    SteppedDeviceRig(uint16_t device_id, uint64_t bar_size) {
        bar = std::make_shared<sim::SimBar>(bar_size);
        device = std::make_unique<sim::SimDevice>(xilinx_identity("0000:01:00.0", device_id),
                                                  std::vector<std::shared_ptr<sim::SimBar>>{bar});
    }
    // Bus master on, the first `bar_size` bytes of BAR 0 in `regs`, `host` mapped at `iova`.
    void enable(uint64_t bar_size, uint64_t iova) {
        EXPECT_TRUE(device->enable_bus_master().ok());
        regs = *device->bar(0).value()->window(0, bar_size, vfio::Access64::SplitLowHigh);
        EXPECT_TRUE(device->dma_map(iova, host, sizeof host, vfio::DmaAccess::DeviceReadWrite).ok());
    }

    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    vfio::RegisterWindow regs;
    alignas(4096) uint8_t host[HostBytes] = {};
};

}  // namespace sim_test
