// What the XDMA and QDMA models (xdma_model.hpp, qdma_model.hpp) answer alike: their
// configuration, their AXI-MM card memory from outside the engines, the lie and the late
// engine they are told, and their lifetime (the device owns a model; destroying it stops the
// engine thread). `Impl` is the model's internal
// state (sim/src/); the members are defined there, for the two models only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "sim/sim_device.hpp"
#include "streams/lie.hpp"

namespace sim {

template <class Impl, class Config>
class DmaModel {
public:
    DmaModel(const DmaModel&) = delete;
    DmaModel& operator=(const DmaModel&) = delete;

    const Config& config() const;

    // AXI-MM card memory, by card (AXI) address; false when outside the card memory.
    bool card_read(uint64_t address, void* dst, uint64_t length) const;
    bool card_write(uint64_t address, const void* src, uint64_t length);
    // Host memory the card memory holds now (written pages only).
    uint64_t card_memory_resident_bytes() const;

    // TEST-ONLY: every engine lies from now on (docs/verification.md); the model's transfers
    // are counted from this call. Wakes the engine thread.
    void set_lie(streams::Lie lie);
    // Config::late_engine from now on (PDT_SIM_FAULT late_engine=MS). Wakes the engine thread.
    void set_late_engine(std::chrono::milliseconds late);

protected:
    DmaModel(SimDevice& device, Config config);
    ~DmaModel();  // through the model (XdmaModel, QdmaModel) only
    std::shared_ptr<Impl> m_impl;
};

}  // namespace sim
