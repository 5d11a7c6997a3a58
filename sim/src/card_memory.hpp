// AXI-MM card memory of the DMA models (XDMA, QDMA): allocated in 64 KiB pages on first write
// (designs have GiBs of DDR); unwritten memory reads as zero (the model's fresh DDR). Offsets
// are relative to the card memory base. Not thread safe: the owning model's lock guards it.
//
// Test-only (PDT_SIM_CARD_MEMORY_DIR, DmaModel::keep_card_memory): the bytes may instead live
// in a sparse file mapped shared and written through, so that they last from one process to
// the next; read() and write() are the same calls either way. The file is never written whole:
// only the bytes written take blocks, holes read as zero.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "vfio_access/unique_fd.hpp"

namespace sim {

class CardMemory {
public:
    CardMemory() = default;
    ~CardMemory();
    CardMemory(const CardMemory&) = delete;
    CardMemory& operator=(const CardMemory&) = delete;

    void read(uint64_t offset, uint8_t* dst, uint64_t length) const;
    void write(uint64_t offset, const uint8_t* src, uint64_t length);
    // Every byte reads zero again (the file: its blocks given back, its size kept).
    void clear();
    // True when [address, address + length) lies inside the window [base, base + size) that
    // the card memory answers on the AXI bus.
    static bool contains(uint64_t base, uint64_t size, uint64_t address, uint64_t length) {
        return address >= base && address - base <= size && length <= size - (address - base);
    }
    // By AXI address in that window: false, touching nothing, when the range is not inside it.
    bool read_at(uint64_t base, uint64_t size, uint64_t address, void* dst, uint64_t length) const;
    bool write_at(uint64_t base, uint64_t size, uint64_t address, const void* src, uint64_t length);
    // Host memory the pages hold (written pages only); kept in a file: the bytes the file
    // system allocated to the file (its written blocks), what the memory costs there.
    uint64_t resident_bytes() const;

    // From now on the `size` bytes of card memory are the file at `path` (created, sized to
    // `size` without writing it, mapped shared); the pages held so far are dropped. The file's
    // open, sizing or mapping error otherwise, the memory unchanged.
    pdt::Result<void> keep_in_file(const std::string& path, uint64_t size);
    const std::string& backing() const { return m_backing; }  // empty: host memory only

private:
    static constexpr uint64_t kPage = 0x10000;
    std::map<uint64_t, std::unique_ptr<uint8_t[]>> m_pages;
    // Kept in a file: its mapping of m_mapped_size bytes (null: the pages above).
    uint8_t* m_mapped = nullptr;
    uint64_t m_mapped_size = 0;
    vfio::UniqueFd m_file;
    std::string m_backing;
};

}  // namespace sim
