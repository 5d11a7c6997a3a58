// A simulated instance of a built-in QDMA design (sim's QDMA model, written from PG302 by
// another hand), its engines on their own thread, for the driver's model-backed tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "designs/registry.hpp"
#include "sim/design_sim.hpp"
#include "sim/qdma_model.hpp"

namespace qdma_model_test {

inline const designs::Design& design(const std::string& name) {
    static const designs::Registry registry = designs::Registry::builtin().value();
    const designs::Design* d = registry.find(name);
    EXPECT_NE(d, nullptr) << name;
    return *d;
}

inline sim::DesignInstance instance(const std::string& name) {
    const designs::Design& d = design(name);
    auto made = sim::instantiate_design(d, sim::simulated_identity(d, sim::simulated_address(0), 41), false);
    EXPECT_TRUE(made.ok()) << made.error().message();
    EXPECT_NE(made->qdma, nullptr) << name;
    EXPECT_TRUE(made->device->enable_bus_master().ok());
    return std::move(made).value();
}

}  // namespace qdma_model_test
