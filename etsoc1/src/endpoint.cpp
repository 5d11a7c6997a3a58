// The copy endpoint over the Mover (endpoint.hpp).
#include "etsoc1/endpoint.hpp"

#include <algorithm>

#include "etsoc1/transfers.hpp"

namespace etsoc1 {

namespace {

// Kept, never freed, once an abort did not complete (the Mover's buffers_at_risk).
class PageableBuffer : public streams::HostBuffer {
public:
    PageableBuffer(uint64_t bytes, streams::BuffersAtRisk at_risk)
        : m_bytes(new uint8_t[bytes]), m_size(bytes), m_at_risk(std::move(at_risk)) {}
    ~PageableBuffer() override {
        if (m_at_risk->load())
            streams::keep_until_exit(m_bytes.release());
    }
    uint8_t* data() override { return m_bytes.get(); }
    uint64_t size() const override { return m_size; }
    streams::HostMemory memory() const override { return streams::HostMemory::Pageable; }

private:
    std::unique_ptr<uint8_t[]> m_bytes;
    uint64_t m_size;
    streams::BuffersAtRisk m_at_risk;
};

class Endpoint : public streams::CopyEndpoint {
public:
    Endpoint(Card& card, EndpointConfig config, std::unique_ptr<Mover> mover, CardAddress base,
             streams::EndpointInfo info)
        : m_card(card), m_config(config), m_mover(std::move(mover)), m_base(base), m_info(std::move(info)) {}
    ~Endpoint() override {
        const streams::BuffersAtRisk at_risk = m_mover->buffers_at_risk();
        m_mover.reset();  // aborts what is in flight
        if (!at_risk->load())  // else the card may still write its memory: kept too
            (void)m_card.free(m_config.mover.device, m_base);
    }

    const streams::EndpointInfo& info() const override { return m_info; }

    pdt::Result<std::unique_ptr<streams::HostBuffer>> allocate(uint64_t bytes, streams::HostMemory memory) override {
        // The runtime has no call to register user memory (removed in 0.3.x): every copy is
        // staged through its bounce buffer (info().driver_stages). A registered buffer is
        // therefore the best the card offers, plain memory, and says so (memory() is pageable);
        // huge pages would change nothing the card sees and are not offered.
        if (memory == streams::HostMemory::RegisteredHugePages)
            return pdt::make_error("allocate host buffer", m_info.name, ENOTSUP,
                                   "huge-page memory is not offered: the runtime cannot register user memory "
                                   "(removed in 0.3.x); every copy is staged through its bounce buffer");
        if (bytes == 0)
            return pdt::make_error("allocate host buffer", m_info.name, EINVAL, "zero bytes");
        return std::unique_ptr<streams::HostBuffer>(std::make_unique<PageableBuffer>(bytes, m_mover->buffers_at_risk()));
    }

    pdt::Result<streams::Ticket> issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override {
        if (queue >= m_info.queues || bytes == 0 || host_offset > host.size() || bytes > host.size() - host_offset ||
            card_offset > card_bytes() || bytes > card_bytes() - card_offset)
            return pdt::make_error(std::string("issue ") + streams::to_string(direction) + " copy", m_info.name, EINVAL,
                                   "queue " + std::to_string(queue) + ", host offset " + std::to_string(host_offset) +
                                       ", card offset " + std::to_string(card_offset) + ", " + std::to_string(bytes) +
                                       " bytes: outside the buffer, the card window or the queues");
        const TransferId id = PDT_TRY(
            m_mover->start(direction, host.data() + host_offset, m_base + card_offset, bytes, queue));
        return streams::Ticket{queue, id};
    }

    pdt::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override {
        return m_mover->wait(ticket.sequence, timeout);
    }

    pdt::Result<void> reset_queues() override {
        PDT_CHECK(m_mover->abandon(Direction::H2C));
        return m_mover->abandon(Direction::C2H);
    }

    // `count` empty kernels, each with the barrier (one at a time on the card), waited for the last.
    pdt::Result<void> launch_empty(unsigned queue, unsigned count, std::chrono::milliseconds timeout) override {
        if (!m_info.can_launch)
            return streams::CopyEndpoint::launch_empty(queue, count, timeout);
        const StreamId stream = m_mover->stream(Direction::H2C, queue);
        EventId last = 0;
        for (unsigned i = 0; i < count; ++i)
            last = PDT_TRY(m_card.launch_empty(stream, true));
        if (count > 0 && !PDT_TRY(m_card.wait_event(last, whole_seconds(timeout))))
            return pdt::make_error("launch empty kernels", m_info.name, ETIMEDOUT,
                                   "not done within " + std::to_string(whole_seconds(timeout).count()) + " s");
        const auto errors = PDT_TRY(m_card.drain_errors(stream));
        if (!errors.empty())
            return pdt::make_error("launch empty kernels", m_info.name, EIO,
                                   "the card reported " + errors.front().code + " (" + errors.front().text + ")");
        return {};
    }

private:
    // The window and, after it, the decoy region (info().decoy_card_bytes).
    uint64_t card_bytes() const { return m_info.card_memory_bytes + m_info.decoy_card_bytes; }

    Card& m_card;
    EndpointConfig m_config;
    std::unique_ptr<Mover> m_mover;
    CardAddress m_base;
    streams::EndpointInfo m_info;
};

}  // namespace

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_endpoint(Card& card, const EndpointConfig& config) {
    auto mover = PDT_TRY(Mover::open(card, config.mover));
    const DeviceInfo device = PDT_TRY(card.info(config.mover.device));
    streams::EndpointInfo info;
    info.name = device.name;
    info.pci_address = device.pci_address;
    info.card_memory_bytes = config.card_memory_bytes;
    info.max_copy_bytes = mover->limits().max_copy_bytes();
    info.queues = config.mover.streams_per_direction;
    info.max_in_flight = config.mover.window;
    info.can_launch = card.can_launch();
    info.driver_stages = true;
    info.pageable_copies = true;  // every buffer is plain memory
    // The decoy region after the window: as large as it, up to 64 MiB (a decoy fills the bounce
    // buffer's first bytes, where copies issued one at a time are staged).
    info.decoy_card_bytes = std::min<uint64_t>(config.card_memory_bytes, 64u << 20);
    const CardAddress base =
        PDT_TRY(card.allocate(config.mover.device, config.card_memory_bytes + info.decoy_card_bytes, 4096));
    return std::unique_ptr<streams::CopyEndpoint>(
        std::make_unique<Endpoint>(card, config, std::move(mover), base, std::move(info)));
}

}  // namespace etsoc1
