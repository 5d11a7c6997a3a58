# Guest script of the vm_edu test (sourced by /init after vm/guest/lib.sh).
pdt_run edu-tests edu_vm_test
# The inverted expectation: without Bus Master the round trip must fail (exit status 1).
pdt_expect_fail edu-no-bus-master-round-trip-fails 1 \
  env PDT_EDU_SKIP_BUS_MASTER=1 edu_vm_test --gtest_filter=EduGuest.DmaRoundTripThroughIommu
pdt_capture dmesg-dmar sh -c 'dmesg | grep -i dmar | tail -n 20'
