#include "measure/results.hpp"

#include "vfio_access/physical_memory.hpp"

namespace measure {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// {"<stem>": mean, "<stem ci99_low...>"}: mean_gbps, ci99_low_gbps, ci99_high_gbps, runs.
void put_interval(json& j, const std::string& stem, const std::string& unit, const MeanInterval& m) {
    j[stem.empty() ? "mean_" + unit : stem + "_" + unit] = m.mean;
    j[stem.empty() ? "ci99_low_" + unit : stem + "_ci99_low_" + unit] = optional_number(m.low);
    j[stem.empty() ? "ci99_high_" + unit : stem + "_ci99_high_" + unit] = optional_number(m.high);
}

json link_json(const LinkState& s) {
    if (!s.read)
        return nullptr;
    return {{"speed", s.speed}, {"width", s.width}, {"text", s.text}};
}

json to_json(const LatencyResult& l) {
    json modes = json::array();
    for (const LatencyMode& m : l.modes)
        modes.push_back({{"direction", to_string(m.direction)}, {"mode", m.mode}, {"samples_us", m.samples_us},
                         {"p50_us", m.p50}, {"p90_us", m.p90}, {"p98_us", m.p98}, {"p99_us", m.p99},
                         {"p999_us", m.p999}, {"max_us", m.max}});
    return {{"bytes", l.bytes}, {"modes", modes}};
}

json to_json(const AccessResult& a) {
    json points = json::array();
    for (const AccessPoint& p : a.points)
        points.push_back({{"bytes", p.bytes}, {"offset", p.offset_spread ? json("0-63") : json(p.offset)},
                          {"window_bytes", p.window}, {"pattern", p.pattern}, {"cache", p.cache}, {"memory", p.memory},
                          {"transfers", p.transfers}, {"bytes_verified", p.bytes_verified}, {"gbps", p.gbps},
                          {"mean_us", p.mean_us}});
    return {{"direction", to_string(a.direction)}, {"in_flight", a.in_flight}, {"points", points}};
}

json to_json(const InflightResult& r) {
    json points = json::array();
    for (const InflightPoint& p : r.points) {
        json j = {{"direction", to_string(p.direction)}, {"bytes", p.bytes}};
        put_interval(j, "one_at_a_time", "gbps", p.one_at_a_time_gbps);
        if (p.one_queue_gbps) {
            put_interval(j, "two_in_one_queue", "gbps", *p.one_queue_gbps);
            put_interval(j, "two_in_one_queue", "ratio", *p.one_queue_ratio);
        }
        if (p.two_queues_gbps) {
            put_interval(j, "one_in_each_of_two_queues", "gbps", *p.two_queues_gbps);
            put_interval(j, "one_in_each_of_two_queues", "ratio", *p.two_queues_ratio);
        }
        points.push_back(j);
    }
    return {{"repeats", r.repeats}, {"points", points}};
}

json to_json(const BidirResult& b) {
    json j = {{"bytes", b.bytes}, {"repeats", b.repeats}};
    put_interval(j, "h2c_alone", "gbps", b.h2c_alone);
    put_interval(j, "c2h_alone", "gbps", b.c2h_alone);
    put_interval(j, "h2c_both", "gbps", b.h2c_both);
    put_interval(j, "c2h_both", "gbps", b.c2h_both);
    put_interval(j, "sum_both", "gbps", b.sum_both);
    return j;
}

json to_json(const LaunchResult& l) {
    json j = {{"samples", l.samples}, {"queued", l.queued}, {"single_us", l.single_us},
              {"single_p50_us", l.single_p50_us}};
    put_interval(j, "queued_per_launch", "us", l.queued_per_launch_us);
    return j;
}

json to_json(const CeilingResult& c) {
    return {{"h2d_gbps", c.h2d_gbps}, {"source", c.source},
            {"active_bytes_per_token", c.inputs.active_bytes_per_token},
            {"resident_fraction", c.inputs.resident_fraction}, {"link_ms_per_token", c.link_ms_per_token},
            {"tokens_per_s", c.tokens_per_s}, {"tokens_per_s_with_resident", c.tokens_per_s_resident},
            {"host_ram_gbps", c.host_ram_gbps}, {"host_ram_source", c.host_ram_source},
            {"host_ram_tokens_per_s", c.host_ram_tokens_per_s}};
}

json to_json(const LinkProof& p) {
    return {{"measured_gbps", p.measured_gbps}, {"lowest", p.lowest}, {"by_width", p.by_width},
            {"lnksta_under_load", p.lnksta_under_load}, {"assumption", p.assumption}};
}

json predictions_json(const PredictionsRecord& p) {
    json results = json::array();
    for (const PredictionResult& r : p.results)
        results.push_back({{"name", r.name}, {"low", r.low}, {"high", r.high},
                           {"measured_low", optional_number(r.measured_low)},
                           {"measured_high", optional_number(r.measured_high)}, {"verdict", r.verdict},
                           {"note", r.note}});
    return {{"file", p.file}, {"sha256", p.sha256}, {"results", results}};
}

}  // namespace

json to_json(const SweepResult& s) {
    json points = json::array();
    for (const SweepPoint& p : s.points) {
        json j = {{"direction", to_string(p.direction)}, {"path", p.path}, {"bytes", p.bytes},
                  {"run_medians_gbps", p.run_medians_gbps}};
        put_interval(j, "", "gbps", p.rate);
        points.push_back(j);
    }
    json staged = json::array();
    for (const StagedModelPoint& m : s.staged_model)
        staged.push_back({{"direction", to_string(m.direction)}, {"bytes", m.bytes}, {"model_gbps", m.model_gbps},
                          {"measured_gbps", m.measured_gbps}});
    json out = {{"repeats", s.repeats},
            {"memcpy_gbps", s.memcpy_gbps},
            {"memcpy_bytes", s.memcpy_bytes},
            {"points", points},
            {"large_copy_gbps", s.large_copy_gbps},
            {"half_rate_bytes", s.half_rate_bytes},
            {"ninety_rate_bytes", s.ninety_rate_bytes},
            {"staged_model", staged},
            {"reference_runs_gbps", s.reference_runs_gbps},
            {"reference_spread", s.reference_spread},
            {"disturbed_bound", s.disturbed_bound},
            {"disturbed", s.disturbed}};
    if (s.staged.chunk_bytes) {
        json calibration = json::array();
        for (const CalibrationPoint& c : s.staged.calibration)
            calibration.push_back({{"direction", to_string(c.direction)}, {"bytes", c.bytes}, {"gbps", c.gbps}});
        out["staged_pipeline"] = {{"chunk_bytes", s.staged.chunk_bytes}, {"depth", s.staged.depth},
                                  {"why", s.staged.why}, {"calibration", calibration}};
    }
    if (!s.pageable_skipped.empty())
        out["pageable_skipped"] = s.pageable_skipped;
    return out;
}

json to_json(const RunResult& r) {
    json j = {{"schema", "pcie_link_measure/1"}, {"command", r.command}, {"started_utc", r.started_utc},
              {"duration_s", r.duration_s}};
    j["host"] = {{"hostname", r.host.hostname}, {"cpu", r.host.cpu}, {"cores", r.host.cores},
                 {"kernel", r.host.kernel}, {"kernel_cmdline", r.host.kernel_cmdline},
                 {"iommu_mode", r.host.iommu_mode}, {"iommu_page_size", r.host.iommu_page_size},
                 {"numa_node", r.host.numa_node}};
    const EndpointInfo& e = r.endpoint;
    j["endpoint"] = {{"adapter", r.adapter}, {"name", e.name}, {"pci_address", e.pci_address},
                     {"card_memory_bytes", e.card_memory_bytes}, {"max_copy_bytes", e.max_copy_bytes},
                     {"queues", e.queues}, {"max_in_flight", e.max_in_flight}, {"can_launch", e.can_launch},
                     {"driver_stages", e.driver_stages}};
    if (!e.engine_mode.empty()) {
        j["endpoint"]["engine_mode"] = e.engine_mode;
        j["endpoint"]["completion"] = e.completion;
    }
    j["link"] = {{"before", link_json(r.link_before)}, {"under_load", link_json(r.link_under_load)},
                 {"after", link_json(r.link_after)}, {"changed", r.link_changed}};
    j["pci_info_before"] = r.pci_info_before;
    j["pci_info_after"] = r.pci_info_after;
    j["predictions"] = r.predictions ? predictions_json(*r.predictions) : json(nullptr);
    if (r.board_health)
        j["board_health"] = {{"temperature_c", r.board_health->celsius},
                             {"max_temperature_c", r.board_health->max_celsius},
                             {"temperature_sensor", r.board_health->sensor}};
    j["ip_counts"] = r.ip_counts;
    j["verdict"] = r.verdict;
    if (vfio::process_dma_addressing() == vfio::DmaAddressing::Physical)
        j["dma_addressing"] = vfio::to_string(vfio::DmaAddressing::Physical);
    j["warnings"] = r.warnings;
    j["failures"] = r.failures;
    j["skipped"] = r.skipped;
    j["bytes_verified"] = r.bytes_verified;
    for_each_section(r, [&](const char* name, const auto& section) { j[name] = to_json(section); });
    return j;
}

pdt::Result<std::map<std::string, double>> read_large_copy_rates(const nlohmann::json& result, const std::string& file) {
    if (!result.is_object() || result.value("schema", "") != "pcie_link_measure/1")
        return pdt::usage_error("read result", file, "not a pcie_link_measure/1 result file");
    if (result.value("verdict", "") == "FAIL")
        return pdt::usage_error("read result", file, "its verdict is FAIL: its rates are not to be used");
    const auto sweep = result.find("sweep");
    if (sweep == result.end() || !sweep->contains("large_copy_gbps") || !(*sweep)["large_copy_gbps"].is_object())
        return pdt::usage_error("read result", file, "it holds no sweep.large_copy_gbps");
    std::map<std::string, double> out;
    for (auto it = (*sweep)["large_copy_gbps"].begin(); it != (*sweep)["large_copy_gbps"].end(); ++it)
        if (it.value().is_number())
            out[it.key()] = it.value().get<double>();
    return out;
}

}  // namespace measure
