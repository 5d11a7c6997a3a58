// The XDMA fault matrix (docs/fault_matrix.md): every fault the XDMA model can inject, on every
// DMA tool, each run a real process on a simulated design with the fault injected through the
// test-only PDT_SIM_FAULT seam. Each run must exit 1 with Overall FAIL, never PASS, and print the
// failure message that names the fault; an engine that stops or errs also prints its registers
// decoded by PG195 name and the device's AER status. The cells marked n/a (a fault of AXI-MM
// channels on a tool that only runs stream designs) must leave the run passing: the fault does
// not apply there, which the table states.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dma_tools.hpp"
#include "sim/xdma_model.hpp"
#include "test_support/run_process.hpp"

namespace {

using namespace std::chrono_literals;

constexpr const char* kMemory = "TEF1001_dma_ddr3";
constexpr const char* kLoopback = "TEF1001_dma_stream_loopback";
constexpr const char* kCrc64 = "TEF1001_dma_stream_crc64";

using dma_tools::kTools;
using dma_tools::Tool;

// What a run shows: the named message (a regular expression), and whether the failure
// report (registers and AER) must be printed.
struct Expect {
    const char* fault;    // PDT_SIM_FAULT value
    const char* design;   // nullptr: n/a, the run must pass
    const char* message;  // regular expression
    bool report = false;
};

const char* const kTimeout = "(timeout: no (H2C|C2H) completion for 1\\.000 secs|Timeout after 1000 ms|"
                             "no transfer completed within the transfer timeout of 1000 ms)";
const char* const kHang = "Timeout waiting to become idle after clearing Run bit.*VFIO_DEVICE_RESET";
const char* const kDescError = "descriptor error reported in .*desc_error\\(unsupported request\\)";
const char* const kMagic = "magic_stopped: a descriptor's magic was not 0xAD4B";
const char* const kBitFlip = "expected 0x[0-9a-f]{8} actual 0x[0-9a-f]{8}, 1 bad words";
const char* const kStreamData = "C2H 1 transfer [0-9]+: data error in buffer [0-9]+ at buffer offset 0x[0-9a-f]+, "
                                "stream offset 0x[0-9a-f]+: .*, 4096 bad words";
const char* const kShortStream = "C2H completion length 16380 EOP 1, expected length 16384 EOP 1";
const char* const kCrcValue = "length 8 EOP 1 CRC64 0x[0-9a-f]{16}, expected length 8 EOP 1 CRC64";

// Per tool, per fault (in sim::all_faults() order).
std::vector<Expect> expectations(const std::string& tool) {
    const bool stream_only = tool != "test_dma_bridge" && tool != "test_dma_descriptor_credits";
    const bool crc = tool == "crc64_stream_latency";
    const char* engine_design = crc ? kCrc64 : stream_only ? kLoopback : kMemory;
    const char* packet_design = crc ? kCrc64 : kLoopback;
    const bool credits = tool == "test_dma_descriptor_credits";
    std::vector<Expect> e{
        {"engine_stall", engine_design, kTimeout, true},
        {"engine_hang", engine_design, kHang, true},
        {"descriptor_read_error", engine_design, kDescError, true},
        {"bad_magic", engine_design, kMagic, true},
        {"data_bit_flip", engine_design,
         crc ? kCrcValue : tool == "test_dma_bridge" ? "changed to 0x[0-9a-f]+, expected 0x[0-9a-f]+ \\(1 bit flipped\\)" : kBitFlip},
        {"drop_packet", packet_design, crc ? kTimeout : credits ? "message 0 byte 0: length 4096 EOP 1, expected length 4092" : kStreamData, crc},
        {"duplicate_packet", packet_design, crc ? kCrcValue : credits ? "message 1 byte 0: length 4092 EOP 1, expected length 4096" : kStreamData},
        {"reorder_packet", packet_design, crc ? kTimeout : credits ? "message 0 byte 0: length 4096 EOP 1, expected length 4092" : kStreamData, crc},
        {"short_c2h_length", packet_design,
         crc ? "length 4 EOP 1 CRC64 0x[0-9a-f]{16}, expected length 8" : credits ? "length 4088 EOP 1, expected length 4092" : kShortStream},
        {"overrun_one_byte", nullptr, ""},
    };
    if (tool == "test_dma_bridge")
        e.back() = {"overrun_one_byte", kMemory, "guard band: card byte 0x[0-9a-f]+ past the guard band after the transfer of 0x1 bytes.*\\(overrun: a host byte past the source\\)"};
    if (credits)
        e.back() = {"overrun_one_byte@C2H0", kMemory, "guard band: host byte 0 after the C2H page 0 changed \\(overrun\\)"};
    return e;
}

std::vector<std::string> args(const std::string& tool, const std::string& design) {
    std::vector<std::string> a{"--sim_design", design, "--transfer_timeout", "1"};
    const auto add = [&](std::initializer_list<const char*> more) { a.insert(a.end(), more.begin(), more.end()); };
    if (tool == "test_dma_bridge")
        add({"--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16", "--min_words", "0x10000",
             "--max_buffer_size", "0x40000", "--transfer_length", "0x30000", "--max_channel_combinations", "1",
             "--dma_bridge_memory_size_bytes", "0x100000"});
    else if (tool == "crc64_stream_latency")
        add({"--samples", "20", "--max_packet_bytes", "0x1000"});
    else if (tool != "test_dma_descriptor_credits")
        add({"--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16", "--duration", "0.5",
             "--report_interval", "0.25"});
    return a;
}

struct Cell {
    std::string tool, fault, design;
    Expect expect;
    test_support::Outcome outcome;
};

// Runs every cell, two processes at a time, each tool with its cell's fault injected
// (PDT_SIM_FAULT) and the arguments `args_of` gives it; the outcome goes into the cell.
void run_cells(std::vector<Cell>& runs, const std::function<std::vector<std::string>(const Cell&)>& args_of) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < runs.size();) {
            Cell& r = runs[i];
            const Tool& tool = *std::find_if(std::begin(kTools), std::end(kTools), [&](const Tool& t) { return r.tool == t.name; });
            test_support::RunOptions options;
            options.environment = {"PDT_SIM_FAULT=" + r.fault};
            options.timeout = 90s;
            options.stdin_from_null = true;
            r.outcome = test_support::run_process(tool.path, args_of(r), options);
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
}

std::string judge(const Cell& r) {
    const std::string& out = r.outcome.output;
    const bool pass = test_support::contains(out, "Overall PASS\n");
    const bool fail = test_support::contains(out, "Overall FAIL\n");
    if (!r.expect.design)
        return r.outcome.exit_code == 0 && pass ? "" : "n/a cell did not pass: exit " + std::to_string(r.outcome.exit_code);
    if (r.outcome.exit_code != 1 || pass || !fail)
        return "exit " + std::to_string(r.outcome.exit_code) + (pass ? " with Overall PASS" : fail ? "" : " without Overall FAIL");
    if (!std::regex_search(out, std::regex(r.expect.message)))
        return std::string("no message matching /") + r.expect.message + "/";
    if (r.expect.report) {
        for (const char* part : {"\nDMA failure on 0000:15:00.0 ", "\nXDMA registers of 0000:15:00.0 ",
                                 " Status (0x", ": busy", "\nAER status of 0000:15:00.0:\n",
                                 "UESta: DLP- SDES- TLP- FCP- CmpltTO-"})
            if (!test_support::contains(out, part))
                return std::string("failure report without '") + part + "'";
    }
    return "";
}

TEST(FaultMatrix, EveryFaultOnEveryDmaTool) {
    std::vector<Cell> runs;
    for (const Tool& tool : kTools) {
        const std::vector<Expect> table = expectations(tool.name);
        ASSERT_EQ(table.size(), sim::all_faults().size()) << "a fault kind without a row";
        for (size_t f = 0; f < table.size(); ++f) {
            EXPECT_EQ(std::string(table[f].fault).substr(0, std::string(table[f].fault).find('@')),
                      sim::fault_name(sim::all_faults()[f]));
            const char* design = table[f].design ? table[f].design
                                 : std::string(tool.name) == "crc64_stream_latency" ? kCrc64
                                                                                   : kLoopback;
            runs.push_back(Cell{tool.name, table[f].fault, design, table[f], {}});
        }
    }
    run_cells(runs, [](const Cell& r) { return args(r.tool, r.design); });
    for (const Cell& r : runs) {
        const std::string problem = judge(r);
        EXPECT_EQ(problem, "") << r.tool << " on " << r.design << " with PDT_SIM_FAULT=" << r.fault << "\n" << r.outcome.output;
    }
}

// The QDMA model's faults (sim::QdmaFault, one shot on physical queue 0) on the tools that run on
// QDMA designs: test_dma_bridge's memory tests on U200_qdma_ram's MM queues, and the stream tools
// and stream_fixed_buffers on the example streaming loopback design (docs/examples). A fault of
// a queue kind the run does not use (a completion error on MM queues) is n/a: the run passes.
const std::string kQdmaExample = std::string(PDT_SOURCE_DIR) + "/docs/examples/qdma_stream_loopback.json";
const char* const kQdmaDescError = "(H2C|C2H) (MM|ST) queue 0: Input/output error \\(the status descriptor reports err 2 "
                                   "\\(descriptor fetch error\\)";
const char* const kQdmaCompletionError = "C2H ST queue 0: Input/output error \\(completion entry 0 has its error bit set";

std::vector<std::string> qdma_args(const std::string& tool, bool memory) {
    if (memory)
        return {"--sim_design", "U200_qdma_ram", "--transfer_timeout", "1", "--min_words", "0x10000",
                "--max_buffer_size", "0x40000", "--transfer_length", "0x30000", "--dma_bridge_memory_size_bytes",
                "0x100000"};
    std::vector<std::string> a{"--design_file", kQdmaExample, "--sim_design", "qdma_stream_loopback_example",
                               "--transfer_timeout", "1", "--stream_mapping_size", "0x40000", "--stream_num_descriptors",
                               "16"};
    if (tool == "test_dma_bridge")
        a.insert(a.end(), {"--min_words", "0x10000"});
    else
        a.insert(a.end(), {"--duration", "0.5", "--report_interval", "0.25"});
    return a;
}

TEST(FaultMatrix, EveryQdmaFaultOnTheToolsOfQdmaDesigns) {
    struct Row {
        const char* tool;
        bool memory;
        Expect expect;
    };
    const char* const kMmStall = "H2C MM queue 0: Connection timed out \\(no descriptor completed within the transfer "
                                 "timeout of 1000 ms";
    const char* const kStStall = "(H2C|C2H) ST queue 0 timeout: no (H2C|C2H) completion for 1\\.000 secs";
    std::vector<Row> rows;
    for (const char* tool : {"test_dma_bridge", "test_dma_bridge_parallel_streams", "test_dma_bridge_independent_streams"})
        rows.push_back({tool, false, {}});
    rows.push_back({"test_dma_bridge", true, {}});
    std::vector<Cell> runs;
    for (const Row& row : rows)
        for (sim::QdmaFault fault : sim::all_qdma_faults()) {
            const std::string name = sim::fault_name(fault);
            Expect e{nullptr, row.memory ? "U200_qdma_ram" : "qdma_stream_loopback_example", kQdmaDescError};
            if (fault == sim::QdmaFault::CompletionError)
                e = {nullptr, row.memory ? nullptr : "qdma_stream_loopback_example", kQdmaCompletionError};
            if (fault == sim::QdmaFault::QueueStall)
                e.message = row.memory ? kMmStall : kStStall;
            runs.push_back(Cell{row.tool, name, row.memory ? "memory" : "stream", e, {}});
        }
    ASSERT_EQ(runs.size(), rows.size() * 3) << "a QDMA fault kind without its row";
    run_cells(runs, [](const Cell& r) { return qdma_args(r.tool, r.design == "memory"); });
    for (const Cell& r : runs)
        EXPECT_EQ(judge(r), "") << r.tool << " on the QDMA " << r.design << " design with PDT_SIM_FAULT=" << r.fault
                                << "\n" << r.outcome.output;
}

Cell cell(const Expect& expect, int exit_code, const std::string& output) {
    Cell c{"tool", "fault", "design", expect, {}};
    c.outcome.exit_code = exit_code;
    c.outcome.output = output;
    return c;
}

// The judge catches each way a cell can go wrong.
TEST(FaultMatrix, JudgeRejectsWrongOutcomes) {
    const Expect expect{"bad_magic", kMemory, kMagic, true};
    const std::string report =
        "\nDMA failure on 0000:15:00.0 H2C 0: x\nXDMA registers of 0000:15:00.0 H2C 0:\n  H2C Channel 0 Status (0x0040) = "
        "0x00000010: busy- \nAER status of 0000:15:00.0:\n  UESta: DLP- SDES- TLP- FCP- CmpltTO-\n";
    const std::string named = "FAIL: magic_stopped: a descriptor's magic was not 0xAD4B\n";
    EXPECT_EQ(judge(cell(expect, 1, named + report + "Overall FAIL\n")), "");
    EXPECT_NE(judge(cell(expect, 0, named + report + "Overall PASS\n")), "");
    EXPECT_NE(judge(cell(expect, 1, named + report)), "") << "no Overall FAIL";
    EXPECT_NE(judge(cell(expect, 1, "FAIL: timeout\n" + report + "Overall FAIL\n")), "") << "not named";
    EXPECT_NE(judge(cell(expect, 1, named + "Overall FAIL\n")), "") << "no register dump";
    EXPECT_NE(judge(cell(expect, test_support::kTimedOut, named)), "");
    const Expect na{"overrun_one_byte", nullptr, ""};
    EXPECT_EQ(judge(cell(na, 0, "Overall PASS\n")), "");
    EXPECT_NE(judge(cell(na, 1, "Overall FAIL\n")), "");
}

}  // namespace
