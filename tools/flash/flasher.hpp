// quad_spi_flasher's modes over one opened flash: identify, read, compare, write (erase,
// program and verify an image) and erase, with the safety rules of flash/programmer.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "designs/design.hpp"
#include "flash/programmer.hpp"

namespace flasher {

enum class Mode { Identify, Read, Compare, Write, Erase };

struct Options {
    Mode mode = Mode::Identify;
    std::string file;                  // --read/--compare/--write FILE
    std::optional<uint64_t> offset;    // --offset
    std::optional<uint64_t> length;    // --length
    std::optional<uint64_t> update_offset;  // --update_offset: the multiboot update image
    bool overwrite_golden = false;
    bool program = false;              // --program: without it, a dry run
    bool any_part = false;             // --any_part: no IDCODE check (not a bitstream)
    std::string journal;               // --journal FILE
    bool json = false;
};

struct Target {
    std::string design, address;  // the design's name and PCI address
    int iommu_group = 0;
    const designs::Design* data = nullptr;
};

// The identify lines (fpga_sio's first lines, then the SFDP summary), or its JSON object.
int identify(flash::SpiNor& nor, const Target& target, const Options& options, std::string& json);
// Read, compare, write or erase; prints what it did; returns the exit status.
int run_mode(flash::SpiNor& nor, const Target& target, const Options& options);

// The FPGA IDCODE a bitstream image configures: the word after its first Type 1 write of the
// IDCODE register (UG470 Table 5-23 packet header 0x30018001), nullopt when none.
std::optional<uint32_t> image_idcode(const std::vector<uint8_t>& image);

}  // namespace flasher
