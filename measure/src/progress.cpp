#include "measure/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace measure {

Progress Progress::for_stderr() { return Progress(std::cerr, isatty(STDERR_FILENO) == 1); }

void Progress::begin(const std::string& phase, uint64_t steps, double total_work) {
    m_phase = phase, m_steps = steps, m_step = 0, m_total = total_work, m_done = 0;
    m_start = m_last_draw = std::chrono::steady_clock::now();
}

void Progress::step(double work) {
    ++m_step;
    m_done += work;
    if (!m_enabled)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_last_draw < std::chrono::milliseconds(200) && m_step < m_steps)
        return;
    m_last_draw = now;
    const double fraction = m_total > 0 ? m_done / m_total : 0;
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    char line[160];
    if (fraction > 0.001)
        std::snprintf(line, sizeof line, "\r[%s] step %llu/%llu %3.0f%%  time left %.0f s   ", m_phase.c_str(),
                      static_cast<unsigned long long>(m_step), static_cast<unsigned long long>(m_steps),
                      100 * fraction, elapsed * (1 - fraction) / fraction);
    else
        std::snprintf(line, sizeof line, "\r[%s] step %llu/%llu", m_phase.c_str(),
                      static_cast<unsigned long long>(m_step), static_cast<unsigned long long>(m_steps));
    m_out << line << std::flush;
}

void Progress::end() {
    if (m_enabled)
        m_out << "\r" << std::string(60, ' ') << "\r" << std::flush;
}

}  // namespace measure
