#!/usr/bin/env python3
"""Fails on a run of six or more lines of product code that stands again, to the letter, elsewhere.

  check_duplicates.py [--root DIR] [--min-lines N] [--allow FILE]

Reads every C/C++/CUDA, Python and shell source of the checkout (git's tracked files and the
untracked ones it does not ignore) outside tests, fuzz targets and the ET-SoC-1 stand-in: the
product code, as scripts/check_layers.py counts it. White space is folded, a statement or
declaration spread over several lines (open parentheses) is read as one line, a run does not
cross the end of a top-level definition (a line "}" or "};" at column 0), and these are
passed over, since they repeat without meaning: blank lines, comments, lone punctuation,
preprocessor lines, namespace and access lines, and an override's declaration (it must repeat its
interface). Two places that share N or more of the remaining lines in a row, to the letter, are a
duplicate: one piece of code should serve both. The guard of F22: the near duplicates (same shape,
other names) are counted by the `duplicates` tool, not here.

--allow names a file of accepted pairs, one a line, `file-a ~ file-b: why` (blank and # lines
ignored). Exit 0 when no other pair exists, 1 naming each (file:first-last ~ file:first-last),
2 on a usage error. Python 3 standard library only.
"""
import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path

SOURCES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".py", ".sh")
PASSED_OVER = re.compile(
    r"^(?:[{}()\[\];,]*|#.*|//.*|\*.*|/\*.*\*/|namespace(?: [\w:]+)? \{|\}\s*//.*|(?:public|private|protected):|"
    r"\"\"\".*)$")
OVERRIDE = re.compile(r"\boverride\b\s*(?:;|\{.*\}|= ?default;)$")


def is_product(path):
    parts = path.split("/")
    return not (parts[0] in ("fuzz", "vm-tests") or parts[0].startswith("build") or "tests" in parts
                or re.search(r"_test\.(cpp|py|sh)$", path) or parts[:2] == ["etsoc1", "standin"])


def logical_lines(text):
    """(first line number, folded text) of each line that counts; parenthesised continuations joined;
    None where a top-level definition ends."""
    out = []
    pending, start, depth, in_block = "", 0, 0, False
    for number, raw in enumerate(text.splitlines(), 1):
        if raw.rstrip() in ("}", "};") and depth == 0 and not pending:
            out.append(None)
            continue
        line = " ".join(raw.split())
        if in_block:
            in_block = "*/" not in line
            continue
        if line.startswith("/*") and "*/" not in line:
            in_block = True
            continue
        code = re.sub(r'"(?:\\.|[^"\\])*"', '""', re.sub(r"//.*", "", line))
        if not pending:
            start = number
        pending = (pending + " " + line).strip()
        depth += code.count("(") - code.count(")")
        if depth > 0 and not line.startswith("#"):
            continue
        depth = 0
        if not PASSED_OVER.match(pending) and not OVERRIDE.search(pending):
            out.append((start, pending))
        pending = ""
    return out


def duplicate_pairs(files, n):
    """{(file a, file b): [(index in a, index in b), ...]} of every n-line window shared."""
    where = collections.defaultdict(list)
    for name, lines in files.items():
        for i in range(len(lines) - n + 1):
            window = lines[i:i + n]
            if None not in window:
                where[tuple(text for _, text in window)].append((name, i))
    pairs = collections.defaultdict(list)
    for places in where.values():
        for a in range(len(places)):
            for b in range(a + 1, len(places)):
                (fa, ia), (fb, ib) = sorted((places[a], places[b]))
                if fa != fb or ib - ia >= n:
                    pairs[(fa, fb)].append((ia, ib))
    return pairs


def read_allow(path):
    allowed = set()
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = re.fullmatch(r"(\S+) ~ (\S+): .+", line.strip())
        if not m:
            raise ValueError(f"{path}: bad line {line!r} (file-a ~ file-b: why)")
        allowed.add(tuple(sorted((m.group(1), m.group(2)))))
    return allowed


def product_files(root):
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split("\n")
    return sorted(p for p in listed if p.endswith(SOURCES) and is_product(p) and (root / p).is_file())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--min-lines", type=int, default=6)
    parser.add_argument("--allow", help="accepted pairs: file-a ~ file-b: why")
    args = parser.parse_args()
    root = Path(args.root)
    try:
        allowed = read_allow(args.allow) if args.allow else set()
        names = product_files(root)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"check_duplicates: {e}", file=sys.stderr)
        return 2
    files = {name: logical_lines((root / name).read_text(errors="replace")) for name in names}
    pairs = duplicate_pairs(files, args.min_lines)
    found = 0
    for (fa, fb), runs in sorted(pairs.items()):
        if (fa, fb) in allowed:
            continue
        found += 1
        ia, ib = min(runs)
        last = args.min_lines - 1
        print(f"{fa}:{files[fa][ia][0]}-{files[fa][ia + last][0]} ~ {fb}:{files[fb][ib][0]}-{files[fb][ib + last][0]}"
              f" share {args.min_lines} or more lines to the letter: make one piece of code serve both")
    print(f"check_duplicates: {found} duplicate pair(s) of {args.min_lines}+ lines in {len(files)} product files"
          + (f" ({len(pairs) - found} accepted in {args.allow})" if allowed else ""))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
