// probe_xilinx_ip --json (tools/dma_bridge/, its main's alone): one JSON object per design.
#pragma once

#include <string>

#include "dma_bridge/xdma_probe.hpp"

namespace probe_json {

// {"device", "design", "dma_bar", "blocks": [{"offset", "target", "name", "channel", "stream",
// "version", "identifier"}], "msix", "register": {"bar", "offset", "name", "value"},
// "write_tests": [{"channel", "register", "patterns", "mismatches", "original", "restored",
// "pass"}], "registers_tested", "registers_failed"}; a failed probe: {"device", "design", "error"};
// a design without an XDMA bridge: {"device", "design", "not_probed"}.
std::string design_json(const std::string& device, const std::string& design, unsigned dma_bar,
                        const xdma::ProbeOptions& options, const pdt::Result<xdma::ProbeSummary>& summary);
std::string not_probed_json(const std::string& device, const std::string& design, const std::string& why);

}  // namespace probe_json
