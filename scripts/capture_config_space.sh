#!/usr/bin/env bash
# Writes the config space of a PCI function and of every bridge above it to the root port, in
# the `lspci -xxxx` text format that `lspci -F` and our dump-file backend read. Read-only: it
# reads /sys/bus/pci/devices/*/config (run as root to get all 4096 bytes). Useful on machines
# without pciutils, and to capture fixtures.
#   usage: capture_config_space.sh <dddd:bb:dd.f> [output-file]
set -euo pipefail
bdf=${1:?usage: capture_config_space.sh <dddd:bb:dd.f> [output-file]}
out=${2:-/dev/stdout}
dev=/sys/bus/pci/devices/$bdf
[ -e "$dev/config" ] || { echo "no PCI function $bdf" >&2; exit 1; }
path=$(readlink -f "$dev")
chain=()
for part in ${path//\// }; do
  [[ $part =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]] && chain+=("$part")
done
{
  for ((i=${#chain[@]}-1; i>=0; i--)); do
    f=${chain[$i]}
    cls=$(cat /sys/bus/pci/devices/$f/class); ven=$(cat /sys/bus/pci/devices/$f/vendor); did=$(cat /sys/bus/pci/devices/$f/device)
    echo "$f Class ${cls:2:4}: ${ven:2}:${did:2}"
    od -An -v -tx1 -w16 /sys/bus/pci/devices/$f/config | awk '{ printf "%02x:", (NR-1)*16 } { for (i = 1; i <= NF; i++) printf " %s", $i; printf "\n" }'
    echo
  done
} > "$out"
