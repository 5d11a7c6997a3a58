// qdma_ctl's printing (qdma_ctl_output.hpp).
#include "qdma_ctl_output.hpp"

#include <algorithm>
#include <ostream>

#include "base/format.hpp"

namespace qdma_ctl {

namespace {

bool all_zero(const uint8_t* bytes, uint32_t n) {
    return std::all_of(bytes, bytes + n, [](uint8_t b) { return b == 0; });
}

std::string hex_bytes(const uint8_t* bytes, uint32_t n) {
    std::string text;
    for (uint32_t i = 0; i < n; ++i)
        text += pdt::format(i == 0 ? "%02x" : " %02x", bytes[i]);
    return text;
}

}  // namespace

void print_context(std::ostream& out, const qdma::QueueContext& context, const std::string& whose) {
    out << context.selector << " (sel " << pdt::hex(context.sel) << "), " << whose << ": QDMA_IND_CTXT_DATA_0..7";
    for (uint32_t word : context.words)
        out << " " << pdt::hex32(word);
    out << "\n";
    for (const qdma::ContextField& f : context.fields)
        out << pdt::format("  %-16s %-10s %s\n", f.name, qdma::bit_range(f.msb, f.lsb).c_str(), pdt::hex(f.value).c_str());
}

void print_registers(std::ostream& out, const std::vector<qdma::RegisterValue>& registers) {
    for (const qdma::RegisterValue& r : registers)
        out << pdt::format("%-28s %-8s %s\n", r.name.c_str(), pdt::hex(r.offset).c_str(), pdt::hex32(r.value).c_str());
}

unsigned print_error_status(std::ostream& out, const std::vector<qdma::ErrorRegister>& registers) {
    unsigned with_errors = 0;
    for (const qdma::ErrorRegister& r : registers) {
        out << pdt::format("%-24s %-6s %s", r.name.c_str(), pdt::hex(r.offset).c_str(), pdt::hex32(r.value).c_str());
        out << (r.log ? " (log)\n" : r.value == 0 ? " (no error)\n" : "\n");
        if (!r.log && r.value != 0)
            ++with_errors;
        for (const qdma::FieldMeaning& f : r.fields)
            out << "  " << f.name << " " << qdma::bit_range(f.msb, f.lsb) << " = " << pdt::hex(f.value) << ": " << f.meaning << "\n";
        if (r.unnamed_bits != 0)
            out << "  bits " << pdt::hex32(r.unnamed_bits) << " set that PG302 names no field of (reserved)\n";
    }
    return with_errors;
}

void print_ring(std::ostream& out, const std::string& name, const qdma::RingView& ring, bool last_is_status) {
    out << name << ": " << ring.entries << " entries of " << ring.entry_bytes << " bytes at IOVA "
        << pdt::hex(ring.iova) << ", pidx " << ring.pidx << ", cidx " << ring.cidx << "\n";
    for (uint32_t i = 0; i < ring.entries;) {
        const uint8_t* entry = ring.bytes + uint64_t{i} * ring.entry_bytes;
        uint32_t end = i + 1;
        if (all_zero(entry, ring.entry_bytes))
            while (end < ring.entries && all_zero(ring.bytes + uint64_t{end} * ring.entry_bytes, ring.entry_bytes))
                ++end;
        const std::string which = end - i > 1 ? pdt::format("[%u..%u]", i, end - 1) : pdt::format("[%u]", i);
        const std::string last = end == ring.entries && last_is_status ? " (the last: status descriptor)" : "";
        out << "  " << which << " "
            << (end - i > 1 ? "all zero" : hex_bytes(entry, ring.entry_bytes)) << last << "\n";
        i = end;
    }
}

}  // namespace qdma_ctl
