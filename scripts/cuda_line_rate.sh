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
# Environment: GPU (CUDA ordinal, default 0), SECS (seconds of each verified interval, default 3),
# REF_SECS (seconds of each bare interval, default 1.5), ROUNDS (A/B pairs per case, default 5),
# BOUND (the bare reference's spread, (max-min)/median, above which a case is marked disturbed,
# default 0.10), VERIFY_THREADS (default: cores - 2), CONFIGS ("count:size ..." buffer rings),
# CASES (which cases, default "h2d d2h both loopback both_2ch loopback_2ch corrupt"; also
# pageable_h2d pageable_d2h: --cuda_host_memory pageable against a bare pageable copy;
# h2d_replay: --h2c_replay, the host generating each buffer once),
# PREAMBLE (0: skip the link dump and the unit tests, as scripts/h200_measure.sh does),
# OTHER_CORES (the cores other processes may use on average while a case runs before it is
# marked disturbed, default 0.5), PROC (the /proc it reads for that, default /proc).
# Each case's figures also go to OUT_DIR/rows.tsv, one line a case (scripts/h200_measure.sh
# reads it): name, median ratio, lowest, highest, pairs, bare median GB/s, verified median
# GB/s, bare spread, verdict (quiet or DISTURBED), cores busy, cores per verified GB/s.
#
# A noisy host (bursts of disturbance that the bare reference sees too) must not pass for the
# device's rate: each case runs ROUNDS times, every run a bare interval (A) then a verified one
# (B) in one process, so the pairs interleave A/B/A/B. A case's ratio is the median of its
# pairs' ratios, printed with their spread; when the bare rates of its rounds spread by more
# than BOUND, or the pairs' ratios by more than 0.10, the case is marked DISTURBED and its
# figures are not the device's. Neither sees a disturbance that lasts the whole case (both sides
# of every pair slowed alike): the busy time of every process on the host is also sampled
# ($PROC/stat) before and after each case, less this script's and its children's
# ($PROC/$$/stat), and a case during which other processes used more than OTHER_CORES cores on
# average is marked DISTURBED too ("load NAME: ..." gives the figure for every case). The cases
# keep all cores but about one busy (VERIFY_THREADS workers and the channel threads), so half a
# core of other work already takes a worker's core half the time; an idle host's own background
# (daemons, kernel threads) stays well under it. DISTURB=N runs N host memory-bandwidth hogs
# through the whole run, to show what a disturbed run prints.
set -uo pipefail
bin=${1:-build}
out=${2:-cuda_line_rate.$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
gpu=${GPU:-0}
secs=${SECS:-3}
ref_secs=${REF_SECS:-1.5}
rounds=${ROUNDS:-5}
bound=${BOUND:-0.10}
threads=${VERIFY_THREADS:-$(( $(nproc) > 2 ? $(nproc) - 2 : 1 ))}
other_cores=${OTHER_CORES:-0.5}
proc=${PROC:-/proc}
configs=${CONFIGS:-"8:0x1000000 8:0x800000 16:0x400000"}
cases=" ${CASES:-h2d d2h both loopback both_2ch loopback_2ch corrupt} "
want() { [[ $cases == *" $1 "* ]]; }
find_bin() { local f; f=$(find "$bin" -name "$1" -type f -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
parallel=$(find_bin test_dma_bridge_parallel_streams)
independent=$(find_bin test_dma_bridge_independent_streams)
dump=$(find_bin dump_pci_info)
unit=$(find_bin cuda_stream_test)

summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

note "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores, GPU $gpu, $rounds A/B pairs a case ($ref_secs s bare, $secs s verified), bound $bound, --verify_threads $threads"
hogs=()
if [ "${DISTURB:-0}" -gt 0 ]; then
    for _ in $(seq "${DISTURB}"); do
        (while :; do dd if=/dev/zero of=/dev/null bs=64M count=64 status=none; done) & hogs+=($!)
    done
    trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
    note "# DISTURB: $DISTURB memory-bandwidth hogs (dd 64 MiB blocks) run beside every case"
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv | tee -a "$summary"

rows=$out/rows.tsv
: >"$rows"
bdf=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$gpu" 2>/dev/null | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
if [ "${PREAMBLE:-1}" != 0 ]; then
    note "## The GPU's link, read with dump_pci_info --lspci (read-only)"
    "$dump" --lspci "${bdf:-10de}" >"$out/dump_pci_info.txt" 2>&1
    note "dump_pci_info exit $?"
    grep -E "^[0-9a-f]{4}:|LnkCap:|LnkSta:|LnkCap2:|LnkSta2:" "$out/dump_pci_info.txt" | tee -a "$summary"

    note "## Unit tests on the GPU"
    "$unit" >"$out/cuda_stream_test.txt" 2>&1
    note "cuda_stream_test exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/cuda_stream_test.txt" | tr '\n' ' '))"
fi

# pair NAME LOG: "bare verified" GB/s of one run's A/B pair, the same directions on both sides.
pair() {
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
            if (name ~ /^(pageable_)?h2d/) print h2d, h  # h2d_replay too
            else if (name ~ /^(pageable_)?d2h/) print d2h, c
            else if (name ~ /^both/) print bh + bd, h + c
            else if (name ~ /^loopback/) print bh + bd, 2 * p
        }' "$2"
}

# load_sample: "busy total cores own" clock ticks: from $proc/stat the busy time of every process
# (user, nice and system: the guests' time is in them), every column's time to the steal and
# the cores; from $proc/$$/stat this script's own time and its waited children's (utime, stime,
# cutime, cstime; 0 without the file). Nothing without $proc/stat.
load_sample() {
    [ -r "$proc/stat" ] || return 0
    awk -v self="$proc/$$/stat" '
        $1 == "cpu" { busy = $2 + $3 + $4; for (i = 2; i <= 9 && i <= NF; i++) total += $i }
        $1 ~ /^cpu[0-9]+$/ { cores++ }
        END {
            own = 0
            if ((getline line < self) > 0) { sub(/^.*\) /, "", line); split(line, f, " "); own = f[12] + f[13] + f[14] + f[15] }
            print busy + 0, total + 0, cores + 0, own
        }' "$proc/stat"
}

# other_load BEFORE AFTER: the cores that processes other than this script and its children
# used on average between two load_sample()s ("-" without both or with no time between them).
other_load() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (split(a, x, " ") < 4 || split(b, y, " ") < 4 || y[2] <= x[2] || y[3] < 1) { print "-"; exit }
        other = (y[1] - x[1]) - (y[4] - x[4]); if (other < 0) other = 0
        printf "%.2f\n", other / ((y[2] - x[2]) / y[3])
    }'
}

# summarise NAME PAIRS_FILE [CORES] [OTHER]: the median ratio of the pairs ("bare verified ratio"
# lines), its spread, and the verdict (POSIX awk: the columns are sorted by sort(1)); its row to
# rows.tsv. OTHER: the cores other processes used meanwhile (other_load).
summarise() {
    local bares ratios verifieds
    bares=$(cut -d' ' -f1 "$2" | sort -g | tr '\n' ' ')
    verifieds=$(cut -d' ' -f2 "$2" | sort -g | tr '\n' ' ')
    ratios=$(cut -d' ' -f3 "$2" | sort -g | tr '\n' ' ')
    awk -v name="$1" -v bound="$bound" -v bares="$bares" -v ratios="$ratios" -v verifieds="$verifieds" \
        -v cores="${3:-- -}" -v rows="$rows" -v other="${4:--}" -v other_max="$other_cores" '
        function median(v, n) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
        BEGIN {
            n = split(bares, b, " "); split(ratios, r, " "); split(verifieds, v, " "); split(cores, c, " ")
            loaded = other ~ /^[0-9.]+$/ && other + 0 > other_max + 0
            if (other ~ /^[0-9.]+$/)
                printf "load %s: other processes used %s cores on average while the case ran (a case is DISTURBED above %s)\n", name, other, other_max
            else
                printf "load %s: no figure (no %s)\n", name, "/proc/stat"
            if (n == 0) {
                printf "ratio %s: no A/B pair completed: no figure\n", name
                printf "%s\t-\t-\t-\t0\t-\t-\t-\tNO FIGURE\t-\t-\n", name >> rows
                exit
            }
            mb = median(b, n); mr = median(r, n); spread = (b[n] - b[1]) / mb
            verdict = "quiet"
            if (spread > bound)
                verdict = sprintf("DISTURBED: the bare reference spread %.0f%% (over %.0f%%) over the rounds: not the device rate", 100 * spread, 100 * bound)
            else if (r[n] - r[1] > 0.10)
                verdict = sprintf("DISTURBED: the ratios of the pairs spread %.3f (over 0.10): not the device rate", r[n] - r[1])
            else if (loaded)
                verdict = sprintf("DISTURBED: other processes used %s cores on average (over %s) while the case ran: not the device rate", other, other_max)
            printf "ratio %s: %.3f median of %d A/B pairs (%.3f-%.3f), bare median %.2f GB/s (spread %.0f%%): %s\n", name, mr, n, r[1], r[n], mb, 100 * spread, verdict
            printf "%s\t%.3f\t%.3f\t%.3f\t%d\t%.2f\t%.2f\t%.3f\t%s\t%s\t%s\n", name, mr, r[1], r[n], n, mb, median(v, n), spread,
                verdict == "quiet" ? "quiet" : "DISTURBED", c[1], c[2] >> rows
        }'
}

timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
# run NAME TOOL ARGS...: ROUNDS runs, each an A/B pair; their exit statuses, the last run's
# totals, and the case's ratio.
run() {
    local name=$1 tool=$2
    shift 2
    local pairs=$out/$name.pairs r log rc before
    : >"$pairs"
    before=$(load_sample)
    for r in $(seq "$rounds"); do
        log=$out/$name.r$r.txt
        "${timer[@]}" "$tool" --cuda_device "$gpu" --duration "$secs" --report_interval "$secs" \
            --cuda_reference_secs "$ref_secs" --verify_threads "$threads" --transfer_timeout 10 "$@" >"$log" 2>"$log.stderr"
        rc=$?
        note "### $name round $r: exit $rc: $(basename "$tool") $*"
        grep -hE "FAIL|Error" "$log" "$log.stderr" | tee -a "$summary"
        pair "$name" "$log" | awk '$1 > 0 { printf "%s %s %.4f\n", $1, $2, $2 / $1 }' >>"$pairs"
    done
    grep -hE "Bare cudaMemcpyAsync|verified|Host CPU" "$log" | tee -a "$summary"
    sed -n '/^Overall test statistics/,/^Overall /p' "$log" | grep -v "verified\|FAIL\|Host CPU" | tee -a "$summary"
    grep -E "Maximum resident|Percent of CPU" "$log.stderr" | tee -a "$summary"
    # "Host CPU: 6.10 cores busy (...), 0.110 cores per verified GB/s": the last round's.
    local cores
    cores=$(sed -n 's/^Host CPU: \([0-9.]*\) cores busy.*, \([0-9.]*\) cores per verified GB\/s.*/\1 \2/p' "$log" | tail -1)
    [ "$ref_secs" = 0 ] || summarise "$name" "$pairs" "$cores" "$(other_load "$before" "$(load_sample)")" | tee -a "$summary"
}

for c in $configs; do
    n=${c%%:*} size=${c##*:}
    mapping=$(printf '0x%x' $(( n * size )))
    ring=(--stream_num_descriptors "$n" --stream_mapping_size "$mapping")
    note "## ring of $n x $size bytes per channel"
    want h2d && run "h2d_${n}x${size}" "$independent" "${ring[@]}" --h2c_stream_device "$bdf,0"
    want h2d_replay && run "h2d_replay_${n}x${size}" "$independent" "${ring[@]}" --h2c_replay --h2c_stream_device "$bdf,0"
    want d2h && run "d2h_${n}x${size}" "$independent" "${ring[@]}" --c2h_stream_device "$bdf,0"
    want both && run "both_${n}x${size}" "$independent" "${ring[@]}"
    want loopback && run "loopback_${n}x${size}" "$parallel" "${ring[@]}"
    pageable=(--cuda_host_memory pageable)
    want pageable_h2d && run "pageable_h2d_${n}x${size}" "$independent" "${ring[@]}" "${pageable[@]}" --h2c_stream_device "$bdf,0"
    want pageable_d2h && run "pageable_d2h_${n}x${size}" "$independent" "${ring[@]}" "${pageable[@]}" --c2h_stream_device "$bdf,0"
done
c=${configs%% *}
n=${c%%:*} size=${c##*:}
ring=(--stream_num_descriptors "$n" --stream_mapping_size "$(printf '0x%x' $(( n * size )))" --cuda_channels 2)
if want both_2ch || want loopback_2ch; then
    note "## two channels (CUDA streams) per direction, first ring"
    want both_2ch && run "both_2ch_${n}x${size}" "$independent" "${ring[@]}"
    want loopback_2ch && run "loopback_2ch_${n}x${size}" "$parallel" "${ring[@]}"
fi

if want corrupt; then
    note "## A byte corrupted on the GPU must fail the run, naming its offset (one run, no reference)"
    rounds=1 ref_secs=0
    run corrupt_h2c "$parallel" --stream_num_descriptors 8 --stream_mapping_size 0x2000000 \
        --cuda_corrupt h2c,0x1234567
    run corrupt_c2h "$independent" --stream_num_descriptors 8 --stream_mapping_size 0x2000000 \
        --cuda_corrupt c2h,0x2345678
fi
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")" && note "logs: $out.tar.gz"
