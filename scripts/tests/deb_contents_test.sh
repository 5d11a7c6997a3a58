#!/usr/bin/env bash
# The .deb that cpack built holds what a user needs and depends on Debian's packages: each tool
# in /usr/bin with its man page and completion link, fpga_sio's names of the tools as symbolic
# links to them (each with its man page and completion link too), the design data, the
# documentation, no test program; Depends names libpci3, libpciaccess0 and
# libboost-program-options1.74.0.
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
# fpga_sio's names (pdt_add_tool_aliases in the tree): each /usr/bin/<name> -> <tool>.
links=$(dpkg-deb -c "$deb" | awk '$1 ~ /^l/ && $6 ~ /^\.\/usr\/bin\// {sub(/^\.\/usr\/bin\//, "", $6); print $6 " " $8}')
for pair in dump_pci_info_pciutils:dump_pci_info dump_pci_info_libpciaccess:dump_pci_info dump_pci_info_vfio:dump_pci_info \
            pcie_set_speed_pciutils:pcie_set_speed pcie_set_speed_libpciaccess:pcie_set_speed \
            pcie_set_speed_vfio:pcie_set_speed display_physical_slots_pciutils:display_physical_slots \
            display_physical_slots_libpciaccess:display_physical_slots display_physical_slots_vfio:display_physical_slots \
            memmapped_persistence_vfio:memmapped_persistence test_dma_bridge_memory_addressing:test_dma_bridge; do
  name=${pair%%:*} tool=${pair##*:}
  grep -qx "$name $tool" <<<"$links" || fail "/usr/bin/$name is not a symbolic link to $tool"
  grep -qx "$tool" <<<"$tools" || fail "no /usr/bin/$tool, the tool $name names"
done
grep -q '^/usr/share/pcie-dma-toolkit/designs/.*\.json$' <<<"$contents" || fail "no design data"
grep -qx '/usr/share/doc/pcie-dma-toolkit/README.md' <<<"$contents" || fail "no README.md in the doc folder"
[ $failures -eq 0 ] && echo "PASS: $(basename "$deb"): $(wc -w <<<"$tools") tools and names with man pages and completion; Depends: $depends"
[ $failures -eq 0 ]
