// Memory in a simulated BAR (designs::BarMemory: block RAM behind an AXI BRAM Controller, PG078):
// every byte reads back what was last written to it, at any width. Block RAM keeps its bytes
// across a function reset (a PCIe reset does not reconfigure the FPGA) unless the design data
// says cleared_by_reset. A fresh instance's bytes are zero.
//
// Test-only: PDT_SIM_BAR_MEMORY_DIR=<dir> keeps each region in <dir>/<key>.mem (mapped shared,
// written through), so that it lasts from one process to the next as a real card's does while
// it stays powered; without it every instance (every open) starts from zeros.
//
// Test-only: a lie (streams/lie.hpp, from PDT_SIM_FAULT) counts each write as a transfer:
// moves_nothing drops every write; stale_after=N keeps the first N writes and drops the rest
// (reads return the stale bytes); completes_early holds each write back until the next one, so
// the last write of a copy never lands while the reads that follow run.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "sim/sim_device.hpp"
#include "streams/lie.hpp"

namespace sim {

inline constexpr const char* kBarMemoryDirVariable = "PDT_SIM_BAR_MEMORY_DIR";

class BarMemoryBlock : public RegisterBlock {
public:
    ~BarMemoryBlock() override;
    BarMemoryBlock(const BarMemoryBlock&) = delete;
    BarMemoryBlock& operator=(const BarMemoryBlock&) = delete;
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;
    uint64_t size() const { return m_size; }
    const std::string& backing() const { return m_backing; }  // empty: memory only
    void set_lie(const streams::Lie& lie);

    // `key` names the backing file under PDT_SIM_BAR_MEMORY_DIR (the design, its address, the
    // BAR and offset); the file's open or mapping error otherwise.
    static pdt::Result<std::shared_ptr<BarMemoryBlock>> make(uint64_t size, bool cleared_by_reset,
                                                             const std::string& key);

private:
    BarMemoryBlock(uint8_t* bytes, uint64_t size, bool cleared_by_reset, std::string backing)
        : m_bytes(bytes), m_size(size), m_cleared_by_reset(cleared_by_reset), m_backing(std::move(backing)) {}
    struct HeldWrite {
        uint64_t offset;
        unsigned width;
        uint64_t value;
    };
    void store(const HeldWrite& w);  // m_mutex held
    std::mutex m_mutex;
    streams::Lie m_lie;
    uint64_t m_writes = 0;
    std::optional<HeldWrite> m_held;  // completes_early: the last write, not landed yet
    uint8_t* m_bytes;
    uint64_t m_size;
    bool m_cleared_by_reset;
    std::string m_backing;
};

}  // namespace sim
