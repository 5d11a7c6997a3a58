// A SPI NOR flash behind the AXI Quad SPI core, driven by what it says of itself: the JEDEC ID
// (0x9F) and its SFDP (JESD216, 0x5A). The commands are the common SPI NOR set every JESD216
// flash takes (write enable 0x06, read status register 0x05, read 0x03/0x13, page program
// 0x02/0x12, the erase opcodes SFDP gives); 4-byte addressing by the 4-byte opcodes or by
// entering 4-byte mode (0xB7), as the BFPT's DWORD 16 says.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "flash/axi_quad_spi.hpp"
#include "flash/sfdp.hpp"

namespace flash {

namespace opcode {
inline constexpr uint8_t WRITE_ENABLE = 0x06;
inline constexpr uint8_t READ_STATUS = 0x05;
inline constexpr uint8_t READ_CONFIGURATION = 0x15;  // Macronix: configuration register (T/B bit 3)
inline constexpr uint8_t READ_ID = 0x9F;
inline constexpr uint8_t READ_SFDP = 0x5A;  // 3-byte address, 8 dummy clocks (JESD216 6.1)
inline constexpr uint8_t READ = 0x03;
inline constexpr uint8_t READ_4B = 0x13;
inline constexpr uint8_t PAGE_PROGRAM = 0x02;
inline constexpr uint8_t PAGE_PROGRAM_4B = 0x12;
inline constexpr uint8_t ENTER_4BYTE = 0xB7;
}  // namespace opcode

// Status register 1: WIP bit 0, WEL bit 1; the block-protect bits are the vendor's.
inline constexpr uint8_t kStatusWip = 0x01;
inline constexpr uint8_t kStatusWel = 0x02;

struct JedecId {
    uint8_t manufacturer = 0, memory_type = 0, capacity = 0;
};
const char* manufacturer_name(uint8_t id);  // JEP106 bank 1: "Micron", "Macronix", ...

// The block-protect bits of status register 1, decoded: Micron (BP3 bit 6, TB bit 5, BP2:0 bits
// 4:2), Macronix (BP3:0 bits 5:2, T/B in the configuration register bit 3), others BP2:0 bits
// 4:2 from the top. Level n > 0 protects 2^(n-1) 64 KiB blocks, the whole array at most.
struct Protection {
    uint8_t status = 0;
    unsigned level = 0;  // the BP field
    bool bottom = false;
    uint64_t begin = 0, end = 0;  // the protected range [begin, end); empty when level 0
    bool protects(uint64_t address, uint64_t length) const { return address < end && begin < address + length; }
    std::string describe() const;  // "none (BP=0)" or "BP=3 top: 0x7e0000..0x7fffff"
};
Protection decode_protection(uint8_t manufacturer, uint8_t status, uint8_t configuration, uint64_t density);

struct FlashTimeouts {
    std::chrono::milliseconds page_program{50};
    std::chrono::milliseconds sector_erase{3000};
    std::chrono::milliseconds status_poll_interval{0};
};

class SpiNor {
public:
    // Reads the JEDEC ID and SFDP (an error when the flash has none), chooses the read opcode
    // for the core's mode and how to address it. Entering 4-byte mode is the one state change.
    static pdt::Result<SpiNor> open(AxiQuadSpi spi, FlashTimeouts timeouts = {});

    const JedecId& jedec_id() const { return m_id; }
    const SfdpInfo& sfdp() const { return m_sfdp; }
    const AxiQuadSpi& controller() const { return m_spi; }
    uint64_t size() const { return m_sfdp.density_bytes; }
    unsigned address_bytes() const { return m_address_bytes; }
    std::string addressing() const;  // "3-byte", "4-byte opcodes", "4-byte mode (0xB7)"
    std::string read_command() const;  // "0x13 (1-1-1)" or "0x6c (1-1-4, 8 dummy clocks)"
    // The erase type used for programming: the 4 KiB one when present, else the smallest.
    EraseType sector_erase() const;

    pdt::Result<std::vector<uint8_t>> read(uint64_t address, size_t length);
    pdt::Result<uint8_t> read_status();
    pdt::Result<Protection> protection();
    pdt::Result<void> wait_ready(std::chrono::milliseconds timeout, const std::string& what);
    // Write enable, erase of the block at `address` (aligned to the type's size), then WIP poll.
    pdt::Result<void> erase(uint64_t address, const EraseType& type);
    // Write enable, page program of `data` within one page, then WIP poll.
    pdt::Result<void> program_page(uint64_t address, std::span<const uint8_t> data);

private:
    SpiNor(AxiQuadSpi spi, FlashTimeouts timeouts) : m_spi(std::move(spi)), m_timeouts(timeouts) {}
    pdt::Result<void> choose_addressing();
    pdt::Result<void> write_enable();
    std::vector<uint8_t> command(uint8_t op, uint64_t address) const;
    pdt::Error error(const std::string& operation, const std::string& hint, int code = EIO) const;

    AxiQuadSpi m_spi;
    FlashTimeouts m_timeouts;
    JedecId m_id;
    SfdpInfo m_sfdp;
    unsigned m_address_bytes = 3;
    bool m_four_byte_opcodes = false;
    uint8_t m_read_opcode = opcode::READ;
    unsigned m_read_dummy_bytes = 0;
};

}  // namespace flash
