#!/usr/bin/env bash
# scripts/check_layers.py: the tree keeps docs/architecture.md's floors, and the check fails,
# naming the include and the rule, on a tree that breaks them: an adapter that includes the
# link measurement (runs up), an adapter that includes another (sideways), a module on no floor,
# an XDMA register header included outside dma_bridge (private), and a stale exception.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
check=$root/scripts/check_layers.py
fail() { echo "FAIL: $*"; exit 1; }
out=$(python3 "$check" --root "$root") || fail "the tree breaks its floors: $out"
echo "$out" | tail -1
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
mkdir -p "$work/docs" "$work/streams/include/streams" "$work/edu/src" "$work/cuda/src" "$work/measure/include/measure"
cp "$root/docs/architecture.md" "$work/docs/"
echo '#pragma once' > "$work/streams/include/streams/seam.hpp"
echo '#pragma once' > "$work/measure/include/measure/stats.hpp"
echo '#pragma once' > "$work/cuda/src/gpu.hpp"
mkdir -p "$work/dma_bridge/include/dma_bridge" "$work/dma_bridge/src"
echo '#pragma once' > "$work/dma_bridge/include/dma_bridge/xdma_registers.hpp"
echo '#pragma once' > "$work/dma_bridge/include/dma_bridge/xdma_descriptor.hpp"
# every private header docs/architecture.md names exists in the tree (the check asks it)
grep -oE '^[a-z_0-9/]+\.hpp: [a-z_0-9]+$' "$root/docs/architecture.md" | cut -d: -f1 | while read -r h; do
  mkdir -p "$work/$(dirname "$h")" && [ -e "$work/$h" ] || echo '#pragma once' > "$work/$h"; done
printf '#include "streams/seam.hpp"\n' > "$work/edu/src/ok.cpp"
out=$(python3 "$check" --root "$work") || fail "a tree that keeps the floors failed: $out"
printf '#include "streams/seam.hpp"\n#include "measure/stats.hpp"\n' > "$work/edu/src/up.cpp"
out=$(python3 "$check" --root "$work"); rc=$?
[ $rc -eq 1 ] || fail "an include running up: exit $rc, expected 1"
grep -q 'edu/src/up.cpp:2: #include "measure/stats.hpp" .* runs up: edu (floor 5) includes measure (floor 6)' <<<"$out" ||
  fail "the include running up is not named: $out"
rm "$work/edu/src/up.cpp"
printf '#include "../../cuda/src/gpu.hpp"\n' > "$work/edu/src/side.cpp"
out=$(python3 "$check" --root "$work"); rc=$?
[ $rc -eq 1 ] && grep -q 'runs sideways: edu and cuda stand side by side on floor 5' <<<"$out" ||
  fail "a sideways include: exit $rc: $out"
rm "$work/edu/src/side.cpp"
mkdir -p "$work/newmod/src" && printf '#include "streams/seam.hpp"\n' > "$work/newmod/src/a.cpp"
out=$(python3 "$check" --root "$work"); rc=$?
[ $rc -eq 1 ] && grep -q 'module newmod stands on no floor' <<<"$out" || fail "a module on no floor: exit $rc: $out"
rm -r "$work/newmod"
printf '#include "dma_bridge/xdma_registers.hpp"\n' > "$work/dma_bridge/src/engine.cpp"
printf '#include "streams/seam.hpp"\n#include "dma_bridge/xdma_descriptor.hpp"\n' > "$work/measure/private.cpp"
out=$(python3 "$check" --root "$work"); rc=$?
[ $rc -eq 1 ] && grep -q 'measure/private.cpp:2: #include "dma_bridge/xdma_descriptor.hpp" .* is private to dma_bridge' <<<"$out" &&
  ! grep -q 'dma_bridge/src/engine.cpp' <<<"$out" || fail "a private header included from another module: exit $rc: $out"
rm "$work/measure/private.cpp"
python3 - "$work/docs/architecture.md" <<'P'
import sys
p = sys.argv[1]
s = open(p).read().replace("```exceptions\n```", "```exceptions\nedu/src/ok.cpp -> streams/include/streams/seam.hpp: none\n```")
open(p, "w").write(s)
P
out=$(python3 "$check" --root "$work"); rc=$?
[ $rc -eq 1 ] && grep -q 'exception edu/src/ok.cpp -> streams/include/streams/seam.hpp is no longer needed' <<<"$out" ||
  fail "a stale exception: exit $rc: $out"
# A tool folder may include any library, but not one whose own folder includes the tool's: a cycle
# of top-level folders (edu -> streams, streams/tools -> edu).
rm -f "$work/edu/src/"*.cpp
printf '#include "streams/seam.hpp"\n' > "$work/edu/src/ok.cpp"
mkdir -p "$work/edu/include/edu" "$work/streams/tools" && echo '#pragma once' > "$work/edu/include/edu/dev.hpp"
printf '#include "edu/dev.hpp"\n' > "$work/streams/tools/main.cpp"
sed -i '/^edu\/src\/ok.cpp -> /d' "$work/docs/architecture.md"
out=$(python3 "$check" --root "$work" --folders); rc=$?
[ $rc -eq 1 ] && grep -q '^folder cycle: edu streams' <<<"$out" && grep -q 'folders: 1 cycle(s)' <<<"$out" ||
  fail "a folder cycle: exit $rc: $out"
echo "PASS: check_layers keeps the floors and the folders' order and names each broken rule"
