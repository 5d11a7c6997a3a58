#include "card_memory.hpp"

#include <algorithm>
#include <cstring>

namespace sim {

void CardMemory::read(uint64_t offset, uint8_t* dst, uint64_t length) const {
    while (length > 0) {
        const uint64_t page = offset / kPage, in = offset % kPage, n = std::min(length, kPage - in);
        auto it = m_pages.find(page);
        if (it == m_pages.end())
            std::memset(dst, 0, n);
        else
            std::memcpy(dst, it->second.get() + in, n);
        offset += n, dst += n, length -= n;
    }
}

void CardMemory::write(uint64_t offset, const uint8_t* src, uint64_t length) {
    while (length > 0) {
        const uint64_t page = offset / kPage, in = offset % kPage, n = std::min(length, kPage - in);
        auto& p = m_pages[page];
        if (!p) {
            // A fresh page reads as zero except where this write covers it.
            p = std::make_unique_for_overwrite<uint8_t[]>(kPage);
            if (n != kPage)
                std::memset(p.get(), 0, kPage);
        }
        std::memcpy(p.get() + in, src, n);
        offset += n, src += n, length -= n;
    }
}

bool CardMemory::read_at(uint64_t base, uint64_t size, uint64_t address, void* dst, uint64_t length) const {
    if (!contains(base, size, address, length))
        return false;
    read(address - base, static_cast<uint8_t*>(dst), length);
    return true;
}

bool CardMemory::write_at(uint64_t base, uint64_t size, uint64_t address, const void* src, uint64_t length) {
    if (!contains(base, size, address, length))
        return false;
    write(address - base, static_cast<const uint8_t*>(src), length);
    return true;
}

}  // namespace sim
