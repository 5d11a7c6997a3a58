// A BAR for the sensor-block tests: a simulated BAR (unclaimed space reads all-ones, as undefined
// AXI reads do) with one register block at kBlockOffset, and windows onto it; and a sample's
// reading by name, and its failure.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "sim/peripheral_blocks.hpp"
#include "sim/sim_device.hpp"
#include "streams/sensor_block.hpp"
#include "vfio_access/mmio.hpp"

namespace sensors_test {

inline constexpr uint64_t kBlockOffset = 0x4000;

struct Rig {
    std::shared_ptr<sim::SimBar> backend = std::make_shared<sim::SimBar>(0x10000);
    vfio::Bar bar{0, backend};

    Rig() = default;
    Rig(std::shared_ptr<sim::RegisterBlock> block, uint64_t frame) { backend->add_block(kBlockOffset, frame, std::move(block)); }
    vfio::RegisterWindow window(uint64_t size, uint64_t offset = kBlockOffset) const {
        return bar.window(offset, size).value();
    }
};

// The reading named `name` of `sample`; a missing one fails the test (and reads as unreadable).
inline const streams::SensorReading& reading(const streams::SensorSample& sample, const std::string& name) {
    for (const streams::SensorReading& r : sample.readings)
        if (r.name == name)
            return r;
    ADD_FAILURE() << "no reading " << name;
    static const streams::SensorReading none;
    return none;
}

// Whether `sample` failed with errno `code` and exactly `message`, for EXPECT_TRUE.
inline testing::AssertionResult failed_with(const pdt::Result<streams::SensorSample>& sample, int code,
                                            const std::string& message) {
    if (sample.ok())
        return testing::AssertionFailure() << "the sample was read; expected: " << message;
    if (sample.error().code != code || sample.error().message() != message)
        return testing::AssertionFailure()
               << "failed with errno " << sample.error().code << ": " << sample.error().message() << "\nexpected errno "
               << code << ": " << message;
    return testing::AssertionSuccess();
}

// Read-only registers holding hand-set codes; every other offset of the block reads 0.
inline std::shared_ptr<sim::RegisterFileBlock> registers(const std::map<uint64_t, uint32_t>& values) {
    std::map<uint64_t, sim::RegisterFileBlock::Register> file;
    for (const auto& [offset, value] : values)
        file[offset] = {value, 0x0};
    return std::make_shared<sim::RegisterFileBlock>(std::move(file));
}

}  // namespace sensors_test
