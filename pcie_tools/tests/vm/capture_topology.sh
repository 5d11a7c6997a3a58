# Guest script (busybox sh, root; sourced after vm/guest/lib.sh): captures `lspci -xxxx` of
# every function of a topology with one of each kind of PCI function QEMU 7.2 offers, for the
# host's lspci comparison test (pcie_tools/tests/fixtures/qemu_topo_*.lspci). Run it with
# pcie_tools/tests/vm/capture_topology_run.sh, which gives QEMU the devices.
pdt_capture lspci-tv.txt lspci -tv
pdt_capture lspci-nn.txt lspci -nn
for bdf in $(lspci -n | cut -d' ' -f1); do
  name=$(echo "$bdf" | tr ':.' '__')
  pdt_capture "qemu_topo_$name.lspci" lspci -xxxx -s "$bdf"
done
