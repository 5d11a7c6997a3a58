// Read-only XDMA channel discovery (PG195 identifier registers).
// SEAM: helper "xdma" provides channel discovery in dma_bridge (namespace xdma); once merged,
// identify should call it and this file goes.
#pragma once

#include <vector>

#include "identify/identify.hpp"
#include "vfio_access/mmio.hpp"

namespace identify {

// Channels of each direction, counted from 0 while the identifier reads subsystem 0x1FC, the
// expected target, the expected stream/memory-mapped bit and the channel number (fpga_sio's
// rule). `dma` is the 64 KiB DMA register window.
std::vector<Channel> discover_channels(const vfio::RegisterWindow& dma, bool stream);

}  // namespace identify
