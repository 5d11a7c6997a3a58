#!/usr/bin/env bash
# build_noiommu_vfio.sh for a guest kernel whose source package no archive has: exit status 3
# and "SKIP: ..." naming the packages and the kernel, nothing left in the cache folder.
# Usage: noiommu_source_missing_test.sh VM_DIR WORK_DIR
set -uo pipefail
vm=$1 work=$2
rm -rf "$work"
mkdir -p "$work/kernel"
echo "linux-image-6.1.0-999-amd64 6.1.999-9" > "$work/kernel/version"
out=$("$vm/build_noiommu_vfio.sh" "$work/kernel" "$work/cache" 2>&1)
rc=$?
echo "$out" | tail -n 5
fail() { echo "noiommu_source_missing: FAIL: $*"; exit 1; }
[ $rc = 3 ] || fail "exit status $rc, expected 3"
grep -qE '^SKIP: apt-get download linux-source-6.1=6.1.999-9 .* failed: the source or headers of the guest kernel linux-image-6.1.0-999-amd64 6.1.999-9 cannot be had' <<<"$out" ||
  fail "no SKIP line naming the package and the kernel"
[ ! -e "$work/cache/modules" ] || fail "modules left in the cache"
[ -z "$(find "$work/cache" -name '.build.*')" ] || fail "a build folder left behind"
echo "noiommu_source_missing: PASS: skipped with the reason"
