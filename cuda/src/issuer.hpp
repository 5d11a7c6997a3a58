// A thread that issues a channel's CUDA work in order, for pageable host memory (private to
// cuda_stream). With pageable memory the CUDA driver stages every copy through its own pinned
// buffers on the calling thread: cudaMemcpyAsync H2D returns once the source is staged, D2H
// only once the data is in host memory. Issued on the stream tool's channel thread, each copy
// would wait for the host's generation or check of the last buffer and vice versa (measured on
// an H200: 0.35x H2D, 0.48x D2H of a bare pageable copy). On this thread the next copy is staged
// while the tool generates or checks the buffers that completed, as the bare loop does.
//
// Jobs run one at a time in the order posted (a loopback pair shares one Issuer, so that a D2H
// copy's wait for the slot an H2D copy fills is posted after that H2D copy recorded it). The
// first failing job's error is kept; later jobs are skipped and error() returns it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "base/result.hpp"

namespace cuda_stream::detail {

class Issuer {
public:
    using Job = std::function<pdt::Result<void>()>;

    Issuer() : m_thread([this] { loop(); }) {}
    ~Issuer() {
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    Issuer(const Issuer&) = delete;
    Issuer& operator=(const Issuer&) = delete;

    void post(Job job) {
        {
            std::lock_guard lock(m_mutex);
            m_jobs.push_back(std::move(job));
        }
        m_changed.notify_all();
    }
    // Returns once every job posted so far ran (or was skipped after a failure).
    void drain() {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_jobs.empty() && !m_running; });
    }
    std::optional<pdt::Error> error() const {
        std::lock_guard lock(m_mutex);
        return m_error;
    }

private:
    void loop() {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_changed.wait(lock, [this] { return m_quit || !m_jobs.empty(); });
            if (m_jobs.empty())
                return;  // quit, nothing left
            Job job = std::move(m_jobs.front());
            m_jobs.pop_front();
            const bool skip = m_error.has_value();
            m_running = true;
            lock.unlock();
            std::optional<pdt::Error> failed;
            if (!skip)
                if (auto done = job(); !done.ok())
                    failed = done.error();
            lock.lock();
            m_running = false;
            if (failed && !m_error)
                m_error = std::move(failed);
            m_changed.notify_all();
        }
    }

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Job> m_jobs;
    bool m_running = false;
    bool m_quit = false;
    std::optional<pdt::Error> m_error;
    std::thread m_thread;  // last: started once the members above exist
};

}  // namespace cuda_stream::detail
