// What the XDMA and QDMA models share between their engine thread and the register accesses
// that wake it, and the register write both take through their AXI4-Lite slave.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

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

}  // namespace sim
