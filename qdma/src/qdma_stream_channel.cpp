// streams::StreamChannel over a QDMA stream queue (H2C descriptors, or C2H buffers with the
// completion ring), polled.
#include "qdma/qdma_stream_channel.hpp"
#include "base/format.hpp"
#include "qdma/qdma_queue.hpp"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <thread>
#include <vector>

namespace qdma {
namespace {

using streams::Completion;
using streams::Direction;
using pdt::hex;

class QdmaStreamChannel final : public streams::StreamChannel {
public:
    QdmaStreamChannel(std::shared_ptr<Function> function, Direction direction, std::unique_ptr<Queue> queue,
                      std::vector<vfio::DmaRegion> buffers)
        : m_function(std::move(function)), m_direction(direction), m_queue(std::move(queue)), m_buffers(std::move(buffers)) {}

    Direction direction() const override { return m_direction; }
    std::string name() const override { return m_queue->name(); }
    size_t buffer_count() const override { return m_buffers.size(); }
    uint64_t buffer_size() const override { return m_buffers.empty() ? 0 : m_buffers[0].size(); }
    uint8_t* buffer(size_t index) override { return m_buffers.at(index).data(); }
    pdt::Result<void> submit(size_t index, uint64_t length, bool end_of_packet) override;
    pdt::Result<std::optional<Completion>> poll() override;
    pdt::Result<Completion> wait(std::chrono::milliseconds timeout) override;
    pdt::Result<void> stop() override;
    bool busy() const override { return !m_submitted.empty() || !m_ready.empty(); }

private:
    pdt::Error refuse(size_t index, uint64_t length, int code, const std::string& why) const {
        return pdt::make_error("submit buffer " + std::to_string(index) + " (" + hex(length) + " bytes) on", name(), code, why);
    }

    std::shared_ptr<Function> m_function;  // outlives the queue (declared first)
    Direction m_direction;
    std::unique_ptr<Queue> m_queue;
    std::vector<vfio::DmaRegion> m_buffers;
    std::deque<std::pair<size_t, uint64_t>> m_submitted;  // (buffer, length) in ring order
    std::deque<Completion> m_ready;                        // C2H: buffers of packets already seen
};

pdt::Result<void> QdmaStreamChannel::submit(size_t index, uint64_t length, bool end_of_packet) {
    if (index >= m_buffers.size())
        return refuse(index, length, EINVAL, "the channel has " + std::to_string(m_buffers.size()) + " buffers");
    if (length == 0 || length > buffer_size())
        return refuse(index, length, EINVAL, "a buffer holds 1.." + hex(buffer_size()) + " bytes");
    if (m_direction == Direction::H2C) {
        if (!end_of_packet)
            return refuse(index, length, EINVAL,
                          "in internal mode each H2C stream descriptor is a whole packet (PG302): end_of_packet is required");
        PDT_CHECK(m_queue->post_h2c_stream(m_buffers[index].iova(), static_cast<uint32_t>(length)));
    } else {
        if (length != buffer_size())
            return refuse(index, length, EINVAL,
                          "a C2H stream descriptor receives a whole C2H_BUF_SZ buffer of " + hex(buffer_size()) + " bytes");
        PDT_CHECK(m_queue->post_c2h_stream(m_buffers[index].iova()));
    }
    m_queue->commit();
    m_submitted.emplace_back(index, length);
    return {};
}

pdt::Result<std::optional<Completion>> QdmaStreamChannel::poll() {
    if (m_direction == Direction::H2C) {
        // Completions are counted from the status descriptor (one descriptor per submit).
        uint32_t done = PDT_TRY(m_queue->reap());
        for (; done > 0; --done) {
            const auto [buffer, length] = m_submitted.front();
            m_submitted.pop_front();
            m_ready.push_back(Completion{buffer, length, true, 0});
        }
    } else if (m_ready.empty()) {
        const std::optional<Packet> packet = PDT_TRY(m_queue->next_packet());
        if (packet) {
            uint64_t left = packet->length;
            for (uint32_t i = 0; i < packet->buffers; ++i) {
                const size_t buffer = m_submitted.front().first;
                m_submitted.pop_front();
                const uint64_t here = std::min<uint64_t>(left, buffer_size());
                left -= here;
                m_ready.push_back(Completion{buffer, here, i + 1 == packet->buffers, 0});
            }
        }
    }
    if (m_ready.empty())
        return std::optional<Completion>{};
    const Completion next = m_ready.front();
    m_ready.pop_front();
    return std::optional<Completion>{next};
}

pdt::Result<Completion> QdmaStreamChannel::wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const std::optional<Completion> done = PDT_TRY(poll());
        if (done)
            return *done;
        if (std::chrono::steady_clock::now() >= deadline)
            return pdt::make_error("wait for a completion on", name(), ETIMEDOUT,
                                   "none within " + std::to_string(timeout.count()) + " ms; " +
                                       std::to_string(m_submitted.size()) + " buffer(s) submitted; " +
                                       m_queue->describe_state());
        std::this_thread::yield();
    }
}

pdt::Result<void> QdmaStreamChannel::stop() {
    m_submitted.clear();
    m_ready.clear();
    return m_queue->restart();
}

// The smallest QDMA_GLBL_RNG_SZ holding `descriptors` outstanding (N - 2 of N entries).
pdt::Result<uint32_t> ring_for(const Function& function, size_t descriptors) {
    uint32_t best = 0;
    for (uint32_t size : function.capabilities().ring_sizes)
        if (size >= descriptors + 2 && (best == 0 || size < best))
            best = size;
    if (best == 0)
        return pdt::usage_error("choose ring size", function.name(),
                                "no QDMA_GLBL_RNG_SZ_1..16 value holds " + std::to_string(descriptors) + " buffers");
    return best;
}

}  // namespace

pdt::Result<std::unique_ptr<streams::StreamChannel>> open_stream_channel(std::shared_ptr<Function> function,
                                                                         Direction direction, uint32_t qid,
                                                                         const streams::ChannelBuffers& buffers,
                                                                         const StreamChannelOptions& options) {
    if (buffers.count == 0 || buffers.size == 0 || buffers.size > 0xFFFFFFFF)
        return pdt::make_error("open stream channel on", function->name(), EINVAL,
                               "buffers: " + std::to_string(buffers.count) + " of " + hex(buffers.size) + " bytes");
    if (direction == Direction::H2C && buffers.size > 0xFFFF)
        return pdt::usage_error("open stream channel on", function->name(),
                                "buffers of " + hex(buffers.size) + " bytes: an H2C stream descriptor's len holds 64K-1");
    QueueOptions q;
    q.qid = qid;
    q.direction = direction == Direction::H2C ? QueueDirection::H2C : QueueDirection::C2H;
    q.kind = QueueKind::Stream;
    q.ring_entries = options.ring_entries != 0 ? options.ring_entries : PDT_TRY(ring_for(*function, buffers.count));
    q.completion_entries = options.completion_entries != 0 ? options.completion_entries : q.ring_entries;
    q.c2h_buffer_bytes = static_cast<uint32_t>(buffers.size);
    q.dma_mask_bits = options.dma_mask_bits;
    q.warn = options.warn;
    auto queue = PDT_TRY(Queue::open(*function, q));
    if (buffers.count > queue->capacity())
        return pdt::usage_error("open stream channel on", queue->name(),
                                std::to_string(buffers.count) + " buffers do not fit a ring of " +
                                    std::to_string(q.ring_entries) + " entries (" + std::to_string(queue->capacity()) +
                                    " outstanding)");
    std::vector<vfio::DmaRegion> regions;
    vfio::DmaRegion::Options region;
    region.access = direction == Direction::H2C ? vfio::DmaAccess::DeviceRead : vfio::DmaAccess::DeviceWrite;
    region.kind = buffers.allocation == streams::BufferAllocation::HugePages      ? vfio::BufferKind::HugePages
                  : buffers.allocation == streams::BufferAllocation::SharedMemory ? vfio::BufferKind::SharedMemory
                                                                                  : vfio::BufferKind::Anonymous;
    region.dma_mask_bits = options.dma_mask_bits;
    for (size_t i = 0; i < buffers.count; ++i)
        regions.push_back(PDT_TRY(vfio::DmaRegion::allocate(function->device(), buffers.size, region)));
    return std::unique_ptr<streams::StreamChannel>(
        std::make_unique<QdmaStreamChannel>(std::move(function), direction, std::move(queue), std::move(regions)));
}

}  // namespace qdma
