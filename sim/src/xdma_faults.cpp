// Fault names and the test-only PDT_SIM_FAULT syntax (xdma_model.hpp).
#include <cerrno>

#include "base/spellings.hpp"
#include "model_support.hpp"
#include "sim/xdma_model.hpp"

namespace sim {

namespace {

// Each fault's name, one table for both ways (base/spellings.hpp), in declaration order.
constexpr pdt::Spelling<XdmaFault> kXdmaFaultNames[] = {
    {XdmaFault::EngineStall, "engine_stall"},
    {XdmaFault::EngineHang, "engine_hang"},
    {XdmaFault::DescriptorReadError, "descriptor_read_error"},
    {XdmaFault::BadMagic, "bad_magic"},
    {XdmaFault::DataBitFlip, "data_bit_flip"},
    {XdmaFault::DropPacket, "drop_packet"},
    {XdmaFault::DuplicatePacket, "duplicate_packet"},
    {XdmaFault::ReorderPacket, "reorder_packet"},
    {XdmaFault::ShortC2hLength, "short_c2h_length"},
    {XdmaFault::OverrunOneByte, "overrun_one_byte"},
};
constexpr pdt::Spelling<QdmaFault> kQdmaFaultNames[] = {
    {QdmaFault::DescriptorError, "qdma_descriptor_error"},
    {QdmaFault::CompletionError, "qdma_completion_error"},
    {QdmaFault::QueueStall, "qdma_queue_stall"},
};
constexpr pdt::Spelling<UserIrqLie> kUserIrqLieNames[] = {
    {UserIrqLie::Drops, "user_irq_drops"},
    {UserIrqLie::Doubles, "user_irq_doubles"},
    {UserIrqLie::IgnoresMask, "user_irq_ignores_mask"},
};

// The fault of `table` named `name`; nullopt when none is.
template <typename Fault, size_t N>
std::optional<Fault> fault_named(const std::string& name, const pdt::Spelling<Fault> (&table)[N]) {
    for (const pdt::Spelling<Fault>& entry : table)
        if (name == entry.name)
            return entry.value;
    return std::nullopt;
}

// The faults of `table`, in its order.
template <typename Fault, size_t N>
std::vector<Fault> faults_of(const pdt::Spelling<Fault> (&table)[N]) {
    std::vector<Fault> faults;
    for (const pdt::Spelling<Fault>& entry : table)
        faults.push_back(entry.value);
    return faults;
}

}  // namespace

const char* fault_name(XdmaFault fault) { return pdt::spelling(fault, kXdmaFaultNames); }

std::vector<XdmaFault> all_faults() { return faults_of(kXdmaFaultNames); }

std::optional<XdmaFault> parse_fault_name(const std::string& name) { return fault_named(name, kXdmaFaultNames); }

const char* fault_name(QdmaFault fault) { return pdt::spelling(fault, kQdmaFaultNames); }

std::vector<QdmaFault> all_qdma_faults() { return faults_of(kQdmaFaultNames); }

namespace {

pdt::Error bad_spec(const std::string& item, const std::string& why) {
    std::string names;
    for (XdmaFault fault : all_faults())
        names += (names.empty() ? "" : ", ") + std::string(fault_name(fault));
    for (QdmaFault fault : all_qdma_faults())
        names += ", " + std::string(fault_name(fault));
    for (CmacModel::Fault fault :
         {CmacModel::Fault::NeverAligns, CmacModel::Fault::FcsErrors, CmacModel::Fault::LyingStatistics})
        names += ", " + std::string(cmac_fault_name(fault));
    for (const pdt::Spelling<UserIrqLie>& lie : kUserIrqLieNames)
        names += ", " + std::string(lie.name);
    return pdt::usage_error(std::string("parse ") + kFaultEnvironmentVariable, item,
                            why + " (syntax <name>[@<H2C|C2H><channel or QDMA queue>]; names: " + names +
                                ", ignores_stop, qdma_stale_context_read, qdma_context_read_flips, late_engine=MS, or one lie: moves_nothing, stale_after=N, completes_early)");
}

pdt::Result<FaultInjection> parse_one(const std::string& item) {
    const size_t at = item.find('@');
    const auto fault = parse_fault_name(item.substr(0, at));
    if (!fault)
        return bad_spec(item, "unknown fault");
    FaultInjection injection{*fault, *fault == XdmaFault::ShortC2hLength ? XdmaDirection::C2H : XdmaDirection::H2C, 0};
    if (at == std::string::npos)
        return injection;
    const std::string where = item.substr(at + 1);
    if (where.size() != 4 || (where.compare(0, 3, "H2C") != 0 && where.compare(0, 3, "C2H") != 0) ||
        where[3] < '0' || where[3] > '3')
        return bad_spec(item, "bad channel '" + where + "'");
    injection.direction = where[0] == 'H' ? XdmaDirection::H2C : XdmaDirection::C2H;
    injection.channel = static_cast<unsigned>(where[3] - '0');
    return injection;
}

// A QDMA fault: <name>[@<H2C|C2H><queue>], the queue decimal 0..4095.
pdt::Result<QdmaFaultInjection> parse_qdma_one(const std::string& item, QdmaFault fault) {
    const size_t at = item.find('@');
    QdmaFaultInjection injection{fault, fault == QdmaFault::CompletionError ? XdmaDirection::C2H : XdmaDirection::H2C, 0};
    if (at == std::string::npos)
        return injection;
    const std::string where = item.substr(at + 1);
    const std::string digits = where.size() > 3 ? where.substr(3) : "";
    if ((where.compare(0, 3, "H2C") != 0 && where.compare(0, 3, "C2H") != 0) || digits.empty() || digits.size() > 4 ||
        digits.find_first_not_of("0123456789") != std::string::npos || std::stoul(digits) > 4095)
        return bad_spec(item, "bad queue '" + where + "'");
    injection.direction = where[0] == 'H' ? XdmaDirection::H2C : XdmaDirection::C2H;
    injection.qid = static_cast<unsigned>(std::stoul(digits));
    return injection;
}

}  // namespace

pdt::Result<FaultPlan> parse_fault_plan(const std::string& text) {
    FaultPlan plan;
    for (const std::string& item : model_support::comma_items(text)) {
        if (item.empty()) {
        } else if (item.compare(0, 12, "late_engine=") == 0) {
            const std::string ms = item.substr(12);
            if (ms.empty() || ms.size() > 6 || ms.find_first_not_of("0123456789") != std::string::npos)
                return bad_spec(item, "late_engine=MS needs 0..999999 milliseconds");
            plan.late_engine = std::chrono::milliseconds(std::stoul(ms));
        } else if (item == "ignores_stop") {
            plan.ignores_stop = true;
        } else if (const auto user_irq = fault_named(item, kUserIrqLieNames)) {
            plan.user_irq_lie = *user_irq;
        } else if (item == "qdma_stale_context_read" || item == "qdma_context_read_flips") {
            plan.qdma_context_read_lie =
                item == "qdma_stale_context_read" ? QdmaContextReadLie::Stale : QdmaContextReadLie::FlipsBit44;
        } else if (streams::is_lie(item)) {
            if (plan.lie)
                return bad_spec(item, "a second lie (one of moves_nothing, stale_after=N, completes_early at most)");
            plan.lie = PDT_TRY(streams::parse_lie(kFaultEnvironmentVariable, item));
        } else if (const auto cmac = parse_cmac_fault_name(item)) {
            if (plan.cmac_fault != CmacModel::Fault::None)
                return bad_spec(item, "a second CMAC fault (one of the cmac_ faults at most)");
            plan.cmac_fault = *cmac;
        } else if (const auto qdma = fault_named(item.substr(0, item.find('@')), kQdmaFaultNames)) {
            plan.qdma_injections.push_back(PDT_TRY(parse_qdma_one(item, *qdma)));
        } else {
            plan.injections.push_back(PDT_TRY(parse_one(item)));
        }
    }
    return plan;
}

pdt::Result<std::vector<FaultInjection>> parse_fault_injections(const std::string& text) {
    return PDT_TRY(parse_fault_plan(text)).injections;
}

}  // namespace sim
