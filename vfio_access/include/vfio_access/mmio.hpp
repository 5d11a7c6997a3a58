// Register access to a BAR. A Bar is backed by an MmioBackend: the kernel backend reads an
// mmap()ed BAR, a simulated device answers from its model. RegisterWindow is a bounds-checked
// view of part of a BAR handed to a driver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/result.hpp"

namespace vfio {

// One BAR as the seam sees it. offset is bytes from the BAR start; width is 1, 2, 4 or 8.
// Implementations may assume offset + width <= size() and natural alignment: Bar checks.
class MmioBackend {
public:
    virtual ~MmioBackend() = default;
    virtual uint64_t size() const = 0;
    virtual uint64_t read(uint64_t offset, unsigned width) = 0;
    virtual void write(uint64_t offset, unsigned width, uint64_t value) = 0;
};

// How 64-bit registers are accessed. XDMA needs two 32-bit accesses, low then high: a single
// 64-bit read returned all-ones and a 64-bit write lost the upper half (fpga_sio).
enum class Access64 { Native, SplitLowHigh };

class RegisterWindow;

class Bar {
public:
    Bar(unsigned index, std::shared_ptr<MmioBackend> backend) : m_index(index), m_backend(std::move(backend)) {}

    unsigned index() const { return m_index; }
    uint64_t size() const { return m_backend->size(); }

    // A window [offset, offset + size) of this BAR; fails when it does not fit (the only
    // probe design identification needs, as in fpga_sio).
    pdt::Result<RegisterWindow> window(uint64_t offset, uint64_t size, Access64 mode = Access64::Native) const;

    pdt::Result<uint64_t> read(uint64_t offset, unsigned width) const;
    pdt::Result<void> write(uint64_t offset, unsigned width, uint64_t value) const;

private:
    friend class RegisterWindow;
    unsigned m_index;
    std::shared_ptr<MmioBackend> m_backend;
};

// Bounds-checked accessors over part of a BAR. An access outside the window or misaligned is
// a programming error: it is reported on stderr and aborts (VERIFY), never silently done.
class RegisterWindow {
public:
    RegisterWindow() = default;
    uint64_t base() const { return m_base; }
    uint64_t size() const { return m_size; }
    unsigned bar_index() const { return m_bar ? m_bar->index() : 0; }

    uint8_t read8(uint64_t offset) const { return static_cast<uint8_t>(access_read(offset, 1)); }
    uint16_t read16(uint64_t offset) const { return static_cast<uint16_t>(access_read(offset, 2)); }
    uint32_t read32(uint64_t offset) const { return static_cast<uint32_t>(access_read(offset, 4)); }
    uint64_t read64(uint64_t offset) const;
    void write8(uint64_t offset, uint8_t value) const { access_write(offset, 1, value); }
    void write16(uint64_t offset, uint16_t value) const { access_write(offset, 2, value); }
    void write32(uint64_t offset, uint32_t value) const { access_write(offset, 4, value); }
    void write64(uint64_t offset, uint64_t value) const;

    // Checked forms for callers that probe (return an Error instead of aborting).
    bool contains(uint64_t offset, unsigned width) const;

private:
    friend class Bar;
    RegisterWindow(const Bar* bar, std::shared_ptr<MmioBackend> backend, uint64_t base, uint64_t size, Access64 mode)
        : m_bar(bar), m_backend(std::move(backend)), m_base(base), m_size(size), m_mode(mode) {}
    uint64_t access_read(uint64_t offset, unsigned width) const;
    void access_write(uint64_t offset, unsigned width, uint64_t value) const;
    void verify_access(uint64_t offset, unsigned width) const;

    const Bar* m_bar = nullptr;
    std::shared_ptr<MmioBackend> m_backend;
    uint64_t m_base = 0;
    uint64_t m_size = 0;
    Access64 m_mode = Access64::Native;
};

}  // namespace vfio
