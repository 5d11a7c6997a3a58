// QDMA designs whose design data states stream routes (designs::Qdma::stream_routes), opened as
// stream devices (qdma::open_stream_device): the stream tools' QDMA path, beside the XDMA one
// (xdma_stream_devices.hpp). Stream queue n is the design function's queue n each way; the
// queues are polled (qdma_stream_channel.hpp: no interrupts on stream queues).
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "identify/identify.hpp"
#include "streams/stream_device.hpp"

namespace adapters {

struct QdmaStreamOptions {
    uint32_t ring_entries = 0;  // a QDMA_GLBL_RNG_SZ value; 0: the smallest holding the buffers
    unsigned dma_mask_bits = 64;
    std::ostream* progress = nullptr;  // "Device <bdf> QDMA stream queues: ..."
};

// The design's loopback routes (its qdma.stream_routes), ordered by H2C queue; empty when the
// design states none (a NIC: H2C goes to the MAC).
std::vector<streams::LoopRoute> qdma_loop_routes(const designs::Design& design);

// A QDMA design with stream routes, holding the identified design (its device) for its life.
class QdmaDesignStreamDevice : public streams::StreamDevice {
public:
    QdmaDesignStreamDevice(identify::IdentifiedDesign design, std::unique_ptr<streams::StreamDevice> queues)
        : m_design(std::move(design)), m_queues(std::move(queues)) {}
    std::string design_name() const override { return m_queues->design_name(); }
    vfio::PciAddress address() const override { return m_design.identity.address; }
    int iommu_group() const override { return m_design.identity.iommu_group; }
    unsigned h2c_channels() const override { return m_queues->h2c_channels(); }
    unsigned c2h_channels() const override { return m_queues->c2h_channels(); }
    std::vector<streams::LoopRoute> routes() const override { return m_queues->routes(); }
    streams::CardFunction card_function() const override { return m_queues->card_function(); }
    const char* channel_kind() const override { return "queue"; }
    pdt::Result<std::unique_ptr<streams::StreamChannel>> open_channel(streams::Direction direction, unsigned channel,
                                                                      const streams::ChannelBuffers& buffers) override {
        return m_queues->open_channel(direction, channel, buffers);
    }
    vfio::Device& device() { return *m_design.device; }
    const identify::IdentifiedDesign& identified() const { return m_design; }

private:
    identify::IdentifiedDesign m_design;  // its device outlives the queues (declared first)
    std::unique_ptr<streams::StreamDevice> m_queues;
};

// Opens the stream queues 0..n-1 of the design's function (n: past the highest queue a route
// names), bus mastering enabled. ENODEV when the design has no qdma or no stream routes (the
// reason names it), or the IP no stream engines; a usage error for a ring size the IP lacks.
pdt::Result<std::unique_ptr<QdmaDesignStreamDevice>> make_qdma_stream_device(identify::IdentifiedDesign design,
                                                                             const QdmaStreamOptions& options);

}  // namespace adapters
