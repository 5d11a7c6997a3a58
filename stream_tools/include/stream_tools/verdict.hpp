// Honest verdicts of test_dma_bridge and test_dma_descriptor_credits: what each test verified
// on each channel pair of each design, printed as totals (text and JSON Lines), and Overall
// PASS only when every test verified data and none failed. Nothing tested is a FAIL with the
// reason.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "streams/stream_device.hpp"

namespace stream_tools {

// What one test verified on one channel pair of one design (or why it could not run).
struct ChannelResult {
    std::string device, design, test;
    std::optional<unsigned> h2c, c2h;
    uint64_t bytes_verified = 0;
    std::optional<std::string> failure;  // nullopt: passed
    streams::EngineChoice engines;       // the XDMA engine modes it ran with (empty: none chosen)
    bool queues = false;                 // h2c / c2h are QDMA queues, not XDMA channels
};

// "<bdf> <design> <test>[ H2C channel h C2H channel c]: <n> bytes verified" or ": FAIL: <why>";
// QDMA queues: " H2C queue h C2H queue c" (JSON "h2c_queue", "c2h_queue").
std::string describe(const ChannelResult& result);
// {"type":"total","device":...[,"engine_mode":...,"completion":...],"bytes_verified":n,
//  "result":"PASS"|"FAIL"[,"reason":...]}.
std::string json_total(const ChannelResult& result);

// Where the verdict goes: fpga_sio's text lines, and JSON Lines when json is set (then the
// text lines go to stderr, the JSON Lines to stdout).
struct VerdictOutput {
    std::FILE* text = stdout;
    std::FILE* json = nullptr;
};

// "Verified totals:", a line per result, "<n> bytes verified in <t> tests, <f> failed" and
// Overall PASS|FAIL (a result without verified bytes fails). Returns the exit status.
int report_verdict(const std::vector<ChannelResult>& results, const VerdictOutput& out);
// --json result when no known design could be opened (the causes went to stderr).
inline constexpr const char* kNothingOpenedJson =
    "{\"type\":\"result\",\"overall\":\"FAIL\",\"bytes_verified\":0,\"tests\":0,\"failed\":0}\n";

// Nothing could be tested: the reason, then Overall FAIL. Returns 1.
int report_nothing_tested(const std::string& reason, const VerdictOutput& out);

}  // namespace stream_tools
