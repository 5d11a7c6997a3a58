// One XDMA engine (an H2C or C2H channel, PG195) driven from user space over the device seam.
//
// Two ways to run it:
//  - RunMode::Credits (fpga_sio's way): a fixed ring of descriptors linked in a circle, credit
//    mode enabled, Run set once; each submit fills descriptors and writes their number to the
//    Descriptor Credits register, so the engine never stops and up to 1023 descriptors are in
//    flight. With EngineOptions::coalesce_credits the credits of several submits are written
//    at once (doorbell coalescing; see there).
//  - RunMode::StopList (the Xilinx Linux driver's way): transfers are written as a list whose
//    last descriptor has STOP, with Nxt_adj / Descriptor Adjacent for contiguous blocks that do
//    not cross 4 KiB; the engine is started per list (Run cleared, then set) and stops at STOP.
//    Transfers submitted while a list runs wait in software for the next list.
// Completion is read from the poll-mode writeback, the Completed Descriptor Count register,
// the Status register (StopList only) or an MSI (the channel's Interrupt Enable Mask and the
// IRQ block route it to options.msi_vector; the caller enables MSI on the device first).
// Opening fails, naming the register, when the IP lacks what the options need: Credits when
// Descriptor Credit Mode Enable reads back 0, PollWriteback when Control.pollmode_wb_enable
// reads back 0 (xdma_ip.hpp chooses modes the IP has). A restart after a STOP list waits for
// Status.busy to clear first (PG195), up to options.idle_wait, without blocking poll().
// Every descriptor honours the channel's Alignments register: addresses a multiple of its
// address alignment, lengths of its length granularity, host addresses within its address_bits
// (refused with EINVAL otherwise); max_descriptor_length is rounded down so that splitting keeps
// both. A field that makes no sense is ignored with a warning (check_alignments).
//
// IPs that behave unlike PG195 within reason are driven anyway, each with one warning per engine
// (xdma::notify_warning, warnings()), and named by fallbacks(): Run is set and cleared with
// proof from Status, whatever Control reads (xdma_run_control.hpp: an ignored W1S or W1C alias,
// a Control that does not read back, a start refused just after a stop); a Completed Descriptor
// Count that stays short of a list Status says has stopped at its STOP is diagnosed (in the
// timeout message), and with EngineOptions::completion_auto the engine completes by Status.
//
// DMA safety (vfio_access/dma_fence.hpp): from the first transfer it is given until the IP shows
// it can write no more (every descriptor completed, or stop() proven by Run and busy reading
// back clear), the engine holds a claim on its device's DMA fence, so no DMA region of the
// device is unmapped meanwhile, whatever order its owners release them in. An engine destroyed
// without a proven stop abandons its claim: the device's regions stay mapped until it closes.
//
// Errors are latched: after one, submit/poll/wait return it until recover() (stop, wait for
// idle, reinitialise) makes the channel usable again, abandoning what was in flight.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dma_bridge/xdma_discovery.hpp"
#include "dma_bridge/xdma_fifo.hpp"
#include "dma_bridge/xdma_run_control.hpp"
#include "vfio_access/dma.hpp"
#include "vfio_access/dma_fence.hpp"

namespace xdma {

struct C2hStreamWriteback;  // xdma_descriptor.hpp, the driver's own

enum class RunMode { Credits, StopList };
enum class CompletionMethod { PollWriteback, CompletedCountRegister, StatusRegister, Interrupt };
const char* to_string(RunMode mode);
const char* to_string(CompletionMethod method);
// What an engine runs, in the options' spelling: "credits" / "stop_list"; "poll_writeback",
// "completed_count", "status", "interrupt".
const char* option_name(RunMode mode);
const char* option_name(CompletionMethod method);

struct EngineOptions {
    Direction direction = Direction::H2C;
    unsigned channel = 0;
    bool stream = false;  // expected channel kind: the identifier's stream bit must match
    unsigned dma_bar = 0;
    uint64_t register_offset = 0;  // of the DMA register space inside dma_bar
    RunMode mode = RunMode::Credits;
    CompletionMethod completion = CompletionMethod::PollWriteback;
    // The completion method was chosen (completion auto), not forced: on STOP-terminated lists
    // the engine may fall back from the Completed Descriptor Count register to Status completion
    // when it sees that the IP does not count (configure_engine sets it).
    bool completion_auto = false;
    unsigned ring_descriptors = 64;  // descriptors in flight at most: 1..1023
    // Longest descriptor; longer transfers are split. PG195's field holds 2^28 - 1; the default
    // keeps every piece a multiple of 64 bytes (fpga_sio's 0x0FFFFFC0).
    uint32_t max_descriptor_length = 0x0FFFFFC0;
    std::chrono::milliseconds timeout{10000};  // wait() default and the progress deadline
    unsigned msi_vector = 0;                   // CompletionMethod::Interrupt
    // IOVA width of the ring and writebacks (A32: 32); a sane Alignments address_bits below it
    // lowers it (dma_mask_bits()).
    unsigned dma_mask_bits = 64;
    // stop(), and a restart after a STOP-terminated list, wait this long for Status.busy to clear.
    std::chrono::milliseconds idle_wait{1000};
    // RunMode::Credits, doorbell coalescing. Off (the default): every submit writes its own
    // descriptors' number to the Descriptor Credits register (PG195 SGDMA 0x4x8C), as the
    // credit tools study it. On: submit writes the descriptors and holds their credits back;
    // the register is written once with the sum by the next poll() or wait() (before they look
    // at the hardware), by flush_credits(), or by the submit that brings the sum to
    // coalesce_limit. A caller that waits for the engine by other means (another channel's
    // completion, card memory, Status) calls flush_credits() first. Ignored for StopList.
    bool coalesce_credits = false;
    unsigned coalesce_limit = 64;  // credits held back at most: 1..1023
};

// The options of one engine, the rest as the defaults above: which channel and direction, its
// kind (stream or memory-mapped), where its DMA register space lies (register_offset inside
// dma_bar), its ring, the IOVA width and the timeout.
inline EngineOptions engine_options(Direction direction, unsigned channel, bool stream, unsigned dma_bar,
                                    uint64_t register_offset, unsigned ring_descriptors, unsigned dma_mask_bits,
                                    std::chrono::milliseconds timeout) {
    return EngineOptions{.direction = direction, .channel = channel, .stream = stream, .dma_bar = dma_bar,
                         .register_offset = register_offset, .ring_descriptors = ring_descriptors,
                         .timeout = timeout, .dma_mask_bits = dma_mask_bits};
}

struct TransferCompletion {
    uint64_t id = 0;         // as returned by submit
    uint64_t length = 0;     // bytes moved (C2H stream: from the stream writebacks)
    bool end_of_packet = false;  // C2H stream: EOP in the last descriptor's writeback
};

// Counters for diagnostics and benchmarks.
struct EngineCounters {
    uint64_t descriptors_started = 0;
    uint64_t descriptors_completed = 0;
    uint64_t transfers_completed = 0;
    uint64_t credits_writes = 0;  // writes of Descriptor Credits (one per submit, or per flush)
    uint64_t lists_started = 0;
    uint64_t interrupts = 0;  // MSIs received by wait()
};

class Engine {
public:
    static pdt::Result<std::unique_ptr<Engine>> open(vfio::Device& device, EngineOptions options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Memory-mapped channel: host_iova <-> card (AXI) address. Returns the transfer id.
    pdt::Result<uint64_t> submit_memory(uint64_t host_iova, uint64_t card_address, uint64_t length);
    // Stream channel: H2C sends length bytes (EOP on the last descriptor when end_of_packet);
    // C2H receives up to length bytes (end_of_packet ignored).
    pdt::Result<uint64_t> submit_stream(uint64_t host_iova, uint64_t length, bool end_of_packet);
    // EngineOptions::coalesce_credits: hands the descriptors written since the last write of
    // Descriptor Credits to the engine, in one write of that register; nothing when none wait.
    void flush_credits();
    size_t credits_held() const { return m_held_credits; }  // written, not yet credited

    // The oldest transfer if it completed (completions are in submission order).
    pdt::Result<std::optional<TransferCompletion>> poll();
    pdt::Result<TransferCompletion> wait(std::chrono::milliseconds timeout);
    pdt::Result<TransferCompletion> wait() { return wait(m_options.timeout); }

    // Clears Run and waits (EngineOptions::idle_wait) for the engine to go idle, both proven by
    // reading the IP back; only then is the engine's DMA claim released. In-flight transfers are lost,
    // and so are credits held back (coalesce_credits), never written: clearing Run clears the
    // register's credits too (PG195). The engine stays idle (Run clear) until the next submit reinitialises it, which also
    // clears a latched error.
    pdt::Result<void> stop();
    // stop(), then reinitialise the channel at once: the latched error is cleared.
    pdt::Result<void> recover();

    const ChannelInfo& info() const { return m_info; }
    const EngineOptions& options() const { return m_options; }
    std::string name() const;  // "0000:01:00.0 H2C 0"
    size_t transfers_in_flight() const { return m_transfers.size(); }
    size_t free_descriptors() const;
    // Descriptors a transfer of `length` bytes needs.
    size_t descriptors_for(uint64_t length) const;
    bool busy() const { return !m_transfers.empty(); }
    const EngineCounters& counters() const { return m_counters; }
    // The engine's DMA mask: EngineOptions::dma_mask_bits, lowered to a sane Alignments
    // address_bits. Host buffers for its transfers should be allocated with it.
    unsigned dma_mask_bits() const { return m_dma_mask_bits; }
    // The warnings this engine gave (also sent to xdma::notify_warning), oldest first.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    // The fallbacks it used for an IP unlike PG195 (RunControl::fallbacks(), and
    // "completion_by_status" once it completes by Status), for the tools' JSON.
    std::vector<std::string> fallbacks() const;
    // True while the engine may write what it was given (its DMA claim is held).
    bool may_write() const { return m_claim.held(); }
    uint32_t read_status() const;  // Status (0x40), not clearing it
    // "status 0x00000001 (busy) completed_descriptor_count=..." for error messages, and where a
    // stopped list's count stays short, why: the IP may not count (count_diagnosis).
    std::string describe_state() const {
        const std::string why = count_diagnosis();
        return diagnostics(read_status()) + (why.empty() ? "" : ": " + why);
    }
    // The channel's registers decoded with PG195's names (xdma_register_dump.hpp).
    std::vector<std::string> register_dump() const;
    // Tells the process's failure observer (xdma::set_failure_observer) that this engine failed,
    // with its registers as they are now. Engines call it themselves on every error they latch
    // and when a wait() of the whole EngineOptions::timeout expires; callers that keep their own
    // progress deadline (waiting in shorter slices) call it when they give up.
    void report_failure(const std::string& what) const;

private:
    struct Piece {
        uint64_t src = 0, dst = 0;
        uint32_t length = 0;
        uint8_t control = 0;
    };
    struct Transfer {  // 32 bytes: a ring's worth stays in few cache lines
        uint64_t id = 0;
        uint64_t first = 0;  // descriptor sequence number of its first descriptor
        uint64_t length = 0;
        uint32_t count = 0;    // descriptors: at most ring_descriptors (1023)
        bool waiting = false;  // StopList: its pieces wait in m_waiting_pieces for a list
    };

    Engine(vfio::Device& device, EngineOptions options) : m_device(device), m_options(options) {}
    pdt::Result<void> initialise();  // PG195's programming sequence, the steps below
    pdt::Result<void> set_credit_mode();
    void clear_halt();
    void set_poll_mode_writeback_address();
    uint32_t status_events() const;
    pdt::Result<void> write_channel_control();
    void route_channel_interrupt();
    void forget_transfers();
    pdt::Result<void> start_credit_ring();
    pdt::Result<uint64_t> submit(std::vector<Piece>& pieces, uint64_t length);
    pdt::Error refuse_submit(size_t descriptors, uint64_t length) const;  // zero length, too big, ring full
    bool piece_fits(const Piece& piece) const;  // the DMA mask and Alignments
    size_t first_misfit(const std::vector<Piece>& pieces) const;
    pdt::Error piece_error(size_t index, const Piece& piece) const;
    void write_descriptor(size_t index, const Piece& piece, uint64_t next, unsigned adjacent);
    void write_to_ring(std::vector<Piece>& pieces);  // Credits
    pdt::Result<void> start_list();                 // StopList
    size_t write_list();
    pdt::Result<uint64_t> hardware_completed();  // descriptors completed so far (sequence)
    pdt::Result<TransferCompletion> finish(const Transfer& transfer);  // C2H stream
    pdt::Error more_completed_than_started(uint64_t completed);
    pdt::Result<void> check_status(uint32_t status_value, const char* source);
    pdt::Error fail(int code, std::string what, const std::string& after = {});
    pdt::Result<void> start_engine();  // Run set, proven by Status (RunControl::start)
    void claim_writes();                // before the engine is given addresses
    pdt::Error busy_at_open() const;   // whose leftover a channel busy at open is
    void warn(std::string text);
    // The completed count of a list, checked against Status when it stops short (xdma_completion.cpp).
    pdt::Result<uint64_t> checked_count(uint64_t completed);
    bool stopped_at_stop(uint32_t status_value) const;
    std::string count_diagnosis() const;  // for a timeout: why the count may be the IP's fault
    std::string diagnostics(uint32_t status_value) const;
    uint32_t reg(uint32_t offset) const { return m_regs.read32(m_channel_base + offset); }
    void set_reg(uint32_t offset, uint32_t value) const { m_regs.write32(m_channel_base + offset, value); }
    uint32_t sgdma(uint32_t offset) const { return m_regs.read32(m_sgdma_base + offset); }
    void set_sgdma(uint32_t offset, uint32_t value) const { m_regs.write32(m_sgdma_base + offset, value); }
    uint64_t descriptor_iova(size_t index) const;
    uint64_t writeback_iova(size_t index) const;
    C2hStreamWriteback* stream_writeback(size_t index) const;
    bool c2h_stream() const { return m_info.stream && m_options.direction == Direction::C2H; }

    vfio::Device& m_device;
    EngineOptions m_options;
    ChannelInfo m_info;
    vfio::RegisterWindow m_regs;
    uint64_t m_channel_base = 0, m_sgdma_base = 0;
    unsigned m_irq_source = 0;
    vfio::DmaRegion m_ring;  // descriptors | completed count writeback | C2H stream writebacks
    size_t m_count_wb_offset = 0, m_stream_wb_offset = 0;
    Fifo<Transfer> m_transfers;
    Fifo<Piece> m_waiting_pieces;  // StopList: pieces of transfers waiting for the next list
    uint64_t m_next_id = 0;
    uint64_t m_started = 0;     // descriptor sequence numbers handed to the engine
    uint64_t m_completed = 0;   // descriptors seen completed
    uint64_t m_list_base = 0;   // StopList: sequence number of the running list's first descriptor
    size_t m_list_count = 0;    // StopList: descriptors in the running list (0: none running)
    uint32_t m_held_credits = 0;       // coalesce_credits: descriptors written, not yet credited
    size_t m_next_slot = 0;            // Credits: ring index of the next descriptor (m_started % ring)
    uint64_t m_host_limit = ~0ull;     // highest host address the DMA mask reaches
    mutable std::string m_name;
    std::vector<Piece> m_scratch;
    std::chrono::steady_clock::time_point m_deadline;
    std::optional<pdt::Error> m_failure;
    bool m_stopped = false;  // stop() left Run clear: submit reinitialises
    std::optional<std::chrono::steady_clock::time_point> m_restart_deadline;  // StopList: busy after STOP
    EngineCounters m_counters;
    RunControl m_run;                    // Control's Run bit, set and cleared with proof
    vfio::DmaFence::Claim m_claim;       // held while the engine may write what it was given
    bool m_completes_by_status = false;  // completion_auto fell back to Status completion
    unsigned m_dma_mask_bits = 64;
    std::vector<std::string> m_warnings;
    bool m_list_stopped_seen = false;  // descriptor_stopped read (clear-on-read) since the list started
    uint64_t m_count_seen = 0;         // the count as last read, and since when it has not moved
    std::optional<std::chrono::steady_clock::time_point> m_count_seen_at;
};

}  // namespace xdma
