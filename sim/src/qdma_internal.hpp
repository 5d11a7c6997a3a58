// Internal state of the QDMA model (PG302, qdma_model.hpp). One mutex guards all of it; register
// accesses and the engine thread take it. Field positions are PG302's context structures, written
// here independently of any driver so that a driver's mistake shows against them.
#pragma once

#include <array>
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
#include "sim/qdma_model.hpp"

namespace sim::qdma_impl {

using Words = std::array<uint32_t, qdma_csr::kContextWords>;

// Bits [hi:lo] of a word.
constexpr uint32_t field(uint32_t word, unsigned hi, unsigned lo) {
    return hi - lo == 31 ? word : (word >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr uint32_t with_field(uint32_t word, unsigned hi, unsigned lo, uint32_t value) {
    const uint32_t mask = (hi - lo == 31 ? ~0u : (1u << (hi - lo + 1)) - 1) << lo;
    return (word & ~mask) | ((value << lo) & mask);
}

// Software descriptor context (sel 0x0 C2H, 0x1 H2C): W0 pidx [15:0], irq_arm [16], fnc_id
// [28:17]; W1 qen [0], fcrd_en [1], wbi_chk [2], wbi_intvl_en [3], at [4], fetch_max [8:5],
// rng_sz [15:12], dsc_sz [17:16] (0 8 B, 1 16 B, 2 32 B, 3 64 B), bypass [18], mm_chn [19],
// wbk_en [20], irq_en [21], port_id [24:22], irq_no_last [25], err [27:26], err_wb_sent [28],
// irq_req [29], mrkr_dis [30], is_mm [31]; W2-W3 dsc_base [127:64]; W4 vec [10:0], int_aggr [11].
struct SwContext {
    explicit SwContext(const Words& w) : words(w) {}
    uint16_t pidx() const { return static_cast<uint16_t>(field(words[0], 15, 0)); }
    unsigned fnc() const { return field(words[0], 28, 17); }
    bool qen() const { return field(words[1], 0, 0); }
    bool wbi_chk() const { return field(words[1], 2, 2); }
    unsigned rng_sz() const { return field(words[1], 15, 12); }
    unsigned dsc_sz() const { return field(words[1], 17, 16); }
    bool bypass() const { return field(words[1], 18, 18); }
    bool mm_chn() const { return field(words[1], 19, 19); }
    bool wbk_en() const { return field(words[1], 20, 20); }
    unsigned err() const { return field(words[1], 27, 26); }
    bool is_mm() const { return field(words[1], 31, 31); }
    uint64_t dsc_base() const { return uint64_t(words[3]) << 32 | words[2]; }
    const Words& words;
};

// Hardware descriptor context (sel 0x2/0x3): W0 cidx [15:0], crd_use [31:16]; W1 dsc_pnd [8],
// idl_stp_b [9], evt_pnd [10], fetch_pnd [14:11].
inline uint16_t hw_cidx(const Words& w) { return static_cast<uint16_t>(field(w[0], 15, 0)); }

// Completion context (sel 0x6): W0 en_stat_desc [0], en_int [1], trig_mode [4:2], fnc_id [16:5],
// counter_idx [20:17], timer_idx [24:21], int_st [26:25], color [27], qsize_ix [31:28];
// baddr4_high (address [63:6]) W1 [31:0] + W2 [25:0]; desc_size W2 [27:26]; pidx W2 [31:28] low
// 4 bits + W3 [11:0]; cidx W3 [27:12]; valid W3 [28]; err W3 [30:29]; baddr4_low (address
// [5:2]) W5 [17:14].
struct CmptContext {
    explicit CmptContext(Words& w) : words(w) {}
    bool en_stat_desc() const { return field(words[0], 0, 0); }
    unsigned trig_mode() const { return field(words[0], 4, 2); }
    unsigned int_st() const { return field(words[0], 26, 25); }
    bool color() const { return field(words[0], 27, 27); }
    unsigned qsize_ix() const { return field(words[0], 31, 28); }
    uint64_t base() const {
        const uint64_t high = uint64_t(field(words[2], 25, 0)) << 32 | words[1];
        return high << 6 | uint64_t(field(words[5], 17, 14)) << 2;
    }
    unsigned entry_bytes() const { return 8u << field(words[2], 27, 26); }
    uint16_t pidx() const { return static_cast<uint16_t>(field(words[2], 31, 28) | field(words[3], 11, 0) << 4); }
    uint16_t cidx() const { return static_cast<uint16_t>(field(words[3], 27, 12)); }
    bool valid() const { return field(words[3], 28, 28); }
    unsigned err() const { return field(words[3], 30, 29); }
    void set_color(bool c) { words[0] = with_field(words[0], 27, 27, c); }
    void set_pidx(uint16_t p) {
        words[2] = with_field(words[2], 31, 28, p & 0xF);
        words[3] = with_field(words[3], 11, 0, p >> 4);
    }
    void set_cidx(uint16_t c) { words[3] = with_field(words[3], 27, 12, c); }
    void invalidate_with_error(unsigned err) {
        words[3] = with_field(with_field(words[3], 28, 28, 0), 30, 29, err);
    }
    Words& words;
};

// Prefetch context (sel 0x7): W0 bypass [0], buf_sz_idx [4:1], port_id [7:5], pfch_en [27];
// W1 valid [13].
inline unsigned pfch_buf_sz_idx(const Words& w) { return field(w[0], 4, 1); }
inline bool pfch_valid(const Words& w) { return field(w[1], 13, 13); }
// Function map (sel 0xC, by function): W0 qid_base [10:0], W1 qid_max [11:0] (queue count).
inline unsigned fmap_qbase(const Words& w) { return field(w[0], 10, 0); }
inline unsigned fmap_qmax(const Words& w) { return field(w[1], 11, 0); }

// One queue side's ring as its contexts give it.
struct RingState {
    uint64_t base = 0;
    uint32_t slots = 0;  // descriptors: GLBL_RNG_SZ - 1
    unsigned desc_bytes = 0;
    uint16_t pidx = 0, cidx = 0;
    uint32_t pending() const { return (pidx + slots - cidx) % slots; }
    uint64_t at(uint16_t index) const { return base + uint64_t(index) * desc_bytes; }
    uint16_t next(uint16_t index, uint32_t by = 1) const { return static_cast<uint16_t>((index + by) % slots); }
};

// Engine state of one side (H2C or C2H) of a physical queue.
struct Queue {
    std::vector<QdmaFault> faults;
    bool stalled = false;  // QueueStall: nothing moves until the SW context is cleared
    uint64_t processed = 0;
    LateTails tails;  // completes_early; card: an AXI address of the card memory
    // QdmaConfig::late_engine: when the pending descriptor moves.
    std::optional<std::chrono::steady_clock::time_point> late_due;
};

struct Impl : EngineThreadState {
    Impl(SimDevice& device, QdmaConfig config);

    // Registers (qdma_registers.cpp).
    uint32_t read32(uint64_t offset);
    void write32(uint64_t offset, uint32_t value);
    void reset();
    void doorbell(uint64_t offset, uint32_t value);
    void log_ctxt_refused();
    void log_trq_error(unsigned function, uint64_t address);
    void log_dsc_error(uint32_t sts_bit, bool c2h, unsigned qid, uint16_t cidx);

    // Contexts (qdma_contexts.cpp).
    void context_command(uint32_t cmd);
    Words* find(qdma_csr::CtxtSel sel, unsigned id);
    Words& context(qdma_csr::CtxtSel sel, unsigned id);
    uint32_t ring_entries(unsigned index) const;  // GLBL_RNG_SZ[index]

    // Engines (qdma_engines.cpp) and interrupts (qdma_interrupts.cpp); m_mutex held.
    size_t step_locked();
    bool advance(bool c2h, unsigned qid);
    bool late(Queue& q);                  // late_engine: true while the pending descriptor waits
    void finish_late(bool c2h, unsigned qid);  // a write in flight lands (before an invalidation)
    bool move_c2h_packet(unsigned qid, Queue& q, const RingState& ring, Words& hw);
    bool move_descriptor(bool c2h, bool is_mm, unsigned qid, Queue& q, const RingState& ring, Words& hw);
    bool take_fault(Queue& q, QdmaFault fault);
    void stop_queue(bool c2h, unsigned qid, unsigned err_bit, uint32_t sts_bit);
    void write_ring_status(bool c2h, unsigned qid, unsigned err);
    void write_cmpt_status(unsigned qid, unsigned err);
    // A completion ring error: the context invalidated with `err`, C2H_ERR_STAT `c2h_err_bit`
    // and GLBL_ERR_STAT.ERR_C2H_ST set, a status descriptor where en_stat_desc.
    void cmpt_error(unsigned qid, CmptContext& cmpt, unsigned err, uint32_t c2h_err_bit);
    void ring_interrupt(bool c2h, unsigned qid);
    void cmpt_interrupt(unsigned qid);
    void aggregate(unsigned ring, unsigned qid, bool c2h, uint64_t stat_desc);
    void interrupt_cidx(uint32_t value);
    void post_completion(unsigned qid, Queue& q, uint64_t length, bool descriptor_error);
    // Lies (qdma_engines.cpp).
    void deliver(Queue& q, bool card, uint64_t address, const uint8_t* data, uint64_t n);
    void raw_write(bool card, uint64_t address, const uint8_t* data, uint64_t n);
    void end_transfer(Queue& q);
    void land_late(Queue& q);

    // Thread (qdma_model.cpp).
    void engine_thread();
    void notify() { cv.notify_all(); }

    SimDevice& device;
    QdmaConfig config;
    std::shared_ptr<RegisterFileBlock> identification;

    std::map<uint64_t, uint32_t> plain;  // read/write registers with no behaviour
    uint32_t glbl_err_stat = 0, dsc_err_sts = 0, dsc_err_log0 = 0, dsc_err_log1 = 0;
    uint32_t trq_err_sts = 0, trq_err_log = 0, c2h_err_stat = 0, h2c_err_stat = 0;
    Words ind_data{}, ind_mask{};
    uint32_t ind_cmd = 0;
    bool ind_cmd_stuck = false;  // ignores_stop: an invalidation never completes (busy reads 1)
    uint32_t h2c_mm_ctl = 0, c2h_mm_ctl = 0, h2c_mm_count = 0, c2h_mm_count = 0;
    std::map<uint32_t, Words> contexts;          // by sel << 16 | id
    std::map<uint64_t, uint32_t> doorbells;      // last value written, by offset
    std::map<unsigned, Queue> h2c, c2h;          // by physical queue
    std::map<unsigned, std::deque<std::vector<uint8_t>>> loopback;  // C2H stream input by queue
    std::map<unsigned, uint64_t> loopback_bytes;
    // A memory-mapped descriptor's data on its way through the model, kept between descriptors
    // (up to 256 MiB each: a fresh zeroed buffer each time cost page faults on every one).
    std::vector<uint8_t> mm_scratch;
    CardMemory card_memory;
    streams::Lie lie;
    uint64_t lie_transfers = 0;
    UserIrqLie user_irq_lie = UserIrqLie::None;  // test-only: the user interrupts lie
};

}  // namespace sim::qdma_impl
