#include "measure/parallel_memcpy.hpp"

#include <algorithm>
#include <cstring>

namespace measure {

ParallelMemcpy::ParallelMemcpy(unsigned threads) {
    for (unsigned i = 1; i < std::max(threads, 1u); ++i)
        m_workers.emplace_back([this, i] { work(i); });
}

ParallelMemcpy::~ParallelMemcpy() {
    {
        std::lock_guard lock(m_mutex);
        m_quit = true;
    }
    m_start.notify_all();
    for (std::thread& t : m_workers)
        t.join();
}

void ParallelMemcpy::piece(unsigned index, unsigned pieces) {
    const uint64_t share = (m_bytes / pieces + 63) / 64 * 64;
    const uint64_t begin = std::min(m_bytes, share * index), end = std::min(m_bytes, begin + share);
    if (end > begin)
        std::memcpy(m_to + begin, m_from + begin, end - begin);
}

void ParallelMemcpy::copy(uint8_t* to, const uint8_t* from, uint64_t bytes) {
    if (m_workers.empty() || bytes < (256u << 10)) {  // below 256 KiB the hand-over costs more than it saves
        std::memcpy(to, from, bytes);
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_to = to, m_from = from, m_bytes = bytes;
        m_pending = static_cast<unsigned>(m_workers.size());
        ++m_generation;
    }
    m_start.notify_all();
    piece(0, threads());
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [this] { return m_pending == 0; });
}

void ParallelMemcpy::work(unsigned index) {
    uint64_t seen = 0;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_start.wait(lock, [&] { return m_quit || m_generation != seen; });
        if (m_quit)
            return;
        seen = m_generation;
        lock.unlock();
        piece(index, threads());
        lock.lock();
        if (--m_pending == 0)
            m_done.notify_one();
    }
}

}  // namespace measure
