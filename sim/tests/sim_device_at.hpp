// A simulated device, without BARs, whose config space starts with the given bytes (its vendor
// and device IDs read from them): for tests of what a tool reads through an opened device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
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

}  // namespace sim_test
