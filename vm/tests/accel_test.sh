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
# A QEMU that fails at once, as it does where KVM cannot be initialised.
printf '#!/bin/sh\necho "qemu-system-x86_64: failed to initialize kvm: Operation not permitted" >&2\nexit 1\n' \
  > "$tmp/qemu-kvm-fails"
# A QEMU that records its arguments and boots a guest that prints and powers off.
cat > "$tmp/qemu-records" <<'Q'
#!/bin/sh
echo "$@" > "${0%/*}/qemu-args"
for a; do case "$a" in file:*) echo "Linux version 6.1 (fake)" > "${a#file:}" ;; esac; done
exit 0
Q
chmod +x "$tmp/qemu-hang" "$tmp/qemu-boots" "$tmp/qemu-kvm-fails" "$tmp/qemu-records"

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
# No /dev/kvm at all: TCG without a probe (a QEMU whose KVM guest boots would say kvm if probed).
rm -f "$tmp"/accel.*
check no-kvm-device 0 '^tcg$' env PDT_VM_KVM_DEVICE="$tmp/none" QEMU="$tmp/qemu-boots" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
# A /dev/kvm on which QEMU cannot start KVM at all: the probe ends at once, TCG.
rm -f "$tmp"/accel.*
check kvm-init-fails 0 'fall back to TCG' env QEMU="$tmp/qemu-kvm-fails" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
rm -f "$tmp"/accel.*
# The whole boot without /dev/kvm: boot_qemu.sh runs QEMU with -accel tcg and the guest's output.
check boot-no-kvm 0 'accelerator tcg' env PDT_VM_KVM_DEVICE="$tmp/none" QEMU="$tmp/qemu-records" \
  "$vm/boot_qemu.sh" --kernel "$tmp/vmlinuz" --initrd "$tmp/vmlinuz" --log "$tmp/serial" --timeout 60
check boot-no-kvm-args 0 '-accel tcg ' cat "$tmp/qemu-args"
check boot-no-kvm-log 0 'Linux version' cat "$tmp/serial"
check kvm-forbidden 0 '^tcg$' env PDT_VM_KVM=0 QEMU="$tmp/qemu-boots" "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check forced-bad 2 'must be kvm or tcg' env PDT_VM_ACCEL=hvf "$vm/choose_accel.sh" --kernel "$tmp/vmlinuz"
check silent-guest 125 'printed nothing on its serial port in 2 s' env PDT_VM_ACCEL=tcg PDT_VM_FIRST_OUTPUT_S=2 \
  QEMU="$tmp/qemu-hang" "$vm/boot_qemu.sh" --kernel "$tmp/vmlinuz" --initrd "$tmp/vmlinuz" --log "$tmp/serial" --timeout 60
exit $((failures > 0))
