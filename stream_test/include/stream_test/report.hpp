// Output of the stream tests: fpga_sio's lines (text) or JSON Lines (--json).
//
// Text, as fpga_sio prints it:
//   0000:15:00.0 0 -> 1 818.597 Mbytes/sec (8170504192 bytes in 9.981102 secs)
//   Overall test statistics:
//   0000:15:00.0 0 -> 1 Test pattern verified in 268435456 words
//   Overall PASS
// JSON Lines: one object per row per interval {"type":"interval",...}, one per row at the
// end {"type":"total",...}, failures {"type":"failure",...}, then {"type":"result",...}.
// An interval too short for a rate (rate_counter.hpp) prints no rate:
//   0000:15:00.0 0 -> 1 4096 bytes in 0.001700 secs: too short for a rate (under 10 ms or 1 MiB)
// and in JSON "mbytes_per_sec":null,"too_short":true (,"carried":true while it stays open).
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "stream_test/driver.hpp"

namespace stream_test {

// "<label> 818.599 Mbytes/sec (782824898560 bytes in 956.298503 secs)", fpga_sio's rate line (the
// caller indents it); with `count_transfers`, test_dma_bridge_independent_streams' form
// "(<bytes> bytes in <n> transfers over <secs> secs)".
std::string format_rate_line(const std::string& label, const Interval& interval, bool count_transfers = false);
// "{\"type\":\"interval\",\"label\":...}" (no newline).
std::string json_interval(const std::string& type, const std::string& label, const Interval& interval);
std::string json_failure(const Failure& failure);
std::string json_escape(const std::string& text);
// `,"dma_addressing":"no-iommu (physical addresses)"` for a JSON result object once the process
// used no-IOMMU buffers (vfio_access/physical_memory.hpp); "" otherwise.
std::string json_dma_addressing();
// The last lines of a text result: the DMA addressing line once the process used no-IOMMU
// buffers (vfio::dma_addressing_line), then "Overall PASS" or "Overall FAIL".
void print_text_verdict(std::FILE* out, bool pass);
// ',"engine_mode":"credits","completion":"poll_writeback"': the engine modes a device's adapter
// chose, as the tools' JSON lines name them (total, selected, latency); "" where none were.
std::string json_engine_fields(const std::optional<streams::EngineChoice>& engines);

class Report : public Observer {
public:
    Report(std::FILE* out, bool json) : m_out(out), m_json(json) {}
    // What follows a row's rate line (text: "; temperature 41.2 C (max 43.0 C)") and its JSON
    // interval object (',"temperature_c":41.2,...'), by row label; "" for nothing.
    using Annotation = std::function<std::string(const std::string& label)>;
    void annotate(Annotation text, Annotation json) {
        m_annotate_text = std::move(text);
        m_annotate_json = std::move(json);
    }
    // How the tool names the requests the text speaks of in the library's words ("the H2C
    // replay", a failure's hint): each such text goes through it (the tools: cli::name_options).
    using Naming = std::function<std::string(std::string text)>;
    void name_requests(Naming naming) { m_naming = std::move(naming); }
    // Rate lines that also count the transfers (fpga_sio's independent streams).
    void count_transfers(bool on) { m_count_transfers = on; }
    void on_interval(const std::vector<std::pair<std::string, Interval>>& rows) override;
    // Totals, verification lines, failures and the verdict. Returns the exit code (0 / 1).
    int finish(const Summary& summary);
    // The test could not run: the reason, then Overall FAIL. Returns 1.
    int abort(const std::string& reason);
    // A plain line in text mode (nothing in JSON mode).
    void line(const std::string& text);
    // A JSON object's line in JSON mode (nothing in text mode).
    void json_line(const std::string& object);

private:
    std::FILE* m_out;
    bool m_json;
    Annotation m_annotate_text;
    Annotation m_annotate_json;
    Naming m_naming;
    bool m_count_transfers = false;

    std::string named(std::string text) const { return m_naming ? m_naming(std::move(text)) : text; }
};

}  // namespace stream_test
