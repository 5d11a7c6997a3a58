#!/usr/bin/env bash
# Tests scripts/soak.py's verdicts with a fake tool (fake_parallel_streams.py): right behaviour
# passes; a fault that passes, a fault failed without its message, a clean run with no bytes
# verified and RSS growth within a run each fail the soak, naming why.
# Usage: soak_test.sh
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=fake_tools_dir.sh
. "$(dirname "$0")/fake_tools_dir.sh"
# check NAME WANT-STATUS REGEX-ON-OUTPUT FAKE_MODE [SOAK OPTIONS...]
check() {
  local name=$1 want=$2 re=$3 mode=$4 out rc
  shift 4
  out=$(FAKE_MODE=$mode python3 "$here/../soak.py" --tool "$here/fake_parallel_streams.py" --log "$tmp/log" \
        --duration 3 --clean_seconds 1 --fault_seconds 1 --sample_interval 0.2 "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$re" <<<"$out"; then
    echo "FAIL $name: want status $want and /$re/, got $rc:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok $name: $(tail -1 <<<"$out")"
  fi
}
check good 0 '^soak: [0-9]+ s; PASS$' good
check good-counts 0 'faults injected: ([1-9][0-9]*), detected and named \1, detected but misreported 0, undetected 0' good
check blind 1 'undetected [1-9].*|soak: .*FAIL: faults detected' blind
check blind-verdict 1 'UNDETECTED' blind
check vague 1 'detected but misreported [1-9]' vague
check vague-verdict 1 'soak: [0-9]+ s; FAIL: faults detected$' vague
check zero-bytes 1 'soak: [0-9]+ s; FAIL: clean runs$' zero
check leak 1 'FAIL: .*long run RSS flat' leak --duration 1 --long_run 2 --rss_growth_limit_mib 8
check missing-tool 2 'not an executable' good --tool "$tmp/none"
check nothing-to-run 2 'nothing to run' good --duration 0
exit $((failures > 0))
