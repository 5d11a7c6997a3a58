#!/usr/bin/env bash
# Runs a command that must fail with output matching every given regular expression: a test
# of the harness's own failure detection. Usage: expect_failure.sh RE... -- COMMAND...
set -uo pipefail
res=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do res+=("$1"); shift; done
shift
out=$("$@" 2>&1)
rc=$?
echo "$out" | tail -n 15
if [ $rc -eq 0 ]; then
  echo "expect_failure: FAIL: the command passed"
  exit 1
fi
for re in "${res[@]}"; do
  grep -qE -- "$re" <<<"$out" || { echo "expect_failure: FAIL: no line matches /$re/"; exit 1; }
done
echo "expect_failure: PASS: failed (status $rc) as expected"
