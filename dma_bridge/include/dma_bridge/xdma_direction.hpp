// xdma::Direction, the seam's H2C / C2H, for the driver's public headers: they name a direction
// without the register map (xdma_registers.hpp), which is the driver's alone
// (docs/architecture.md, "Private headers").
#pragma once

#include "streams/stream_channel.hpp"

namespace xdma {

using Direction = streams::Direction;

}  // namespace xdma
