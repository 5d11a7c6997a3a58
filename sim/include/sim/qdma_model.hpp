// A register-level model of the QDMA Subsystem for PCI Express (PG302), the EQDMA 5.0 soft IP
// register map, behind the device seam. It occupies the QDMA CSR frame (0x40000 bytes) at offset
// 0 of the design's QDMA BAR. Offsets and bit layouts come from PG302 (Register Space, Context
// Structures, Descriptor formats); the Xilinx QDMA register headers were read for the facts
// PG302's pages leave to its register reference (field positions), never for their code.
//
// What it implements:
//  - The global CSRs identification reads (read-only: CONFIG_BLOCK_ID, GLBL2_PF_BARLITE_INT,
//    GLBL2_CHANNEL_MDMA, GLBL2_CHANNEL_QDMA_CAP, GLBL2_MISC_CAP) and the programmable ones:
//    GLBL_RNG_SZ_1..16, GLBL_DSC_CFG, C2H_TIMER_CNT / C2H_CNT_TH / C2H_BUF_SZ (16 each), the
//    H2C/C2H MM channel 0 control (run), status and completed-descriptor count, and the error
//    status registers (GLBL_ERR_STAT, GLBL_DSC_ERR_STS/LOG0/LOG1, GLBL_TRQ_ERR_STS/LOG,
//    C2H_ERR_STAT, H2C_ERR_STAT: write 1 to clear) with their mask registers (stored only).
//  - The indirect context interface (IND_CTXT_DATA x8, IND_CTXT_MASK x8, IND_CTXT_CMD) with
//    CLR, WR (data under mask), RD and INV on every selector 0x0..0xC; the command completes at
//    once (busy reads 0). Refused writes leave the context as it was and log an error (below).
//  - The PF queue space (QDMA_TRQ_SEL_QUEUE_PF): per logical queue n of this function,
//    INT_CIDX, H2C_DSC_PIDX, C2H_DSC_PIDX, CMPT_CIDX at 0x18000 + 0x10*n (+0, +4, +8, +0xC). The
//    function's FMAP context maps n to the physical queue qbase + n; n >= qmax is canceled and
//    logged (GLBL_TRQ_ERR_STS.QID_RANGE). Contexts and faults are by physical queue.
//  - Descriptor rings of GLBL_RNG_SZ[rng_sz] entries, the last one the status descriptor (PG302
//    Writeback Status Structure: err [1:0], cidx [31:16], pidx [47:32]) written when the SW
//    context's wbk_en is set: after every descriptor, or with wbi_chk only once the engine has
//    caught up with the PIDX. A PIDX at or past entry N - 1 (N = the ring size) moves nothing
//    until a valid one is written (PG302 gives no error for it; the model does not guess one).
//  - MM queues (is_mm, 32-byte descriptors: src_addr [63:0], length [91:64] 28 bits, dst_addr
//    [191:128]; bits [94:92], which drivers use for dv/sop/eop, are ignored) moving host memory
//    to card memory (H2C) and back (C2H) while the channel's run bit is set. Card memory is the
//    design's qdma memory_base..+memory_size, sparse (or a sparse file: PDT_SIM_CARD_MEMORY_DIR,
//    sim/dma_model.hpp). A descriptor reaching outside it stops the queue with a DMA error.
//  - ST queues (designs with stream engines): 16-byte H2C descriptors (addr [127:64], len
//    [47:32], metadata [31:0]: one packet a descriptor, PG302 internal mode), 8-byte C2H
//    descriptors (buffer address) filled in C2H_BUF_SZ[prefetch ctxt buf_sz_idx] pieces, and
//    the completion ring (CMPT context) with one entry a packet in the example design's
//    format: [0] format (0), [1] color, [2] error, [3] desc_used, [19:4] length; the color
//    starts at the context's color and toggles at each wrap. The CMPT status descriptor (pidx
//    [15:0], cidx [31:16], color [32], int_state [34:33], error [36:35]) sits in the last entry
//    and is written after each entry and each CMPT_CIDX update with entries pending, when
//    en_stat_desc is set and trig_mode is not 0 (every trigger mode acts as "every": a model
//    simplification). A full ring (entries = size - 2) invalidates the context (err 3), drops
//    the completion and logs C2H_ERR_STAT.WRB_QFULL_ERR; a CMPT_CIDX past the ring or past the
//    entries written invalidates it (err 1) and logs C2H_ERR_STAT.WRB_CIDX_ERR, both with
//    GLBL_ERR_STAT.ERR_C2H_ST [8] and a status descriptor carrying the error; a C2H descriptor
//    error posts the completion with its error bit and invalidates the context (err 2).
//    SIMULATED CARD, NOT PG302: behind the ST engines sits the loopback of PG302's example
//    design: each packet sent on H2C stream queue q comes back on C2H stream queue q (same
//    physical queue), waiting in a FIFO until that queue has the C2H buffers it needs.
//  - Error logging on refused context writes (all also set GLBL_ERR_STAT.IND_CTXT_CMD_ERR,
//    bit 9, one bit of the field PG302 names [14:9]):
//      any command (CLR, WR, RD, INV) on a qid past the IP's queues or an FMAP of a function
//      the IP lacks; a SW context write with qen on a queue outside its function's FMAP range
//      (or for a function with no FMAP):
//          GLBL_TRQ_ERR_STS.QID_RANGE [5] + GLBL_ERR_STAT.ERR_TRQ [3] + GLBL_TRQ_ERR_LOG (func
//          [26:17] = this PF, or the context's fnc_id; address [16:0] = 0x844, IND_CTXT_CMD);
//      SW context qen with a zero ring size, a descriptor size that does not fit the queue
//      (MM 32 B, H2C ST 16 B, C2H ST 8 B), an engine the IP lacks (MM or ST) or mm_chn 1;
//      CMPT context valid with a zero ring size; prefetch context valid with a zero buffer size:
//          GLBL_DSC_ERR_STS.PARAM [4] + GLBL_ERR_STAT.ERR_DSC [2] + GLBL_DSC_ERR_LOG0 (valid
//          [31], sel [30] 1 = C2H, qid [12:0]);
//      a reserved selector (0xD..0xF): only IND_CTXT_CMD_ERR.
//    Engine errors stop the queue (SW context err [27:26]: bit 0 DMA error, bit 1 descriptor
//    error, as the status descriptor's err) until the driver clears or rewrites its context:
//      card address outside card memory: GLBL_DSC_ERR_STS.DMA [20]; a descriptor fetch that
//      fails (fault): GLBL_DSC_ERR_STS.UR_CA [2]; both + GLBL_ERR_STAT.ERR_DSC and the LOG0
//      (qid) / LOG1 (cidx [27:12], err_type [4:0] = the status bit number) registers.
//  - Faults and lies (test only, PDT_SIM_FAULT, one parser with the XDMA model's), a lying
//    context read among them (QdmaConfig::context_read_lie).
//  - Asynchronous (engine thread) or stepped, like XdmaModel; DMA only through SimDevice's
//    dma_read/dma_write (the IOMMU), so dma_activity counts the bytes.
//  - Interrupts through SimDevice::raise_msi (the simulated device's MSI vectors stand for the
//    IP's MSI-X table): a descriptor queue with SW context irq_en [W1 21] and irq_arm [W0 16]
//    (set by the PIDX doorbell's irq_en [16]) interrupts where it would write its status (each
//    descriptor, or once caught up with wbi_chk) and disarms; a C2H stream queue's CMPT context
//    with en_int [W0 1] and int_st [W0 26:25] 0 interrupts on a completion entry and sets int_st
//    1 until the next CMPT_CIDX update. Direct (int_aggr 0): the source's vec is the MSI vector.
//    Aggregated (int_aggr 1): its vec names an interrupt aggregation ring (Interrupt Context,
//    sel 0x8: valid [0], vec [11:1], int_st [13], color [14], baddr_4k [66:15], page_size
//    [69:67], pidx [81:70]) that gets an 8-byte entry (stat_desc [36:0], int_type [38] 1 = C2H,
//    qid [62:39], coal_color [63], the color flipping at each wrap) and raises the ring's vec
//    when int_st is 0, then 1 until an INT_CIDX update (ring_idx [23:16], sw_cidx [15:0]),
//    which fires again at once if entries past sw_cidx wait.
//
// What it leaves (gaps): the error interrupt (GLBL_ERR_INT), descriptor bypass (a queue with
// bypass set moves nothing: the simulated card has no bypass logic), credit-based fetch (fcrd_en
// is ignored), writeback intervals (wbi_intvl_en, GLBL_DSC_CFG.wb_acc_int: a writeback after
// every descriptor), PASID/virtio fields, C2H timer and counter trigger modes (treated as "every"), the mailbox and FLR, VFs, MM channel 1, user-logic completions without
// payload, and the debug/statistics registers (read 0).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "designs/design.hpp"
#include "sim/dma_model.hpp"
#include "sim/peripheral_blocks.hpp"
#include "sim/xdma_model.hpp"
#include "streams/lie.hpp"

namespace sim {

// The QDMA CSR space at offset 0 of the QDMA BAR (PG302 Register Space, QDMA_CSR).
namespace qdma_csr {
// QDMA_GLBL1 config block identifier: [31:16] the QDMA identifier 0x1FD3 (PG302 Config Block
// Identifier; the same ID the RTL Version Register carries in [31:16]).
inline constexpr uint64_t CONFIG_BLOCK_ID = 0x000;
inline constexpr uint32_t QDMA_IDENTIFIER = 0x1FD3;
// QDMA_GLBL2_PF_BARLITE_INT: PFn_BAR_MAP in [6n+5:6n], the BARs of PF n that reach the AXI4-Lite
// master (one bit a BAR); a PF with no such BAR reads 0.
inline constexpr uint64_t GLBL2_PF_BARLITE_INT = 0x104;
// QDMA_GLBL2_CHANNEL_MDMA: C2H_ST [17], H2C_ST [16], C2H_ENG [11:8], H2C_ENG [3:0].
inline constexpr uint64_t GLBL2_CHANNEL_MDMA = 0x118;
// QDMA_GLBL2_CHANNEL_QDMA_CAP: MULTQ_MAX [11:0], the queues the IP was built with.
inline constexpr uint64_t GLBL2_CHANNEL_QDMA_CAP = 0x120;
// QDMA_GLBL2_MISC_CAP (named in PG302's revision history, its fields not in the body): device
// type [31:28] (0 soft IP, 1 Versal CPM4, 2 Versal CPM5), Vivado release [27:24], IP type
// [23:20] (soft IP: 0 QDMA 3.1, 1 EQDMA 4.0, 2 EQDMA 5.0), RTL version [19:16] (0 base,
// 1 patch); EQDMA: debug mode [4], descriptor engine mode [3:2] (0 internal and bypass,
// 1 bypass only, 2 internal only), FLR present [1], mailbox enabled [0].
inline constexpr uint64_t GLBL2_MISC_CAP = 0x134;

// Global queue configuration (QDMA_GLBL): GLBL_RNG_SZ_1..16 (ring_size [15:0], entries
// including the status descriptor), GLBL_DSC_CFG (maxfetch [5:3], wb_acc_int [2:0]).
inline constexpr uint64_t GLBL_RNG_SZ_1 = 0x204;
inline constexpr unsigned kRingSizes = 16;
inline constexpr uint64_t GLBL_ERR_STAT = 0x248;
inline constexpr uint64_t GLBL_ERR_MASK = 0x24C;
inline constexpr uint64_t GLBL_DSC_CFG = 0x250;
inline constexpr uint64_t GLBL_DSC_ERR_STS = 0x254;
inline constexpr uint64_t GLBL_DSC_ERR_MSK = 0x258;
inline constexpr uint64_t GLBL_DSC_ERR_LOG0 = 0x25C;
inline constexpr uint64_t GLBL_DSC_ERR_LOG1 = 0x260;
inline constexpr uint64_t GLBL_TRQ_ERR_STS = 0x264;
inline constexpr uint64_t GLBL_TRQ_ERR_MSK = 0x268;
inline constexpr uint64_t GLBL_TRQ_ERR_LOG = 0x26C;
// GLBL_ERR_STAT bits.
inline constexpr uint32_t ERR_DSC = 1u << 2;
inline constexpr uint32_t ERR_TRQ = 1u << 3;
inline constexpr uint32_t ERR_C2H_ST = 1u << 8;
inline constexpr uint32_t IND_CTXT_CMD_ERR = 1u << 9;
// GLBL_DSC_ERR_STS bits.
inline constexpr uint32_t DSC_ERR_UR_CA = 1u << 2;
inline constexpr uint32_t DSC_ERR_PARAM = 1u << 4;
inline constexpr uint32_t DSC_ERR_DMA = 1u << 20;
// GLBL_TRQ_ERR_STS bits; GLBL_TRQ_ERR_LOG: func [26:17], address [16:0].
inline constexpr uint32_t TRQ_ERR_QID_RANGE = 1u << 5;

// Indirect context programming (QDMA_TRQ_SEL_IND).
inline constexpr uint64_t IND_CTXT_DATA = 0x804;  // 8 words
inline constexpr uint64_t IND_CTXT_MASK = 0x824;  // 8 words
inline constexpr uint64_t IND_CTXT_CMD = 0x844;   // qid [19:7], op [6:5], sel [4:1], busy [0]
inline constexpr unsigned kContextWords = 8;
enum class CtxtOp : uint32_t { CLR = 0, WR = 1, RD = 2, INV = 3 };
enum class CtxtSel : uint32_t {
    SW_C2H = 0x0, SW_H2C = 0x1, HW_C2H = 0x2, HW_H2C = 0x3, CR_C2H = 0x4, CR_H2C = 0x5,
    CMPT = 0x6, PFTCH = 0x7, INT_COAL = 0x8, PASID_RAM_LOW = 0x9, PASID_RAM_HIGH = 0xA,
    TIMER = 0xB, FMAP = 0xC,
};
inline constexpr uint32_t ind_ctxt_cmd(CtxtSel sel, CtxtOp op, uint32_t qid) {
    return (qid & 0x1FFFu) << 7 | static_cast<uint32_t>(op) << 5 | static_cast<uint32_t>(sel) << 1;
}

// C2H stream configuration (QDMA_C2H): 16 registers each.
inline constexpr uint64_t C2H_TIMER_CNT = 0xA00;  // [15:0]
inline constexpr uint64_t C2H_CNT_TH = 0xA40;     // [15:0]
inline constexpr uint64_t C2H_BUF_SZ = 0xAB0;     // [31:0] bytes
inline constexpr uint64_t C2H_ERR_STAT = 0xAF0;   // WRB_QFULL_ERR [13], WRB_CIDX_ERR [14]
inline constexpr uint64_t C2H_ERR_MASK = 0xAF4;
inline constexpr uint32_t C2H_ERR_WRB_QFULL = 1u << 13;
inline constexpr uint32_t C2H_ERR_WRB_CIDX = 1u << 14;
inline constexpr uint64_t H2C_ERR_STAT = 0xE00;
inline constexpr uint64_t H2C_ERR_MASK = 0xE04;

// MM engine channel 0 (QDMA_C2H_MM0 / QDMA_H2C_MM0): control run [0], status run [0], count.
inline constexpr uint64_t C2H_MM_CTL = 0x1004;
inline constexpr uint64_t C2H_MM_STATUS = 0x1040;
inline constexpr uint64_t C2H_MM_CMPL_DESC_CNT = 0x1048;
inline constexpr uint64_t H2C_MM_CTL = 0x1204;
inline constexpr uint64_t H2C_MM_STATUS = 0x1240;
inline constexpr uint64_t H2C_MM_CMPL_DESC_CNT = 0x1248;
inline constexpr uint32_t MM_CTL_RUN = 1u << 0;

// QDMA_TRQ_SEL_QUEUE_PF: per logical queue, 0x10 apart.
inline constexpr uint64_t QUEUE_PF = 0x18000;
inline constexpr uint64_t kQueueStride = 0x10;
inline constexpr uint64_t INT_CIDX = 0x0;      // sw_cidx [15:0], ring_idx [23:16]
inline constexpr uint64_t H2C_DSC_PIDX = 0x4;  // pidx [15:0], irq_en [16]
inline constexpr uint64_t C2H_DSC_PIDX = 0x8;  // pidx [15:0], irq_en [16]
// CMPT_CIDX: wrb_cidx [15:0], counter_idx [19:16], timer_idx [23:20], trig_mode [26:24],
// en_sts_desc [27], irq_en [28].
inline constexpr uint64_t CMPT_CIDX = 0xC;

// The register frame software maps for these registers (fpga_sio: 0x40000 bytes at offset 0).
inline constexpr uint64_t kFrameSize = 0x40000;
}  // namespace qdma_csr

// What the simulated IP is: an EQDMA 5.0 soft IP (QDMA 5.0, device type soft, RTL base,
// Vivado release field 2), FLR present, no mailbox, debug mode off, internal and bypass
// descriptor engines; one H2C and one C2H engine of each kind enabled in `caps`; each of its
// caps.physical_functions PFs maps `axi_lite_bar_mask` to the AXI4-Lite master. These registers
// are read-only.
std::shared_ptr<RegisterFileBlock> make_qdma_csr_block(const designs::QdmaSimulation& caps, uint32_t axi_lite_bar_mask);

struct QdmaConfig {
    designs::QdmaSimulation caps;   // PFs, queues (MULTQ_MAX), stream and MM engines
    uint32_t axi_lite_bar_mask = 0;
    unsigned function = 0;          // the PF this simulated device is (FMAP index of its doorbells)
    uint64_t card_memory_base = 0;  // the AXI-MM card memory (design qdma memory_base/size)
    uint64_t card_memory_size = 0;
    bool stepped = false;           // no engine thread: engines advance only in step()
    static constexpr size_t kStepLimit = 100000;  // run_until_idle()'s bound by default
    uint64_t stream_fifo_bytes = 0x40000;  // loopback FIFO a queue: H2C ST stalls beyond it
    // A late engine (PDT_SIM_FAULT late_engine=MS): a queue's next descriptor moves this long
    // after the engine first saw it pending; an invalidation of the queue's software context
    // meanwhile lets that write land first (PG302: a queue is quiet once invalidated).
    std::chrono::milliseconds late_engine{0};
    // An engine that ignores stop (PDT_SIM_FAULT ignores_stop): the invalidation of a queue with
    // a write pending never completes (QDMA_IND_CTXT_CMD busy stays 1), so no stop is proven.
    bool ignores_stop = false;
    // A lying context read (PDT_SIM_FAULT qdma_stale_context_read / qdma_context_read_flips).
    QdmaContextReadLie context_read_lie = QdmaContextReadLie::None;
};

enum class QdmaQueueKind { H2C, C2H };

namespace qdma_impl {
struct Impl;
}

// Instantiated in sim/src/qdma_model.cpp, where its Impl is complete.
extern template class DmaModel<qdma_impl::Impl, QdmaConfig>;

// config(), step(), run_until_idle() (a queue's step: one descriptor or packet), card_read(),
// card_write(), card_memory_resident_bytes(), keep_card_memory(), set_lie(), set_late_engine():
// DmaModel's.
class QdmaModel : public DmaModel<qdma_impl::Impl, QdmaConfig> {
public:
    // Places the CSR frame at offset 0 of `bar` (which must hold kFrameSize bytes), makes
    // `device` own the model and stop its thread first on destruction, hooks device.reset().
    static std::shared_ptr<QdmaModel> attach(SimDevice& device, SimBar& bar, QdmaConfig config);

    // Faults (one-shot, by physical queue). The lie (set_lie) counts transfers: one MM
    // descriptor or one C2H stream packet is one, counted over all queues.
    void inject(QdmaQueueKind kind, unsigned qid, QdmaFault fault);
    size_t faults_pending(QdmaQueueKind kind, unsigned qid) const;
    void set_ignores_stop();  // QdmaConfig::ignores_stop from now on
    void set_context_read_lie(QdmaContextReadLie lie);  // QdmaConfig::context_read_lie from now on
    // Observability: descriptors (MM, H2C ST) or packets (C2H ST) the queue has completed.
    uint64_t processed(QdmaQueueKind kind, unsigned qid) const;
    // Bytes waiting in the loopback FIFO of C2H stream queue `qid`.
    uint64_t loopback_pending_bytes(unsigned qid) const;

    // The user logic's interrupt (PG302 User Interrupt): usr_irq_in_vld with usr_irq_in_vec
    // `vector` and usr_irq_in_fnc this function. In direct interrupt mode the IP sends the
    // function's MSI-X message of that vector and acknowledges (usr_irq_out_ack): one message per
    // request. A vector the function has not enabled fails (usr_irq_out_fail): EINVAL. The IP
    // keeps no user interrupt mask or pending register. SimDevice's request_user_interrupt
    // reaches this.
    pdt::Result<void> request_user_interrupt(unsigned vector);
    void set_user_irq_lie(UserIrqLie lie);  // Drops and Doubles; IgnoresMask: no mask to ignore

private:
    QdmaModel(SimDevice& device, QdmaConfig config) : DmaModel(device, std::move(config)) {}
};

}  // namespace sim
