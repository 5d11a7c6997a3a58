// What qdma_ctl prints: contexts field by field, registers by name, error status registers with
// the meaning of each set bit, rings in hex with their PIDX and CIDX.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "qdma/qdma_inspect.hpp"

namespace qdma_ctl {

// "QDMA_CTXT_SELC_DEC_SW_H2C (sel 0x1), physical queue 3: DATA_0..7 0x... ..." then a line a
// field: name, [msb:lsb], value.
void print_context(std::ostream& out, const qdma::QueueContext& context, const std::string& whose);
void print_registers(std::ostream& out, const std::vector<qdma::RegisterValue>& registers);
// Each register's value; for a status register each set field with its meaning (a log register:
// every field); set bits no field names are said so. Returns the status registers with bits set.
unsigned print_error_status(std::ostream& out, const std::vector<qdma::ErrorRegister>& registers);
// "<name>: N entries of B bytes at IOVA 0x..., pidx P, cidx C", then a line an entry (runs of
// all-zero entries as one line; `last_is_status`: the last entry is the ring's status descriptor).
void print_ring(std::ostream& out, const std::string& name, const qdma::RingView& ring, bool last_is_status);

}  // namespace qdma_ctl
