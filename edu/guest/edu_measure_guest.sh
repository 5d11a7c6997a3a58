# Guest script of the vm_edu_measure test (sourced by /init after vm/guest/lib.sh): the link
# measurement tool on the edu at 0000:01:00.0 (--endpoint edu), through the kernel's VFIO. edu
# moves at most 4095 bytes a copy, one at a time, ~100 ms after each command (its timer), so
# each run is a few dozen copies. stderr goes to a file (no progress lines on the console).
edu=0000:01:00.0
measure() {
  name=$1
  shift
  pdt_run "$name" sh -c "pcie_link_measure $* 2>$PDT_STATE/measure.err; rc=\$?; cat $PDT_STATE/measure.err; exit \$rc"
}
# The largest copy edu can make, timed issue to completion: each sample is one edu transfer.
measure edu-measure-latency latency --endpoint edu --device $edu --latency_bytes 4095 --samples 3 --output /tmp/latency
pdt_file edu_latency_samples.csv /tmp/latency/latency_samples.csv
# The default 4 KiB does not fit edu's window: clamped to 4095 bytes, and said so.
measure edu-measure-latency-clamped latency --endpoint edu --device $edu --samples 2 --max_gap_us 100
# A tiny sweep: 1 and 2 KiB measured, 4 KiB left out with its reason.
measure edu-measure-sweep sweep --endpoint edu --device $edu --min_bytes 1KiB --max_bytes 4KiB --repeats 1 --iterations 2
# F21: a transfer timeout (10 ms) shorter than edu's DMA (~100 ms): the run fails naming the
# timeout, its buffers stay mapped until the DMA ended (the engine's claim on the DMA fence), and
# no DMA reaches an unmapped IOVA: the guest kernel logs no DMAR fault.
pdt_expect_fail edu-measure-timeout 1 sh -c "pcie_link_measure latency --endpoint edu --device $edu --latency_bytes 4095 --samples 1 --transfer_timeout 0.01 >$PDT_STATE/timeout.out 2>&1; rc=\$?; cat $PDT_STATE/timeout.out; exit \$rc"
# ... and says what it kept mapped, and until when.
if grep -q 'DMA buffer(s) released while it could still write were kept mapped until it was seen stopped' "$PDT_STATE/timeout.out"; then
  pdt_pass edu-kept-mapped-said
else
  pdt_fail edu-kept-mapped-said "the tool did not say which buffers it kept mapped"
fi
sleep 0.3
if pdt_dmesg_grep 'DMAR: (\[DMA|DRHD: handling fault)'; then
  pdt_fail edu-no-dmar-fault "the guest kernel logged a DMAR fault"
else
  pdt_pass edu-no-dmar-fault
fi
