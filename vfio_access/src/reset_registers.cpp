#include "vfio_access/reset_registers.hpp"

#include "base/format.hpp"
#include "vfio_access/bar_access.hpp"

namespace vfio {
namespace {

pdt::Result<std::vector<uint64_t>> read_all(const std::vector<Bar*>& bars, const std::vector<ResetRegister>& registers) {
    std::vector<uint64_t> values;
    for (size_t i = 0; i < registers.size(); ++i)
        values.push_back(PDT_TRY(bars[i]->read(registers[i].offset, registers[i].width)));
    return values;
}

}  // namespace

pdt::Result<ResetReport> registers_across_reset(Device& device, const std::vector<ResetRegister>& registers,
                                           const std::vector<unsigned>& widths) {
    std::vector<Bar*> bars;
    for (const ResetRegister& r : registers)
        bars.push_back(PDT_TRY(check_bar_access(device, {r.bar, r.offset, r.width}, widths)));
    ResetReport report;
    report.registers = registers;
    report.after_open = PDT_TRY(read_all(bars, registers));
    for (size_t i = 0; i < registers.size(); ++i)
        if (registers[i].write)
            PDT_CHECK(bars[i]->write(registers[i].offset, registers[i].width, *registers[i].write));
    report.after_write = PDT_TRY(read_all(bars, registers));
    if (auto reset = device.reset(); !reset.ok()) {
        // Put back what was written, last first (a credit mode disabled last resets its credits).
        for (size_t i = registers.size(); i-- > 0;)
            if (registers[i].write)
                (void)bars[i]->write(registers[i].offset, registers[i].width, report.after_open[i]);
        pdt::Error error = std::move(reset).error();
        error.hint += std::string(error.hint.empty() ? "" : "; ") + "the written registers were given back their values";
        return error;
    }
    report.after_reset = PDT_TRY(read_all(bars, registers));
    return report;
}

std::vector<std::string> format_reset_report(const ResetReport& report) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < report.registers.size(); ++i) {
        const ResetRegister& r = report.registers[i];
        const uint64_t open = report.after_open[i], written = report.after_write[i], reset = report.after_reset[i];
        const char* verdict = !r.write                        ? "read only"
                              : written == open               ? "the write did not change it"
                              : reset == open                 ? "reset to its value after open"
                              : reset == written              ? "kept the written value"
                                                              : "neither its value after open nor the written one";
        lines.push_back(r.name + ": after open " + pdt::hex(open) + ", after write " + pdt::hex(written) + ", after reset " +
                        pdt::hex(reset) + " (" + verdict + ")");
    }
    return lines;
}

}  // namespace vfio
