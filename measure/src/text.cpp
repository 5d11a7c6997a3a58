#include "measure/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "measure/copying.hpp"
#include "vfio_access/physical_memory.hpp"

namespace measure {
namespace {

// `digits` decimals; a value too small to show in them (edu's ~0.00002 GB/s) gets three
// significant digits instead of reading as zero.
std::string num(double v, int digits = 3) {
    if (v != 0 && std::fabs(v) < std::pow(10.0, -digits) && std::isfinite(v))
        digits = std::min(12, 2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

std::string interval(const MeanInterval& m, const std::string& unit, int digits = 3) {
    std::string text = num(m.mean, digits) + " " + unit;
    if (m.low && m.high)
        text += " (99% CI " + num(*m.low, digits) + ".." + num(*m.high, digits) + ", " + std::to_string(m.count) + " runs)";
    else if (m.count > 1)
        text += " (" + std::to_string(m.count) + " runs, no interval)";
    return text;
}

std::string padded(const std::string& text, size_t width) {
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// The staged pipeline, its measured rate over the serial model and over the driver's own
// staging of pageable memory, at the largest size.
void print_staged(const SweepResult& s, std::ostream& out) {
    if (s.staged.chunk_bytes)
        out << "  staged pipeline: chunk " << format_bytes(s.staged.chunk_bytes) << ", depth " << s.staged.depth << ": "
            << s.staged.why << "\n";
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        std::string curve;
        for (const CalibrationPoint& c : s.staged.calibration)
            if (c.direction == d)
                curve += (curve.empty() ? "" : ", ") + format_bytes(c.bytes) + " " + num(c.gbps);
        if (!curve.empty())
            out << "  staged calibration " << to_string(d) << " direct: " << curve << " GB/s\n";
    }
    for (const StagedModelPoint& m : s.staged_model) {
        if (m.bytes != s.memcpy_bytes)
            continue;
        const double over = m.model_gbps > 0 ? m.measured_gbps / m.model_gbps : 0;
        out << "  " << to_string(m.direction) << " staged " << format_bytes(m.bytes) << ": measured "
            << num(m.measured_gbps) << " GB/s, model 1/(1/DMA + 1/memcpy) " << num(m.model_gbps) << " GB/s: "
            << (over > 1 ? "beats the serial model by " + num(over, 2) + "x"
                         : "below the serial model (" + num(over, 2) + "x)")
            << "\n";
    }
    for (Direction d : {Direction::H2C, Direction::C2H}) {
        const SweepPoint* staged = s.largest(d, "staged");
        const SweepPoint* pageable = s.largest(d, "pageable");
        if (staged && pageable && pageable->rate.mean > 0)
            out << "  " << to_string(d) << " staged / driver pageable " << format_bytes(pageable->bytes) << ": "
                << num(staged->rate.mean) << " / " << num(pageable->rate.mean)
                << " GB/s = " << num(staged->rate.mean / pageable->rate.mean, 2) << "\n";
    }
    if (!s.pageable_skipped.empty())
        out << "  driver pageable copy: not measured: " << s.pageable_skipped << "\n";
}

void print(const SweepResult& s, std::ostream& out) {
    out << "sweep: mean of " << s.repeats << " run medians per size\n";
    for (const SweepPoint& p : s.points)
        out << "  " << padded(format_bytes(p.bytes), 8) << "  " << to_string(p.direction) << "  " << p.path << "  "
            << interval(p.rate, "GB/s") << "\n";
    for (const auto& [key, rate] : s.large_copy_gbps) {
        out << "  " << key << ": large-copy rate " << num(rate) << " GB/s";
        if (s.half_rate_bytes.count(key))
            out << "; half of it from " << format_bytes(s.half_rate_bytes.at(key));
        if (s.ninety_rate_bytes.count(key))
            out << "; 90% from " << format_bytes(s.ninety_rate_bytes.at(key));
        out << "\n";
    }
    if (s.memcpy_gbps > 0)
        out << "  host memcpy " << num(s.memcpy_gbps) << " GB/s (" << format_bytes(s.memcpy_bytes) << ")\n";
    if (!s.reference_runs_gbps.empty()) {
        out << "  host reference after each run (memcpy):";
        for (double r : s.reference_runs_gbps)
            out << " " << num(r);
        out << " GB/s, spread " << num(100 * s.reference_spread, 1) << "%\n";
    }
    if (s.disturbed)
        out << "  DISTURBED: the host reference spread " << num(100 * s.reference_spread, 1) << "% (over "
            << num(100 * s.disturbed_bound, 1) << "%) between runs: these rates are the disturbed host's, not the "
               "device's\n";
    print_staged(s, out);
}

void print(const LatencyResult& l, std::ostream& out) {
    out << "latency: " << format_bytes(l.bytes) << " copies, issue to completion (us)\n";
    for (const LatencyMode& m : l.modes)
        out << "  " << to_string(m.direction) << " " << m.mode << " (" << m.samples_us.size() << "): p50 " << num(m.p50, 1)
            << "  p90 " << num(m.p90, 1) << "  p98 " << num(m.p98, 1) << "  p99 " << num(m.p99, 1) << "  p99.9 "
            << num(m.p999, 1) << "  max " << num(m.max, 1) << "\n";
}

void print(const AccessResult& a, std::ostream& out) {
    out << "access: " << to_string(a.direction) << ", " << a.in_flight << " in flight, every transfer's bytes checked\n";
    for (const AccessPoint& p : a.points)
        out << "  " << padded(format_bytes(p.bytes), 8) << " +" << p.offset_text() << "  window " << format_bytes(p.window)
            << "  " << p.pattern << " " << p.cache << " " << p.memory << "  " << num(p.gbps, 4) << " GB/s  ("
            << num(p.mean_us, 2) << " us each)\n";
}

void print(const InflightResult& r, std::ostream& out) {
    out << "inflight: two copies against one at a time (rate ratios, " << r.repeats << " runs)\n";
    for (const InflightPoint& p : r.points) {
        out << "  " << padded(format_bytes(p.bytes), 8) << "  " << to_string(p.direction) << "  one at a time "
            << interval(p.one_at_a_time_gbps, "GB/s") << "\n";
        if (p.one_queue_ratio)
            out << "            two in one queue " << interval(*p.one_queue_ratio, "x") << "\n";
        if (p.two_queues_ratio)
            out << "            one in each of two queues " << interval(*p.two_queues_ratio, "x") << "\n";
    }
}

void print(const BidirResult& b, std::ostream& out) {
    out << "bidir: " << format_bytes(b.bytes) << " copies, both directions at once\n"
        << "  H2C alone " << interval(b.h2c_alone, "GB/s") << "\n  C2H alone " << interval(b.c2h_alone, "GB/s")
        << "\n  H2C both " << interval(b.h2c_both, "GB/s") << "\n  C2H both " << interval(b.c2h_both, "GB/s")
        << "\n  sum " << interval(b.sum_both, "GB/s") << "\n";
}

void print(const LaunchResult& l, std::ostream& out) {
    out << "launch: one empty kernel waited for, p50 " << num(l.single_p50_us, 1) << " us (" << l.samples
        << " launches)\n  " << l.queued << " queued at once: " << interval(l.queued_per_launch_us, "us", 2)
        << " per launch\n";
}

void print(const CeilingResult& c, std::ostream& out) {
    out << "ceiling: " << num(c.inputs.active_bytes_per_token / 1e9) << " GB active per token over H2C "
        << num(c.h2d_gbps) << " GB/s (" << c.source << "): " << num(c.link_ms_per_token, 1) << " ms/token = "
        << num(c.tokens_per_s, 2) << " tokens/s; " << num(c.tokens_per_s_resident, 2) << " with "
        << num(100 * c.inputs.resident_fraction, 0) << "% resident\n";
    if (c.host_ram_gbps > 0)
        out << "  computing in host RAM instead: " << num(c.host_ram_gbps, 1) << " GB/s (" << c.host_ram_source
            << ") bounds it at " << num(c.host_ram_tokens_per_s, 1) << " tokens/s\n";
}

void print(const LinkProof& p, std::ostream& out) {
    out << "link proof: " << num(p.measured_gbps) << " GB/s needs at least "
        << (p.lowest.empty() ? "more than any PCIe link" : p.lowest) << "; LnkSta under load: " << p.lnksta_under_load
        << "\n";
}

}  // namespace

void print_text(const RunResult& r, std::ostream& out) {
    out << "pcie_link_measure on " << r.endpoint.name << " (" << r.adapter << ")";
    if (!r.endpoint.pci_address.empty())
        out << " at " << r.endpoint.pci_address;
    out << "\n";
    if (const std::string addressing = vfio::dma_addressing_line(); !addressing.empty())
        out << addressing << "\n";
    if (!r.endpoint.engine_mode.empty())
        out << r.adapter << " engines: engine mode " << r.endpoint.engine_mode << ", completion "
            << r.endpoint.completion << "\n";
    if (r.link_before.read)
        out << "link before: " << r.link_before.text << "\n";
    for_each_section(r, [&](const char*, const auto& section) { print(section, out); });
    if (r.predictions)
        for (const PredictionResult& p : r.predictions->results)
            out << "prediction " << p.name << " [" << num(p.low) << ", " << num(p.high) << "]: " << p.verdict
                << (p.measured_low && p.measured_high
                        ? " (measured " + num(*p.measured_low) + "-" + num(*p.measured_high) + ")"
                        : "")
                << (p.note.empty() ? "" : " " + p.note) << "\n";
    for (const std::string& line : r.ip_counts)
        out << "IP, every copy of the run: " << line << "\n";
    if (r.board_health)
        out << "board health: temperature " << num(r.board_health->celsius, 1) << " C (max "
            << num(r.board_health->max_celsius, 1) << " C, " << r.board_health->sensor << ")\n";
    for (const std::string& w : r.warnings)
        out << "Warning: " << w << "\n";
    for (const std::string& f : r.failures)
        out << "Failure: " << f << "\n";
    out << "Verdict: " << r.verdict << " (" << r.bytes_verified << " bytes verified)\n";
}

}  // namespace measure
