// One memcpy shared by several threads (F20: the staged path's host copies). A single core's
// memcpy sets the staged path's ceiling (6-10 GB/s on the lent GPU hosts, where the CUDA
// driver's own pageable copy made 13.6-16.9 GB/s): the copy is cut into one piece per thread,
// the calling thread and a pattern::WorkerPool sharing them, and returns when every piece landed.
#pragma once

#include <cstdint>

#include "pattern/worker_pool.hpp"

namespace measure {

class ParallelMemcpy {
public:
    // threads: the pieces of each copy, the caller's included (1: a plain memcpy, no thread).
    explicit ParallelMemcpy(unsigned threads);

    void copy(uint8_t* to, const uint8_t* from, uint64_t bytes);
    unsigned threads() const { return m_pool.threads() + 1; }

private:
    pattern::WorkerPool m_pool;  // threads - 1 workers
};

}  // namespace measure
