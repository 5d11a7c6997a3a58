// One run of pcie_link_measure: context before, the steps, context after, link proof,
// ceiling, predictions, thresholds, the verdict, and the outputs.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "measure/analysis.hpp"
#include "measure/context.hpp"
#include "measure/sha256.hpp"
#include "measure/text.hpp"
#include "measure/tool.hpp"

namespace measure {
namespace {

struct Run {
    const ToolOptions& options;
    CopyEndpoint& endpoint;
    Progress& progress;
    RunResult& result;
    std::ostream& err;
};

// A step's error: SKIPPED when the endpoint cannot (ENOTSUP), else a failure; a failed data
// check says that no rate is reported.
void record_error(Run& run, const std::string& step, const pdt::Error& e) {
    if (e.code == ENOTSUP) {
        run.result.skipped.push_back(step + ": " + e.message());
        return;
    }
    std::string text = step + ": " + e.message();
    if (e.operation.find("data check") != std::string::npos)
        text += " (no rate reported)";
    run.result.failures.push_back(text);
    (void)run.endpoint.reset_queues();
}

pdt::Result<void> run_ceiling(Run& run) {
    double h2d = 0;
    CeilingResult c;
    if (!run.options.ceiling_from.empty()) {
        std::ifstream in(run.options.ceiling_from);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception& e) {
            return pdt::usage_error("read result", run.options.ceiling_from, e.what());
        }
        const auto rates = PDT_TRY(read_large_copy_rates(j, run.options.ceiling_from));
        const auto it = rates.find("H2C/direct");
        h2d = it == rates.end() ? 0 : it->second;
        c = PDT_TRY(compute_ceiling(h2d, run.options.ceiling,
                                    j["sweep"].value("memcpy_gbps", 0.0)));
        c.source = run.options.ceiling_from;
    } else {
        if (!run.result.sweep) {
            uint64_t& verified = run.result.bytes_verified;
            run.result.sweep = PDT_TRY(
                run_sweep(run.endpoint, run.options.sweep, run.options.common, run.progress, verified, run.result.warnings));
        }
        const auto it = run.result.sweep->large_copy_gbps.find("H2C/direct");
        h2d = it == run.result.sweep->large_copy_gbps.end() ? 0 : it->second;
        c = PDT_TRY(compute_ceiling(h2d, run.options.ceiling, run.result.sweep->memcpy_gbps));
        c.source = "sweep";
    }
    run.result.ceiling = c;
    return {};
}

pdt::Result<void> run_step(Run& run, const std::string& step) {
    const ToolOptions& o = run.options;
    RunResult& r = run.result;
    uint64_t& verified = r.bytes_verified;
    if (step == "sweep")
        r.sweep = PDT_TRY(run_sweep(run.endpoint, o.sweep, o.common, run.progress, verified, r.warnings));
    else if (step == "latency")
        r.latency = PDT_TRY(run_latency(run.endpoint, o.latency, o.common, run.progress, verified, r.warnings));
    else if (step == "access")
        r.access = PDT_TRY(run_access(run.endpoint, o.access, o.common, run.progress, verified, r.warnings));
    else if (step == "inflight")
        r.inflight = PDT_TRY(run_inflight(run.endpoint, o.inflight, o.common, run.progress, verified, r.warnings));
    else if (step == "bidir")
        r.bidir = PDT_TRY(run_bidir(run.endpoint, o.bidir, o.common, run.progress, verified));
    else if (step == "launch")
        r.launch = PDT_TRY(run_launch(run.endpoint, o.launch, o.common, run.progress, verified));
    else if (step == "ceiling")
        PDT_CHECK(run_ceiling(run));
    return {};
}

void add_link_proof(RunResult& r) {
    if (!r.sweep || !r.failures.empty())
        return;
    double best = 0;
    for (const char* key : {"H2C/direct", "C2H/direct"}) {
        const auto it = r.sweep->large_copy_gbps.find(key);
        if (it != r.sweep->large_copy_gbps.end())
            best = std::max(best, it->second);
    }
    const LinkState& load = r.link_under_load.read ? r.link_under_load : r.link_before;
    r.link_proof = prove_link(best, load.read ? load.width : 0, load.read ? load.text : "not read");
}

std::string decide_verdict(RunResult& r, size_t steps, const std::string& rates_from) {
    if (!r.failures.empty())
        return "FAIL";
    if (r.skipped.size() == steps)
        return "SKIPPED";
    if (r.bytes_verified == 0 && !rates_from.empty() && r.ceiling) {
        r.warnings.push_back("nothing measured in this run: the rate comes from " + rates_from +
                             ", whose run verified its bytes");
    } else if (r.bytes_verified == 0) {
        r.failures.push_back("no bytes were verified: nothing was measured with its data checked");
        return "FAIL";
    }
    for (const std::string& s : r.skipped)
        r.warnings.push_back("skipped " + s);
    return r.warnings.empty() ? "PASS" : "PASS WITH WARNINGS";
}

pdt::Result<void> write_outputs(const ToolOptions& o, const RunResult& r) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(o.output_dir, ec);
    if (ec)
        return pdt::make_error("create directory", o.output_dir, ec.value());
    std::ofstream json(fs::path(o.output_dir) / "result.json");
    json << to_json(r).dump(2) << "\n";
    if (!json)
        return pdt::make_error("write", (fs::path(o.output_dir) / "result.json").string(), EIO);
    if (r.latency) {
        std::ofstream csv(fs::path(o.output_dir) / "latency_samples.csv");
        csv << "direction,mode,index,latency_us\n";
        for (const LatencyMode& m : r.latency->modes)
            for (size_t i = 0; i < m.samples_us.size(); ++i)
                csv << to_string(m.direction) << "," << m.mode << "," << i << "," << m.samples_us[i] << "\n";
        if (!csv)
            return pdt::make_error("write", (fs::path(o.output_dir) / "latency_samples.csv").string(), EIO);
    }
    return {};
}

// Reads and hashes the predictions file before anything is timed. Its errors are usage errors (exit 2).
pdt::Result<std::vector<Prediction>> read_predictions(const ToolOptions& o, RunResult& r, std::ostream& out) {
    std::ifstream in(o.predictions_file, std::ios::binary);
    if (!in)
        return pdt::usage_error("read predictions", o.predictions_file, "cannot read the file");
    std::stringstream text;
    text << in.rdbuf();
    auto predictions = PDT_TRY(parse_predictions(text.str(), o.predictions_file));
    r.predictions = PredictionsRecord{o.predictions_file, sha256_hex(text.str()), {}};
    out << "Predictions " << o.predictions_file << " sha256 " << r.predictions->sha256 << " ("
        << predictions.size() << " ranges, read before the run)\n";
    return predictions;
}

}  // namespace

int run_tool(const ToolOptions& o, CopyEndpoint& endpoint, const std::string& adapter, std::ostream& out,
             std::ostream& err, Progress& progress) {
    const auto start = Clock::now();
    RunResult r;
    r.command = o.command_line;
    r.started_utc = utc_now();
    r.adapter = adapter;
    r.endpoint = endpoint.info();
    r.host = capture_host(endpoint.info().pci_address);
    std::vector<Prediction> predictions;
    if (!o.predictions_file.empty()) {
        auto p = read_predictions(o, r, o.json ? err : out);
        if (!p) {
            err << "pcie_link_measure: " << p.error().message() << "\n";
            return 2;
        }
        predictions = std::move(*p);
    }
    std::unique_ptr<DeviceContext> device;
    if (!endpoint.info().pci_address.empty()) {
        auto d = DeviceContext::open(o.pci_access, endpoint.info().pci_address, o.simulated_topology);
        if (d) {
            device = std::move(*d);
            r.pci_info_before = device->pci_info();
            r.link_before = device->link();
            device->start_load_monitor();
        } else {
            r.warnings.push_back("no device context: " + d.error().message());
        }
    }
    Run run{o, endpoint, progress, r, err};
    const bool ip_counted = endpoint.start_ip_counts();
    for (const std::string& step : o.steps) {
        auto done = run_step(run, step);
        if (!done)
            record_error(run, step, done.error());
        if (o.health.trip)
            if (auto reason = o.health.trip())
                r.failures.push_back("board health: " + *reason);
        if (o.health.after_step)
            o.health.after_step(r);
        if (!r.failures.empty())
            break;  // a failed check, a broken endpoint or a card too hot: nothing after it is trusted
    }
    if (ip_counted)
        r.ip_counts = endpoint.ip_counts();
    if (o.health.temperature)
        r.board_health = o.health.temperature();
    if (device) {
        r.link_under_load = device->stop_load_monitor();
        r.link_after = device->link();
        r.pci_info_after = device->pci_info();
        r.link_changed = r.link_before.read && r.link_after.read &&
                         (r.link_before.speed != r.link_after.speed || r.link_before.width != r.link_after.width ||
                          (r.link_under_load.read && (r.link_under_load.speed != r.link_before.speed ||
                                                      r.link_under_load.width != r.link_before.width)));
        if (r.link_changed)
            r.warnings.push_back("the link changed during the run: before " + r.link_before.text + ", under load " +
                                 r.link_under_load.text + ", after " + r.link_after.text);
    }
    add_link_proof(r);
    const bool step_failed = !r.failures.empty();
    if (!step_failed) {
        const auto metrics = collect_metrics(r);
        for (const Prediction& p : predictions)
            r.predictions->results.push_back(judge(p, metrics));
        for (const std::string& f : check_thresholds(o.thresholds, metrics))
            r.failures.push_back(f);
    }
    if (step_failed)  // a failed check or a broken endpoint: the run reports no rates
        r.sweep.reset(), r.latency.reset(), r.access.reset(), r.inflight.reset(), r.bidir.reset(), r.launch.reset(),
            r.link_proof.reset(), r.ceiling.reset();
    const bool file_only = o.steps == std::vector<std::string>{"ceiling"} && !o.ceiling_from.empty();
    r.verdict = decide_verdict(r, o.steps.size(), file_only ? o.ceiling_from : "");
    r.duration_s = seconds_since(start);
    if (o.health.after_step)
        o.health.after_step(r);  // the verdict, for the metrics
    if (o.json)
        out << to_json(r).dump(2) << "\n";
    else
        print_text(r, out);
    if (!o.output_dir.empty()) {
        auto written = write_outputs(o, r);
        if (!written) {
            err << "pcie_link_measure: " << written.error().message() << "\n";
            return 1;
        }
    }
    if (r.verdict == "SKIPPED" || r.verdict == "FAIL") {
        for (const std::string& s : r.verdict == "FAIL" ? r.failures : r.skipped)
            err << "pcie_link_measure: " << s << "\n";
        return 1;
    }
    return 0;
}

}  // namespace measure
