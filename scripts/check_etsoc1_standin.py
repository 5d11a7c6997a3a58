#!/usr/bin/env python3
"""Every declaration of Esperanto's runtime that the ET-SoC-1 binding uses is checked.

The binding (etsoc1/runtime/runtime_card.cpp) is the one file of the toolkit that names the
runtime's API (namespaces rt, dev, logging, and g3log's g3). etsoc1/runtime/tracked_declarations.cpp checks, at
compile time, the exact declaration of each name it lists against the tracked runtime version
(et-platform f5e790405). This script reads the binding's uses and fails, naming each, when one is
not checked there: so a new use cannot slip past the stand-in declared differently from the
runtime. The uses read: qualified names (rt::X, dev::X::Y, logging::X), calls through the
runtime, device layer and DMA-list objects and the log worker (m_runtime->X, runtime->X, layer->X, list.X, logWorker_->X), fields
in the runtime's naming (.name_), StreamError's getString and std::to_string of an error code.

Exit: 0 every use checked, 1 a use unchecked (each named), 2 usage (a file missing).
"""
import argparse
import re
import sys
from pathlib import Path

RECEIVERS = {"m_runtime": "rt::IRuntime", "runtime": "rt::IRuntime", "m_layer": "dev::IDeviceLayer",
             "layer": "dev::IDeviceLayer", "list": "rt::MemcpyList", "logWorker_": "g3::LogWorker"}


def code_only(text):
    """The text without comments and string literals."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return re.sub(r"//[^\n]*", " ", text)


def uses(binding):
    """(name the checks must contain, line of the binding) for every vendor use."""
    found = {}
    for number, line in enumerate(code_only(binding).splitlines(), 1):
        for m in re.finditer(r"\b(?:rt|dev|logging|g3)::\w+(?:::\w+)*", line):
            found.setdefault(m.group(0), number)
        for m in re.finditer(r"\b(\w+)\s*(?:->|\.)\s*(\w+)\s*\(", line):
            if m.group(1) in RECEIVERS:
                found.setdefault(RECEIVERS[m.group(1)] + "::" + m.group(2), number)
        for m in re.finditer(r"\.\s*([a-z]\w*_)\b", line):
            found.setdefault("::" + m.group(1), number)
        if re.search(r"\.\s*getString\s*\(", line):
            found.setdefault("rt::StreamError::getString", number)
        if re.search(r"std::to_string\s*\([^()]*errorCode_\s*\)", line):
            found.setdefault("std::to_string(rt::DeviceErrorCode", number)
    return found


def main():
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binding", default=str(root / "etsoc1/runtime/runtime_card.cpp"))
    parser.add_argument("--checks", default=str(root / "etsoc1/runtime/tracked_declarations.cpp"))
    args = parser.parse_args()
    try:
        binding = Path(args.binding).read_text()
        checks = Path(args.checks).read_text()
    except OSError as e:
        print(f"check_etsoc1_standin: cannot read {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    checked = code_only(checks)
    found = uses(binding)
    missing = [(name, line) for name, line in found.items() if name not in checked]
    for name, line in missing:
        print(f"{args.binding}:{line}: uses {name}, which {args.checks} does not check against the tracked runtime")
    if missing:
        return 1
    print(f"every runtime declaration the binding uses is checked ({len(found)} names)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
