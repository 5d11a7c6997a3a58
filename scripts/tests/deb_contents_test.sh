#!/usr/bin/env bash
# The .deb that cpack built holds what a user needs and depends on Debian's packages: each tool
# in /usr/bin with its man page and completion link, the design data, the documentation, no
# test program; Depends names libpci3, libpciaccess0 and libboost-program-options1.74.0.
# Usage: deb_contents_test.sh path/to/pcie-dma-toolkit_*.deb. Exit 0 pass, 1 fail, 2 usage.
set -uo pipefail
[ $# -eq 1 ] && [ -r "$1" ] || { echo "Usage: $0 path/to/pcie-dma-toolkit_*.deb" >&2; exit 2; }
deb=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ "$(dpkg-deb -f "$deb" Package)" = pcie-dma-toolkit ] || fail "Package is not pcie-dma-toolkit"
depends=$(dpkg-deb -f "$deb" Depends)
for package in libpci3 libpciaccess0 libboost-program-options1.74.0 libstdc++6; do
  grep -q "\b$package\b" <<<"$depends" || fail "Depends lacks $package: $depends"
done
[ -n "$(dpkg-deb -f "$deb" Section)" ] && [ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "no Section or Maintainer"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
tools=$(grep '^/usr/bin/.' <<<"$contents" | sed 's|^/usr/bin/||')
[ -n "$tools" ] || fail "no tool in /usr/bin"
for tool in $tools; do
  grep -qx "/usr/share/man/man1/$tool.1.gz" <<<"$contents" || fail "no man page for $tool"
  grep -qx "/usr/share/bash-completion/completions/$tool" <<<"$contents" || fail "no completion for $tool"
  case $tool in *_test* | *bench* | fuzz_*) fail "test program $tool installed" ;; esac
done
grep -q '^/usr/share/pcie-dma-toolkit/designs/.*\.json$' <<<"$contents" || fail "no design data"
grep -qx '/usr/share/doc/pcie-dma-toolkit/README.md' <<<"$contents" || fail "no README.md in the doc folder"
[ $failures -eq 0 ] && echo "PASS: $(basename "$deb"): $(wc -w <<<"$tools") tools with man pages and completion; Depends: $depends"
[ $failures -eq 0 ]
