// The result model of one run of pcie_link_measure, and its JSON (schema pcie_link_measure/1,
// documented in measure/README.md). Rates are GB/s (1e9 bytes/s), times microseconds.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "measure/endpoint.hpp"
#include "measure/stats.hpp"

namespace measure {

struct SweepPoint {
    Direction direction = Direction::H2C;
    std::string path;  // "direct" or "staged"
    uint64_t bytes = 0;
    std::vector<double> run_medians_gbps;
    MeanInterval rate;
};

struct StagedModelPoint {
    Direction direction = Direction::H2C;
    uint64_t bytes = 0;
    double model_gbps = 0, measured_gbps = 0;
};

// A direct copy timed to choose the staged path's chunk: the median rate of its copies.
struct CalibrationPoint {
    Direction direction = Direction::H2C;
    uint64_t bytes = 0;
    double gbps = 0;
};

// The staged path's pipeline and why it was chosen (F20): "direct reaches 90% of its best rate
// at 1 MiB (H2C 512 KiB, C2H 1 MiB)".
struct StagedPlan {
    uint64_t chunk_bytes = 0;  // 0: no staged path
    unsigned depth = 0;
    std::string why;
    std::vector<CalibrationPoint> calibration;  // empty when both were given
};

struct SweepResult {
    unsigned repeats = 0;
    double memcpy_gbps = 0;
    uint64_t memcpy_bytes = 0;
    std::vector<SweepPoint> points;
    std::map<std::string, double> large_copy_gbps;  // "H2C/direct": the mean at the largest size
    std::map<std::string, uint64_t> half_rate_bytes, ninety_rate_bytes;
    std::vector<StagedModelPoint> staged_model;
    StagedPlan staged;
    // Path "pageable" (the largest size only): direct copies from or to the pageable user
    // buffer, staged by the endpoint's driver. Why it was not measured; empty when it was.
    std::string pageable_skipped;
    // The host memcpy reference measured after each run (A/B/A/B), its spread (max - min) /
    // median, and whether that spread passed the bound: the host was disturbed.
    std::vector<double> reference_runs_gbps;
    double reference_spread = 0, disturbed_bound = 0;
    bool disturbed = false;
    const SweepPoint* largest(Direction direction, const std::string& path) const;
};

struct LatencyMode {
    Direction direction = Direction::H2C;
    std::string mode;  // "back_to_back" or "idle_gap"
    std::vector<double> samples_us;
    double p50 = 0, p90 = 0, p98 = 0, p99 = 0, p999 = 0, max = 0;
};

struct LatencyResult {
    uint64_t bytes = 0;
    std::vector<LatencyMode> modes;
};

struct AccessPoint {
    uint64_t bytes = 0, offset = 0, window = 0;
    std::string pattern, cache, memory;  // sequential|random, warm|cold, registered|huge-pages
    unsigned transfers = 0;
    double gbps = 0, mean_us = 0;
    bool offset_spread = false;   // the transfers spread over offsets 0-63 (`offset` unused)
    uint64_t bytes_verified = 0;  // every transfer's bytes: bytes x transfers
    std::string offset_text() const { return offset_spread ? "0-63" : std::to_string(offset); }
};

struct AccessResult {
    Direction direction = Direction::H2C;
    unsigned in_flight = 1;
    std::vector<AccessPoint> points;
};

struct InflightPoint {
    Direction direction = Direction::H2C;
    uint64_t bytes = 0;
    MeanInterval one_at_a_time_gbps;
    std::optional<MeanInterval> one_queue_gbps, two_queues_gbps;  // absent when the endpoint cannot
    std::optional<MeanInterval> one_queue_ratio, two_queues_ratio;
};

struct InflightResult {
    unsigned repeats = 0;
    std::vector<InflightPoint> points;
};

struct BidirResult {
    uint64_t bytes = 0;
    unsigned repeats = 0;
    MeanInterval h2c_alone, c2h_alone, h2c_both, c2h_both, sum_both;
};

struct LaunchResult {
    unsigned samples = 0, queued = 0;
    std::vector<double> single_us;
    double single_p50_us = 0;
    MeanInterval queued_per_launch_us;
};

struct LinkState {
    bool read = false;
    std::string speed;  // "16GT/s"
    unsigned width = 0;
    std::string text;   // "LnkSta: Speed 16GT/s, Width x8"
};

struct LinkProof {
    double measured_gbps = 0;
    std::string lowest;                 // "Gen4 x4"; empty when no link carries it
    std::vector<std::string> by_width;  // "x4: Gen4 (7.88 GB/s)"
    std::string lnksta_under_load;
    std::string assumption;
};

struct CeilingInputs {
    double active_bytes_per_token = 0;
    double resident_fraction = 0;
    double host_ram_gbps = 0;  // 0: use the measured memcpy rate
};

struct CeilingResult {
    double h2d_gbps = 0;
    std::string source;  // "sweep" or the result file read
    CeilingInputs inputs;
    double link_ms_per_token = 0, tokens_per_s = 0, tokens_per_s_resident = 0;
    double host_ram_gbps = 0, host_ram_tokens_per_s = 0;
    std::string host_ram_source;
};

struct PredictionResult {
    std::string name;
    double low = 0, high = 0;
    std::optional<double> measured_low, measured_high;
    std::string verdict;  // pass | fail | inconclusive
    std::string note;
};

struct PredictionsRecord {
    std::string file, sha256;
    std::vector<PredictionResult> results;
};

struct HostContext {
    std::string hostname, cpu, kernel, kernel_cmdline, iommu_mode;
    unsigned cores = 0;
    uint64_t iommu_page_size = 0;
    int numa_node = -1;
};

// The design's temperature over the run (the board-health watch of the tool main): the hottest
// reading at the end, the hottest seen during the run and which sensor.
struct BoardHealthRecord {
    double celsius = 0;
    double max_celsius = 0;
    std::string sensor;
};

struct RunResult {
    std::string command, started_utc;
    double duration_s = 0;
    HostContext host;
    std::string adapter;  // model | xdma | cuda | etsoc1
    EndpointInfo endpoint;
    LinkState link_before, link_under_load, link_after;
    bool link_changed = false;
    std::string pci_info_before, pci_info_after;
    std::optional<PredictionsRecord> predictions;
    std::string verdict;
    std::vector<std::string> warnings, failures, skipped;
    uint64_t bytes_verified = 0;
    std::optional<SweepResult> sweep;
    std::optional<LatencyResult> latency;
    std::optional<AccessResult> access;
    std::optional<InflightResult> inflight;
    std::optional<BidirResult> bidir;
    std::optional<LaunchResult> launch;
    std::optional<LinkProof> link_proof;
    std::optional<CeilingResult> ceiling;
    std::optional<BoardHealthRecord> board_health;  // designs with sensors only
    // The IP's own count of every copy of the run, where it keeps one (CopyEndpoint::ip_counts:
    // XDMA's performance monitors), a line for each channel that counted.
    std::vector<std::string> ip_counts;
};

// Calls visit(name, result) for each section the run holds, in the order its JSON and its text
// give them: sweep, latency, access, inflight, bidir, launch, link_proof, ceiling.
template <typename Visit>
void for_each_section(const RunResult& r, const Visit& visit) {
    auto section = [&](const char* name, const auto& result) {
        if (result)
            visit(name, *result);
    };
    section("sweep", r.sweep);
    section("latency", r.latency);
    section("access", r.access);
    section("inflight", r.inflight);
    section("bidir", r.bidir);
    section("launch", r.launch);
    section("link_proof", r.link_proof);
    section("ceiling", r.ceiling);
}

nlohmann::json to_json(const RunResult& result);
nlohmann::json to_json(const SweepResult& sweep);
// The fields of a sweep that ceiling reads back from a result file.
pdt::Result<std::map<std::string, double>> read_large_copy_rates(const nlohmann::json& result, const std::string& file);

}  // namespace measure
