# Guest script of vm_noiommu (busybox sh, sourced by /init after vm/guest/lib.sh): a guest
# WITHOUT a virtual IOMMU, vfio built with CONFIG_VFIO_NOIOMMU and loaded with
# enable_unsafe_noiommu_mode=1, both edu bound to vfio-pci in no-IOMMU groups
# (/dev/vfio/noiommu-N). 384 MiB of RAM (the DMA buffers' huge pages taken below edu's 28-bit DMA mask); 16 huge
# pages of 2 MiB reserved on the kernel command line. One boot for every run:
#   the refusals without --no_iommu (exit 1, naming the option), the missing hugetlbfs, no free
#   huge pages; then, hugetlbfs mounted, the edu stream test and pcie_link_measure --endpoint edu
#   with --no_iommu, every byte verified.
edu=$(pdt_devices 1234:11e8 | head -n 1)
pdt_info "VFIO groups: $(ls /dev/vfio | tr '\n' ' ')"
pdt_info "$(grep -E '^(MemTotal|MemAvailable|HugePages_Total|HugePages_Free)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
# stream, measure [ARGS...]: the edu stream test's verified round trips, and two latency samples
# of pcie_link_measure (commands, so that pdt_run's timeout can run them).
printf '#!/bin/sh\nexec edu_stream_vm_test --gtest_filter=EduStream.DriverVerifiesEveryByteThroughEdu "$@"\n' > /pdt/bin/stream
printf '#!/bin/sh\nexec pcie_link_measure latency --endpoint edu --device %s --latency_bytes 4095 --samples 2 "$@"\n' "$edu" > /pdt/bin/measure
chmod +x /pdt/bin/stream /pdt/bin/measure

pdt_expect_fail noiommu-stream-refused-without-option 1 stream
pdt_expect_fail noiommu-measure-refused-without-option 1 measure
pdt_expect_fail noiommu-no-hugetlbfs 1 stream --no_iommu

mkdir -p /dev/hugepages
mount -t hugetlbfs nodev /dev/hugepages
pages=$(cat /proc/sys/vm/nr_hugepages)
echo 0 > /proc/sys/vm/nr_hugepages
pdt_expect_fail noiommu-no-free-huge-pages 1 stream --no_iommu
echo "$pages" > /proc/sys/vm/nr_hugepages
pdt_info "huge pages reserved again: $(cat /proc/sys/vm/nr_hugepages)"

pdt_run noiommu-edu-stream edu_stream_vm_test --no_iommu
pdt_run noiommu-edu-measure measure --no_iommu
pdt_run noiommu-edu-measure-json sh -c "measure --no_iommu --json 2>/dev/null | grep '\"dma_addressing\"'"
