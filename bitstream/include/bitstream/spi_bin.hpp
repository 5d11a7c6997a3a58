// The .bin file a SPI configuration flash is programmed with, as Vivado's write_cfgmem
// -format BIN -interface SPIx1|SPIx2|SPIx4|SPIx8 writes it from a .bit file: the .bit header
// dropped, the configuration data from the dummy words on, byte for byte. UG570 "Bit
// Swapping" (UG470 likewise): the bitstream files (BIT, RBT, BIN) are never bit-swapped, and an
// SPI interface file is not; bit swapping (the bits of each byte reversed, UG570 "Parallel Bus
// Bit Order": 0xAA995566 becomes 55 99 AA 66) is for SelectMAP, BPI and ICAPE3 files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bitstream/bitstream.hpp"

namespace bitstream {

struct BinOptions {
    bool bit_swap = false;  // SelectMAP/BPI order; never for SPI flash
    size_t pad_to = 0;      // > 0: 0xFF (erased flash) up to a multiple of this many bytes
};

// The bits of a byte reversed (UG570 "Bit Swapping").
uint8_t bit_swapped(uint8_t byte);

// The .bin of a parsed `file` (parse(file) gave `parsed`).
std::vector<uint8_t> spi_flash_bin(const Bitstream& parsed, std::span<const uint8_t> file, const BinOptions& options = {});

}  // namespace bitstream
