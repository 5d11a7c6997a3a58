#include "sim/bar_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "vfio_access/unique_fd.hpp"

namespace sim {

BarMemoryBlock::~BarMemoryBlock() { ::munmap(m_bytes, m_size); }

pdt::Result<std::shared_ptr<BarMemoryBlock>> BarMemoryBlock::make(uint64_t size, bool cleared_by_reset,
                                                                  const std::string& key) {
    const char* dir = std::getenv(kBarMemoryDirVariable);
    if (!dir || !*dir) {
        void* bytes = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (bytes == MAP_FAILED)
            return pdt::make_error("map simulated BAR memory", key, errno);
        return std::shared_ptr<BarMemoryBlock>(new BarMemoryBlock(static_cast<uint8_t*>(bytes), size, cleared_by_reset, {}));
    }
    const std::string path = std::string(dir) + "/" + key + ".mem";
    vfio::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (fd.get() < 0)
        return pdt::make_error("open simulated BAR memory", path, errno, std::string("set by ") + kBarMemoryDirVariable);
    if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
        return pdt::make_error("size simulated BAR memory", path, errno);
    void* bytes = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (bytes == MAP_FAILED)
        return pdt::make_error("map simulated BAR memory", path, errno);
    return std::shared_ptr<BarMemoryBlock>(new BarMemoryBlock(static_cast<uint8_t*>(bytes), size, cleared_by_reset, path));
}

uint64_t BarMemoryBlock::read(uint64_t offset, unsigned width) {
    uint64_t value = 0;
    std::lock_guard lock(m_mutex);
    if (offset < m_size && width <= 8 && width <= m_size - offset)
        std::memcpy(&value, m_bytes + offset, width);  // little-endian, as the CPU sees a BAR
    return value;
}

void BarMemoryBlock::set_lie(const streams::Lie& lie) {
    std::lock_guard lock(m_mutex);
    m_lie = lie;
}

void BarMemoryBlock::store(const HeldWrite& w) {
    if (w.offset < m_size && w.width <= 8 && w.width <= m_size - w.offset)
        std::memcpy(m_bytes + w.offset, &w.value, w.width);
}

void BarMemoryBlock::write(uint64_t offset, unsigned width, uint64_t value) {
    std::lock_guard lock(m_mutex);
    if (!m_lie.moves(m_writes++))
        return;
    if (!m_lie.late_tail()) {
        store({offset, width, value});
        return;
    }
    if (m_held)
        store(*m_held);
    m_held = HeldWrite{offset, width, value};
}

void BarMemoryBlock::reset() {
    std::lock_guard lock(m_mutex);
    if (m_cleared_by_reset)
        std::memset(m_bytes, 0, m_size);
}

}  // namespace sim
