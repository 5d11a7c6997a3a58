// The fallbacks this process used for devices unlike their documents: an adapter that drives an
// IP another way than its document says (an ignored register alias, a start retried, a completion
// judged by Status) notes it once by name, and every tool's JSON result line names them all
// ("fallbacks":[...]) beside the warning its text gave. Names are the adapters' own, e.g.
// "control_w1c_ignored" (dma_bridge/xdma_run_control.hpp). Thread safe; header only.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace streams {

namespace fallbacks_detail {
struct Registry {
    std::mutex mutex;
    std::set<std::string> names;
};
inline Registry& registry() {
    static Registry r;
    return r;
}
}  // namespace fallbacks_detail

inline void note_fallback(const std::string& name) {
    auto& r = fallbacks_detail::registry();
    std::lock_guard lock(r.mutex);
    r.names.insert(name);
}

// Sorted by name.
inline std::vector<std::string> fallbacks_used() {
    auto& r = fallbacks_detail::registry();
    std::lock_guard lock(r.mutex);
    return {r.names.begin(), r.names.end()};
}

// ",\"fallbacks\":[\"a\",\"b\"]" for a JSON object, or "" when none was used (names are plain
// identifiers: no escaping needed).
inline std::string json_fallbacks() {
    const std::vector<std::string> names = fallbacks_used();
    if (names.empty())
        return {};
    std::string text = ",\"fallbacks\":[";
    for (size_t i = 0; i < names.size(); ++i)
        text += (i ? ",\"" : "\"") + names[i] + "\"";
    return text + "]";
}

}  // namespace streams
