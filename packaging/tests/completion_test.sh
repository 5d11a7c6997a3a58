#!/usr/bin/env bash
# The generated bash completion answers as a user pressing Tab expects: options of the tool's own
# --help, design names for --sim_design (from the designs directory and from --design_file
# files on the line), enumerated values, and nothing for a value that is free text.
# Usage: completion_test.sh COMPLETION_SCRIPT DESIGNS_DIR TOOL_PATH (test_dma_bridge_parallel_streams)
set -uo pipefail
script=$1 designs=$2 tool_path=$3
tool=${tool_path##*/}
# shellcheck disable=SC1090
source "$script" || { echo "FAIL: cannot source $script"; exit 1; }
export PDT_DESIGNS_DIR=$designs
failures=0
# complete WORD...: COMPREPLY for the command line "WORD...", the cursor on the last word.
complete_line() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _pcie_dma_toolkit "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() {
  local want=$1 got
  shift
  got=$(complete_line "$@")
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$*' completed to '$got', expected '$want'"
    failures=$((failures + 1))
  fi
}
expect "--stream_device --stream_mapping_size --stream_num_descriptors " "$tool" --stream_
expect "TEF1001_dma_stream_crc64 TEF1001_dma_stream_fixed_data TEF1001_dma_stream_loopback " \
       "$tool" --sim_design TEF1001_dma_s
expect "NiteFury_dma_stream_loopback " "$tool" --sim_design = NiteFury_dma_stream_l
expect "heap huge_pages shared_memory " "$tool" --buffer_allocation ""
expect "" "$tool" --duration ""
expect "" "$tool" --no_such_prefix
# A design of a --design_file file on the line is offered too.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
printf '{"name": "my_board_design", "match": {}}\n' > "$tmp/mine.json"
expect "my_board_design " "$tool" --design_file "$tmp/mine.json" --sim_design my_
# Every option of --help is offered, and no other.
want=$(ASAN_OPTIONS=detect_leaks=0 "$tool_path" --help | grep -oE '^  (-[[:alnum:]] \[ )?--[[:alnum:]_-]+' |
       grep -oE -- '--[[:alnum:]_-]+' | sort | tr '\n' ' ')
expect "$want" "$tool" --
# The completion is registered for the tool.
complete -p "$tool" | grep -q -- "-F _pcie_dma_toolkit" || { echo "FAIL: no complete -F for $tool"; failures=$((failures + 1)); }
[ $failures -eq 0 ] && echo "PASS: completion of $tool (options, designs, values)"
[ $failures -eq 0 ]
