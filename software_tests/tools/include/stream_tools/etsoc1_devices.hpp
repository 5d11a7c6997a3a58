// The stream tools on Esperanto ET-SoC-1 cards (etsoc1 adapter): --etsoc1_device picks the
// cards (an index of the runtime's, or `fake` for the fake card with --etsoc1_fake's
// parameters), which then replace the FPGA designs. Every channel loops back through card
// memory: what H2C sends, C2H brings back and the host verifies byte for byte.
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "streams/stream_device.hpp"
#include "stream_tools/stream_tools.hpp"
#include "cli/device_options.hpp"

namespace stream_tools {

// The card selection (devices empty: not an ET-SoC-1 run) and the stream tools' own options.
struct Etsoc1Cli : cli::Etsoc1Selection {
    std::string channels = "1";        // --etsoc1_channels: loopback channel pairs per card
    std::string window = "2";          // --etsoc1_window: copies in flight per direction per channel
};

void add_etsoc1_options(boost::program_options::options_description& description, Etsoc1Cli& cli);

// Opens the cards as stream devices and prints one line per card to out. Usage errors: EINVAL.
vfio::Result<std::vector<std::unique_ptr<streams::StreamDevice>>> open_etsoc1_stream_devices(const Etsoc1Cli& cli,
                                                                                     std::FILE* out);

}  // namespace stream_tools
