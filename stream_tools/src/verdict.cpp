#include "stream_tools/verdict.hpp"

#include <cinttypes>

#include "stream_test/report.hpp"
#include "streams/fallbacks.hpp"

namespace stream_tools {
namespace {

const char* unit(const ChannelResult& r) { return r.queues ? "queue" : "channel"; }

}  // namespace

std::string describe(const ChannelResult& r) {
    std::string text = r.device + " " + r.design + " " + r.test;
    if (r.h2c && r.c2h)
        text += std::string(" H2C ") + unit(r) + " " + std::to_string(*r.h2c) + " C2H " + unit(r) + " " + std::to_string(*r.c2h);
    if (r.failure)
        return text + ": FAIL: " + *r.failure;
    if (r.bytes_verified == 0)
        return text + ": FAIL: no bytes verified";
    return text + ": " + std::to_string(r.bytes_verified) + " bytes verified";
}

std::string json_total(const ChannelResult& r) {
    using stream_test::json_escape;
    std::string text = "{\"type\":\"total\",\"device\":" + json_escape(r.device) + ",\"design\":" +
                       json_escape(r.design) + ",\"test\":" + json_escape(r.test);
    if (r.h2c && r.c2h)
        text += std::string(",\"h2c_") + unit(r) + "\":" + std::to_string(*r.h2c) + ",\"c2h_" + unit(r) + "\":" + std::to_string(*r.c2h);
    text += stream_test::json_engine_fields(r.engines);
    text += ",\"bytes_verified\":" + std::to_string(r.bytes_verified);
    if (r.failure || r.bytes_verified == 0)
        return text + ",\"result\":\"FAIL\",\"reason\":" + json_escape(r.failure.value_or("no bytes verified")) + "}";
    return text + ",\"result\":\"PASS\"}";
}

int report_verdict(const std::vector<ChannelResult>& results, const VerdictOutput& out) {
    uint64_t total = 0;
    size_t failed = 0;
    std::fprintf(out.text, "Verified totals:\n");
    for (const ChannelResult& r : results) {
        failed += r.failure || r.bytes_verified == 0 ? 1 : 0;
        total += r.bytes_verified;
        std::fprintf(out.text, "%s\n", describe(r).c_str());
        if (out.json)
            std::fprintf(out.json, "%s\n", json_total(r).c_str());
    }
    const bool pass = !results.empty() && failed == 0 && total > 0;
    std::fprintf(out.text, "%" PRIu64 " bytes verified in %zu tests, %zu failed\n\nOverall %s\n", total, results.size(),
                 failed, pass ? "PASS" : "FAIL");
    if (out.json)
        std::fprintf(out.json,
                     "{\"type\":\"result\",\"overall\":\"%s\",\"bytes_verified\":%" PRIu64 ",\"tests\":%zu,\"failed\":%zu%s}\n",
                     pass ? "PASS" : "FAIL", total, results.size(), failed, streams::json_fallbacks().c_str());
    std::fflush(out.text);
    if (out.json)
        std::fflush(out.json);
    return pass ? 0 : 1;
}

int report_nothing_tested(const std::string& reason, const VerdictOutput& out) {
    std::fprintf(out.text, "%s\nOverall FAIL\n", reason.c_str());
    std::fflush(out.text);
    if (out.json) {
        std::fprintf(out.json,
                     "{\"type\":\"error\",\"message\":%s}\n{\"type\":\"result\",\"overall\":\"FAIL\","
                     "\"bytes_verified\":0,\"tests\":0,\"failed\":0}\n",
                     stream_test::json_escape(reason).c_str());
        std::fflush(out.json);
    }
    return 1;
}

}  // namespace stream_tools
