// A small synthetic Xilinx bitstream for the tests, written from UG470 chapter 5 ("Bitstream
// Composition" and its configuration sequence, the packet formats of Tables 5-20 to
// 5-23) and the .bit header every .bit file has: header fields, dummy words, the bus width
// detection pattern, the Sync word, packets, a few FDRI frames, CRC, DESYNC, trailing NOPs.
// Each place a test needs is recorded as it is written (offsets in the file).
//
// expected_spi_bin() writes the .bin that write_cfgmem -interface SPIx4 gives for the same
// spec, separately: the configuration words listed in the document's order, big-endian, not
// bit-swapped (UG570 "Bit Swapping"), without the .bit header. It does not call the library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bitstream_test {

struct ImageSpec {
    std::string design_name = "pcie_dma_top;UserID=0XFFFFFFFF;Version=2023.2";
    std::string part = "7a200tfbg484";
    std::string date = "2026/12/04";
    std::string time = "17:30:00";
    uint32_t idcode = 0x03636093;  // XC7A200T, UG470 Table 1-1
    uint32_t frames = 3;           // FDRI frames of kFrameWords
    bool compressed = false;       // an MFWR write after the MFW command (multiple frame write)
    bool encrypted = false;        // MASK and CTL0 with DEC [6], and the CBC write
    uint32_t dummy_words = 8;
    uint32_t trailing_nops = 2;
    bool with_header = true;       // false: a .bin (the configuration data alone)
};

constexpr uint32_t kFrameWords = 101;  // a 7 series frame: 101 words (UG470 "Frames")

struct Image {
    std::vector<uint8_t> bytes;
    size_t b_length_at = 0;      // the 'b' field's 2-byte length
    size_t e_length_at = 0;      // the 'e' field's 4-byte length
    size_t data_offset = 0;      // the configuration data (the first dummy word)
    size_t bus_width_at = 0;     // 0x000000BB
    size_t sync_at = 0;          // 0xAA995566
    size_t fdri_type2_at = 0;    // the type 2 FDRI header
    size_t desync_at = 0;        // the type 1 CMD header that writes DESYNC
    size_t packet_count = 0;     // packets after the Sync word, trailing NOPs included
};

Image make_image(const ImageSpec& spec = {});

// The .bin for SPI flash of the same spec, from the document (see above).
std::vector<uint8_t> expected_spi_bin(const ImageSpec& spec = {});

// The frame data word i (a pattern, so that a byte out of place shows).
uint32_t frame_word(uint32_t i);

}  // namespace bitstream_test
