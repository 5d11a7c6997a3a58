// IDCODE -> part: UG470 Table 1-1 "7 Series FPGA IDCODE values", UG570 Table 1-4 (UltraScale
// and UltraScale+ IDCODE values). The Alveo cards' FPGAs (XCU200, XCU50, ...) have IDCODEs of
// their own, which UG570 does not list; theirs are those Vivado's JTAG_SIME2 simulation model
// gives (as fpga_sio's bitstream tools list them).
#include "bitstream/parts.hpp"

#include <array>

namespace bitstream {

namespace {

constexpr const char* kUg470 = "UG470 Table 1-1";
constexpr const char* kUg570 = "UG570 Table 1-4";
constexpr const char* kAlveo = "Vivado JTAG_SIME2 (Alveo)";

constexpr std::array kParts{
    Part{0x0362D093, "XC7A35T", "Artix-7", kUg470},
    Part{0x0362C093, "XC7A50T", "Artix-7", kUg470},
    Part{0x03632093, "XC7A75T", "Artix-7", kUg470},
    Part{0x03631093, "XC7A100T", "Artix-7", kUg470},
    Part{0x03636093, "XC7A200T", "Artix-7", kUg470},
    Part{0x03647093, "XC7K70T", "Kintex-7", kUg470},
    Part{0x0364C093, "XC7K160T", "Kintex-7", kUg470},
    Part{0x03651093, "XC7K325T", "Kintex-7", kUg470},
    Part{0x03656093, "XC7K410T", "Kintex-7", kUg470},
    Part{0x03691093, "XC7VX690T", "Virtex-7", kUg470},
    Part{0x03919093, "XCKU060", "Kintex UltraScale", kUg570},
    Part{0x0390D093, "XCKU115", "Kintex UltraScale", kUg570},
    Part{0x04A63093, "XCKU3P", "Kintex UltraScale+", kUg570},
    Part{0x04A62093, "XCKU5P", "Kintex UltraScale+", kUg570},
    Part{0x04A56093, "XCKU15P", "Kintex UltraScale+", kUg570},
    Part{0x04B31093, "XCVU9P", "Virtex UltraScale+", kUg570},
    Part{0x04B51093, "XCVU13P", "Virtex UltraScale+", kUg570},
    Part{0x04B71093, "XCVU35P", "Virtex UltraScale+", kUg570},
    Part{0x04B79093, "XCVU37P", "Virtex UltraScale+", kUg570},
    Part{0x04B37093, "XCU200", "Alveo U200 (XCVU9P)", kAlveo},
    Part{0x04B57093, "XCU250", "Alveo U250 (XCVU13P)", kAlveo},
    Part{0x04B77093, "XCU50", "Alveo U50 (XCVU35P)", kAlveo},
    Part{0x04B7D093, "XCU280", "Alveo U280 (XCVU37P)", kAlveo},
};

}  // namespace

std::span<const Part> known_parts() { return kParts; }

std::optional<Part> part_for_idcode(uint32_t idcode) {
    for (const Part& part : kParts)
        if ((part.idcode & ~kIdcodeRevisionMask) == (idcode & ~kIdcodeRevisionMask))
            return part;
    return std::nullopt;
}

std::string part_name(uint32_t idcode) {
    const auto part = part_for_idcode(idcode);
    return part ? part->name : "unknown part";
}

}  // namespace bitstream
