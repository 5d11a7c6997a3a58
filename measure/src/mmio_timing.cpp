// time_memmapped's timing (mmio_timing.hpp).
#include "measure/mmio_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace measure {
namespace {

using Clock = std::chrono::steady_clock;

double ns_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::nano>(b - a).count();
}

class UncachedAccessor final : public MmioAccessor {
public:
    explicit UncachedAccessor(vfio::Bar& bar) : m_bar(bar) {}
    std::string mapping() const override { return "UC (VFIO mmap)"; }
    uint64_t read(uint64_t offset, unsigned width) override {
        if (width != 64)
            return m_bar.read(offset, width).value();
        uint64_t last = 0;
        for (unsigned i = 0; i < 8; ++i)
            last = m_bar.read(offset + 8 * i, 8).value();
        return last;
    }
    void write(uint64_t offset, unsigned width, const uint64_t* values) override {
        if (width != 64) {
            (void)m_bar.write(offset, width, values[0]);
            return;
        }
        for (unsigned i = 0; i < 8; ++i)
            (void)m_bar.write(offset + 8 * i, 8, values[i]);
    }

private:
    vfio::Bar& m_bar;
};

class WriteCombinedAccessor final : public MmioAccessor {
public:
    WriteCombinedAccessor(std::unique_ptr<vfio::WcMapping> mapping, unsigned bar) : m_map(std::move(mapping)), m_bar(bar) {}
    std::string mapping() const override { return "WC (sysfs resource" + std::to_string(m_bar) + "_wc)"; }
    uint64_t read(uint64_t offset, unsigned width) override {
        volatile uint8_t* p = m_map->base() + offset;
        switch (width) {
        case 1: return *p;
        case 2: return *reinterpret_cast<volatile uint16_t*>(p);
        case 4: return *reinterpret_cast<volatile uint32_t*>(p);
        case 8: return *reinterpret_cast<volatile uint64_t*>(p);
        default: {
            uint64_t last = 0;
            for (unsigned i = 0; i < 8; ++i)
                last = reinterpret_cast<volatile uint64_t*>(p)[i];
            return last;
        }
        }
    }
    void write(uint64_t offset, unsigned width, const uint64_t* values) override {
        volatile uint8_t* p = m_map->base() + offset;
        switch (width) {
        case 1: *p = static_cast<uint8_t>(values[0]); break;
        case 2: *reinterpret_cast<volatile uint16_t*>(p) = static_cast<uint16_t>(values[0]); break;
        case 4: *reinterpret_cast<volatile uint32_t*>(p) = static_cast<uint32_t>(values[0]); break;
        case 8: *reinterpret_cast<volatile uint64_t*>(p) = values[0]; break;
        default:
            for (unsigned i = 0; i < 8; ++i)
                reinterpret_cast<volatile uint64_t*>(p)[i] = values[i];
        }
    }
    void drain() override {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_sfence();
#else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
    }

private:
    std::unique_ptr<vfio::WcMapping> m_map;
    unsigned m_bar;
};

MmioRow row_from(const MmioAccessor& accessor, const char* access, unsigned width, std::vector<double> ns,
                 double total_ns, uint64_t bytes) {
    MmioRow row{accessor.mapping(), access, width, static_cast<unsigned>(ns.size())};
    std::sort(ns.begin(), ns.end());
    if (!ns.empty()) {
        row.ns_min = ns.front();
        row.ns_max = ns.back();
        row.ns_median = ns[ns.size() / 2];
    }
    row.mb_per_s = total_ns > 0 ? static_cast<double>(bytes) * 1e3 / total_ns : 0;
    return row;
}

MmioRow time_reads(MmioAccessor& a, uint64_t offset, unsigned width, unsigned count) {
    std::vector<double> ns;
    ns.reserve(count);
    const Clock::time_point start = Clock::now();
    Clock::time_point before = start;
    for (unsigned i = 0; i < count; ++i) {
        (void)a.read(offset, width);
        const Clock::time_point after = Clock::now();
        ns.push_back(ns_between(before, after));
        before = after;
    }
    return row_from(a, "read", width, ns, ns_between(start, before), uint64_t{count} * width);
}

// Posted writes: timed as a batch (a clock read per write would cost more than the write).
MmioRow time_writes(MmioAccessor& a, uint64_t offset, unsigned width, unsigned count, const uint64_t* value) {
    const Clock::time_point start = Clock::now();
    for (unsigned i = 0; i < count; ++i)
        a.write(offset, width, value);
    a.drain();
    const double total = ns_between(start, Clock::now());
    std::vector<double> mean(1, total / count);
    MmioRow row = row_from(a, "write (issue, batch mean)", width, mean, total, uint64_t{count} * width);
    row.count = count;
    return row;
}

MmioRow time_write_then_read(MmioAccessor& a, uint64_t offset, unsigned width, unsigned count, const uint64_t* value) {
    std::vector<double> ns;
    ns.reserve(count);
    const Clock::time_point start = Clock::now();
    Clock::time_point before = start;
    for (unsigned i = 0; i < count; ++i) {
        a.write(offset, width, value);
        (void)a.read(offset, width);  // PCIe ordering: it waits for the write before it
        const Clock::time_point after = Clock::now();
        ns.push_back(ns_between(before, after));
        before = after;
    }
    return row_from(a, "write then read", width, ns, ns_between(start, before), uint64_t{count} * width * 2);
}

MmioRow time_flushing_read(MmioAccessor& a, uint64_t offset, unsigned width, unsigned count, const uint64_t* value) {
    std::vector<double> ns;
    for (unsigned round = 0; round < 5; ++round) {
        for (unsigned i = 0; i < count; ++i)
            a.write(offset, width, value);
        const Clock::time_point before = Clock::now();
        (void)a.read(offset, width);
        ns.push_back(ns_between(before, Clock::now()));
    }
    MmioRow row = row_from(a, "", width, ns, 0, 0);
    row.access = "flushing read after " + std::to_string(count) + " writes";
    return row;
}

}  // namespace

std::unique_ptr<MmioAccessor> uncached_accessor(vfio::Bar& bar) { return std::make_unique<UncachedAccessor>(bar); }
std::unique_ptr<MmioAccessor> write_combined_accessor(std::unique_ptr<vfio::WcMapping> mapping, unsigned bar) {
    return std::make_unique<WriteCombinedAccessor>(std::move(mapping), bar);
}

std::vector<MmioRow> time_accesses(MmioAccessor& accessor, const MmioTimingRequest& request) {
    std::vector<MmioRow> rows;
    for (unsigned width : request.widths) {
        rows.push_back(time_reads(accessor, request.offset, width, request.count));
        if (!request.write)
            continue;
        uint64_t value[8] = {};  // what is there, written back unchanged
        for (unsigned i = 0; i < (width == 64 ? 8u : 1u); ++i)
            value[i] = accessor.read(request.offset + 8 * i, width == 64 ? 8 : width);
        rows.push_back(time_writes(accessor, request.offset, width, request.count, value));
        rows.push_back(time_write_then_read(accessor, request.offset, width, request.count, value));
        rows.push_back(time_flushing_read(accessor, request.offset, width, request.count, value));
    }
    return rows;
}

pdt::Result<vfio::Bar*> check_timing_request(vfio::Device& device, unsigned bar, const MmioTimingRequest& request,
                                             const std::vector<unsigned>& bar_widths) {
    vfio::Bar* checked = nullptr;
    for (unsigned width : request.widths)
        checked = PDT_TRY(vfio::check_bar_access(device, vfio::BarAccess{bar, request.offset, width}, bar_widths));
    if (!checked)
        return pdt::usage_error("check BAR access", "BAR " + std::to_string(bar), "no access width given");
    return checked;
}

std::string format_rows(const std::vector<MmioRow>& rows) {
    std::string text = "mapping                   access                              bytes  count   ns min  ns median"
                       "     ns max       MB/s\n";
    for (const MmioRow& r : rows) {
        char line[256];
        std::snprintf(line, sizeof line, "%-25s %-35s %5u %6u %8.1f %10.1f %10.1f %10.2f\n", r.mapping.c_str(),
                      r.access.c_str(), r.width, r.count, r.ns_min, r.ns_median, r.ns_max, r.mb_per_s);
        text += line;
    }
    return text;
}

std::string format_rows_json(const std::vector<MmioRow>& rows, const std::string& wc_note, bool simulated) {
    nlohmann::json doc;
    doc["simulated"] = simulated;
    doc["write_combined"] = wc_note;
    doc["rows"] = nlohmann::json::array();
    for (const MmioRow& r : rows)
        doc["rows"].push_back({{"mapping", r.mapping}, {"access", r.access}, {"bytes", r.width}, {"count", r.count},
                               {"ns_min", r.ns_min}, {"ns_median", r.ns_median}, {"ns_max", r.ns_max},
                               {"mb_per_s", r.mb_per_s}});
    return doc.dump(2) + "\n";
}

}  // namespace measure
