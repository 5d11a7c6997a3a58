# Shell library for guest test scripts (busybox sh). Every result is one line on the serial
# console starting with "PDT-VM ", which the host's check_log.sh parses:
#   PDT-VM PASS <name>            PDT-VM FAIL <name>: <why>      PDT-VM INFO <text>
#   PDT-VM FILE-BEGIN <name> ... PDT-VM FILE-END <name>          PDT-VM DONE pass=N fail=M
# A guest test script (/pdt/test.sh) is sourced after this file and calls the pdt_* functions.

PDT_CMD_TIMEOUT=${PDT_CMD_TIMEOUT:-300}   # seconds one command may run in the guest
PDT_STATE=/tmp/pdt-state
mkdir -p "$PDT_STATE"

pdt_marker() { echo "PDT-VM $*"; }
pdt_info() { pdt_marker "INFO $*"; }
pdt_pass() { echo x >> "$PDT_STATE/pass"; pdt_marker "PASS $1"; }
pdt_fail() { echo x >> "$PDT_STATE/fail"; pdt_marker "FAIL $1: $2"; }

# pdt_run NAME CMD...: runs CMD (output to the console); PASS when it exits 0.
pdt_run() {
  local name=$1 rc
  shift
  pdt_marker "BEGIN $name: $*"
  timeout "$PDT_CMD_TIMEOUT" "$@"
  rc=$?
  if [ $rc -eq 0 ]; then pdt_pass "$name"; else pdt_fail "$name" "exit status $rc from: $*"; fi
  return $rc
}

# pdt_expect_fail NAME EXIT_CODE CMD...: PASS when CMD exits with EXIT_CODE (an inverted
# test: it proves a check can fail). EXIT_CODE "nonzero" accepts any failure but a signal.
pdt_expect_fail() {
  local name=$1 want=$2 rc
  shift 2
  pdt_marker "BEGIN $name (expected to fail with $want): $*"
  timeout "$PDT_CMD_TIMEOUT" "$@"
  rc=$?
  if [ "$want" = nonzero ] && [ $rc -ne 0 ] && [ $rc -lt 124 ]; then pdt_pass "$name"
  elif [ "$rc" = "$want" ]; then pdt_pass "$name"
  else pdt_fail "$name" "expected exit status $want, got $rc from: $*"
  fi
}

# pdt_file NAME PATH: copies a guest file into the log (the host extracts it to a file NAME).
pdt_file() {
  pdt_marker "FILE-BEGIN $1"
  cat "$2"
  pdt_marker "FILE-END $1"
}

# pdt_capture NAME CMD...: runs CMD and copies its standard output into the log as file NAME;
# PASS when CMD exits 0.
pdt_capture() {
  local name=$1 rc
  shift
  timeout "$PDT_CMD_TIMEOUT" "$@" > "$PDT_STATE/capture" 2> "$PDT_STATE/capture.err"
  rc=$?
  pdt_file "$name" "$PDT_STATE/capture"
  cat "$PDT_STATE/capture.err"
  if [ $rc -eq 0 ]; then pdt_pass "capture-$name"; else pdt_fail "capture-$name" "exit status $rc from: $*"; fi
}

# The BDFs of the devices with vendor:device ID $1 (e.g. 1234:11e8), one a line.
pdt_devices() {
  local d v
  for d in /sys/bus/pci/devices/*; do
    v="$(cat "$d/vendor"):$(cat "$d/device")"
    [ "$v" = "0x${1%%:*}:0x${1##*:}" ] && echo "${d##*/}"
  done
}

# The kernel log lines matching a regular expression (grep -E).
pdt_dmesg_grep() { dmesg | grep -E "$1"; }

pdt_count() { [ -f "$PDT_STATE/$1" ] && wc -l < "$PDT_STATE/$1" || echo 0; }
pdt_summary() { pdt_marker "DONE pass=$(pdt_count pass) fail=$(pdt_count fail)"; }

# pdt_start_udevd [NAME]: starts Debian's systemd-udevd (a guest built with --udev / UDEV) as a
# daemon and waits (10 s at most) for its control socket, which udevadm and libudev look for. A
# step of its own: PASS NAME (default udevd-start), or FAIL NAME saying why.
pdt_start_udevd() {
  local i=0 name=${1:-udevd-start}
  pdt_marker "BEGIN $name: /lib/systemd/systemd-udevd --daemon"
  /lib/systemd/systemd-udevd --daemon || { pdt_fail "$name" "systemd-udevd --daemon exited with status $?"; return 1; }
  while [ ! -S /run/udev/control ]; do
    i=$((i + 1))
    [ $i -le 100 ] || { pdt_fail "$name" "no /run/udev/control 10 s after systemd-udevd --daemon"; return 1; }
    sleep 0.1
  done
  pdt_pass "$name"
}
