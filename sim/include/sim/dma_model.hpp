// What the XDMA and QDMA models (xdma_model.hpp, qdma_model.hpp) answer alike: their
// configuration, stepping, their AXI-MM card memory from outside the engines, the lie and the late
// engine they are told, and their lifetime (the device owns a model; destroying it stops the
// engine thread). `Impl` is the model's internal
// state (sim/src/); the members are defined there, for the two models only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "sim/sim_device.hpp"
#include "streams/lie.hpp"

namespace sim {

inline constexpr const char* kCardMemoryDirVariable = "PDT_SIM_CARD_MEMORY_DIR";

template <class Impl, class Config>
class DmaModel {
public:
    DmaModel(const DmaModel&) = delete;
    DmaModel& operator=(const DmaModel&) = delete;

    const Config& config() const;

    // Stepped mode (Config::stepped): step() lets each engine with work process at most one
    // descriptor (or stream chunk or packet) and returns how many made progress;
    // run_until_idle() steps until none does (at most max_steps times, by default the model's
    // Config::kStepLimit) and returns the number of steps taken.
    size_t step();
    size_t run_until_idle(size_t max_steps = Config::kStepLimit);

    // AXI-MM card memory, by card (AXI) address; false when outside the card memory.
    bool card_read(uint64_t address, void* dst, uint64_t length) const;
    bool card_write(uint64_t address, const void* src, uint64_t length);
    // Host memory the card memory holds now (written pages only); kept in a file, the bytes
    // its file system allocated to the file (the blocks written).
    uint64_t card_memory_resident_bytes() const;

    // TEST-ONLY: with PDT_SIM_CARD_MEMORY_DIR=<dir>, the card memory is <dir>/<key>.mem from now
    // on (a sparse file of card_memory_size bytes, mapped shared and written through), so that
    // it lasts from one process to the next as a powered card's DDR does; card_read, card_write
    // and the engines reach it as before. Unset, empty, or no card memory: nothing changes (each
    // instance starts from zeros). The file's open, sizing or mapping error otherwise.
    pdt::Result<void> keep_card_memory(const std::string& key);
    std::string card_memory_backing() const;  // the file keeping it; empty: host memory only

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
