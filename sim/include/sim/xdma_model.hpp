// A register-level model of the AMD DMA/Bridge Subsystem for PCI Express (XDMA, PG195) behind
// the device seam. It occupies the 64 KiB DMA BAR region of a SimDevice: H2C/C2H channel
// blocks, SGDMA blocks, SGDMA common, IRQ and config blocks. Its engines fetch descriptors and
// move data only through the device's IOMMU model, raise MSI through SimDevice::raise_msi, and
// behind the channels sit AXI-MM card memory (memory-mapped designs) or an AXI4-Stream loopback
// through a routing table (stream designs).
//
// Two ways to run: asynchronously (an engine thread per model, as hardware runs on its own),
// or stepped (engines advance only inside step() / run_until_idle(), for deterministic tests).
//
//   auto bar = std::make_shared<sim::SimBar>(0x10000);
//   auto device = std::make_unique<sim::SimDevice>(identity, {bar});
//   auto xdma = sim::XdmaModel::attach(*device, *bar, sim::XdmaConfig{.num_h2c = 2, .num_c2h = 2, .stream = true});
//
// The device keeps the model alive and stops its engine thread before it releases the IOMMU;
// keep the returned pointer only to drive the model (routing, faults, stepping) while the
// device exists.
//
// Modelling choices: H2C stream data flows to the card function piece by piece as the engine
// reads it; each C2H channel's stream input is a bounded FIFO (stream_fifo_bytes) and H2C
// stalls (its descriptor stays in progress) while the FIFO it feeds is full, as AXI4-Stream
// tready backpressure does on a loopback. The card function behind the channels is a loopback
// through the routing table, a CRC-64 engine, or a fixed-data source and sink
// (XdmaStreamFunction, sim/src/stream_functions.cpp). C2H writes
// the IOMMU blocks are posted writes the engine does not see (the IOMMU logs them), as on
// hardware. Registers are thread safe (one model mutex); host memory is written by the engine
// thread as a card writes it, so a driver reads it with the same ordering it needs on hardware
// (acquire on the writeback, then the data). The performance monitor registers (0xC0..) read 0.
//
// PG195 Status and interrupts: a Status bit (descriptor_stopped, descriptor_completed,
// align_mismatch, magic_stopped, invalid_length, idle_stopped, read/write/descriptor errors) is
// logged only when the Control bit of the same position (ie_*) is set; it raises the channel's
// MSI only when its Interrupt Enable Mask (0x90) bit and the channel's bit in the IRQ block's
// Channel Interrupt Enable Mask (0x2010) are also set, and the IP has interrupts. An error stops
// the engine whether or not it is logged. Every descriptor must keep the Alignments register:
// an address off address_alignment stops the engine with align_mismatch, a length that is not a
// multiple of length_granularity with invalid_length. Card memory is sparse: 64 KiB pages
// allocated on first write; bytes never written read as zero (the model's fresh DDR). Test-only,
// it may last from one process to the next in a sparse file instead (PDT_SIM_CARD_MEMORY_DIR,
// DmaModel::keep_card_memory, sim/dma_model.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "streams/lie.hpp"
#include "sim/cmac_model.hpp"
#include "sim/dma_model.hpp"
#include "sim/sim_device.hpp"

namespace sim {

namespace xdma_impl {
struct Impl;
}

// What the card fabric does with the AXI4-Stream channels (designs::StreamFunction):
//   Loopback   H2C packets go to the C2H channel the routing names (or nowhere);
//   Crc64      each H2C packet becomes one 8-byte C2H packet on the routed channel: its CRC-64
//              (reflected polynomial 0xC96C5795D7870F42, initial value all-ones, no final
//              XOR) over 64-bit little-endian words, taken a whole tdata beat at a time, so a
//              packet that is not a multiple of stream_tdata_bytes is a violation (the model
//              pads its last beat with zeros; the hardware ignores tkeep and uses whatever
//              tdata held);
//   FixedData  H2C is an always-ready sink; every C2H channel receives zeros for ever, with
//              no end of packet (tlast never set).
enum class XdmaStreamFunction { Loopback, Crc64, FixedData };

struct XdmaConfig {
    unsigned num_h2c = 1;  // 1..4
    unsigned num_c2h = 1;  // 1..4
    bool stream = false;   // AXI4-Stream channels (loopback) instead of AXI-MM card memory
    uint64_t card_memory_base = 0;
    uint64_t card_memory_size = 0;  // AXI-MM designs: bytes of card memory at card_memory_base
    // Link rate per direction in bytes per second; 0 = unthrottled. Gen2 x4 is about 1.6e9.
    // Memory-mapped designs: a descriptor of n bytes completes (data moved, completion counted)
    // link_latency + n / rate after the link took it, and holds the link for n / rate, so a copy
    // timed from issue to completion shows the rate and latency set. Stream designs: the rate
    // only spaces the chunks (link_latency is not modelled there).
    double link_bytes_per_second = 0;
    std::chrono::microseconds link_latency{0};
    bool stepped = false;              // no engine thread: engines advance only in step()
    static constexpr size_t kStepLimit = 1000000;  // run_until_idle()'s bound by default
    uint64_t block_offset = 0;         // where the DMA register space starts in the BAR
    uint8_t version = 6;               // identifier [7:0]: 6 = 2017.1 and later
    uint8_t address_alignment = 1;     // channel Alignments [23:16]
    uint8_t length_granularity = 1;    // channel Alignments [15:8]
    uint8_t address_bits = 64;         // channel Alignments [7:0]
    XdmaStreamFunction stream_function = XdmaStreamFunction::Loopback;  // stream designs
    unsigned stream_tdata_bytes = 8;   // AXI4-Stream tdata width (Crc64 beats)
    uint64_t stream_fifo_bytes = 0x10000;  // depth of each C2H stream input FIFO
    unsigned data_width_bytes = 8;         // the DMA datapath (Config Block PCIE Data Width): 8, 16, 32 or 64
    // IP customisation options that PG195 lets a design turn off. An option that is off has its
    // registers and Control bits read back 0 and ignore writes:
    //  - descriptor_credits: SGDMA Descriptor Credits (0x8C) and the SGDMA common block's
    //    Descriptor Credit Mode Enable (0x20/0x24/0x28); the engine runs each list to STOP.
    //  - poll_mode_writeback: Control.pollmode_wb_enable (bit 26) and the Poll Mode Write Back
    //    Address registers (0x88/0x8C); no writeback is ever written. The Completed Descriptor
    //    Count register (0x48) still counts.
    //  - interrupts: the IRQ block's enable masks and vector registers and the config block's MSI
    //    enable; no MSI is ever raised. Status logging (Control ie_*) is unaffected.
    bool descriptor_credits = true;
    bool poll_mode_writeback = true;
    bool interrupts = true;
    // NUM_USR_INT: the width of usr_irq_req, 1 to 16 user interrupts (PG195 User Interrupts);
    // the User Interrupt Enable Mask keeps only these bits.
    unsigned user_interrupts = 16;
    // Status.busy stays set this long after an engine stops (STOP, Run cleared, error). PG195
    // gives no restart of a busy engine: a Run rising edge while busy is still set is lost (the
    // engine does not start; a violation is logged). Drivers wait for busy to clear first.
    std::chrono::microseconds busy_after_stop{0};
    // False: nothing answers the AXI-MM master (enumeration-only designs): the first data
    // transfer of a memory-mapped engine never completes; the engine stays busy, Run cleared or
    // not, until a device reset.
    bool card_memory_present = true;
    // IPs that behave unlike this model but within reason (the driver must cope and say so):
    //  - control_w1s_ignored: writes to the Control W1S alias (0x08) are ignored, so Run (and
    //    any other bit) reads back 0 after a W1S of it; Control (0x04) and W1C (0x0C) work.
    //  - completed_count_reads_zero: the Completed Descriptor Count register (0x48) reads 0
    //    for ever, while Status (descriptor_stopped, busy) and the poll-mode writeback still
    //    report progress.
    //  - The Alignments register (0x4C) reads address_alignment, length_granularity and
    //    address_bits as set above, even values no IP reports (address_bits 6, alignment 0); the
    //    engine enforces an alignment or granularity above 1 as set, and none for 0 or 1.
    bool control_w1s_ignored = false;
    bool completed_count_reads_zero = false;
    // Start and stop unlike this model (F21), each within PG195's words:
    //  - control_reads_zero: Control (0x04) reads 0 whatever was written; writes to it and to its
    //    W1S / W1C aliases still work (a driver judges Run by Status).
    //  - control_w1c_ignored: writes to the Control W1C alias (0x0C) are ignored; a plain write of
    //    Control clears Run.
    //  - run_clear_ignored: the engine ignores stop: no write clears Run, and it runs on.
    //  - start_refused_after_stop: a Run rising edge within this long after Status.busy cleared is
    //    lost: Control keeps Run, Status stays idle, the engine does not start.
    //  - late_engine: each descriptor's data moves this long after the engine fetched it (busy
    //    meanwhile). Run cleared meanwhile lets that descriptor finish, its write landing, and
    //    then stops the engine (busy until then), as an engine with writes in flight does.
    bool control_reads_zero = false;
    bool control_w1c_ignored = false;
    bool run_clear_ignored = false;
    std::chrono::microseconds start_refused_after_stop{0};
    std::chrono::milliseconds late_engine{0};
};

enum class XdmaDirection { H2C, C2H };

// Test-only lies of the IP's user interrupts (docs/verification.md), named in PDT_SIM_FAULT:
//   user_irq_drops         each request is acknowledged with no MSI sent (nothing delivered);
//   user_irq_doubles       each request sends its MSI twice (a count that is wrong);
//   user_irq_ignores_mask  a masked request is sent and acknowledged as an enabled one.
enum class UserIrqLie { None, Drops, Doubles, IgnoresMask };

// Faults the model can inject; each applies once to the next matching event of the channel.
enum class XdmaFault {
    EngineStall,          // the engine stops making progress (stays busy) until Run is cleared
    EngineHang,           // as EngineStall, but clearing Run does not help: only a device reset
    DescriptorReadError,  // the next descriptor fetch returns an Unsupported Request completion
    BadMagic,             // the next fetched descriptor has a corrupted magic: magic_stopped
    DataBitFlip,          // one bit of the next data block is inverted (bit 0 of its first byte)
    DropPacket,           // H2C stream: the next packet is lost in the AXI4-Stream switch
    DuplicatePacket,      // H2C stream: the next packet is delivered twice
    ReorderPacket,        // H2C stream: the next packet is held back and delivered after the following one
    ShortC2hLength,       // C2H stream: the next writeback reports 4 bytes fewer than written
    OverrunOneByte,       // AXI-MM: the next data block writes one byte past its end (H2C: the
                          // host byte after the source to the card; C2H: the card byte after
                          // the source to the host)
};
const char* to_string(XdmaFault fault);
// The fault's name in PDT_SIM_FAULT and the fault matrix: "engine_stall", "overrun_one_byte".
const char* fault_name(XdmaFault fault);
std::optional<XdmaFault> parse_fault_name(const std::string& name);
// Every fault kind, in declaration order.
std::vector<XdmaFault> all_faults();

// One fault to inject into every simulated instance of a design when it is opened.
struct FaultInjection {
    XdmaFault fault = XdmaFault::EngineStall;
    XdmaDirection direction = XdmaDirection::H2C;
    unsigned channel = 0;
};
// Faults of the QDMA model (qdma_model.hpp); each applies once to the next matching event of
// one queue (by physical queue ID). They share PDT_SIM_FAULT and its parser with the XDMA faults.
enum class QdmaFault {
    DescriptorError,  // the next descriptor fetch of the queue fails (Unsupported Request): the
                      // queue stops with a descriptor error
    CompletionError,  // C2H stream: the next completion entry has its error bit set (the data
                      // is written as it came)
    QueueStall,       // the queue never advances its CIDX again: doorbells are taken, nothing moves
};
// "qdma_descriptor_error", "qdma_completion_error", "qdma_queue_stall".
const char* fault_name(QdmaFault fault);
std::vector<QdmaFault> all_qdma_faults();
// A QDMA model whose indirect context reads lie (QdmaConfig::context_read_lie), every read of
// every queue: "qdma_stale_context_read" leaves QDMA_IND_CTXT_DATA as it was (the command
// completes, the data is stale); "qdma_context_read_flips" returns the context with bit 44 of
// the structure inverted (a field other than what was written).
enum class QdmaContextReadLie { None, Stale, FlipsBit44 };
struct QdmaFaultInjection {
    QdmaFault fault = QdmaFault::DescriptorError;
    XdmaDirection direction = XdmaDirection::H2C;  // the queue's H2C or C2H side
    unsigned qid = 0;                              // physical queue 0..4095
};

// TEST-ONLY seam: the tools read the environment variable PDT_SIM_FAULT when they build a
// simulated bus (--sim_design), so that a fault can be injected into a tool running as a
// process. Syntax: <name>[@<H2C|C2H><channel>] [, ...], e.g. "engine_stall@C2H0,data_bit_flip".
// Without a channel: C2H 0 for short_c2h_length, else H2C 0. One item may instead name a lie of
// the whole model (streams/lie.hpp): moves_nothing, stale_after=N or completes_early, e.g.
// "stale_after=3". "late_engine=MS" makes the engines write MS ms late (FaultPlan::late_engine).
// A QDMA fault names its queue with a decimal physical queue ID, e.g.
// "qdma_queue_stall@C2H5" (default H2C 0; qdma_completion_error: C2H 0); it goes to QDMA
// models only, an XDMA fault to XDMA models only, the lie to both. A CMAC fault (cmac_never_aligns,
// cmac_fcs_errors, cmac_lying_statistics: CmacModel::Fault) goes to every CMAC port of the
// design. A user interrupt lie (user_irq_drops, user_irq_doubles, user_irq_ignores_mask:
// UserIrqLie) goes to every XDMA and QDMA model. Never read for real hardware.
inline constexpr const char* kFaultEnvironmentVariable = "PDT_SIM_FAULT";
struct FaultPlan {
    std::vector<FaultInjection> injections;  // one-shot faults
    std::vector<QdmaFaultInjection> qdma_injections;  // one-shot QDMA faults
    streams::Lie lie;                           // the model's lie, if one is named
    // "late_engine=MS": every XDMA, QDMA and edu model of the bus writes MS milliseconds late
    // (XdmaConfig::late_engine): the teardown tests' engine that outlives the tool's wait.
    std::chrono::milliseconds late_engine{0};
    // "ignores_stop": every XDMA, QDMA and AXI DMA model of the bus ignores stop (XdmaConfig::
    // run_clear_ignored, QdmaConfig::ignores_stop): no stop can be proven.
    bool ignores_stop = false;
    // "cmac_<fault>": every CMAC model of the bus has this fault (CmacModel::set_fault).
    CmacModel::Fault cmac_fault = CmacModel::Fault::None;
    // "user_irq_<lie>": every XDMA and QDMA model of the bus lies about user interrupts (UserIrqLie).
    UserIrqLie user_irq_lie = UserIrqLie::None;
    // "qdma_stale_context_read", "qdma_context_read_flips": every QDMA model's context reads lie.
    QdmaContextReadLie qdma_context_read_lie = QdmaContextReadLie::None;
};
pdt::Result<FaultPlan> parse_fault_plan(const std::string& text);
pdt::Result<std::vector<FaultInjection>> parse_fault_injections(const std::string& text);

// A check the model made on the driver's programming that hardware would leave undefined
// (an adjacent block crossing 4 KiB, a credit register overflow, ...). Tests assert none.
struct XdmaViolation {
    XdmaDirection direction = XdmaDirection::H2C;
    unsigned channel = 0;
    std::string what;
};

// Instantiated in sim/src/xdma_model.cpp, where its Impl is complete.
extern template class DmaModel<xdma_impl::Impl, XdmaConfig>;

// config(), step(), run_until_idle() (an engine's step: one descriptor or one stream chunk),
// card_read(), card_write(), card_memory_resident_bytes(), keep_card_memory(), set_lie(),
// set_late_engine(): DmaModel's.
class XdmaModel : public DmaModel<xdma_impl::Impl, XdmaConfig> {
public:
    // Places the model's register blocks in `bar` at config.block_offset (0x10000 bytes, or to the
    // end of a smaller BAR: blocks beyond it are absent, reading all-ones), makes
    // `device` own it and stop it first on destruction, and hooks its reset to device.reset().
    static std::shared_ptr<XdmaModel> attach(SimDevice& device, SimBar& bar, XdmaConfig config);

    // AXI4-Stream routing: packets from H2C channel `h2c` go to C2H channel `c2h`, or nowhere
    // (dropped, as a switch with the master port disabled). Default: H2C n -> C2H n.
    void set_route(unsigned h2c, std::optional<unsigned> c2h);
    std::optional<unsigned> route(unsigned h2c) const;
    // Replaces the routing table by a function (the AXI4-Stream Switch model plugs in here).
    // It runs under the model's lock: it must not call back into the model.
    void set_router(std::function<std::optional<unsigned>(unsigned h2c)> router);
    // Feeds bytes into a C2H stream channel as if a card source sent them (not bounded by the
    // FIFO depth: a test's source does not wait).
    void push_c2h(unsigned c2h, std::vector<uint8_t> data, bool end_of_packet);
    // Bytes waiting in a C2H channel's stream input (sent, not yet written to the host).
    uint64_t c2h_pending_bytes(unsigned c2h) const;
    // The most bytes the stream input of any C2H channel has held at once (backpressure tests).
    uint64_t c2h_peak_pending_bytes() const;

    // Fault injection (thread safe). clear_faults() drops faults not yet applied.
    void inject(XdmaDirection direction, unsigned channel, XdmaFault fault);
    void clear_faults();
    // The lie set_lie() set; its transfers are the descriptors completed on any channel.
    streams::Lie lie() const;
    void set_ignores_stop();  // XdmaConfig::run_clear_ignored from now on (PDT_SIM_FAULT ignores_stop)
    std::vector<XdmaViolation> violations() const;

    // The user logic raises usr_irq_req[irq] and holds it until the IP's usr_irq_ack (PG195 User
    // Interrupts). Enabled in the User Interrupt Enable Mask, the IP sends the MSI of the vector in
    // the irq's User Vector Number field and acknowledges, and the logic drops the request: one
    // message per request. Masked, the request stays held (User Interrupt Pending shows it) with
    // no message, until the mask enables it (PG195: a mask set on a held source interrupts).
    // A request while one is held merges with it, as a level does. EINVAL for an irq beyond
    // XdmaConfig::user_interrupts; ENOTSUP for an IP without interrupts. SimDevice's
    // request_user_interrupt reaches this.
    pdt::Result<void> request_user_interrupt(unsigned irq);
    void set_user_irq_lie(UserIrqLie lie);

    // Observability for tests: descriptors the engine of a channel has completed since the
    // model was created, and whether the channel is busy.
    uint64_t descriptors_processed(XdmaDirection direction, unsigned channel) const;
    bool busy(XdmaDirection direction, unsigned channel) const;
    // Faults injected into a channel that its engine has not applied yet. A test whose verdict
    // needs the fault to have hit the engine (a hang, before the driver clears Run) waits for 0:
    // the engine thread runs when the machine lets it, not within a driver's timeout.
    size_t faults_pending(XdmaDirection direction, unsigned channel) const;

private:
    XdmaModel(SimDevice& device, XdmaConfig config) : DmaModel(device, std::move(config)) {}
};

}  // namespace sim
