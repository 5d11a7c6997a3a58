// The lying-device matrix (docs/verification.md): every DMA tool and every pcie_link_measure
// subcommand, each run a real process, on every device that lies (moves_nothing, stale_after=N,
// completes_early) of every model and fake that runs without hardware: the XDMA model
// (PDT_SIM_FAULT), the model copy endpoint and the edu register model (--model_lie) and the
// ET-SoC-1 fake (--etsoc1_fake, which also stages every copy through one reused bounce buffer).
// (The CUDA adapter's --cuda_lie has its matrix in cuda/tests/cuda_lie_gpu_test.cpp: GPU only.) Each lying run must exit 1,
// print no PASS, and name the channel or endpoint, the transfer and the first bad offset; the
// same run on the honest device must pass with bytes verified. A PASS on a lying device fails
// the test. The data_bit_flip rows: a one-shot bit flip in any copy, timed or not, fails every
// DMA tool and every pcie_link_measure subcommand on the XDMA model, naming the copy and the
// offset.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "test_support/run_process.hpp"

namespace {

using namespace std::chrono_literals;

// How a device is told to lie, per family.
enum class Family { XdmaModel, QdmaModel, ModelEndpoint, EduModel, Etsoc1Fake };

struct Lie {
    const char* name;      // docs/verification.md's spelling
    const char* xdma;      // PDT_SIM_FAULT value
    const char* etsoc1;    // --etsoc1_fake parameter
};
const Lie kLies[] = {{"moves_nothing", "moves_nothing", "moves_nothing=1"},
                     {"stale_after=3", "stale_after=3", "stale_after=3"},
                     {"completes_early", "completes_early", "completes_early=1"}};

struct ToolRun {
    std::string label;                  // "parallel_streams on the XDMA model"
    const char* tool;                   // executable
    std::vector<std::string> args;      // honest run
    Family family;
    const char* names;                  // regular expression: channel, transfer and offset named
};

// "0000:15:00.0 C2H 1 transfer 3: data error ... buffer offset 0x.., stream offset 0x..", or
// the ET-SoC-1 fake's "ET-SoC-1 fake 0 channel 0 C2H transfer 2: ...".
// QDMA stream queues: "0000:15:00.0 QDMA function 0 C2H ST queue 0 transfer 1: data error ... offset".
const char* const kStreamNames =
    "((H2C|C2H) ?[0-9]|(H2C|C2H) ST queue [0-9]+|channel [0-9]+ (H2C|C2H)).*(transfer|completion|message|sample|packet) "
    "[0-9]+.*offset";
// test_dma_bridge: the transfer by its length and card address, and the bad byte's card address
// and host buffer offset ("C2H failure : pass 0: card address 0x40 (host buffer offset 0x40; byte
// 0x40 of the C2H transfer of 0x30000 bytes at card address 0x0) ...", "... guard band: card byte
// 0x3f in the guard band before the transfer of 0x1 bytes at card 0x40 host offset 0x0 ...").
const char* const kBridgeNames = "(H2C|C2H) failure : .*(host (buffer )?offset 0x[0-9a-f]+.* bytes at card (address )?"
                                 "0x[0-9a-f]+|bytes at card (address )?0x[0-9a-f]+.*(host|buffer) offset 0x[0-9a-f]+)";
// pcie_link_measure: "C2H data check sim model 0 sweep direct 4 KiB run 1 copy 3 of 5: failed at
// byte 0 of 4096 (host buffer offset 12288, card offset 0x3000)": the direction and endpoint,
// the copy, and the bad byte within the copy, the host buffer and the card.
const char* const kMeasureNames = "(H2C|C2H) data check .*copy [0-9]+( of [0-9]+)?: .*failed at byte [0-9]+ of [0-9]+ "
                                  "\\(host buffer offset [0-9]+, card offset 0x[0-9a-f]+\\)";

// The example QDMA streaming loopback design (a --design_file).
const std::string kQdmaExample = std::string(PDT_SOURCE_DIR) + "/docs/examples/qdma_stream_loopback.json";

// A campaign of two steps, sized for every endpoint (edu's window is 4095 bytes).
const std::filesystem::path kCampaign =
    std::filesystem::temp_directory_path() / ("pdt_lying_campaign_" + std::to_string(getpid()) + ".json");

std::string campaign_file() {
    const std::filesystem::path& path = kCampaign;
    std::ofstream(path) << R"({"steps": [{"subcommand": "latency", "bytes": "2KiB", "samples": 10, "max_gap_us": 100},
                                         {"subcommand": "sweep", "min_bytes": "1KiB", "max_bytes": "2KiB",
                                          "iterations": 5, "repeats": 1}]})";
    return path.string();
}

// One subcommand's settings; `small`: every copy within edu's 4095-byte window.
std::vector<std::string> measure_args(const std::string& subcommand, std::vector<std::string> endpoint,
                                      bool small = false) {
    const char* const bytes = small ? "2KiB" : "64KiB";
    std::vector<std::string> a{subcommand};
    if (subcommand == "sweep" || subcommand == "ceiling")
        a.insert(a.end(), {"--min_bytes", small ? "1KiB" : "4KiB", "--max_bytes", bytes, "--repeats", "1",
                           "--iterations", "5"});
    if (subcommand == "ceiling")
        a.insert(a.end(), {"--active_bytes", "1GiB"});
    else if (subcommand == "latency")
        a.insert(a.end(), {"--latency_bytes", small ? "2KiB" : "4KiB", "--samples", "20", "--max_gap_us", "100"});
    else if (subcommand == "access_h2c" || subcommand == "access_c2h")
        a = {"access", "--access_direction", subcommand.substr(7), "--access_sizes", "64,100", "--access_windows",
             small ? "2KiB" : "4KiB", "--access_transfers", "16", "--access_patterns", "sequential", "--access_caches",
             "warm", "--access_memories", "registered"};
    else if (subcommand == "inflight")
        a.insert(a.end(), {"--inflight_sizes", bytes, "--repeats", "1"});
    else if (subcommand == "bidir")
        a.insert(a.end(), {"--bidir_bytes", bytes, "--bidir_copies", "3", "--repeats", "1"});
    else if (subcommand == "launch")
        a.insert(a.end(), {"--launch_samples", "5", "--launch_queued", "5", "--repeats", "1"});
    else if (subcommand == "campaign")
        a.push_back(campaign_file());
    a.insert(a.end(), endpoint.begin(), endpoint.end());
    return a;
}

// A stream tool on the ET-SoC-1 fake: `descriptors` buffers of `mapping` bytes, for `duration` s.
ToolRun etsoc1_stream(const char* tool, const std::string& what, const char* descriptors, const char* mapping,
                      const char* duration) {
    return {std::string(tool).substr(std::string(tool).rfind('/') + 1) + ", " + what + ", on the ET-SoC-1 fake", tool,
            {"--etsoc1_device", "fake", "--duration", duration, "--report_interval", "0.25", "--stream_num_descriptors",
             descriptors, "--transfer_timeout", "2", "--stream_mapping_size", mapping},
            Family::Etsoc1Fake, kStreamNames};
}

std::vector<ToolRun> runs() {
    std::vector<ToolRun> out;
    const auto stream = [&](const char* design, const char* descriptors = "16") {
        return std::vector<std::string>{"--sim_design", design, "--stream_mapping_size", "0x40000",
                                        "--stream_num_descriptors", descriptors, "--duration", "0.5",
                                        "--report_interval", "0.25", "--transfer_timeout", "2"};
    };
    out.push_back({"test_dma_bridge on the XDMA model", TEST_DMA_BRIDGE_TOOL,
                   {"--sim_design", "TEF1001_dma_ddr3", "--transfer_timeout", "2", "--stream_mapping_size", "0x40000",
                    "--stream_num_descriptors", "16", "--min_words", "0x10000", "--max_buffer_size", "0x40000",
                    "--transfer_length", "0x30000", "--max_channel_combinations", "1",
                    "--dma_bridge_memory_size_bytes", "0x100000"},
                   Family::XdmaModel,
                   kBridgeNames});
    out.push_back({"parallel_streams on the XDMA model", PARALLEL_STREAMS_TOOL,
                   stream("TEF1001_dma_stream_loopback"), Family::XdmaModel, kStreamNames});
    out.push_back({"independent_streams on the XDMA model", INDEPENDENT_STREAMS_TOOL,
                   stream("TEF1001_dma_stream_loopback"), Family::XdmaModel, kStreamNames});
    out.push_back({"parallel_streams, one descriptor, on the XDMA model", PARALLEL_STREAMS_TOOL,
                   stream("TEF1001_dma_stream_loopback", "1"), Family::XdmaModel,
                   kStreamNames});
    out.push_back({"descriptor_credits on the XDMA model", DESCRIPTOR_CREDITS_TOOL,
                   {"--sim_design", "TEF1001_dma_stream_loopback", "--transfer_timeout", "2"}, Family::XdmaModel,
                   kStreamNames});
    out.push_back({"crc64_stream_latency on the XDMA model", CRC64_LATENCY_TOOL,
                   {"--sim_design", "TEF1001_dma_stream_crc64", "--transfer_timeout", "2", "--samples", "20",
                    "--max_packet_bytes", "0x1000"},
                   Family::XdmaModel, "(H2C|C2H) [0-9].*sample [0-9]+: length [0-9]+ EOP [01] CRC64 0x[0-9a-f]+, expected"});
    // The QDMA model (PDT_SIM_FAULT too): MM queues on U200_qdma_ram, stream queues on the example
    // streaming loopback design users copy (docs/examples/qdma_stream_loopback.json).
    out.push_back({"test_dma_bridge on the QDMA model", TEST_DMA_BRIDGE_TOOL,
                   {"--sim_design", "U200_qdma_ram", "--transfer_timeout", "2", "--min_words", "0x10000",
                    "--max_buffer_size", "0x40000", "--transfer_length", "0x30000",
                    "--dma_bridge_memory_size_bytes", "0x100000"},
                   Family::QdmaModel, kBridgeNames});
    const std::vector<std::string> example{"--design_file", kQdmaExample, "--sim_design", "qdma_stream_loopback_example"};
    auto qdma_stream = stream("qdma_stream_loopback_example");
    qdma_stream.insert(qdma_stream.begin(), example.begin(), example.begin() + 2);
    out.push_back({"parallel_streams on the QDMA model", PARALLEL_STREAMS_TOOL, qdma_stream, Family::QdmaModel,
                   kStreamNames});
    out.push_back({"independent_streams on the QDMA model", INDEPENDENT_STREAMS_TOOL, qdma_stream, Family::QdmaModel,
                   kStreamNames});
    std::vector<std::string> qdma_bridge = example;
    qdma_bridge.insert(qdma_bridge.end(), {"--transfer_timeout", "2", "--stream_mapping_size", "0x40000",
                                           "--stream_num_descriptors", "16", "--min_words", "0x10000"});
    out.push_back({"test_dma_bridge stream_fixed_buffers on the QDMA model", TEST_DMA_BRIDGE_TOOL, qdma_bridge,
                   Family::QdmaModel, kStreamNames});
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL})
        for (const char* descriptors : {"16", "1"})  // 0x40000: transfers enough for stale_after=3
            out.push_back(etsoc1_stream(tool, std::string(descriptors) + " descriptor(s)", descriptors, "0x40000", "0.5"));
    // Every subcommand; launch where the endpoint runs code on the card (the model endpoint with a
    // launch time, the ET-SoC-1 fake), not on the XDMA model or edu; inflight and bidir where two
    // copies can be in flight (not on edu, which skips them).
    for (const std::string subcommand :
         {"sweep", "latency", "access_h2c", "access_c2h", "inflight", "bidir", "launch", "ceiling", "campaign"}) {
        const std::string name = "pcie_link_measure " + subcommand;
        const bool launch = subcommand == "launch";
        if (!launch) {
            out.push_back({name + " on the XDMA model", PCIE_LINK_MEASURE,
                           measure_args(subcommand, {"--endpoint", "xdma", "--sim_design", "TEF1001_dma_ddr3",
                                                     "--transfer_timeout", "2"}),
                           Family::XdmaModel, kMeasureNames});
            if (subcommand != "inflight" && subcommand != "bidir")  // edu runs one copy at a time
                out.push_back({name + " on the edu model", PCIE_LINK_MEASURE,
                              measure_args(subcommand, {"--endpoint", "edu", "--edu_sim", "--edu_sim_delay_ms",
                                                        "0.05", "--transfer_timeout", "2"}, true),
                              Family::EduModel, kMeasureNames});
        }
        out.push_back({name + " on the model endpoint", PCIE_LINK_MEASURE,
                       measure_args(subcommand, {"--endpoint", "model", "--model_h2c_gbps", "2", "--model_c2h_gbps", "2",
                                                 "--model_latency_us", "5", "--model_launch_us", "5",
                                                 "--transfer_timeout", "2"}),
                       Family::ModelEndpoint, kMeasureNames});
        out.push_back({name + " on the ET-SoC-1 fake", PCIE_LINK_MEASURE,
                       measure_args(subcommand, {"--endpoint", "etsoc1", "--etsoc1_device", "fake", "--transfer_timeout", "5"}),
                       Family::Etsoc1Fake, kMeasureNames});
    }
    return out;
}

// F30: sizes a read-back cannot cut in two (below 128 bytes; the loopback's below 8), where a
// driver's reused bounce buffer once handed back the bytes just written: every pcie_link_measure
// subcommand that copies a size it is given, at 1, 4, 63, 64 and 127 bytes, on the ET-SoC-1 fake
// (which reuses its bounce buffer as the runtime does) and the model endpoint; both stream tools
// with one descriptor at 4 and 64 bytes (their transfers are whole 4-byte words: 1, 63 and 127
// are not transfer lengths) on the fake.
std::vector<std::string> small_measure_args(const std::string& subcommand, const std::string& bytes,
                                            std::vector<std::string> endpoint) {
    std::vector<std::string> a{subcommand};
    if (subcommand == "sweep")
        a.insert(a.end(), {"--min_bytes", bytes, "--max_bytes", bytes, "--iterations", "2", "--repeats", "1"});
    else if (subcommand == "latency")
        a.insert(a.end(), {"--latency_bytes", bytes, "--samples", "3", "--max_gap_us", "100"});
    else if (subcommand == "access_h2c" || subcommand == "access_c2h")
        a = {"access", "--access_direction", subcommand.substr(7), "--access_sizes", bytes, "--access_windows", "4KiB",
             "--access_transfers", "4", "--access_patterns", "sequential", "--access_caches", "warm",
             "--access_memories", "registered"};
    else if (subcommand == "inflight")
        a.insert(a.end(), {"--inflight_sizes", bytes, "--repeats", "1"});
    else if (subcommand == "bidir")
        a.insert(a.end(), {"--bidir_bytes", bytes, "--bidir_copies", "2", "--repeats", "1"});
    a.insert(a.end(), endpoint.begin(), endpoint.end());
    return a;
}

std::vector<ToolRun> small_runs() {
    std::vector<ToolRun> out;
    for (const std::string bytes : {"1", "4", "63", "64", "127"})
        for (const std::string subcommand : {"sweep", "latency", "access_h2c", "access_c2h", "inflight", "bidir"}) {
            const std::string name = "pcie_link_measure " + subcommand + " of " + bytes + " bytes";
            out.push_back({name + " on the ET-SoC-1 fake", PCIE_LINK_MEASURE,
                           small_measure_args(subcommand, bytes, {"--endpoint", "etsoc1", "--etsoc1_device", "fake",
                                                                  "--transfer_timeout", "5"}),
                           Family::Etsoc1Fake, kMeasureNames});
            if (bytes == "1" || bytes == "127")  // the model stages nothing: its ends of the range suffice
                out.push_back({name + " on the model endpoint", PCIE_LINK_MEASURE,
                               small_measure_args(subcommand, bytes, {"--endpoint", "model", "--model_latency_us", "5",
                                                                      "--transfer_timeout", "2"}),
                               Family::ModelEndpoint, kMeasureNames});
        }
    for (const char* tool : {PARALLEL_STREAMS_TOOL, INDEPENDENT_STREAMS_TOOL})
        for (const char* bytes : {"4", "64"})
            out.push_back(etsoc1_stream(tool, std::string("one descriptor of ") + bytes + " bytes", "1", bytes, "0.3"));
    return out;
}

struct Cell {
    const ToolRun* run;
    std::string lie;  // "" for the honest device, else the lie's name or "data_bit_flip"
    test_support::Outcome outcome;
};

// The run's command line with the lie applied, and its environment.
void apply(const Cell& c, std::vector<std::string>& args, std::vector<std::string>& environment) {
    args = c.run->args;
    if (c.lie.empty())
        return;
    const Lie* lie = nullptr;
    for (const Lie& l : kLies)
        if (c.lie == l.name)
            lie = &l;
    if (c.lie.starts_with("data_bit_flip")) {
        environment.push_back("PDT_SIM_FAULT=" + c.lie);
        return;
    }
    switch (c.run->family) {
    case Family::XdmaModel:
    case Family::QdmaModel: environment.push_back(std::string("PDT_SIM_FAULT=") + lie->xdma); break;
    case Family::ModelEndpoint:
    case Family::EduModel: args.insert(args.end(), {"--model_lie", lie->name}); break;
    case Family::Etsoc1Fake: args.insert(args.end(), {"--etsoc1_fake", lie->etsoc1}); break;
    }
}

bool says_pass(const std::string& out) {
    return test_support::contains(out, "Overall PASS") || test_support::contains(out, "Verdict: PASS") ||
           test_support::contains(out, "\"verdict\":\"PASS\"");
}

std::string judge(const Cell& c) {
    const std::string& out = c.outcome.output;
    if (c.lie.empty())
        return c.outcome.exit_code == 0 && says_pass(out) ? "" : "the honest device did not pass: exit " +
                                                                     std::to_string(c.outcome.exit_code);
    if (c.outcome.exit_code != 1 || says_pass(out))
        return "exit " + std::to_string(c.outcome.exit_code) + (says_pass(out) ? " with PASS" : "");
    if (!std::regex_search(out, std::regex(c.run->names)))
        return std::string("no line naming the channel, transfer and offset (/") + c.run->names + "/)";
    return "";
}

// Runs the cells, two processes at a time; returns how many lying runs failed as they must.
size_t run_and_judge(std::vector<Cell>& cells) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < cells.size();) {
            Cell& c = cells[i];
            test_support::RunOptions options;
            std::vector<std::string> args;
            apply(c, args, options.environment);
            options.timeout = 120s;
            options.stdin_from_null = true;
            c.outcome = test_support::run_process(c.run->tool, args, options);
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
    size_t failed_as_they_must = 0;
    for (const Cell& c : cells) {
        const std::string problem = judge(c);
        EXPECT_EQ(problem, "") << c.run->label << (c.lie.empty() ? " (honest)" : " lying: " + c.lie) << "\n"
                               << c.outcome.output;
        failed_as_they_must += !c.lie.empty() && problem.empty();
    }
    return failed_as_they_must;
}

TEST(LyingDeviceMatrix, EveryToolFailsOnEveryLyingDeviceAtSizesTooSmallToCut) {
    const std::vector<ToolRun> all = small_runs();
    std::vector<Cell> cells;
    for (const ToolRun& r : all) {
        cells.push_back({&r, "", {}});
        for (const Lie& lie : kLies)
            cells.push_back({&r, lie.name, {}});
    }
    const size_t failed = run_and_judge(cells);
    std::printf("small sizes: %zu runs, %zu lying runs failed as they must\n", cells.size(), failed);
}

TEST(LyingDeviceMatrix, EveryToolFailsOnEveryLyingDevice) {
    const std::vector<ToolRun> all = runs();
    // PDT_LYING_RUNS (a regular expression): only the runs whose label it matches, e.g. "QDMA".
    const char* only = std::getenv("PDT_LYING_RUNS");
    std::vector<Cell> cells;
    for (const ToolRun& r : all) {
        if (only != nullptr && !std::regex_search(r.label, std::regex(only)))
            continue;
        cells.push_back({&r, "", {}});
        for (const Lie& lie : kLies)
            cells.push_back({&r, lie.name, {}});
        if (r.family == Family::XdmaModel)  // the one-shot fault in each direction: every DMA tool and subcommand
            for (const char* flip : {"data_bit_flip", "data_bit_flip@C2H0"})
                cells.push_back({&r, flip, {}});
    }
    const size_t failed_as_they_must = run_and_judge(cells);
    std::filesystem::remove(kCampaign);
    std::printf("lying-device matrix: %zu runs, %zu lying runs failed as they must\n", cells.size(), failed_as_they_must);
}

Cell cell(const ToolRun& r, const std::string& lie, int exit_code, const std::string& output) {
    Cell c{&r, lie, {}};
    c.outcome.exit_code = exit_code;
    c.outcome.output = output;
    return c;
}

// The judge catches each way a cell can go wrong.
TEST(LyingDeviceMatrix, JudgeRejectsWrongOutcomes) {
    const ToolRun r{"sweep", "tool", {}, Family::ModelEndpoint, kMeasureNames};
    const std::string named =
        "Failure: sweep: C2H data check sim model 0 sweep direct 4 KiB run 1 copy 3 of 5: Input/output error (failed at "
        "byte 0 of 4096 (host buffer offset 12288, card offset 0x3000): the bytes read back differ)\n";
    EXPECT_EQ(judge(cell(r, "moves_nothing", 1, named + "Verdict: FAIL\n")), "");
    EXPECT_NE(judge(cell(r, "moves_nothing", 0, "Verdict: PASS (4096 bytes verified)\n")), "");
    EXPECT_NE(judge(cell(r, "moves_nothing", 1, named + "Verdict: PASS\n")), "") << "PASS printed";
    EXPECT_NE(judge(cell(r, "moves_nothing", 1, "FAIL: timeout\nVerdict: FAIL\n")), "") << "nothing named";
    const std::string no_offsets = "Failure: sweep: C2H data check m copy 3 of 5: Input/output error (failed at byte 0 of 4096)\n";
    EXPECT_NE(judge(cell(r, "moves_nothing", 1, no_offsets)), "")
        << "no offsets in the host buffer and on the card";
    EXPECT_NE(judge(cell(r, "moves_nothing", test_support::kTimedOut, named)), "");
    EXPECT_EQ(judge(cell(r, "", 0, "Verdict: PASS (4096 bytes verified)\n")), "");
    EXPECT_NE(judge(cell(r, "", 1, named + "Verdict: FAIL\n")), "");
}

}  // namespace
