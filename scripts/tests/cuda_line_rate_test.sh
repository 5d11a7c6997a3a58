#!/usr/bin/env bash
# Tests scripts/cuda_line_rate.sh's A/B pairs with fake tools (no GPU): each case runs ROUNDS
# times; a steady bare reference gives "quiet" with the median ratio of the pairs; a bare
# reference that swings by more than BOUND, or pairs whose ratios spread by more than 0.10, mark
# the case DISTURBED ("not the device rate") instead of printing its ratio as the device's; so do
# other processes busy on more than OTHER_CORES cores through the whole case (a steady hog, on a
# fake /proc), while the measuring tool's own cores do not count.
# Usage: cuda_line_rate_test.sh
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=fake_tools_dir.sh
. "$(dirname "$0")/fake_tools_dir.sh"
# The fake stream tool: round k (counted in $tmp/round) prints bare H2D word k of $BARE and a
# verified H2C rate of word k of $VERIFIED (GB/s), as the real tools print them; a second passes
# on the fake /proc with $OWN_CORES busy in the tool and $HOG_CORES in other processes.
cat >"$tmp/bin/test_dma_bridge_independent_streams" <<'FAKE'
#!/usr/bin/env bash
n=$(( $(cat "$ROUND_FILE" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$ROUND_FILE"
read -r -a bare <<<"$BARE"; read -r -a verified <<<"$VERIFIED"
b=${bare[$(( (n - 1) % ${#bare[@]} ))]} v=${verified[$(( (n - 1) % ${#verified[@]} ))]}
"$PROC_TICK" "${OWN_CORES:-2}" "${HOG_CORES:-0}"
echo "Bare cudaMemcpyAsync reference on FAKE 0000:01:00.0 pinned (1 stream(s) per direction, 8 x 0x1000 pinned bytes each, nothing verified): H2D $b GB/s; D2H $b GB/s; both at once H2D $b + D2H $b GB/s"
echo "Overall test statistics:"
echo "0000:01:00.0 H2C channel 0 $(awk -v v="$v" 'BEGIN { printf "%.3f", v * 1000 }') Mbytes/sec (1000 bytes in 1.000000 secs)"
echo "0000:01:00.0 H2C channel 0 Test pattern verified by the card in 250 words (1000 bytes)"
echo "Host CPU: 1.25 cores busy (2.500 s of CPU in 2.000 s, every thread of the process), 0.026 cores per verified GB/s"
echo "Overall PASS"
echo "$*" >>"$ARGS_FILE"
FAKE
for tool in test_dma_bridge_parallel_streams dump_pci_info cuda_stream_test; do
    printf '#!/usr/bin/env bash\necho "%s ran"\n' "$tool" >"$tmp/bin/$tool"
done
chmod +x "$tmp/bin/"*
fake_proc
export ROUND_FILE=$tmp/round ARGS_FILE=$tmp/args
# check NAME BARE VERIFIED REGEX: the h2d case's ratio line matches REGEX.
check() {
    local name=$1 line
    rm -rf "$tmp/out" "$tmp/out.tar.gz" "$ROUND_FILE"
    BARE=$2 VERIFIED=$3 ROUNDS=5 SECS=0.1 REF_SECS=0.1 CONFIGS=8:0x1000 PATH="/nonexistent:$PATH" \
        bash "$here/../cuda_line_rate.sh" "$tmp/bin" "$tmp/out" >/dev/null 2>&1
    line=$(grep -m1 "^ratio h2d_8x0x1000:" "$tmp/out/summary.txt" 2>/dev/null)
    if grep -qE -- "$4" <<<"$line"; then
        echo "ok $name: $line"
    else
        echo "FAIL $name: want /$4/, got: ${line:-no ratio line}"
        failures=$((failures + 1))
    fi
}
check quiet "50 50.5 49.8 50.2 50" "49 49.5 48.8 49.2 49" \
    '^ratio h2d_8x0x1000: 0\.980 median of 5 A/B pairs \(0\.980-0\.980\), bare median 50\.00 GB/s \(spread 1%\): quiet$'
# one burst in one round, seen by both sides: the median pair is untouched, the case is disturbed
check burst "50 50.5 25 50.2 50" "49 49.5 20 49.2 49" \
    'median of 5 A/B pairs \(0\.800-0\.980\), bare median 50\.00 GB/s \(spread 51%\): DISTURBED: the bare reference spread 51% \(over 10%\) over the rounds: not the device rate$'
check verified_only "50 50.5 49.8 50.2 50" "49 49.5 40 49.2 49" \
    ': DISTURBED: the ratios of the pairs spread 0\.177 \(over 0\.10\): not the device rate$'
check no_pair "0" "0" '^ratio h2d_8x0x1000: no A/B pair completed: no figure$'
# A steady disturbance: both sides of every pair slowed alike (bare steady, pairs agree), four
# cores of other processes through the case; fourteen of the tool's own are no disturbance.
HOG_CORES=4 check steady_hog "40 40.2 39.9 40.1 40" "26 26.1 25.9 26 26" \
    ': 0\.649 median of 5 A/B pairs \(0\.648-0\.650\), bare median 40\.00 GB/s \(spread 1%\): DISTURBED: other processes used 4\.00 cores on average \(over 0\.5\) while the case ran: not the device rate$'
also() {
    if grep -qE -- "$2" "$tmp/out/summary.txt"; then echo "ok $1"; else echo "FAIL $1: want /$2/"; failures=$((failures + 1)); fi
}
also load-line '^load h2d_8x0x1000: other processes used 4\.00 cores on average while the case ran \(a case is DISTURBED above 0\.5\)$'
OWN_CORES=14 check own_cores_not_counted "50 50.5 49.8 50.2 50" "49 49.5 48.8 49.2 49" ': quiet$'
also own-load-line '^load h2d_8x0x1000: other processes used 0\.00 cores on average'
HOG_CORES=1 OTHER_CORES=1.5 check hog_under_other_cores "50 50.5 49.8 50.2 50" "49 49.5 48.8 49.2 49" ': quiet$'
HOG_CORES=4 PROC=$tmp/no-proc check no_proc "50 50.5 49.8 50.2 50" "49 49.5 48.8 49.2 49" ': quiet$'
also no-proc-load-line '^load h2d_8x0x1000: no figure \(no /proc/stat\)$'

# rows.tsv (scripts/h200_measure.sh reads it): a case's figures and the last round's host CPU.
rm -rf "$tmp/out" "$ROUND_FILE" "$ARGS_FILE"
BARE="50 50.5 49.8" VERIFIED="49 49.5 48.8" ROUNDS=3 SECS=0.1 REF_SECS=0.1 CONFIGS=8:0x1000 PREAMBLE=0 \
    CASES="h2d pageable_h2d" PATH="/nonexistent:$PATH" bash "$here/../cuda_line_rate.sh" "$tmp/bin" "$tmp/out" >/dev/null 2>&1
want_row=$(printf 'h2d_8x0x1000\t0.980\t0.980\t0.980\t3\t50.00\t49.00\t0.014\tquiet\t1.25\t0.026')
if [ "$(head -1 "$tmp/out/rows.tsv" 2>/dev/null)" = "$want_row" ]; then
    echo "ok rows.tsv: $(head -1 "$tmp/out/rows.tsv")"
else
    echo "FAIL rows.tsv: want '$want_row', got '$(head -1 "$tmp/out/rows.tsv" 2>/dev/null)'"
    failures=$((failures + 1))
fi
# CASES picks the cases; pageable ones pass --cuda_host_memory pageable; PREAMBLE=0 skips the unit tests.
if [ "$(cut -f1 "$tmp/out/rows.tsv" | tr '\n' ' ')" = "h2d_8x0x1000 pageable_h2d_8x0x1000 " ] &&
    [ "$(grep -c -- '--cuda_host_memory pageable' "$ARGS_FILE")" = 3 ] && ! grep -q "cuda_stream_test" "$tmp/out/summary.txt"; then
    echo "ok CASES and PREAMBLE=0: two cases, pageable three times, no unit tests"
else
    echo "FAIL CASES: rows $(cut -f1 "$tmp/out/rows.tsv" | tr '\n' ' '); args: $(cat "$ARGS_FILE")"
    failures=$((failures + 1))
fi
if [ "$failures" != 0 ]; then
    echo "FAIL: $failures case(s)"
    exit 1
fi
echo "PASS: cuda_line_rate.sh A/B pairs"
