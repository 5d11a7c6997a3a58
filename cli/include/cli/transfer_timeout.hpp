// The one default of every tool's --transfer_timeout (cli/device_options.hpp adds and parses the
// option): fpga_sio's largest (test_dma_bridge's TRANSFER_TIMEOUT_SECS), needed by U200 DDR4
// unaligned ECC read-modify-write. A header of its own so that the libraries whose settings
// default to it need not include the option parser.
#pragma once

#include <chrono>

namespace cli {

inline constexpr std::chrono::seconds kDefaultTransferTimeout{60};

}  // namespace cli
