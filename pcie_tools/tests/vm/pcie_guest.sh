# Guest script of the pcie_tools_vm test (sourced after vm/guest/lib.sh; busybox sh, root).
# The guest (vm/boot_qemu.sh) has QEMU 7.2 pcie-root-ports rp1 (8 GT/s x4) and rp2 (5 GT/s x2)
# each carrying an edu (conventional PCI, no PCIe capability), an empty rp3 (2.5 GT/s x1), and,
# from this test's QEMU_ARGS, rp4 (8 GT/s x4) carrying an e1000e (a PCIe endpoint, 2.5 GT/s x1).
# dump_pci_info and pcie_set_speed run with the libpci backend on the guest's sysfs.

# Root ports and the devices below them, parents indented, through both OS backends.
pdt_capture dump-rootports.txt dump_pci_info 0000:00:01.0 0000:00:02.0 0000:00:03.0 0000:00:04.0
pdt_capture dump-edu.txt dump_pci_info 1234:11e8
pdt_capture dump-edu-pciaccess.txt dump_pci_info --access pciaccess 0000:01:00.0
# edu is bound to vfio-pci: its config through the VFIO config region, its port through libpci.
pdt_capture dump-edu-vfio.txt dump_pci_info --access vfio 0000:01:00.0
pdt_capture dump-e1000e.txt dump_pci_info 8086:10d3
pdt_capture dump-e1000e.json dump_pci_info --json 8086:10d3
# Fixtures for the host's lspci comparison test.
pdt_capture qemu_rootport_00_04_0.lspci lspci -xxxx -s 00:04.0
pdt_capture qemu_e1000e_04_00_0.lspci lspci -xxxx -s 04:00.0
pdt_capture lspci-vvv-rp4-e1000e.txt lspci -vvv -s 00:04.0
# rp4 runs at 2.5 GT/s x1 of its 8 GT/s x4 because the e1000e can do no more: that is no
# downgrade, so no reduced-bandwidth warning may appear (fpga_sio-style per-port checks warn).
pdt_run no-false-warning sh -c '! dump_pci_info 8086:10d3 | grep "reduced bandwidth"'

# pcie_set_speed on a QEMU root port: Link Control 2 is read-only in QEMU 7.2 and Retrain Link
# does nothing, so asking rp1 (8 GT/s) for 2.5 GT/s must report honestly that the target was
# not reached, with exit status 1.
pdt_expect_fail set-speed-rootport-not-reached 1 pcie_set_speed 0000:00:01.0 1
# Given the endpoint, it moves to the port above it.
pdt_expect_fail set-speed-e1000e-moves-to-port 1 pcie_set_speed 0000:04:00.0 3
# A speed the port does not have in Link Capabilities 2: refused before any write.
pdt_expect_fail set-speed-unsupported 1 pcie_set_speed 0000:00:03.0 2
pdt_expect_fail set-speed-usage 2 pcie_set_speed 0000:00:01.0 9
