// One memcpy shared by several threads (F20: the staged path's host copies). A single core's
// memcpy sets the staged path's ceiling (6-10 GB/s on the lent GPU hosts, where the CUDA
// driver's own pageable copy made 13.6-16.9 GB/s): the copy is cut into one piece per thread,
// the calling thread taking the first, and returns when every piece landed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace measure {

class ParallelMemcpy {
public:
    // threads: the pieces of each copy, the caller's included (1: a plain memcpy, no thread).
    explicit ParallelMemcpy(unsigned threads);
    ~ParallelMemcpy();
    ParallelMemcpy(const ParallelMemcpy&) = delete;
    ParallelMemcpy& operator=(const ParallelMemcpy&) = delete;

    void copy(uint8_t* to, const uint8_t* from, uint64_t bytes);
    unsigned threads() const { return static_cast<unsigned>(m_workers.size()) + 1; }

private:
    void work(unsigned index);
    // Piece `index` of `pieces` of the current copy, cut at 64-byte boundaries.
    void piece(unsigned index, unsigned pieces);

    std::mutex m_mutex;
    std::condition_variable m_start, m_done;
    uint8_t* m_to = nullptr;
    const uint8_t* m_from = nullptr;
    uint64_t m_bytes = 0;
    uint64_t m_generation = 0;
    unsigned m_pending = 0;
    bool m_quit = false;
    std::vector<std::thread> m_workers;
};

}  // namespace measure
