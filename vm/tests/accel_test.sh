#!/usr/bin/env bash
# Tests the accelerator choice and the silent-guest bound without booting a guest: fake QEMUs
# stand for a KVM that hangs without a word (the machine this guards against), a KVM that
# boots, and a guest that never prints.
# Usage: accel_test.sh VM_DIR
set -uo pipefail
vm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
touch "$tmp/kvm" "$tmp/vmlinuz"
# A QEMU that runs and prints nothing, as KVM does on such a machine.
printf '#!/bin/sh\nexec sleep 600\n' > "$tmp/qemu-hang"
# A QEMU whose guest prints the kernel banner on the serial file given with -serial file:F.
cat > "$tmp/qemu-boots" <<'Q'
#!/bin/sh
for a; do case "$a" in file:*) echo "Linux version 6.1 (fake)" > "${a#file:}" ;; esac; done
exec sleep 600
Q
chmod +x "$tmp/qemu-hang" "$tmp/qemu-boots"

# check NAME WANT-STATUS REGEX-ON-OUTPUT COMMAND...
check() {
  local name=$1 want=$2 re=$3 out rc
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$re" <<<"$out"; then
    echo "FAIL $name: want status $want and /$re/, got $rc: $out"
    failures=$((failures + 1))
  else
    echo "ok $name: $(tr '\n' ' ' <<<"$out")"
  fi
}

export PDT_VM_KVM_DEVICE="$tmp/kvm" PDT_VM_KVM_PROBE_S=2
check hang-falls-back 0 'fall back to TCG' env QEMU="$tmp/qemu-hang" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check verdict-cached 0 '^tcg$' env QEMU="$tmp/qemu-boots" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
rm -f "$tmp"/accel.*
check boots-uses-kvm 0 'KVM guest boots here' env QEMU="$tmp/qemu-boots" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check no-kvm-device 0 '^tcg$' env PDT_VM_KVM_DEVICE="$tmp/none" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check kvm-forbidden 0 '^tcg$' env PDT_VM_KVM=0 QEMU="$tmp/qemu-boots" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check forced-bad 2 'must be kvm or tcg' env PDT_VM_ACCEL=hvf "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check silent-guest 125 'printed nothing on its serial port in 2 s' env PDT_VM_ACCEL=tcg PDT_VM_FIRST_OUTPUT_S=2 \
  QEMU="$tmp/qemu-hang" "$vm/boot_qemu.sh" --kernel "$tmp/vmlinuz" --initrd "$tmp/vmlinuz" --log "$tmp/serial" --timeout 60
exit $((failures > 0))
