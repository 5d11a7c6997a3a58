#include "ddr_throughput_run.hpp"

#include <iostream>

#include "axi_dma/ddr_throughput.hpp"
#include "base/format.hpp"
#include "base/json_text.hpp"
#include "cli/option_names.hpp"
#include "tool_support/open_designs.hpp"

namespace ddr_throughput {

namespace {

// What one AXI DMA's run came to.
struct Verdict {
    std::string pci_address, design;
    uint64_t bytes_verified = 0;
    std::string failure;  // empty: PASS
    std::optional<double> mm2s_rate, s2mm_rate;  // Mbytes/sec over every pass timed
};

std::optional<double> mean_rate(const axi_dma::Timing& timing) {
    double total = 0;
    for (double seconds : timing.pass_seconds)
        total += seconds;
    if (timing.pass_seconds.empty() || total <= 0)
        return std::nullopt;
    return static_cast<double>(timing.bytes_per_pass * timing.pass_seconds.size()) / total / 1e6;
}

// Why nothing can be verified on this AXI DMA; empty when the verified measurement can run.
std::string unverifiable(const designs::Peripheral& p) {
    std::string why;
    if (!p.axi_dma_memory_window_bar)
        why = "the DDR3 is not reachable from the host";
    if (p.axi_dma_streams != designs::AxiDmaStreams::Loopback)
        why += (why.empty() ? "" : " and ") + std::string("the streams are a constant source and a discarding sink");
    return why.empty() ? why : "0 bytes verified: in this design " + why;
}

// fpga_sio's three measurements (MM2S alone, S2MM alone, both), printed as it prints them.
void run_fpga_sio(const axi_dma::AxiDma& dma, uint64_t size, const Request& request, std::ostream& out,
                  Verdict& verdict) {
    for (const auto& [mm2s, s2mm] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
        auto run = axi_dma::run_fpga_sio(dma, size, mm2s, s2mm, request.timeout);
        if (!run) {
            verdict.failure = cli::name_options(run.error()).message();
            return;
        }
        out << axi_dma::fpga_sio_lines(*run);
        if (mm2s && !s2mm)
            verdict.mm2s_rate = run->mm2s.failed ? std::nullopt : mean_rate(run->mm2s.timing);
    }
}

void run_verified(const axi_dma::AxiDma& dma, vfio::Device& device, const designs::Peripheral& p, uint64_t size,
                  const Request& request, std::ostream& out, Verdict& verdict) {
    const uint64_t unit = 2ull * p.axi_dma_data_width;
    if (size % unit != 0) {
        verdict.failure = pdt::format("--memory_size %llu: the verified measurement takes a multiple of %llu bytes "
                                      "(two halves of whole %u-byte beats)",
                                      static_cast<unsigned long long>(size), static_cast<unsigned long long>(unit),
                                      p.axi_dma_data_width);
        return;
    }
    auto bar = device.bar(*p.axi_dma_memory_window_bar);
    auto memory = bar ? (*bar)->window(0, size) : pdt::Result<vfio::RegisterWindow>(bar.error());
    if (!memory) {
        verdict.failure = memory.error().message();
        return;
    }
    const axi_dma::VerifiedRun run = axi_dma::run_verified(dma, *memory, size, request.timeout);
    out << "Direction MM2S : " << axi_dma::timing_lines("MM2S", run.mm2s) << "Direction S2MM : "
        << axi_dma::timing_lines("S2MM", run.s2mm) << "\n";
    out << pdt::format("%llu of %llu bytes verified (the first 0x%llx bytes of the card memory, each to be written by "
                       "S2MM and read by MM2S once)\n",
                       static_cast<unsigned long long>(run.bytes_verified), static_cast<unsigned long long>(size),
                       static_cast<unsigned long long>(size));
    verdict.bytes_verified = run.bytes_verified;
    verdict.mm2s_rate = mean_rate(run.mm2s);
    verdict.s2mm_rate = mean_rate(run.s2mm);
    if (run.failure)
        verdict.failure = cli::name_options(*run.failure).message();
    else if (run.bytes_verified == 0)
        verdict.failure = "0 bytes verified";
}

Verdict run_axi_dma(const identify::IdentifiedDesign& found, const designs::Peripheral& p, const Request& request,
                    std::ostream& out) {
    Verdict verdict;
    verdict.pci_address = found.identity.address.to_string();
    verdict.design = found.design->text_name();
    const std::string where = verdict.pci_address + " bar " + std::to_string(p.bar) + " offset " + pdt::hex(p.offset);
    auto bar = found.device->bar(p.bar);
    auto registers = bar ? (*bar)->window(p.offset, p.frame_size()) : pdt::Result<vfio::RegisterWindow>(bar.error());
    if (!registers) {
        verdict.failure = registers.error().message();
        return verdict;
    }
    const axi_dma::AxiDma dma(std::move(*registers), {p.axi_dma_length_width, p.axi_dma_data_width}, where);
    const uint64_t size = request.memory_size.value_or(p.axi_dma_memory_size);
    if (size > p.axi_dma_memory_size || size % p.axi_dma_data_width != 0) {
        verdict.failure = pdt::format("--memory_size %llu: the AXI DMA at %s reaches 0x%llx bytes, in %u-byte beats",
                                      static_cast<unsigned long long>(size), where.c_str(),
                                      static_cast<unsigned long long>(p.axi_dma_memory_size), p.axi_dma_data_width);
        return verdict;
    }
    out << "Testing DDR throughput of device " << verdict.pci_address << "\n";
    const std::string why = unverifiable(p);
    if (p.axi_dma_streams == designs::AxiDmaStreams::Loopback && p.axi_dma_memory_window_bar)
        run_verified(dma, *found.device, p, size, request, out, verdict);
    else if (p.axi_dma_streams == designs::AxiDmaStreams::Loopback)
        verdict.failure = why;  // looped back, MM2S or S2MM alone would never complete
    else
        run_fpga_sio(dma, size, request, out, verdict);
    if (verdict.failure.empty() && !why.empty())
        verdict.failure = why;
    return verdict;
}

std::string json_rate(const std::optional<double>& rate) { return rate ? pdt::format("%.6f", *rate) : "null"; }

std::string json_document(const std::vector<Verdict>& verdicts) {
    std::string text = "{\"axi_dmas\": [";
    for (size_t i = 0; i < verdicts.size(); ++i) {
        const Verdict& v = verdicts[i];
        text += (i ? ", " : "") + std::string("{\"pci_address\": ") + pdt::json_quote(v.pci_address) +
                ", \"design\": " + pdt::json_quote(v.design) + ", \"bytes_verified\": " + std::to_string(v.bytes_verified) +
                ", \"mm2s_mbytes_per_sec\": " + json_rate(v.mm2s_rate) + ", \"s2mm_mbytes_per_sec\": " +
                json_rate(v.s2mm_rate) + ", \"verdict\": " + (v.failure.empty() ? "\"PASS\"" : "\"FAIL\"") +
                ", \"reason\": " + (v.failure.empty() ? "null" : pdt::json_quote(v.failure)) + "}";
    }
    return text + "]}\n";
}

}  // namespace

int run(const tool_support::CheckedUsage& checked, const Request& request) {
    std::ostream& out = request.json ? std::cerr : std::cout;
    tool_support::OpenedDesigns opened = tool_support::open_designs(checked.registry, checked.selection, &out, std::cerr);
    std::vector<Verdict> verdicts;
    for (const identify::IdentifiedDesign& found : opened.found.designs)
        for (const designs::Peripheral* p : found.design->peripherals_for_revision(found.identity.revision))
            if (p->type == designs::PeripheralType::AxiDma)
                verdicts.push_back(run_axi_dma(found, *p, request, out));
    if (verdicts.empty() && opened.status == 0) {
        std::cerr << "No AXI DMA designs to measure\n";
        return 1;
    }
    int status = opened.status;
    for (const Verdict& v : verdicts) {
        if (v.failure.empty())
            out << pdt::format("PASS: %llu bytes verified\n", static_cast<unsigned long long>(v.bytes_verified));
        else
            out << "FAIL: " << v.failure << "\n";
        status = std::max(status, v.failure.empty() ? 0 : 1);
    }
    if (request.json)
        std::cout << json_document(verdicts);
    return status;
}

}  // namespace ddr_throughput
