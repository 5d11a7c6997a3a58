#!/usr/bin/env bash
# Run on the lent GPU machine (read-only on PCI): captures the GPU's config space and its path
# to the root port, idle and under copy load, plus the link as the driver reports it.
set -uo pipefail
out=${OUT:-/tmp/out}
here=$(cd "$(dirname "$0")" && pwd)
gpu=$(for d in /sys/bus/pci/devices/*; do
        [ "$(cat $d/vendor)" = 0x10de ] && [[ $(cat $d/class) == 0x03* ]] && basename $d; done | head -1)
echo "GPU at $gpu"
readlink -f /sys/bus/pci/devices/$gpu
"$here/../capture_config_space.sh" "$gpu" "$out/h200_idle.lspci"
nvcc -O2 -o /tmp/gpu_copy_load "$here/gpu_copy_load.cu" || exit 1
/tmp/gpu_copy_load 8 > "$out/copy_load.txt" &
sleep 1.5
"$here/../capture_config_space.sh" "$gpu" "$out/h200_h2d_load.lspci"
sleep 4
"$here/../capture_config_space.sh" "$gpu" "$out/h200_d2h_load.lspci"
wait
cat "$out/copy_load.txt"
nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv | tee "$out/nvidia_smi_link.csv"
for f in /sys/bus/pci/devices/$gpu/{current_link_speed,current_link_width,max_link_speed,max_link_width}; do echo "$f: $(cat $f)"; done | tee "$out/sysfs_link.txt"
wc -l "$out"/*.lspci
