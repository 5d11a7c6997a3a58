#include "adapters/qdma_stream_devices.hpp"

#include <algorithm>
#include <cerrno>

#include "qdma/qdma_stream_device.hpp"

namespace adapters {

std::vector<streams::LoopRoute> qdma_loop_routes(const designs::Design& design) {
    std::vector<streams::LoopRoute> routes;
    if (design.qdma)
        for (const designs::QdmaStreamRoute& r : design.qdma->stream_routes)
            routes.push_back({r.h2c, r.c2h});
    std::sort(routes.begin(), routes.end());
    return routes;
}

pdt::Result<std::unique_ptr<QdmaDesignStreamDevice>> make_qdma_stream_device(identify::IdentifiedDesign design,
                                                                             const QdmaStreamOptions& options) {
    const std::string bdf = design.identity.address.to_string();
    if (!design.device)
        return pdt::make_error("open QDMA stream design", bdf, EINVAL, "the identified design holds no open device");
    const std::vector<streams::LoopRoute> routes = qdma_loop_routes(*design.design);
    if (routes.empty())
        return pdt::make_error("open QDMA stream design", bdf + " " + design.design->name, ENODEV,
                               "its design data states no qdma.stream_routes (what the card does between its stream "
                               "queues): nothing comes back to verify");
    unsigned channels = 0;
    for (const streams::LoopRoute& r : routes)
        channels = std::max({channels, r.h2c + 1, r.c2h + 1});
    qdma::StreamDeviceConfig config;
    config.design_name = design.design->name;
    config.display_name = design.design->text_name();
    config.function.bar = design.design->qdma->bar;
    config.function.function = design.design->card ? design.design->card->physical_function : 0;
    config.function.queues = static_cast<uint16_t>(std::max(16u, channels));
    // Each PF its own range of physical queues (FMAP), as the qdma copy endpoint.
    config.function.qid_base = static_cast<uint16_t>(config.function.function * config.function.queues);
    config.channels = channels;
    config.routes = routes;
    config.card_function = streams::CardFunction::Loopback;  // the only stream_function a QDMA design states
    config.channel.ring_entries = options.ring_entries;
    config.channel.completion_entries = options.ring_entries;
    config.channel.dma_mask_bits = options.dma_mask_bits;
    if (PDT_TRY(design.device->enable_bus_master()) && options.progress)
        *options.progress << "Enabled bus master for " << bdf << "\n";
    auto queues = PDT_TRY(qdma::open_stream_device(*design.device, config));
    if (options.progress) {
        *options.progress << "Device " << bdf << " QDMA stream queues:";
        for (const streams::LoopRoute& r : routes)
            *options.progress << " H2C queue " << r.h2c << " -> C2H queue " << r.c2h;
        *options.progress << ", descriptor rings of "
                          << (options.ring_entries ? std::to_string(options.ring_entries) + " entries"
                                                   : std::string("the smallest size holding the buffers"))
                          << ", completion polled\n";
    }
    return std::make_unique<QdmaDesignStreamDevice>(std::move(design), std::move(queues));
}

}  // namespace adapters
