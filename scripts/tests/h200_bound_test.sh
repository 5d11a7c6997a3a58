#!/usr/bin/env bash
# Tests scripts/h200_measure.sh's bounds (each case's bound: the least of its bare copy, its host
# memory's bound and its host cores' bound) on recorded figures: the H100 runs of 5 December
# (docs/measurements/h100_2026-12-05: its rows, its contest before the reads and writes were
# measured apart, its pattern_benchmark) and 7 December (reads and writes apart: no verified rate
# may be above its bound), then a contest that gives them apart, one with no figures under the
# GPU's copies, none at all, and fewer cores than threads.
# Usage: h200_bound_test.sh
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=fake_tools_dir.sh
. "$(dirname "$0")/fake_tools_dir.sh"
measure=$here/../h200_measure.sh
run=$here/../../docs/measurements/h100_2026-12-05
run7=$here/../../docs/measurements/h100_2026-12-07
# The bounds each recorded run must give, one file a run (as `bounds` prints them).
bounds_of=$here/h200_bounds
# expect NAME WANT-FILE COMMAND...: the command's output is exactly WANT-FILE's text.
expect() {
    local name=$1 want=$2 got
    shift 2
    got=$("$@" 2>&1)
    if [ "$got" = "$(cat "$want")" ]; then
        echo "ok $name"
    else
        echo "FAIL $name:"
        diff <(echo "$got") "$want"
        failures=$((failures + 1))
    fi
}
# rows_of RUN: a recorded run's quiet rows, as cuda_line_rate.sh's rows.tsv had them.
rows_of() {
    python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    print("\t".join([r["case"], "%.3f" % r["ratio"], "%.3f" % r["ratio_low"], "%.3f" % r["ratio_high"], str(r["pairs"]),
                     "%.2f" % r["bare_gbps"], "%.2f" % r["verified_gbps"], "%.3f" % r["bare_spread"], r["verdict"],
                     "%.2f" % r["cores"], "%.3f" % r["cores_per_verified_gbps"]]))' "$1/result.json" ||
        { echo "FAIL: cannot read $1/result.json"; exit 1; }
}
rows_of "$run" >"$tmp/rows.tsv"
# That contest gave the threads' written-and-read-back rates, 96.18 GB/s alone and 71.55 while
# the GPU's copies averaged (46.81 + 51.47 + 33.49 + 47.34) / 3 = 59.70 GB/s: both taken for the
# reads and the writes, each on its own budget, k = (96.18 - 71.55) / 59.70 = 0.41256 per GB/s
# of other traffic. H2D and D2H (one thread touch and one DMA touch a byte): v = 96.18 / (1 + k),
# 68.09 GB/s; both and loopback (half a byte of each kind, one DMA byte): 96.18 / (0.5 + k),
# 105.40, above their bare copies; pageable (the staging copy's two touches and the DMA's: three
# of other traffic): 96.18 / (1 + 3 k), 42.98. Cores: 15 (14 workers and a channel) x 20.897
# generating, x 8.190 checking; both and loopback 16 / (0.5 / 20.897 + 0.5 / 8.190).
expect h100-2026-12-05 "$bounds_of/h100_2026-12-05.tsv" bash "$measure" bounds "$tmp/rows.tsv" "$run/contest.txt" "$run/pattern_benchmark.txt" 14 16
if ! bash "$measure" table "$tmp/rows.tsv" "$run/contest.txt" "$run/pattern_benchmark.txt" 14 16 >"$tmp/table.md"; then
    echo "FAIL table: exit status not 0"
    failures=$((failures + 1))
fi
lines_in table "$tmp/table.md" \
    '^| both_8x0x1000000 | pinned, both directions at once | \*\*0.905\*\* (3 pairs) | 0.880-0.954 | 94.34 (bare) | 0.905 | no |' \
    '^| loopback_8x0x1000000 | per byte moved: 1/2 (host write + DMA read) + 1/2 (DMA write + host read) | 105.40 | 188.29 (16) | 100.62 (bare) |$'

# The 7 December run, writes and reads apart: written 158.52 GB/s alone, 138.65 while the
# copies averaged 29.46 (kw = 0.67447); read 72.20 alone, 54.04 while they averaged 67.84
# (kr = 0.26769). H2D 158.52 / (1 + kw) = 94.67; D2H 72.20 / (1 + kr) = 56.95; both and loopback:
# writes 158.52 / (0.5 + kw) = 134.97, reads 72.20 / (0.5 + kr) = 94.05, the least; pageable H2D
# 158.52 / (1 + 3 kw) = 52.43, D2H 72.20 / (1 + 3 kr) = 40.04. Cores: one core's generate 16.153
# and verify 6.494 GB/s. Both directions verified 90.19 GB/s: 0.959 of its bound (the model
# before gave 71.61, which that run beat by 1.26). Pageable D2H's 1.028 is its bare copy's (a
# disturbed case, within the 3% the bare copy may read low).
rows_of "$run7" >"$tmp/rows7.tsv"
expect h100-2026-12-07 "$bounds_of/h100_2026-12-07.tsv" bash "$measure" bounds "$tmp/rows7.tsv" "$run7/contest.txt" "$run7/pattern_benchmark.txt" 14 16
# No verified rate of that run above its memory or cores bound (the bare copy may read low by 3%).
bash "$measure" bounds "$tmp/rows7.tsv" "$run7/contest.txt" "$run7/pattern_benchmark.txt" 14 16 >"$tmp/bounds7.tsv"
above=$(join -t $'\t' <(sort "$tmp/rows7.tsv") <(sort "$tmp/bounds7.tsv") |
    awk -F'\t' '$13 != "bare" && $7 > $12 { print $1 ": " $7 " GB/s verified, bound " $12 " (" $13 ")" }')
if [ -z "$above" ]; then echo "ok h100-2026-12-07-under-its-bounds"; else echo "FAIL above the bound: $above"; failures=$((failures + 1)); fi

# A contest with the writes and reads apart: writes 40 GB/s alone and 30 while the copies
# average 50 (W(x) = 40 - 0.2 x), reads 80 and 60 (R(x) = 80 - 0.4 x); one core generates 20
# GB/s and checks 10. H2D: v = 40 - 0.2 v, 33.33; D2H: v = 80 - 0.4 v, 57.14; both, each kind on
# its own budget with the copies' v of traffic: writes 0.5 v = 40 - 0.2 v, 57.14, reads
# 0.5 v = 80 - 0.4 v, 88.89 (a shared budget, v (0.5 / W(v) + 0.5 / R(v)) = 1, gave 42.11);
# cores 16 / (0.5 / 20 + 0.5 / 10) = 213.33.
cat >"$tmp/contest.txt" <<'CONTEST'
Host memory, 14 threads, pattern written with streaming stores and read back (64 MiB each):
  host alone:                 write 26.00 GB/s + read 26.00 GB/s = 52.00 GB/s
  host while the GPU copies:  write 20.00 GB/s + read 20.00 GB/s = 40.00 GB/s
Bare cudaMemcpyAsync (8 x 8 MiB pinned):
  host idle:    H2D 52.95, D2H 52.45, both H2D 48.44 + D2H 48.05 GB/s
  host loaded:  H2D 46.81, D2H 51.47, both H2D 33.49 + D2H 47.34 GB/s
Host memory, 14 threads, one kind of access at a time (writes: generated with streaming stores; reads: checked):
  written alone:                      40.00 GB/s
  written while the GPU copies:       30.00 GB/s (the GPU's copies meanwhile 50.00 GB/s on average)
  read alone:                         80.00 GB/s
  read while the GPU copies:          60.00 GB/s (the GPU's copies meanwhile 50.00 GB/s on average)
  written and read, while the GPU copies: the GPU's copies meanwhile 59.70 GB/s on average
CONTEST
cat >"$tmp/pattern.txt" <<'PATTERN'
memcpy     10.000 GB/s
generate (streaming stores, as the sources write)    20.000 GB/s  2.00x memcpy (median of rounds, 1.90-2.10)  goal 1.50x: meets its goal
verify                                               10.000 GB/s  1.00x memcpy (median of rounds, 0.90-1.10)  goal 2.00x: below its goal
PATTERN
printf '%s\t%s\t-\t-\t3\t%s\t-\t0.01\tquiet\t-\t-\n' h2d_a 0.55 60 d2h_a 0.9 60 both_a 0.5 90 h2d_replay_a 0.98 55 corrupt_a 1 10 \
    >"$tmp/apart.tsv"
cat >"$tmp/want_apart.tsv" <<'WANT'
h2d_a	33.33	memory	33.33	300.00	0.990	yes	15	host write + DMA read
d2h_a	57.14	memory	57.14	150.00	0.945	no	15	DMA write + host read
both_a	57.14	memory	57.14	213.33	0.787	no	16	per byte moved: 1/2 (host write + DMA read) + 1/2 (DMA write + host read)
h2d_replay_a	55.00	bare	-	-	0.980	yes	15	DMA read
corrupt_a	10.00	bare	-	-	1.000	yes	15	no model
WANT
expect reads-and-writes-apart "$tmp/want_apart.tsv" bash "$measure" bounds "$tmp/apart.tsv" "$tmp/contest.txt" "$tmp/pattern.txt" 14 16

# Rates alone only: nothing falls with the copies' traffic (H2D 40, D2H 80). No contest and no
# pattern_benchmark: the bare copy alone. Four cores for 14 workers: the cores bound on four.
grep -v 'while the GPU copies' "$tmp/contest.txt" >"$tmp/alone.txt"
printf 'h2d_a\t40.00\tmemory\t40.00\t300.00\t0.825\tno\t15\thost write + DMA read\nd2h_a\t60.00\tbare\t80.00\t150.00\t0.900\tno\t15\tDMA write + host read\n' >"$tmp/want_alone.tsv"
head -2 "$tmp/apart.tsv" >"$tmp/two.tsv"
expect rates-alone-only "$tmp/want_alone.tsv" bash "$measure" bounds "$tmp/two.tsv" "$tmp/alone.txt" "$tmp/pattern.txt" 14 16
printf 'h2d_a\t60.00\tbare\t-\t-\t0.550\tno\t15\thost write + DMA read\nd2h_a\t60.00\tbare\t-\t-\t0.900\tno\t15\tDMA write + host read\n' >"$tmp/want_none.tsv"
expect no-figures "$tmp/want_none.tsv" bash "$measure" bounds "$tmp/two.tsv" "$tmp/missing.txt" "$tmp/missing.txt" 14 16
printf 'h2d_a\t33.33\tmemory\t33.33\t80.00\t0.990\tyes\t4\thost write + DMA read\nd2h_a\t40.00\tcores\t57.14\t40.00\t1.350\tno verdict: above its bound (the bound or the bare copy reads low)\t4\tDMA write + host read\n' >"$tmp/want_four.tsv"
expect four-cores "$tmp/want_four.tsv" bash "$measure" bounds "$tmp/two.tsv" "$tmp/contest.txt" "$tmp/pattern.txt" 14 4
bash "$measure" bounds "$tmp/two.tsv" >/dev/null 2>&1
rc=$?
if [ "$rc" = 2 ]; then echo "ok usage"; else echo "FAIL usage: want exit 2, got $rc"; failures=$((failures + 1)); fi
exit $((failures > 0))
