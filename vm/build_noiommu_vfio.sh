#!/usr/bin/env bash
# Builds vfio.ko, vfio_virqfd.ko, vfio_iommu_type1.ko, vfio-pci-core.ko and vfio-pci.ko with
# CONFIG_VFIO_NOIOMMU for the guest's own kernel (Debian's build leaves it off), from Debian's
# linux-source-6.1 and the headers of the kernel in KERNEL_CACHE (fetch_kernel.sh), once:
# later calls find them in the cache folder (default vm/cache/noiommu) and print it.
# The cache holds modules/<name>.ko, modules/load-order (as fetch_kernel.sh's) and version.
# Usage: build_noiommu_vfio.sh KERNEL_CACHE [CACHE]
# Exit status: 0 built or cached (prints the cache folder); 3 when the source or headers
# package cannot be had (the reason on stdout as "SKIP: ..."); 1 on a build failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kcache=${1:?usage: build_noiommu_vfio.sh KERNEL_CACHE [CACHE]}
cache=${2:-$here/cache/noiommu}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
read -r image version < "$kcache/version"
abi=${image#linux-image-}          # 6.1.0-57-amd64
flavour=${abi##*-}                 # amd64
abi_common=${abi%-"$flavour"}       # 6.1.0-57
if [ -s "$cache/modules/load-order" ] && [ -s "$cache/modules/vfio.params" ] && [ "$(cat "$cache/version" 2>/dev/null)" = "$image $version" ]; then
  echo "$cache"
  exit 0
fi
skip() { echo "SKIP: $*"; exit 3; }
major=$(echo "$version" | cut -d. -f1-2)  # 6.1
pkgs=("linux-source-$major=$version" "linux-headers-$abi=$version" "linux-headers-$abi_common-common=$version"
      "linux-kbuild-$major=$version")
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download "${pkgs[@]}" >&2); then
  skip "apt-get download ${pkgs[*]} failed: the source or headers of the guest kernel $image $version cannot be had (run apt-get update, or add the security archive)"
fi
root=$work/root
mkdir -p "$root"
for d in "$work"/linux-headers-*.deb "$work"/linux-kbuild-*.deb; do dpkg-deb -x "$d" "$root"; done
headers=$root/usr/src/linux-headers-$abi
# The flavour's Makefile includes the common tree by its installed, absolute path.
sed -i "s#include /usr/src/#include $root/usr/src/#" "$headers/Makefile"
echo "build_noiommu_vfio: unpacking drivers/vfio of linux-source-$major $version" >&2
dpkg-deb --fsys-tarfile "$work"/linux-source-*.deb | tar -xO "./usr/src/linux-source-$major.tar.xz" | xz -dc |
  tar -x -C "$work" --wildcards "linux-source-$major/drivers/vfio/*"
src=$work/linux-source-$major/drivers/vfio
# autoconf.h of the headers lacks CONFIG_VFIO_NOIOMMU: the C code sees it through KCFLAGS, the
# Makefiles through the variable. The modules are built together, so the CRCs of vfio's
# symbols that the others import are the ones this vfio.ko exports. Drivers not needed are off.
echo "build_noiommu_vfio: building against $headers (takes ~30 s)" >&2
make -s -C "$headers" M="$src" -j"$(nproc)" CONFIG_VFIO_NOIOMMU=y KCFLAGS=-DCONFIG_VFIO_NOIOMMU \
  CONFIG_VFIO_MDEV= CONFIG_MLX5_VFIO_PCI= CONFIG_HISI_ACC_VFIO_PCI= CONFIG_VFIO_PLATFORM= modules >&2
rm -rf "$cache/modules"
mkdir -p "$cache/modules"
for f in vfio.ko vfio_virqfd.ko vfio_iommu_type1.ko pci/vfio-pci-core.ko pci/vfio-pci.ko; do
  cp "$src/$f" "$cache/modules/"
done
modinfo -p "$cache/modules/vfio.ko" | grep -q '^enable_unsafe_noiommu_mode:' || {
  echo "build_noiommu_vfio: vfio.ko has no enable_unsafe_noiommu_mode parameter" >&2
  exit 1
}
echo "enable_unsafe_noiommu_mode=1" > "$cache/modules/vfio.params"
# irqbypass is the kernel's own (unchanged); the load order is fetch_kernel.sh's.
cp "$kcache/modules/irqbypass.ko" "$cache/modules/"
cp "$kcache/modules/load-order" "$cache/modules/load-order"
echo "$image $version" > "$cache/version"
echo "$cache"
