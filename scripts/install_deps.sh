#!/usr/bin/env bash
# Installs the Debian 12 packages the toolkit builds, tests and runs with.
#   scripts/install_deps.sh         everything: build, tests, fuzzing, packaging (scripts/test.sh)
#   scripts/install_deps.sh build   only what configuring, building and running the tools needs
#                                   (scripts/demo.sh): no QEMU, Chromium, Prometheus or clang
set -euo pipefail
scope=${1:-all}
case "$scope" in
  all | build) ;;
  *) echo "usage: scripts/install_deps.sh [build]" >&2; exit 2 ;;
esac
packages=(
  build-essential cmake pkg-config
  lld                            # the linker of the build (CMake option PDT_LLD): links the ~110 ASan executables 3x faster than GNU ld
  libpci-dev libpciaccess-dev libboost-program-options-dev
  libgtest-dev                   # GoogleTest: CMake's configure step requires it (the tests are part of the tree)
  nlohmann-json3-dev             # design descriptions (designs/data/*.json) and --json output
)
[ "$scope" = build ] || packages+=(
  libbenchmark-dev               # the descriptor benchmark (dma_bridge/bench)
  pciutils                       # lspci: the reference our config-space decoder is compared with
  clang libclang-rt-dev          # libFuzzer targets (fuzz/, scripts/fuzz.sh): clang 14 and its compiler-rt (libFuzzer, ASan, UBSan)
  qemu-system-x86 busybox-static cpio kmod zstd   # the QEMU guest that tests real kernel VFIO
  udev                           # systemd-udevd and udevadm copied into the QEMU guest: vm_nonroot_edu_stream proves our udev rule
  python3                        # scripts/soak.sh (standard library only)
  shellcheck                     # lints scripts/vfio-setup and its tests (ctest vfio_setup_shellcheck)
  help2man man-db               # man pages generated from each tool's --help (packaging/man), and man to check them
  file                           # cpack -G DEB: dpkg-shlibdeps' Depends need file(1) to find the ELF files
  debootstrap                    # scripts/test_deb.sh: the .deb installed on a clean Debian 12 root
  gnuplot-nox                    # pcie_link_report: the SVG plots of the link report
  chromium                       # the test that renders the link report in headless Chromium
  prometheus prometheus-node-exporter prometheus-pushgateway   # monitoring/: promtool checks the alert rules; the fleet test runs all three on loopback ports
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "All packages present."
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "Installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
