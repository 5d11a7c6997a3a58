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

namespace xdma_register_test {

// Where a rig maps its host memory for DMA.
constexpr uint64_t kIova = 0x100000;

// A simulated device whose BAR 0 of `bar_size` bytes holds a stepped XDMA model, with bus master
// enabled and the BAR in `regs`; `host` (HostBytes bytes, zeroed) is mapped for DMA at kIova.
template <size_t HostBytes>
struct RegisterRig {
    explicit RegisterRig(sim::XdmaConfig config, uint64_t bar_size = 0x10000) {
        config.stepped = true;
        vfio::DeviceIdentity id;
        id.address = *vfio::PciAddress::parse("0000:01:00.0");
        id.vendor_id = 0x10ee;
        id.device_id = 0x7024;
        bar = std::make_shared<sim::SimBar>(bar_size);
        device = std::make_unique<sim::SimDevice>(id, std::vector<std::shared_ptr<sim::SimBar>>{bar});
        model = sim::XdmaModel::attach(*device, *bar, config);
        EXPECT_TRUE(device->enable_bus_master().ok());
        regs = *device->bar(0).value()->window(0, bar_size, vfio::Access64::SplitLowHigh);
        EXPECT_TRUE(device->dma_map(kIova, host, sizeof host, vfio::DmaAccess::DeviceReadWrite).ok());
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
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    std::shared_ptr<sim::XdmaModel> model;
    vfio::RegisterWindow regs;
    alignas(4096) uint8_t host[HostBytes] = {};
};

}  // namespace xdma_register_test
