#!/usr/bin/env bash
# Tests scripts/h200_measure.sh run with fake tools (no GPU): with every step passing it exits
# 0 and writes result.json (valid JSON, a row per case with its ratio and spread), report.html
# and performance.md; a step that fails is "FAILED (exit N)" with no timing and the run exits 1
# naming it; a disturbed run whose ratio moves by more than 0.05 without being marked DISTURBED
# fails the run, one that stays within 0.05 or is marked passes (marked by a swinging bare copy,
# or by other processes' load through the case, on a fake /proc); each case gets its bound (the
# bare copy's here, the fake contest and pattern_benchmark printing no figures).
# Usage: h200_measure_test.sh
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=fake_tools_dir.sh
. "$(dirname "$0")/fake_tools_dir.sh"
# The fake stream tool: bare $BARE GB/s, verified $VERIFIED (with DISTURB set by cuda_line_rate.sh's
# caller: $BARE_D and $VERIFIED_D, one word a round, counted in $tmp/round.<disturb>); a second
# passes on the fake /proc, two cores busy in the tool and, disturbed, $HOG_D in other processes.
cat >"$tmp/bin/test_dma_bridge_independent_streams" <<'FAKE'
#!/usr/bin/env bash
file="$ROUND_FILE.${DISTURB:-0}"
n=$(( $(cat "$file" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$file"
if [ "${DISTURB:-0}" -gt 0 ]; then b_all=$BARE_D v_all=$VERIFIED_D; else b_all=$BARE v_all=$VERIFIED; fi
read -r -a bare <<<"$b_all"; read -r -a verified <<<"$v_all"
b=${bare[$(( (n - 1) % ${#bare[@]} ))]} v=${verified[$(( (n - 1) % ${#verified[@]} ))]}
"$PROC_TICK" 2 "$([ "${DISTURB:-0}" -gt 0 ] && echo "${HOG_D:-0}" || echo 0)"
echo "Bare cudaMemcpyAsync reference on FAKE 0000:01:00.0 (1 stream(s) per direction, 8 x 0x1000 pinned bytes each, nothing verified): H2D $b GB/s; D2H $b GB/s; both at once H2D $b + D2H $b GB/s"
echo "Overall test statistics:"
rate=$(awk -v v="$v" 'BEGIN { printf "%.3f", v * 1000 }')
case "$*" in
    *--h2c_stream_device*) echo "0000:01:00.0 H2C channel 0 $rate Mbytes/sec (1000 bytes in 1.000000 secs)" ;;
    *--c2h_stream_device*) echo "0000:01:00.0 C2H channel 0 $rate Mbytes/sec (1000 bytes in 1.000000 secs)" ;;
    *) echo "0000:01:00.0 H2C channel 0 $rate Mbytes/sec (1000 bytes in 1.000000 secs)"
       echo "0000:01:00.0 C2H channel 0 $rate Mbytes/sec (1000 bytes in 1.000000 secs)" ;;
esac
echo "Host CPU: 2.00 cores busy (4.000 s of CPU in 2.000 s, every thread of the process), 0.040 cores per verified GB/s"
echo "Overall PASS"
FAKE
cp "$tmp/bin/test_dma_bridge_independent_streams" "$tmp/bin/test_dma_bridge_parallel_streams"
# The other tools print a line and exit with $FAIL_<name> (pcie_link_measure: its subcommand).
cat >"$tmp/bin/pcie_link_measure" <<'FAKE'
#!/usr/bin/env bash
var="FAIL_$1"
echo "pcie_link_measure $1: Verdict: $([ "${!var:-0}" = 0 ] && echo PASS || echo FAIL)"
exit "${!var:-0}"
FAKE
for tool in cuda_stream_test cuda_copy_endpoint_test dump_pci_info cuda_host_memory_contest pattern_benchmark; do
    # shellcheck disable=SC2016  # the fake expands it, not this script
    printf '#!/usr/bin/env bash\necho "%s ran"\nexit "${FAIL_%s:-0}"\n' "$tool" "$tool" >"$tmp/bin/$tool"
done
chmod +x "$tmp/bin/"*
fake_proc
export ROUND_FILE=$tmp/round BARE="50 50.2 49.9" VERIFIED="49 49.2 48.9" BARE_D="50 50.1 49.8" VERIFIED_D="49 49.1 48.8"
# check NAME WANT-STATUS REGEX-IN-SUMMARY [REGEX-NOT-IN-SUMMARY] (environment: FAIL_ and rate variables)
check() {
    local name=$1 want=$2 re=$3 not=${4:-} out rc
    rm -rf "$tmp/out" "$tmp/out.tar.gz" "$ROUND_FILE".*
    out=$(DISTURB=1 ROUNDS=3 SECS=0.1 REF_SECS=0.1 PATH="/nonexistent:$PATH" bash "$here/../h200_measure.sh" run "$tmp/bin" "$tmp/out" 2>&1)
    rc=$?
    local summary
    summary=$(cat "$tmp/out/summary.txt" 2>/dev/null)
    if [ "$rc" != "$want" ] || ! grep -qE -- "$re" <<<"$summary" || { [ -n "$not" ] && grep -qE -- "$not" <<<"$summary"; }; then
        echo "FAIL $name: want status $want, /$re/ and not /$not/; got $rc:"
        echo "$summary"
        echo "$out" | tail -5
        failures=$((failures + 1))
    else
        echo "ok $name"
    fi
}
# also NAME REGEX: the last run's summary also holds a line matching REGEX.
also() {
    if grep -qE -- "$2" "$tmp/out/summary.txt"; then echo "ok $1"; else echo "FAIL $1: want /$2/"; failures=$((failures + 1)); fi
}
check all-pass 0 '^every step passed$' 'FAILED'
# The fake contest and pattern_benchmark print no figures: each bound is the bare copy's.
also bound '^bound line_rate h2d_8x0x1000000: 50.00 GB/s \(set by bare; memory -, cores - on [0-9]+ cores\), verified / bound 0.980: yes$'
also timed '^## line_rate: exit 0 in [0-9.]+ s$'
also within-ten-minutes '^whole run: [0-9.]+ s \(within 10 minutes\)$'
# The reports of that last passing run.
if python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert len(r["rows"]) == 7, r["rows"]; \
        h = r["rows"][0]; assert h["case"] == "h2d_8x0x1000000" and h["ratio"] == 0.98 and h["verdict"] == "quiet", h; \
        assert h["cores"] == 2.0 and h["goal"] == 0.97, h; assert r["rows"][5]["goal"] == 0.9 and r["rows"][1]["cores_goal"] == 1; \
        assert h["bound_gbps"] == 50.0 and h["bound_set_by"] == "bare" and h["verified_vs_bound"] == 0.98, h; \
        assert h["meets_bound"] == "yes" and h["memory_bound_gbps"] is None and h["host_touches"] == "host write + DMA read", h; \
        assert len(r["disturbed_rows"]) == 2' "$tmp/out/result.json" 2>"$tmp/json.err"; then
    echo "ok result.json"
else
    echo "FAIL result.json: $(cat "$tmp/json.err")"
    failures=$((failures + 1))
fi
lines_in performance.md "$tmp/out/performance.md" \
    '^| h2d_8x0x1000000 | pinned H2D, generated by the host for every copy, checked on the GPU | \*\*0.980\*\* (3 pairs) | 0.980-0.980 |' \
    '^| d2h_8x0x1000000 | 0.980 | 0.980 | 0.000 | within 0.05 |$'
lines_in report.html "$tmp/out/report.html" '<td> <b>0.980</b> (3 pairs) </td>'
FAIL_sweep=3 FAIL_cuda_stream_test=1 check sweep-fails 1 '^## sweep: FAILED \(exit 3\)$' 'sweep: exit 0'
also names-every-failed-step '^FAILED steps: cuda_stream_test \(exit 1\) sweep \(exit 3\)$'
# Disturbed: the ratio falls by 0.2 while the bare reference stays steady: not marked, so it fails.
VERIFIED_D="39 39.1 38.9" check disturbed-unmarked 1 'h2d_8x0x1000000.*FAIL: off by more than 0.05 and not marked'
# The 7 December D2H: the ratio falls by 0.2, bare steady, pairs agreeing, while other processes
# keep four cores busy: marked DISTURBED by their load, which passes.
VERIFIED_D="39 39.1 38.9" HOG_D=4 check disturbed-steady-hog 0 'd2h_8x0x1000000.*marked DISTURBED'
also load-marks-it '^ratio d2h_8x0x1000000: .*DISTURBED: other processes used 4\.00 cores on average'
also load-line '^load h2d_8x0x1000000: other processes used 0\.00 cores on average'
# The bare reference swings with the hogs: the case is marked DISTURBED, which passes.
BARE_D="50 30 49" VERIFIED_D="39 25 38" check disturbed-marked 0 'h2d_8x0x1000000.*marked DISTURBED'
exit $((failures > 0))
