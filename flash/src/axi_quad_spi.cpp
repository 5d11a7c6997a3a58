// AXI Quad SPI (PG153 v3.2) master driver. Each step names the PG153 section it follows.
#include "flash/axi_quad_spi.hpp"

#include <algorithm>

#include "base/format.hpp"

namespace flash {
namespace {

using Clock = std::chrono::steady_clock;

std::string register_name(uint64_t reg) {
    switch (reg) {
    case pg153::SRR: return "SRR";
    case pg153::SPICR: return "SPICR";
    case pg153::SPISR: return "SPISR";
    case pg153::SPI_DTR: return "SPI DTR";
    case pg153::SPI_DRR: return "SPI DRR";
    case pg153::SPISSR: return "SPISSR";
    case pg153::TX_FIFO_OCY: return "Tx FIFO occupancy";
    case pg153::RX_FIFO_OCY: return "Rx FIFO occupancy";
    default: return pdt::hex(reg);
    }
}

// Master, SPI enabled, manual slave select (PG153 "SPI Control Register"): CPOL = CPHA = 0,
// SPI mode 0, which every SPI NOR flash takes.
constexpr uint32_t kMasterManual = pg153::SPICR_SPE | pg153::SPICR_MASTER | pg153::SPICR_MANUAL_SS;
// SPISSR is active-Low, one-hot (PG153 "SPI Slave Select Register").
constexpr uint32_t kSelectSlave0 = ~1u;
constexpr uint32_t kDeselectAll = 0xffffffffu;

}  // namespace

const char* to_string(SpiMode mode) { return mode == SpiMode::Quad ? "quad" : "standard"; }

pdt::Error AxiQuadSpi::error(const std::string& operation, uint64_t reg, const std::string& hint, int code) const {
    return pdt::make_error(operation, "AXI Quad SPI at " + m_location + " " + register_name(reg), code, hint);
}

// PG153 "Write Enable Command Sequence" step 1: master inhibited, Tx and Rx FIFOs reset
// (0x1E6 with SPE, master and manual slave select).
void AxiQuadSpi::reset_fifos_inhibited() const {
    m_regs.write32(pg153::SPICR, kMasterManual | pg153::SPICR_MASTER_INHIBIT | pg153::SPICR_TX_FIFO_RESET |
                                     pg153::SPICR_RX_FIFO_RESET);
}

pdt::Result<AxiQuadSpi> AxiQuadSpi::open(vfio::RegisterWindow window, SpiMode mode, std::string location,
                                         std::chrono::milliseconds timeout) {
    AxiQuadSpi spi(std::move(window), mode, std::move(location), timeout);
    const vfio::RegisterWindow& r = spi.m_regs;
    // PG153 "Software Reset Register": 0x0000000A resets the core to its register reset values.
    r.write32(pg153::SRR, pg153::SRR_RESET);
    // PG153 "SPI Control Register": reset value 0x180 (inhibit, manual slave select). A core
    // that reads otherwise after a reset is not a PG153 core (or the BAR does not reach it).
    const uint32_t spicr = r.read32(pg153::SPICR);
    if (spicr != pg153::SPICR_RESET_VALUE)
        return spi.error("reset", pg153::SPICR,
                         "reads " + pdt::hex(spicr) + " after the software reset, PG153 gives 0x180: no AXI Quad SPI core here?",
                         ENODEV);
    // PG153 "Device Global Interrupt Enable Register", "IP Interrupt Enable Register": polled.
    r.write32(pg153::DGIER, 0);
    r.write32(pg153::IPIER, 0);
    r.write32(pg153::SPISSR, kDeselectAll);
    spi.reset_fifos_inhibited();
    spi.m_fifo_depth = PDT_TRY(spi.find_fifo_depth());
    return spi;
}

// PG153 "SPI Transmit FIFO Occupancy Register": present with FIFO Depth 16 or 256; with the
// master inhibited nothing leaves the Tx FIFO, so the writes that fill it (SPISR Tx_Full) count
// its depth, and the occupancy register then reads depth - 1.
pdt::Result<unsigned> AxiQuadSpi::find_fifo_depth() {
    unsigned written = 0;
    while (!(m_regs.read32(pg153::SPISR) & pg153::SPISR_TX_FULL) && written <= 256) {
        m_regs.write32(pg153::SPI_DTR, 0);
        ++written;
    }
    const uint32_t occupancy = m_regs.read32(pg153::TX_FIFO_OCY);
    reset_fifos_inhibited();
    if (written != 16 && written != 256)
        return error("find FIFO depth", pg153::SPISR,
                     pdt::format("Tx_Full after %u writes, PG153 builds the FIFO 16 or 256 deep", written), ENODEV);
    if (occupancy + 1 != written)
        return error("find FIFO depth", pg153::TX_FIFO_OCY,
                     pdt::format("reads %u with %u bytes in the Tx FIFO, PG153 gives occupancy - 1", occupancy, written),
                     EIO);
    return written;
}

// PG153 "Standard SPI Mode Transactions", manual slave select: bytes written to SPI DTR while
// the master is inhibited; clearing Master Transaction Inhibit shifts them out, each byte
// received into SPI DRR; SPISR Tx_Empty says the FIFO has drained. The slave select stays
// asserted between chunks, so one transaction may be longer than the FIFO.
pdt::Result<void> AxiQuadSpi::shift_chunk(std::span<const uint8_t> chunk, std::vector<uint8_t>& replies) {
    for (uint8_t byte : chunk)
        m_regs.write32(pg153::SPI_DTR, byte);
    m_regs.write32(pg153::SPICR, kMasterManual);
    const auto deadline = Clock::now() + m_timeout;
    uint32_t status = m_regs.read32(pg153::SPISR);
    while (!(status & pg153::SPISR_TX_EMPTY)) {
        // PG153 "Dual/Quad Mode SPI Configuration": in dual or quad mode the core matches the
        // first DTR entry against its command table; a command not in it sets Command Error and
        // nothing is shifted.
        if (status & pg153::SPISR_COMMAND_ERROR) {
            m_regs.write32(pg153::SPICR, kMasterManual | pg153::SPICR_MASTER_INHIBIT);
            return error("SPI transfer", pg153::SPISR,
                         pdt::format("Command Error: command 0x%02x is not in the %s-mode core's command table",
                                     chunk.empty() ? 0 : chunk[0], to_string(m_mode)),
                         ENOTSUP);
        }
        if (Clock::now() > deadline) {
            m_regs.write32(pg153::SPICR, kMasterManual | pg153::SPICR_MASTER_INHIBIT);
            return error("SPI transfer", pg153::SPISR,
                         pdt::format("Tx FIFO not empty after %lld ms (SPISR %s)",
                                     static_cast<long long>(m_timeout.count()), pdt::hex(status).c_str()),
                         ETIMEDOUT);
        }
        status = m_regs.read32(pg153::SPISR);
    }
    m_regs.write32(pg153::SPICR, kMasterManual | pg153::SPICR_MASTER_INHIBIT);
    // One byte in for each byte out (PG153: the SPI is full duplex).
    for (size_t i = 0; i < chunk.size(); ++i) {
        if (m_regs.read32(pg153::SPISR) & pg153::SPISR_RX_EMPTY)
            return error("SPI transfer", pg153::SPI_DRR,
                         pdt::format("Rx FIFO empty after %zu of %zu bytes", i, chunk.size()));
        replies.push_back(static_cast<uint8_t>(m_regs.read32(pg153::SPI_DRR)));
    }
    return {};
}

pdt::Result<std::vector<uint8_t>> AxiQuadSpi::transfer(std::span<const uint8_t> out, size_t in_count) {
    std::vector<uint8_t> bytes(out.begin(), out.end());
    bytes.resize(out.size() + in_count, 0x00);
    std::vector<uint8_t> replies;
    replies.reserve(bytes.size());
    reset_fifos_inhibited();
    // PG153 "Write Enable Command Sequence" step 3: assert the slave select.
    m_regs.write32(pg153::SPISSR, kSelectSlave0);
    pdt::Result<void> shifted;
    for (size_t at = 0; at < bytes.size() && shifted; at += m_fifo_depth) {
        const size_t n = std::min<size_t>(m_fifo_depth, bytes.size() - at);
        shifted = shift_chunk(std::span<const uint8_t>(bytes).subspan(at, n), replies);
    }
    // Steps 5 and 6: deassert the slave select (ending the flash command), master inhibited.
    m_regs.write32(pg153::SPISSR, kDeselectAll);
    m_regs.write32(pg153::SPICR, kMasterManual | pg153::SPICR_MASTER_INHIBIT);
    if (!shifted)
        return std::move(shifted).error();
    return std::vector<uint8_t>(replies.begin() + static_cast<std::ptrdiff_t>(out.size()), replies.end());
}

}  // namespace flash
