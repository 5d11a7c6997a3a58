#!/usr/bin/env bash
# The stream tools on an NVIDIA GPU at line rate, measured side by side with a bare
# cudaMemcpyAsync loop of the same sizes in the same process (the tools print it first).
#
#   scripts/cuda_line_rate.sh [BIN_DIR] [OUT_DIR]
#
# BIN_DIR holds test_dma_bridge_parallel_streams, test_dma_bridge_independent_streams,
# dump_pci_info and cuda_stream_test (default: build/, as CMake lays them out); OUT_DIR gets one
# log per run and summary.txt (default: cuda_line_rate.<date>). Everything it does on the GPU
# is a copy or a kernel: it never writes the GPU's config space (dump_pci_info reads it).
# Environment: GPU (CUDA ordinal, default 0), SECS (seconds per run, default 8),
# VERIFY_THREADS (default: cores - 2), CONFIGS ("count:size ..." buffer rings to try).
set -uo pipefail
bin=${1:-build}
out=${2:-cuda_line_rate.$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
gpu=${GPU:-0}
secs=${SECS:-8}
threads=${VERIFY_THREADS:-$(( $(nproc) > 2 ? $(nproc) - 2 : 1 ))}
configs=${CONFIGS:-"8:0x1000000 8:0x800000 16:0x400000"}
find_bin() { local f; f=$(find "$bin" -name "$1" -type f -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
parallel=$(find_bin test_dma_bridge_parallel_streams)
independent=$(find_bin test_dma_bridge_independent_streams)
dump=$(find_bin dump_pci_info)
unit=$(find_bin cuda_stream_test)

summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

note "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores, GPU $gpu, $secs s per run, --verify_threads $threads"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv | tee -a "$summary"

bdf=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$gpu" 2>/dev/null | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
note "## The GPU's link, read with dump_pci_info (read-only)"
"$dump" "${bdf:-10de}" >"$out/dump_pci_info.txt" 2>&1
note "dump_pci_info exit $?"
grep -E "^[0-9a-f]{4}:|LnkCap:|LnkSta:|LnkCap2:|LnkSta2:" "$out/dump_pci_info.txt" | tee -a "$summary"

note "## Unit tests on the GPU"
"$unit" >"$out/cuda_stream_test.txt" 2>&1
note "cuda_stream_test exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/cuda_stream_test.txt" | tr '\n' ' '))"

timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
# run NAME TOOL ARGS...: one run, its exit status, its reference line and totals.
run() {
    local name=$1 tool=$2
    shift 2
    local log=$out/$name.txt
    "${timer[@]}" "$tool" --cuda_device "$gpu" --duration "$secs" --report_interval "$secs" \
        --verify_threads "$threads" --transfer_timeout 10 "$@" >"$log" 2>"$log.stderr"
    local rc=$?
    note "### $name: exit $rc: $(basename "$tool") $*"
    grep -hE "Bare cudaMemcpyAsync|verified|FAIL|Error" "$log" "$log.stderr" | tee -a "$summary"
    sed -n '/^Overall test statistics/,/^Overall /p' "$log" | grep -v "verified\|FAIL" | tee -a "$summary"
    grep -E "Maximum resident|Percent of CPU" "$log.stderr" | tee -a "$summary"
    ratio "$name" "$log" | tee -a "$summary"
}

# ratio NAME LOG: the verified rate over the bare rate of the same directions, from one log.
ratio() {
    awk -v name="$1" '
        /^Bare cudaMemcpyAsync/ {
            for (i = 1; i <= NF; i++) {
                if ($i == "H2D" && h2d == "") h2d = $(i + 1)
                else if ($i == "D2H" && d2h == "") d2h = $(i + 1)
                else if ($i == "H2D" && h2d != "") bh = $(i + 1)
                else if ($i == "D2H" && d2h != "") bd = $(i + 1)
            }
        }
        /^Overall test statistics/ { totals = 1; next }
        totals && / Mbytes\/sec / {
            for (i = 1; i <= NF; i++) if ($(i + 1) == "Mbytes/sec") rate = $i / 1000
            if ($0 ~ / H2C channel /) h += rate; else if ($0 ~ / C2H channel /) c += rate; else p += rate
        }
        END {
            if (h2d == "") exit
            if (name ~ /^h2d/) printf "ratio %s: verified H2D %.2f / bare H2D %.2f GB/s = %.3f\n", name, h, h2d, h / h2d
            else if (name ~ /^d2h/) printf "ratio %s: verified D2H %.2f / bare D2H %.2f GB/s = %.3f\n", name, c, d2h, c / d2h
            else if (name ~ /^both/) printf "ratio %s: verified H2D %.2f + D2H %.2f / bare both %.2f + %.2f GB/s = %.3f\n", name, h, c, bh, bd, (h + c) / (bh + bd)
            else if (name ~ /^loopback/) printf "ratio %s: verified loopback %.2f each way / bare both %.2f + %.2f GB/s = %.3f\n", name, p, bh, bd, 2 * p / (bh + bd)
        }' "$2"
}

for c in $configs; do
    n=${c%%:*} size=${c##*:}
    mapping=$(printf '0x%x' $(( n * size )))
    ring=(--stream_num_descriptors "$n" --stream_mapping_size "$mapping")
    note "## ring of $n x $size bytes per channel"
    run "h2d_${n}x${size}" "$independent" "${ring[@]}" --h2c_stream_device "$bdf,0"
    run "d2h_${n}x${size}" "$independent" "${ring[@]}" --c2h_stream_device "$bdf,0"
    run "both_${n}x${size}" "$independent" "${ring[@]}"
    run "loopback_${n}x${size}" "$parallel" "${ring[@]}"
done
note "## two channels (CUDA streams) per direction, first ring"
c=${configs%% *}
n=${c%%:*} size=${c##*:}
ring=(--stream_num_descriptors "$n" --stream_mapping_size "$(printf '0x%x' $(( n * size )))" --cuda_channels 2)
run "both_2ch_${n}x${size}" "$independent" "${ring[@]}"
run "loopback_2ch_${n}x${size}" "$parallel" "${ring[@]}"

note "## A byte corrupted on the GPU must fail the run, naming its offset"
run corrupt_h2c "$parallel" --stream_num_descriptors 8 --stream_mapping_size 0x2000000 --cuda_reference_secs 0 \
    --cuda_corrupt h2c,0x1234567
run corrupt_c2h "$independent" --stream_num_descriptors 8 --stream_mapping_size 0x2000000 --cuda_reference_secs 0 \
    --cuda_corrupt c2h,0x2345678
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")" && note "logs: $out.tar.gz"
