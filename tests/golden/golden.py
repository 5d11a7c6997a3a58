#!/usr/bin/env python3
"""The golden output of every tool (F13: proof that a restructuring changed nothing for users).

Runs every tool's --help, identify on every built-in simulated design (text and JSON), the
config dump of the simulated topology (fpga_sio layout, lspci layout, JSON), every DMA tool on
every built-in design that has a DMA bridge (short runs), and pcie_link_measure's subcommands
on the model endpoint and on the simulated XDMA (text and JSON). Each output is masked
(timings, rates and counts that depend on the machine's speed; paths of this build) and
compared with tests/golden/expected/<group>.txt.

  golden.py --tools DIR [--update] [--only GROUP]

DIR holds the tools (the build tree: each tool is found by name under it). --update rewrites
the expected files: a commit that does so says why the output changed. Exit 0 when every
group matches, 1 with a unified diff of each group that does not, 2 on a usage error.
Python 3 standard library only.
"""
import argparse
import concurrent.futures
import difflib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")
SOURCE = os.path.dirname(os.path.dirname(HERE))

TOOLS = ["display_identified_pcie_fpga_designs", "display_possible_fpga_designs", "dump_pci_info",
         "display_physical_slots", "pcie_set_speed", "display_vfio_information", "test_dma_bridge",
         "test_dma_bridge_parallel_streams", "test_dma_bridge_independent_streams", "test_dma_descriptor_credits",
         "crc64_stream_latency", "xilinx_axi_stream_switch_set_routing", "pcie_link_measure", "pcie_link_report",
         "vfio_multi_process_manager", "vfio_access_keep_open", "display_sensor_values",
         "display_temperature_values", "parse_bitstream_file", "xilinx_bit_to_bin"]
DMA_TOOLS = ["test_dma_bridge", "test_dma_bridge_parallel_streams", "test_dma_bridge_independent_streams",
             "test_dma_descriptor_credits", "crc64_stream_latency"]

# Lines whose integers depend on timing: rates, byte and word counts of timed runs, durations.
VOLATILE_LINE = re.compile(
    r"Mbytes/sec|[GM]B/s|bytes in|words|secs?\b|seconds|\bus\b|\bns\b|\bms\b|RSS|took|elapsed|"
    r"transfers|packets|samples|copies|runs|completions|iterations|held|credits? (used|returned)|"
    r"timestamp|^\d\d:\d\d:\d\d |\d+ of \d+|(?-i:\bCI\b)|p50|p99|median|mean|\bmin |\bmax |performance monitor", re.I)
FLOAT = re.compile(r"(?<![\w.:])-?\d+\.\d+(e[-+]?\d+)?")  # not a BDF's dd.f
INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")
# Lines present or not by timing alone: a stream interval too short for a rate or with no
# completion yet, fixed-data buffers the free-running source overwrote before the host read them.
# A sweep marked disturbed: by the machine's load alone (the host reference's spread).
TIMING_ONLY = re.compile(r"too short for a rate|No completed transfers|overwritten by the free-running|"
                         r"DISTURBED: the host reference")
# test_dma_bridge's Min / Mean / Max figures: a rate, or no rate where the interval was under
# 10 ms or 1 MiB, by the machine's speed alone: one masked line either way.
TIMING_FIGURE = re.compile(r"^( *)(Min|Mean|Max)( = .*\(Mbytes/sec\)|: too short for a rate \(.*\))$")
HEX_TIME = re.compile(r"build timestamp : [0-9A-F]{8} - [0-9/: ]+")
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
# The staged path over its serial model: above or below it by the machine's timing alone.
SERIAL_MODEL = re.compile(r"(beats the serial model by <f>x|below the serial model \(<f>x\))$")
# The staged path's host-copy threads by default: from the machine's cores.
STAGED_THREADS = re.compile(r"host copies on \d+ threads?")
LINK_PROOF = re.compile(r"(link proof: .* needs at least )Gen\d x\d+")  # from the measured rate
VOLATILE_KEY = re.compile(r"rate|bytes|seconds|secs|_s$|_us$|_ns$|_ms$|time|gbps|mbps|samples|count|copies|"
                          r"runs|iterations|p\d+|mean|median|min|max|low|high|ci|held|rss|elapsed|words|packets|"
                          r"transfers|sha256|seed|date|utc|host|kernel|version|pid", re.I)


# A stream tool's rate row of an interval (stream_test/report.hpp).
INTERVAL_ROW = re.compile(r"Mbytes/sec \(|too short for a rate")


def mask_text(text):
    text = text.replace(SOURCE, "<src>")
    out, seen_volatile, block = [], set(), []
    # The empty line that ends each interval block (fpga_sio's) comes once per interval, and how
    # many intervals a run has is timing: an empty line right after rate rows is left out.
    after_rows = False
    for line in text.splitlines():
        line = ISO_TIME.sub("<utc>", line)
        line = LINK_PROOF.sub(r"\1<gen> <width>", HEX_TIME.sub("build timestamp : <t>", line))
        line = FLOAT.sub("<f>", line.replace("..", "\0\0")).replace("\0\0", "..")  # "low..high"
        line = SERIAL_MODEL.sub("<beats or below> the serial model", line)
        line = STAGED_THREADS.sub("host copies on <n> threads", line)
        line = TIMING_FIGURE.sub(r"\1\2 = <rate> (Mbytes/sec)", line)
        if TIMING_ONLY.search(line):
            after_rows = True
            continue
        if not line.strip() and after_rows:
            continue
        volatile = VOLATILE_LINE.search(line) is not None
        if volatile:
            # runs of spaces fold to one (a number's width moves its neighbours), but an indent
            # before a word stays: it is fpga_sio's ("   Min = ...", "  Temp ...")
            body = line.lstrip(" ")
            indent = line[:len(line) - len(body)]
            if indent and body[:1].isdigit():  # a right-aligned number: its width moves the indent too
                indent = " "
            line = indent + re.sub(r" +", " ", INTEGER.sub("<n>", body))
            # interval lines repeat a varying number of times: each masked line once; which row
            # of an interval reports first depends on timing, so a run of rate rows is sorted
            row = INTERVAL_ROW.search(line) is not None
            after_rows = row
            if line in seen_volatile:
                continue
            seen_volatile.add(line)
            if row:
                block.append(line.rstrip())
                continue
        after_rows = False
        out.extend(sorted(block))
        block = []
        out.append(line.rstrip())
    out.extend(sorted(block))
    return "\n".join(out)


def mask_json(value, key=""):
    """key: the nearest volatile key above the value, else its own key."""
    if isinstance(value, dict):
        if key == "host":  # the machine the run is on: CPU, hostname, kernel, IOMMU mode
            return "<host>"
        inherited = key if VOLATILE_KEY.search(key) else ""
        return {k: mask_json(v, inherited or k) for k, v in sorted(value.items())}
    if isinstance(value, list):
        masked = [mask_json(v, key) for v in value]
        if masked and all(isinstance(v, (dict, int, float, str)) and not isinstance(v, bool) for v in masked):
            # a varying number of samples or intervals: each distinct element once
            unique = []
            for v in masked:
                if v not in unique:
                    unique.append(v)
            return unique
        return masked
    if isinstance(value, bool) and key == "disturbed":  # by the machine's load alone
        return "<disturbed>"
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return "<f>"
    if isinstance(value, int):
        return "<n>" if VOLATILE_KEY.search(key) else value
    if isinstance(value, str):
        if VOLATILE_KEY.search(key):
            return re.sub(r"\d+", "<n>", FLOAT.sub("<f>", value))
        return STAGED_THREADS.sub("host copies on <n> threads", value)
    return value


def mask(output, tools):
    for path, name in tools:
        output = output.replace(path, name)
    stripped = output.strip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            return json.dumps(mask_json(json.loads(stripped)), indent=1, sort_keys=True)
        except ValueError:
            pass
    return mask_text(output)


def designs(tool):
    listed = subprocess.run([tool, "--list_designs"], capture_output=True, text=True, timeout=60).stdout
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def dma_args(tool, design, has_memory_window):
    args = ["--sim_design", design, "--transfer_timeout", "2"]
    stream = ["--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16"]
    if tool == "test_dma_bridge":
        args += stream + ["--min_words", "0x10000", "--max_buffer_size", "0x40000", "--transfer_length", "0x30000",
                          "--max_channel_combinations", "2"]
        if has_memory_window:
            args += ["--dma_bridge_memory_size_bytes", "0x100000"]
    elif tool == "crc64_stream_latency":
        args += ["--samples", "20", "--max_packet_bytes", "0x1000"]
    elif tool != "test_dma_descriptor_credits":
        args += stream + ["--duration", "0.5", "--report_interval", "0.25"]
    return args


MEASURE = [
    ["sweep", "--min_bytes", "4KiB", "--max_bytes", "64KiB", "--repeats", "3", "--iterations", "5"],
    ["latency", "--samples", "20", "--max_gap_us", "100"],
    ["access", "--access_sizes", "64,100", "--access_windows", "4KiB", "--access_transfers", "16",
     "--access_patterns", "sequential", "--access_caches", "warm", "--access_memories", "registered"],
    ["inflight", "--inflight_sizes", "64KiB", "--repeats", "3"],
    ["bidir", "--bidir_bytes", "64KiB", "--bidir_copies", "3", "--repeats", "3"],
    ["launch", "--repeats", "3"],
]
MODEL = ["--endpoint", "model", "--model_h2c_gbps", "2", "--model_c2h_gbps", "2", "--model_latency_us", "5"]
XDMA = ["--endpoint", "xdma", "--sim_design", "TEF1001_dma_ddr3", "--pci_access", "sim"]


def commands(find):
    """(group, tool name, args) for every run, in the order the expected files hold them."""
    runs = [("help", t, ["--help"]) for t in TOOLS]
    identify = find("display_identified_pcie_fpga_designs")
    runs.append(("identify", "display_identified_pcie_fpga_designs", ["--list_designs"]))
    all_designs = designs(identify)
    for d in all_designs:
        runs.append(("identify", "display_identified_pcie_fpga_designs", ["--sim_design", d]))
        runs.append(("identify_json", "display_identified_pcie_fpga_designs", ["--sim_design", d, "--json"]))
    for args in (["--access", "sim"], ["--access", "sim", "--lspci"], ["--access", "sim", "--json"]):
        runs.append(("dump", "dump_pci_info", args))
    with_bridge = [d for d in all_designs
                   if json.load(open(os.path.join(SOURCE, "designs", "data", d + ".json"))).get("dma_bridge")]
    for d in with_bridge:
        bridge = json.load(open(os.path.join(SOURCE, "designs", "data", d + ".json")))["dma_bridge"]
        window = int(str(bridge.get("memory_size", "0")), 0) > 0x400000
        for t in DMA_TOOLS:
            runs.append(("dma_" + t, t, dma_args(t, d, window)))
    for sub in MEASURE:
        runs.append(("measure_model", "pcie_link_measure", sub + MODEL))
        runs.append(("measure_model_json", "pcie_link_measure", sub + MODEL + ["--json"]))
    for sub in MEASURE[:2]:
        runs.append(("measure_xdma", "pcie_link_measure", sub + XDMA))
    # Every built-in design with a sensor block (XADC, SYSMON, CMS), and one without.
    for d in all_designs:
        peripherals = json.load(open(os.path.join(SOURCE, "designs", "data", d + ".json"))).get("peripherals", [])
        if any(p["type"] in ("xadc", "sysmon", "cms") for p in peripherals):
            runs.append(("sensors", "display_sensor_values", ["--sim_design", d]))
            runs.append(("sensors_json", "display_sensor_values", ["--sim_design", d, "--json"]))
    runs.append(("sensors", "display_sensor_values", ["--sim_design", "AS02MC04_enum"]))
    runs.append(("sensors", "display_temperature_values",
                 ["--sim_design", "TEF1001_dma_ddr3", "--sim_design", "U200_dma_ddr4", "--duration", "2"]))
    return runs


def run(find, group, name, args):
    env = dict(os.environ, PDT_LOCK_DIR=os.environ.get("PDT_LOCK_DIR", "/tmp/pdt-golden-locks"), COLUMNS="80")
    env.pop("PDT_SIM_FAULT", None)
    try:
        r = subprocess.run([find(name)] + args, capture_output=True, text=True, timeout=120, env=env,
                           stdin=subprocess.DEVNULL, cwd="/tmp")
        out, err, code = r.stdout, r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        out, err, code = "", "", "timeout"
    return group, f"$ {name} {' '.join(args)}\n[exit {code}]", out, err


def main():
    p = argparse.ArgumentParser(description="golden output of every tool")
    p.add_argument("--tools", required=True, help="the build tree holding the tools")
    p.add_argument("--update", action="store_true", help="rewrite the expected files")
    p.add_argument("--only", help="one group (help, identify, dump, dma_<tool>, measure_model, ...)")
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    found = {}
    for root, dirs, files in os.walk(os.path.abspath(a.tools)):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        for f in files:
            if f in TOOLS and os.access(os.path.join(root, f), os.X_OK):
                found.setdefault(f, os.path.join(root, f))
    missing = [t for t in TOOLS if t not in found]
    if missing:
        p.error("not built under " + a.tools + ": " + ", ".join(missing))
    find = found.__getitem__
    paths = sorted(((path, name) for name, path in found.items()), key=lambda x: -len(x[0]))
    runs = [r for r in commands(find) if not a.only or r[0] == a.only]
    if not runs:
        p.error("no group " + str(a.only))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda r: run(find, *r), runs))
    groups = {}
    for group, header, out, err in results:
        text = header + "\n" + mask(out, paths) + ("\n--- stderr\n" + mask(err, paths) if err.strip() else "")
        groups.setdefault(group, []).append(text)
    failed = []
    os.makedirs(EXPECTED, exist_ok=True)
    for group, texts in groups.items():
        actual = "\n\n".join(texts) + "\n"
        path = os.path.join(EXPECTED, group + ".txt")
        if a.update:
            with open(path, "w") as f:
                f.write(actual)
            continue
        expected = open(path).read() if os.path.exists(path) else ""
        if actual != expected:
            failed.append(group)
            sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                                       "expected/" + group + ".txt", "actual", n=2))
    print(f"golden: {len(runs)} runs in {len(groups)} groups; " +
          ("updated" if a.update else f"{len(groups) - len(failed)} match" +
           (f", differ: {', '.join(failed)}" if failed else "")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
