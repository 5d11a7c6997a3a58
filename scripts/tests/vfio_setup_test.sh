#!/usr/bin/env bash
# Unit test of scripts/vfio-setup against a fake sysfs tree made in a temp dir. A fake kernel
# (background readers on FIFOs at drivers_probe and each driver's bind/unbind) moves the
# driver links as the real one would, so bind, restore and every refusal run end to end.
# Usage: vfio_setup_test.sh <vfio-setup> [<shell that runs it>]   (default: /bin/sh)
set -u
script=$1
read -ra shell <<< "${2:-/bin/sh}"
root=$(mktemp -d "${TMPDIR:-/tmp}/vfio_setup_test.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$root"
}
trap cleanup EXIT
failures=0
sys=$root/sys
export PDT_SYSFS_ROOT=$sys PDT_DEV_VFIO_ROOT=$root/dev/vfio PDT_PROC_ROOT=$root/proc
export PDT_VFIO_SETUP_STATE=$root/state PDT_VFIO_GROUP PDT_VFIO_SETUP_WAIT=2 PDT_VFIO_SETUP_UID=0
export PDT_UDEV_CONTROL=$root/run/udev/control  # absent: no udevd runs, until the udev checks
PDT_VFIO_GROUP=$(id -gn)  # a group the test user may chgrp to

# --- the fake kernel -----------------------------------------------------------------------
link_driver() { ln -sfn "../../drivers/$2" "$sys/bus/pci/devices/$1/driver"; }
group_of() { basename "$(readlink "$sys/bus/pci/devices/$1/iommu_group")"; }
on_probe() {
  local d=$sys/bus/pci/devices/$1 override
  [ -e "$d/fake_refuses_vfio" ] && return
  [ ! -e "$d/fake_no_node" ] || { link_driver "$1" vfio-pci; return; }
  override=$(cat "$d/driver_override")
  if [ -n "$override" ]; then link_driver "$1" "$override"; else link_driver "$1" "$(cat "$d/fake_native")"; fi
  if [ "$override" = vfio-pci ]; then
    : > "$root/dev/node.tmp"  # made whole, then moved: the script may look at any time
    chmod 0600 "$root/dev/node.tmp"
    mv "$root/dev/node.tmp" "$root/dev/vfio/$(group_of "$1")"
  fi
}
on_unbind() {
  [ ! -e "$sys/bus/pci/devices/$2/fake_sticky" ] || return
  rm -f "$sys/bus/pci/devices/$2/driver"
  [ "$1" != vfio-pci ] || rm -f "$root/dev/vfio/$(group_of "$2")"
}
on_bind() { [ -e "$sys/bus/pci/devices/$2/fake_refuses_bind" ] || link_driver "$2" "$1"; }
serve() {  # serve FIFO HANDLER ARGS...: each line written to FIFO calls HANDLER ARGS... LINE
  local fifo=$1
  shift
  mkfifo "$fifo"
  ( while :; do if read -r line < "$fifo"; then "$@" "$line"; fi; done ) &
  pids+=($!)
}

mkdir -p "$sys/bus/pci/devices" "$sys/kernel/iommu_groups" "$sys/class/net" "$sys/class/block" "$sys/class/drm" \
  "$root/dev/vfio" "$root/proc/sys/vm"
: > "$root/dev/vfio/vfio"
serve "$sys/bus/pci/drivers_probe" on_probe
for drv in vfio-pci xdma e1000e nvme amdgpu snd_hda_intel; do
  mkdir -p "$sys/bus/pci/drivers/$drv"
  serve "$sys/bus/pci/drivers/$drv/unbind" on_unbind "$drv"
  serve "$sys/bus/pci/drivers/$drv/bind" on_bind "$drv"
done

# device BDF DRIVER GROUP CLASS: a function bound to DRIVER ("" for none) in IOMMU group GROUP.
device() {
  local d=$sys/bus/pci/devices/$1
  mkdir -p "$d" "$sys/kernel/iommu_groups/$3/devices"
  echo 0x10ee > "$d/vendor"
  echo 0x9038 > "$d/device"
  echo "$4" > "$d/class"
  : > "$d/driver_override"
  echo "$2" > "$d/fake_native"
  [ -z "$2" ] || link_driver "$1" "$2"
  ln -s "../../../../kernel/iommu_groups/$3" "$d/iommu_group"
  ln -s "../../../../bus/pci/devices/$1" "$sys/kernel/iommu_groups/$3/devices/$1"
}
device 0000:01:00.0 xdma 5 0x058000
device 0000:03:00.0 e1000e 6 0x020000
mkdir -p "$sys/bus/pci/devices/0000:03:00.0/net/eth0"
ln -s ../../bus/pci/devices/0000:03:00.0/net/eth0 "$sys/class/net/eth0"
device 0000:04:00.0 nvme 8 0x010802
mkdir -p "$sys/bus/pci/devices/0000:04:00.0/nvme/nvme0/nvme0n1"
ln -s ../../bus/pci/devices/0000:04:00.0/nvme/nvme0/nvme0n1 "$sys/class/block/nvme0n1"
device 0000:05:00.0 amdgpu 9 0x030000
device 0000:00:1f.0 xdma 7 0x058000
device 0000:00:1f.3 snd_hda_intel 7 0x040300
device 0000:06:00.0 "" 10 0x058000
touch "$sys/bus/pci/devices/0000:06:00.0/fake_refuses_vfio"
device 0000:07:00.0 xdma 11 0x058000
for n in 20 21 22 23 24 25 26 27 28; do device "0000:$n:00.0" xdma "$n" 0x058000; done
touch "$sys/bus/pci/devices/0000:21:00.0/fake_no_node" "$sys/bus/pci/devices/0000:22:00.0/fake_sticky" \
  "$sys/bus/pci/devices/0000:23:00.0/fake_refuses_bind"
rm "$sys/bus/pci/devices/0000:20:00.0/iommu_group"
rm "$sys/bus/pci/devices/0000:24:00.0/driver_override"
mkdir "$sys/bus/pci/devices/0000:24:00.0/driver_override"  # a write to it fails, even as root

# --- the checks ----------------------------------------------------------------------------
# check NAME WANT_STATUS WANT_TEXT ARGS...: runs vfio-setup ARGS, wants the exit status and the
# text (fixed string) in its output.
check() {
  local name=$1 want=$2 text=$3 out rc
  shift 3
  out=$(timeout 30 "${shell[@]}" "$script" "$@" 2>&1)
  rc=$?
  if [ "$rc" = "$want" ] && grep -qF -- "$text" <<< "$out"; then
    echo "ok   $name"
  else
    echo "FAIL $name: exit status $rc (want $want), output:"
    while IFS= read -r l; do echo "     $l"; done <<< "$out"
    echo "     wanted text: $text"
    failures=$((failures + 1))
  fi
}
# expect NAME CONDITION...: a test(1) condition on the fake tree.
expect() {
  local name=$1
  shift
  if test "$@"; then echo "ok   $name"; else echo "FAIL $name: test $*"; failures=$((failures + 1)); fi
}
driver() { basename "$(readlink "$sys/bus/pci/devices/$1/driver")" 2>/dev/null; }

check usage-no-command 2 "usage: vfio-setup bind <bdf> [--force]"
check usage-bad-address 2 "'01:00' is not a PCI address (expected dddd:bb:dd.f, e.g. 0000:01:00.0)" bind 01:00
check usage-bad-option 2 "bind takes <bdf> [--force]" bind 0000:01:00.0 --forse
check usage-unknown-command 2 "unknown command 'unbind'" unbind 0000:01:00.0
check usage-hugepages-count 2 "hugepages takes a count of huge pages, not 'many'" hugepages many
PDT_VFIO_SETUP_UID=1000 check needs-root 1 \
  "bind 0000:01:00.0 needs root: run it as root or with sudo (sudo vfio-setup bind 0000:01:00.0)" bind 0000:01:00.0
PDT_VFIO_SETUP_UID=1000 check restore-needs-root 1 "restore 0000:01:00.0 needs root" restore 0000:01:00.0
PDT_VFIO_SETUP_UID=1000 check hugepages-needs-root 1 "hugepages 4 needs root" hugepages 4
check no-such-device 1 "no PCI device 0000:09:00.0 in $sys/bus/pci/devices" bind 0000:09:00.0

check refuses-network 1 \
  "refused: 0000:03:00.0 (e1000e) serves network interface eth0; binding it to vfio-pci takes that away from the system (--force does it anyway)" \
  bind 0000:03:00.0
check refuses-block 1 "refused: 0000:04:00.0 (nvme) serves block device nvme0n1" bind 0000:04:00.0
check refuses-display 1 "refused: 0000:05:00.0 (amdgpu) serves display controller (PCI class 0x030000)" bind 05:00.0
check refuses-shared-group 1 \
  "refused: IOMMU group 7 also holds 0000:00:1f.3 (driver snd_hda_intel); VFIO opens a group only when every device in it is bound to vfio-pci or to no driver" \
  bind 0000:00:1f.0
expect refusals-change-nothing "$(driver 0000:03:00.0)$(driver 0000:00:1f.0)$(cat "$sys/bus/pci/devices/0000:03:00.0/driver_override")" = e1000exdma

check bind 0 "bound 0000:01:00.0 to vfio-pci (was: xdma), IOMMU group 5: $root/dev/vfio/5" bind 0000:01:00.0
expect bind-driver "$(driver 0000:01:00.0)" = vfio-pci
expect bind-override "$(cat "$sys/bus/pci/devices/0000:01:00.0/driver_override")" = vfio-pci
expect bind-records-driver "$(cat "$root/state/0000:01:00.0")" = xdma
expect bind-group-access "$(stat -c '%G %a' "$root/dev/vfio/5")" = "$PDT_VFIO_GROUP 660"
check bind-says-who-set-access 0 \
  "$root/dev/vfio/5: group $PDT_VFIO_GROUP, mode 0660 (set by vfio-setup, as the udev rule 70-pcie-dma-toolkit-vfio.rules would)" \
  bind 0000:01:00.0
check bind-again 0 "0000:01:00.0 is already bound to vfio-pci, IOMMU group 5" bind 0000:01:00.0
check status 0 "0000:01:00.0 10ee:9038 class 0x058000 vfio-pci, IOMMU group 5, $root/dev/vfio/5 " status
check status-original 0 "original driver xdma" status 0000:01:00.0
check status-served 0 "  serves network interface eth0" status 0000:03:00.0
check status-group 0 "  IOMMU group 7 also holds 0000:00:1f.3 (driver snd_hda_intel)" status 0000:00:1f.0
check restore 0 "restored 0000:01:00.0: xdma (was xdma before vfio-setup bind), driver_override cleared" restore 0000:01:00.0
expect restore-driver "$(driver 0000:01:00.0)" = xdma
expect restore-override "$(cat "$sys/bus/pci/devices/0000:01:00.0/driver_override")" = ""
expect restore-forgets "! -e $root/state/0000:01:00.0"
check restore-unbound 0 "0000:01:00.0 is not bound to vfio-pci (xdma): nothing to restore" restore 0000:01:00.0

check force-network 0 "warning: --force: 0000:03:00.0 serves network interface eth0; the system loses it until 'vfio-setup restore 0000:03:00.0'" \
  bind 0000:03:00.0 --force
expect force-bound "$(driver 0000:03:00.0)" = vfio-pci
check restore-forced 0 "restored 0000:03:00.0: e1000e (was e1000e before vfio-setup bind)" restore 0000:03:00.0

check probe-fails 1 "0000:06:00.0 is bound to no driver, not vfio-pci, after drivers_probe (see dmesg); 'vfio-setup restore 0000:06:00.0' gives it back to no driver" \
  bind 0000:06:00.0
# Bound before vfio-setup (no record): restore clears the override and lets the kernel probe.
echo vfio-pci > "$sys/bus/pci/devices/0000:07:00.0/driver_override"
link_driver 0000:07:00.0 vfio-pci
check restore-unrecorded 0 \
  "restored 0000:07:00.0: no driver was recorded for it (bound before vfio-setup, or before a reboot); driver_override cleared and drivers probed: xdma" \
  restore 0000:07:00.0
PDT_VFIO_GROUP=no_such_group_pdt check bind-without-group 0 \
  "warning: group no_such_group_pdt does not exist, so only root can open $root/dev/vfio/11" bind 0000:07:00.0

# The failure paths of the steps: each says what failed and, where one exists, the way back.
check no-iommu-group 1 "0000:20:00.0 has no IOMMU group: turn the IOMMU on (intel_iommu=on or amd_iommu=on" bind 0000:20:00.0
check node-missing 1 "0000:21:00.0 is bound to vfio-pci but $root/dev/vfio/21 did not appear within 2 s" bind 0000:21:00.0
check unbind-fails 1 "0000:22:00.0 is still bound to xdma after unbind" bind 0000:22:00.0
check write-fails 1 "cannot write 'vfio-pci' to $sys/bus/pci/devices/0000:24:00.0/driver_override" bind 0000:24:00.0
PDT_VFIO_SETUP_STATE=$root/dev/vfio/vfio/state check state-dir-fails 1 "cannot create $root/dev/vfio/vfio/state" \
  bind 0000:23:00.0
check bind-for-rebind 0 "bound 0000:23:00.0 to vfio-pci (was: xdma)" bind 0000:23:00.0
check rebind-fails 1 "0000:23:00.0 did not bind to xdma again (no driver now; see dmesg)" restore 0000:23:00.0
check status-no-device 1 "no PCI device 0000:09:00.0 in $sys/bus/pci/devices" status 0000:09:00.0
mv "$sys/bus/pci/drivers/vfio-pci" "$sys/bus/pci/drivers/vfio-pci.off"
check vfio-pci-missing 1 "the vfio-pci driver is not loaded and 'modprobe vfio-pci' did not load it" bind 0000:25:00.0
mv "$sys/bus/pci/drivers/vfio-pci.off" "$sys/bus/pci/drivers/vfio-pci"
check bind-unloaded-driver 0 "bound 0000:25:00.0 to vfio-pci" bind 0000:25:00.0
echo no_such_driver > "$root/state/0000:25:00.0"
check restore-unloaded-driver 0 "warning: driver no_such_driver is not loaded (modprobe it); probing all drivers" \
  restore 0000:25:00.0

# udevd runs (its control file exists): the node's group and mode are the udev rule's. A fake
# udevadm logs its calls; its "settle" applies the rule when fake_udev_rule exists, and fails
# when fake_settle_fails exists.
mkdir -p "$root/run/udev" "$root/bin"
: > "$PDT_UDEV_CONTROL"
cat > "$root/bin/udevadm" <<EOF
#!/bin/sh
echo "\$*" >> "$root/udevadm.calls"
[ "\$1" = settle ] || exit 0
[ ! -e "$root/fake_udev_rule" ] || for n in "$root"/dev/vfio/[0-9]*; do chgrp "$PDT_VFIO_GROUP" "\$n"; chmod 0660 "\$n"; done
[ ! -e "$root/fake_settle_fails" ]
EOF
chmod 0755 "$root/bin/udevadm"
touch "$root/fake_udev_rule"
PATH=$root/bin:$PATH check udev-rule-applied 0 \
  "$root/dev/vfio/26: group $PDT_VFIO_GROUP, mode 0660 (from the udev rule 70-pcie-dma-toolkit-vfio.rules)" bind 0000:26:00.0
expect udev-settle-called "$(cat "$root/udevadm.calls")" = "settle --timeout=2"
rm "$root/fake_udev_rule"
PATH=$root/bin:$PATH check udev-rule-missing 0 \
  "warning: udev runs but $root/dev/vfio/27 is $(id -un):$(id -gn) 600, not group $PDT_VFIO_GROUP mode 660: the udev rule 70-pcie-dma-toolkit-vfio.rules did not apply" \
  bind 0000:27:00.0
expect udev-rule-missing-set-here "$(stat -c '%G %a' "$root/dev/vfio/27")" = "$PDT_VFIO_GROUP 660"
touch "$root/fake_udev_rule" "$root/fake_settle_fails"
PATH=$root/bin:$PATH check udev-settle-fails 0 "warning: 'udevadm settle' did not finish within 2 s" bind 0000:28:00.0
rm -f "$PDT_UDEV_CONTROL" "$root/fake_udev_rule" "$root/fake_settle_fails"

printf 'HugePages_Total:       8\nHugePages_Free:        8\nHugepagesize:       2048 kB\n' > "$root/proc/meminfo"
check hugepages 0 "reserved 8 huge pages of 2048 kB (16 MiB); not kept across reboots" hugepages 8
expect hugepages-written "$(cat "$root/proc/sys/vm/nr_hugepages")" = 8
mv "$root/proc/sys/vm/nr_hugepages" "$root/nr_hugepages.saved" && mkdir "$root/proc/sys/vm/nr_hugepages"
check hugepages-write-fails 1 "cannot write '8' to $root/proc/sys/vm/nr_hugepages" hugepages 8
rmdir "$root/proc/sys/vm/nr_hugepages" && mv "$root/nr_hugepages.saved" "$root/proc/sys/vm/nr_hugepages"
check hugepages-short 1 \
  "only 8 of 16 huge pages of 2048 kB reserved: memory is too fragmented; free memory and try again, or reserve them at boot (hugepages=16 on the kernel command line)" \
  hugepages 16

if [ $failures -ne 0 ]; then echo "vfio_setup_test: $failures check(s) failed"; exit 1; fi
echo "vfio_setup_test: every check passed (${shell[*]})"
