#!/usr/bin/env python3
"""Soak test on simulated designs (scripts/soak.sh runs this; python3 standard library only).

For --duration seconds it alternates
  a clean stretch: test_dma_bridge_parallel_streams on a rotating pair of built-in stream-loopback
    designs for --clean_seconds; expected: exit 0, "Overall PASS", bytes verified > 0;
  a faulted stretch: the same tool on one rotating design with PDT_SIM_FAULT set (the simulated
    bus injects that XDMA model fault, sim/include/sim/xdma_model.hpp); expected: exit 1,
    "Overall FAIL" and the failure message that names that fault's effect.
Then (--long_run N) one process runs clean for N seconds, to show RSS flat within a process.
VmRSS and VmHWM of every run are sampled from /proc/<pid>/status every --sample_interval s.
Every tool output goes to --log; the summary goes to stdout. Exit 0 only when every clean run
passed with bytes verified, every injected fault was detected and named, and RSS stayed flat.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time

DESIGNS = [
    "NiteFury_dma_stream_loopback",
    "TEF1001_dma_stream_loopback",
    "TOSING_160T_dma_stream_loopback",
    "VD100_dma_stream_loopback",
    "XCKU5P_DUAL_QSFP_dma_stream_loopback",
    "XCKU5P_SINGLE_QSFP_dma_stream_loopback",
]

DATA_ERROR = (r"transfer \d+: data error in buffer \d+ at buffer offset 0x[0-9a-f]+, stream offset 0x[0-9a-f]+: "
              r"expected 0x[0-9a-f]{8} actual 0x[0-9a-f]{8}, \d+ bad words")
# PDT_SIM_FAULT value -> what the failing pair's "Test FAILED: <bdf> <channel> ..." line must say.
FAULTS = [
    ("data_bit_flip@H2C0", DATA_ERROR),
    ("engine_hang@H2C0", r"timeout: no (H2C|C2H) completion for \d+\.\d+ secs[\s\S]*\n\S+ H2C 0 still busy after stop"),
    ("data_bit_flip@C2H0", DATA_ERROR),
    ("drop_packet@H2C0", DATA_ERROR),
    ("duplicate_packet@H2C0", DATA_ERROR),
    ("reorder_packet@H2C0", DATA_ERROR),
    ("short_c2h_length@C2H0", r"transfer \d+: C2H completion length \d+ EOP \d, expected length \d+"),
    ("engine_stall@H2C0", r"timeout: no (H2C|C2H) completion for \d+\.\d+ secs"),
    ("engine_stall@C2H0", r"timeout: no (H2C|C2H) completion for \d+\.\d+ secs"),
    ("descriptor_read_error@H2C0", r"wait: "),
    ("bad_magic@C2H0", r"wait: "),
]
FAILED_LINE = r"Test FAILED: [0-9a-f:.]+ (H2C|C2H) \d+ "
VERIFIED = re.compile(r"^\S+ \d+ -> \d+ Test pattern verified in \d+ words \((\d+) bytes\)$", re.M)


def parse_arguments():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=3600,
                   help="seconds of clean/faulted stretches (default 3600; 0: only the --long_run)")
    p.add_argument("--clean_seconds", type=float, default=50, help="--duration of each clean run (default 50)")
    p.add_argument("--fault_seconds", type=float, default=10,
                   help="--duration of each faulted run: the fault must end it first (default 10)")
    p.add_argument("--long_run", type=float, default=0, help="then one clean run of this many seconds (default 0: none)")
    p.add_argument("--tool", default="build/software_tests/tools/test_dma_bridge_parallel_streams")
    p.add_argument("--verify_threads", default="1")
    p.add_argument("--stream_mapping_size", default="0x1000000", help="host buffer bytes per channel (default 16 MiB)")
    p.add_argument("--transfer_timeout", default="2",
                   help="seconds without a completion that fail a faulted run (default 2: stalls end it quickly)")
    p.add_argument("--clean_transfer_timeout", default="30",
                   help="the same for clean and long runs (default 30: a loaded machine can starve the simulated"
                        " engines' threads for seconds, which is no DMA error)")
    p.add_argument("--sample_interval", type=float, default=1.0)
    p.add_argument("--rss_growth_limit_mib", type=float, default=16,
                   help="most a run's RSS may grow after its first quarter, and the most peak RSS of runs on the"
                        " same designs may differ (default 16)")
    p.add_argument("--log", default="soak.log", help="every tool output, with a header per run")
    args = p.parse_args()
    if args.duration < 0 or args.clean_seconds < 1 or args.fault_seconds < 1 or args.long_run < 0:
        p.error("durations must be positive (clean and fault runs at least 1 s)")
    if args.duration == 0 and args.long_run == 0:
        p.error("nothing to run: --duration 0 and no --long_run")
    if not os.access(args.tool, os.X_OK):
        p.error(f"--tool {args.tool}: not an executable (build test_dma_bridge_parallel_streams first)")
    return args


def read_memory_kib(pid):
    """(VmRSS, VmHWM) in KiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
    except (OSError, KeyError, ValueError, IndexError):
        return None


class Run:
    """One tool process: its output, exit status, verdict and sampled memory."""

    def __init__(self, kind, designs, fault, seconds):
        self.kind, self.designs, self.fault, self.seconds = kind, designs, fault, seconds
        self.start = self.wall = 0.0
        self.rc = None
        self.output = ""
        self.samples = []  # (seconds since start, VmRSS KiB, VmHWM KiB)
        self.peak_kib = 0  # the process's maximum RSS (wait4's ru_maxrss)
        self.bytes_verified = 0
        self.verdict = "?"

    def command(self, args):
        timeout = args.transfer_timeout if self.fault else args.clean_transfer_timeout
        command = [args.tool, "--duration", str(int(self.seconds)), "--verify_threads", args.verify_threads,
                   "--stream_mapping_size", args.stream_mapping_size, "--transfer_timeout", timeout]
        for design in self.designs:
            command += ["--sim_design", design]
        return command

    def execute(self, args, log, t0):
        env = dict(os.environ)
        env.pop("PDT_SIM_FAULT", None)
        if self.fault:
            env["PDT_SIM_FAULT"] = self.fault
        command = self.command(args)
        self.start = time.monotonic() - t0
        begin = time.monotonic()
        with open(log + ".run", "w+") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
            self.rc, self.peak_kib = self.sample_until_exit(process, begin, args.sample_interval)
            process.returncode = self.rc
            self.wall = time.monotonic() - begin
            out.seek(0)
            self.output = out.read()
        os.unlink(log + ".run")
        with open(log, "a") as f:
            f.write(f"=== {self.kind} run at {self.start:.1f} s: "
                    + ("" if not self.fault else f"PDT_SIM_FAULT={self.fault} ") + " ".join(command) + "\n")
            f.write(self.output)
            f.write(f"=== exit {self.rc} after {self.wall:.1f} s; verdict {self.judge()}\n")

    def sample_until_exit(self, process, begin, interval):
        """Samples memory until the process exits (stopped as Ctrl-C would, then killed, 30 s after
        its --duration); returns its exit status and peak RSS (KiB)."""
        deadline = begin + self.seconds + 30
        interrupted = None
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status), usage.ru_maxrss
            memory = read_memory_kib(process.pid)
            now = time.monotonic()
            if memory:
                self.samples.append((now - begin, *memory))
            if now > deadline and interrupted is None:
                process.send_signal(signal.SIGINT)
                interrupted = now
            elif interrupted is not None and now > interrupted + 10:
                process.kill()
            # every 50 ms in the first second: faulted runs end within a fraction of a second
            time.sleep(min(interval, 0.05) if now - begin < 1 else interval)

    def judge(self):
        self.bytes_verified = sum(int(b) for b in VERIFIED.findall(self.output))
        passed = "\nOverall PASS\n" in "\n" + self.output
        failed = "\nOverall FAIL\n" in "\n" + self.output
        if not self.fault:
            ok = self.rc == 0 and passed and not failed and self.bytes_verified > 0
            self.verdict = "PASS" if ok else "UNEXPECTED-FAIL"
        elif self.rc == 0 or passed:
            self.verdict = "UNDETECTED"
        else:
            pattern = dict(FAULTS)[self.fault]
            named = re.search(FAILED_LINE + pattern, self.output) is not None
            self.verdict = "DETECTED" if self.rc == 1 and failed and named else "MISREPORTED"
        return self.verdict

    def rss(self):
        """(first VmRSS, last VmRSS, peak VmHWM) in KiB."""
        if not self.samples:
            return 0, 0, self.peak_kib
        return self.samples[0][1], self.samples[-1][1], max([self.peak_kib] + [s[2] for s in self.samples])


def slope_per_hour(points):
    """Least-squares slope of (seconds, KiB) points, in KiB per hour."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return 0.0 if sxx == 0 else 3600 * sum((x - mx) * (y - my) for x, y in points) / sxx


def mib(kib):
    return f"{kib / 1024:.1f}"


def run_stretches(args, t0):
    runs = []
    index = 0
    while args.duration > 0 and (time.monotonic() - t0 + args.clean_seconds <= args.duration or index == 0):
        pair = [DESIGNS[index % len(DESIGNS)], DESIGNS[(index + 1) % len(DESIGNS)]]
        runs.append(Run("clean", pair, None, args.clean_seconds))
        runs[-1].execute(args, args.log, t0)
        report_run(runs[-1])
        if time.monotonic() - t0 + args.fault_seconds > args.duration and index > 0:
            break
        fault = FAULTS[index % len(FAULTS)][0]
        runs.append(Run("faulted", [DESIGNS[(index * 5 + 2) % len(DESIGNS)]], fault, args.fault_seconds))
        runs[-1].execute(args, args.log, t0)
        report_run(runs[-1])
        index += 1
    return runs


def report_run(run):
    first, last, peak = run.rss()
    print(f"{run.start:7.1f} s {run.kind:7} {run.verdict:15} exit {run.rc} {run.wall:5.1f} s "
          f"{run.bytes_verified:>14} bytes verified  RSS first/last/peak {mib(first)}/{mib(last)}/{mib(peak)} MiB  "
          + ",".join(d.replace("_dma_stream_loopback", "") for d in run.designs)
          + (f"  PDT_SIM_FAULT={run.fault}" if run.fault else ""), flush=True)
    if run.verdict in ("MISREPORTED", "UNEXPECTED-FAIL"):
        # what the tool said instead, so that a failure seen only in CI explains itself
        said = [l for l in run.output.splitlines() if "FAIL" in l or "rror" in l or "ERROR" in l][:6]
        for line in said or run.output.splitlines()[-6:]:
            print(f"          tool: {line}", flush=True)


def summarize_clean(runs, limit_kib):
    """Prints the clean-run figures; returns whether peak RSS stayed flat per design pair."""
    clean = [r for r in runs if r.kind == "clean"]
    passed = sum(r.verdict == "PASS" for r in clean)
    print(f"clean runs: {len(clean)}, passed {passed}, bytes verified {sum(r.bytes_verified for r in clean)}")
    flat = True
    for pair in sorted({tuple(r.designs) for r in clean}):
        peaks = [r.rss()[2] for r in clean if tuple(r.designs) == pair]
        spread = max(peaks) - min(peaks)
        flat = flat and spread <= limit_kib
        print(f"  peak RSS {'+'.join(d.split('_')[0] for d in pair)}: runs {len(peaks)}, first {mib(peaks[0])}, "
              f"last {mib(peaks[-1])}, max {mib(max(peaks))} MiB, spread {mib(spread)} MiB")
    if clean:
        first_of = {}
        for r in clean:
            first_of.setdefault(tuple(r.designs), r.rss()[2])
        growth = [(r.start, r.rss()[2] - first_of[tuple(r.designs)]) for r in clean]
        print(f"  peak RSS over all clean runs: min {mib(min(r.rss()[2] for r in clean))}, max "
              f"{mib(max(r.rss()[2] for r in clean))} MiB; growth over the first run on the same designs: max "
              f"{mib(max(g for _, g in growth))} MiB, slope {slope_per_hour(growth) / 1024:+.2f} MiB/h")
    return passed == len(clean) and len(clean) > 0, flat


def summarize_faults(runs):
    faulted = [r for r in runs if r.kind == "faulted"]
    counts = {v: sum(r.verdict == v for r in faulted) for v in ("DETECTED", "MISREPORTED", "UNDETECTED")}
    print(f"faults injected: {len(faulted)}, detected and named {counts['DETECTED']}, "
          f"detected but misreported {counts['MISREPORTED']}, undetected {counts['UNDETECTED']}")
    for fault, _ in FAULTS:
        of_kind = [r for r in faulted if r.fault == fault]
        if of_kind:
            print(f"  {fault:27} injected {len(of_kind):3}, detected {sum(r.verdict == 'DETECTED' for r in of_kind):3}, "
                  f"bytes verified before it {sum(r.bytes_verified for r in of_kind)}")
    return counts["DETECTED"] == len(faulted)


def summarize_long(run, limit_kib):
    """Prints the long run's RSS figures; returns whether it passed with RSS flat: the most VmRSS
    of its last quarter at most limit_kib above the most of its second quarter (the first
    quarter is warm-up; the last samples may fall in the teardown, so maxima, not end points)."""
    def most(low, high):
        window = [rss for t, rss, _ in run.samples if low * run.wall <= t < high * run.wall]
        return max(window) if window else None
    early, late = most(0.25, 0.5), most(0.75, 1.01)
    growth = late - early if early is not None and late is not None else None
    middle = [(t, rss) for t, rss, _ in run.samples if 0.25 * run.wall <= t < 0.95 * run.wall]
    first, last, peak = run.rss()
    print(f"long run: {run.verdict}, {run.wall:.0f} s, {run.bytes_verified} bytes verified, {len(run.samples)} RSS "
          f"samples: first {mib(first)}, last {mib(last)}, max {mib(peak)} MiB; most VmRSS of the 2nd quarter "
          f"{mib(early or 0)}, of the last quarter {mib(late or 0)} MiB, growth "
          f"{'n/a' if growth is None else mib(growth)} MiB; slope from 25% to 95% {slope_per_hour(middle) / 1024:+.2f} MiB/h")
    return run.verdict == "PASS", growth is not None and growth <= limit_kib


def main():
    args = parse_arguments()
    open(args.log, "w").close()
    t0 = time.monotonic()
    print(f"soak: {args.duration:.0f} s of clean {args.clean_seconds:.0f} s / faulted {args.fault_seconds:.0f} s "
          f"stretches, then a {args.long_run:.0f} s run; tool {args.tool}; log {args.log}", flush=True)
    runs = run_stretches(args, t0)
    limit_kib = args.rss_growth_limit_mib * 1024
    clean_ok = clean_flat = faults_ok = True
    if args.duration > 0:
        clean_ok, clean_flat = summarize_clean(runs, limit_kib)
        faults_ok = summarize_faults(runs)
    long_ok = long_flat = True
    if args.long_run > 0:
        long = Run("long", DESIGNS[:3], None, args.long_run)
        long.execute(args, args.log, t0)
        report_run(long)
        long_ok, long_flat = summarize_long(long, limit_kib)
    verdicts = {"clean runs": clean_ok, "faults detected": faults_ok, "clean peak RSS flat": clean_flat,
                "long run": long_ok, "long run RSS flat": long_flat}
    failed = [name for name, ok in verdicts.items() if not ok]
    print(f"soak: {time.monotonic() - t0:.0f} s; " + ("PASS" if not failed else "FAIL: " + ", ".join(failed)))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
