// The QDMA Subsystem for PCI Express register map, context structures and descriptor formats
// (PG302 v5.0, EQDMA 5.0 soft IP), named as PG302 names them. Private to qdma/ (the `private`
// block of docs/architecture.md): other modules ask the driver, never this header.
//
// Offsets are from the start of the QDMA BAR (PG302 Register Space: QDMA_CSR at 0x0000,
// QDMA_TRQ_SEL_QUEUE_PF at 0x18000). Context structures are given as bit ranges of the whole
// structure, [msb:lsb] as PG302's tables print them; QDMA_IND_CTXT_DATA_0 holds bits [31:0].
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "qdma/qdma_inspect.hpp"  // ContextField

namespace qdma {

// ---- QDMA_CSR: global registers (PG302 "QDMA_CSR (0x0000)") ------------------------------------
inline constexpr uint64_t CONFIG_BLOCK_ID = 0x000;           // [31:16] 0x1FD3: a QDMA
inline constexpr uint32_t QDMA_IDENTIFIER = 0x1FD3;
inline constexpr uint64_t QDMA_GLBL2_PF_BARLITE_INT = 0x104;
inline constexpr uint64_t QDMA_GLBL2_CHANNEL_MDMA = 0x118;   // C2H_ST [17], H2C_ST [16], C2H_ENG [11:8], H2C_ENG [3:0]
inline constexpr uint64_t QDMA_GLBL2_CHANNEL_QDMA_CAP = 0x120;  // MULTQ_MAX [11:0]
inline constexpr uint64_t QDMA_GLBL2_MISC_CAP = 0x134;
// GLBL_RNG_SZ_1..16 (0x204 + 4n): the 16 descriptor ring sizes a queue's rngsz_idx selects
// (ring_size [15:0], entries including the status descriptor).
inline constexpr uint64_t QDMA_GLBL_RNG_SZ_1 = 0x204;
inline constexpr unsigned kRingSizeCount = 16;
inline constexpr uint64_t QDMA_GLBL_ERR_STAT = 0x248;        // W1C
inline constexpr uint64_t QDMA_GLBL_ERR_MASK = 0x24C;
inline constexpr uint64_t QDMA_GLBL_DSC_CFG = 0x250;         // maxfetch [5:3], wb_acc_int [2:0]
inline constexpr uint64_t QDMA_GLBL_DSC_ERR_STS = 0x254;     // W1C
inline constexpr uint64_t QDMA_GLBL_DSC_ERR_MSK = 0x258;
inline constexpr uint64_t QDMA_GLBL_DSC_ERR_LOG0 = 0x25C;    // valid [31], qid [12:0]
inline constexpr uint64_t QDMA_GLBL_DSC_ERR_LOG1 = 0x260;    // cidx [27:12], sub_type [8:5], err_type [4:0]
inline constexpr uint64_t QDMA_GLBL_TRQ_ERR_STS = 0x264;     // W1C
inline constexpr uint64_t QDMA_GLBL_TRQ_ERR_MSK = 0x268;
inline constexpr uint64_t QDMA_GLBL_TRQ_ERR_LOG = 0x26C;     // src [31], target [30:27], func [26:17], address [16:0]
// QDMA_GLBL_ERR_STAT fields.
inline constexpr uint32_t GLBL_ERR_STAT_ERR_RAM_SBE = 1u << 0;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_RAM_DBE = 1u << 1;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_DSC = 1u << 2;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_TRQ = 1u << 3;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_H2C_MM_0 = 1u << 4;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_C2H_MM_0 = 1u << 6;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_C2H_ST = 1u << 8;
inline constexpr uint32_t GLBL_ERR_STAT_IND_CTXT_CMD_ERR_SHIFT = 9;  // [14:9]
inline constexpr uint32_t GLBL_ERR_STAT_IND_CTXT_CMD_ERR_MASK = 0x3Fu << 9;
inline constexpr uint32_t GLBL_ERR_STAT_ERR_H2C_ST = 1u << 16;

// ---- Indirect context access (PG302 "Context Programming") --------------------------------------
inline constexpr uint64_t QDMA_IND_CTXT_DATA_0 = 0x804;  // _0.._7 at 0x804..0x820
inline constexpr uint64_t QDMA_IND_CTXT_MASK_0 = 0x824;  // _0.._7 at 0x824..0x840
inline constexpr uint64_t QDMA_IND_CTXT_CMD = 0x844;     // qid [19:7], op [6:5], sel [4:1], busy [0]
inline constexpr unsigned kContextWords = 8;
inline constexpr uint32_t IND_CTXT_CMD_BUSY = 1u << 0;
inline constexpr unsigned IND_CTXT_CMD_SEL_SHIFT = 1, IND_CTXT_CMD_OP_SHIFT = 5, IND_CTXT_CMD_QID_SHIFT = 7;
inline constexpr uint32_t IND_CTXT_CMD_QID_MAX = 0x1FFF;  // 13 bits

enum class CtxtOp : uint32_t { QDMA_CTXT_CLR = 0, QDMA_CTXT_WR = 1, QDMA_CTXT_RD = 2, QDMA_CTXT_INV = 3 };
enum class CtxtSel : uint32_t {
    QDMA_CTXT_SELC_DEC_SW_C2H = 0x0,
    QDMA_CTXT_SELC_DEC_SW_H2C = 0x1,
    QDMA_CTXT_SELC_DEC_HW_C2H = 0x2,
    QDMA_CTXT_SELC_DEC_HW_H2C = 0x3,
    QDMA_CTXT_SELC_DEC_CR_C2H = 0x4,
    QDMA_CTXT_SELC_DEC_CR_H2C = 0x5,
    QDMA_CTXT_SELC_WRB = 0x6,  // completion (CMPT) context
    QDMA_CTXT_SELC_PFTCH = 0x7,
    QDMA_CTXT_SELC_INT_COAL = 0x8,
    QDMA_CTXT_SELC_TIMER = 0xB,
    QDMA_CTXT_SELC_FMAP = 0xC,
};
const char* to_string(CtxtOp op);
const char* to_string(CtxtSel sel);

inline constexpr uint32_t ind_ctxt_cmd(uint32_t qid, CtxtOp op, CtxtSel sel) {
    return (qid & IND_CTXT_CMD_QID_MAX) << IND_CTXT_CMD_QID_SHIFT | static_cast<uint32_t>(op) << IND_CTXT_CMD_OP_SHIFT |
           static_cast<uint32_t>(sel) << IND_CTXT_CMD_SEL_SHIFT;
}

// ---- C2H stream and MM engine registers -----------------------------------------------------------
inline constexpr uint64_t QDMA_C2H_TIMER_CNT = 0xA00;  // 16 registers
inline constexpr uint64_t QDMA_C2H_CNT_TH = 0xA40;     // 16 registers
inline constexpr uint64_t QDMA_C2H_BUF_SZ = 0xAB0;     // 16 registers: the C2H buffer sizes bufsz_idx selects
inline constexpr uint64_t QDMA_C2H_ERR_STAT = 0xAF0;
inline constexpr uint64_t QDMA_C2H_ERR_MASK = 0xAF4;
inline constexpr uint64_t QDMA_C2H_FATAL_ERR_STAT = 0xAF8;
inline constexpr uint64_t QDMA_C2H_FATAL_ERR_MASK = 0xAFC;
inline constexpr uint64_t QDMA_GLBL_ERR_INT = 0xB04;
inline constexpr uint64_t QDMA_H2C_ERR_STAT = 0xE00;
inline constexpr uint64_t QDMA_H2C_ERR_MASK = 0xE04;
inline constexpr uint64_t QDMA_C2H_MM_CTL = 0x1004;  // C2H MM channel 0 control: run [0]
inline constexpr uint64_t QDMA_H2C_MM_CTL = 0x1204;  // H2C MM channel 0 control: run [0]
inline constexpr uint32_t MM_CTL_RUN = 1u << 0;

// ---- QDMA_TRQ_SEL_QUEUE_PF: the direct-mapped queue space (PG302 QDMA_DMAP_SEL_*[2048]) ---------
inline constexpr uint64_t QDMA_TRQ_SEL_QUEUE_PF = 0x18000;
inline constexpr uint64_t kQueueStride = 0x10;
inline constexpr uint64_t QDMA_DMAP_SEL_INT_CIDX = 0x0;     // + qid * 0x10
inline constexpr uint64_t QDMA_DMAP_SEL_H2C_DSC_PIDX = 0x4;  // h2c_pidx [15:0], irq_arm [16]
inline constexpr uint64_t QDMA_DMAP_SEL_C2H_DSC_PIDX = 0x8;  // c2h_pidx [15:0], irq_arm [16]
inline constexpr uint64_t QDMA_DMAP_SEL_CMPT_CIDX = 0xC;
inline constexpr uint32_t DSC_PIDX_IRQ_ARM = 1u << 16;
inline constexpr uint64_t queue_register(uint32_t qid, uint64_t reg) { return QDMA_TRQ_SEL_QUEUE_PF + qid * kQueueStride + reg; }
// QDMA_DMAP_SEL_CMPT_CIDX: wrb_cidx [15:0], c2h_count_threshhold [19:16], c2h_timer_cnt_index
// [23:20], trigger_mode [26:24], en_sts_desc_wrb [27], irq_en_wrb [28].
enum class TriggerMode : uint32_t { Disabled = 0, Every = 1, UserCount = 2, User = 3, UserTimer = 4, UserTimerCount = 5 };
inline constexpr uint32_t cmpt_cidx(uint32_t wrb_cidx, TriggerMode mode, bool en_sts_desc_wrb, bool irq_en_wrb) {
    return (wrb_cidx & 0xFFFF) | static_cast<uint32_t>(mode) << 24 | uint32_t{en_sts_desc_wrb} << 27 |
           uint32_t{irq_en_wrb} << 28;
}

// ---- Context structures -------------------------------------------------------------------------
using ContextWords = std::array<uint32_t, kContextWords>;
// Bits [lsb + width - 1 : lsb] of a context (width <= 64, may straddle words).
uint64_t get_bits(const ContextWords& words, unsigned lsb, unsigned width);
void set_bits(ContextWords& words, unsigned lsb, unsigned width, uint64_t value);

enum class DscSz : uint32_t { Bytes8 = 0, Bytes16 = 1, Bytes32 = 2, Bytes64 = 3 };

// Software Descriptor Context Structure (0x0 C2H, 0x1 H2C).
struct SoftwareContext {
    uint16_t pidx = 0;        // [15:0]
    bool irq_arm = false;     // [16]
    uint16_t fnc_id = 0;      // [28:17]
    bool qen = false;         // [32]
    bool fcrd_en = false;     // [33]
    bool wbi_chk = false;     // [34]
    bool wbi_intvl_en = false;  // [35]
    bool at = false;          // [36]
    uint8_t fetch_max = 0;    // [40:37]
    uint8_t rngsz_idx = 0;    // [47:44]
    DscSz dsc_sz = DscSz::Bytes8;  // [49:48]
    bool bypass = false;      // [50]
    bool mm_chn = false;      // [51]
    bool wbk_en = false;      // [52]
    bool irq_en = false;      // [53]
    uint8_t port_id = 0;      // [56:54]
    bool irq_no_last = false;  // [57]
    uint8_t err = 0;          // [59:58]
    bool err_wb_sent = false;  // [60]
    bool irq_req = false;     // [61]
    bool mrkr_dis = false;    // [62]
    bool is_mm = false;       // [63]
    uint64_t dsc_base = 0;    // [127:64], 4 KiB aligned
    uint16_t vec = 0;         // [138:128]
    bool int_aggr = false;    // [139]
    ContextWords encode() const;
    static SoftwareContext decode(const ContextWords& words);
};

// Hardware Descriptor Context Structure (0x2 C2H, 0x3 H2C): status only.
struct HardwareContext {
    uint16_t cidx = 0;     // [15:0]
    uint16_t crd_use = 0;  // [31:16]
    bool dsc_pnd = false;  // [40]
    bool idl_stp_b = false;  // [41]
    bool evt_pnd = false;  // [42]
    uint8_t fetch_pnd = 0;  // [46:43]
    static HardwareContext decode(const ContextWords& words);
};

// Credit Descriptor Context Structure (0x4 C2H, 0x5 H2C): credt [15:0].
struct CreditContext {
    uint16_t credt = 0;
    static CreditContext decode(const ContextWords& words);
};

// Completion Context Structure (0x6). The ring base is 64-byte aligned: baddr4_high holds
// address bits [63:6] in [89:32] (baddr4_low [178:175], address bits [5:2], stays 0).
struct CompletionContext {
    bool en_stat_desc = false;  // [0]
    bool en_int = false;        // [1]
    TriggerMode trig_mode = TriggerMode::Disabled;  // [4:2]
    uint16_t fnc_id = 0;        // [16:5]
    uint8_t counter_idx = 0;    // [20:17]
    uint8_t timer_idx = 0;      // [24:21]
    uint8_t int_st = 0;         // [26:25]
    bool color = false;         // [27]
    uint8_t qsize_idx = 0;      // [31:28]
    uint64_t baddr = 0;         // ring base address, bits [63:6] at [89:32]
    uint8_t desc_size = 0;      // [91:90]: 0 8 B, 1 16 B, 2 32 B, 3 64 B
    uint16_t pidx = 0;          // [107:92]
    uint16_t cidx = 0;          // [123:108]
    bool valid = false;         // [124]
    uint8_t err = 0;            // [126:125]
    bool user_trig_pend = false;  // [127]
    bool timer_running = false;  // [128]
    bool full_upd = false;      // [129]
    bool ovf_chk_dis = false;   // [130]
    bool at = false;            // [131]
    uint16_t vec = 0;           // [142:132]
    bool int_aggr = false;      // [143]
    bool dir_c2h = false;       // [146]
    ContextWords encode() const;
    static CompletionContext decode(const ContextWords& words);
};

// C2H Prefetch Context Structure (0x7).
struct PrefetchContext {
    bool bypass = false;     // [0]
    uint8_t bufsz_idx = 0;   // [4:1]
    uint8_t port_id = 0;     // [7:5]
    bool err = false;        // [26]
    bool pfch_en = false;    // [27]
    bool pfch = false;       // [28]
    uint16_t sw_crdt = 0;    // [44:29]
    bool valid = false;      // [45]
    ContextWords encode() const;
    static PrefetchContext decode(const ContextWords& words);
};

// Function Map Context Structure (0xC), indexed by function: qid_base [10:0], qid_max [43:32]
// (the number of queues of the function).
struct FmapContext {
    uint16_t qid_base = 0;
    uint16_t qid_max = 0;
    ContextWords encode() const;
    static FmapContext decode(const ContextWords& words);
};

// Interrupt Context Structure (0x8), indexed by interrupt aggregation ring.
struct InterruptContext {
    bool valid = false;     // [0]
    uint16_t vec = 0;       // [11:1]
    bool int_st = false;    // [13]
    bool color = false;     // [14]
    uint64_t baddr_4k = 0;  // ring base address, bits [63:12] at [66:15]
    uint8_t page_size = 0;  // [69:67]: (n + 1) * 4 KiB
    uint16_t pidx = 0;      // [81:70]
    bool at = false;        // [82]
    uint16_t func = 0;      // [125:114]
    ContextWords encode() const;
    static InterruptContext decode(const ContextWords& words);
};

// The fields of the structure `sel` selects, in the table's order (none for the timer context).
std::vector<ContextField> context_fields(CtxtSel sel, const ContextWords& words);

// ---- Descriptors (PG302 "Descriptors") ----------------------------------------------------------
// AXI Memory Mapped Descriptor for H2C and C2H (32B): src_addr [63:0], lengthInByte [79:64]
// (64K-1 at most), dst_addr [191:128].
struct MmDescriptor {
    uint64_t src_addr = 0;
    uint64_t length = 0;
    uint64_t dst_addr = 0;
    uint64_t reserved = 0;
};
static_assert(sizeof(MmDescriptor) == 32);
inline constexpr uint64_t kMmMaxLength = 0xFFFF;
inline MmDescriptor mm_descriptor(uint64_t src, uint64_t dst, uint32_t length) { return {src, length & 0xFFFF, dst, 0}; }

// H2C Stream Descriptor (16B): metadata [31:0], len [47:32] (a whole packet, 64K-1 at most),
// addr [127:64].
struct H2cStreamDescriptor {
    uint32_t metadata = 0;
    uint16_t len = 0;
    uint16_t reserved = 0;
    uint64_t addr = 0;
};
static_assert(sizeof(H2cStreamDescriptor) == 16);
inline constexpr uint64_t kH2cStreamMaxLength = 0xFFFF;

// C2H Stream Descriptor (8B): addr [63:0], a buffer of the queue's C2H_BUF_SZ bytes.
struct C2hStreamDescriptor {
    uint64_t addr = 0;
};
static_assert(sizeof(C2hStreamDescriptor) == 8);

// AXI Memory Mapped / AXI4-Stream H2C Writeback Status Structure, after the last descriptor of
// a ring: err [1:0] (bit 1 descriptor fetch error, bit 0 DMA error), cidx [31:16], pidx [47:32].
struct WritebackStatus {
    uint8_t err = 0;
    uint16_t cidx = 0;
    uint16_t pidx = 0;
    static WritebackStatus decode(uint64_t raw) {
        return {static_cast<uint8_t>(raw & 0x3), static_cast<uint16_t>(raw >> 16), static_cast<uint16_t>(raw >> 32)};
    }
};

// AXI4-Stream Completion Status Structure, at the last entry of the completion ring: pidx
// [15:0], cidx [31:16], color [32], int_state [34:33], error [36:35] (1 bad CIDX update,
// 2 descriptor error, 3 CMPT ring overflow).
struct CompletionStatus {
    uint16_t pidx = 0, cidx = 0;
    bool color = false;
    uint8_t int_state = 0, error = 0;
    static CompletionStatus decode(uint64_t raw) {
        return {static_cast<uint16_t>(raw), static_cast<uint16_t>(raw >> 16), ((raw >> 32) & 1) != 0,
                static_cast<uint8_t>((raw >> 33) & 3), static_cast<uint8_t>((raw >> 35) & 3)};
    }
};

// Completion entry (8 bytes, C2H_COMPLETION_SIZE 00): the user-defined data the C2H user logic
// writes, with the color and error bits at the positions the IP was built with (PG302
// "Completion Entry Structure": configurable). The layout the driver takes is the example
// design's and AMD's drivers': data format [0], color [1], error [2], desc_used [3], the
// packet's length [19:4].
struct CompletionEntry {
    bool color = false, error = false, desc_used = false;
    uint16_t length = 0;
    static CompletionEntry decode(uint64_t raw) {
        return {((raw >> 1) & 1) != 0, ((raw >> 2) & 1) != 0, ((raw >> 3) & 1) != 0, static_cast<uint16_t>(raw >> 4)};
    }
};

}  // namespace qdma
