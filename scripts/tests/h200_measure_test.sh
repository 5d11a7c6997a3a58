#!/usr/bin/env bash
# Tests scripts/h200_measure.sh run with fake tools: a step that fails is reported
# "FAILED (exit N)" with no timing (never "full sweep took 0.0 s: under 60 s"), the run exits 1
# naming every failed step; with every step passing it gives the timings and exits 0.
# Usage: h200_measure_test.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
# The fakes exit with $FAIL_<NAME> (0 when unset); pcie_link_measure's NAME is its subcommand.
cat >"$tmp/bin/pcie_link_measure" <<'FAKE'
#!/usr/bin/env bash
var="FAIL_$1"
echo "pcie_link_measure $1: Verdict: $([ "${!var:-0}" = 0 ] && echo PASS || echo FAIL)"
exit "${!var:-0}"
FAKE
for tool in cuda_copy_latency cuda_copy_endpoint_test; do
    # shellcheck disable=SC2016  # the fake expands it, not this script
    printf '#!/usr/bin/env bash\necho "%s ran"\nexit "${FAIL_%s:-0}"\n' "$tool" "$tool" >"$tmp/bin/$tool"
done
chmod +x "$tmp/bin/"*
failures=0
# check NAME WANT-STATUS REGEX-IN-SUMMARY [REGEX-NOT-IN-SUMMARY] (environment: the FAIL_ variables)
check() {
    local name=$1 want=$2 re=$3 not=${4:-} out rc
    rm -rf "$tmp/out" "$tmp/out.tar.gz"
    out=$(bash "$here/../h200_measure.sh" run "$tmp/bin" "$tmp/out" 2>&1)
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
check all-pass 0 '^full sweep took [0-9.]+ s: under 60 s$' 'FAILED'
check all-pass-last-line 0 '^every step passed$'
FAIL_sweep=3 check sweep-fails 1 '^## sweep: FAILED \(exit 3\): pcie_link_measure sweep' 'full sweep took|sweep: exit'
FAIL_sweep=3 check sweep-no-timing 1 '^full sweep FAILED: no timing$'
FAIL_sweep=3 FAIL_launch=1 check names-every-failed-step 1 '^FAILED steps: sweep \(exit 3\) launch \(exit 1\)$'
FAIL_latency=2 check latency-fails 1 '^## latency: FAILED \(exit 2\)' '## latency: exit'
FAIL_cuda_copy_endpoint_test=1 check unit-tests-fail 1 '^## cuda_copy_endpoint_test: FAILED \(exit 1\)'
FAIL_cuda_copy_latency=4 check bare-latency-fails 1 '^## cuda_copy_latency: FAILED \(exit 4\)'
check passing-step-timed 0 '^## inflight: exit 0 in [0-9.]+ s: pcie_link_measure inflight'
exit $((failures > 0))
