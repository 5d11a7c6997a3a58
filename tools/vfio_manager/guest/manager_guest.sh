# Guest script of the vm_vfio_manager test (sourced by /init after vm/guest/lib.sh): the VFIO
# manager on the first edu device, its clients, a killed client, a garbage message, a foreign
# uid, and seed 004's sequence (a setting kept across tools while dump_pci_info reads config).
EDU=0000:01:00.0
MLOG=/tmp/manager.log

# Waits up to $2 seconds for file $1.
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt $(( $2 * 10 )) ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

pdt_run manager-start sh -c "vfio_multi_process_manager --daemon --device $EDU > $MLOG 2>&1"
cat $MLOG

# Two clients share edu at once, each with its own IOVA and its own half of edu's buffer.
manager_vm_client dma $EDU A B 40 0 > /tmp/a.out 2>&1 &
pa=$!
manager_vm_client dma $EDU B A 40 2048 > /tmp/b.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
cat /tmp/a.out /tmp/b.out
if [ $ra = 0 ] && [ $rb = 0 ]; then pdt_pass two-clients-share-edu; else pdt_fail two-clients-share-edu "exit statuses $ra and $rb"; fi
sleep 0.5
pdt_run status-after-two-clients manager_vm_client status clients=0 iova_regions=0 quarantined_regions=0

# A client killed mid-DMA: its IOVA is quarantined while another client (H) uses the
# container, never handed out again; once the container is free it is recycled.
manager_vm_client hold $EDU H > /tmp/h.out 2>&1 &
ph=$!
manager_vm_client dma $EDU K - 0 0 > /tmp/k.out 2>&1 &
pk=$!
if wait_file /tmp/pdt-ready-K 120; then pdt_pass killed-client-running; else pdt_fail killed-client-running "client K never completed a round trip"; fi
sleep 0.5
kill -9 $pk
wait $pk
cat /tmp/k.out
sleep 1
pdt_run status-after-kill manager_vm_client status quarantined_regions=1 containers_recycled=0
pdt_run client-beside-quarantine manager_vm_client dma $EDU C K 10 0
touch /tmp/pdt-release-H
wait $ph
cat /tmp/h.out
sleep 1
pdt_run status-after-recycle manager_vm_client status clients=0 containers_recycled=1 quarantined_regions=0 iova_regions=0
pdt_run new-client-after-recycle manager_vm_client dma $EDU D - 10 0

pdt_run garbage-message manager_vm_client garbage
# The initramfs root is mktemp's 0700: open it so that only the manager's own checks stand.
chmod 755 /
pdt_run foreign-uid-refused manager_vm_client foreign-uid

# Seed 004: set something, run other tools, find it unchanged (the manager keeps edu open).
# dump_pci_info opens the second edu too, which the manager does not manage: directly.
pdt_run set-bus-master manager_vm_client set-master $EDU
pdt_run dump-pci-info-through-manager sh -c \
  "dump_pci_info --access vfio $EDU > /tmp/dump.out 2>&1; rc=\$?; cat /tmp/dump.out; [ \$rc = 0 ] && grep -m1 'control:' /tmp/dump.out | grep -q 'BusMaster+'"
pdt_run bus-master-kept manager_vm_client check-master $EDU set
pdt_run display-vfio-through-manager sh -c \
  "display_vfio_information --device $EDU > /tmp/dvi.out 2>&1; rc=\$?; cat /tmp/dvi.out; [ \$rc = 0 ] && grep -q 'IOMMU type set to .*TYPE1' /tmp/dvi.out && grep -q 'IOVA supported page sizes' /tmp/dvi.out"

kill -INT "$(pidof vfio_multi_process_manager)"
i=0; while pidof vfio_multi_process_manager > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if pidof vfio_multi_process_manager > /dev/null; then pdt_fail manager-stop "still running 10 s after SIGINT"; else pdt_pass manager-stop; fi
pdt_file manager-log $MLOG

# Without the manager, VFIO clears Bus Master when the last user closes the device: the
# check above can fail.
pdt_run set-bus-master-directly manager_vm_client set-master $EDU
pdt_expect_fail master-lost-without-manager 1 manager_vm_client check-master $EDU set

# vfio_access_keep_open holds a device until a signal (stdin at end of file: no Enter).
vfio_access_keep_open 0000:02:00.0 < /dev/null > /tmp/keep.out 2>&1 &
pko=$!
i=0; while ! grep -q "Press Enter" /tmp/keep.out && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
pdt_expect_fail keep-open-holds-the-group 1 manager_vm_client check-master 0000:02:00.0 set
kill -INT $pko
wait $pko
rko=$?
cat /tmp/keep.out
if [ $rko = 0 ]; then pdt_pass keep-open-released; else pdt_fail keep-open-released "exit status $rko"; fi

# --isolate_iommu_groups: one container per group; --once: gone when its only client leaves.
vfio_multi_process_manager --isolate_iommu_groups --once > /tmp/manager2.log 2>&1 &
pm=$!
wait_file /run/pcie-dma-toolkit/vfio_manager.sock 60
pdt_run isolated-second-edu manager_vm_client dma 0000:02:00.0 E - 5 0
i=0; while kill -0 $pm 2> /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
wait $pm
rm=$?
cat /tmp/manager2.log
if [ $rm = 0 ]; then pdt_pass once-manager-exits; else pdt_fail once-manager-exits "exit status $rm"; fi

# Without a manager: KernelOptions::isolate_iommu_groups (the DMA tools' --isolate_iommu_groups).
pdt_run direct-shared-container manager_vm_client containers $EDU 0000:02:00.0 shared
pdt_run direct-isolated-containers manager_vm_client containers $EDU 0000:02:00.0 isolated
