#include "dma_bridge/xdma_copy_endpoint.hpp"
#include "base/format.hpp"
#include "dma_bridge/xdma_performance.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "streams/vfio_host_buffers.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <optional>
#include <thread>
#include <vector>

namespace xdma {
namespace {

using streams::HostMemory;

// One copy issued on a queue and not yet seen completed.
struct Copy {
    uint64_t sequence = 0;
    Direction direction = Direction::H2C;
    uint64_t host_iova = 0, card_address = 0, bytes = 0;
    bool submitted = false;
};

struct Queue {
    std::unique_ptr<Engine> engines[2];  // [0] H2C q, [1] C2H q
    // Issue order. The submitted copies are a prefix, all of one direction: a copy of the other
    // direction is submitted only once every earlier copy completed.
    std::deque<Copy> copies;
    uint64_t next_sequence = 0;
    uint64_t completed_before = 0;  // every sequence below this completed
    Engine& engine(Direction d) { return *engines[d == Direction::H2C ? 0 : 1]; }
};

class XdmaCopyEndpoint final : public streams::VfioCopyEndpoint {
public:
    XdmaCopyEndpoint(vfio::Device& device, const CopyEndpointConfig& config)
        : VfioCopyEndpoint(64), m_device(device), m_config(config) {}

    pdt::Result<void> open(unsigned queues);
    pdt::Result<streams::Ticket> issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                       uint64_t host_offset, uint64_t card_offset, uint64_t bytes) override;
    pdt::Result<void> wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) override;
    pdt::Result<void> reset_queues() override;
    bool start_ip_counts() override;
    std::vector<std::string> ip_counts() const override;

private:
    vfio::Device& dma_device() const override { return m_device; }
    pdt::Result<void> pump(Queue& queue);

    vfio::Device& m_device;
    CopyEndpointConfig m_config;
    std::vector<Queue> m_queues;
    PerformanceMonitors m_monitors;  // start_ip_counts(): H2C and C2H of each queue
};

pdt::Result<void> XdmaCopyEndpoint::open(unsigned queues) {
    m_queues.resize(queues);
    for (unsigned q = 0; q < queues; ++q) {
        for (Direction d : {Direction::H2C, Direction::C2H}) {
            EngineOptions engine = engine_options(d, q, false, m_config.dma_bar, m_config.register_offset,
                                                  m_config.ring_descriptors, m_config.dma_mask_bits,
                                                  m_config.engine_timeout);
            PDT_TRY(configure_engine(m_device, m_config.ip, m_config.modes, engine));
            m_queues[q].engines[d == Direction::H2C ? 0 : 1] = PDT_TRY(Engine::open(m_device, engine));
        }
    }
    m_info.name = streams::endpoint_name(m_config.name, m_device);
    m_info.pci_address = m_device.identity().address.to_string();
    m_info.card_memory_bytes = m_config.card_memory_size;
    const Engine& h2c = *m_queues[0].engines[0];
    const uint64_t by_ring = uint64_t{m_config.ring_descriptors} * h2c.options().max_descriptor_length;
    m_info.max_copy_bytes = std::min(m_config.card_memory_size, by_ring);
    m_info.queues = queues;
    m_info.max_in_flight = std::max(1u, std::min(m_config.max_in_flight, m_config.ring_descriptors));
    m_info.engine_mode = option_name(h2c.options().mode);
    m_info.completion = option_name(h2c.options().completion);
    // Host buffers within every engine's DMA mask (a sane Alignments address_bits lowers it).
    for (Queue& queue : m_queues)
        for (const auto& engine : queue.engines)
            m_dma_mask_bits = std::min(m_dma_mask_bits, engine->dma_mask_bits());
    return {};
}

pdt::Result<streams::Ticket> XdmaCopyEndpoint::issue(Direction direction, unsigned queue, streams::HostBuffer& host,
                                                     uint64_t host_offset, uint64_t card_offset, uint64_t bytes) {
    const streams::RegisteredBuffer* registered = PDT_TRY(
        admit_copy(direction, queue, m_queues.size(), host, host_offset, card_offset, bytes, "the XDMA engines"));
    auto refuse = [&](int code, const std::string& why) {
        return streams::copy_issue_error(m_info.name, direction, queue, host_offset, card_offset, bytes, code, why);
    };
    Queue& q = m_queues[queue];
    const ChannelInfo& channel = q.engine(direction).info();
    const uint64_t host_iova = registered->iova() + host_offset, card_address = m_config.card_memory_base + card_offset;
    if (channel.address_alignment > 1 &&
        (host_iova % channel.address_alignment != 0 || card_address % channel.address_alignment != 0))
        return refuse(EINVAL, "the engine's Alignments register asks addresses aligned to " +
                                  std::to_string(channel.address_alignment) + " bytes");
    if (channel.length_granularity > 1 && bytes % channel.length_granularity != 0)
        return refuse(EINVAL, "the engine's Alignments register asks lengths a multiple of " +
                                  std::to_string(channel.length_granularity) + " bytes");
    if (q.copies.size() >= m_info.max_in_flight)
        return refuse(EBUSY, std::to_string(q.copies.size()) + " copies already in flight, the most one queue holds");
    const streams::Ticket ticket{queue, q.next_sequence++};
    q.copies.push_back(Copy{ticket.sequence, direction, host_iova, card_address, bytes, false});
    PDT_CHECK(pump(q));
    return ticket;
}

// Takes completions off the engine of the submitted prefix, then submits what may start.
pdt::Result<void> XdmaCopyEndpoint::pump(Queue& q) {
    while (!q.copies.empty() && q.copies.front().submitted) {
        if (!PDT_TRY(q.engine(q.copies.front().direction).poll()))
            break;
        q.completed_before = q.copies.front().sequence + 1;
        q.copies.pop_front();
    }
    for (Copy& copy : q.copies) {
        if (copy.submitted)
            continue;
        Engine& engine = q.engine(copy.direction);
        if (copy.direction != q.copies.front().direction || engine.free_descriptors() < engine.descriptors_for(copy.bytes))
            break;
        PDT_TRY(engine.submit_memory(copy.host_iova, copy.card_address, copy.bytes));
        copy.submitted = true;
    }
    return {};
}

// A copy the card reports failed leaves the endpoint usable (the engine keeps its error); a
// timeout is told to the failure observer with the engine's registers as they are.
pdt::Result<void> XdmaCopyEndpoint::wait(const streams::Ticket& ticket, std::chrono::milliseconds timeout) {
    auto timed_out = [&](Queue& q) {
        Engine& engine = q.engine(q.copies.front().direction);
        pdt::Error error = streams::oldest_copy_timeout(ticket, m_info.name, timeout, q.copies.front(), engine);
        engine.report_failure(error.message());
        return error;
    };
    auto idle = [](Queue&, std::chrono::steady_clock::time_point) -> pdt::Result<void> {
        std::this_thread::yield();
        return {};
    };
    return streams::wait_in_issue_order(m_queues, ticket, timeout, m_info.name, m_broken,
                                        streams::AfterFailedCopy::Usable, [this](Queue& q) { return pump(q); },
                                        timed_out, idle);
}

bool XdmaCopyEndpoint::start_ip_counts() {
    auto regs = dma_registers(m_device, m_config.dma_bar, m_config.register_offset);
    std::vector<std::pair<Direction, unsigned>> channels;
    for (unsigned q = 0; q < m_queues.size(); ++q)
        channels.insert(channels.end(), {{Direction::H2C, q}, {Direction::C2H, q}});
    return regs && m_monitors.start(*regs, channels);
}

std::vector<std::string> XdmaCopyEndpoint::ip_counts() const { return m_monitors.lines(); }

pdt::Result<void> XdmaCopyEndpoint::reset_queues() {
    return streams::reset_issue_queues(m_queues, m_broken, [](Queue& q) -> auto& { return q.engines; },
                                       [](Engine& engine) { return engine.recover(); });
}

}  // namespace

pdt::Result<std::unique_ptr<streams::CopyEndpoint>> open_copy_endpoint(vfio::Device& device,
                                                                       const CopyEndpointConfig& config) {
    const std::string object = streams::endpoint_name(config.name, device);
    if (config.card_memory_size == 0)
        return pdt::usage_error("open XDMA copy endpoint", object, "the design states no card memory");
    if (config.ring_descriptors == 0 || config.ring_descriptors > MAX_DESCRIPTOR_CREDITS)
        return pdt::make_error("open XDMA copy endpoint", object, EINVAL, "ring_descriptors must be 1..1023");
    PDT_TRY(device.enable_bus_master());  // the engines fetch descriptors and move data as bus master
    const vfio::RegisterWindow regs = PDT_TRY(dma_registers(device, config.dma_bar, config.register_offset));
    const Channels channels = PDT_TRY(discover(regs, false));
    const unsigned queues = std::min<unsigned>({static_cast<unsigned>(channels.h2c.size()),
                                                static_cast<unsigned>(channels.c2h.size()), config.max_queues});
    if (queues == 0)
        return pdt::make_error("open XDMA copy endpoint", object, ENODEV,
                               "no memory-mapped H2C and C2H channel pair found (" + std::to_string(channels.h2c.size()) +
                                   " H2C, " + std::to_string(channels.c2h.size()) + " C2H)");
    auto endpoint = std::make_unique<XdmaCopyEndpoint>(device, config);
    PDT_CHECK(endpoint->open(queues));
    return std::unique_ptr<streams::CopyEndpoint>(std::move(endpoint));
}

}  // namespace xdma
