# Guest script of vm_nonroot_edu_stream (busybox sh, sourced by /init after vm/guest/lib.sh):
# F12's acceptance. vfio-setup binds the first edu device to vfio-pci and gives group pcie-dma
# read/write on its /dev/vfio/<N>; then a normal user, tester:
#   in the group, with RLIMIT_MEMLOCK set by root first: the edu stream test PASSes;
#   out of the group: the test fails (exit 1) naming the file, its group and the usermod command;
#   in the group with RLIMIT_MEMLOCK 0: the test fails naming the limit and `ulimit -l`.
bdf=$(pdt_devices 1234:11e8 | head -n 1)
echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd
echo 'tester:x:1000:1000:tester:/tmp:/bin/sh' >> /etc/passwd
in_group() { printf 'root:x:0:\ntester:x:1000:\npcie-dma:x:990:%s\n' "$1" > /etc/group; }
in_group tester
# /init bound every edu its own way: vfio-setup gives this one back, then binds it itself.
pdt_run vfio-setup-restore vfio-setup restore "$bdf"
pdt_run vfio-setup-bind vfio-setup bind "$bdf"
pdt_run ls-dev-vfio ls -ln /dev/vfio
# as_tester LIMIT_KIB CMD...: CMD run by tester, RLIMIT_MEMLOCK set by root first.
cat > /pdt/bin/as_tester <<'EOS'
#!/bin/sh
ulimit -l "$1" || exit 125
shift
# busybox su would take the command's options as its own: the command goes in -c whole
# (its words hold no spaces or quotes).
exec su -s /bin/sh tester -c "id; exec $*"
EOS
chmod 0755 /pdt/bin/as_tester
stream_test="/pdt/bin/edu_stream_vm_test --gtest_filter=EduStream.DriverVerifiesEveryByteThroughEdu"
pdt_run nonroot-status as_tester 65536 vfio-setup status "$bdf"
# shellcheck disable=SC2086 # $stream_test is a command line
pdt_run nonroot-in-group as_tester 65536 $stream_test
in_group ""
# shellcheck disable=SC2086
pdt_expect_fail nonroot-without-group 1 as_tester 65536 $stream_test
pdt_expect_fail nonroot-without-group-tool 1 as_tester 65536 display_vfio_information --device "$bdf"
in_group tester
# shellcheck disable=SC2086
pdt_expect_fail nonroot-memlock-zero 1 as_tester 0 $stream_test
pdt_run vfio-setup-restore-again vfio-setup restore "$bdf"
