// Inspection of a QDMA function (PG302, EQDMA 5.0), as dma_ip_drivers' dma-ctl gives it: a
// queue's contexts read through the indirect context registers and decoded field by field by
// PG302's names, the global CSRs by name, and the error status registers with the meaning of
// each set bit. Only reads, except the QDMA_IND_CTXT_CMD of each read and the decoy written to
// QDMA_IND_CTXT_DATA before it.
//
//   auto contexts = PDT_TRY(qdma::read_queue_contexts(function, 3, qdma::QueueDirection::H2C, false));
//   for (const qdma::QueueContext& c : contexts) ... c.selector, c.fields[i].name ...
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "qdma/qdma_function.hpp"

namespace qdma {

// One field of a context structure as PG302's table names it: bits [msb:lsb] of the structure,
// its raw bits (an address field holds the address without its low bits, as stored).
struct ContextField {
    const char* name = "";
    unsigned msb = 0, lsb = 0;
    uint64_t value = 0;
};

// One context of a queue (or interrupt ring, or function): its selector (PG302 Context
// Programming, QDMA_IND_CTXT_CMD.sel), the eight QDMA_IND_CTXT_DATA words, the fields decoded.
struct QueueContext {
    uint32_t sel = 0;
    std::string selector;  // QDMA_CTXT_SELC_DEC_SW_H2C ...
    std::array<uint32_t, 8> words{};
    std::vector<ContextField> fields;
};
// "[47:44]", or "[32]" for one bit: a field's bits as PG302's tables print them.
std::string bit_range(unsigned msb, unsigned lsb);

QueueContext decode_context(uint32_t sel, const std::array<uint32_t, 8>& words);

// The selectors of a queue's contexts: its direction's software, hardware and credit contexts;
// a C2H stream queue's completion (QDMA_CTXT_SELC_WRB) and prefetch contexts after them.
std::vector<uint32_t> queue_selectors(QueueDirection direction, bool c2h_stream);

// Reads one context (QDMA_IND_CTXT_CMD op QDMA_CTXT_RD). QDMA_IND_CTXT_DATA holds `decoy` before
// the command, so a read that leaves the data registers as they were returns the decoy.
pdt::Result<QueueContext> read_context(Function& function, uint32_t hw_qid, uint32_t sel,
                                       const std::array<uint32_t, 8>& decoy);
// The contexts of the function's queue `qid` (queue_selectors), each read over a decoy.
pdt::Result<std::vector<QueueContext>> read_queue_contexts(Function& function, uint32_t qid,
                                                           QueueDirection direction, bool c2h_stream);

// The Interrupt Context (QDMA_CTXT_SELC_INT_COAL) of interrupt aggregation ring `ring_index`.
pdt::Result<QueueContext> read_interrupt_context(Function& function, unsigned ring_index);

// Field by field, where `read` differs from what was written: one line a field, e.g.
// "QDMA_CTXT_SELC_DEC_SW_H2C rngsz_idx [47:44]: set-up wrote 0x0, read 0x5".
std::vector<std::string> field_differences(const QueueContext& written, const QueueContext& read);

// A started queue's contexts read back against what its set-up wrote (Queue::written_contexts):
// each read over the complement of the words written, so that a read that does not land
// differs in every bit; then field by field.
class Queue;
struct SetUpCheck {
    std::vector<QueueContext> written, read;  // in set-up order
    size_t fields_compared = 0;
    std::vector<std::string> differences;  // field_differences of each
};
pdt::Result<SetUpCheck> check_set_up(Function& function, const Queue& queue);

// The queues of the function whose software context has qen set (PG302: an enabled queue).
struct ListedQueue {
    uint32_t qid = 0, hw_qid = 0;
    QueueDirection direction = QueueDirection::H2C;
    bool is_mm = false;
    unsigned rngsz_idx = 0;
    uint64_t dsc_base = 0;
};
pdt::Result<std::vector<ListedQueue>> list_enabled_queues(Function& function);

// A global register by PG302's name and its value now.
struct RegisterValue {
    std::string name;
    uint64_t offset = 0;
    uint32_t value = 0;
};
std::vector<RegisterValue> read_global_registers(const Function& function);

// An error status register (PG302 "Errors": the central QDMA_GLBL_ERR_STAT and the leaf
// registers it points to) or a log register beside one: the fields set (a status register) or
// every field (a log), with what each means.
struct FieldMeaning {
    const char* name = "";
    unsigned msb = 0, lsb = 0;
    const char* meaning = "";
    uint32_t value = 0;
};
struct ErrorRegister {
    std::string name;
    uint64_t offset = 0;
    uint32_t value = 0;
    bool log = false;                  // a log register: every field listed
    std::vector<FieldMeaning> fields;  // status: the fields set; log: all
    uint32_t unnamed_bits = 0;         // set bits no field names (reserved)
};
std::vector<ErrorRegister> read_error_status(const Function& function);

}  // namespace qdma
