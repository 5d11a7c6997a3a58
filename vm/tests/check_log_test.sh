#!/usr/bin/env bash
# Tests check_log.sh on synthetic serial logs: a clean log passes, and each failure condition
# fails with its own reason.
set -uo pipefail
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
good=$'PDT-VM INFO guest up after 2.31 s\r\nPDT-VM PASS a\r\nPDT-VM FILE-BEGIN f1\r\nline one\r\nPDT-VM FILE-END f1\r\nPDT-VM DONE pass=1 fail=0\r\n'

# expect <want-status> <regex on output> <log text> [check_log args...]
expect() {
  local want=$1 re=$2 text=$3 out rc
  shift 3
  printf '%s' "$text" > "$tmp/log"
  out=$("$check" --log "$tmp/log" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$re" <<<"$out"; then
    echo "FAIL: want status $want and /$re/, got $rc: $out"
    failures=$((failures + 1))
  else
    echo "ok: status $rc, /$re/"
  fi
}

expect 0 'PASS: DONE pass=1 fail=0, guest up after 2.31 s' "$good" --expect 'PASS a$' --files-out "$tmp/files"
[ "$(cat "$tmp/files/f1")" = "line one" ] || { echo "FAIL: file f1 not extracted"; failures=$((failures + 1)); }
expect 1 'FAIL a: exit status 1' $'PDT-VM FAIL a: exit status 1\nPDT-VM DONE pass=1 fail=1\n'
expect 1 "no 'PDT-VM DONE' line" $'PDT-VM PASS a\n'
expect 1 'no test passed' $'PDT-VM DONE pass=0 fail=0\n'
expect 1 'expected log line missing: /MSI received/' "$good" --expect 'MSI received'
expect 1 'time limit' "$good" --qemu-rc 124
expect 1 'printed nothing on its serial port' "" --qemu-rc 125
printf "qemu: hardware error: edu\nCPU #0:\nRAX=0000000000000000\n" > "$tmp/qerr"
expect 1 'QEMU exited with status 134: qemu: hardware error' "$good" --qemu-rc 134 --qemu-stderr "$tmp/qerr"
expect 1 'kernel panic or oops: .*Kernel panic - not syncing' "$good"$'[ 1.0] Kernel panic - not syncing: Attempted to kill init!\n'
expect 1 'GoogleTest: \[  FAILED  \] Edu.Dma' "$good"$'[  FAILED  ] Edu.Dma (12 ms)\n'
expect 1 'GoogleTest: \[  FAILED  \] Edu.Color' "$good"$'\x1b[0;31m[  FAILED  ] \x1b[mEdu.Color (1 ms)\n'
expect 0 'PASS' $'PDT-VM BEGIN inv (expected to fail with 1): t\n[  FAILED  ] Edu.Dma (1 ms)\nPDT-VM PASS inv\nPDT-VM DONE pass=1 fail=0\n'
expect 1 'GoogleTest: \[  FAILED  \] Edu.After' $'PDT-VM BEGIN inv (expected to fail with 1): t\nPDT-VM PASS inv\n[  FAILED  ] Edu.After (1 ms)\nPDT-VM DONE pass=1 fail=0\n'
expect 1 'sanitizer report: .*AddressSanitizer' "$good"$'==12==ERROR: AddressSanitizer: heap-buffer-overflow\n'
expect 1 'no serial log' "" --log /nonexistent
expect 2 'unknown argument --bogus' "" --bogus
exit $((failures > 0))
