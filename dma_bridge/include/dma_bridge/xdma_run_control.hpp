// The Run bit of one XDMA channel (PG195 channel Control 0x04, its W1S alias 0x08 and W1C alias
// 0x0C; Status 0x40, Status clear-on-read 0x44; Completed Descriptor Count 0x48), set and
// cleared with proof from what the IP shows, whatever Control reads:
//  - start(): Run set (W1S), proven by Status: busy, or a completion, stop or error logged since
//    the write (PG195: Status bits reset on setting Run), or a Completed Descriptor Count that
//    changed (it resets on setting Run).
//    Control.run reading back alone proves nothing: an engine may refuse a start just after a
//    stop. A refused start is retried (Run cleared, busy awaited, backoff) within a bound, then
//    named. Run that does not stick after W1S gets a plain write of Control.
//  - clear_run() / stop(): Run cleared (W1C), proven by Control.run reading back 0 where Control
//    reads back, and, for stop(), by Status.busy clearing. An ignored W1C alias gets a plain
//    write of Control; Run that stays set is an error saying the IP keeps Run set.
// Each fallback warns once per channel (the warn function) and is listed by fallbacks(), for
// the tools' JSON. An IP whose Control does not read back at all (reads 0 after a non-zero
// write: write_control()) is judged by Status alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "vfio_access/mmio.hpp"

namespace xdma {

class RunControl {
public:
    using Warn = std::function<void(std::string)>;
    RunControl() = default;
    // channel_base: the channel block (H2C 0x0000 + 0x100 n, C2H 0x1000 + 0x100 n) in `regs`.
    RunControl(vfio::RegisterWindow regs, uint64_t channel_base, std::string name, Warn warn)
        : m_regs(regs), m_base(channel_base), m_name(std::move(name)), m_warn(std::move(warn)) {}

    // Writes Control (0x04) with Run clear, and learns whether Control reads back.
    void write_control(uint32_t value);
    bool control_reads_back() const { return !m_control_unreadable; }
    uint32_t control() const { return m_control; }  // as last written, without Run

    pdt::Result<void> start(std::chrono::milliseconds bound);
    pdt::Result<void> clear_run();
    // clear_run(), then Status.busy clear within idle_wait. `state` describes the channel for
    // the timeout's message.
    pdt::Result<void> stop(std::chrono::milliseconds idle_wait, const std::function<std::string()>& state);

    // The fallbacks used so far, in the JSON's words: "control_w1s_ignored",
    // "control_w1c_ignored", "control_not_readable", "start_refused_after_stop".
    std::vector<std::string> fallbacks() const;

private:
    uint32_t reg(uint32_t offset) const { return m_regs.read32(m_base + offset); }
    void set_reg(uint32_t offset, uint32_t value) const { m_regs.write32(m_base + offset, value); }
    void set_run();
    pdt::Result<void> set_run_once(uint32_t count);
    void report_refusals(unsigned refused, std::chrono::steady_clock::time_point begin);
    void control_not_readable(const std::string& why);
    void w1s_ignored(const std::string& why);
    // Status, or a count unlike count_before, shows the engine ran since Run was set.
    bool started(uint32_t count_before) const;
    bool wait_idle(std::chrono::steady_clock::time_point deadline) const;
    pdt::Error error(const char* operation, int code, const std::string& what) const;

    vfio::RegisterWindow m_regs;
    uint64_t m_base = 0;
    std::string m_name;
    Warn m_warn;
    uint32_t m_control = 0;
    bool m_control_unreadable = false;
    bool m_w1s_ignored = false;
    bool m_w1c_ignored = false;
    unsigned m_refused_starts = 0;  // starts refused, over the channel's life
    bool m_refusal_warned = false;
};

}  // namespace xdma
