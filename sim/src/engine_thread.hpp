// What the XDMA and QDMA models share between their engine thread and the register accesses
// that wake it, the register write both take through their AXI4-Lite slave, and the model
// calls both answer alike (stepping, and DmaModel's: configuration, the card memory from
// outside, destruction).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "card_memory.hpp"
#include "sim/dma_model.hpp"

namespace sim {

// The engine thread's state: one lock for the model, the wake-up, and the thread itself.
struct EngineThreadState {
    mutable std::mutex mutex;
    std::condition_variable cv;
    bool stopping = false;     // the thread ends
    bool device_gone = false;  // shut down: the engines step no more
    uint64_t generation = 0;   // bumped by every register write: the thread's wait ends on a change
    std::thread thread;

    // Ends the thread and waits for it; the engines step no more.
    void shutdown() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
            device_gone = true;
        }
        cv.notify_all();
        if (thread.joinable())
            thread.join();
    }
};

// A register write through the AXI4-Lite slave: whole dwords only (a narrower write is dropped);
// a 64-bit write is two dwords where the IP takes both halves (QDMA), else its lower half only
// (XDMA, as fpga_sio observed). Then the engine thread is woken. Nothing when the model is gone.
template <class Impl>
void write_dwords(const std::weak_ptr<Impl>& model, uint64_t offset, unsigned width, uint64_t value, bool both_halves) {
    auto impl = model.lock();
    if (!impl || width < 4)
        return;
    {
        std::lock_guard lock(impl->mutex);
        impl->write32(offset, static_cast<uint32_t>(value));
        if (width == 8 && both_halves)
            impl->write32(offset + 4, static_cast<uint32_t>(value >> 32));
    }
    impl->notify();
}

// Starts the engine thread of a model that is not stepped (Impl::engine_thread runs in it).
template <class Impl>
void start_engine_thread(Impl* impl) {
    impl->thread = std::thread([impl] { impl->engine_thread(); });
}

// Stepped mode: model.step() until no engine makes progress, at most max_steps times; the steps.
template <class Model>
size_t step_until_idle(Model& model, size_t max_steps) {
    size_t steps = 0;
    while (steps < max_steps && model.step() > 0)
        ++steps;
    return steps;
}

// DmaModel (sim/dma_model.hpp): each model's .cpp instantiates it for its Impl and Config.
template <class Impl, class Config>
DmaModel<Impl, Config>::DmaModel(SimDevice& device, Config config)
    : m_impl(std::make_shared<Impl>(device, std::move(config))) {}

template <class Impl, class Config>
DmaModel<Impl, Config>::~DmaModel() {
    m_impl->shutdown();
}

template <class Impl, class Config>
const Config& DmaModel<Impl, Config>::config() const {
    return m_impl->config;
}

// The card memory by AXI address, under the model's lock: false, touching nothing, outside the
// window [card_memory_base, + card_memory_size) of its config.
template <class Impl, class Config>
bool DmaModel<Impl, Config>::card_read(uint64_t address, void* dst, uint64_t length) const {
    std::lock_guard lock(m_impl->mutex);
    const Config& c = m_impl->config;
    return m_impl->card_memory.read_at(c.card_memory_base, c.card_memory_size, address, dst, length);
}

template <class Impl, class Config>
bool DmaModel<Impl, Config>::card_write(uint64_t address, const void* src, uint64_t length) {
    std::lock_guard lock(m_impl->mutex);
    const Config& c = m_impl->config;
    return m_impl->card_memory.write_at(c.card_memory_base, c.card_memory_size, address, src, length);
}

template <class Impl, class Config>
uint64_t DmaModel<Impl, Config>::card_memory_resident_bytes() const {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->card_memory.resident_bytes();
}

}  // namespace sim
