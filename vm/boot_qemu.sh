#!/usr/bin/env bash
# Boots the test guest under QEMU (TCG, or KVM where choose_accel.sh proved it boots) and writes its serial console to a log file.
# The machine: q35 with a virtual Intel IOMMU (interrupt remapping), 1.5 GiB, one CPU, and
#   rp1 (8 GT/s x4)   -> edu 1234:11e8
#   rp2 (5 GT/s x2)   -> edu 1234:11e8 (a second device in its own IOMMU group)
#   rp3 (2.5 GT/s x1) -> empty, for link tests
# --no-iommu leaves the virtual IOMMU out (and intel_iommu=on off the command line): vfio then
# needs its no-IOMMU mode (vm_noiommu). Such a guest gets 384 MiB (the sanitized build's initramfs
# does not unpack in 256), most of it below edu's 28-bit DMA mask (the pool takes huge pages below it),
# and 16 huge pages of 2 MiB reserved at boot (hugepages=).
# PDT_VM_MEMORY sets the guest's MiB (default 1536, 384 with --no-iommu).
# Usage: boot_qemu.sh --kernel F --initrd F --log F [--timeout S] [--append ARGS] [--no-iommu] [-- QEMU_ARGS...]
# Exit status: QEMU's; 124 when the guest ran past the timeout (QEMU is killed); 125 when it
# printed nothing within PDT_VM_FIRST_OUTPUT_S.
set -euo pipefail
kernel="" initrd="" log="" limit=600 append="" iommu=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=$2; shift 2 ;;
    --initrd) initrd=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --append) append=$2; shift 2 ;;
    --no-iommu) iommu=no; shift ;;
    --) shift; break ;;
    *) echo "boot_qemu: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$log" ] || {
  echo "usage: boot_qemu.sh --kernel F --initrd F --log F [--timeout S] [--append ARGS] [-- QEMU_ARGS...]" >&2
  exit 2
}
qemu=${QEMU:-qemu-system-x86_64}
here=$(cd "$(dirname "$0")" && pwd)
accel=$("$here/choose_accel.sh" --kernel "$kernel")
echo "boot_qemu: accelerator $accel"
rm -f "$log"
iommu_device=(-device intel-iommu,intremap=on)
iommu_append="intel_iommu=on iommu=strict"
memory=${PDT_VM_MEMORY:-1536}
if [ $iommu = no ]; then
  iommu_device=()
  iommu_append="hugepagesz=2M hugepages=16"
  memory=${PDT_VM_MEMORY:-384}
fi
args=(
  -machine q35,kernel-irqchip=split -accel "$accel" -m "$memory" -smp 1
  -display none -vga none -nic none -monitor none -serial "file:$log" -no-reboot
  -kernel "$kernel" -initrd "$initrd"
  -append "console=ttyS0 quiet no_timer_check $iommu_append panic=-1 oops=panic $append"
  ${iommu_device[@]+"${iommu_device[@]}"}
  -device pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1,x-speed=8,x-width=4
  -device edu,bus=rp1
  -device pcie-root-port,id=rp2,bus=pcie.0,chassis=2,slot=2,x-speed=5,x-width=2
  -device edu,bus=rp2
  -device pcie-root-port,id=rp3,bus=pcie.0,chassis=3,slot=3,x-speed=2_5,x-width=1
  "$@"
)
# A guest that prints nothing within PDT_VM_FIRST_OUTPUT_S (180 s; /init speaks after 2-45 s
# under TCG) is killed with a message, not left to hang silently to the time limit.
first=${PDT_VM_FIRST_OUTPUT_S:-180}
timeout --kill-after=10 "$limit" "$qemu" "${args[@]}" &
qpid=$!
silent=0
for _ in $(seq $((first * 2))); do
  [ -s "$log" ] && break
  kill -0 "$qpid" 2>/dev/null || break
  sleep 0.5
done
if [ ! -s "$log" ] && kill -0 "$qpid" 2>/dev/null; then
  silent=1
  kill "$qpid" 2>/dev/null || true
fi
rc=0
wait "$qpid" || rc=$?
if [ "$silent" = 1 ]; then
  echo "boot_qemu: FAIL: the guest printed nothing on its serial port in ${first} s (accelerator $accel): QEMU killed"
  exit 125
fi
exit $rc
