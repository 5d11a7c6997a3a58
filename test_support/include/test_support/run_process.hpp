// Runs an executable as a child process (fork/execve) and returns what it printed and how it
// ended: the one helper the process tests share.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "test_support/text.hpp"  // contains, for the tests of what a run printed

namespace test_support {

// exit_code when the timeout killed the child.
constexpr int kTimedOut = -2;

// Resident memory a tool built with AddressSanitizer holds beyond its own: shadow memory and the
// allocator's quarantine of freed blocks (256 MiB by default; measured 370-430 MiB in all for a
// stream tool that holds 20 MiB unsanitized). Absolute RSS bounds add it. The quarantine also
// grows while it fills (up to 256 MiB), so a growth check runs its tool with
// no_quarantine_environment() added: freed blocks are reused at once, as without the sanitizer.
// The sanitized allocator still warms up for a few seconds: measure growth after that.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kSanitizerRssAllowanceKib = 512 * 1024;
#else
constexpr long kSanitizerRssAllowanceKib = 0;
#endif

// "ASAN_OPTIONS=<the test's own>:quarantine_size_mb=0" (the variable's options are kept).
std::string no_quarantine_environment();

struct Outcome {
    int exit_code = -1;     // exit status; 128 + signal when a signal ended it; kTimedOut
    std::string output;     // stdout, and stderr too unless Stderr::separate / discard
    std::string err;        // stderr with Stderr::separate
    long peak_rss_kib = 0;  // the child's peak resident set (wait4)
    bool running_when_stopped = false;  // with stop_once: the child had not exited when it matched
};

// Whether `run` exited with `exit_code` and printed every one of `parts` (in output), for
// EXPECT_TRUE: a failure names the exit status it had and each part missing, and shows the whole
// output.
inline testing::AssertionResult exited_printing(const Outcome& run, int exit_code,
                                                const std::vector<std::string_view>& parts) {
    testing::AssertionResult printed = contains_all(run.output, parts);
    if (run.exit_code == exit_code)
        return printed;
    testing::AssertionResult failure = testing::AssertionFailure();
    failure << "exit status " << run.exit_code << ", expected " << exit_code << "\n";
    if (!printed)
        return failure << printed.message();
    return failure << "in:\n" << run.output;
}

enum class Stderr { with_stdout, separate, discard, inherit };

struct RunOptions {
    Stderr stderr_to = Stderr::with_stdout;
    // "NAME=value" assignments added to (or replacing in) the test's environment.
    std::vector<std::string> environment;
    bool stdin_from_null = false;  // else the child inherits the test's stdin
    // SIGINT once this much time has passed since the start (prefer interrupt_once: an event).
    std::optional<std::chrono::milliseconds> interrupt_after;
    // Checked on output after each read while the child runs: once true, the child gets one SIGINT.
    std::function<bool(const std::string&)> interrupt_once;
    // The signal interrupt_after and interrupt_once send (SIGTERM: a batch system's stop).
    int interrupt_signal = 2;  // SIGINT
    // When the test runs as root, the child runs as nobody (uid and gid 65534, no supplementary
    // groups), so that file permissions apply to it as they do to a user.
    bool unprivileged = false;
    // SIGKILL once this much time has passed; exit_code is then kTimedOut.
    std::optional<std::chrono::milliseconds> timeout;
    // With a path, stdout and stderr go to this file (kept) and are read back into output.
    std::string output_file;
    // Called with the child's pid every sample_interval while it runs.
    std::function<void(pid_t)> while_running;
    std::chrono::milliseconds sample_interval{100};
    // Checked on output after each read while the child runs: once true, the child is killed (SIGKILL).
    std::function<bool(const std::string&)> stop_once;
};

Outcome run_process(const std::string& path, const std::vector<std::string>& args, const RunOptions& options = {});

// The words of a command line split at spaces (no quoting), for tests that write args as one string.
std::vector<std::string> words(const std::string& text);

}  // namespace test_support
