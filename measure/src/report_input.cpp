// Reading result files of pcie_link_measure for the report: every field is checked for its type,
// and an error names the file and the field, so that a hand-edited or truncated file is found.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/text_file.hpp"
#include "measure/report.hpp"

namespace measure::report {

namespace {

using nlohmann::json;

constexpr std::string_view kSchemaPrefix = "pcie_link_measure/";

// Thrown inside this file only, caught in parse_run and turned into an Error.
struct FieldError {
    std::string field;
    std::string what;
};

std::string join(const std::string& parent, const std::string& key) { return parent.empty() ? key : parent + "." + key; }

const json* find(const json& object, const std::string& key) {
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

const json& need(const json& object, const std::string& key, const std::string& parent) {
    const json* value = find(object, key);
    if (value == nullptr)
        throw FieldError{join(parent, key), "missing"};
    return *value;
}

// The field `key` of `object` as a T, which `is_type` must accept (else a FieldError saying
// `expected`); absent or null: T{}, or a "missing" FieldError when required.
template <typename T>
T typed_at(const json& object, const std::string& key, const std::string& parent, bool required,
           bool (json::*is_type)() const noexcept, const char* expected) {
    const json* value = required ? &need(object, key, parent) : find(object, key);
    if (value == nullptr)
        return T{};
    if (!(value->*is_type)())
        throw FieldError{join(parent, key), expected};
    return value->get<T>();
}

std::string string_at(const json& object, const std::string& key, const std::string& parent, bool required = false) {
    return typed_at<std::string>(object, key, parent, required, &json::is_string, "expected a string");
}

double number_at(const json& object, const std::string& key, const std::string& parent, bool required = false) {
    return typed_at<double>(object, key, parent, required, &json::is_number, "expected a number");
}

uint64_t count_at(const json& object, const std::string& key, const std::string& parent, bool required = false) {
    return typed_at<uint64_t>(object, key, parent, required, &json::is_number_unsigned, "expected a whole number >= 0");
}

const json* object_at(const json& object, const std::string& key, const std::string& parent, bool required = false) {
    const json* value = required ? &need(object, key, parent) : find(object, key);
    if (value != nullptr && !value->is_object())
        throw FieldError{join(parent, key), "expected an object"};
    return value;
}

const json* array_at(const json& object, const std::string& key, const std::string& parent) {
    const json* value = find(object, key);
    if (value != nullptr && !value->is_array())
        throw FieldError{join(parent, key), "expected an array"};
    return value;
}

std::string item(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

// A number, or NaN where the field is absent or null (a figure not measured).
double optional_number_at(const json& object, const std::string& key, const std::string& parent) {
    return find(object, key) ? number_at(object, key, parent) : std::nan("");
}

std::vector<std::string> strings_at(const json& object, const std::string& key) {
    std::vector<std::string> out;
    if (const json* list = array_at(object, key, "")) {
        for (size_t i = 0; i < list->size(); ++i) {
            if (!(*list)[i].is_string())
                throw FieldError{item(key, i), "expected a string"};
            out.push_back((*list)[i].get<std::string>());
        }
    }
    return out;
}

std::vector<double> numbers_at(const json& object, const std::string& key, const std::string& parent) {
    std::vector<double> out;
    if (const json* list = array_at(object, key, parent)) {
        for (size_t i = 0; i < list->size(); ++i) {
            if ((*list)[i].is_null())
                continue;  // a value not measured (JSON has no NaN)
            if (!(*list)[i].is_number())
                throw FieldError{item(join(parent, key), i), "expected a number"};
            out.push_back((*list)[i].get<double>());
        }
    }
    return out;
}

// Each element of an array of objects, with its field path.
template <typename Fn>
void each_object(const json& object, const std::string& key, const std::string& parent, Fn fn) {
    const json* list = array_at(object, key, parent);
    if (list == nullptr)
        return;
    for (size_t i = 0; i < list->size(); ++i) {
        const std::string path = item(join(parent, key), i);
        if (!(*list)[i].is_object())
            throw FieldError{path, "expected an object"};
        fn((*list)[i], path);
    }
}

std::string direction_at(const json& object, const std::string& parent) {
    std::string direction = string_at(object, "direction", parent, true);
    if (direction != "H2C" && direction != "C2H")
        throw FieldError{join(parent, "direction"), "expected H2C or C2H, not \"" + direction + "\""};
    return direction;
}

LinkState link_state(const json* link, const std::string& key) {
    LinkState state;
    const json* value = link ? object_at(*link, key, "link") : nullptr;
    if (value == nullptr)
        return state;
    state.speed = string_at(*value, "speed", "link." + key);
    state.width = static_cast<int>(count_at(*value, "width", "link." + key));
    state.text = string_at(*value, "text", "link." + key);
    return state;
}

void read_context(const json& root, Run& run) {
    run.command = string_at(root, "command", "");
    run.started_utc = string_at(root, "started_utc", "");
    run.duration_s = number_at(root, "duration_s", "");
    const json& host = *object_at(root, "host", "", true);
    run.hostname = string_at(host, "hostname", "host", true);
    run.cpu = string_at(host, "cpu", "host");
    run.cores = static_cast<int64_t>(number_at(host, "cores", "host"));
    run.kernel = string_at(host, "kernel", "host");
    run.kernel_cmdline = string_at(host, "kernel_cmdline", "host");
    run.iommu_mode = string_at(host, "iommu_mode", "host");
    run.iommu_page_size = static_cast<int64_t>(number_at(host, "iommu_page_size", "host"));
    run.numa_node = find(host, "numa_node") ? static_cast<int64_t>(number_at(host, "numa_node", "host")) : -1;
    const json& endpoint = *object_at(root, "endpoint", "", true);
    run.adapter = string_at(endpoint, "adapter", "endpoint", true);
    run.name = string_at(endpoint, "name", "endpoint", true);
    run.pci_address = string_at(endpoint, "pci_address", "endpoint");
    const json* link = object_at(root, "link", "");
    run.before = link_state(link, "before");
    run.under_load = link_state(link, "under_load");
    run.after = link_state(link, "after");
    if (link && find(*link, "changed")) {
        if (!(*link)["changed"].is_boolean())
            throw FieldError{"link.changed", "expected true or false"};
        run.link_changed = (*link)["changed"].get<bool>();
    }
    if (const json* proof = object_at(root, "link_proof", ""))
        run.link_proof = string_at(*proof, "lowest", "link_proof");
}

void read_verdict(const json& root, Run& run) {
    run.verdict = string_at(root, "verdict", "", true);
    static const std::vector<std::string> known = {"PASS", "PASS WITH WARNINGS", "FAIL", "SKIPPED"};
    if (std::find(known.begin(), known.end(), run.verdict) == known.end())
        throw FieldError{"verdict", "expected PASS, PASS WITH WARNINGS, FAIL or SKIPPED, not \"" + run.verdict + "\""};
    run.warnings = strings_at(root, "warnings");
    run.failures = strings_at(root, "failures");
    run.skipped = strings_at(root, "skipped");
    run.bytes_verified = count_at(root, "bytes_verified", "");
}

void read_sweep(const json& root, Run& run) {
    const json* sweep = object_at(root, "sweep", "");
    if (sweep == nullptr)
        return;
    run.memcpy_gbps = number_at(*sweep, "memcpy_gbps", "sweep");
    if (const json* d = find(*sweep, "disturbed"); d != nullptr && d->is_boolean()) {  // absent before F20
        run.disturbed = d->get<bool>();
        run.reference_spread = number_at(*sweep, "reference_spread", "sweep");
    }
    each_object(*sweep, "points", "sweep", [&](const json& p, const std::string& path) {
        SweepPoint point{direction_at(p, path), string_at(p, "path", path, true), count_at(p, "bytes", path, true),
                         numbers_at(p, "run_medians_gbps", path)};
        if (point.run_medians_gbps.empty() && find(p, "mean_gbps"))  // a file without the per-run medians
            point.run_medians_gbps.push_back(number_at(p, "mean_gbps", path));
        run.sweep.push_back(std::move(point));
    });
    each_object(*sweep, "staged_model", "sweep", [&](const json& p, const std::string& path) {
        run.staged_model.push_back(
            ModelPoint{direction_at(p, path), count_at(p, "bytes", path, true), number_at(p, "model_gbps", path, true)});
    });
}

void read_latency(const json& root, Run& run) {
    const json* latency = object_at(root, "latency", "");
    if (latency == nullptr)
        return;
    each_object(*latency, "modes", "latency", [&](const json& m, const std::string& path) {
        run.latency.push_back(LatencyMode{string_at(m, "direction", path), string_at(m, "mode", path, true),
                                          numbers_at(m, "samples_us", path)});
    });
}

// "offset": a number, or a text such as "0-63" (a spread of offsets).
std::string offset_at(const json& object, const std::string& parent) {
    const json& value = need(object, "offset", parent);
    if (value.is_number_unsigned())
        return std::to_string(value.get<uint64_t>());
    if (!value.is_string())
        throw FieldError{join(parent, "offset"), "expected a whole number >= 0 or a text such as \"0-63\""};
    return value.get<std::string>();
}

void read_access(const json& root, Run& run) {
    const json* access = object_at(root, "access", "");
    if (access == nullptr)
        return;
    const std::string direction = direction_at(*access, "access");
    each_object(*access, "points", "access", [&](const json& p, const std::string& path) {
        run.access.push_back(AccessSample{direction, count_at(p, "bytes", path, true),
                                          count_at(p, "window_bytes", path, true), offset_at(p, path),
                                          string_at(p, "pattern", path, true), string_at(p, "cache", path),
                                          string_at(p, "memory", path), number_at(p, "gbps", path, true)});
    });
}

// "<stem>_<unit>" and its "_ci99_low_" / "_ci99_high_" fields; false when the mean is absent.
bool figure_at(const json& object, const std::string& stem, const std::string& unit, const std::string& parent,
               Figure& out) {
    if (!find(object, stem + "_" + unit))
        return false;
    out = Figure{number_at(object, stem + "_" + unit, parent), optional_number_at(object, stem + "_ci99_low_" + unit, parent),
                 optional_number_at(object, stem + "_ci99_high_" + unit, parent)};
    return true;
}

void read_concurrency(const json& root, Run& run) {
    if (const json* inflight = object_at(root, "inflight", ""))
        each_object(*inflight, "points", "inflight", [&](const json& p, const std::string& path) {
            InflightRow row{direction_at(p, path), count_at(p, "bytes", path, true), {}, {}, {}, false, false};
            if (!figure_at(p, "one_at_a_time", "gbps", path, row.one_at_a_time_gbps))
                throw FieldError{join(path, "one_at_a_time_gbps"), "missing"};
            row.has_one_queue = figure_at(p, "two_in_one_queue", "ratio", path, row.two_in_one_queue_ratio);
            row.has_two_queues = figure_at(p, "one_in_each_of_two_queues", "ratio", path,
                                           row.one_in_each_of_two_queues_ratio);
            run.inflight.push_back(row);
        });
    if (const json* bidir = object_at(root, "bidir", "")) {
        BidirFigures b;
        b.bytes = count_at(*bidir, "bytes", "bidir", true);
        const std::pair<const char*, Figure*> figures[] = {{"h2c_alone", &b.h2c_alone}, {"c2h_alone", &b.c2h_alone},
                                                           {"h2c_both", &b.h2c_both},   {"c2h_both", &b.c2h_both},
                                                           {"sum_both", &b.sum_both}};
        for (const auto& [stem, figure] : figures)
            if (!figure_at(*bidir, stem, "gbps", "bidir", *figure))
                throw FieldError{std::string("bidir.") + stem + "_gbps", "missing"};
        run.bidir.push_back(b);
    }
}

void read_predictions(const json& root, Run& run) {
    const json* predictions = object_at(root, "predictions", "");
    if (predictions == nullptr)
        return;
    run.predictions_file = string_at(*predictions, "file", "predictions");
    run.predictions_sha256 = string_at(*predictions, "sha256", "predictions");
    each_object(*predictions, "results", "predictions", [&](const json& p, const std::string& path) {
        run.predictions.push_back(Prediction{string_at(p, "name", path, true), optional_number_at(p, "low", path),
                                             optional_number_at(p, "high", path),
                                             optional_number_at(p, "measured_low", path),
                                             optional_number_at(p, "measured_high", path),
                                             string_at(p, "verdict", path, true)});
    });
}

pdt::Error invalid(const std::string& file, const std::string& what) {
    return pdt::make_error("read result file", file, EINVAL, what);
}

}  // namespace

pdt::Result<Run> parse_run(std::string_view text, const std::string& file) {
    json root = json::parse(text.begin(), text.end(), nullptr, false);
    if (root.is_discarded())
        return invalid(file, "not valid JSON: a result file of pcie_link_measure is expected");
    if (!root.is_object())
        return invalid(file, "expected a JSON object, a result file of pcie_link_measure");
    try {
        const std::string schema = string_at(root, "schema", "", true);
        if (schema.rfind(kSchemaPrefix, 0) != 0)
            return invalid(file, "schema \"" + schema + "\" is not pcie_link_measure/N");
        Run run;
        run.file = file;
        read_context(root, run);
        read_verdict(root, run);
        read_sweep(root, run);
        read_latency(root, run);
        read_access(root, run);
        read_concurrency(root, run);
        read_predictions(root, run);
        return run;
    } catch (const FieldError& e) {
        return invalid(file, "field " + e.field + ": " + e.what);
    }
}

namespace {

pdt::Result<Run> load_file(const std::string& path) {
    const std::string text = PDT_TRY(pdt::read_text_file(path, "read result file", "read result file",
                                                         "give the path of a result JSON written by pcie_link_measure"));
    return parse_run(text, path);
}

}  // namespace

pdt::Result<std::vector<Run>> load_runs(const std::vector<std::string>& paths) {
    std::vector<Run> runs;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (!std::filesystem::is_directory(path, ec)) {
            runs.push_back(PDT_TRY(load_file(path)));
            continue;
        }
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(path, ec))
            if (entry.path().extension() == ".json" && entry.is_regular_file(ec))
                files.push_back(entry.path().string());
        if (ec)
            return pdt::make_error("list result directory", path, ec.value());
        if (files.empty())
            return pdt::make_error("list result directory", path, ENOENT, "it holds no *.json result file");
        std::sort(files.begin(), files.end());
        for (const std::string& file : files)
            runs.push_back(PDT_TRY(load_file(file)));
    }
    return runs;
}

}  // namespace measure::report
