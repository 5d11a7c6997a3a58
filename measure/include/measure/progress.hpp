// Progress of a long run on a terminal: "\r[sweep] step 12/80  15%  time left 42 s", redrawn in
// place; silent when the stream is not a terminal (a pipe, a file, CI), so logs stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace measure {

class Progress {
public:
    // `enabled` false: every call does nothing. for_stderr() decides it with isatty(2).
    Progress(std::ostream& out, bool enabled) : m_out(out), m_enabled(enabled) {}
    static Progress for_stderr();

    bool enabled() const { return m_enabled; }
    // Starts a phase of `total` units of work (bytes, copies: anything that grows with time).
    void begin(const std::string& phase, uint64_t steps, double total_work);
    void step(double work);
    void end();

private:
    std::ostream& m_out;
    bool m_enabled;
    std::string m_phase;
    uint64_t m_steps = 0, m_step = 0;
    double m_total = 0, m_done = 0;
    std::chrono::steady_clock::time_point m_start, m_last_draw;
};

}  // namespace measure
