// Register-level models of the small AXI peripherals in the FPGA designs, minimal but readable
// as on hardware: the registers software reads at identification, with their documented reset
// values, and the AXI4-Stream Switch (PG085) with control-register routing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "sim/sim_device.hpp"

namespace sim {

// A table of 32-bit registers: reset value, bits software may write. Offsets not in the table
// read 0 and ignore writes, as unused addresses inside an AXI-Lite slave do.
class RegisterFileBlock : public RegisterBlock {
public:
    struct Register {
        uint32_t reset_value = 0;
        uint32_t writable_mask = 0;
    };
    explicit RegisterFileBlock(std::map<uint64_t, Register> registers);
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;

private:
    std::mutex m_mutex;
    std::map<uint64_t, Register> m_registers;
    std::map<uint64_t, uint32_t> m_values;
};

// The AXI Quad SPI (PG153) model, with its simulated flash, is in sim/quad_spi_model.hpp.
// The XADC Wizard (PG091) and System Management Wizard (PG185) models are in
// sim/system_monitor_models.hpp: their readings follow the die (sim/die_thermal.hpp).
// AXI IIC (PG090): GIE 0x1C, ISR 0x20, IER 0x28, SOFTR 0x40, CR 0x100, SR 0x104,
// TX_FIFO 0x108, RX_FIFO 0x10C, ADR 0x110, TX/RX_FIFO_OCY 0x114/0x118, TEN_ADR 0x11C,
// RX_FIFO_PIRQ 0x120, GPO 0x124.
std::shared_ptr<RegisterFileBlock> make_iic_block();
// AXI GPIO (PG144) used as a bit-banged I2C master: GPIO_DATA 0x0 reads SCL and SDA high
// (pulled up) while GPIO_TRI 0x4 leaves them inputs; GIER 0x11C, IP IER 0x128, IP ISR 0x120.
std::shared_ptr<RegisterFileBlock> make_bit_banged_i2c_gpio_block();
// Read-only words: the USR_ACCESS build timestamp (one word) or a DNA value (three words).
std::shared_ptr<RegisterFileBlock> make_constant_block(const std::vector<uint32_t>& words);

// AXI4-Stream Switch (PG085) with control-register routing. Control at 0x00: writing
// REG_UPDATE (bit 1) commits the staged MI_MUX values. MI_MUX[m] at 0x40 + 4*m: bits [3:0]
// select the slave port feeding master m, bit 31 disables master m. Reset: every master
// disabled. Each commit calls the routing hook with the committed routes.
class AxiStreamSwitchBlock : public RegisterBlock {
public:
    static constexpr uint64_t CONTROL = 0x00;
    static constexpr uint32_t CONTROL_REG_UPDATE = 0x2;
    static constexpr uint64_t MI_MUX = 0x40;
    static constexpr uint32_t MI_MUX_DISABLE = 0x80000000u;

    // routes[m]: the slave port feeding master port m, or nullopt when m is disabled.
    using RoutingHook = std::function<void(const std::vector<std::optional<unsigned>>& routes)>;

    AxiStreamSwitchBlock(unsigned master_ports, unsigned slave_ports);
    void set_routing_hook(RoutingHook hook);
    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;

    std::vector<std::optional<unsigned>> committed_routes() const;
    unsigned commits() const;

private:
    void commit_locked();
    mutable std::mutex m_mutex;
    unsigned m_slaves;
    std::vector<uint32_t> m_staged;
    std::vector<std::optional<unsigned>> m_committed;
    unsigned m_commits = 0;
    RoutingHook m_hook;
};

}  // namespace sim
