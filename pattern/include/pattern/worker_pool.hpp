// A fixed pool of threads that share pattern generation and verification: a buffer is cut
// into blocks and, since the pattern is seekable, each block is done on its own. Several
// callers (one per stream channel) may use one pool at the same time; each caller also works
// on its own job, so a pool of zero threads still makes progress.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "pattern/pattern.hpp"

namespace pattern {

class WorkerPool {
public:
    explicit WorkerPool(unsigned threads);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    unsigned threads() const { return static_cast<unsigned>(m_threads.size()); }
    // Runs task(0) .. task(count - 1) on the pool and the calling thread; returns when all ran.
    void parallel_for(size_t count, const std::function<void(size_t)>& task);

private:
    struct Job;
    void worker();
    static bool run_one(Job& job);

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<Job>> m_jobs;
    std::atomic<size_t> m_posted{0};  // jobs in m_jobs, read without the lock by spinning workers
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

// Block size for sharing work: big enough to amortise hand-over, small enough to balance
// (a 2 MiB buffer is 32 blocks) and to stay in a core's L2 cache.
inline constexpr size_t BLOCK_WORDS = 16 * 1024;

// Generate / verify a buffer using the pool (pool may be null: then on this thread).
void generate(WorkerPool* pool, const Pattern& pattern, uint32_t* dst, size_t count, uint64_t first,
              Store store = Store::Cached);
// Pattern::poison using the pool.
void poison(WorkerPool* pool, const Pattern& pattern, uint32_t* dst, size_t count, uint64_t first,
            Store store = Store::Cached);
Mismatch verify(WorkerPool* pool, const Pattern& pattern, const uint32_t* src, size_t count, uint64_t first);

}  // namespace pattern
