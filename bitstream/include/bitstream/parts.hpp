// The JTAG IDCODEs of the FPGAs our designs use, and their neighbours, as UG470 Table 1-1
// (7 series) and UG570 Table 1-4 (UltraScale/UltraScale+) list them. IDCODE [31:28] is the
// device revision and is not compared; [27:0] names the device. Versal is out of scope.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace bitstream {

struct Part {
    uint32_t idcode;       // revision [31:28] zero
    const char* name;      // "XC7A200T"
    const char* family;    // "Artix-7"
    const char* source;    // the table it comes from
};

constexpr uint32_t kIdcodeRevisionMask = 0xF0000000;

// The parts of the table.
std::span<const Part> known_parts();
// The part whose IDCODE matches in [27:0]; nullopt for one not in the table.
std::optional<Part> part_for_idcode(uint32_t idcode);
// "XC7A200T", or "unknown part" for an IDCODE not in the table.
std::string part_name(uint32_t idcode);

}  // namespace bitstream
