// The simulated flashes' shapes: JEDEC IDs from the makers' datasheets (Micron MT25QU01GBBB:
// 20h BBh 21h; Macronix MX25L51245G: C2h 20h 1Ah) and SFDP spaces laid out by JESD216B: the
// SFDP header, parameter headers, the 16-DWORD Basic Flash Parameter Table and, for the Micron
// shape, the 4-byte Address Instruction Table.
#include <cerrno>

#include "base/little_endian.hpp"

#include "model_support.hpp"
#include "sim/quad_spi_model.hpp"

namespace sim {
namespace {

// A DWORD at `at`; the space grows as needed, its unwritten bytes erased flash's 0xFF.
void put32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
    if (bytes.size() < at + 4)
        bytes.resize(at + 4, 0xff);
    pdt::store_le(std::span(bytes).subspan(at, 4), value);
}

// JESD216B 6.2 header ('SFDP', revision 1.6, NPH, access protocol 0xFF) and 6.3 parameter
// headers (ID LSB, minor, major, length in DWORDs, 24-bit pointer, ID MSB).
struct Table {
    uint16_t id;
    uint8_t major, minor;
    std::vector<uint32_t> dwords;
};
std::vector<uint8_t> sfdp_space(const std::vector<Table>& tables) {
    std::vector<uint8_t> bytes;
    put32(bytes, 0, 0x50444653);
    put32(bytes, 4, 0xff000106u | static_cast<uint32_t>(tables.size() - 1) << 16);
    uint32_t pointer = 0x30;
    for (size_t i = 0; i < tables.size(); ++i) {
        const Table& t = tables[i];
        put32(bytes, 8 + 8 * i,
              (t.id & 0xffu) | uint32_t{t.minor} << 8 | uint32_t{t.major} << 16 |
                  static_cast<uint32_t>(t.dwords.size()) << 24);
        put32(bytes, 12 + 8 * i, pointer | uint32_t{static_cast<uint8_t>(t.id >> 8)} << 24);
        for (size_t d = 0; d < t.dwords.size(); ++d)
            put32(bytes, pointer + 4 * d, t.dwords[d]);
        pointer += static_cast<uint32_t>(t.dwords.size() * 4);
        pointer = (pointer + 15) & ~15u;
    }
    return bytes;
}

// BFPT DWORD 1: 4 KiB erase (01b) with opcode 0x20, write granularity 64+ bytes (bit 2), 1-1-2
// (bit 16), address bytes 3-or-4 (01b at 18:17), 1-2-2 (bit 20), 1-4-4 (bit 21), 1-1-4 (bit 22),
// reserved bits 31:23 ones.
constexpr uint32_t kDword1 = 0xff800000u | 1u << 22 | 1u << 21 | 1u << 20 | 1u << 17 | 1u << 16 | 0x20u << 8 | 1u << 2 | 1u;
// DWORD 3: 1-1-4 0x6B with 8 wait states, 1-4-4 0xEB with 6 wait states and 2 mode clocks.
constexpr uint32_t kDword3 = 0x6Bu << 24 | 8u << 16 | 0xEBu << 8 | 2u << 5 | 6u;
// DWORD 4: 1-2-2 0xBB (4 wait states), 1-1-2 0x3B (8 wait states).
constexpr uint32_t kDword4 = 0xBBu << 24 | 4u << 16 | 0x3Bu << 8 | 8u;
// DWORD 8/9: erase types 4 KiB (2^12) 0x20, 32 KiB (2^15) 0x52, 64 KiB (2^16) 0xD8.
constexpr uint32_t kDword8 = 0x52u << 24 | 15u << 16 | 0x20u << 8 | 12u;
constexpr uint32_t kDword9 = 0xD8u << 8 | 16u;
// DWORD 11: page size 2^8 (bits 7:4).
constexpr uint32_t kDword11 = 0x00000081u | 8u << 4;

std::vector<uint32_t> bfpt(uint32_t density_bits, uint32_t dword14, uint32_t qer, uint32_t dword16) {
    return {kDword1, density_bits - 1, kDword3,   kDword4,   0xffffffeeu, 0xffff0000u, 0xffff0000u, kDword8,
            kDword9, 0x00000000u,      kDword11, 0x00000000u, 0x00000000u, dword14,     qer << 20,   dword16};
}

FlashShape micron() {
    FlashShape s;
    s.name = "mt25qu01g";
    s.jedec_id[0] = 0x20, s.jedec_id[1] = 0xBB, s.jedec_id[2] = 0x21;
    s.density = uint64_t{128} << 20;
    // DWORD 14 bit 3: flag status register polling; DWORD 15 QER 000 (no QE bit); DWORD 16 bit
    // 29: a dedicated 4-byte instruction set, bit 25: enter with 0x06 then 0xB7.
    const uint32_t dword16 = 1u << 29 | 1u << 25;
    // 4-byte Address Instruction Table: read 0x13 (bit 0), page program 0x12 (bit 6), erase
    // types 1..3 (bits 9..11) with 0x21, 0x5C, 0xDC.
    s.sfdp = sfdp_space({{0xFF00, 1, 6, bfpt(0x40000000u, 1u << 3, 0, dword16)},
                         {0xFF84, 1, 0, {1u | 1u << 6 | 1u << 9 | 1u << 10 | 1u << 11, 0xFFDC5C21u}}});
    return s;
}

FlashShape macronix() {
    FlashShape s;
    s.name = "mx25l51245g";
    s.jedec_id[0] = 0xC2, s.jedec_id[1] = 0x20, s.jedec_id[2] = 0x1A;
    s.density = uint64_t{64} << 20;
    s.macronix_bp = true;
    s.quad_enable_sr1_bit6 = true;
    // DWORD 14 legacy polling only; DWORD 15 QER 010 (QE is SR1 bit 6); DWORD 16 bit 24: enter
    // 4-byte mode with 0xB7 (the shape lists no 4-byte instruction set).
    s.sfdp = sfdp_space({{0xFF00, 1, 6, bfpt(0x20000000u, 1u << 2, 2, 1u << 24)}});
    return s;
}

}  // namespace

std::optional<FlashShape> flash_shape(const std::string& name) {
    if (name == "mt25qu01g" || name.empty())
        return micron();
    if (name == "mx25l51245g")
        return macronix();
    return std::nullopt;
}

std::vector<std::string> flash_shape_names() { return {"mt25qu01g", "mx25l51245g"}; }

const char* flash_fault_name(FlashFault fault) {
    switch (fault) {
    case FlashFault::StuckBusy: return "stuck_busy";
    case FlashFault::Protected: return "protected";
    case FlashFault::ReadBitError: return "read_bit_error";
    case FlashFault::ProgramFails: return "program_fails";
    }
    return "unknown";
}

pdt::Result<FlashFaultPlan> parse_flash_faults(const std::string& text) {
    FlashFaultPlan plan;
    for (const std::string& item : model_support::comma_items(text)) {
        if (item == "stuck_busy")
            plan.stuck_busy = true;
        else if (item == "protected")
            plan.protect = true;
        else if (item == "read_bit_error")
            plan.read_bit_error = true;
        else if (item == "program_fails")
            plan.program_fails_after = 0;
        else if (item.rfind("program_fails=", 0) == 0 && item.size() > 14 &&
                 item.find_first_not_of("0123456789", 14) == std::string::npos)
            plan.program_fails_after = static_cast<unsigned>(std::stoul(item.substr(14)));
        else if (!item.empty())
            return pdt::usage_error(std::string("parse ") + kFlashFaultVariable, item,
                                    "unknown flash fault (names: stuck_busy, protected, read_bit_error, "
                                    "program_fails[=N])");
    }
    return plan;
}

}  // namespace sim
