#!/usr/bin/env bash
# The GPU-labelled tests (ctest -L gpu) on a machine with an NVIDIA GPU but no build tools or
# packages (the lent H200):
#
#   scripts/device/gpu_tests.sh bundle [BUILD_DIR] [BUNDLE_DIR]   # here, after a build
#   scripts/device/gpu_tests.sh run    [BUNDLE_DIR] [OUT_DIR]     # there, in the checkout's root
#
# `bundle` copies the GPU test binaries, the tools they run as processes (without their debug
# information), and the shared libraries they load that are not glibc or the CUDA driver, with a
# manifest of where each binary lay (the tests name the tools by their build paths). A sanitized
# bundle is about 180 MB: compress it to carry it (zstd -19 brings it to about 30 MB). `run` puts every binary back at
# that path, points the source tree's path at this checkout where it differs (the tools read
# the design data from it), and runs each test binary; OUT_DIR gets one log per binary and
# summary.txt. Sanitized builds run with protect_shadow_gap=0 (the CUDA driver maps the shadow
# gap) and no leak check (the driver keeps its allocations to the end). Nothing here touches the
# GPU's config space; every test only copies and launches kernels. Exit 0 when every binary
# passed.
set -uo pipefail

tests="cuda_lie_gpu_test cuda_stream_test cuda_copy_endpoint_test"
tools="test_dma_bridge_parallel_streams test_dma_bridge_independent_streams pcie_link_measure"

bundle() {
    local build=${1:-build} dest=${2:-.devcarry/gpu}
    build=$(cd "$build" && pwd) || return 1
    rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib" || return 1
    : >"$dest/manifest"
    for t in $tests $tools; do
        local f
        # Not the copy cpack stages in _CPack_Packages: the tests name the build tree's paths.
        f=$(find "$build" -path '*/_CPack_Packages' -prune -o -name "$t" -type f -perm -u+x -print | head -1)
        [ -n "$f" ] || { echo "gpu_tests.sh: $t not found under $build (build it first)" >&2; return 1; }
        cp "$f" "$dest/bin/" && strip --strip-debug "$dest/bin/$t" && echo "$t $f" >>"$dest/manifest"
        ldd "$f" | awk '/=> \// { print $3 }' | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda)\.so' |
            while read -r lib; do cp -nL "$lib" "$dest/lib/"; done
    done
    echo "source $(cd "$(dirname "$0")/../.." && pwd)" >>"$dest/manifest"
    cp "$0" "$dest/"
    echo "bundle: $dest ($(du -sh "$dest" | cut -f1))"
}

run() {
    local bundle=${1:-.devcarry/gpu} out=${2:-gpu_tests.$(date +%Y%m%d-%H%M%S)}
    bundle=$(cd "$bundle" && pwd) || return 1
    mkdir -p "$out"
    local here source
    here=$(pwd)  # run from the checkout's root
    source=$(awk '$1 == "source" { print $2 }' "$bundle/manifest")
    if [ -n "$source" ] && [ ! -e "$source" ]; then
        mkdir -p "$(dirname "$source")" && ln -s "$here" "$source"
    fi
    while read -r name path; do
        [ "$name" = source ] && continue
        mkdir -p "$(dirname "$path")" && cp -f "$bundle/bin/$name" "$path"
    done <"$bundle/manifest"
    export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    local summary=$out/summary.txt status=0
    {
        echo "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores"
        command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv
    } | tee "$summary"
    for t in $tests; do
        local path rc
        path=$(awk -v t="$t" '$1 == t { print $2 }' "$bundle/manifest")
        "$path" >"$out/$t.txt" 2>&1
        rc=$?
        [ $rc -eq 0 ] || status=1
        echo "## $t: exit $rc" | tee -a "$summary"
        grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\]|^\[  FAILED  \]|^(pcie_link_measure|lying|latency)' "$out/$t.txt" |
            tee -a "$summary"
    done
    echo "gpu_tests.sh: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$summary"
    return $status
}

case ${1:-} in
    bundle) shift; bundle "$@" ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 bundle [BUILD_DIR] [BUNDLE_DIR] | run [BUNDLE_DIR] [OUT_DIR]" >&2; exit 2 ;;
esac
