// "key=value,..." into FakeParameters, for the tools' --etsoc1_fake option and the tests.
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>

#include "base/numbers.hpp"
#include "etsoc1/fake_card.hpp"

namespace etsoc1 {

namespace {

pdt::Error bad(const std::string& item, const std::string& why) {
    return pdt::usage_error("parse ET-SoC-1 fake parameter", "\"" + item + "\"", why);
}

pdt::Result<double> positive(const std::string& item, const std::string& value) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno != 0 || !(v > 0) || v > 1e9)
        return bad(item, "expected a positive number");
    return v;
}

pdt::Result<uint64_t> whole(const std::string& item, const std::string& value, uint64_t lowest) {
    auto v = pdt::parse_number("etsoc1_fake", value, lowest, UINT64_MAX);
    if (!v.ok())
        return bad(item, "expected a whole number >= " + std::to_string(lowest));
    return *v;
}

pdt::Result<bool> flag(const std::string& item, const std::string& value) {
    if (value != "0" && value != "1")
        return bad(item, "expected 0 or 1");
    return value == "1";
}

using Setter = std::function<pdt::Result<void>(FakeParameters&, const std::string& item, const std::string& value)>;

template <typename F>
Setter number(F set) {
    return [set](FakeParameters& p, const std::string& item, const std::string& value) -> pdt::Result<void> {
        set(p, PDT_TRY(positive(item, value)));
        return {};
    };
}
template <typename F>
Setter count(F set, uint64_t lowest = 1) {
    return [set, lowest](FakeParameters& p, const std::string& item, const std::string& value) -> pdt::Result<void> {
        set(p, PDT_TRY(whole(item, value, lowest)));
        return {};
    };
}

template <typename F>
Setter boolean(F set) {
    return [set](FakeParameters& p, const std::string& item, const std::string& value) -> pdt::Result<void> {
        set(p, PDT_TRY(flag(item, value)));
        return {};
    };
}

const std::map<std::string, Setter>& setters() {
    using us = std::chrono::microseconds;
    static const std::map<std::string, Setter> table{
        {"memcpy_gbps", number([](FakeParameters& p, double v) { p.memcpy_gbps = v; })},
        {"dma_gbps", number([](FakeParameters& p, double v) { p.dma_channel_gbps = v; })},
        {"link_gbps", number([](FakeParameters& p, double v) { p.link_gbps = v; })},
        {"c2h_link_ratio", number([](FakeParameters& p, double v) { p.c2h_link_ratio = v; })},
        {"collision", number([](FakeParameters& p, double v) { p.one_stream_collision = v; })},
        {"copy_threads", count([](FakeParameters& p, uint64_t v) { p.copy_threads = static_cast<unsigned>(v); })},
        {"read_channels", count([](FakeParameters& p, uint64_t v) { p.limits.read_channels = static_cast<unsigned>(v); })},
        {"write_channels", count([](FakeParameters& p, uint64_t v) { p.limits.write_channels = static_cast<unsigned>(v); })},
        {"node_bytes", count([](FakeParameters& p, uint64_t v) { p.limits.max_node_bytes = v; }, 4)},
        {"nodes", count([](FakeParameters& p, uint64_t v) { p.limits.max_nodes = static_cast<unsigned>(v); })},
        {"queues", count([](FakeParameters& p, uint64_t v) { p.submission_queues = static_cast<unsigned>(v); })},
        {"poll_busy_us", count([](FakeParameters& p, uint64_t v) { p.poll_busy = us(v); })},
        {"poll_idle_us", count([](FakeParameters& p, uint64_t v) { p.poll_idle = us(v); })},
        {"kernel_us", count([](FakeParameters& p, uint64_t v) { p.kernel_time = us(v); }, 0)},
        {"corrupt_h2c_byte", count([](FakeParameters& p, uint64_t v) { p.corrupt_h2c_byte = v; }, 0)},
        {"copy_error_at", count([](FakeParameters& p, uint64_t v) { p.copy_error_command = v; })},
        {"hang_at", count([](FakeParameters& p, uint64_t v) { p.hang_command = v; })},
        {"abort_hangs", boolean([](FakeParameters& p, bool v) { p.abort_hangs = v; })},
        {"moves_nothing", boolean([](FakeParameters& p, bool v) { p.moves_nothing = v; })},
        {"stale_after", count([](FakeParameters& p, uint64_t v) { p.stale_after = v; }, 0)},
        {"completes_early", boolean([](FakeParameters& p, bool v) { p.completes_early = v; })},
    };
    return table;
}

}  // namespace

pdt::Result<FakeParameters> parse_fake_parameters(const std::string& text) {
    FakeParameters p;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find(',', begin);
        if (end == std::string::npos)
            end = text.size();
        const std::string item = text.substr(begin, end - begin);
        begin = end + 1;
        const size_t equals = item.find('=');
        if (equals == std::string::npos)
            return bad(item, "expected key=value");
        const std::string key = item.substr(0, equals);
        auto setter = setters().find(key);
        if (setter == setters().end()) {
            std::string keys;
            for (const auto& [name, unused] : setters())
                keys += (keys.empty() ? "" : ", ") + name;
            return bad(item, "unknown key; the keys are " + keys);
        }
        PDT_CHECK(setter->second(p, item, item.substr(equals + 1)));
    }
    return p;
}

}  // namespace etsoc1
