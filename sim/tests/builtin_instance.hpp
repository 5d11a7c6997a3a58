// A simulated instance of a built-in design, stepped (deterministic), at seed 004's first
// address, and a 32-bit read of one of its BARs: what the design-level sim tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "designs/registry.hpp"
#include "sim/design_sim.hpp"

namespace sim_test {

inline const designs::Registry& builtin_registry() {
    static const designs::Registry r = designs::Registry::builtin().value();
    return r;
}

inline sim::DesignInstance instance(const std::string& name) {
    const designs::Design* d = builtin_registry().find(name);
    EXPECT_NE(d, nullptr) << name;
    auto made = sim::instantiate_design(*d, sim::simulated_identity(*d, sim::simulated_address(0), 41), true);
    EXPECT_TRUE(made.ok()) << made.error().message();
    return std::move(made).value();
}

inline uint32_t read32(vfio::Device& device, unsigned bar, uint64_t offset) {
    return static_cast<uint32_t>(device.bar(bar).value()->read(offset, 4).value());
}

}  // namespace sim_test
