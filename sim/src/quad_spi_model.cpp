// The AXI Quad SPI core's registers (PG153 v3.2, "Register Space") over the simulated flash.
#include <cstdlib>

#include "sim/quad_spi_model.hpp"

namespace sim {
namespace {

// PG153 Register Space offsets.
constexpr uint64_t DGIER = 0x1C, IPISR = 0x20, IPIER = 0x28, SRR = 0x40, SPICR = 0x60, SPISR = 0x64, SPI_DTR = 0x68,
                   SPI_DRR = 0x6C, SPISSR = 0x70, TX_FIFO_OCY = 0x74, RX_FIFO_OCY = 0x78;
// SPICR bits (PG153 "SPI Control Register"); reset value 0x180.
constexpr uint32_t SPE = 1u << 1, MASTER = 1u << 2, TX_FIFO_RESET = 1u << 5, RX_FIFO_RESET = 1u << 6,
                   MASTER_INHIBIT = 1u << 8, SPICR_WRITABLE = 0x39f;  // the FIFO resets are self-clearing
constexpr uint32_t SPICR_RESET = 0x180;
// SPISR bits (PG153 "SPI Status Register").
constexpr uint32_t RX_EMPTY = 1u << 0, RX_FULL = 1u << 1, TX_EMPTY = 1u << 2, TX_FULL = 1u << 3,
                   SLAVE_MODE_SELECT = 1u << 5;
// IPISR bit 2: DTR empty (PG153 "IP Interrupt Status Register").
constexpr uint32_t IPISR_DTR_EMPTY = 1u << 2;
// SRR: only this value resets the core (PG153 "Software Reset Register").
constexpr uint32_t SRR_RESET = 0x0000000A;

}  // namespace

QuadSpiModel::QuadSpiModel(std::shared_ptr<SpiNorModel> flash, unsigned fifo_depth)
    : m_flash(std::move(flash)), m_depth(fifo_depth) {}

void QuadSpiModel::reset_locked() {
    if ((m_spissr & 1u) == 0)
        m_flash->deselect();
    m_spicr = SPICR_RESET;
    m_spissr = 0xffffffff;
    m_dgier = m_ipisr = m_ipier = 0;
    m_tx.clear();
    m_rx.clear();
}

void QuadSpiModel::reset() {
    std::lock_guard lock(m_mutex);
    reset_locked();
}

uint32_t QuadSpiModel::status_locked() const {
    uint32_t s = SLAVE_MODE_SELECT;  // the core's SPISEL input is high: not selected as a slave
    s |= m_rx.empty() ? RX_EMPTY : 0;
    s |= m_rx.size() >= m_depth ? RX_FULL : 0;
    s |= m_tx.empty() ? TX_EMPTY : 0;
    s |= m_tx.size() >= m_depth ? TX_FULL : 0;
    return s;
}

// The bytes of the Tx FIFO shift out while the core is an enabled master, not inhibited, with
// slave select 0 asserted (manual slave select); each byte in goes to the Rx FIFO, dropped when
// it is full (PG153: Rx FIFO overrun).
void QuadSpiModel::shift_locked() {
    const bool running = (m_spicr & SPE) && (m_spicr & MASTER) && !(m_spicr & MASTER_INHIBIT) && !(m_spissr & 1u);
    if (!running)
        return;
    while (!m_tx.empty()) {
        const uint8_t in = m_flash->exchange(m_tx.front());
        m_tx.pop_front();
        if (m_rx.size() < m_depth)
            m_rx.push_back(in);
    }
    m_ipisr |= IPISR_DTR_EMPTY;
}

uint64_t QuadSpiModel::read(uint64_t offset, unsigned) {
    std::lock_guard lock(m_mutex);
    switch (offset) {
    case DGIER: return m_dgier;
    case IPISR: return m_ipisr;
    case IPIER: return m_ipier;
    case SPICR: return m_spicr;
    case SPISR: return status_locked();
    case SPI_DRR: {
        if (m_rx.empty())
            return 0;
        const uint8_t byte = m_rx.front();
        m_rx.pop_front();
        return byte;
    }
    case SPISSR: return m_spissr & 1u;
    // PG153 occupancy registers: occupancy minus one, valid while the FIFO is not empty.
    case TX_FIFO_OCY: return m_tx.empty() ? 0 : m_tx.size() - 1;
    case RX_FIFO_OCY: return m_rx.empty() ? 0 : m_rx.size() - 1;
    default: return 0;
    }
}

void QuadSpiModel::write(uint64_t offset, unsigned, uint64_t value) {
    std::lock_guard lock(m_mutex);
    const uint32_t v = static_cast<uint32_t>(value);
    switch (offset) {
    case SRR:
        if (v == SRR_RESET)
            reset_locked();
        return;
    case DGIER: m_dgier = v & 0x80000000u; return;
    case IPISR: m_ipisr &= ~v; return;  // toggle-on-write in PG153; clearing is what drivers do
    case IPIER: m_ipier = v & 0x3fff; return;
    case SPICR:
        if (v & TX_FIFO_RESET)
            m_tx.clear();
        if (v & RX_FIFO_RESET)
            m_rx.clear();
        m_spicr = v & SPICR_WRITABLE;
        break;
    case SPI_DTR:
        if (m_tx.size() < m_depth)
            m_tx.push_back(static_cast<uint8_t>(v));
        break;
    case SPISSR: {
        const bool was_selected = !(m_spissr & 1u), selected = !(v & 1u);
        m_spissr = v | 0xfffffffeu;
        if (selected && !was_selected)
            m_flash->select();
        if (!selected && was_selected)
            m_flash->deselect();
        break;
    }
    default: return;
    }
    shift_locked();
}

pdt::Result<std::shared_ptr<QuadSpiModel>> make_quad_spi_model(const std::string& shape_name, unsigned fifo_depth,
                                                               const std::string& key) {
    auto shape = flash_shape(shape_name);
    if (!shape) {
        std::string names;
        for (const std::string& n : flash_shape_names())
            names += (names.empty() ? "" : ", ") + n;
        return pdt::make_error("simulate quad_spi flash", shape_name, EINVAL, "unknown flash shape (known: " + names + ")");
    }
    FlashFaultPlan faults;
    if (const char* text = std::getenv(kFlashFaultVariable); text && *text)
        faults = PDT_TRY(parse_flash_faults(text));
    std::filesystem::path backing, log;
    if (const char* dir = std::getenv(kFlashDirVariable); dir && *dir) {
        backing = std::filesystem::path(dir) / (key + ".flash");
        log = std::filesystem::path(dir) / (key + ".log");
    }
    auto flash = std::make_shared<SpiNorModel>(std::move(*shape), faults, backing, log);
    return std::make_shared<QuadSpiModel>(std::move(flash), fifo_depth);
}

}  // namespace sim
