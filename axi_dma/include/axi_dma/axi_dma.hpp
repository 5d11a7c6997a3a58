// The AXI DMA (PG021 v7.1) driver, Direct Register Mode: one core's registers in a BAR window,
// each step as PG021's Programming Sequence, Direct Register Mode (Simple DMA) gives it:
//   reset      DMACR.Reset = 1 resets the whole core; done when Reset reads 0 and both
//              channels' DMASR.Halted read 1 (PG021 MM2S_DMACR Reset: "After completion of a soft
//              reset, all registers and bits are in the Reset State");
//   start      DMACR.RS = 1, then SA/DA (and its MSB), then LENGTH last: "Writing a non-zero
//              value to this register starts the transfer";
//   completion DMASR.Idle = 1: "for Direct Register Mode, DMA transfer has completed";
//              an error bit with Halted ends it (PG021 DMASR DMAIntErr/DMASlvErr/DMADecErr:
//              "causes the AXI DMA to halt gracefully");
//   stop       DMACR.RS = 0, then DMASR.Halted = 1 ("There can be a lag of time between when
//              DMACR.RS = 0 and when DMASR.Halted = 1").
// Every wait has a timeout and its error names the register and bit awaited and the DMASR
// read last, decoded. The engine addresses the card memory only (its M_AXI ports), never host
// memory, so no host buffer waits on its stop.
#pragma once

#include <chrono>
#include <cstdint>

#include "axi_dma/axi_dma_registers.hpp"
#include "base/result.hpp"
#include "vfio_access/mmio.hpp"

namespace axi_dma {

// What the IP was built with (PG021 Customizing and Generating the Core).
struct Build {
    unsigned length_width = 26;  // Width of Buffer Length Register, bits
    unsigned data_width = 64;    // memory-map data width, bytes (no unaligned transfers: the alignment)
    // The longest aligned transfer: the largest multiple of data_width the LENGTH register holds.
    uint64_t max_transfer() const { return ((1ull << length_width) - 1) / data_width * data_width; }
};

// Where a channel's transfer ended, as DMASR showed it.
enum class Outcome { Running, Idle, Failed };

class AxiDma {
public:
    // `registers`: the core's S_AXI_LITE window (at least 0x5C bytes); `where` names it in errors
    // ("0000:15:00.0 bar 0 offset 0x2000").
    AxiDma(vfio::RegisterWindow registers, Build build, std::string where);

    const Build& build() const { return m_build; }
    uint32_t status(Channel channel) const;  // DMASR
    uint32_t length(Channel channel) const;  // LENGTH: S2MM's reads the bytes received once Idle

    // PG021 soft reset (DMACR.Reset), waited for.
    pdt::Result<void> reset(std::chrono::milliseconds timeout) const;
    // PG021 Direct Register Mode start. Refused (usage) for a length the IP cannot take or an
    // address not aligned to the data width (the IP has no Data Realignment Engine).
    pdt::Result<void> start(Channel channel, uint64_t address, uint64_t length) const;
    // One DMASR read: Idle, Failed (Halted with an error bit, or Halted while a transfer was
    // expected) or Running.
    Outcome poll(Channel channel, uint32_t& dmasr) const;
    // Polls until Idle; an error bit or the timeout is an error naming DMASR.
    pdt::Result<void> wait_idle(Channel channel, std::chrono::milliseconds timeout) const;
    // PG021 stop: DMACR.RS = 0, then DMASR.Halted = 1 within the timeout, else an error naming it.
    pdt::Result<void> stop(Channel channel, std::chrono::milliseconds timeout) const;

    // The error of a channel's transfer that ended on DMASR `dmasr`, at `address`.
    pdt::Error transfer_error(Channel channel, uint32_t dmasr, uint64_t address) const;
    // The error of a transfer still not Idle after `timeout`, DMASR reading `dmasr`.
    pdt::Error idle_timeout(Channel channel, std::chrono::milliseconds timeout, uint32_t dmasr) const;

private:
    uint32_t read(Channel channel, uint64_t offset) const;
    void write(Channel channel, uint64_t offset, uint32_t value) const;
    std::string object(Channel channel, const char* register_name) const;

    vfio::RegisterWindow m_registers;
    Build m_build;
    std::string m_where;
};

}  // namespace axi_dma
