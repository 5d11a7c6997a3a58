# Guest script of vm_nonroot_edu_stream (busybox sh, sourced by /init after vm/guest/lib.sh):
# F12's acceptance, with Debian's udevd (systemd-udevd 252) applying our udev rule.
#   Without udev, vfio-setup binds the first edu device and gives group pcie-dma read/write on
#   its /dev/vfio/<N> itself. Then udevd starts with Debian's rules and ours, installed where the
#   .deb puts it (/usr/lib/udev/rules.d), vfio-setup binds again and finds the rule's work done.
#   The rule alone: the node made root-only again gets group pcie-dma and mode 0660 back on
#   `udevadm trigger`; with the rule taken away, or the group unknown when udevd read the rules,
#   the same trigger leaves it root-only.
#   Then a normal user, tester, on the node udev set up:
#   in the group, with RLIMIT_MEMLOCK set by root first: the edu stream test PASSes;
#   out of the group: the test fails (exit 1) naming the file, its group and the usermod command;
#   in the group with RLIMIT_MEMLOCK 0: the test fails naming the limit and `ulimit -l`.
bdf=$(pdt_devices 1234:11e8 | head -n 1)
node=/dev/vfio/$(basename "$(readlink "/sys/bus/pci/devices/$bdf/iommu_group")")
rule=/usr/lib/udev/rules.d/70-pcie-dma-toolkit-vfio.rules
# udevd resolves the rule's GROUP name when it reads the rules: the group exists before it starts
# (the .deb's postinst creates it, then reloads the rules).
echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd
echo 'tester:x:1000:1000:tester:/tmp:/bin/sh' >> /etc/passwd
in_group() { printf 'root:x:0:\ntester:x:1000:\npcie-dma:x:990:%s\n' "$1" > /etc/group; }
in_group tester
# node_is NAME WANT: PASS when the node's "owner group mode" is WANT.
node_is() {
  node_now=$(stat -c '%U %G %a' "$node")
  if [ "$node_now" = "$2" ]; then pdt_pass "$1"; else pdt_fail "$1" "$node is '$node_now', not '$2'"; fi
}
# node_settles NAME WANT: as node_is, once udevd has taken a rules reload: `udevadm control
# --reload` returns before udevd reads the rules again, so on a loaded host the first trigger
# after it may still meet the old rules; up to 4 more triggers, a second apart.
node_settles() {
  tries=1
  while [ "$(stat -c '%U %G %a' "$node")" != "$2" ] && [ $tries -lt 5 ]; do
    sleep 1
    /pdt/bin/retrigger
    tries=$((tries + 1))
  done
  node_is "$1" "$2"
}
# retrigger: the node root-only again, then an add event for it through udevd.
cat > /pdt/bin/retrigger <<EOS
#!/bin/sh
chgrp root "$node" && chmod 0600 "$node" &&
  udevadm trigger --action=add --subsystem-match=vfio && udevadm settle --timeout=30
EOS
chmod 0755 /pdt/bin/retrigger

# /init bound every edu its own way: vfio-setup gives this one back, then binds it itself.
pdt_run vfio-setup-restore vfio-setup restore "$bdf"
pdt_run vfio-setup-bind-without-udev vfio-setup bind "$bdf"
pdt_run vfio-setup-restore-without-udev vfio-setup restore "$bdf"

pdt_start_udevd
pdt_run vfio-setup-bind vfio-setup bind "$bdf"
pdt_run ls-dev-vfio ls -ln /dev/vfio
node_is udev-bind-gives-access "root pcie-dma 660"
pdt_run udev-retrigger retrigger
node_is udev-rule-gives-access "root pcie-dma 660"
mv "$rule" /tmp/rule.off && udevadm control --reload
pdt_run udev-retrigger-without-rule retrigger
node_settles udev-without-rule-root-only "root root 600"
mv /tmp/rule.off "$rule" && udevadm control --reload
pdt_run udev-retrigger-with-rule retrigger
node_settles udev-rule-again "root pcie-dma 660"
# udevd looks the rule's group up when it starts and reads the rules: started with no group
# pcie-dma, it drops the rule's GROUP and the node stays root's. Reloading the rules once the
# group exists does not help while the rule files are unchanged; a restart of udevd does.
pdt_run udevd-exit udevadm control --exit
printf 'root:x:0:\ntester:x:1000:\n' > /etc/group
pdt_start_udevd udevd-start-without-group
pdt_run udev-retrigger-without-group retrigger
node_is udev-unknown-group-root-only "root root 660"
in_group tester
pdt_run udev-reload udevadm control --reload
pdt_run udev-retrigger-after-reload retrigger
node_is udev-reload-keeps-root-only "root root 660"
pdt_run udevd-exit-again udevadm control --exit
pdt_start_udevd udevd-start-with-group
pdt_run udev-retrigger-group-again retrigger
node_is udev-group-again "root pcie-dma 660"

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
