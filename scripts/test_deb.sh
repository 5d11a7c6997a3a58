#!/usr/bin/env bash
# Acceptance of the .deb (issue 15): makes a clean Debian 12 root (debootstrap --variant=minbase
# bookworm, from the Debian mirror apt uses here), installs the package in it with apt (so its
# dependencies come from Debian), then inside the root: man test_dma_bridge_parallel_streams,
# the README's demo on simulated designs from the installed tools, and the installed bash
# completion of --sim_design. Needs root (debootstrap, chroot, mount) and the network.
# Usage: scripts/test_deb.sh [path/to/pcie-dma-toolkit_*.deb] [--keep]
#   default package: the newest build*/pcie-dma-toolkit_*.deb (cpack -G DEB in a build folder)
#   --keep leaves the root in place (its path is printed). PDT_DEBOOTSTRAP_CACHE: the .deb cache
#   of debootstrap (default ~/.cache/pcie-dma-toolkit/debootstrap), so a second run downloads less.
# Exit status: 0 every step passed, 1 a step failed, 2 usage error (or not root).
set -euo pipefail
cd "$(dirname "$0")/.."
deb="" keep=0
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "test_deb.sh: unknown option $arg" >&2; exit 2 ;;
    *) deb=$arg ;;
  esac
done
if [ -z "$deb" ]; then
  deb=$(ls -t build*/pcie-dma-toolkit_*.deb 2>/dev/null | head -n 1 || true)
  [ -n "$deb" ] || { echo "test_deb.sh: no build*/pcie-dma-toolkit_*.deb: run cpack -G DEB in a build folder" >&2; exit 2; }
fi
[ -r "$deb" ] || { echo "test_deb.sh: $deb: cannot read" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "test_deb.sh: needs root (debootstrap, chroot, mount): sudo $0 $*" >&2; exit 2; }
command -v debootstrap > /dev/null || { echo "test_deb.sh: debootstrap missing: scripts/install_deps.sh" >&2; exit 2; }

# The mirror apt uses here (deb822 .sources or one-line sources.list), else Debian's.
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/\{0,1\}$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\+\(http[^[:space:]]*\/debian\)\/\{0,1\}[[:space:]]\+bookworm[[:space:]].*/\1/p' \
                              /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
cache=${PDT_DEBOOTSTRAP_CACHE:-$HOME/.cache/pcie-dma-toolkit/debootstrap}
mkdir -p "$cache"
root=$(mktemp -d "${TMPDIR:-/tmp}/pdt-debian12.XXXXXX")
cleanup() {
  umount "$root/proc" 2> /dev/null || true
  if [ $keep -eq 1 ]; then echo "Root kept: $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT
start=$SECONDS
step() { echo; echo "=== $* ($((SECONDS - start)) s)"; }

step "debootstrap --variant=minbase bookworm $root $mirror"
debootstrap --variant=minbase --cache-dir="$cache" bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
  { tail -n 20 "$root.debootstrap.log"; echo "FAIL: debootstrap (log $root.debootstrap.log)"; exit 1; }
rm -f "$root.debootstrap.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

step "apt-get install ./$(basename "$deb") (its dependencies from $mirror)"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq
before=$(in_root dpkg-query -W -f='${Package}\n' | sort)
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "/tmp/$(basename "$deb")" man-db bash-completion > "$root/tmp/apt.log" 2>&1 ||
  { tail -n 30 "$root/tmp/apt.log"; echo "FAIL: apt-get install"; exit 1; }
after=$(in_root dpkg-query -W -f='${Package}\n' | sort)
echo "Depends: $(in_root dpkg-query -W -f='${Depends}' pcie-dma-toolkit)"
echo "Installed with it: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
echo "Tools: $(in_root dpkg -L pcie-dma-toolkit | grep -c '^/usr/bin/.') in /usr/bin," \
     "$(in_root dpkg -L pcie-dma-toolkit | grep -c '^/usr/share/man/man1/.') man pages," \
     "$(in_root dpkg -L pcie-dma-toolkit | grep -c '^/usr/share/pcie-dma-toolkit/designs/.') design files"
for rule in "$root"/usr/lib/udev/rules.d/*pcie-dma-toolkit*.rules; do
  [ -e "$rule" ] || continue
  group=$(grep -o 'GROUP="[^"]*"' "$rule" | head -n 1 | cut -d'"' -f2)
  [ -z "$group" ] || in_root getent group "$group" > /dev/null ||
    { echo "FAIL: the postinst did not create the group $group of ${rule##*/}"; exit 1; }
  echo "udev rule ${rule##*/}: group $group exists ($(in_root getent group "$group"))"
done

step "man test_dma_bridge_parallel_streams | head -n 20"
page=$(in_root env MANWIDTH=100 man test_dma_bridge_parallel_streams 2>&1) || { echo "$page"; echo "FAIL: man"; exit 1; }
head -n 20 <<< "$page"
grep -q "EXIT STATUS" <<< "$page" || { echo "FAIL: the man page has no EXIT STATUS"; exit 1; }

step "the demo, from the installed tools (scripts/demo.sh's command, --duration 5)"
set +e
in_root test_dma_bridge_parallel_streams --sim_design TEF1001_dma_stream_loopback \
  --sim_design XCKU5P_DUAL_QSFP_dma_stream_loopback --sim_design NiteFury_dma_stream_loopback \
  --stream_mapping_size 0x1000000 --duration 5 | tee "$root/tmp/demo.log"
status=${PIPESTATUS[0]}
set -e
echo "exit status $status"
[ "$status" -eq 0 ] && grep -q "Overall PASS" "$root/tmp/demo.log" || { echo "FAIL: the demo"; exit 1; }

step "bash completion: test_dma_bridge_parallel_streams --sim_design NiteFury_dma_stream_<Tab>"
names=$(in_root bash -c 'source /usr/share/bash-completion/completions/test_dma_bridge_parallel_streams
  COMP_WORDS=(test_dma_bridge_parallel_streams --sim_design NiteFury_dma_stream_); COMP_CWORD=2
  _pcie_dma_toolkit test_dma_bridge_parallel_streams; echo "${COMPREPLY[*]}"')
echo "$names"
[ -n "$names" ] || { echo "FAIL: no design name completed"; exit 1; }

step "PASS: installed and ran on a clean Debian 12"
