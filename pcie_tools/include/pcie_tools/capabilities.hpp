// Walks the standard (from 0x34) and extended (from 0x100) capability lists. Survives loops
// (a visited set keyed by offset, not ID), all-ones reads, pointers into the header, truncated
// spaces and unknown IDs; every irregularity is recorded as a problem instead of stopping
// the whole dump.
#pragma once

#include <string>
#include <vector>

#include "pcie_tools/config_space.hpp"

namespace pcie {

struct Capability {
    bool extended = false;
    uint16_t id = 0;
    uint8_t version = 0;  // extended capabilities only
    uint16_t offset = 0;
};

struct CapabilityList {
    std::vector<Capability> standard;
    std::vector<Capability> extended;
    std::vector<std::string> problems;  // "<chain broken>", "loop at [48]", "truncated at 0x100", ...
    // Where a chain ended irregularly, the line lspci prints there ("Capabilities: [40] <chain
    // looped>"), in list order: standard first.
    std::vector<std::string> lspci_ends;

    const Capability* find(uint8_t id) const;
    const Capability* find_extended(uint16_t id) const;
};

CapabilityList walk_capabilities(ConfigSpace& space);

const char* capability_name(uint8_t id);           // "Power Management", ..., nullptr if unknown
const char* extended_capability_name(uint16_t id);  // "Advanced Error Reporting", ..., nullptr if unknown

}  // namespace pcie
