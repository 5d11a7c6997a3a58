// What a DMA tool prints when an XDMA engine fails (a DMA error, or no completion within the
// transfer timeout): the engine's registers decoded with PG195's names and the device's AER
// status decoded as lspci prints it, so that a report from the field can be read without a
// second run. Once per engine per process (a later failure of the same engine refers back).
//
//   DMA failure on 0000:15:00.0 H2C 0: <what>
//   XDMA registers of 0000:15:00.0 H2C 0:
//     H2C Channel 0 Status (0x0040) = 0x00000001: busy+ descriptor_stopped- ...
//   AER status of 0000:15:00.0:
//     Capabilities: [100 v2] Advanced Error Reporting
//       UESta: DLP- SDES- TLP- FCP- CmpltTO- ...
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "dma_bridge/xdma_register_dump.hpp"

namespace stream_tools {

// The report's lines (registers and AER read from report.device when it is set).
std::vector<std::string> failure_report_lines(const xdma::FailureReport& report);
// "AER status of <bdf>:" and the decoded AER capability, or why there is none.
std::vector<std::string> aer_status_lines(vfio::Device& device);

// Installs the process's observer: reports go to out (stdout; stderr with --json, so that
// stdout keeps only JSON Lines).
void report_dma_failures(std::FILE* out);

}  // namespace stream_tools
