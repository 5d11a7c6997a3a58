// An ET-SoC-1 card (runtime binding or fake) as a streams::StreamDevice (the seam the stream
// tools open): every channel pair loops back through card memory (etsoc1/channels.hpp), so what
// H2C sends, C2H brings back and the host verifies byte for byte.
#pragma once

#include <memory>

#include "etsoc1/card.hpp"
#include "streams/stream_device.hpp"

namespace etsoc1 {

struct StreamDeviceConfig {
    int device = 0;          // the card's index in `card`
    DeviceInfo info;         // its name and what the runtime says of it
    vfio::PciAddress address;
    unsigned channels = 1;   // loopback channel pairs
    unsigned window = 2;     // copies in flight per direction on each channel
    std::chrono::milliseconds abort_timeout{5000};  // a stop's aborts: the tool's transfer timeout
};

// The device holds `card` for as long as it and its channels live.
std::unique_ptr<streams::StreamDevice> make_stream_device(std::shared_ptr<Card> card, StreamDeviceConfig config);

}  // namespace etsoc1
