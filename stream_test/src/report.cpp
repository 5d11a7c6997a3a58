#include "stream_test/report.hpp"

#include <cinttypes>

#include "base/json_text.hpp"
#include "streams/fallbacks.hpp"
#include "vfio_access/physical_memory.hpp"

namespace stream_test {

std::string format_rate_line(const std::string& label, const Interval& interval, bool count_transfers) {
    if (interval.bytes == 0)
        return label + " No completed transfers";
    char text[200];
    if (interval.too_short)
        std::snprintf(text, sizeof text, " %" PRIu64 " bytes in %.6f secs: too short for a rate (under %.0f ms or %" PRIu64
                                         " MiB)%s",
                      interval.bytes, interval.seconds, kMinRateSeconds * 1000, kMinRateBytes >> 20,
                      interval.carried ? ", carried into the next interval" : "");
    else if (count_transfers)
        std::snprintf(text, sizeof text, " %.3f Mbytes/sec (%" PRIu64 " bytes in %" PRIu64 " transfers over %.6f secs)",
                      interval.mbytes_per_sec(), interval.bytes, interval.transfers, interval.seconds);
    else
        std::snprintf(text, sizeof text, " %.3f Mbytes/sec (%" PRIu64 " bytes in %.6f secs)",
                      interval.mbytes_per_sec(), interval.bytes, interval.seconds);
    return label + text;
}

std::string json_escape(const std::string& text) { return pdt::json_quote(text); }

std::string json_interval(const std::string& type, const std::string& label, const Interval& interval) {
    char text[240];
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.3f", interval.mbytes_per_sec());
    std::snprintf(text, sizeof text,
                  ",\"bytes\":%" PRIu64 ",\"transfers\":%" PRIu64 ",\"seconds\":%.6f,\"mbytes_per_sec\":%s%s}",
                  interval.bytes, interval.transfers, interval.seconds, interval.too_short ? "null" : rate,
                  !interval.too_short  ? ""
                  : interval.carried ? ",\"too_short\":true,\"carried\":true"
                                     : ",\"too_short\":true");
    return "{\"type\":" + json_escape(type) + ",\"label\":" + json_escape(label) + text;
}

std::string json_engine_fields(const std::optional<streams::EngineChoice>& engines) {
    if (!engines || engines->engine_mode.empty())
        return {};
    return ",\"engine_mode\":" + json_escape(engines->engine_mode) + ",\"completion\":" + json_escape(engines->completion);
}

std::string json_failure(const Failure& failure) {
    std::string out = "{\"type\":\"failure\",\"channel\":" + json_escape(failure.channel) +
                      ",\"message\":" + json_escape(failure.message);
    if (failure.transfer)
        out += ",\"transfer\":" + std::to_string(*failure.transfer);
    if (failure.stream_byte_offset)
        out += ",\"stream_byte_offset\":" + std::to_string(*failure.stream_byte_offset);
    if (failure.mismatch) {
        out += ",\"first_bad_byte_offset\":" + std::to_string(failure.mismatch->first_bad_word * 4) +
               ",\"expected\":" + std::to_string(failure.mismatch->expected) +
               ",\"actual\":" + std::to_string(failure.mismatch->actual) +
               ",\"bad_words\":" + std::to_string(failure.mismatch->bad_words);
    }
    return out + "}";
}

namespace {

// Why a summary without a failure is not a PASS; empty when it passed or a failure says why.
std::string unverified_reason(const Summary& summary) {
    if (summary.passed() || !summary.failures.empty())
        return "";
    if (summary.rows.empty())
        return "no stream channels were tested";
    bool verifies = false;
    for (const auto& row : summary.rows)
        verifies = verifies || row.verifies;
    if (!verifies)
        return "no C2H channel under test receives from an H2C channel under test: nothing was verified";
    for (const auto& row : summary.rows)
        if (row.total.bytes == 0 || (row.verifies && row.words_verified == 0))
            return row.label + " moved no data: nothing verified on it";
    return "nothing was verified";
}

}  // namespace

// fpga_sio's interval block: each row indented by two, then an empty line.
void Report::on_interval(const std::vector<std::pair<std::string, Interval>>& rows) {
    for (const auto& [label, interval] : rows) {
        std::string text = m_json ? json_interval("interval", label, interval)
                                  : "  " + format_rate_line(label, interval, m_count_transfers);
        if (m_json && m_annotate_json)
            text.insert(text.size() - 1, m_annotate_json(label));
        else if (!m_json && m_annotate_text)
            text += m_annotate_text(label);
        std::fprintf(m_out, "%s\n", text.c_str());
    }
    if (!m_json && !rows.empty())
        std::fprintf(m_out, "\n");
    std::fflush(m_out);
}

void Report::line(const std::string& text) {
    if (!m_json) {
        std::fprintf(m_out, "%s\n", text.c_str());
        std::fflush(m_out);
    }
}

void Report::json_line(const std::string& object) {
    if (m_json) {
        std::fprintf(m_out, "%s\n", object.c_str());
        std::fflush(m_out);
    }
}

int Report::abort(const std::string& reason) {
    if (m_json)
        std::fprintf(m_out, "{\"type\":\"error\",\"message\":%s}\n{\"type\":\"result\",\"overall\":\"FAIL\","
                            "\"bytes_verified\":0,\"stopped_by_user\":false,\"rows\":0}\n",
                     json_escape(reason).c_str());
    else
        std::fprintf(m_out, "%s\nOverall FAIL\n", reason.c_str());
    std::fflush(m_out);
    return 1;
}

namespace {

// Cores busy over the run, and cores per verified GB/s (F20: the host's cost of checking).
struct HostCost {
    double cores = 0, per_verified_gbps = 0;
    bool known = false, verified = false;
};
HostCost host_cost(const Summary& summary) {
    HostCost cost;
    if (summary.wall_seconds <= 0)
        return cost;
    cost.known = true;
    cost.cores = summary.cpu_seconds / summary.wall_seconds;
    const double gbps = static_cast<double>(summary.bytes_verified()) / summary.wall_seconds / 1e9;
    cost.verified = gbps > 0;
    cost.per_verified_gbps = cost.verified ? cost.cores / gbps : 0;
    return cost;
}

std::string host_cost_json(const Summary& summary) {
    const HostCost cost = host_cost(summary);
    if (!cost.known)
        return "";
    char text[160];
    std::snprintf(text, sizeof text, ",\"host_cores\":%.3f,\"cores_per_verified_gbps\":", cost.cores);
    return text + (cost.verified ? std::to_string(cost.per_verified_gbps) : std::string("null"));
}

void print_host_cost(FILE* out, const Summary& summary) {
    const HostCost cost = host_cost(summary);
    if (!cost.known)
        return;
    std::fprintf(out, "Host CPU: %.2f cores busy (%.3f s of CPU in %.3f s, every thread of the process)", cost.cores,
                 summary.cpu_seconds, summary.wall_seconds);
    if (cost.verified)
        std::fprintf(out, ", %.3f cores per verified GB/s\n", cost.per_verified_gbps);
    else
        std::fprintf(out, ", nothing verified\n");
}

}  // namespace

int Report::finish(const Summary& summary) {
    const bool pass = summary.passed();
    if (m_json) {
        uint64_t bytes_verified = 0;
        for (const auto& row : summary.rows) {
            bytes_verified += row.words_verified * 4;
            std::string text = json_interval("total", row.label, row.total);
            text.pop_back();
            text += ",\"verified\":" + std::string(row.verifies ? "true" : "false") +
                    ",\"words_verified\":" + std::to_string(row.words_verified) +
                    ",\"bytes_verified\":" + std::to_string(row.words_verified * 4) +
                    ",\"verified_on_card\":" + std::string(row.on_card ? "true" : "false") +
                    (row.replayed ? ",\"replayed\":true" : "") +
                    ",\"card_bytes_verified\":" + std::to_string(row.card_words_verified * 4) + "}";
            std::fprintf(m_out, "%s\n", text.c_str());
        }
        for (const auto& failure : summary.failures)
            std::fprintf(m_out, "%s\n", json_failure(failure).c_str());
        const std::string why = unverified_reason(summary);
        std::fprintf(m_out,
                     "{\"type\":\"result\",\"overall\":\"%s\",\"bytes_verified\":%" PRIu64
                     ",\"stopped_by_user\":%s,\"rows\":%zu%s%s%s%s%s}\n",
                     pass ? "PASS" : "FAIL", bytes_verified, summary.stopped_by_user ? "true" : "false", summary.rows.size(),
                     host_cost_json(summary).c_str(),
                     summary.ip_counts.empty() ? "" : (",\"ip_counts\":" + pdt::json_list(summary.ip_counts)).c_str(),
                     why.empty() ? "" : (",\"reason\":" + json_escape(why)).c_str(),
                     json_dma_addressing().c_str(), streams::json_fallbacks().c_str());
        std::fflush(m_out);
        return pass ? 0 : 1;
    }
    if (summary.rows.empty())
        std::fprintf(m_out, "No stream channels were tested\n");
    else
        std::fprintf(m_out, "Overall test statistics:\n");
    // A failed run gives no rate for a row that verified nothing (F30: a sink that was handed
    // bytes no check ever saw arrive); a passing run keeps fpga_sio's line for such sinks.
    // fpga_sio's rows: indented by two, the block ended by an empty line.
    for (const auto& row : summary.rows)
        if (!summary.passed() && row.words_verified == 0 && row.card_words_verified == 0 && row.total.bytes > 0)
            std::fprintf(m_out, "  %s %" PRIu64 " bytes handed over in %.6f secs, none verified: no rate\n",
                         row.label.c_str(), row.total.bytes, row.total.seconds);
        else
            std::fprintf(m_out, "  %s\n", format_rate_line(row.label, row.total, m_count_transfers).c_str());
    if (!summary.rows.empty())
        std::fprintf(m_out, "\n");
    for (const auto& row : summary.rows) {
        if (row.failure)
            std::fprintf(m_out, "%s Test FAILED: %s %s\n", row.label.c_str(), row.failure->channel.c_str(),
                         named(row.failure->message).c_str());
        else if (row.verifies && row.words_verified > 0 && row.on_card)
            std::fprintf(m_out, "%s Test pattern verified by the card in %" PRIu64 " words (%" PRIu64 " bytes)%s\n",
                         row.label.c_str(), row.words_verified, row.words_verified * 4,
                         row.replayed ? named("; each buffer generated once and resent by the H2C replay, the card "
                                              "poisoning every destination before its copy").c_str()
                                      : "");
        else if (row.verifies && row.words_verified > 0 && row.function == CardFunction::Generated)
            std::fprintf(m_out, "%s Card-generated test pattern verified in %" PRIu64 " words (%" PRIu64 " bytes)\n",
                         row.label.c_str(), row.words_verified, row.words_verified * 4);
        else if (row.verifies && row.words_verified > 0 && row.function == CardFunction::Crc64)
            std::fprintf(m_out, "%s CRC64 results verified in %" PRIu64 " words (%" PRIu64 " bytes, %" PRIu64
                                " H2C packets)\n",
                         row.label.c_str(), row.words_verified, row.words_verified * 4, row.words_verified / 2);
        else if (row.verifies && row.words_verified > 0 && row.function == CardFunction::FixedData)
            std::fprintf(m_out, "%s Fixed data (zeros) verified in %" PRIu64 " words (%" PRIu64 " bytes)\n",
                         row.label.c_str(), row.words_verified, row.words_verified * 4);
        else if (row.verifies && row.words_verified > 0)
            std::fprintf(m_out, "%s Test pattern verified in %" PRIu64 " words (%" PRIu64 " bytes)\n",
                         row.label.c_str(), row.words_verified, row.words_verified * 4);
        else if (row.verifies)
            std::fprintf(m_out, "%s No data received: nothing verified\n", row.label.c_str());
        else if (row.total.bytes == 0)
            std::fprintf(m_out, "%s No data transferred\n", row.label.c_str());
        if (!row.failure && row.card_words_verified > 0)
            std::fprintf(m_out, "%s H2C data also verified by the card in %" PRIu64 " words (%" PRIu64 " bytes)\n",
                         row.label.c_str(), row.card_words_verified, row.card_words_verified * 4);
    }
    // Failures not tied to a row (for example, a channel that only feeds another row).
    for (const auto& failure : summary.failures) {
        bool shown = false;
        for (const auto& row : summary.rows)
            shown = shown || (row.failure && row.failure->channel == failure.channel &&
                              row.failure->message == failure.message);
        if (!shown)
            std::fprintf(m_out, "%s %s\n", failure.channel.c_str(), failure.message.c_str());
    }
    for (const std::string& line : summary.ip_counts)
        std::fprintf(m_out, "IP, every transfer of the run: %s\n", line.c_str());
    if (!summary.rows.empty())
        print_host_cost(m_out, summary);
    if (const std::string why = unverified_reason(summary); !why.empty() && !summary.rows.empty())
        std::fprintf(m_out, "FAIL: %s\n", why.c_str());
    print_text_verdict(m_out, pass);
    std::fflush(m_out);
    return pass ? 0 : 1;
}

void print_text_verdict(std::FILE* out, bool pass) {
    if (const std::string addressing = vfio::dma_addressing_line(); !addressing.empty())
        std::fprintf(out, "%s\n", addressing.c_str());
    std::fprintf(out, "\nOverall %s\n", pass ? "PASS" : "FAIL");  // fpga_sio: an empty line before it
}

std::string json_dma_addressing() {
    if (vfio::process_dma_addressing() != vfio::DmaAddressing::Physical)
        return "";
    return std::string(",\"dma_addressing\":") + json_escape(vfio::to_string(vfio::DmaAddressing::Physical));
}

}  // namespace stream_test
