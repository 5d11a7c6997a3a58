// A QDMA design's AXI4-Stream queues as a stream device (streams::StreamDevice): channel n is the
// function's stream queue n in each direction (qdma_stream_channel.hpp). What the card does
// between the queues is not in the QDMA's registers: the caller states the routes and the card
// function (from design data; sim's model loops H2C stream queue q back to C2H queue q).
//
//   qdma::StreamDeviceConfig config{.design_name = "open-nic", .channels = 2,
//                                   .routes = {{0, 0}, {1, 1}}};
//   auto device = PDT_TRY(qdma::open_stream_device(vfio_device, config));
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "qdma/qdma_function.hpp"
#include "qdma/qdma_stream_channel.hpp"
#include "streams/stream_device.hpp"

namespace qdma {

struct StreamDeviceConfig {
    std::string design_name;
    std::string display_name;  // the name in fpga_sio's text lines; empty: design_name
    FunctionOptions function;  // bar, function, FMAP range (queues >= channels)
    unsigned channels = 1;     // stream queues 0..channels-1 each way
    std::vector<streams::LoopRoute> routes;
    streams::CardFunction card_function = streams::CardFunction::Loopback;
    StreamChannelOptions channel;
};

// Opens the function (capabilities, FMAP). ENODEV when the IP has no H2C or C2H stream engine;
// a usage error when channels is 0 or past the function's queues; EINVAL when a route names a
// channel past it.
// `device` outlives the stream device.
pdt::Result<std::unique_ptr<streams::StreamDevice>> open_stream_device(vfio::Device& device,
                                                                       const StreamDeviceConfig& config);

}  // namespace qdma
