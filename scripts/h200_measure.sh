#!/usr/bin/env bash
# The link measurement suite (F10) on an NVIDIA GPU: what the lead runs on the lent H200.
#
#   scripts/h200_measure.sh bundle [BUILD_DIR] [BUNDLE_DIR]   # here: binaries + their libraries
#   scripts/h200_measure.sh run    [BIN_DIR]   [OUT_DIR]      # there: the measurements
#
# The device machine has no package registry: `bundle` copies pcie_link_measure (which records
# the dump_pci_info text itself), cuda_copy_latency and cuda_copy_endpoint_test with the shared libraries they
# load that are not in glibc (libpci, Boost, ...) into BUNDLE_DIR (bin/, lib/, this script), to
# carry. `run` then, with LD_LIBRARY_PATH=BIN_DIR/../lib:
#   1. cuda_copy_endpoint_test (the adapter's GPU tests)
#   2. sweep: 4 KiB..256 MiB, both directions, direct and staged, 5 repeats; timed: F10 asks
#      for under 60 s
#   3. latency: 4 KiB from issue to completion (pcie_link_measure latency: percentiles and the raw
#      samples), and cuda_copy_latency: the same copies against a bare cudaMemcpyAsync +
#      cudaStreamSynchronize loop in one process (F10: medians within 1 us)
#   4. inflight, bidir, launch
# Each step writes its result.json (and latency_samples.csv) under OUT_DIR/<step>/, its text to
# OUT_DIR/<step>.txt; summary.txt collects the verdicts and figures; OUT_DIR.tar.gz at the end.
# A step that fails is reported "FAILED (exit N)", with no timing; `run` then exits 1 and its
# last line names every failed step ("FAILED steps: sweep (exit 1) ...").
# Nothing here writes the GPU's config space: dump_pci_info and LnkSta are read through libpci.
# Environment: GPU (CUDA ordinal, default 0), REPEATS (default 5), EXTRA (more options for every
# pcie_link_measure run, e.g. "--cuda_queues 2").
set -uo pipefail

bundle() {
    local build=${1:-build} dest=${2:-build/h200-bundle}
    local tools="pcie_link_measure cuda_copy_latency cuda_copy_endpoint_test"
    mkdir -p "$dest/bin" "$dest/lib"
    for t in $tools; do
        local f
        f=$(find "$build" -name "$t" -type f -perm -u+x | head -1)
        [ -n "$f" ] || { echo "h200_measure.sh: $t not found under $build (build it first)" >&2; return 1; }
        cp "$f" "$dest/bin/"
        # Shared libraries outside glibc and the CUDA driver (which the GPU machine has).
        ldd "$f" | awk '/=> \// { print $3 }' | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda)\.so' |
            while read -r lib; do cp -nL "$lib" "$dest/lib/"; done
    done
    cp "$0" "$dest/"
    echo "bundle: $dest ($(du -sh "$dest" | cut -f1)); on the GPU machine:"
    echo "  LD_LIBRARY_PATH=\$PWD/lib bash ./$(basename "$0") run bin \$OUT/h200_measure"
}

run() {
    local bin=${1:-build} out=${2:-h200_measure.$(date +%Y%m%d-%H%M%S)}
    mkdir -p "$out"
    local gpu=${GPU:-0} repeats=${REPEATS:-5} extra=${EXTRA:-}
    find_bin() { local f; f=$(find "$bin" -name "$1" -type f -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
    local measure latency unit
    measure=$(find_bin pcie_link_measure)
    latency=$(find_bin cuda_copy_latency)
    unit=$(find_bin cuda_copy_endpoint_test)
    local summary=$out/summary.txt
    : >"$summary"
    note() { echo "$*" | tee -a "$summary"; }
    note "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores, GPU $gpu, $repeats repeats"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv | tee -a "$summary"

    # A failed step is reported as FAILED with its exit code, never with a timing, and the run
    # exits 1 naming every failed step.
    local failed=()
    # verdict NAME RC SECONDS: sets said to "exit 0 in 12.3 s", or to "FAILED (exit 2)" and
    # records NAME as failed (not in a $(...): that would record it in a subshell).
    local said=""
    verdict() {
        if [ "$2" -eq 0 ]; then
            said=$(awk -v s="$3" 'BEGIN { printf "exit 0 in %.1f s", s }')
        else
            failed+=("$1 (exit $2)")
            said="FAILED (exit $2)"
        fi
    }
    elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }

    local start rc secs
    start=$(date +%s.%N)
    "$unit" >"$out/cuda_copy_endpoint_test.txt" 2>&1
    rc=$?
    secs=$(elapsed "$start")
    verdict cuda_copy_endpoint_test "$rc" "$secs"
    note "## cuda_copy_endpoint_test: $said" \
        "($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/cuda_copy_endpoint_test.txt" | tr '\n' ' '))"

    # step NAME SUBCOMMAND ARGS...: one pcie_link_measure run, timed, its verdict and figures;
    # returns its exit code and leaves its seconds in step_secs.
    local step_secs=0
    step() {
        local name=$1
        shift
        local begin code
        begin=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$measure" "$@" --endpoint cuda --cuda_device "$gpu" --output "$out/$name" $extra >"$out/$name.txt" 2>&1
        code=$?
        step_secs=$(elapsed "$begin")
        verdict "$name" "$code" "$step_secs"
        note "## $name: $said: pcie_link_measure $*"
        grep -E "PASS|FAIL|SKIPPED|WARN|Error|error" "$out/$name.txt" | head -20 | tee -a "$summary"
        return "$code"
    }
    if step sweep sweep --repeats "$repeats"; then
        note "$(awk -v s="$step_secs" 'BEGIN { printf "full sweep took %.1f s: %s 60 s\n", s, s < 60 ? "under" : "NOT under" }')"
    else
        note "full sweep FAILED: no timing"
    fi
    grep -E "large|half|90%|memcpy|staged|Gen[0-9]" "$out/sweep.txt" | head -30 | tee -a "$summary"

    step latency latency --samples 1000
    grep -E "p50|p99" "$out/latency.txt" | head -8 | tee -a "$summary"
    start=$(date +%s.%N)
    "$latency" --cuda_device "$gpu" --bytes 4096 --samples 2000 >"$out/cuda_copy_latency.txt" 2>&1
    rc=$?
    secs=$(elapsed "$start")
    verdict cuda_copy_latency "$rc" "$secs"
    note "## cuda_copy_latency: $said: the endpoint against the bare call, one process"
    tee -a "$summary" <"$out/cuda_copy_latency.txt"

    step inflight inflight --repeats "$repeats"
    grep -iE "ratio|queue" "$out/inflight.txt" | head -12 | tee -a "$summary"
    step bidir bidir --repeats "$repeats"
    grep -iE "both|alone|sum" "$out/bidir.txt" | head -8 | tee -a "$summary"
    step launch launch --repeats "$repeats"
    grep -iE "launch|kernel" "$out/launch.txt" | head -8 | tee -a "$summary"

    if tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"; then
        note "results: $out.tar.gz"
    else
        failed+=("tar (exit $?)")
        note "results: tar FAILED, the files are under $out"
    fi
    if [ "${#failed[@]}" -gt 0 ]; then
        note "FAILED steps: ${failed[*]}"
        return 1
    fi
    note "every step passed"
}

case ${1:-} in
    bundle) shift; bundle "$@" ;;
    run) shift; run "$@" ;;
    *) sed -n '2,24p' "$0"; exit 2 ;;
esac
