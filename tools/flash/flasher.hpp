// quad_spi_flasher's modes over one opened flash: identify, read, compare, write (erase,
// program and verify an image) and erase, with the safety rules of flash/programmer.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

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

// What a mode did, for --json (one document) and the exit status.
struct Report {
    const char* mode = "identify";
    uint64_t address = 0, length = 0;
    size_t differ = 0, unchanged = 0, written = 0, skipped = 0;
    uint64_t verified_bytes = 0;
    bool dry_run = false;
    std::optional<uint64_t> first_difference;
    std::optional<flash::Journal> journal;  // an interrupted write found
    std::string error;                      // empty when the mode succeeded
    std::string verdict = "PASS";           // PASS, FAIL, DRY_RUN
};
std::string to_json(const Report& report);

// The mode and number options as given, and their reading into Options (a usage message on
// error): one mode at most, sizes as pdt::parse_size reads them, --busy_timeout seconds.
struct OptionText {
    std::vector<std::string> devices, sim_designs, design_files;
    std::string lock_timeout, read, compare, write, offset, length, update_offset, busy_timeout = "3";
    bool erase = false;
};
std::optional<std::string> parse_options(const OptionText& text, Options& options, double& busy_seconds);

struct Target {
    std::string design, address;  // the design's name and PCI address
    int iommu_group = 0;
    const designs::Design* data = nullptr;
};

// The identify lines (fpga_sio's first lines, then the SFDP summary), or its JSON object; with
// report_journal, an interrupted write the journal records.
int identify(flash::SpiNor& nor, const Target& target, const Options& options, std::string& json,
             bool report_journal);
// Read, compare, write or erase; prints what it did (text unless --json) and fills `report`;
// returns the exit status. `stop` (Ctrl-C) ends a write between sectors.
int run_mode(flash::SpiNor& nor, const Target& target, const Options& options, Report& report,
             const std::function<bool()>& stop = {});

}  // namespace flasher
