#!/usr/bin/env bash
# Chooses QEMU's accelerator for the test guest and prints it: kvm only once a probe has shown
# that a KVM guest really boots on this machine, else tcg. A writable /dev/kvm proves nothing:
# some machines have one on which a KVM guest never runs a single instruction, and every test
# would hang there to its time limit. The probe boots the test kernel alone under KVM and
# waits (at most PDT_VM_KVM_PROBE_S, 20 s) for "Linux version" on its serial port; the verdict
# is cached per machine beside the kernel. Messages go to stderr.
# Usage: choose_accel.sh --kernel F
# PDT_VM_ACCEL=kvm|tcg forces a choice; PDT_VM_KVM=0 forbids KVM; PDT_VM_KVM_DEVICE (tests) names
# the device file checked for write access instead of /dev/kvm.
set -euo pipefail
kernel=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=$2; shift 2 ;;
    *) echo "choose_accel: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$kernel" ] || { echo "usage: choose_accel.sh --kernel F" >&2; exit 2; }
case "${PDT_VM_ACCEL:-}" in
  kvm|tcg) echo "$PDT_VM_ACCEL"; exit 0 ;;
  "") ;;
  *) echo "choose_accel: PDT_VM_ACCEL must be kvm or tcg, not '$PDT_VM_ACCEL'" >&2; exit 2 ;;
esac
kvm_dev=${PDT_VM_KVM_DEVICE:-/dev/kvm}
if [ "${PDT_VM_KVM:-1}" != 1 ] || [ ! -w "$kvm_dev" ]; then
  echo tcg
  exit 0
fi
cache="$(dirname "$kernel")/accel.$(hostname).$(stat -c %Y "$kernel")"
exec 8>"$cache.lock"
flock 8
if [ -s "$cache" ]; then
  cat "$cache"
  exit 0
fi
limit=${PDT_VM_KVM_PROBE_S:-20}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
${QEMU:-qemu-system-x86_64} -machine q35 -accel kvm -m 256 -smp 1 -display none -vga none -nic none \
  -monitor none -nodefaults -serial "file:$log" -no-reboot -kernel "$kernel" \
  -append "console=ttyS0 earlyprintk=ttyS0 panic=-1" > /dev/null 2>&1 &
qpid=$!
booted=0
for _ in $(seq $((limit * 5))); do
  if grep -qa 'Linux version' "$log" 2>/dev/null; then booted=1; break; fi
  kill -0 "$qpid" 2>/dev/null || break
  sleep 0.2
done
grep -qa 'Linux version' "$log" 2>/dev/null && booted=1
kill -9 "$qpid" 2>/dev/null || true
wait "$qpid" 2>/dev/null || true
if [ "$booted" = 1 ]; then
  echo "choose_accel: a KVM guest boots here: the tests use KVM" >&2
  echo kvm | tee "$cache"
else
  echo "choose_accel: $kvm_dev is writable but a KVM guest printed nothing in ${limit} s: the tests fall back to TCG (software emulation)" >&2
  echo tcg | tee "$cache"
fi
