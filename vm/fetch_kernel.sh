#!/usr/bin/env bash
# Fetches Debian's current linux-image-amd64 kernel and the VFIO modules into a cache folder
# (default vm/cache/kernel) with `apt-get download`, once. Prints the cache folder.
# The cache holds: vmlinuz, modules/<name>.ko, modules/load-order (dependency order), version.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$here/cache/kernel}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -s "$cache/vmlinuz" ] && [ -s "$cache/modules/load-order" ]; then
  echo "$cache"
  exit 0
fi
# The modules VFIO needs for vfio-pci with the type1 IOMMU backend.
wanted=(irqbypass vfio vfio_iommu_type1 vfio_virqfd vfio-pci-core vfio-pci)

pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$pkg" ]; then
  echo "fetch_kernel: cannot resolve linux-image-amd64 (run apt-get update?)" >&2
  exit 1
fi
work=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "$pkg" >&2)
deb=$(ls "$work"/*.deb)
mkdir -p "$work/x"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/x" --wildcards './boot/vmlinuz-*' \
  './lib/modules/*/kernel/drivers/vfio/*' './lib/modules/*/kernel/virt/lib/irqbypass.ko*'
rm -rf "$cache/modules"
mkdir -p "$cache/modules"
for m in "${wanted[@]}"; do
  f=$(find "$work/x/lib/modules" -name "$m.ko*" | head -n1)
  if [ -z "$f" ]; then
    echo "fetch_kernel: module $m not in $pkg" >&2
    exit 1
  fi
  case "$f" in
    *.ko.xz) xz -dc "$f" > "$cache/modules/$m.ko" ;;
    *.ko.zst) zstd -qdc "$f" > "$cache/modules/$m.ko" ;;
    *.ko.gz) gzip -dc "$f" > "$cache/modules/$m.ko" ;;
    *) cp "$f" "$cache/modules/$m.ko" ;;
  esac
done
# Dependency order from each module's own "depends" field (modules.dep is made by depmod at
# install time, so it is not in the package).
order=()
visit() {
  local m=$1 d
  for d in "${order[@]}"; do [ "$d" = "$m" ] && return 0; done
  for d in $(modinfo -F depends "$cache/modules/$m.ko" | tr ',' ' '); do
    [ -f "$cache/modules/$d.ko" ] || { echo "fetch_kernel: $m needs $d, not fetched" >&2; exit 1; }
    visit "$d"
  done
  order+=("$m")
}
for m in "${wanted[@]}"; do visit "$m"; done
printf '%s\n' "${order[@]}" > "$cache/modules/load-order"
cp "$(ls "$work"/x/boot/vmlinuz-*)" "$cache/vmlinuz"
echo "$pkg $(dpkg-deb -f "$deb" Version)" > "$cache/version"
echo "$cache"
