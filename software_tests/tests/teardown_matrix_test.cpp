// The teardown matrix (F21): every DMA tool, each run a real process on a model whose engines
// write late, through every way a run ends: success, a transfer timeout shorter than the
// engine's lateness, a data error, SIGTERM, and --max_temperature. The models: XDMA and QDMA
// (PDT_SIM_FAULT late_engine=MS: each descriptor's data lands MS ms after its fetch), and edu
// (pcie_link_measure --endpoint edu --edu_sim, --edu_sim_delay_ms from command to transfer). Each run must give the
// verdict and name the cause expected, and the simulated IOMMU must record no access to an IOVA
// after the tool unmapped it: no "sim IOMMU" line, and no exit status of its own (sim_device.hpp),
// which is what a buffer released before its engine was proven stopped produces.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "dma_tools.hpp"
#include "tool_run.hpp"
#include "test_support/run_process.hpp"

namespace {

using namespace std::chrono_literals;
using dma_tools::kTools;
using dma_tools::Tool;

constexpr const char* kMemory = "TEF1001_dma_ddr3";
constexpr const char* kLoopback = "TEF1001_dma_stream_loopback";
constexpr const char* kCrc64 = "TEF1001_dma_stream_crc64";

enum class End { Success, Timeout, DataError, Sigterm, MaxTemperature, IgnoresStop };
const char* name(End end) {
    switch (end) {
    case End::Success: return "success";
    case End::Timeout: return "transfer timeout";
    case End::DataError: return "data error";
    case End::Sigterm: return "SIGTERM";
    case End::MaxTemperature: return "--max_temperature";
    case End::IgnoresStop: return "transfer timeout, the engine ignores stop";
    }
    return "?";
}

struct Cell {
    const Tool* tool;
    End end;
    int exit_code = 0;
    std::string cause;  // regular expression the output must match
    test_support::Outcome outcome;
};

bool soak(const std::string& tool) {
    return tool == "test_dma_bridge_parallel_streams" || tool == "test_dma_bridge_independent_streams";
}

std::vector<std::string> args(const std::string& tool, End end) {
    const char* design = tool == "crc64_stream_latency" ? kCrc64
                         : tool == "test_dma_bridge" || tool == "test_dma_descriptor_credits" ? kMemory
                                                                                              : kLoopback;
    std::vector<std::string> a{"--sim_design", design, "--transfer_timeout", "1"};
    const auto add = [&](std::initializer_list<const char*> more) { a.insert(a.end(), more.begin(), more.end()); };
    const bool stopped = end == End::Sigterm || end == End::MaxTemperature;
    if (tool == "test_dma_bridge")  // stopped: 64 MiB to copy, which a second does not finish
        add({"--enabled_tests", "memory_fixed_buffers", "--min_words", stopped ? "0x1000000" : "0x10000",
             "--max_buffer_size", "0x40000", "--max_channel_combinations", "1", "--dma_bridge_memory_size_bytes",
             "0x100000"});
    else if (tool == "crc64_stream_latency")  // SIGTERM: more samples than a second holds
        add({"--samples", end == End::Sigterm ? "100000" : "20", "--max_packet_bytes", "0x1000"});
    else if (soak(tool))
        add({"--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16", "--report_interval", "0.25",
             "--duration", end == End::Sigterm || end == End::MaxTemperature ? "60" : "0.5"});
    if (end == End::MaxTemperature)
        add({"--max_temperature", "90"});
    return a;
}

// The cells: what each run must end with. SIGTERM and --max_temperature end a soak (a pass: the
// soak's end was asked for); SIGTERM ends test_dma_bridge's memory tests, the credit rings and
// crc64_stream_latency's samples, and a --max_temperature trip the memory tests, each as a
// failure naming why (the last two tools have no --max_temperature).
std::vector<Cell> cells() {
    const char* const timeout = "(timeout: no (H2C|C2H) completion for 1\\.000 secs|Timeout after 1000 ms|"
                                "no transfer completed within the transfer timeout of 1000 ms)";
    const char* const flipped = "(1 bit flipped|1 bad words|data error|CRC64 0x[0-9a-f]{16}, expected)";
    std::vector<Cell> all;
    for (const Tool& tool : kTools) {
        all.push_back({&tool, End::Success, 0, "Overall PASS\n|Test: PASS", {}});
        all.push_back({&tool, End::Timeout, 1, timeout, {}});
        all.push_back({&tool, End::DataError, 1, flipped, {}});
        if (soak(tool.name)) {
            all.push_back({&tool, End::Sigterm, 0, "Overall PASS\n", {}});
            all.push_back(
                {&tool, End::MaxTemperature, 1, "C is over the temperature limit \\(--max_temperature\\) of 90 C", {}});
        }
        const std::string stops = tool.name;  // these stop their copies and fail, naming why
        if (!soak(stops))
            all.push_back({&tool, End::Sigterm, 1, "stopped by SIGINT or SIGTERM", {}});
        if (stops == "test_dma_bridge")
            all.push_back({&tool, End::MaxTemperature, 1,
                          "stopped by a board-health trip(.|\\n)*over the temperature limit "
                          "\\(--max_temperature\\) of 90 C",
                          {}});
    }
    return all;
}

// The verdict and cause expected, and no access to a released IOVA (the "sim IOMMU" lines).
void expect(const std::string& what, const test_support::Outcome& r, int exit_code, const std::string& cause) {
    EXPECT_EQ(r.exit_code, exit_code) << what << "\n" << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(cause))) << what << ": no /" << cause << "/\n" << r.output;
    EXPECT_EQ(r.output.find("sim IOMMU"), std::string::npos) << what << ": DMA after release\n" << r.output;
    if (exit_code == 1) {
        EXPECT_EQ(r.output.find("PASS\n"), std::string::npos) << what << "\n" << r.output;
    }
}

// Two runs at a time (the machine's two cores), each cell once.
template <typename C, typename F>
void on_two_threads(std::vector<C>& cells, F run_one) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < cells.size();)
            run_one(cells[i]);
    };
    std::thread other(worker);
    worker();
    other.join();
}

// A soak ended by SIGTERM gets it once its first rate line is out.
test_support::RunOptions run_options(End end) {
    test_support::RunOptions options;
    options.timeout = 120s;
    options.stdin_from_null = true;
    if (end == End::Sigterm) {
        options.interrupt_signal = SIGTERM;
        options.interrupt_once = [](const std::string& out) { return out.find("Mbytes/sec") != std::string::npos; };
    }
    return options;
}

void run(Cell& c) {
    test_support::RunOptions options = run_options(c.end);
    // Late enough that the timeout expires first, short enough that the stop sees it land; slow
    // enough that test_dma_bridge is still copying a second after its start.
    const std::string tool = c.tool->name;
    const bool slow = (tool == "test_dma_bridge" && c.end != End::Timeout) || tool == "test_dma_descriptor_credits";
    const char* late = c.end == End::Timeout                                        ? "late_engine=1500"
                       : slow && (c.end == End::Sigterm || c.end == End::MaxTemperature) ? "late_engine=20"
                                                                                          : "late_engine=2";
    if (c.end == End::Sigterm && !soak(tool)) {  // no rate lines: the line each prints once its copies start
        const char* started = tool == "test_dma_bridge"        ? "Testing using "
                              : tool == "crc64_stream_latency" ? "Testing design "
                                                               : "design PCI device";
        options.interrupt_once = [started](const std::string& out) { return out.find(started) != std::string::npos; };
    }
    options.environment = {std::string("PDT_SIM_FAULT=") + late + (c.end == End::DataError ? ",data_bit_flip" : "")};
    if (c.end == End::MaxTemperature)
        options.environment.push_back("PDT_SIM_TEMPERATURE=40,99@1.5");
    c.outcome = test_support::run_process(c.tool->path, args(c.tool->name, c.end), options);
}

// QDMA: test_dma_bridge's memory tests on U200_qdma_ram's MM queues and the stream tools on the
// example streaming loopback (docs/examples); edu: pcie_link_measure's latency on the edu model.
const std::string kQdmaExample = std::string(PDT_SOURCE_DIR) + "/docs/examples/qdma_stream_loopback.json";
const Tool kMeasure{"pcie_link_measure", "pcie_link_measure", PCIE_LINK_MEASURE};

std::vector<std::string> qdma_args(const std::string& tool, End end) {
    if (tool == "test_dma_bridge")
        return {"--sim_design", "U200_qdma_ram", "--transfer_timeout", "1", "--enabled_tests", "memory_fixed_buffers",
                "--min_words", "0x10000", "--max_buffer_size", "0x40000", "--dma_bridge_memory_size_bytes", "0x100000"};
    return {"--design_file", kQdmaExample, "--sim_design", "qdma_stream_loopback_example", "--transfer_timeout", "1",
            "--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16", "--report_interval", "0.25",
            "--duration", end == End::Sigterm ? "60" : "0.5"};
}

struct ModelCell {
    std::string label;
    const Tool* tool;
    std::vector<std::string> args;
    std::vector<std::string> environment;
    End end;
    int exit_code;
    std::string cause;
    test_support::Outcome outcome;
};

// Run without rate lines to wait for: SIGTERM two seconds in, once the steps are copying.
test_support::RunOptions model_run_options(const ModelCell& c) {
    test_support::RunOptions options = run_options(c.end);
    options.environment = c.environment;
    if (c.end == End::Sigterm && std::string(c.tool->name) == "pcie_link_measure")
        options.interrupt_once = {}, options.interrupt_after = 2000ms;
    return options;
}

std::vector<ModelCell> qdma_and_edu_cells() {
    const char* const timeout = "(timed out|timeout|Timeout)";
    const char* const not_moved = "(data error|differ|expected 0x|bad words|not verified)";
    std::vector<ModelCell> all;
    for (const Tool& tool : kTools) {
        const std::string name = tool.name;
        if (name != "test_dma_bridge" && !soak(name))
            continue;
        const auto add = [&](End end, const char* fault, int code, const char* cause) {
            all.push_back({"QDMA", &tool, qdma_args(name, end), {std::string("PDT_SIM_FAULT=") + fault}, end, code,
                           cause, {}});
        };
        add(End::Success, "late_engine=2", 0, "Overall PASS\n");
        add(End::Timeout, "late_engine=1500", 1, timeout);
        add(End::DataError, "late_engine=2,moves_nothing", 1, not_moved);
        if (soak(name))
            add(End::Sigterm, "late_engine=2", 0, "Overall PASS\n");
    }
    const std::vector<std::string> edu{"latency", "--endpoint", "edu", "--edu_sim", "--latency_bytes", "1024",
                                       "--samples", "2", "--transfer_timeout", "1"};
    all.push_back({"edu", &kMeasure, tool_run::with(edu, {"--edu_sim_delay_ms", "2"}), {}, End::Success, 0,
                   "Verdict: PASS", {}});
    all.push_back({"edu", &kMeasure, tool_run::with(edu, {"--edu_sim_delay_ms", "1500"}), {}, End::Timeout, 1,
                   "START still set after 1000 ms", {}});
    all.push_back({"edu", &kMeasure, tool_run::with(edu, {"--model_lie", "moves_nothing"}), {}, End::DataError, 1,
                   "differ from the pattern written", {}});
    return all;
}

TEST(TeardownMatrix, QdmaAndEduEndEveryWayWithALateEngineAndNoDmaToAReleasedBuffer) {
    std::vector<ModelCell> runs = qdma_and_edu_cells();
    on_two_threads(runs, [](ModelCell& c) { c.outcome = test_support::run_process(c.tool->path, c.args, model_run_options(c)); });
    for (const ModelCell& c : runs)
        expect(c.label + " " + c.tool->name + ", " + name(c.end), c.outcome, c.exit_code, c.cause);
}

// pcie_link_measure on each model: latency for a pass, a timeout and a data error; a long sweep
// for SIGTERM and the --max_temperature trip (a QDMA design with a SYSMON; edu has no sensors).
// Both stops end the copies and fail, naming why. And a timeout on an engine that ignores stop.
std::vector<ModelCell> measure_cells() {
    // An engine that will not stop (PDT_SIM_FAULT ignores_stop): its buffers stay mapped, said so.
    const char* const kept_mapped = "Warning: .*(without a proven stop|the IP keeps Run set|edu cannot stop a "
                                    "transfer).*stay mapped until it is closed";
    const std::string qdma_designs = std::string(PDT_SOURCE_DIR) + "/software_tests/tests/designs/qdma_tool_configurations.json";
    struct Model {
        const char* label;
        std::vector<std::string> endpoint;
        std::vector<std::string> stopped_endpoint;  // with sensors for the trip (empty: no row)
        const char* late;                           // per descriptor, for the stopped rows
        const char* lie;                            // a data error
    };
    const std::vector<Model> models{
        {"XDMA", {"--endpoint", "xdma", "--sim_design", kMemory}, {"--endpoint", "xdma", "--sim_design", kMemory},
         "late_engine=20", "data_bit_flip"},
        {"QDMA", {"--endpoint", "qdma", "--sim_design", "U200_qdma_ram"},
         {"--endpoint", "qdma", "--design_file", qdma_designs, "--sim_design", "qdmacfg_memory_with_sysmon",
          "--max_bytes", "65536"},
         "late_engine=2", "moves_nothing"}};
    std::vector<ModelCell> all;
    for (const Model& m : models) {
        const auto latency = tool_run::with({"latency"}, tool_run::with(m.endpoint, {"--transfer_timeout", "1",
                                                                                     "--latency_bytes", "4096", "--samples", "4"}));
        const auto sweep = tool_run::with({"sweep"}, tool_run::with(m.stopped_endpoint, {"--transfer_timeout", "1"}));
        const auto add = [&](std::vector<std::string> a, std::string fault, End end, int code, const char* cause) {
            all.push_back({m.label, &kMeasure, std::move(a), {"PDT_SIM_FAULT=" + fault}, end, code, cause, {}});
        };
        add(latency, "late_engine=2", End::Success, 0, "Verdict: PASS");
        add(latency, "late_engine=1500", End::Timeout, 1, "not completed within 1000 ms");
        add(latency, std::string("late_engine=2,") + m.lie, End::DataError, 1, "differ from the pattern written");
        add(sweep, m.late, End::Sigterm, 1, "stopped by SIGINT or SIGTERM: no copy was started after it");
        add(tool_run::with(sweep, {"--max_temperature", "90"}), m.late, End::MaxTemperature, 1,
            "stopped by a board-health trip(.|\\n)*over the temperature limit \\(--max_temperature\\) of 90 C");
        all.back().environment.push_back("PDT_SIM_TEMPERATURE=40,99@1.5");
        add(latency, "late_engine=1500,ignores_stop", End::IgnoresStop, 1, kept_mapped);
    }
    const std::vector<std::string> edu{"latency", "--endpoint", "edu", "--edu_sim", "--latency_bytes", "1024",
                                       "--samples", "100000", "--transfer_timeout", "1"};
    all.push_back({"edu", &kMeasure, tool_run::with(edu, {"--edu_sim_delay_ms", "20"}), {}, End::Sigterm, 1,
                   "stopped by SIGINT or SIGTERM", {}});
    // edu cannot stop a transfer: one still running 10 s on is left with its buffers mapped.
    all.push_back({"edu", &kMeasure, tool_run::with(edu, {"--edu_sim_delay_ms", "10000"}), {}, End::IgnoresStop, 1,
                   kept_mapped, {}});
    return all;
}

TEST(TeardownMatrix, PcieLinkMeasureEndsEveryWayOnEachModelWithALateEngineAndNoDmaToAReleasedBuffer) {
    std::vector<ModelCell> runs = measure_cells();
    on_two_threads(runs, [](ModelCell& c) { c.outcome = test_support::run_process(c.tool->path, c.args, model_run_options(c)); });
    for (const ModelCell& c : runs)
        expect(c.label + " pcie_link_measure " + c.args.front() + ", " + name(c.end), c.outcome, c.exit_code, c.cause);
}

TEST(TeardownMatrix, EveryDmaToolEndsEveryWayWithALateEngineAndNoDmaToAReleasedBuffer) {
    std::vector<Cell> runs = cells();
    on_two_threads(runs, run);
    for (const Cell& c : runs)
        expect(std::string("XDMA ") + c.tool->name + ", " + name(c.end), c.outcome, c.exit_code, c.cause);
}

}  // namespace

namespace {

// The F21 report: memory_boundaries' window read timed out and its buffer was released before
// the caller stopped the engine, whose late write then hit the freed IOVA. Now: the timeout is
// named, and the write lands in memory still mapped.
TEST(TeardownMatrix, ABoundaryWindowReadThatTimesOutReleasesNothingUnderTheEngine) {
    test_support::RunOptions options = run_options(End::Timeout);
    options.environment = {"PDT_SIM_FAULT=late_engine=1500"};
    const test_support::Outcome r = test_support::run_process(
        TEST_DMA_BRIDGE_TOOL,
        {"--sim_design", kMemory, "--transfer_timeout", "1", "--enabled_tests", "memory_boundaries",
         "--max_channel_combinations", "1", "--dma_bridge_memory_size_bytes", "0x100000"},
        options);
    expect("XDMA test_dma_bridge memory_boundaries, transfer timeout", r, 1,
           "no transfer completed within the transfer timeout of 1000 ms");
}

}  // namespace
