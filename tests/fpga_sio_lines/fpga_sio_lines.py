#!/usr/bin/env python3
"""F23's acceptance for the programs we share with fpga_sio that have no C++ format test of their
own: each runs on a simulated design and its output must hold, in order, a line for each of
fpga_sio's printf formats listed below (quoted from fpga_sio's sources at 62ee167, each line as
that program prints it, the arguments left as conversions). A format matches the start of a line:
where we print more, it stands after fpga_sio's text or on lines of our own between them, which
the check skips. identify, test_dma_bridge, dump_pci_info and the CMAC tools have C++ tests that
build their lines from the formats (docs/fpga_sio.md says which).

  fpga_sio_lines.py --tools DIR [--only NAME]

Exit 0 when every case holds, 1 naming the first format a case misses, 2 on a usage error.
"""
import argparse
import os
import re
import subprocess
import sys

STREAM = ["--transfer_timeout", "2", "--stream_mapping_size", "0x40000", "--stream_num_descriptors", "16",
          "--duration", "0.5", "--report_interval", "0.25"]

# (name, tool, arguments, exit status, fpga_sio's formats in the order its program prints them)
CASES = [
    ("pcie_set_speed", "pcie_set_speed", ["--access", "sim", "0000:00:01.0", "2"], 0, [
        # pcie_set_speed.c
        "Operating on device %04x:%02x:%02x.%x vendor_id=%04x (%s) device_id=%04x (%s) revision_id=%02x",
        "Link capabilities: %08X Max link speed %s max link width x%u",
        "Link status: %04X",
        "Current link speed: %s",
        "Original link control 2: %04X",
        "Original target link speed: %u (%s)",
        "New target link speed: %u (%s)",
        "New link control 2: %04X",
        "Triggering link retraining by changing link control %04X -> %04X",
        "Link status: %04X",
        "Current link speed: %s",
    ]),
    ("display_physical_slots", "display_physical_slots", ["--access", "sim"], 0, [
        # display_physical_slots.c, for the first two functions
        "domain=%04x bus=%02x dev=%02x func=%02x rev=%02x",
        "  vendor_id=%04x (%s) device_id=%04x (%s)",
        "    physical slot from bridge: #%u",
        "",
        "domain=%04x bus=%02x dev=%02x func=%02x rev=%02x",
        "  vendor_id=%04x (%s) device_id=%04x (%s)",
        "    physical slot from bridge: #%u",
    ]),
    ("test_dma_bridge_parallel_streams", "test_dma_bridge_parallel_streams",
     ["--sim_design", "NiteFury_dma_stream_crc64"] + STREAM, 0, [
        # vfio_access.c, then test_dma_bridge_parallel_streams.c
        "Opening %s with IOMMU group %s",
        "Enabled bus master for %s",
        "Using num_descriptors=%u bytes_per_buffer=0x%zx data_mapping_size_words=0x%zx",
        "Selecting test of %s design PCI device %s IOMMU group %s H2C channel %u C2H channel %u",
        "Press Ctrl-C to stop test",
        "Overall test statistics:",
        "  %s %u -> %u %.3f Mbytes/sec (%zu bytes in %.06f secs)",
        "",
        "Overall %s",
    ]),
    ("test_dma_bridge_independent_streams", "test_dma_bridge_independent_streams",
     ["--sim_design", "NiteFury_dma_stream_loopback"] + STREAM, 0, [
        "Opening %s with IOMMU group %s",
        "Enabled bus master for %s",
        "Using num_descriptors=%u bytes_per_buffer=0x%zx data_mapping_size_words=0x%zx",
        "Selecting test of %s design PCI device %s IOMMU group %s %s channel %u",
        "Press Ctrl-C to stop test",
        "Overall test statistics:",
        "  %s %s channel %u %.3f Mbytes/sec (%zu bytes in %u transfers over %.06f secs)",
        "",
        "Overall %s",
    ]),
    ("crc64_stream_latency", "crc64_stream_latency",
     ["--sim_design", "NiteFury_dma_stream_crc64", "--transfer_timeout", "2", "--samples", "20",
      "--max_packet_bytes", "0x1000"], 0, [
        # crc64_stream_latency.c: its label says C2H first and prints the H2C channel there
        "Testing design %s using C2H %u -> H2C %u",
        "%7u len bytes latencies (us): %7.3f (%g') %7.3f (%g') %7.3f (%g') %7.3f (%g')",
        "",
        "Overall %s",
    ]),
]

CONVERSION = re.compile(r"%(?P<flags>[-+ 0#]*)(?P<width>[0-9]*)(?:\.(?P<precision>[0-9]+))?"
                        r"(?P<length>hh|h|ll|l|z|j|t|L)?(?P<type>[diouxXfFeEgGsc%])")


def line_regex(fmt):
    """A regular expression for one printf format line: literal text, conversions as patterns."""
    out, last = [], 0
    for m in CONVERSION.finditer(fmt):
        out.append(re.escape(fmt[last:m.start()]))
        last = m.end()
        kind, width = m.group("type"), m.group("width")
        pad = " *" if width and not m.group("flags") else ""
        if kind == "%":
            out.append("%")
        elif kind in "diu":
            out.append(pad + "-?[0-9]+")
        elif kind in "xX":
            digits = "[0-9a-f]" if kind == "x" else "[0-9A-F]"
            out.append(digits + ("{%s}" % width if width and "0" in m.group("flags") else "+"))
        elif kind in "fFeEgG":
            out.append(pad + "-?[0-9.]+(?:e[-+][0-9]+)?")
        else:
            out.append(".*?")
    out.append(re.escape(fmt[last:]))
    return re.compile("".join(out))


def find_tool(tools, name):
    for root, _, files in os.walk(tools):
        if name in files and os.access(os.path.join(root, name), os.X_OK) and "_CPack_Packages" not in root:
            return os.path.join(root, name)
    return None


def check(case, tools):
    name, tool, args, status, formats = case
    path = find_tool(tools, tool)
    if path is None:
        return "%s: %s not built under %s" % (name, tool, tools)
    run = subprocess.run([path] + args, capture_output=True, text=True, timeout=120)
    if run.returncode != status:
        return "%s: exit %d, expected %d\n%s%s" % (name, run.returncode, status, run.stdout, run.stderr)
    lines = run.stdout.splitlines()
    at = 0
    for fmt in formats:
        pattern = line_regex(fmt)
        while at < len(lines) and not (pattern.match(lines[at]) if fmt else lines[at] == ""):
            at += 1
        if at == len(lines):
            return "%s: no line of fpga_sio's format %r (in order)\n%s" % (name, fmt, run.stdout)
        at += 1
    return None


def main():
    parser = argparse.ArgumentParser(description="fpga_sio's lines in our programs' output")
    parser.add_argument("--tools", required=True, help="the build tree holding the tools")
    parser.add_argument("--only", help="one case by name")
    options = parser.parse_args()
    cases = [c for c in CASES if options.only in (None, c[0])]
    if not cases:
        parser.error("no case named %s" % options.only)
    failed = [f for f in (check(c, options.tools) for c in cases) if f]
    for f in failed:
        print("fpga_sio_lines: " + f)
    print("fpga_sio_lines: %d of %d programs hold fpga_sio's lines" % (len(cases) - len(failed), len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
