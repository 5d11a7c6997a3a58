#!/usr/bin/env bash
# Boots the QEMU guest with a topology holding every kind of PCI function QEMU 7.2 can make
# and captures each function's config space (capture_topology.sh). Files land in $1.
#   usage: capture_topology_run.sh OUT_DIR [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:?usage: capture_topology_run.sh OUT_DIR [WORK_DIR]}
work=${2:-$out/work}
exec "$root/vm/run_vm_test.sh" --name capture_topology --workdir "$work" --timeout 400 \
  --script "$here/capture_topology.sh" --files-out "$out" --expect "PDT-VM PASS capture-lspci-nn.txt" -- \
  -device pcie-root-port,id=rp5,bus=pcie.0,chassis=5,slot=5,x-speed=16,x-width=8 \
  -device x3130-upstream,id=up1,bus=rp5 \
  -device xio3130-downstream,id=dp1,bus=up1,chassis=6,slot=1 \
  -device xio3130-downstream,id=dp2,bus=up1,chassis=7,slot=2 \
  -device e1000e,bus=dp1 \
  -device pcie-root-port,id=rp6,bus=pcie.0,chassis=8,hotplug=off \
  -device pcie-root-port,id=rp7,bus=pcie.0,chassis=9,slot=9 \
  -device pcie-pci-bridge,id=ppb,bus=rp7 \
  -device pci-bridge,id=pb,bus=ppb,chassis_nr=10,addr=1 \
  -device i82801b11-bridge,id=dmi,bus=pcie.0 \
  -device e1000e,bus=pcie.0 \
  -device pcie-root-port,id=rp8,bus=pcie.0,chassis=11,slot=11 \
  -device virtio-net-pci,bus=rp8,disable-legacy=on,ats=on,iommu_platform=on \
  -device pcie-root-port,id=rp9,bus=pcie.0,chassis=12,slot=12 \
  -device nvme-subsys,id=ns0,nqn=pdt \
  -device nvme,bus=rp9,serial=pdt1,subsys=ns0,sriov_max_vfs=2,sriov_vq_flexible=4,sriov_vi_flexible=2,max_ioqpairs=6,msix_qsize=4
