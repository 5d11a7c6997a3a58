# Guest script of the vm_dma_experiments test (sourced by /init after vm/guest/lib.sh): fpga_sio's
# experiments on the real kernel, in one boot:
#  1. test_dma_descriptor_credits --reset_test on edu 01:00.0: its registers after open, after
#     writing, after VFIO_DEVICE_RESET;
#  2. test_dma_descriptor_credits --fork: what fork() does to pinned DMA buffers (heap, shared
#     memory, huge pages; with and without MADV_DONTFORK; each touch of the child; 0 and 1 of the
#     two mappings made before the fork), each transfer through edu 01:00.0; exit 1 where the
#     child's touch corrupted the transfer;
#  3. test_dma_descriptor_credits -o: IOVA offsets that provoke IOMMU faults;
#  4. memmapped_persistence on the memory BAR (BAR 2) of an ivshmem-plain device (QEMU_ARGS: a
#     1 MiB memory-backend-ram, behind a root port of its own so that a bus reset exists) bound to
#     vfio-pci here: kept in a new process and across VFIO_DEVICE_RESET.
edu=0000:01:00.0
pdt_info "kernel $(uname -r)"
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
echo 4 > /proc/sys/vm/nr_hugepages
pdt_info "huge pages reserved: $(cat /proc/sys/vm/nr_hugepages)"

pdt_info "reset methods of $edu: $(cat /sys/bus/pci/devices/$edu/reset_method 2>/dev/null || echo none)"
pdt_run credits-reset-edu test_dma_descriptor_credits --reset_test --device $edu

# pdt_fork NAME EXPECTED ARGS...: one fork run; EXPECTED 0 (verified) or 1 (corrupted).
pdt_fork() {
  local name=$1 want=$2
  shift 2
  if [ "$want" = 0 ]; then pdt_run "fork-$name" test_dma_descriptor_credits --device $edu "$@"
  else pdt_expect_fail "fork-$name" "$want" test_dma_descriptor_credits --device $edu "$@"
  fi
}
pdt_fork none 0 --fork none
for b in heap shared_memory huge_pages; do
  for t in no_dma_mapping_access read_dma_mapping write_dma_mapping toggle_dma_mapping; do
    want=0
    [ $b = shared_memory ] && { [ $t = write_dma_mapping ] || [ $t = toggle_dma_mapping ]; } && want=1
    pdt_fork "$b-$t" $want --fork $t --fork_buffers $b
    pdt_fork "$b-$t-dontfork" 0 --fork $t --fork_buffers $b --dontfork
  done
  pdt_fork "$b-toggle-1-mapping" $([ $b = shared_memory ] && echo 1 || echo 0) --fork toggle_dma_mapping --fork_buffers $b --fork_mappings 1
  pdt_fork "$b-toggle-0-mappings" 0 --fork toggle_dma_mapping --fork_buffers $b --fork_mappings 0
done

# -o: IOVA offsets. Past every mapping: the IOMMU blocks the read (or write), DMAR logs it, host
# memory outside the transfer stays; into the next mapping (the canary, 4 KiB after the
# destination): nothing stops it, the tool sees the canary changed and exits 1.
pdt_run iova-h2c-fault test_dma_descriptor_credits --device $edu -o 0,0x100000,0
pdt_run iova-c2h-fault test_dma_descriptor_credits --device $edu -o 0,0,0x100000
pdt_expect_fail iova-into-next-mapping 1 test_dma_descriptor_credits --device $edu -o 0,0,0x1000
pdt_info "DMAR faults: $(pdt_dmesg_grep 'DMAR.*fault addr' | wc -l)"
pdt_dmesg_grep 'DMAR.*fault addr' | head -4

# ivshmem-plain (1af4:1110): BAR 0 registers, BAR 2 the shared memory.
for bdf in $(pdt_devices 1af4:1110); do
  d=/sys/bus/pci/devices/$bdf
  echo vfio-pci > "$d/driver_override"
  [ -e "$d/driver" ] && echo "$bdf" > "$d/driver/unbind"
  echo "$bdf" > /sys/bus/pci/drivers_probe
  pdt_info "reset methods of $bdf: $(cat $d/reset_method 2>/dev/null || echo none)"
  pdt_info "ivshmem $bdf bound to $(basename "$(readlink "$d/driver")"), IOMMU group $(basename "$(readlink "$d/iommu_group")")"
  pdt_run persistence-ivshmem-write memmapped_persistence --device $bdf --bar 2 --offset 0 --size 64KiB --width 8 --key 5 --write
  pdt_run persistence-ivshmem-verify memmapped_persistence --device $bdf --bar 2 --offset 0 --size 64KiB --width 8 --key 5 --verify
  pdt_expect_fail persistence-ivshmem-other-key 1 memmapped_persistence --device $bdf --bar 2 --offset 0 --size 64KiB --width 8 --key 6 --verify
  pdt_run persistence-ivshmem-all memmapped_persistence --device $bdf --bar 2 --offset 0x1000 --size 4KiB --width 4 --key 9
  pdt_expect_fail persistence-ivshmem-past 1 memmapped_persistence --device $bdf --bar 2 --offset 0xff000 --size 8KiB
  pdt_expect_fail persistence-ivshmem-no-bar 1 memmapped_persistence --device $bdf --bar 3 --offset 0 --size 64
done
