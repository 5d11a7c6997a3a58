// The error status registers (PG302 "Errors": the central error aggregator QDMA_GLBL_ERR_STAT,
// whose bits point at the leaf aggregators' status registers, each write-1-to-clear) and the
// log registers beside them. Field positions are EQDMA 5.0's (checked against AMD's register
// headers, facts only); the meanings are ours, from PG302's descriptions.
#include "qdma/qdma_inspect.hpp"
#include "qdma/qdma_registers.hpp"

namespace qdma {

namespace {

struct ErrorField {
    const char* name;
    unsigned msb, lsb;
    const char* meaning;
};

struct ErrorTable {
    const char* name;
    uint64_t offset;
    bool log;
    std::vector<ErrorField> fields;
};

const ErrorTable kErrorTables[] = {
    {"QDMA_GLBL_ERR_STAT", QDMA_GLBL_ERR_STAT, false,
     {{"ERR_RAM_SBE", 0, 0, "a single-bit error was corrected in one of the IP's RAMs"},
      {"ERR_RAM_DBE", 1, 1, "an uncorrectable double-bit error in one of the IP's RAMs"},
      {"ERR_DSC", 2, 2, "the descriptor engine logged an error: see QDMA_GLBL_DSC_ERR_STS"},
      {"ERR_TRQ", 3, 3, "a register or queue-space access was refused: see QDMA_GLBL_TRQ_ERR_STS"},
      {"ERR_H2C_MM_0", 4, 4, "H2C memory-mapped engine 0 reported an error"},
      {"ERR_H2C_MM_1", 5, 5, "H2C memory-mapped engine 1 reported an error"},
      {"ERR_C2H_MM_0", 6, 6, "C2H memory-mapped engine 0 reported an error"},
      {"ERR_C2H_MM_1", 7, 7, "C2H memory-mapped engine 1 reported an error"},
      {"ERR_C2H_ST", 8, 8, "the C2H stream engine logged an error: see QDMA_C2H_ERR_STAT, QDMA_C2H_FATAL_ERR_STAT"},
      {"IND_CTXT_CMD_ERR", 14, 9, "an indirect context command (QDMA_IND_CTXT_CMD) was refused"},
      {"ERR_BDG", 15, 15, "the bridge reported an error"},
      {"ERR_H2C_ST", 16, 16, "the H2C stream engine logged an error: see QDMA_H2C_ERR_STAT"},
      {"ERR_FAB", 17, 17, "the fabric (user logic) side reported an error"}}},
    {"QDMA_GLBL_DSC_ERR_STS", QDMA_GLBL_DSC_ERR_STS, false,
     {{"POISON", 1, 1, "a descriptor fetch completion was poisoned"},
      {"UR_CA", 2, 2, "a descriptor fetch completed with Unsupported Request or Completer Abort (bad ring address?)"},
      {"BCNT", 3, 3, "a descriptor fetch completion's byte count did not match"},
      {"PARAM", 4, 4, "a context parameter is invalid (ring size, descriptor size, an engine the IP lacks)"},
      {"ADDR", 5, 5, "a descriptor address is invalid"},
      {"TAG", 6, 6, "a descriptor fetch completion had an unexpected tag"},
      {"FLR", 8, 8, "a function level reset arrived during a descriptor fetch"},
      {"TIMEOUT", 9, 9, "a descriptor fetch timed out"},
      {"DAT_POISON", 16, 16, "poisoned data reached the descriptor engine"},
      {"FLR_CANCEL", 19, 19, "a descriptor fetch was canceled by a function level reset"},
      {"DMA", 20, 20, "a DMA engine reported an error on a descriptor"},
      {"DSC", 21, 21, "a descriptor was delivered with its error bit set"},
      {"RQ_CANCEL", 22, 22, "a descriptor fetch request was canceled"},
      {"DBE", 23, 23, "an uncorrectable double-bit error in the descriptor engine's RAM"},
      {"SBE", 24, 24, "a single-bit error was corrected in the descriptor engine's RAM"},
      {"PORT_ID", 25, 25, "a descriptor's port_id does not match its context"}}},
    {"QDMA_GLBL_DSC_ERR_LOG0", QDMA_GLBL_DSC_ERR_LOG0, true,
     {{"valid", 31, 31, "the log holds the first descriptor error"},
      {"sel", 30, 30, "the queue's direction (1 C2H, 0 H2C)"},
      {"qid", 12, 0, "the physical queue"}}},
    {"QDMA_GLBL_DSC_ERR_LOG1", QDMA_GLBL_DSC_ERR_LOG1, true,
     {{"cidx", 27, 12, "the descriptor's index in the ring"},
      {"sub_type", 8, 5, "the error's sub-type"},
      {"err_type", 4, 0, "the QDMA_GLBL_DSC_ERR_STS bit of the error"}}},
    {"QDMA_GLBL_TRQ_ERR_STS", QDMA_GLBL_TRQ_ERR_STS, false,
     {{"CSR_UNMAPPED", 0, 0, "an access to a CSR address that maps to nothing"},
      {"VF_ACCESS_ERR", 1, 1, "a VF accessed a register only a PF may"},
      {"TCP_CSR_TIMEOUT", 3, 3, "a CSR access timed out"},
      {"QSPC_UNMAPPED", 4, 4, "an access to a queue-space address that maps to nothing"},
      {"QID_RANGE", 5, 5, "a queue outside its function's FMAP range (qid_base, qid_max) was addressed"},
      {"TCP_QSPC_TIMEOUT", 7, 7, "a queue-space access timed out"}}},
    {"QDMA_GLBL_TRQ_ERR_LOG", QDMA_GLBL_TRQ_ERR_LOG, true,
     {{"src", 31, 31, "the source of the access"},
      {"target", 30, 27, "the target the access was for"},
      {"func", 26, 17, "the function that made the access"},
      {"address", 16, 0, "the address of the access"}}},
    {"QDMA_C2H_ERR_STAT", QDMA_C2H_ERR_STAT, false,
     {{"MTY_MISMATCH", 0, 0, "a C2H stream packet's empty-byte count (mty) was inconsistent"},
      {"LEN_MISMATCH", 1, 1, "a C2H stream packet's length did not match its completion"},
      {"SH_CMPT_DSC_ERR", 2, 2, "a shared completion ring descriptor error"},
      {"QID_MISMATCH", 3, 3, "a C2H stream packet's qid did not match its completion"},
      {"DESC_RSP_ERR", 4, 4, "a C2H descriptor fetch returned an error"},
      {"ENG_WPL_DATA_PAR_ERR", 6, 6, "a parity error in the write payload data"},
      {"MSI_INT_FAIL", 7, 7, "an interrupt message failed"},
      {"ERR_DESC_CNT", 9, 9, "the descriptor count was wrong"},
      {"PORT_ID_CTXT_MISMATCH", 10, 10, "a packet's port_id does not match the prefetch context"},
      {"WRB_INV_Q_ERR", 12, 12, "a completion arrived for a queue whose completion context is not valid"},
      {"WRB_QFULL_ERR", 13, 13, "the completion ring was full (overflow): a completion was dropped"},
      {"WRB_CIDX_ERR", 14, 14, "a CMPT_CIDX update was past the ring or past the entries written"},
      {"WRB_PRTY_ERR", 15, 15, "a parity error in completion data"},
      {"AVL_RING_DSC_ERR", 16, 16, "an available-ring descriptor error"},
      {"HDR_ECC_UNC_ERR", 17, 17, "an uncorrectable ECC error in a packet header"},
      {"HDR_ECC_COR_ERR", 18, 18, "a corrected ECC error in a packet header"},
      {"HDR_PAR_ERR", 19, 19, "a parity error in a packet header"},
      {"WRB_PORT_ID_ERR", 20, 20, "a completion's port_id does not match its context"}}},
    {"QDMA_C2H_FATAL_ERR_STAT", QDMA_C2H_FATAL_ERR_STAT, false,
     {{"MTY_MISMATCH", 0, 0, "fatal: a packet's empty-byte count (mty) was inconsistent"},
      {"LEN_MISMATCH", 1, 1, "fatal: a packet's length did not match"},
      {"QID_MISMATCH", 3, 3, "fatal: a packet's qid did not match"},
      {"TIMER_FIFO_RAM_RDBE", 7, 4, "a double-bit error reading the timer FIFO RAM"},
      {"PFCH_LL_RAM_RDBE", 8, 8, "a double-bit error reading the prefetch list RAM"},
      {"WRB_CTXT_RAM_RDBE", 9, 9, "a double-bit error reading the completion context RAM"},
      {"PFCH_CTXT_RAM_RDBE", 10, 10, "a double-bit error reading the prefetch context RAM"},
      {"DESC_REQ_FIFO_RAM_RDBE", 11, 11, "a double-bit error reading the descriptor request FIFO RAM"},
      {"INT_CTXT_RAM_RDBE", 12, 12, "a double-bit error reading the interrupt context RAM"},
      {"WRB_COAL_DATA_RAM_RDBE", 14, 14, "a double-bit error reading the completion coalescing RAM"},
      {"CMPT_FIFO_RAM_RDBE", 15, 15, "a double-bit error reading the completion FIFO RAM"},
      {"QID_FIFO_RAM_RDBE", 16, 16, "a double-bit error reading the qid FIFO RAM"},
      {"PLD_FIFO_RAM_RDBE", 17, 17, "a double-bit error reading the payload FIFO RAM"},
      {"WPL_DATA_PAR_ERR", 18, 18, "a parity error in the write payload"},
      {"AVL_RING_FIFO_RAM_RDBE", 19, 19, "a double-bit error reading the available-ring FIFO RAM"},
      {"HDR_ECC_UNC_ERR", 20, 20, "an uncorrectable ECC error in a packet header"}}},
    {"QDMA_H2C_ERR_STAT", QDMA_H2C_ERR_STAT, false,
     {{"ZERO_LEN_DS", 0, 0, "an H2C stream descriptor of length 0"},
      {"SDI_MRKR_REQ_MOP_ERR", 1, 1, "a marker request arrived on a descriptor that does not end a packet (not EOP)"},
      {"NO_DMA_DS", 2, 2, "no DMA descriptor was received"},
      {"DBE", 3, 3, "an uncorrectable double-bit error in H2C stream data"},
      {"SBE", 4, 4, "a single-bit error was corrected in H2C stream data"},
      {"PAR_ERR", 5, 5, "an internal data parity error"}}},
};

uint32_t field_mask(unsigned msb, unsigned lsb) {
    const unsigned width = msb - lsb + 1;
    return (width >= 32 ? ~0u : (1u << width) - 1) << lsb;
}

ErrorRegister read_one(const Function& function, const ErrorTable& table) {
    ErrorRegister reg{table.name, table.offset, function.registers().read32(table.offset), table.log, {}, 0};
    uint32_t named = 0;
    for (const ErrorField& f : table.fields) {
        const uint32_t mask = field_mask(f.msb, f.lsb);
        named |= mask;
        const uint32_t value = (reg.value & mask) >> f.lsb;
        if (table.log || value != 0)
            reg.fields.push_back({f.name, f.msb, f.lsb, f.meaning, value});
    }
    reg.unnamed_bits = reg.value & ~named;
    return reg;
}

}  // namespace

std::vector<ErrorRegister> read_error_status(const Function& function) {
    std::vector<ErrorRegister> registers;
    for (const ErrorTable& table : kErrorTables)
        registers.push_back(read_one(function, table));
    return registers;
}

}  // namespace qdma
