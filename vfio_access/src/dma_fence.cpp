#include "vfio_access/dma_fence.hpp"

#include <cstdio>
#include <utility>

namespace vfio {
namespace {

std::mutex g_sink_mutex;
std::function<void(const std::string&)> g_sink;

void warn(const std::string& text) {
    std::lock_guard lock(g_sink_mutex);
    if (g_sink)
        g_sink(text);
    else
        std::fprintf(stderr, "Warning: %s\n", text.c_str());
}

}  // namespace

void DmaFence::set_warning_sink(std::function<void(const std::string&)> sink) {
    std::lock_guard lock(g_sink_mutex);
    g_sink = std::move(sink);
}

DmaFence::Claim::Claim(Claim&& other) noexcept
    : m_fence(std::exchange(other.m_fence, nullptr)), m_writer(std::move(other.m_writer)) {}

DmaFence::Claim& DmaFence::Claim::operator=(Claim&& other) noexcept {
    if (this != &other) {
        if (held())
            abandon("its claim was replaced while the engine could still write");
        m_fence = std::exchange(other.m_fence, nullptr);
        m_writer = std::move(other.m_writer);
    }
    return *this;
}

DmaFence::Claim::~Claim() {
    if (held())
        abandon("the engine was released without a proven stop");
}

void DmaFence::Claim::proven() {
    if (DmaFence* fence = std::exchange(m_fence, nullptr))
        fence->end(m_writer, true, {});
}

void DmaFence::Claim::abandon(const std::string& why) {
    if (DmaFence* fence = std::exchange(m_fence, nullptr))
        fence->end(m_writer, false, why);
}

DmaFence::Claim DmaFence::claim(std::string writer) {
    std::lock_guard lock(m_mutex);
    ++m_claims;
    return Claim(this, std::move(writer));
}

void DmaFence::end(const std::string& writer, bool proven, const std::string& why) {
    std::vector<std::function<void()>> run;
    {
        std::lock_guard allocation(m_allocation_mutex);
        {
            std::lock_guard lock(m_mutex);
            --m_claims;
            if (!proven) {
                const bool first = m_abandoned.empty();
                m_abandoned.push_back(writer + ": " + why);
                warn(writer + ": " + why + "; the device's DMA buffers released from now on stay mapped until it is "
                                           "closed (the engine may still write them)" +
                     (first ? "" : " (" + std::to_string(m_abandoned.size()) + " engines)"));
            }
            if (m_claims == 0 && m_abandoned.empty())
                run.swap(m_deferred);
        }
        // F21: what was kept is said, also when the stop was proven in the end (a transfer that
        // outlived a timeout): the buffers stayed mapped while the engine could still write them.
        if (proven && !run.empty())
            warn(writer + ": " + std::to_string(run.size()) + " DMA buffer(s) released while it could still write " +
                 "were kept mapped until it was seen stopped");
        for (auto& release : run)
            release();
    }
}

bool DmaFence::defer(std::function<void()> release) {
    std::lock_guard lock(m_mutex);
    if (m_claims == 0 && m_abandoned.empty())
        return false;
    m_deferred.push_back(std::move(release));
    return true;
}

size_t DmaFence::claims_held() const {
    std::lock_guard lock(m_mutex);
    return m_claims;
}

size_t DmaFence::releases_deferred() const {
    std::lock_guard lock(m_mutex);
    return m_deferred.size();
}

std::vector<std::string> DmaFence::abandoned() const {
    std::lock_guard lock(m_mutex);
    return m_abandoned;
}

DmaFence::~DmaFence() {
    // Never run: the device that owned the mappings is gone. Each closure owns its buffer, kept
    // (reachable) until the process exits.
    if (m_deferred.empty())
        return;
    static auto* kept = new std::vector<std::function<void()>>();
    static std::mutex kept_mutex;
    std::lock_guard lock(kept_mutex);
    for (auto& release : m_deferred)
        kept->push_back(std::move(release));
}

}  // namespace vfio
