#!/usr/bin/env python3
"""Checks every include of the project against the floors of docs/architecture.md.

  check_layers.py [--root DIR] [--doc FILE] [--graph] [--folders]

Reads the ```layers``` block (floor N: module ...), the ```exceptions``` block
(from-file -> to-file: why) and the ```private``` block (header: module) of the architecture
document, then every #include "..." of every C/C++/CUDA source outside the tests. An include
from module A to module B is allowed when B stands on a lower floor than A, or when it is listed
as an exception; a private header (the XDMA registers and descriptors) only from its own module. Exit 0 when every include
keeps the rules, 1 naming each one that does not (file:line, the include, the rule), 2 on a
document or usage error. --graph also prints every include between two modules with its count;
--folders the cycles of the top-level folders (each folder one room, mains included) with the
includes that close them. A folder cycle is a broken rule too: the top-level folders keep none.
Python 3 standard library only.
"""
import argparse
import collections
import os
import re
import sys

SOURCES = (".cpp", ".hpp", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def is_test(path):
    parts = path.split("/")
    return (parts[0] in ("fuzz", "build") or parts[0].startswith("build") or "tests" in parts
            or path.endswith("_test.cpp") or parts[:2] == ["etsoc1", "standin"])


def module(path):
    """The module (room) a file belongs to: docs/architecture.md, "A module is ..."."""
    parts = path.split("/")
    top = parts[0]
    if len(parts) > 2 and parts[1] in ("tools", "bench", "guest"):
        return "tools"
    return top


def read_doc(doc):
    text = open(doc).read()
    blocks = dict(re.findall(r"```(layers|exceptions|private)\n(.*?)```", text, re.S))
    if "layers" not in blocks or "exceptions" not in blocks:
        raise ValueError(f"{doc}: needs a ```layers``` and an ```exceptions``` block")
    floors = {}
    for line in blocks["layers"].splitlines():
        m = re.fullmatch(r"floor (\d+): (.+)", line.strip())
        if not m:
            raise ValueError(f"{doc}: bad layers line {line!r} (floor N: module ...)")
        for name in m.group(2).split():
            if name in floors:
                raise ValueError(f"{doc}: module {name} on two floors")
            floors[name] = int(m.group(1))
    exceptions = {}
    for line in blocks["exceptions"].splitlines():
        if not line.strip():
            continue
        m = re.fullmatch(r"(\S+) -> (\S+): (.+)", line.strip())
        if not m:
            raise ValueError(f"{doc}: bad exceptions line {line!r} (from-file -> to-file: why)")
        exceptions[(m.group(1), m.group(2))] = m.group(3)
    if len(exceptions) > 3:
        raise ValueError(f"{doc}: {len(exceptions)} exceptions; at most 3 are allowed")
    private = {}
    for line in blocks.get("private", "").splitlines():
        if not line.strip():
            continue
        m = re.fullmatch(r"(\S+): (\S+)", line.strip())
        if not m:
            raise ValueError(f"{doc}: bad private line {line!r} (header-file: module)")
        private[m.group(1)] = m.group(2)
    return floors, exceptions, private


def sources(root):
    found = []
    for directory, dirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (rel == "." and (
            d.startswith("build") or d.startswith("wt-") or d in ("shared", "vm"))))
        for f in sorted(files):
            if f.endswith(SOURCES):
                found.append(os.path.normpath(os.path.join(rel, f)))
    return found


def resolve(path, header, files, by_include):
    """The file an include names: beside the includer, else under some module's include/."""
    beside = os.path.normpath(os.path.join(os.path.dirname(path), header))
    if beside in files:
        return beside
    return by_include.get(header)


def check(root, doc):
    floors, exceptions, private = read_doc(doc)
    all_files = sources(root)
    files = set(all_files)
    by_include = {}
    for f in all_files:
        parts = f.split("/")
        if "include" in parts:
            by_include.setdefault("/".join(parts[parts.index("include") + 1:]), f)
    edges = collections.Counter()
    includes = []  # (file, target) of every include between two project files, tests aside
    problems = []
    unknown = set()
    used_exceptions = set()
    for f in all_files:
        if is_test(f):
            continue
        a = module(f)
        for number, line in enumerate(open(os.path.join(root, f), errors="replace"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(f, m.group(1), files, by_include)
            if target is None or is_test(target):
                continue
            includes.append((f, target))
            b = module(target)
            if target in private and private[target] != a:
                problems.append(f'{f}:{number}: #include "{m.group(1)}" ({target}) is private to {private[target]}')
            if a == b:
                continue
            edges[(a, b)] += 1
            for name in (a, b):
                if name not in floors:
                    unknown.add(name)
            if a not in floors or b not in floors:
                continue
            if floors[b] > floors[a]:
                rule = f"runs up: {a} (floor {floors[a]}) includes {b} (floor {floors[b]})"
            elif floors[b] == floors[a]:
                rule = f"runs sideways: {a} and {b} stand side by side on floor {floors[a]}"
            else:
                continue
            if (f, target) in exceptions:  # an exception counts only where a rule needs it
                used_exceptions.add((f, target))
                continue
            problems.append(f'{f}:{number}: #include "{m.group(1)}" ({target}) {rule}')
    for header in sorted(set(private) - files):
        problems.append(f"private header {header} does not exist: correct {os.path.relpath(doc, root)}")
    for name in sorted(unknown):
        problems.append(f"module {name} stands on no floor of {os.path.relpath(doc, root)}")
    for pair in sorted(set(exceptions) - used_exceptions):
        problems.append(f"exception {pair[0]} -> {pair[1]} is no longer needed: remove it")
    return edges, problems, includes


def folder_cycles(includes):
    """Strongly connected sets of two or more top-level folders, each with the includes inside it."""
    arrows = collections.defaultdict(list)
    for f, target in includes:
        a, b = f.split("/")[0], target.split("/")[0]
        if a != b:
            arrows[(a, b)].append(f"{f} -> {target}")
    reach = collections.defaultdict(set)
    for a, b in arrows:
        reach[a].add(b)
    changed = True
    while changed:  # transitive closure: a few dozen folders
        changed = False
        for a in list(reach):
            more = set().union(*(reach[b] for b in reach[a])) - reach[a]
            if more:
                reach[a] |= more
                changed = True
    cycles = []
    for a in sorted(reach):
        group = sorted({a} | {b for b in reach[a] if a in reach[b]})
        if len(group) > 1 and group not in cycles:
            cycles.append(group)
    return [(g, {pair: arrows[pair] for pair in sorted(arrows) if pair[0] in g and pair[1] in g}) for g in cycles]


def main():
    p = argparse.ArgumentParser(description="check every include against docs/architecture.md")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--root", default=here)
    p.add_argument("--doc", help="the architecture document (default ROOT/docs/architecture.md)")
    p.add_argument("--graph", action="store_true", help="print the includes between modules")
    p.add_argument("--folders", action="store_true", help="print the cycles of the top-level folders")
    a = p.parse_args()
    doc = a.doc or os.path.join(a.root, "docs", "architecture.md")
    try:
        edges, problems, includes = check(a.root, doc)
    except (OSError, ValueError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    if a.graph:
        for (x, y), n in sorted(edges.items()):
            print(f"{x} -> {y} ({n})")
    cycles = folder_cycles(includes)
    if a.folders:
        for group, arrows in cycles:
            print("folder cycle: " + " ".join(group))
            for (x, y), lines in arrows.items():
                print(f"  {x} -> {y} ({len(lines)}): " + "; ".join(lines[:3]))
        print(f"folders: {len(cycles)} cycle(s)")
    for group, _ in cycles:  # F22: the top-level folders keep no cycle either
        problems.append("folder cycle: " + " ".join(group) + " (python3 scripts/check_layers.py --folders names the includes)")
    for line in problems:
        print(line)
    modules = sorted({m for e in edges for m in e})
    print(f"layers: {len(modules)} modules, {len(edges)} arrows between them, "
          + (f"{len(problems)} broken rule(s)" if problems else "every include keeps the floors"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
