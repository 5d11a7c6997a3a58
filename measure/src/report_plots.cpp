// The report's plots: gnuplot scripts (data inline as datablocks) run through a Plotter; the
// real one starts gnuplot as a child process (`set terminal svg`) and reads the SVG it prints.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/report.hpp"

extern char** environ;

namespace measure::report {

namespace {

// Colours per card (a card keeps its colour on every plot); paths differ by point type and dash.
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
constexpr const char* kLight[] = {"#7fb2dc", "#ea9192", "#8fd08f", "#c5b0dc", "#ffb873", "#c49c94", "#f1b6da", "#8bdde7"};
constexpr size_t kMaxCdfPoints = 400;

// The staged path and its model in a lighter shade of the card's colour.
std::string colour(size_t card, bool light = false) {
    const size_t i = card % (sizeof(kColours) / sizeof(kColours[0]));
    return light ? kLight[i] : kColours[i];
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.6g", value);
    return text;
}

std::string header(const std::string& title, const std::string& xlabel, const std::string& ylabel) {
    return "set terminal svg size 900,480 noenhanced font 'sans,12' background '#ffffff'\n"
           "set title " + gnuplot_quote(title) + "\nset xlabel " + gnuplot_quote(xlabel) +
           "\nset ylabel " + gnuplot_quote(ylabel) + "\nset grid\nset key outside right top\nset yrange [0:*]\n";
}

// Tics at powers of two, labelled as sizes, at most about nine of them.
std::string size_tics(uint64_t low, uint64_t high) {
    unsigned count = 0;
    for (uint64_t b = low; b <= high && b != 0; b <<= 1)
        ++count;
    const unsigned step = count > 9 ? (count + 8) / 9 : 1;
    std::string tics = "set xtics (";
    unsigned index = 0;
    for (uint64_t b = low; b <= high && b != 0; b <<= 1, ++index)
        if (index % step == 0)
            tics += (index ? ", " : "") + gnuplot_quote(format_bytes(b)) + " " + std::to_string(b);
    return tics + ")\n";
}

struct Series {
    std::string block;  // the datablock text
    std::string plot;   // its plot clause
};

std::string datablock(size_t index, const std::string& rows) {
    return "$d" + std::to_string(index) + " << EOD\n" + rows + "EOD\n";
}

std::string join_plot(const std::vector<Series>& series) {
    std::string script;
    for (const Series& s : series)
        script += s.block;
    script += "plot ";
    for (size_t i = 0; i < series.size(); ++i)
        script += (i ? ", \\\n     " : "") + series[i].plot;
    return script + "\n";
}

}  // namespace

std::string bandwidth_script(const Report& report, const std::string& direction, std::vector<std::string>& titles) {
    std::vector<Series> series;
    uint64_t low = UINT64_MAX, high = 0;
    for (size_t c = 0; c < report.cards.size(); ++c) {
        const Card& card = report.cards[c];
        for (const Curve& curve : card.curves) {
            if (curve.direction != direction || curve.points.empty())
                continue;
            std::string rows;
            for (const CurvePoint& p : curve.points) {
                rows += std::to_string(p.bytes) + " " + number(p.gbps.mean) + " " + number(p.gbps.low) + " " +
                        number(p.gbps.high) + "\n";
                low = std::min(low, p.bytes);
                high = std::max(high, p.bytes);
            }
            const std::string title = card.tag + " " + curve.path;
            const bool direct = curve.path == "direct";
            series.push_back({datablock(series.size(), rows),
                              "$d" + std::to_string(series.size()) + " using 1:2:3:4 with yerrorlines lc rgb '" +
                                  colour(c, !direct) + "' lw " + (direct ? "2" : "1.5") + " pt " + (direct ? "7" : "4") +
                                  " ps 0.6 title " + gnuplot_quote(title)});
            titles.push_back(title);
        }
        for (const ModelCurve& model : card.model) {
            if (model.direction != direction || model.points.empty())
                continue;
            std::string rows;
            for (const auto& [bytes, gbps] : model.points)
                rows += std::to_string(bytes) + " " + number(gbps) + "\n";
            const std::string title = card.tag + " staged model";
            series.push_back({datablock(series.size(), rows), "$d" + std::to_string(series.size()) +
                                                                  " using 1:2 with lines lc rgb '" + colour(c, true) +
                                                                  "' dt 2 lw 1.5 title " + gnuplot_quote(title)});
            titles.push_back(title);
        }
    }
    if (series.empty())
        return {};
    return header(direction + ": rate against copy size (mean of the run medians, 99% interval)", "copy size",
                  "GB/s") +
           "set logscale x 2\nset xrange [" + std::to_string(low / 2 ? low / 2 : 1) + ":" +
           std::to_string(high * 2) + "]\n" + size_tics(low, high) + join_plot(series);
}

std::string latency_script(const Report& report, const std::string& mode, std::vector<std::string>& titles) {
    std::vector<Series> series;
    double low = INFINITY, high = 0;
    for (size_t c = 0; c < report.cards.size(); ++c) {
        for (const CardLatency& latency : report.cards[c].latency) {
            if (latency.mode != mode || latency.sorted_us.empty())
                continue;
            const std::vector<double>& s = latency.sorted_us;
            const size_t step = (s.size() + kMaxCdfPoints - 1) / kMaxCdfPoints;
            std::string rows;
            for (size_t i = 0; i < s.size(); i += step)
                rows += number(s[i]) + " " + number(static_cast<double>(i + 1) / static_cast<double>(s.size())) + "\n";
            rows += number(s.back()) + " 1\n";
            low = std::min(low, s.front());
            high = std::max(high, s.back());
            const std::string title = report.cards[c].tag + (latency.direction.empty() ? "" : " " + latency.direction) +
                                      " (" + std::to_string(s.size()) + " samples)";
            const bool second = latency.direction == "C2H";  // C2H lighter, dashed
            series.push_back({datablock(series.size(), rows), "$d" + std::to_string(series.size()) +
                                                                  " using 1:2 with steps lc rgb '" + colour(c, second) +
                                                                  (second ? "' dt 4" : "'") + " lw 2 title " +
                                                                  gnuplot_quote(title)});
            titles.push_back(title);
        }
    }
    if (series.empty())
        return {};
    std::string script = header("Latency CDF, " + mode + ": issue to completion", "microseconds",
                                "fraction of copies at or below");
    script += "set yrange [0:1.02]\nset key right bottom inside\n";
    if (low > 0 && high / low > 20)
        script += "set logscale x 10\n";
    return script + join_plot(series);
}

namespace {

// From blue (the smallest window) to red (the largest).
std::string window_colour(size_t index, size_t count) {
    const double t = count > 1 ? static_cast<double>(index) / static_cast<double>(count - 1) : 0;
    char text[8];
    std::snprintf(text, sizeof(text), "#%02x%02x%02x", static_cast<unsigned>(0x1f + t * (0xd6 - 0x1f)),
                  static_cast<unsigned>(0x77 - t * (0x77 - 0x27)), static_cast<unsigned>(0xb4 - t * (0xb4 - 0x28)));
    return text;
}

}  // namespace

std::string access_script(const Card& card, const std::string& direction, std::vector<std::string>& titles) {
    std::vector<uint64_t> windows;
    for (const AccessCurve& curve : card.access)
        if (curve.direction == direction && std::find(windows.begin(), windows.end(), curve.window) == windows.end())
            windows.push_back(curve.window);
    std::sort(windows.begin(), windows.end());
    std::vector<Series> series;
    uint64_t low = UINT64_MAX, high = 0;
    for (const AccessCurve& curve : card.access) {
        if (curve.direction != direction || curve.points.empty())
            continue;
        std::string rows;
        for (const auto& [bytes, gbps] : curve.points) {
            rows += std::to_string(bytes) + " " + number(gbps) + "\n";
            low = std::min(low, bytes);
            high = std::max(high, bytes);
        }
        const size_t w = static_cast<size_t>(std::find(windows.begin(), windows.end(), curve.window) - windows.begin());
        const bool random = curve.pattern == "random";
        const std::string title = format_bytes(curve.window) + " " + curve.pattern;
        series.push_back({datablock(series.size(), rows), "$d" + std::to_string(series.size()) +
                                                              " using 1:2 with linespoints lc rgb '" +
                                                              window_colour(w, windows.size()) + "' lw 1.5 pt " +
                                                              (random ? "4 dt 2" : "7") + " ps 0.5 title " +
                                                              gnuplot_quote(title)});
        titles.push_back(title);
    }
    if (series.empty())
        return {};
    uint64_t first_tic = 1;
    while (first_tic * 2 <= low)
        first_tic *= 2;
    return header(card.tag + " " + direction + " access: rate against transfer size, a line per host window and pattern",
                  "transfer size", "GB/s") +
           "set logscale x 2\nset xrange [" + number(static_cast<double>(low) * 0.8) + ":" +
           number(static_cast<double>(high) * 1.25) + "]\nset key outside right top font 'sans,9'\n" +
           size_tics(first_tic, high) + join_plot(series);
}

pdt::Result<std::vector<Plot>> make_plots(const Report& report, const Plotter& plotter) {
    std::vector<Plot> plots;
    auto add = [&](const std::string& id, const std::string& title, const std::string& script,
                   std::vector<std::string> titles) -> pdt::Result<void> {
        if (script.empty())
            return {};
        std::string svg = PDT_TRY(plotter(script));
        const size_t start = svg.find("<svg");
        if (start == std::string::npos)
            return pdt::make_error("plot", id, EPROTO, "gnuplot printed no <svg> element");
        plots.push_back(Plot{id, title, std::move(titles), svg.substr(start)});
        return {};
    };
    for (const char* direction : {"H2C", "C2H"}) {
        std::vector<std::string> titles;
        const std::string script = bandwidth_script(report, direction, titles);
        PDT_CHECK(add(std::string("bandwidth-") + direction, std::string(direction) + " rate against copy size",
                      script, titles));
    }
    for (const char* mode : {"back_to_back", "idle_gap"}) {
        std::vector<std::string> titles;
        const std::string script = latency_script(report, mode, titles);
        PDT_CHECK(add(std::string("latency-") + mode, std::string("Latency CDF, ") + mode, script, titles));
    }
    for (const Card& card : report.cards)
        for (const char* direction : {"H2C", "C2H"}) {
            std::vector<std::string> titles;
            const std::string script = access_script(card, direction, titles);
            PDT_CHECK(add("access-" + card.tag + "-" + direction,
                          card.tag + " " + direction + " access (pcie-bench): rate against transfer size", script,
                          titles));
        }
    return plots;
}

namespace {

// A file removed when it goes out of scope.
class TempFile {
public:
    TempFile() {
        const char* dir = std::getenv("TMPDIR");
        m_path = std::string(dir && *dir ? dir : "/tmp") + "/pcie_link_report.XXXXXX";
        m_fd = ::mkstemp(m_path.data());
    }
    ~TempFile() {
        if (m_fd >= 0) {
            ::close(m_fd);
            ::unlink(m_path.c_str());
        }
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    bool ok() const { return m_fd >= 0; }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
    int m_fd = -1;
};

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

pdt::Result<std::string> run_gnuplot(const std::string& gnuplot, const std::string& script) {
    TempFile script_file, error_file;
    if (!script_file.ok() || !error_file.ok())
        return pdt::errno_error("create a temporary file for", "gnuplot", "set TMPDIR to a writable directory");
    std::ofstream(script_file.path(), std::ios::binary) << script;
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        return pdt::errno_error("pipe for", "gnuplot");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, error_file.path().c_str(), O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> args = {gnuplot, script_file.path()};
    char* argv[] = {args[0].data(), args[1].data(), nullptr};
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (spawned != 0) {
        ::close(out[0]);
        return pdt::make_error("run", gnuplot, spawned,
                               "the plots need gnuplot: install the Debian package gnuplot-nox (scripts/install_deps.sh)");
    }
    std::string svg;
    char buffer[65536];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof(buffer))) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        svg.append(buffer, static_cast<size_t>(n));
    }
    ::close(out[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string stderr_text = read_all(error_file.path());
        if (stderr_text.size() > 2000)
            stderr_text = stderr_text.substr(0, 2000) + "...";
        return pdt::make_error("run", gnuplot, EIO, "gnuplot failed: " + stderr_text);
    }
    return svg;
}

}  // namespace

Plotter gnuplot_plotter(const std::string& gnuplot_path) {
    return [gnuplot_path](const std::string& script) { return run_gnuplot(gnuplot_path, script); };
}

}  // namespace measure::report
