// Host memory that an engine may still write when its owner goes (a copy not seen complete, an
// abort that did not complete): never freed, and kept reachable until the process exits, so that
// a late write lands in memory nobody else was given (and leak checkers see it held on purpose).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace streams {

// Set by an adapter once it could not prove its engines stopped; shared with every host buffer
// it handed out, which from then on keeps its memory (keep_until_exit) instead of freeing it.
using BuffersAtRisk = std::shared_ptr<std::atomic<bool>>;
inline BuffersAtRisk make_buffers_at_risk() { return std::make_shared<std::atomic<bool>>(false); }

inline void keep_until_exit(const void* memory) {
    static std::mutex mutex;
    static auto* kept = new std::vector<const void*>();
    std::lock_guard lock(mutex);
    kept->push_back(memory);
}

}  // namespace streams
