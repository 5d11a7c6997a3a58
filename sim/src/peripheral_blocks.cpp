#include "sim/peripheral_blocks.hpp"

#include <algorithm>

#include "model_support.hpp"

namespace sim {
using model_support::width_mask;

RegisterFileBlock::RegisterFileBlock(std::map<uint64_t, Register> registers) : m_registers(std::move(registers)) {
    reset();
}

uint64_t RegisterFileBlock::read(uint64_t offset, unsigned width) {
    std::lock_guard lock(m_mutex);
    uint64_t value = 0;
    // Assemble from 32-bit registers so that 8-, 16- and 64-bit accesses see the same bytes.
    for (uint64_t byte = 0; byte < width; byte += 4 - ((offset + byte) & 3)) {
        const uint64_t at = offset + byte;
        const auto found = m_values.find(at & ~3ull);
        const uint64_t word = found == m_values.end() ? 0 : found->second;
        value |= (word >> ((at & 3) * 8)) << (byte * 8);
    }
    return value & width_mask(width);
}

void RegisterFileBlock::write(uint64_t offset, unsigned width, uint64_t value) {
    std::lock_guard lock(m_mutex);
    for (uint64_t byte = 0; byte < width; byte += 4 - ((offset + byte) & 3)) {
        const uint64_t at = offset + byte;
        const auto reg = m_registers.find(at & ~3ull);
        if (reg == m_registers.end())
            continue;
        const unsigned shift = static_cast<unsigned>((at & 3) * 8);
        const uint32_t lanes = static_cast<uint32_t>(width_mask(static_cast<unsigned>(std::min<uint64_t>(width - byte, 4 - (at & 3)))) << shift);
        const uint32_t mask = lanes & reg->second.writable_mask;
        uint32_t& current = m_values[at & ~3ull];
        current = (current & ~mask) | (static_cast<uint32_t>((value >> (byte * 8)) << shift) & mask);
    }
}

void RegisterFileBlock::reset() {
    m_values.clear();
    for (const auto& [offset, reg] : m_registers)
        m_values[offset] = reg.reset_value;
}

std::shared_ptr<RegisterFileBlock> make_iic_block() {
    return std::make_shared<RegisterFileBlock>(std::map<uint64_t, RegisterFileBlock::Register>{
        {0x1c, {0x0, 0x80000000}},  // GIE
        {0x20, {0xd0, 0xff}},       // ISR: Tx FIFO half empty, not addressed as slave, bus not busy
        {0x28, {0x0, 0xff}},        // IER
        {0x40, {0x0, 0x0}},         // SOFTR
        {0x100, {0x0, 0x7f}},       // CR
        {0x104, {0xc0, 0x0}},       // SR: Tx FIFO empty, Rx FIFO empty
        {0x10c, {0x0, 0x0}},        // RX_FIFO
        {0x110, {0x0, 0xfe}},       // ADR
        {0x114, {0x0, 0x0}},        // TX_FIFO_OCY
        {0x118, {0x0, 0x0}},        // RX_FIFO_OCY
        {0x11c, {0x0, 0x7}},        // TEN_ADR
        {0x120, {0x0, 0xf}},        // RX_FIFO_PIRQ
        {0x124, {0x0, 0x1}},        // GPO
    });
}

std::shared_ptr<RegisterFileBlock> make_bit_banged_i2c_gpio_block() {
    return std::make_shared<RegisterFileBlock>(std::map<uint64_t, RegisterFileBlock::Register>{
        {0x000, {0x3, 0x0}},         // GPIO_DATA: SCL (bit 0) and SDA (bit 1) pulled high
        {0x004, {0x3, 0x3}},         // GPIO_TRI: both inputs
        {0x11c, {0x0, 0x80000000}},  // GIER
        {0x120, {0x0, 0x3}},         // IP ISR
        {0x128, {0x0, 0x3}},         // IP IER
    });
}

std::shared_ptr<RegisterFileBlock> make_constant_block(const std::vector<uint32_t>& words) {
    std::map<uint64_t, RegisterFileBlock::Register> registers;
    for (size_t i = 0; i < words.size(); ++i)
        registers[4 * i] = {words[i], 0x0};
    return std::make_shared<RegisterFileBlock>(std::move(registers));
}

AxiStreamSwitchBlock::AxiStreamSwitchBlock(unsigned master_ports, unsigned slave_ports)
    : m_slaves(slave_ports), m_staged(master_ports, MI_MUX_DISABLE), m_committed(master_ports) {}

void AxiStreamSwitchBlock::set_routing_hook(RoutingHook hook) {
    std::lock_guard lock(m_mutex);
    m_hook = std::move(hook);
}

uint64_t AxiStreamSwitchBlock::read(uint64_t offset, unsigned width) {
    std::lock_guard lock(m_mutex);
    if (offset >= MI_MUX && (offset - MI_MUX) / 4 < m_staged.size())
        return m_staged[(offset - MI_MUX) / 4] & width_mask(width);
    return 0;  // control reads 0: the commit completes within the access
}

void AxiStreamSwitchBlock::write(uint64_t offset, unsigned width, uint64_t value) {
    RoutingHook hook;
    std::vector<std::optional<unsigned>> routes;
    {
        std::lock_guard lock(m_mutex);
        if (width != 4)
            return;  // PG085 registers are 32-bit; narrower writes are not decoded
        if (offset >= MI_MUX && (offset - MI_MUX) / 4 < m_staged.size()) {
            m_staged[(offset - MI_MUX) / 4] = static_cast<uint32_t>(value) & (MI_MUX_DISABLE | 0xf);
            return;
        }
        if (offset != CONTROL || !(value & CONTROL_REG_UPDATE))
            return;
        commit_locked();
        hook = m_hook;
        routes = m_committed;
    }
    if (hook)
        hook(routes);
}

void AxiStreamSwitchBlock::commit_locked() {
    for (size_t m = 0; m < m_staged.size(); ++m) {
        const unsigned slave = m_staged[m] & 0xf;
        // A slave index beyond the switch's ports routes nothing, like a disabled master.
        m_committed[m] = (m_staged[m] & MI_MUX_DISABLE) || slave >= m_slaves ? std::nullopt : std::optional(slave);
    }
    ++m_commits;
}

void AxiStreamSwitchBlock::reset() {
    RoutingHook hook;
    std::vector<std::optional<unsigned>> routes;
    {
        std::lock_guard lock(m_mutex);
        std::fill(m_staged.begin(), m_staged.end(), MI_MUX_DISABLE);
        std::fill(m_committed.begin(), m_committed.end(), std::nullopt);
        hook = m_hook;
        routes = m_committed;
    }
    if (hook)
        hook(routes);
}

std::vector<std::optional<unsigned>> AxiStreamSwitchBlock::committed_routes() const {
    std::lock_guard lock(m_mutex);
    return m_committed;
}

unsigned AxiStreamSwitchBlock::commits() const {
    std::lock_guard lock(m_mutex);
    return m_commits;
}

}  // namespace sim
