// The AXI DMA (PG021 v7.1) in Direct Register Mode (C_INCLUDE_SG = 0), written from PG021's
// Register Space section alone, with its M_AXI_MM2S and M_AXI_S2MM on one card memory (the
// DDR, from AXI address 0) and its streams wired as the design says:
//   FixedDataAndSink  fpga_sio's TEF1001_ddr3_throughput: M_AXIS_MM2S into a sink that takes and
//                     drops every beat; S_AXIS_S2MM from a source of constant data (zeros) that
//                     never asserts TLAST, so every S2MM transfer fills S2MM_LENGTH bytes and
//                     then ends in DMAIntErr ("the incoming packet is bigger than what is
//                     specified in the DMA length register"), halted, as the card reported it:
//                     S2MM_DMASR 0x00005011 (Halted, DMAIntErr, IOC_Irq, Err_Irq).
//   Loopback          M_AXIS_MM2S looped to S_AXIS_S2MM: a transfer moves only while both
//                     channels run; MM2S's last beat carries TLAST, so S2MM ends at it
//                     (S2MM_LENGTH reads the bytes received) or, given fewer bytes than the
//                     packet, in DMAIntErr as above.
// The engines advance when software reads a DMASR (the model has no thread): a transfer started
// by its LENGTH write is done by the next DMASR read, so a poll sees it; an address range
// outside the card memory ends in DMADecErr. memory_window() is the block a design places in a
// BAR when the host reaches the card memory (none in fpga_sio's design).
//
// Register space per channel (MM2S at 0x00, S2MM at 0x30): DMACR +0x00, DMASR +0x04,
// SA/DA +0x18, SA_MSB/DA_MSB +0x1C, LENGTH +0x28. Lies (streams/lie.hpp), counted over both
// channels' transfers, act on what S2MM writes to the card memory; never_halts: clearing
// DMACR.RS never sets DMASR.Halted (an IP whose stop cannot be proven); miscounts_received:
// S2MM_LENGTH reads wrong.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "sim/sim_device.hpp"
#include "streams/lie.hpp"

namespace sim {

class CardMemory;

class AxiDmaModel : public RegisterBlock, public std::enable_shared_from_this<AxiDmaModel> {
public:
    enum class Streams { FixedDataAndSink, Loopback };
    struct Config {
        uint64_t memory_size = 0;   // the card memory both M_AXI ports reach, from address 0
        unsigned length_width = 26; // Width of Buffer Length Register, bits
        Streams streams = Streams::FixedDataAndSink;
        streams::Lie lie;
        bool never_halts = false;
        // TEST-ONLY: S2MM_LENGTH reads one beat (64 bytes) fewer than were received: an IP that counts wrong.
        bool miscounts_received = false;
    };
    explicit AxiDmaModel(Config config);
    ~AxiDmaModel() override;

    uint64_t read(uint64_t offset, unsigned width) override;
    void write(uint64_t offset, unsigned width, uint64_t value) override;
    void reset() override;  // a function reset: the core's reset state; the card memory keeps its bytes

    // The host's view of the card memory (reads and writes of 1, 2, 4 or 8 bytes); the model
    // must be held by a shared_ptr.
    std::shared_ptr<RegisterBlock> memory_window();
    // The card memory from outside the IP (tests); false when the range is outside it.
    bool memory_read(uint64_t address, void* dst, uint64_t length);
    bool memory_write(uint64_t address, const void* src, uint64_t length);

    void set_lie(streams::Lie lie);  // counted from this call
    void set_never_halts();
    uint64_t transfers_started() const;  // both channels, since the model was made

private:
    struct Channel;
    uint32_t read_register(uint64_t offset);
    void write_register(uint64_t offset, uint32_t value);
    void write_control(Channel& channel, uint32_t value);
    void start(Channel& channel, uint32_t length);
    void advance();
    void advance_fixed_data_and_sink();
    void advance_loopback();
    void land(Channel& s2mm, uint64_t address, const uint8_t* data, uint64_t length);
    void end_with_error(Channel& channel, uint32_t error_bits);
    void complete(Channel& channel);
    void reset_core();

    mutable std::mutex m_mutex;
    Config m_config;
    std::unique_ptr<CardMemory> m_memory;
    std::unique_ptr<Channel> m_mm2s;
    std::unique_ptr<Channel> m_s2mm;
    uint64_t m_transfers = 0;      // started since the model was made
    uint64_t m_lie_counted = 0;    // started since the lie was set
};

}  // namespace sim
