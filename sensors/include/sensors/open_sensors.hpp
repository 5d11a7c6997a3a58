// The sensor blocks a design lists (XADC, SYSMON with its slave SYSMONs, CMS), opened on its
// device at the device's revision: one place that knows every sensor driver.
#pragma once

#include <memory>
#include <vector>

#include "designs/design.hpp"
#include "streams/sensor_block.hpp"
#include "vfio_access/device.hpp"

namespace sensors {

// "bar 0 offset 0x3000": where a block sits, as SensorBlock::location() gives it.
std::string block_location(unsigned bar, uint64_t offset);

// The design's sensor blocks in design order; none (not an error) when it lists none. Fails
// when a listed block's BAR cannot be mapped or does not hold its registers.
pdt::Result<std::vector<std::unique_ptr<streams::SensorBlock>>> open_sensor_blocks(vfio::Device& device,
                                                                                   const designs::Design& design,
                                                                                   uint8_t revision);

}  // namespace sensors
