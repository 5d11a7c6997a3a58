// The configuration packets of a Xilinx 7 series / UltraScale(+) bitstream, named as the
// configuration user guides name them: UG470 (7 Series FPGAs Configuration) chapter 5
// "Configuration Packets" and UG570 (UltraScale Architecture Configuration) "Configuration Packets".
// Versal (PDI files, UG1304) is out of scope: its configuration is not a packet stream.
#pragma once

#include <cstdint>
#include <string>

namespace bitstream {

// UG470 "Bus Width Auto Detection" and "Sync Word"; UG570 likewise.
constexpr uint32_t kDummyWord = 0xFFFFFFFF;
constexpr uint32_t kBusWidthSyncWord = 0x000000BB;
constexpr uint32_t kBusWidthDetectWord = 0x11220044;
constexpr uint32_t kSyncWord = 0xAA995566;

// UG470 Table 5-20 (Type 1 packet header) and Table 5-22 (Type 2): Header Type [31:29].
enum class PacketType : uint8_t { type1 = 1, type2 = 2 };

// UG470 Table 5-21: OPCODE [28:27].
enum class Opcode : uint8_t { NOP = 0, read = 1, write = 2, reserved = 3 };

// The header fields, UG470 Table 5-20 / 5-22.
namespace header {
constexpr uint32_t kTypeShift = 29;            // [31:29]
constexpr uint32_t kOpcodeShift = 27;          // [28:27]
constexpr uint32_t kOpcodeMask = 0x3;
constexpr uint32_t kType1AddressShift = 13;    // [26:13] register address
constexpr uint32_t kType1AddressMask = 0x3FFF;
constexpr uint32_t kType1WordCountMask = 0x7FF;      // [10:0]
constexpr uint32_t kType2WordCountMask = 0x7FFFFFF;  // [26:0]
}  // namespace header

// UG470 Table 5-23 "Type 1 Packet Registers"; UG570 "Configuration Registers" (the same
// addresses; its table has no RBCRC_SW, which is UG470's).
enum class Register : uint32_t {
    CRC = 0x00,
    FAR = 0x01,
    FDRI = 0x02,
    FDRO = 0x03,
    CMD = 0x04,
    CTL0 = 0x05,
    MASK = 0x06,
    STAT = 0x07,
    LOUT = 0x08,
    COR0 = 0x09,
    MFWR = 0x0A,
    CBC = 0x0B,
    IDCODE = 0x0C,
    AXSS = 0x0D,
    COR1 = 0x0E,
    WBSTAR = 0x10,
    TIMER = 0x11,
    RBCRC_SW = 0x13,
    BOOTSTS = 0x16,
    CTL1 = 0x18,
    BSPI = 0x1F,
};

// UG470 Table 5-25 "Command Register Codes"; UG570 "Command Register (00100)".
enum class Command : uint32_t {
    NULL_ = 0x00,  // "NULL" in the guides
    WCFG = 0x01,
    MFW = 0x02,
    DGHIGH_LFRM = 0x03,
    RCFG = 0x04,
    START = 0x05,
    RCAP = 0x06,
    RCRC = 0x07,
    AGHIGH = 0x08,
    SWITCH = 0x09,
    GRESTORE = 0x0A,
    SHUTDOWN = 0x0B,
    GCAPTURE = 0x0C,
    DESYNC = 0x0D,
    IPROG = 0x0F,
    CRCC = 0x10,
    LTIMER = 0x11,
    BSPI_READ = 0x12,
    FALL_EDGE = 0x13,
};

// UG470 Table 5-27 / UG570 "Control Register 0": DEC [6], the AES decryptor enable. Writes
// to CTL0 are masked by the MASK register.
constexpr uint32_t kCtl0Dec = 1u << 6;

// "CRC", "FDRI", ...; "unknown (0x1e)" for an address neither guide names.
std::string register_name(uint32_t address);
// "DESYNC", "NULL", ...; "unknown (0x15)" for a code neither guide names.
std::string command_name(uint32_t code);
// "NOP", "read", "write", "reserved".
std::string opcode_name(Opcode opcode);

}  // namespace bitstream
