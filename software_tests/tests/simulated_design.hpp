// One built-in design instantiated on the simulated bus and identified, as a tool would find
// it, with the XDMA model kept for fault injection, then opened as the stream tools open it: the
// setup several sim tests share.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "designs/registry.hpp"
#include "identify/identify.hpp"
#include "sim/design_sim.hpp"
#include "sim/xdma_model.hpp"
#include "stream_tools/stream_tools.hpp"
#include "adapters/xdma_stream_devices.hpp"

namespace test_designs {

struct SimulatedDesign {
    std::shared_ptr<sim::XdmaModel> xdma;
    identify::IdentifiedDesign identified;
};

// The design at the simulated bus's `index`th address and IOMMU group (0: 0000:15:00.0, group 41).
inline SimulatedDesign identify_simulated(const designs::Registry& registry, const char* name, size_t index = 0) {
    SimulatedDesign out;
    const designs::Design* design = registry.find(name);
    EXPECT_NE(design, nullptr) << name;
    const auto identity =
        sim::simulated_identity(*design, sim::simulated_address(index), sim::simulated_iommu_group(index));
    auto instance = sim::instantiate_design(*design, identity);
    EXPECT_TRUE(instance.ok()) << instance.error().message();
    out.xdma = instance->xdma;
    auto identified = identify::identify_device(*instance->device, *design);
    EXPECT_TRUE(identified.ok()) << identified.error().message();
    identified->device = std::move(instance->device);
    out.identified = std::move(*identified);
    return out;
}

// The identified design opened as the stream tools' XDMA stream device, with `timeout` for its
// transfers.
inline std::unique_ptr<adapters::XdmaStreamDevice> open_stream_device(identify::IdentifiedDesign identified,
                                                                          std::chrono::milliseconds timeout) {
    adapters::OpenOptions options;
    options.timeout = timeout;
    auto made = adapters::make_xdma_stream_device(std::move(identified), options);
    EXPECT_TRUE(made.ok()) << made.error().message();
    return made.ok() ? std::move(*made) : nullptr;
}

// A short stream-tool run on a simulated design: 8 descriptors of 16 KiB buffers, a report every
// 200 ms.
inline stream_tools::StreamRunOptions short_stream_run(std::chrono::milliseconds transfer_timeout,
                                                       std::chrono::milliseconds duration) {
    using namespace std::chrono_literals;
    stream_tools::StreamRunOptions options;
    options.num_descriptors = 8;
    options.mapping_size = 8 * 0x4000;
    options.test.transfer_timeout = transfer_timeout;
    options.test.report_interval = 200ms;
    options.test.duration = duration;
    return options;
}

}  // namespace test_designs
