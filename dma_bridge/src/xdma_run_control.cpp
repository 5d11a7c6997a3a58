// Run set and cleared with proof from what the IP shows (xdma_run_control.hpp).
#include "dma_bridge/xdma_run_control.hpp"

#include <algorithm>
#include <thread>

#include "base/format.hpp"
#include "dma_bridge/xdma_registers.hpp"
#include "streams/fallbacks.hpp"

namespace xdma {
namespace {

using pdt::hex32;

// Status bits that say the engine ran since Run was set (PG195: each resets on setting Run).
constexpr uint32_t kRan = status::busy | status::descriptor_stopped | status::descriptor_completed | status::errors;

}  // namespace

pdt::Error RunControl::error(const char* operation, int code, const std::string& what) const {
    return pdt::make_error(operation, m_name, code, what);
}

void RunControl::write_control(uint32_t value) {
    m_control = value & ~control::run;
    set_reg(channel_reg::CONTROL, m_control);
    if (m_control == 0 || m_control_unreadable)
        return;
    if (reg(channel_reg::CONTROL) == 0)
        control_not_readable("Control (0x04) reads back 0x00000000 after a write of " + hex32(m_control));
}

void RunControl::set_run() {
    if (m_w1s_ignored)
        set_reg(channel_reg::CONTROL, m_control | control::run);
    else
        set_reg(channel_reg::CONTROL_W1S, control::run);
}

bool RunControl::started(uint32_t count_before) const {
    if (reg(channel_reg::STATUS) & kRan)
        return true;
    // PG195: the count resets on setting Run, then counts; unchanged, it says nothing.
    return reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT) != count_before;
}

bool RunControl::wait_idle(std::chrono::steady_clock::time_point deadline) const {
    while (reg(channel_reg::STATUS) & status::busy) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return true;
}

void RunControl::control_not_readable(const std::string& why) {
    m_control_unreadable = true;
    streams::note_fallback("control_not_readable");
    m_warn(why + ": the IP does not read Control back; the engine's start and stop are judged by Status (0x40)");
}

void RunControl::w1s_ignored(const std::string& why) {
    m_w1s_ignored = true;
    streams::note_fallback("control_w1s_ignored");
    m_warn(why);
}

// Sets Run once, through the write that works: the W1S alias (PG195 0x08), or a plain write of
// Control (0x04) where W1S is ignored; which one, Control tells, or Status where Control does
// not read back.
pdt::Result<void> RunControl::set_run_once(uint32_t count) {
    set_run();
    if (m_control_unreadable) {
        if (!m_w1s_ignored && !started(count)) {
            set_reg(channel_reg::CONTROL, m_control | control::run);
            if (started(count))
                w1s_ignored("Status shows the engine idle after a write of Run to the Control W1S alias (0x08) and "
                            "running after a write of Control (0x04): starting the engine with writes of Control");
        }
        return {};
    }
    if (reg(channel_reg::CONTROL) & control::run)
        return {};
    const std::string read = "Control (0x04) reads back " + hex32(reg(channel_reg::CONTROL));
    if (started(count)) {  // running, and Control says no Run
        control_not_readable(read + " while Status shows the engine running");
        return {};
    }
    if (!m_w1s_ignored) {
        w1s_ignored("Control reads back " + hex32(reg(channel_reg::CONTROL)) +
                    " after a write of Run to the Control W1S alias (0x08): Run did not stick; starting the engine "
                    "with a write of Control (0x04) instead");
        set_run();
        if (reg(channel_reg::CONTROL) & control::run)
            return {};
        if (started(count)) {
            control_not_readable(read + " while Status shows the engine running");
            return {};
        }
    }
    return error("start XDMA engine", EIO,
                 "Control.run reads back 0 after a write of Control W1S (0x08) and of Control (0x04), and Status "
                 "shows the engine idle: the engine cannot be started");
}

pdt::Result<void> RunControl::start(std::chrono::milliseconds bound) {
    const auto begin = std::chrono::steady_clock::now();
    const auto deadline = begin + bound;
    auto backoff = std::chrono::microseconds(50);
    for (unsigned refused = 0;; ++refused) {
        (void)reg(channel_reg::STATUS_RC);  // what Status logs from here on is this start's
        const uint32_t count = reg(channel_reg::COMPLETED_DESCRIPTOR_COUNT);
        PDT_CHECK(set_run_once(count));
        if (started(count)) {
            report_refusals(refused, begin);
            return {};
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            m_refused_starts += refused + 1;
            return error("start XDMA engine", EIO,
                         "the engine did not start: Run was set " + std::to_string(refused + 1) + " time(s) over " +
                             std::to_string(bound.count()) + " ms and Status (0x40) never showed it busy or stopped (last " +
                             hex32(reg(channel_reg::STATUS)) +
                             "), nor did the Completed Descriptor Count move: the IP refuses to start");
        }
        PDT_CHECK(clear_run());
        (void)wait_idle(deadline);
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::microseconds(5000));
    }
}

void RunControl::report_refusals(unsigned refused, std::chrono::steady_clock::time_point begin) {
    m_refused_starts += refused;
    if (refused == 0 || m_refusal_warned)
        return;
    m_refusal_warned = true;
    streams::note_fallback("start_refused_after_stop");
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - begin);
    m_warn("the engine refused " + std::to_string(refused) + " start(s) just after a stop (Status showed neither busy "
           "nor a stop after Run was set); it started " + std::to_string(us.count()) + " us later, on a retry");
}

pdt::Result<void> RunControl::clear_run() {
    if (m_w1c_ignored)
        set_reg(channel_reg::CONTROL, m_control);
    else
        set_reg(channel_reg::CONTROL_W1C, control::run);
    if (m_control_unreadable)
        return {};
    if ((reg(channel_reg::CONTROL) & control::run) && !m_w1c_ignored) {
        m_w1c_ignored = true;
        streams::note_fallback("control_w1c_ignored");
        m_warn("Run reads back set after a write of Run to the Control W1C alias (0x0C): the alias is ignored; "
               "clearing Run with a write of Control (0x04) instead");
        set_reg(channel_reg::CONTROL, m_control);
    }
    if (reg(channel_reg::CONTROL) & control::run)
        return error("stop XDMA engine", EIO, "Run reads back set after a write of the Control W1C alias (0x0C) and of Control (0x04): "
                          "the IP keeps Run set, so the engine may still write the buffers it was given");
    return {};
}

pdt::Result<void> RunControl::stop(std::chrono::milliseconds idle_wait, const std::function<std::string()>& state) {
    PDT_CHECK(clear_run());
    if (wait_idle(std::chrono::steady_clock::now() + idle_wait))
        return {};
    if (m_control_unreadable && !m_w1c_ignored) {
        // Nothing reads back: the W1C alias may be what the IP ignores. A plain write tells.
        set_reg(channel_reg::CONTROL, m_control);
        if (wait_idle(std::chrono::steady_clock::now() + idle_wait)) {
            m_w1c_ignored = true;
            streams::note_fallback("control_w1c_ignored");
            m_warn("Status.busy stayed set after a write of Run to the Control W1C alias (0x0C) and cleared after a "
                   "write of Control (0x04): stopping the engine with writes of Control");
            return {};
        }
    }
    return error("stop XDMA engine", ETIMEDOUT, "Timeout waiting to become idle after clearing Run bit: " + state() +
                                                    "; only a device reset (VFIO_DEVICE_RESET) recovers the channel");
}

std::vector<std::string> RunControl::fallbacks() const {
    std::vector<std::string> names;
    if (m_w1s_ignored)
        names.emplace_back("control_w1s_ignored");
    if (m_w1c_ignored)
        names.emplace_back("control_w1c_ignored");
    if (m_control_unreadable)
        names.emplace_back("control_not_readable");
    if (m_refused_starts > 0)
        names.emplace_back("start_refused_after_stop");
    return names;
}

}  // namespace xdma
