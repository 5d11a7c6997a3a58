# Guest script of the vm_time_memmapped test (sourced by /init after vm/guest/lib.sh):
# time_memmapped on the edu's BAR 0 (QEMU's edu: 4- and 8-byte accesses) through the kernel's
# VFIO. Offset 0x80 is edu's DMA source address register: reading it and writing back what was
# read changes nothing (no DMA starts without a write to the command register at 0x98).
edu=0000:01:00.0
pdt_run time-memmapped-edu time_memmapped --device $edu --bar 0 --offset 0x80 --widths 4,8 --count 200 --write
pdt_run time-memmapped-edu-json time_memmapped --device $edu --bar 0 --offset 0x80 --widths 8 --count 20 --json
# Bad requests: refused before any access, exit status 1.
pdt_expect_fail time-memmapped-edu-width 1 time_memmapped --device $edu --bar 0 --offset 0x80 --widths 2
pdt_expect_fail time-memmapped-edu-past 1 time_memmapped --device $edu --bar 0 --offset 0x100000 --widths 4
pdt_expect_fail time-memmapped-edu-no-bar 1 time_memmapped --device $edu --bar 3 --widths 4
