# Guest script (vm/guest/lib.sh functions): the kernel VFIO backend and display_vfio_information
# against the edu devices bound to vfio-pci.
pdt_run kernel-backend vfio_kernel_guest_tests
pdt_run vfio-info display_vfio_information
pdt_run vfio-info-json display_vfio_information --json --device 0000:02:00.0
pdt_expect_fail vfio-info-no-device 1 display_vfio_information --vendor 10ee
pdt_expect_fail vfio-info-usage 2 display_vfio_information --vendor 10eex
