#!/usr/bin/env bash
# Judges a guest's serial log. Fails (exit 1, naming every reason) on: a QEMU exit status other
# than 0 (abort, hw_error) or a timeout, a kernel panic or oops, a "PDT-VM FAIL" line, a
# GoogleTest failure, a sanitizer report, a missing "PDT-VM DONE" summary or one with no pass,
# and any --expect regular expression (grep -E) that matches no line.
# Usage: check_log.sh --log F [--qemu-rc N] [--qemu-stderr F] [--expect RE]... [--files-out DIR]
set -uo pipefail
log="" qrc=0 qerr="" out=""
expects=()
while [ $# -gt 0 ]; do
  case "$1" in
    --log) log=$2; shift 2 ;;
    --qemu-rc) qrc=$2; shift 2 ;;
    --qemu-stderr) qerr=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --files-out) out=$2; shift 2 ;;
    *) echo "check_log: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$log" ] || { echo "usage: check_log.sh --log F [--qemu-rc N] [--expect RE]..." >&2; exit 2; }
[ -f "$log" ] || { echo "check_log: FAIL: no serial log $log" >&2; exit 1; }

# Carriage returns and ANSI colour sequences removed, so patterns see plain lines.
text=$(tr -d '\r' < "$log" | sed 's/\x1b\[[0-9;]*m//g')
# GoogleTest failures inside an expected-failure step (pdt_expect_fail) are that step's
# subject, judged by its own PASS/FAIL line; everything else still counts there.
judged=$(awk '/^PDT-VM BEGIN .*\(expected to fail/ { skip = 1; next }
              /^PDT-VM (PASS|FAIL) / { skip = 0 }
              !(skip && /^\[  FAILED  \]/)' <<<"$text")
reasons=()
case "$qrc" in
  0) ;;
  124|137) reasons+=("guest ran past its time limit; QEMU was killed") ;;
  125) reasons+=("guest printed nothing on its serial port within its first-output bound; QEMU was killed") ;;
  *) detail=""
     # QEMU's own complaint (hw_error, assertion) rather than the register dump after it.
     if [ -n "$qerr" ] && [ -r "$qerr" ]; then
       detail=$(grep -m1 -E 'hardware error|qemu-system[^:]*: |Assertion|Aborted' "$qerr" || tail -n 1 "$qerr")
     fi
     reasons+=("QEMU exited with status $qrc${detail:+: $detail}") ;;
esac
grep -qE 'Kernel panic|BUG: |Oops: |general protection fault' <<<"$text" && reasons+=("kernel panic or oops: $(grep -m1 -E 'Kernel panic|BUG: |Oops: |general protection fault' <<<"$text")")
while IFS= read -r line; do reasons+=("${line#PDT-VM }"); done < <(grep -E '^PDT-VM FAIL ' <<<"$text")
while IFS= read -r line; do reasons+=("GoogleTest: $line"); done < <(grep -E '^\[  FAILED  \] [A-Za-z_]' <<<"$judged")
grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' <<<"$text" && reasons+=("sanitizer report: $(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' <<<"$text")")
done_line=$(grep -E '^PDT-VM DONE ' <<<"$text" | tail -n1)
if [ -z "$done_line" ]; then
  reasons+=("no 'PDT-VM DONE' line: the guest did not finish its script")
elif grep -q 'pass=0 ' <<<"$done_line "; then
  reasons+=("no test passed in the guest ($done_line)")
fi
for re in "${expects[@]}"; do
  grep -qE -- "$re" <<<"$text" || reasons+=("expected log line missing: /$re/")
done

if [ -n "$out" ]; then
  mkdir -p "$out"
  awk -v dir="$out" '
    /^PDT-VM FILE-BEGIN / { name = $3; file = dir "/" name; printf "" > file; next }
    /^PDT-VM FILE-END /   { close(file); file = ""; next }
    file != ""            { print >> file }' <<<"$text"
fi

up=$(grep -oE 'guest up after [0-9.]+ s' <<<"$text" | head -n1)
if [ ${#reasons[@]} -eq 0 ]; then
  echo "check_log: PASS: ${done_line#PDT-VM }${up:+, $up}"
  exit 0
fi
echo "check_log: FAIL ($log):"
printf '  %s\n' "${reasons[@]}"
exit 1
