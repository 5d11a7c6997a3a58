# Guest script of vm_harness_detects_qemu_abort: starts an edu DMA of exactly 4096 bytes with
# busybox devmem, which QEMU 7.2's edu answers with hw_error(): the whole QEMU process aborts.
bar=$(( $(cut -d' ' -f1 /sys/bus/pci/devices/0000:01:00.0/resource | head -n1) ))
pdt_info "edu BAR0 at $(printf 0x%x $bar): DMA edu -> RAM of 4096 bytes"
devmem $((bar + 0x80)) 32 0x40000
devmem $((bar + 0x88)) 32 0x1000
devmem $((bar + 0x90)) 32 4096
devmem $((bar + 0x98)) 32 3
sleep 5
pdt_pass qemu-still-running
