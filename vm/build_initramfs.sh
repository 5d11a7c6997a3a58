#!/usr/bin/env bash
# Builds a gzip'ed cpio initramfs for the QEMU guest:
#   busybox (static) and its applets, the VFIO modules, lspci with its libraries and pci.ids,
#   the given binaries (in /pdt/bin, on PATH) with every shared library ldd lists plus the
#   dynamic loader, the guest helper library /pdt/lib.sh, /init and the guest test script.
#   --udev adds Debian's udev (package udev): udevadm as /bin/udevadm, systemd-udevd beside it
#   as the package links it (/lib/systemd/systemd-udevd), their libraries and the package's
#   rules in /lib/udev/rules.d; the guest script starts udevd itself (vm/guest/lib.sh).
#   --strip drops the binaries' debug sections (a guest with little RAM: vm_noiommu's 384 MiB).
# Usage: build_initramfs.sh --out FILE --kernel-cache DIR --script GUEST_SH [--bin FILE]...
#                           [--file SRC:DEST]... [--udev] [--strip]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="" kcache="" script="" udev=no strip=no
bins=() files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --kernel-cache) kcache=$2; shift 2 ;;
    --script) script=$2; shift 2 ;;
    --bin) bins+=("$2"); shift 2 ;;
    --file) files+=("$2"); shift 2 ;;
    --udev) udev=yes; shift ;;
    --strip) strip=yes; shift ;;
    *) echo "build_initramfs: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && [ -n "$kcache" ] && [ -n "$script" ] || {
  echo "usage: build_initramfs.sh --out FILE --kernel-cache DIR --script GUEST_SH [--bin FILE]... [--file SRC:DEST]... [--udev]" >&2
  exit 2
}
# --udev: Debian's udev as installed (PDT_UDEVADM and PDT_UDEV_RULES_DIR name others: tests).
udevadm=${PDT_UDEVADM:-$(command -v udevadm || echo /usr/bin/udevadm)}
udev_rules=${PDT_UDEV_RULES_DIR:-/lib/udev/rules.d}
if [ $udev = yes ] && { [ ! -x "$udevadm" ] || [ ! -d "$udev_rules" ]; }; then
  echo "build_initramfs: --udev: no $udevadm or no $udev_rules: install Debian's udev (apt-get install udev; scripts/install_deps.sh does)" >&2
  exit 1
fi
busybox=$(command -v busybox) || { echo "build_initramfs: busybox not found (apt-get install busybox-static)" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then
  echo "build_initramfs: $busybox is dynamically linked; install busybox-static" >&2
  exit 1
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/pdt-initramfs.XXXXXX")
chmod 0755 "$root"  # the guest's /: mktemp made it 0700, which locks out a non-root guest user
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,etc,pdt/bin,pdt/modules,usr/share/misc}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# Copies a file with its shared libraries (and the loader) to the same paths in the root.
copy_libs() {
  local lib
  for lib in $(ldd "$1" 2>/dev/null | awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(/ {print $1}'); do
    if [ ! -e "$root$lib" ]; then
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    fi
  done
}

for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "build_initramfs: binary $b missing or not executable" >&2; exit 1; }
  cp "$b" "$root/pdt/bin/"
  [ $strip = yes ] && strip --strip-debug "$root/pdt/bin/$(basename "$b")"
  copy_libs "$b"
done
if lspci=$(command -v lspci); then
  cp "$lspci" "$root/pdt/bin/lspci"
  copy_libs "$lspci"
  [ -f /usr/share/misc/pci.ids ] && cp /usr/share/misc/pci.ids "$root/usr/share/misc/"
fi
if [ $udev = yes ]; then
  mkdir -p "$root/lib/systemd" "$root/lib/udev/rules.d" "$root/etc/udev/rules.d" "$root/run/udev"
  cp -L "$udevadm" "$root/bin/udevadm"
  copy_libs "$udevadm"
  ln -s /bin/udevadm "$root/lib/systemd/systemd-udevd"
  cp "$udev_rules"/*.rules "$root/lib/udev/rules.d/"
  # glibc's own "files" sources: the guest script writes /etc/passwd and /etc/group.
  printf 'passwd: files\ngroup: files\n' > "$root/etc/nsswitch.conf"
fi
for f in "${files[@]}"; do
  src=${f%%:*} dest=${f#*:}
  mkdir -p "$root$(dirname "$dest")"
  cp -L "$src" "$root$dest"
done

cp "$kcache"/modules/*.ko "$kcache/modules/load-order" "$root/pdt/modules/"
# Module parameters (<module>.params, one line), as the no-IOMMU build gives vfio's.
cp "$kcache"/modules/*.params "$root/pdt/modules/" 2>/dev/null || true
cp "$here/guest/init" "$root/init"
cp "$here/guest/lib.sh" "$root/pdt/lib.sh"
cp "$script" "$root/pdt/test.sh"
chmod +x "$root/init" "$root/pdt/test.sh"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
