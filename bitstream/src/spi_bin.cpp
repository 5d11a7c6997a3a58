// The .bin for SPI flash (spi_bin.hpp).
#include "bitstream/spi_bin.hpp"

namespace bitstream {

uint8_t bit_swapped(uint8_t byte) {
    uint8_t swapped = 0;
    for (int bit = 0; bit < 8; ++bit)
        if (byte & (1u << bit))
            swapped |= static_cast<uint8_t>(0x80u >> bit);
    return swapped;
}

std::vector<uint8_t> spi_flash_bin(const Bitstream& parsed, std::span<const uint8_t> file, const BinOptions& options) {
    const auto data = file.subspan(parsed.data_offset, parsed.data_length);
    std::vector<uint8_t> bin(data.begin(), data.end());
    if (options.bit_swap)
        for (uint8_t& byte : bin)
            byte = bit_swapped(byte);
    if (options.pad_to > 0 && bin.size() % options.pad_to != 0)
        bin.resize(bin.size() + options.pad_to - bin.size() % options.pad_to, 0xFF);
    return bin;
}

}  // namespace bitstream
