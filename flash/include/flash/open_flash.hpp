// Opening the configuration flash behind the AXI Quad SPI core a design lists (its quad_spi
// peripheral: the core's BAR and offset, its SPI mode).
#pragma once

#include "designs/design.hpp"
#include "flash/spi_nor.hpp"
#include "vfio_access/device.hpp"

namespace flash {

// The design's quad_spi peripheral for this revision, or nullptr.
const designs::Peripheral* quad_spi_peripheral(const designs::Design& design, uint8_t revision);
// Resets the core and reads the flash's JEDEC ID and SFDP. ENOENT when the design has no
// quad_spi peripheral.
pdt::Result<SpiNor> open_flash(vfio::Device& device, const designs::Design& design, uint8_t revision,
                               FlashTimeouts timeouts = {});

}  // namespace flash
