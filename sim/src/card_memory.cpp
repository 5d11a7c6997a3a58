#include "card_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sim/dma_model.hpp"

namespace sim {

CardMemory::~CardMemory() {
    if (m_mapped)
        ::munmap(m_mapped, m_mapped_size);
}

void CardMemory::read(uint64_t offset, uint8_t* dst, uint64_t length) const {
    if (m_mapped) {
        // Past the mapping (never, through the window checks) reads as zero.
        const uint64_t n = offset < m_mapped_size ? std::min(length, m_mapped_size - offset) : 0;
        if (n > 0)
            std::memcpy(dst, m_mapped + offset, n);
        std::memset(dst + n, 0, length - n);
        return;
    }
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
    if (m_mapped) {
        if (offset < m_mapped_size)
            std::memcpy(m_mapped + offset, src, std::min(length, m_mapped_size - offset));
        return;
    }
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

void CardMemory::clear() {
    m_pages.clear();
    if (!m_mapped)
        return;
    // The file's blocks given back, its size kept; where the file system cannot punch holes,
    // cut to nothing and grown again (holes either way).
    const off_t size = static_cast<off_t>(m_mapped_size);
    if (::fallocate(m_file.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, size) != 0 &&
        (::ftruncate(m_file.get(), 0) != 0 || ::ftruncate(m_file.get(), size) != 0))
        std::memset(m_mapped, 0, m_mapped_size);  // last resort: zeros written whole
}

uint64_t CardMemory::resident_bytes() const {
    if (!m_mapped)
        return m_pages.size() * kPage;
    struct stat st = {};
    return ::fstat(m_file.get(), &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

pdt::Result<void> CardMemory::keep_in_file(const std::string& path, uint64_t size) {
    const std::string hint = std::string("set by ") + kCardMemoryDirVariable;
    vfio::UniqueFd file(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!file.valid())
        return pdt::make_error("open simulated card memory", path, errno, hint);
    if (::ftruncate(file.get(), static_cast<off_t>(size)) != 0)
        return pdt::make_error("size simulated card memory", path, errno, hint);
    void* bytes = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, file.get(), 0);
    if (bytes == MAP_FAILED)
        return pdt::make_error("map simulated card memory", path, errno, hint);
    if (m_mapped)
        ::munmap(m_mapped, m_mapped_size);
    m_pages.clear();
    m_mapped = static_cast<uint8_t*>(bytes);
    m_mapped_size = size;
    m_file = std::move(file);
    m_backing = path;
    return {};
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
