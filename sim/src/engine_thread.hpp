// What the XDMA and QDMA models share between their engine thread and the register accesses
// that wake it, the register block that takes both models' AXI4-Lite accesses, and the model
// calls both answer alike (stepping, and DmaModel's: configuration, the card memory from
// outside, destruction).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "card_memory.hpp"
#include "sim/dma_model.hpp"
#include "sim/sim_device.hpp"

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

// A model's register space as one block of the BAR, through its AXI4-Lite slave: 32-bit
// registers, read and written under the model's lock; a narrower read is of the dword that
// holds it, a narrower write is dropped. A 64-bit access is two dwords where the IP takes both
// halves (QDMA); else (XDMA, as fpga_sio observed) a 64-bit read returns all-ones and a 64-bit
// write updates only its lower half. A write wakes the engine thread, and so does reset() (the
// device's reset: Impl::reset under the lock). A model gone reads all-ones and takes nothing.
template <class Impl>
class ModelRegisterBlock : public RegisterBlock {
public:
    ModelRegisterBlock(std::weak_ptr<Impl> impl, bool both_halves) : m_impl(std::move(impl)), m_both_halves(both_halves) {}

    uint64_t read(uint64_t offset, unsigned width) override {
        auto impl = m_impl.lock();
        if (!impl || (width == 8 && !m_both_halves))
            return width == 8 ? ~0ull : 0xFFFFFFFFu;
        std::lock_guard lock(impl->mutex);
        if (width == 8)
            return impl->read32(offset) | uint64_t(impl->read32(offset + 4)) << 32;
        const uint64_t shifted = impl->read32(offset & ~3ull) >> ((offset & 3) * 8);
        return width == 4 ? shifted : shifted & ((1ull << (width * 8)) - 1);
    }

    void write(uint64_t offset, unsigned width, uint64_t value) override {
        auto impl = m_impl.lock();
        if (!impl || width < 4)
            return;
        {
            std::lock_guard lock(impl->mutex);
            impl->write32(offset, static_cast<uint32_t>(value));
            if (width == 8 && m_both_halves)
                impl->write32(offset + 4, static_cast<uint32_t>(value >> 32));
        }
        impl->notify();
    }

    void reset() override {
        auto impl = m_impl.lock();
        if (!impl)
            return;
        {
            std::lock_guard lock(impl->mutex);
            impl->reset();
        }
        impl->notify();
    }

private:
    std::weak_ptr<Impl> m_impl;
    bool m_both_halves;
};

// A model's attach() once it is made: its register block at [offset, + size) of `bar`, the
// device owning the model and stopping its engine thread first on destruction, and the engine
// thread started (Impl::engine_thread) unless the model is stepped. `impl` is the model's state.
template <class Model, class Impl>
std::shared_ptr<Model> attach_model(SimDevice& device, SimBar& bar, uint64_t offset, uint64_t size, bool both_halves,
                                    std::shared_ptr<Model> model, const std::shared_ptr<Impl>& impl) {
    bar.add_block(offset, size, std::make_shared<ModelRegisterBlock<Impl>>(impl, both_halves));
    device.on_destroy([model, state = impl.get()] { state->shutdown(); });
    if (!impl->config.stepped)
        impl->thread = std::thread([state = impl.get()] { state->engine_thread(); });
    return model;
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

// Stepped mode: one round of Impl::step_locked() under the model's lock; none once shut down.
template <class Impl, class Config>
size_t DmaModel<Impl, Config>::step() {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->device_gone ? 0 : m_impl->step_locked();
}

template <class Impl, class Config>
size_t DmaModel<Impl, Config>::run_until_idle(size_t max_steps) {
    size_t steps = 0;
    while (steps < max_steps && step() > 0)
        ++steps;
    return steps;
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

template <class Impl, class Config>
pdt::Result<void> DmaModel<Impl, Config>::keep_card_memory(const std::string& key) {
    const char* dir = std::getenv(kCardMemoryDirVariable);
    std::lock_guard lock(m_impl->mutex);
    const uint64_t size = m_impl->config.card_memory_size;
    if (!dir || !*dir || size == 0)
        return {};
    return m_impl->card_memory.keep_in_file(std::string(dir) + "/" + key + ".mem", size);
}

template <class Impl, class Config>
std::string DmaModel<Impl, Config>::card_memory_backing() const {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->card_memory.backing();
}

template <class Impl, class Config>
void DmaModel<Impl, Config>::set_lie(streams::Lie lie) {
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->lie = lie;
        m_impl->lie_transfers = 0;
        ++m_impl->generation;
    }
    m_impl->notify();
}

template <class Impl, class Config>
void DmaModel<Impl, Config>::set_late_engine(std::chrono::milliseconds late) {
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->config.late_engine = late;
        ++m_impl->generation;
    }
    m_impl->notify();
}

}  // namespace sim
