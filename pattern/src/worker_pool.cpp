#include "pattern/worker_pool.hpp"

#include <algorithm>
#include <chrono>

namespace pattern {

struct WorkerPool::Job {
    const std::function<void(size_t)>* task = nullptr;
    size_t count = 0;
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex mutex;
    std::condition_variable finished;
};

WorkerPool::WorkerPool(unsigned threads) {
    m_threads.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        m_threads.emplace_back([this] { worker(); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (auto& thread : m_threads)
        thread.join();
}

// Claims and runs one task of job; false when none is left to claim.
bool WorkerPool::run_one(Job& job) {
    const size_t index = job.next.fetch_add(1);
    if (index >= job.count)
        return false;
    (*job.task)(index);
    if (job.done.fetch_add(1) + 1 == job.count) {
        std::lock_guard lock(job.mutex);
        job.finished.notify_all();
    }
    return true;
}

// A worker that just finished spins this long for the next job before it sleeps: at tens of
// GB/s a buffer's blocks take tens of microseconds, as long as a futex wake-up.
constexpr std::chrono::microseconds SPIN_BEFORE_SLEEP{50};

void WorkerPool::worker() {
    for (;;) {
        std::shared_ptr<Job> job;
        const auto spin_until = std::chrono::steady_clock::now() + SPIN_BEFORE_SLEEP;
        while (m_posted.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < spin_until) {
        }
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_jobs.empty())
                return;
            job = m_jobs.front();
            if (job->next.load() >= job->count) {
                m_jobs.pop_front();
                m_posted.fetch_sub(1, std::memory_order_release);
                continue;
            }
        }
        while (run_one(*job)) {
        }
    }
}

void WorkerPool::parallel_for(size_t count, const std::function<void(size_t)>& task) {
    if (count == 0)
        return;
    auto job = std::make_shared<Job>();
    job->task = &task;
    job->count = count;
    if (count > 1 && !m_threads.empty()) {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(job);
        m_posted.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
    while (run_one(*job)) {
    }
    std::unique_lock lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done.load() == job->count; });
    lock.unlock();
    std::lock_guard pool_lock(m_mutex);
    const auto kept = std::remove(m_jobs.begin(), m_jobs.end(), job);
    m_posted.fetch_sub(static_cast<size_t>(m_jobs.end() - kept), std::memory_order_release);
    m_jobs.erase(kept, m_jobs.end());
}

namespace {

size_t block_count(size_t count) { return (count + BLOCK_WORDS - 1) / BLOCK_WORDS; }

// Runs work(block, offset, words) over `count` words: a block of BLOCK_WORDS a task on the
// pool, or all of them as block 0 on this thread without a pool or for one block.
template <typename Work>
void in_blocks(WorkerPool* pool, size_t count, const Work& work) {
    const size_t blocks = block_count(count);
    if (pool == nullptr || blocks <= 1) {
        work(0, 0, count);
        return;
    }
    pool->parallel_for(blocks, [&](size_t block) {
        const size_t offset = block * BLOCK_WORDS;
        work(block, offset, std::min(BLOCK_WORDS, count - offset));
    });
}

}  // namespace

void generate(WorkerPool* pool, const Pattern& pattern, uint32_t* dst, size_t count, uint64_t first, Store store) {
    in_blocks(pool, count, [&](size_t, size_t offset, size_t words) {
        pattern.generate(dst + offset, words, first + offset, store);
    });
}

void poison(WorkerPool* pool, const Pattern& pattern, uint32_t* dst, size_t count, uint64_t first, Store store) {
    in_blocks(pool, count, [&](size_t, size_t offset, size_t words) {
        pattern.poison(dst + offset, words, first + offset, store);
    });
}

Mismatch verify(WorkerPool* pool, const Pattern& pattern, const uint32_t* src, size_t count, uint64_t first) {
    std::vector<Mismatch> results(std::max<size_t>(block_count(count), 1));
    in_blocks(pool, count, [&](size_t block, size_t offset, size_t words) {
        results[block] = pattern.verify(src + offset, words, first + offset);
    });
    Mismatch total;
    for (const auto& result : results)
        total.merge(result);
    return total;
}

}  // namespace pattern
