// Reading, comparing and programming a flash range safely: every read is made three times and
// trusted only when the three agree; programming erases and writes only the sectors that
// differ from the image, verifies each after writing, and is planned (a dry run) before any
// write. A journal file records the range in progress, so that an interrupted run is reported
// and finished by the next.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flash/spi_nor.hpp"

namespace flash {

// Reads [address, address + length) three times; an error naming the first differing address
// when any two reads differ (EIO).
pdt::Result<std::vector<uint8_t>> read_verified(SpiNor& flash, uint64_t address, size_t length);

// The first address where `data` (read at `address`) differs from `expected`, if any.
std::optional<uint64_t> first_difference(uint64_t address, std::span<const uint8_t> data,
                                         std::span<const uint8_t> expected);

struct Plan {
    uint64_t address = 0;   // the range's start (sector aligned)
    uint64_t length = 0;    // the image's length (a whole number of sectors)
    uint32_t sector_size = 0;
    std::vector<uint64_t> to_write;  // sector addresses whose contents differ
    size_t unchanged = 0;            // sectors already holding the image
};

// The checks every write takes before anything is written (each a usage error unless said): the image
// fits the flash (EFBIG), the range is sector aligned, it avoids the golden image
// [0, golden_end) unless overwrite_golden (EPERM), no sector of it is block-protected (EACCES).
struct WriteRules {
    uint64_t golden_end = 0;
    bool overwrite_golden = false;
};
pdt::Result<void> check_write_range(SpiNor& flash, uint64_t address, uint64_t length, const WriteRules& rules);

// Compares the flash (verified reads) with the image padded with 0xFF to whole sectors.
pdt::Result<Plan> plan_write(SpiNor& flash, uint64_t address, std::span<const uint8_t> image);

// The image as written: padded with 0xFF (erased) to the plan's length.
std::vector<uint8_t> padded_image(std::span<const uint8_t> image, uint32_t sector_size);

struct WriteResult {
    size_t written = 0, skipped = 0;
    uint64_t verified_bytes = 0;
};
// Erases and programs the plan's differing sectors (pages all 0xFF left erased), verifying each
// sector after writing (a mismatch: EIO naming the sector and the first differing address).
// `stop` is asked before each sector: true ends the write there (ECANCELED, naming how many
// sectors were written), the sector before it complete and verified.
pdt::Result<WriteResult> execute_plan(SpiNor& flash, const Plan& plan, std::span<const uint8_t> padded,
                                      const std::function<bool()>& stop = {});

// The journal of a write in progress: a small text file written (atomically) before the first
// erase and removed once every sector verified.
struct Journal {
    std::string device;  // the card's PCI address and design
    std::string image;   // the image file's path
    uint64_t address = 0, length = 0;
};
pdt::Result<void> write_journal(const std::filesystem::path& path, const Journal& journal);
// nullopt when there is none; an error when it is unreadable or malformed.
pdt::Result<std::optional<Journal>> read_journal(const std::filesystem::path& path);
pdt::Result<void> remove_journal(const std::filesystem::path& path);

}  // namespace flash
