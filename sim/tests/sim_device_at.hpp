// A simulated device, without BARs, whose config space starts with the given bytes (its vendor
// and device IDs read from them): for tests of what a tool reads through an opened device; and
// the identity of a simulated Xilinx device, for the rigs that build one with BARs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/sim_device.hpp"

namespace sim_test {

inline std::unique_ptr<sim::SimDevice> device_at(const vfio::PciAddress& address, const std::vector<uint8_t>& config) {
    vfio::DeviceIdentity id;
    id.address = address;
    id.vendor_id = static_cast<uint16_t>(config[0] | config[1] << 8);
    id.device_id = static_cast<uint16_t>(config[2] | config[3] << 8);
    auto device = std::make_unique<sim::SimDevice>(id, std::vector<std::shared_ptr<sim::SimBar>>{});
    std::copy(config.begin(), config.end(), device->config_space().begin());
    return device;
}

// A Xilinx device (vendor 0x10ee, `device_id`) at `bdf`.
inline vfio::DeviceIdentity xilinx_identity(const std::string& bdf, uint16_t device_id) {
    vfio::DeviceIdentity id;
    id.address = *vfio::PciAddress::parse(bdf);
    id.vendor_id = 0x10ee;
    id.device_id = device_id;
    return id;
}

}  // namespace sim_test
