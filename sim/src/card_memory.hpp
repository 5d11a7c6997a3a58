// AXI-MM card memory of the DMA models (XDMA, QDMA): allocated in 64 KiB pages on first write
// (designs have GiBs of DDR); unwritten memory reads as zero (the model's fresh DDR). Offsets
// are relative to the card memory base. Not thread safe: the owning model's lock guards it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

namespace sim {

class CardMemory {
public:
    void read(uint64_t offset, uint8_t* dst, uint64_t length) const;
    void write(uint64_t offset, const uint8_t* src, uint64_t length);
    void clear() { m_pages.clear(); }
    // True when [address, address + length) lies inside the window [base, base + size) that
    // the card memory answers on the AXI bus.
    static bool contains(uint64_t base, uint64_t size, uint64_t address, uint64_t length) {
        return address >= base && address - base <= size && length <= size - (address - base);
    }
    // By AXI address in that window: false, touching nothing, when the range is not inside it.
    bool read_at(uint64_t base, uint64_t size, uint64_t address, void* dst, uint64_t length) const;
    bool write_at(uint64_t base, uint64_t size, uint64_t address, const void* src, uint64_t length);
    uint64_t resident_bytes() const { return m_pages.size() * kPage; }

private:
    static constexpr uint64_t kPage = 0x10000;
    std::map<uint64_t, std::unique_ptr<uint8_t[]>> m_pages;
};

}  // namespace sim
