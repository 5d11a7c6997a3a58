// One built-in design instantiated on the simulated bus and identified, as a tool would find
// it, with the XDMA model kept for fault injection: the setup several sim tests share.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "designs/registry.hpp"
#include "identify/identify.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"

namespace test_designs {

struct SimulatedDesign {
    std::shared_ptr<sim::XdmaModel> xdma;
    identify::IdentifiedDesign identified;
};

inline SimulatedDesign identify_simulated(const designs::Registry& registry, const char* name) {
    SimulatedDesign out;
    const designs::Design* design = registry.find(name);
    EXPECT_NE(design, nullptr) << name;
    auto instance = sim::instantiate_design(*design, sim::simulated_identity(*design, sim::simulated_address(0), 41));
    EXPECT_TRUE(instance.ok());
    out.xdma = instance->xdma;
    auto identified = identify::identify_device(*instance->device, *design);
    EXPECT_TRUE(identified.ok());
    identified->device = std::move(instance->device);
    out.identified = std::move(*identified);
    return out;
}

}  // namespace test_designs
