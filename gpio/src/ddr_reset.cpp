#include "gpio/ddr_reset.hpp"

#include <cstring>
#include <functional>

#include "base/format.hpp"

namespace gpio {

namespace {

using Clock = std::chrono::steady_clock;
namespace bits = ddr_reset_bits;

// The column names of fpga_sio's table, bit 0 first (its text, kept for scripts that read it).
constexpr const char* kDdrResetColumns[bits::count] = {"clocking_wizard_reset", "clocking_wizard_locked",
                                                       "mmcm_locked", "init_cal_complete", "ui_clk_sync_rst_mask"};

// Every bit the reset concerns; other inputs (a U200's RDIMM alert_n) are not compared.
constexpr uint32_t kResetSignals = bits::clocking_wizard_reset | bits::clocking_wizard_locked | bits::mmcm_locked |
                                   bits::init_calib_complete | bits::ui_clk_sync_rst;
constexpr uint32_t kResetComplete = bits::clocking_wizard_locked | bits::mmcm_locked | bits::init_calib_complete;

// Appends the signals to the record when they changed (the first always).
class Recorder {
public:
    Recorder(const DdrResetControl& control, ResetRecord& record) : m_control(control), m_record(record) {}
    void sample() {
        const auto now = Clock::now();
        const uint32_t signals = m_control.signals();
        auto& history = m_record.history;
        if (history.empty())
            m_first = now;
        if (history.empty() || (history.size() < DdrResetControl::kMaxSamples && signals != history.back().signals))
            history.push_back({now - m_first, signals});
    }
    bool complete() const { return (m_record.history.back().signals & kResetSignals) == kResetComplete; }

private:
    const DdrResetControl& m_control;
    ResetRecord& m_record;
    Clock::time_point m_first;
};

// Releases the reset on every path out of DdrResetControl::reset.
struct ReleaseOnExit {
    std::function<void()> release;
    ~ReleaseOnExit() { release(); }
};

}  // namespace

uint32_t DdrResetControl::signals() const {
    return (m_gpio.read_data(Channel::Gpio) & ~bits::clocking_wizard_reset) | m_output;
}

void DdrResetControl::write_reset(bool asserted) {
    m_output = asserted ? bits::clocking_wizard_reset : 0;
    m_gpio.write_data(Channel::Gpio, m_output);
}

ResetRecord DdrResetControl::reset(std::chrono::nanoseconds duration, std::chrono::nanoseconds timeout) {
    ResetRecord record;
    Recorder recorder(*this, record);
    recorder.sample();  // before the reset (assumed not held already)
    const auto release_at = Clock::now() + duration;
    write_reset(true);
    ReleaseOnExit guard{[this] {
        if (m_output)
            write_reset(false);
    }};
    do
        recorder.sample();
    while (Clock::now() < release_at);
    write_reset(false);
    const auto give_up_at = Clock::now() + timeout;
    do
        recorder.sample();
    while (!recorder.complete() && Clock::now() < give_up_at);
    record.completed = recorder.complete();
    return record;
}

std::string signals_text(uint32_t signals) {
    auto bit = [signals](uint32_t mask) { return (signals & mask) != 0 ? 1u : 0u; };
    return pdt::format("locked           : %u\n", bit(bits::clocking_wizard_locked)) +
           pdt::format("mmcm_locked      : %u\n", bit(bits::mmcm_locked)) +
           pdt::format("init_cal_complete: %u\n", bit(bits::init_calib_complete)) +
           pdt::format("ui_clk_sync_rst  : %u\n", bit(bits::ui_clk_sync_rst));
}

std::string history_text(const ResetRecord& record) {
    std::string text = " Time (secs)";
    for (const char* column : kDdrResetColumns)
        text += std::string(" ") + column;
    text += "\n";
    for (const SignalSample& sample : record.history) {
        text += pdt::format("%12.9f", std::chrono::duration<double>(sample.since_first).count());
        for (unsigned bit = 0; bit < bits::count; ++bit)
            text += pdt::format(" %*d", static_cast<int>(std::strlen(kDdrResetColumns[bit])),
                                (sample.signals >> bit) & 1 ? 1 : 0);
        text += "\n";
    }
    return text;
}

}  // namespace gpio
