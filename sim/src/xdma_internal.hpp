// Internal state of the XDMA model (PG195). One mutex guards all of it; register accesses and
// the engine thread take it. Constants are written from PG195 independently of the driver's
// definitions in dma_bridge/, so that a mistake in one is caught by the other.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "card_memory.hpp"
#include "engine_thread.hpp"
#include "late_tails.hpp"
#include "sim/xdma_model.hpp"

namespace sim::xdma_impl {

inline constexpr uint32_t kSubsystemId = 0x1FC;
inline constexpr uint32_t kDescriptorMagic = 0xAD4B;
inline constexpr uint32_t kStreamWritebackMagic = 0x52B4;
inline constexpr unsigned kMaxChannels = 4;
inline constexpr uint32_t kMaxCredits = 1023;

// Channel Control bits (0x04).
inline constexpr uint32_t kControlRun = 1u << 0;
inline constexpr uint32_t kControlPollmodeWbEnable = 1u << 26;
inline constexpr uint32_t kControlStreamWbDisable = 1u << 27;

// Channel Status bits (0x40).
inline constexpr uint32_t kStatusBusy = 1u << 0;
inline constexpr uint32_t kStatusDescriptorStopped = 1u << 1;
inline constexpr uint32_t kStatusDescriptorCompleted = 1u << 2;
inline constexpr uint32_t kStatusAlignMismatch = 1u << 3;
inline constexpr uint32_t kStatusMagicStopped = 1u << 4;
inline constexpr uint32_t kStatusInvalidLength = 1u << 5;
inline constexpr uint32_t kStatusIdleStopped = 1u << 6;
inline constexpr uint32_t kStatusReadErrorUr = 1u << 9;      // C2H: read error decode
inline constexpr uint32_t kStatusWriteErrorDecode = 1u << 14;
inline constexpr uint32_t kStatusDescErrorUr = 1u << 19;
inline constexpr uint32_t kStatusErrorMask = 0x00FFFE38;  // align, magic, length, read, write, desc
// Status bits the engine logs only when the Control bit of the same position (ie_*) is set
// (PG195 Channel Control / Status tables): all but busy.
inline constexpr uint32_t kStatusLoggable = 0x00FFFE7E;

// Performance Monitor Control (0xC0): Auto [0], Clear [1] (write-only), Run [2]. The counts are
// 42 bits; the model's clock ticks a cycle a data beat and kPerfCyclesPerDescriptor a descriptor
// (its fetch and completion), never while the engine waits for work.
inline constexpr uint32_t kPerfAuto = 1u << 0, kPerfClear = 1u << 1, kPerfRun = 1u << 2;
inline constexpr uint64_t kPerfCountMax = (1ull << 42) - 1;
inline constexpr uint64_t kPerfCyclesPerDescriptor = 16;

// Descriptor control bits (dword 0 [7:0]).
inline constexpr uint32_t kDescStop = 1u << 0;
inline constexpr uint32_t kDescCompleted = 1u << 1;
inline constexpr uint32_t kDescEop = 1u << 4;

struct Descriptor {
    uint32_t word0 = 0;  // magic [31:16], Nxt_adj [13:8], control [7:0]
    uint32_t length = 0;
    uint64_t src_adr = 0, dst_adr = 0, nxt_adr = 0;
    uint32_t magic() const { return word0 >> 16; }
    unsigned nxt_adj() const { return (word0 >> 8) & 0x3F; }
    uint32_t control() const { return word0 & 0xFF; }
};

struct StreamChunk {
    std::vector<uint8_t> data;
    size_t consumed = 0;
    bool eop = false;
};

struct Channel {
    XdmaDirection direction = XdmaDirection::H2C;
    unsigned index = 0;
    // Channel block (target 0/1).
    uint32_t control = 0;
    uint32_t status = 0;
    uint32_t completed_count = 0;
    uint64_t poll_wb_address = 0;
    uint32_t interrupt_enable_mask = 0;
    // SGDMA block (target 4/5).
    uint64_t descriptor_address = 0;
    uint32_t descriptor_adjacent = 0;
    uint32_t credits = 0;
    // Engine.
    bool running = false;  // Run seen rising and the engine has not stopped since
    bool stalled = false;
    bool hung = false;  // EngineHang: busy until a device reset
    uint64_t next_descriptor = 0;
    unsigned adjacent_remaining = 0;
    std::optional<Descriptor> current;
    uint64_t current_filled = 0;         // C2H stream: bytes written into the current descriptor
    std::deque<StreamChunk> input;       // C2H stream: bytes the switch delivered
    uint64_t input_bytes = 0;            // C2H stream: bytes in `input` not yet consumed
    // H2C stream: the packet in progress (stream_functions.cpp).
    bool packet_open = false;
    std::optional<unsigned> packet_to;   // C2H channel it goes to; nullopt: discarded
    bool packet_held = false;            // ReorderPacket: kept whole in `packet`, sent later
    bool packet_duplicated = false;      // DuplicatePacket: copied into `packet`, sent twice
    std::vector<uint8_t> packet;         // H2C stream: held or duplicated packet bytes
    uint64_t crc = 0;                    // Crc64: CRC register of the packet in progress
    uint64_t packet_bytes = 0;           // Crc64: bytes of the packet so far
    std::optional<std::vector<uint8_t>> held_packet;  // H2C stream: ReorderPacket
    std::vector<XdmaFault> faults;
    LateTails tails;                     // completes_early (xdma_lies.cpp); card: a card memory offset
    uint64_t processed = 0;
    bool irq_pending = false;
    // Performance monitor (0xC0-0xD0): its control's Run and Auto, and the two counts.
    uint32_t perf_control = 0;
    uint64_t perf_cycles = 0;
    uint64_t perf_data_beats = 0;
    // busy_after_stop: when a stopped engine's Status.busy clears.
    std::optional<std::chrono::steady_clock::time_point> busy_until;
    // Timed memory-mapped link: when the current descriptor, its data moved, completes.
    std::optional<std::chrono::steady_clock::time_point> link_done_at;
    // late_engine: when the current descriptor's data moves; Run cleared before then lets it
    // finish, then stops (finish_then_stop).
    std::optional<std::chrono::steady_clock::time_point> late_due;
    bool finish_then_stop = false;
    // start_refused_after_stop: when Status.busy last cleared.
    std::optional<std::chrono::steady_clock::time_point> idle_since;
};

struct Impl : EngineThreadState {
    Impl(SimDevice& device, XdmaConfig config);

    // Registers (xdma_registers.cpp); offset relative to the DMA register space.
    uint32_t read32(uint64_t offset);
    void write32(uint64_t offset, uint32_t value);
    void reset();  // the device's reset (mutex held)
    // The channel a channel block (target 0 H2C, 1 C2H) or an SGDMA block (4 H2C, 5 C2H)
    // addresses; nullptr for another target or a channel the model does not have.
    Channel* addressed_channel(unsigned target, unsigned index);
    uint32_t read_channel_block(Channel& ch, unsigned reg);       // 0x04.. of a channel block
    uint32_t read_sgdma_block(const Channel& ch, unsigned reg) const;  // 0x80.. of an SGDMA block

    // Engine (xdma_engine.cpp); all with m_mutex held.
    bool advance(Channel& ch);          // one descriptor or stream chunk; true on progress
    // Timed memory-mapped link: fetches the next descriptor (unless current) and moves its data;
    // false when the engine had no work or stalled. A descriptor still current (and not stalled)
    // afterwards moved and waits for complete_timed_mm.
    bool start_timed_mm(Channel& ch);
    void complete_timed_mm(Channel& ch);
    bool has_work(const Channel& ch) const;
    void set_run(Channel& ch, bool run);
    void abort_run(Channel& ch);  // Run cleared: the descriptor in progress is dropped, the engine idles
    bool late(Channel& ch, bool fetched);  // late_engine: true while the current descriptor waits
    void update_interrupts();
    void update_user_interrupts();  // xdma_user_interrupts.cpp
    uint32_t user_irq_lines() const { return config.user_interrupts >= 32 ? ~0u : (1u << config.user_interrupts) - 1; }
    bool take_fault(Channel& ch, XdmaFault fault);
    void push_c2h_locked(unsigned c2h, std::vector<uint8_t> data, bool eop);
    // Stream path (stream_functions.cpp).
    bool h2c_stream_ready(const Channel& ch) const;  // the current descriptor can move data now
    bool c2h_stream_ready(const Channel& ch) const;  // the C2H stream input has data now
    void abort_stream_packet(Channel& ch);           // Run cleared mid-packet
    std::optional<unsigned> route_of(unsigned h2c) const;
    uint64_t fifo_free(unsigned c2h) const;
    void violation(const Channel& ch, std::string what);
    bool halted(const Channel& ch) const;
    void log_status(Channel& ch, uint32_t bits);  // sets the bits whose Control ie_* is set
    void stop_engine(Channel& ch);               // not running; busy now or after busy_after_stop
    void settle(Channel& ch);                    // clears a lingering busy whose time has come
    bool credit_mode(const Channel& ch) const;
    unsigned irq_source(const Channel& ch) const;
    Channel* channel(XdmaDirection direction, unsigned index);
    const Channel* channel(XdmaDirection direction, unsigned index) const;

    // Thread (xdma_model.cpp).
    void engine_thread();
    size_t step_locked(std::chrono::steady_clock::time_point now, bool throttle);
    // A stepped round (DmaModel::step): now, unthrottled.
    size_t step_locked() { return step_locked(std::chrono::steady_clock::now(), false); }
    bool timed_mm() const;  // a memory-mapped design with a link rate or latency set
    bool step_timed_mm(Channel& ch, std::chrono::steady_clock::time_point now);
    void notify();

    SimDevice& device;
    XdmaConfig config;

    std::vector<Channel> h2c, c2h;
    CardMemory card_memory;
    uint64_t bytes_moved = 0;  // data bytes the engines moved (throttle accounting)
    // A memory-mapped descriptor's data on its way through the model, kept between descriptors:
    // a fresh zeroed buffer each time cost more than the copy (page faults on every large one).
    std::vector<uint8_t> mm_scratch;
    streams::Lie lie;               // test-only: the engines lie (xdma_lies.cpp)
    uint64_t lie_transfers = 0;  // descriptors completed, every channel: what stale_after counts
    // SGDMA common block.
    uint32_t descriptor_control = 0;   // halt bits: H2C [3:0], C2H [19:16]
    uint32_t credit_mode_enable = 0;   // H2C [3:0], C2H [19:16]
    // IRQ block.
    uint32_t user_irq_enable_mask = 0;
    uint32_t user_irq_req = 0;  // usr_irq_req lines the user logic holds (until usr_irq_ack)
    UserIrqLie user_irq_lie = UserIrqLie::None;
    uint32_t channel_irq_enable_mask = 0;
    uint32_t user_vector[4] = {};
    uint32_t channel_vector[2] = {};
    // Streams.
    std::vector<std::optional<unsigned>> routes;
    std::function<std::optional<unsigned>(unsigned)> router;
    // Throttle: when each direction's link is next free.
    std::chrono::steady_clock::time_point link_free_at[2];
    bool link_backlogged[2] = {false, false};  // work waited for the link since it was last used
    size_t round_robin = 0;
    std::vector<XdmaViolation> violations;
    uint64_t peak_pending = 0;  // most bytes any C2H stream input held
};

// Engine steps shared by xdma_engine.cpp and stream_functions.cpp (m_mutex held).
void stop_with_error(Impl& impl, Channel& ch, uint32_t bits);
void complete(Impl& impl, Channel& ch, bool eop);
void flip_bit(Impl& impl, Channel& ch, std::vector<uint8_t>& data);
void flip_bit(Impl& impl, Channel& ch, uint8_t* data, uint64_t n);
// Lying engines (xdma_lies.cpp): every data write to a destination goes through deliver();
// complete() calls end_transfer(), and fetching the next descriptor land_late().
void raw_write(Impl& impl, bool card, uint64_t address, const uint8_t* data, uint64_t n);
void deliver(Impl& impl, Channel& ch, bool card, uint64_t address, const uint8_t* data, uint64_t n);
void end_transfer(Impl& impl, Channel& ch);
void land_late(Impl& impl, Channel& ch);
// Moves part of the current H2C stream descriptor; false when nothing could move (stalled).
bool move_h2c_stream(Impl& impl, Channel& ch);
// Fills the current C2H descriptor from the stream input; completes it when full or at EOP.
void move_c2h_stream(Impl& impl, Channel& ch);

}  // namespace sim::xdma_impl
