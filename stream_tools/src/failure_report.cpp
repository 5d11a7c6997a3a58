#include "stream_tools/failure_report.hpp"

#include <mutex>
#include <set>

#include "pcie_tools/backends.hpp"
#include "pcie_tools/decode.hpp"
#include "pcie_tools/config_text.hpp"

namespace stream_tools {
namespace {

// lspci's layout with spaces: a tab after the field name becomes one space, leading tabs two.
std::string untab(const std::string& line) {
    std::string out = "    ";
    size_t i = 0;
    for (; i < line.size() && line[i] == '\t'; ++i)
        out += "  ";
    for (; i < line.size(); ++i)
        out += line[i] == '\t' ? ' ' : line[i];
    return out;
}

}  // namespace

std::vector<std::string> aer_status_lines(vfio::Device& device) {
    const std::string bdf = device.identity().address.to_string();
    std::vector<std::string> lines{"AER status of " + bdf + ":"};
    pcie::VfioConfigSpace space(device);
    auto decoded = pcie::decode_device(space);
    if (!decoded.ok()) {
        lines.push_back("  cannot read config space: " + decoded.error().message());
    } else if (!decoded->aer) {
        lines.push_back("  no Advanced Error Reporting capability in config space");
    } else {
        for (const std::string& line : pcie::format_aer(*decoded->aer, false))
            lines.push_back(untab(line));
        lines[1] = "  " + lines[1].substr(4);  // the capability heading, one level out
    }
    return lines;
}

std::vector<std::string> failure_report_lines(const xdma::FailureReport& report) {
    std::vector<std::string> lines{"DMA failure on " + report.engine + ": " + report.what,
                                   "XDMA registers of " + report.engine + ":"};
    for (const std::string& r : report.registers)
        lines.push_back("  " + r);
    if (report.device)
        for (std::string& line : aer_status_lines(*report.device))
            lines.push_back(std::move(line));
    return lines;
}

void report_dma_failures(std::FILE* out) {
    static std::mutex mutex;
    static std::set<std::string> reported;
    xdma::set_failure_observer([out](const xdma::FailureReport& report) {
        std::lock_guard lock(mutex);
        if (!reported.insert(report.engine).second) {
            std::fprintf(out, "DMA failure on %s: %s (registers as reported above)\n", report.engine.c_str(),
                         report.what.c_str());
        } else {
            std::string text;
            for (const std::string& line : failure_report_lines(report))
                text += line + "\n";
            std::fputs(text.c_str(), out);
        }
        std::fflush(out);
    });
}

}  // namespace stream_tools
