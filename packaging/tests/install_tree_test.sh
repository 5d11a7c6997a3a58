#!/usr/bin/env bash
# `cmake --install` into a scratch prefix puts every tool, and nothing else, in bin/ (fpga_sio's
# names as symbolic links to their tools), a man page and a completion link per name, the design data and the documentation in share/; the installed
# tool runs a simulated design from outside the build tree, and the installed completion finds
# the installed designs. Usage: install_tree_test.sh BUILD_DIR SCRATCH_PREFIX TOOL...
set -uo pipefail
build=$1 prefix=$2
shift 2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log"; echo "FAIL: cmake --install"; exit 1; }
installed=$(ls "$prefix/bin" | sort | tr '\n' ' ')
wanted=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
[ "$installed" = "$wanted" ] || fail "bin/ holds '$installed', expected '$wanted'"
for tool in "$@"; do
  # fpga_sio's names are symbolic links to their tool beside them in bin/.
  if [ -L "$prefix/bin/$tool" ]; then
    target=$(readlink "$prefix/bin/$tool")
    case $target in */* | "") fail "bin/$tool links to '$target', not to a tool beside it" ;; esac
    [ -f "$prefix/bin/$target" ] && [ ! -L "$prefix/bin/$target" ] || fail "bin/$tool links to '$target', not a tool"
  fi
  [ -x "$prefix/bin/$tool" ] || fail "bin/$tool does not run"
  [ -s "$prefix/share/man/man1/$tool.1.gz" ] || fail "no share/man/man1/$tool.1.gz"
  [ "$(readlink "$prefix/share/bash-completion/completions/$tool")" = pcie-dma-toolkit ] ||
    fail "share/bash-completion/completions/$tool is not a link to pcie-dma-toolkit"
done
designs=$(ls "$prefix/share/pcie-dma-toolkit/designs"/*.json 2>/dev/null | wc -l)
[ "$designs" -gt 0 ] || fail "no design data in share/pcie-dma-toolkit/designs"
for doc in README.md design_format.md; do
  [ -s "$prefix/share/doc/pcie-dma-toolkit/$doc" ] || fail "no share/doc/pcie-dma-toolkit/$doc"
done
# The installed tool, run from elsewhere: the built-in designs are compiled in.
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT && cd "$work" || exit 1
out=$(ASAN_OPTIONS=detect_leaks=0 "$prefix/bin/test_dma_bridge_parallel_streams" --sim_design NiteFury_dma_stream_loopback \
        --stream_mapping_size 0x100000 --duration 1 2>&1)
status=$?
[ $status -eq 0 ] && grep -q "Overall PASS" <<<"$out" || fail "installed test_dma_bridge_parallel_streams: exit $status: $out"
# The installed completion, with the tool found through PATH, offers the installed designs.
out=$(PATH="$prefix/bin:$PATH" bash -c '
  source "$1/share/bash-completion/completions/pcie-dma-toolkit"
  COMP_WORDS=(test_dma_bridge --sim_design NiteFury_dma_stream_l); COMP_CWORD=2
  _pcie_dma_toolkit test_dma_bridge; echo "${COMPREPLY[*]}"' _ "$prefix")
[ "$out" = NiteFury_dma_stream_loopback ] || fail "installed completion of --sim_design NiteFury_dma_stream_l gave '$out'"
[ $failures -eq 0 ] && echo "PASS: $# tools, $designs designs installed under $prefix; the installed tool passed" && rm -rf "$prefix"
[ $failures -eq 0 ]
