// The AXI Quad SPI core (PG153, AXI Quad SPI v3.2) as the SPI master in front of a design's
// configuration flash: registers named and placed as in PG153 "Register Space", the core driven
// in master mode with manual slave select (PG153 "SPI Protocol with Manual Slave Select
// Assertion"), one flash on slave select 0. A transaction is one slave-select assertion: the
// bytes out (command, address, dummy, data) and as many bytes in, moved through the FIFOs in
// chunks of the FIFO depth.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/mmio.hpp"

namespace flash {

namespace pg153 {
// PG153 Register Space, offsets from the core base address.
inline constexpr uint64_t DGIER = 0x1C;   // Device Global Interrupt Enable Register
inline constexpr uint64_t IPISR = 0x20;   // IP Interrupt Status Register
inline constexpr uint64_t IPIER = 0x28;   // IP Interrupt Enable Register
inline constexpr uint64_t SRR = 0x40;     // Software Reset Register
inline constexpr uint64_t SPICR = 0x60;   // SPI Control Register
inline constexpr uint64_t SPISR = 0x64;   // SPI Status Register
inline constexpr uint64_t SPI_DTR = 0x68; // SPI Data Transmit Register (Tx FIFO)
inline constexpr uint64_t SPI_DRR = 0x6C; // SPI Data Receive Register (Rx FIFO)
inline constexpr uint64_t SPISSR = 0x70;  // SPI Slave Select Register
inline constexpr uint64_t TX_FIFO_OCY = 0x74;  // Transmit FIFO Occupancy Register
inline constexpr uint64_t RX_FIFO_OCY = 0x78;  // Receive FIFO Occupancy Register
inline constexpr uint64_t kFrameSize = 0x80;

// Software Reset Register: writing this value resets the core (any other value: no effect).
inline constexpr uint32_t SRR_RESET = 0x0000000A;

// SPI Control Register bits.
inline constexpr uint32_t SPICR_LOOP = 1u << 0;
inline constexpr uint32_t SPICR_SPE = 1u << 1;
inline constexpr uint32_t SPICR_MASTER = 1u << 2;
inline constexpr uint32_t SPICR_CPOL = 1u << 3;
inline constexpr uint32_t SPICR_CPHA = 1u << 4;
inline constexpr uint32_t SPICR_TX_FIFO_RESET = 1u << 5;
inline constexpr uint32_t SPICR_RX_FIFO_RESET = 1u << 6;
inline constexpr uint32_t SPICR_MANUAL_SS = 1u << 7;
inline constexpr uint32_t SPICR_MASTER_INHIBIT = 1u << 8;
inline constexpr uint32_t SPICR_LSB_FIRST = 1u << 9;
inline constexpr uint32_t SPICR_RESET_VALUE = 0x180;  // inhibit and manual slave select set

// SPI Status Register bits.
inline constexpr uint32_t SPISR_RX_EMPTY = 1u << 0;
inline constexpr uint32_t SPISR_RX_FULL = 1u << 1;
inline constexpr uint32_t SPISR_TX_EMPTY = 1u << 2;
inline constexpr uint32_t SPISR_TX_FULL = 1u << 3;
inline constexpr uint32_t SPISR_MODF = 1u << 4;
inline constexpr uint32_t SPISR_SLAVE_MODE_SELECT = 1u << 5;
inline constexpr uint32_t SPISR_CPOL_CPHA_ERROR = 1u << 6;
inline constexpr uint32_t SPISR_SLAVE_MODE_ERROR = 1u << 7;
inline constexpr uint32_t SPISR_MSB_ERROR = 1u << 8;
inline constexpr uint32_t SPISR_LOOPBACK_ERROR = 1u << 9;
inline constexpr uint32_t SPISR_COMMAND_ERROR = 1u << 10;
inline constexpr uint32_t SPISR_RESET_VALUE = 0x25;  // Rx empty, Tx empty, slave mode select

// The FIFO depths the core can be built with (the FIFO Depth parameter).
inline constexpr unsigned kFifoDepths[] = {16, 256};
}  // namespace pg153

// The core's SPI mode (PG153 C_SPI_MODE): standard (one data line each way), or quad, where
// the core drives the command on IO0 and the address, dummy and data phases on the lines the
// command set says (PG153 "Dual/Quad SPI Mode Transactions"); software writes the same bytes.
enum class SpiMode { Standard, Quad };
const char* to_string(SpiMode mode);  // "standard", "quad"

class AxiQuadSpi {
public:
    // Resets the core (SRR), leaves it a master with manual slave select and master
    // transactions inhibited, every slave deselected, interrupts off (polled use), and finds
    // the FIFO depth by filling the Tx FIFO until SPISR Tx_Full (16 or 256; anything else is an
    // error naming what was found). Errors name the register and the core's location.
    static pdt::Result<AxiQuadSpi> open(vfio::RegisterWindow window, SpiMode mode, std::string location,
                                        std::chrono::milliseconds timeout = std::chrono::milliseconds(1000));

    unsigned fifo_depth() const { return m_fifo_depth; }
    SpiMode mode() const { return m_mode; }
    const std::string& location() const { return m_location; }

    // One transaction on slave select 0: sends `out`, then `in_count` more bytes of 0x00 whose
    // replies are returned (the replies to `out` itself are discarded).
    pdt::Result<std::vector<uint8_t>> transfer(std::span<const uint8_t> out, size_t in_count);

private:
    AxiQuadSpi(vfio::RegisterWindow window, SpiMode mode, std::string location, std::chrono::milliseconds timeout)
        : m_regs(std::move(window)), m_mode(mode), m_location(std::move(location)), m_timeout(timeout) {}
    pdt::Result<unsigned> find_fifo_depth();
    pdt::Result<void> shift_chunk(std::span<const uint8_t> chunk, std::vector<uint8_t>& replies);
    pdt::Error error(const std::string& operation, uint64_t reg, const std::string& hint, int code = EIO) const;
    void reset_fifos_inhibited() const;

    vfio::RegisterWindow m_regs;
    SpiMode m_mode;
    std::string m_location;
    std::chrono::milliseconds m_timeout;
    unsigned m_fifo_depth = 0;
};

}  // namespace flash
