// Campaign files: the steps (subcommands with their settings), repeats and thresholds a lab
// reruns on every card. Format in measure/README.md.
#include <set>

#include "measure/tool.hpp"

namespace measure {
namespace {

using nlohmann::json;

pdt::Error bad(const std::string& file, const std::string& hint) {
    return pdt::usage_error("campaign", file, hint);
}

pdt::Result<uint64_t> size_field(const json& j, const std::string& key, uint64_t fallback) {
    if (!j.contains(key))
        return fallback;
    if (j[key].is_number_unsigned())
        return j[key].get<uint64_t>();
    if (j[key].is_string())
        return parse_size(j[key].get<std::string>());
    return pdt::usage_error("campaign", key, "expected bytes (a number or \"64MiB\")");
}

pdt::Result<std::vector<uint64_t>> size_list(const json& j, const std::string& key, std::vector<uint64_t> fallback) {
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_array())
        return pdt::usage_error("campaign", key, "expected a list of sizes");
    std::vector<uint64_t> out;
    for (const json& v : j[key])
        out.push_back(v.is_string() ? PDT_TRY(parse_size(v.get<std::string>())) : v.get<uint64_t>());
    return out;
}

const std::map<std::string, std::set<std::string>> kStepKeys = {
    {"sweep", {"min_bytes", "max_bytes", "repeats", "iterations", "staged", "staged_chunk", "staged_depth"}},
    {"latency", {"bytes", "samples", "max_gap_us"}},
    {"access", {"sizes", "offsets", "windows", "transfers"}},
    {"inflight", {"sizes", "repeats"}},
    {"bidir", {"bytes", "repeats", "copies"}},
    {"launch", {"samples", "queued", "repeats"}},
    {"ceiling", {"active_bytes", "resident_fraction", "host_ram_gbps"}},
};

pdt::Result<void> apply_step(const json& s, const std::string& name, ToolOptions& o) {
    const unsigned repeats = s.value("repeats", 0u);
    if (name == "sweep") {
        o.sweep.min_bytes = PDT_TRY(size_field(s, "min_bytes", o.sweep.min_bytes));
        o.sweep.max_bytes = PDT_TRY(size_field(s, "max_bytes", o.sweep.max_bytes));
        o.sweep.repeats = repeats ? repeats : o.sweep.repeats;
        o.sweep.iterations = s.value("iterations", o.sweep.iterations);
        o.sweep.staged = s.value("staged", o.sweep.staged);
        o.sweep.staged_chunk = PDT_TRY(size_field(s, "staged_chunk", o.sweep.staged_chunk));
        o.sweep.staged_depth = s.value("staged_depth", o.sweep.staged_depth);
        if (o.sweep.staged_chunk % 64 != 0 || o.sweep.staged_depth > 64)
            return pdt::usage_error("campaign", "sweep staged_chunk/staged_depth",
                                    "expected a chunk of a multiple of 64 bytes and 0 to 64 bounce slots (0: from the "
                                    "measured curve)");
    } else if (name == "latency") {
        o.latency.bytes = PDT_TRY(size_field(s, "bytes", o.latency.bytes));
        o.latency.samples = s.value("samples", o.latency.samples);
        o.latency.max_gap_us = s.value("max_gap_us", o.latency.max_gap_us);
    } else if (name == "access") {
        o.access.sizes = PDT_TRY(size_list(s, "sizes", o.access.sizes));
        o.access.offsets = PDT_TRY(size_list(s, "offsets", o.access.offsets));
        o.access.windows = PDT_TRY(size_list(s, "windows", o.access.windows));
        o.access.transfers = s.value("transfers", o.access.transfers);
    } else if (name == "inflight") {
        o.inflight.sizes = PDT_TRY(size_list(s, "sizes", o.inflight.sizes));
        o.inflight.repeats = repeats ? repeats : o.inflight.repeats;
    } else if (name == "bidir") {
        o.bidir.bytes = PDT_TRY(size_field(s, "bytes", o.bidir.bytes));
        o.bidir.repeats = repeats ? repeats : o.bidir.repeats;
        o.bidir.copies = s.value("copies", o.bidir.copies);
    } else if (name == "launch") {
        o.launch.samples = s.value("samples", o.launch.samples);
        o.launch.queued = s.value("queued", o.launch.queued);
        o.launch.repeats = repeats ? repeats : o.launch.repeats;
    } else if (name == "ceiling") {
        o.ceiling.active_bytes_per_token =
            static_cast<double>(PDT_TRY(size_field(s, "active_bytes", uint64_t(o.ceiling.active_bytes_per_token))));
        o.ceiling.resident_fraction = s.value("resident_fraction", o.ceiling.resident_fraction);
        o.ceiling.host_ram_gbps = s.value("host_ram_gbps", o.ceiling.host_ram_gbps);
    }
    return {};
}

pdt::Result<void> apply_thresholds(const json& c, const std::string& file, ToolOptions& o) {
    if (!c.contains("thresholds"))
        return {};
    if (!c["thresholds"].is_array())
        return bad(file, "thresholds: expected a list of {\"metric\", \"min\", \"max\"}");
    for (const json& t : c["thresholds"]) {
        if (!t.is_object() || !t.contains("metric") || !t["metric"].is_string() || (!t.contains("min") && !t.contains("max")))
            return bad(file, "each threshold needs a metric and a min or a max");
        Threshold th{t["metric"].get<std::string>(), std::nullopt, std::nullopt};
        if (t.contains("min"))
            th.min = t["min"].get<double>();
        if (t.contains("max"))
            th.max = t["max"].get<double>();
        o.thresholds.push_back(th);
    }
    return {};
}

}  // namespace

pdt::Result<void> apply_campaign(const json& c, const std::string& file, ToolOptions& o) {
    try {
        if (!c.is_object() || !c.contains("steps") || !c["steps"].is_array() || c["steps"].empty())
            return bad(file, "expected {\"steps\": [{\"subcommand\": \"sweep\", ...}, ...]}");
        if (c.contains("repeats")) {
            const unsigned r = c["repeats"].get<unsigned>();
            if (r == 0)
                return bad(file, "repeats: expected 1 or more");
            o.sweep.repeats = o.inflight.repeats = o.bidir.repeats = o.launch.repeats = r;
        }
        o.steps.clear();
        for (const json& s : c["steps"]) {
            const std::string name = s.is_object() ? s.value("subcommand", "") : "";
            const auto keys = kStepKeys.find(name);
            if (keys == kStepKeys.end())
                return bad(file, "step \"" + name + "\": not a subcommand a campaign runs");
            for (auto it = s.begin(); it != s.end(); ++it)
                if (it.key() != "subcommand" && !keys->second.count(it.key()))
                    return bad(file, "step " + name + ": unknown setting \"" + it.key() + "\"");
            if (std::find(o.steps.begin(), o.steps.end(), name) != o.steps.end())
                return bad(file, "step " + name + " appears twice");
            PDT_CHECK(apply_step(s, name, o));
            o.steps.push_back(name);
        }
        PDT_CHECK(apply_thresholds(c, file, o));
    } catch (const json::exception& e) {
        return bad(file, std::string("a setting has the wrong type: ") + e.what());
    }
    return {};
}

}  // namespace measure
