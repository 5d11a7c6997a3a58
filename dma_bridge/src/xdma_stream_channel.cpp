#include "dma_bridge/xdma_stream_channel.hpp"
#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_registers.hpp"

namespace xdma {

pdt::Result<std::unique_ptr<XdmaStreamChannel>> XdmaStreamChannel::create(vfio::Device& device,
                                                                          StreamChannelOptions options) {
    const std::string object = device.identity().address.to_string() + " " + to_string(options.direction) + " " +
                               std::to_string(options.channel);
    if (options.buffer_count == 0 || options.buffer_size == 0)
        return pdt::make_error("create XDMA stream channel", object, EINVAL, "buffer_count and buffer_size must be non-zero");
    if (options.max_descriptor_length == 0)
        return pdt::make_error("create XDMA stream channel", object, EINVAL, "max_descriptor_length must be non-zero");
    const uint64_t per_buffer = (options.buffer_size + options.max_descriptor_length - 1) / options.max_descriptor_length;
    if (per_buffer * options.buffer_count > MAX_DESCRIPTOR_CREDITS)
        return pdt::make_error("create XDMA stream channel", object, EINVAL,
                               std::to_string(options.buffer_count) + " buffers of " + std::to_string(per_buffer) +
                                   " descriptors exceed the 1023 descriptors an engine can have in flight");
    std::unique_ptr<XdmaStreamChannel> channel(new XdmaStreamChannel(options));
    channel->m_device = &device;
    const auto ring = static_cast<unsigned>(per_buffer * options.buffer_count);
    EngineOptions engine = engine_options(options.direction, options.channel, true, options.dma_bar,
                                          options.register_offset, ring, options.dma_mask_bits, options.timeout);
    engine.mode = options.mode;
    engine.completion = options.completion;
    engine.completion_auto = options.completion_auto;
    engine.max_descriptor_length = options.max_descriptor_length;
    engine.msi_vector = options.msi_vector;
    engine.coalesce_credits = options.coalesce_credits;
    channel->m_engine = PDT_TRY(Engine::open(device, engine));
    // The buffers within the engine's DMA mask (its Alignments address_bits, when lower).
    const auto access = options.direction == Direction::H2C ? vfio::DmaAccess::DeviceRead : vfio::DmaAccess::DeviceWrite;
    channel->m_buffers = PDT_TRY(vfio::DmaRegion::allocate(
        device, options.buffer_size * options.buffer_count,
        vfio::DmaRegion::Options{access, options.buffer_kind, channel->m_engine->dma_mask_bits()}));
    const unsigned align = channel->m_engine->info().address_alignment;
    if (align > 1 && options.buffer_size % align != 0)
        return pdt::make_error("create XDMA stream channel", object, EINVAL,
                               "buffer_size " + std::to_string(options.buffer_size) +
                                   " is not a multiple of the channel's address_alignment of " + std::to_string(align) +
                                   " bytes");
    return channel;
}

pdt::Result<void> XdmaStreamChannel::submit(size_t index, uint64_t length, bool end_of_packet) {
    if (index >= m_options.buffer_count || length == 0 || length > m_options.buffer_size)
        return pdt::make_error("submit " + name(), "buffer " + std::to_string(index), EINVAL,
                               "buffer index must be < " + std::to_string(m_options.buffer_count) + " and length 1.." +
                                   std::to_string(m_options.buffer_size));
    const uint64_t id = PDT_TRY(m_engine->submit_stream(buffer_iova(index), length, end_of_packet));
    m_queue.emplace_back(id, index);
    return {};
}

streams::Completion XdmaStreamChannel::completion(const TransferCompletion& done) {
    const size_t index = m_queue.front().second;
    m_queue.pop_front();
    return streams::Completion{index, done.length,
                               m_options.direction == Direction::H2C ? false : done.end_of_packet};
}

pdt::Result<std::optional<streams::Completion>> XdmaStreamChannel::poll() {
    const auto done = PDT_TRY(m_engine->poll());
    if (!done)
        return std::optional<streams::Completion>{};
    return std::optional<streams::Completion>{completion(*done)};
}

pdt::Result<streams::Completion> XdmaStreamChannel::wait(std::chrono::milliseconds timeout) {
    const TransferCompletion done = PDT_TRY(m_engine->wait(timeout));
    return completion(done);
}

pdt::Result<void> XdmaStreamChannel::stop() {
    m_queue.clear();
    return m_engine->stop();  // idle now; the next submit reinitialises the engine
}

bool XdmaStreamChannel::start_ip_counts() {
    auto regs = dma_registers(*m_device, m_options.dma_bar, m_options.register_offset);
    return regs && m_monitor.start(*regs, {{m_options.direction, m_options.channel}});
}

}  // namespace xdma
