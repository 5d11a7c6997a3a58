// A simulated XDMA design for driver tests: a SimDevice whose BAR 0 holds the XDMA model.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dma_bridge/xdma_engine.hpp"
#include "dma_bridge/xdma_ip.hpp"
#include "dma_bridge/xdma_register_dump.hpp"
#include "sim/xdma_model.hpp"
#include "sim_device_at.hpp"
#include "vfio_access/dma_fence.hpp"

namespace xdma_test {

// The driver's names the tests use unqualified (a test file says `using namespace xdma_test`).
using xdma::CompletionMethod;
using xdma::CompletionRequest;
using xdma::Direction;
using xdma::EngineModeRequest;
using xdma::RunMode;

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Collects the driver's warnings and the DMA fence's while it lives (the defaults print them to
// stderr), each line "<engine>: <text>".
struct Warnings {
    Warnings() {
        xdma::set_warning_observer([this](const std::string& engine, const std::string& text) {
            add(engine + ": " + text);
        });
        vfio::DmaFence::set_warning_sink([this](const std::string& text) { add(text); });
    }
    ~Warnings() {
        xdma::set_warning_observer({});
        vfio::DmaFence::set_warning_sink({});
    }
    void add(std::string line) {
        std::lock_guard lock(mutex);
        lines.push_back(std::move(line));
    }
    size_t count(const std::string& part) {
        std::lock_guard lock(mutex);
        size_t n = 0;
        for (const std::string& line : lines)
            n += has(line, part) ? 1 : 0;
        return n;
    }
    std::string all() {
        std::lock_guard lock(mutex);
        std::string text;
        for (const std::string& line : lines)
            text += line + "\n";
        return text;
    }
    std::mutex mutex;
    std::vector<std::string> lines;
};

inline vfio::DeviceIdentity identity() { return sim_test::xilinx_identity("0000:15:00.0", 0x7024); }

struct Rig {
    explicit Rig(sim::XdmaConfig config, uint64_t bar_size = 0x10000) {
        bar = std::make_shared<sim::SimBar>(bar_size);
        device = std::make_unique<sim::SimDevice>(identity(), std::vector<std::shared_ptr<sim::SimBar>>{bar});
        model = sim::XdmaModel::attach(*device, *bar, config);
        EXPECT_TRUE(device->enable_bus_master().ok());
    }
    vfio::DmaRegion region(uint64_t size, vfio::DmaAccess access) {
        auto r = vfio::DmaRegion::allocate(*device, size, access);
        EXPECT_TRUE(r.ok()) << r.error().message();
        return std::move(r).value();
    }
    std::unique_ptr<xdma::Engine> engine(xdma::EngineOptions options) {
        auto e = xdma::Engine::open(*device, options);
        EXPECT_TRUE(e.ok()) << e.error().message();
        return e.ok() ? std::move(e).value() : nullptr;
    }
    std::shared_ptr<sim::SimBar> bar;
    std::unique_ptr<sim::SimDevice> device;
    std::shared_ptr<sim::XdmaModel> model;
};

// Both engines of one channel and a source and a destination buffer to move data through them.
struct Loop {
    std::unique_ptr<xdma::Engine> h2c, c2h;
    vfio::DmaRegion src, dst;
};

// Waits (10 s at most) until the model's engine has applied every fault injected into the
// channel: a stall or hang then holds the engine before the driver's timeout runs out, however
// late a loaded machine runs the engine thread. False when it did not within 10 s.
inline bool fault_applied(const sim::XdmaModel& model, sim::XdmaDirection direction, unsigned channel) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (model.faults_pending(direction, channel) > 0) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

inline sim::XdmaConfig memory_design(bool stepped = false) {
    return sim::XdmaConfig{.num_h2c = 2, .num_c2h = 2, .stream = false, .card_memory_base = 0x80000000ull,
                           .card_memory_size = 0x100000, .stepped = stepped};
}

inline sim::XdmaConfig stream_design(bool stepped = false) {
    return sim::XdmaConfig{.num_h2c = 2, .num_c2h = 2, .stream = true, .stepped = stepped};
}

inline void fill(uint8_t* p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; ++i)
        p[i] = static_cast<uint8_t>((seed * 2654435761u + i * 40503u) >> 11);
}

}  // namespace xdma_test
