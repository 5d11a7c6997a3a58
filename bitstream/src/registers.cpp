// Register, command and opcode names: UG470 Tables 5-21, 5-23, 5-25; UG570 "Configuration
// Packets", "Configuration Registers", "Command Register (00100)".
#include "bitstream/registers.hpp"

#include <array>
#include <utility>

#include "base/format.hpp"

namespace bitstream {

namespace {

using Name = std::pair<uint32_t, const char*>;

constexpr std::array kRegisters{
    Name{0x00, "CRC"},  Name{0x01, "FAR"},    Name{0x02, "FDRI"},   Name{0x03, "FDRO"},     Name{0x04, "CMD"},
    Name{0x05, "CTL0"}, Name{0x06, "MASK"},   Name{0x07, "STAT"},   Name{0x08, "LOUT"},     Name{0x09, "COR0"},
    Name{0x0A, "MFWR"}, Name{0x0B, "CBC"},    Name{0x0C, "IDCODE"}, Name{0x0D, "AXSS"},     Name{0x0E, "COR1"},
    Name{0x10, "WBSTAR"}, Name{0x11, "TIMER"}, Name{0x13, "RBCRC_SW"}, Name{0x16, "BOOTSTS"}, Name{0x18, "CTL1"},
    Name{0x1F, "BSPI"},
};

constexpr std::array kCommands{
    Name{0x00, "NULL"},     Name{0x01, "WCFG"},     Name{0x02, "MFW"},       Name{0x03, "DGHIGH_LFRM"},
    Name{0x04, "RCFG"},     Name{0x05, "START"},    Name{0x06, "RCAP"},      Name{0x07, "RCRC"},
    Name{0x08, "AGHIGH"},   Name{0x09, "SWITCH"},   Name{0x0A, "GRESTORE"},  Name{0x0B, "SHUTDOWN"},
    Name{0x0C, "GCAPTURE"}, Name{0x0D, "DESYNC"},   Name{0x0F, "IPROG"},     Name{0x10, "CRCC"},
    Name{0x11, "LTIMER"},   Name{0x12, "BSPI_READ"}, Name{0x13, "FALL_EDGE"},
};

template <size_t N>
std::string lookup(const std::array<Name, N>& table, uint32_t value) {
    for (const auto& [code, name] : table)
        if (code == value)
            return name;
    return "unknown (" + pdt::hex(value) + ")";
}

}  // namespace

std::string register_name(uint32_t address) { return lookup(kRegisters, address); }

std::string command_name(uint32_t code) { return lookup(kCommands, code); }

std::string opcode_name(Opcode opcode) {
    switch (opcode) {
    case Opcode::NOP:
        return "NOP";
    case Opcode::read:
        return "read";
    case Opcode::write:
        return "write";
    case Opcode::reserved:
        break;
    }
    return "reserved";
}

}  // namespace bitstream
