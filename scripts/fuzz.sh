#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, -DPDT_FUZZ=ON, in its own build directory) and runs
# each for a set time, then prints a table: executions, seconds, exec/s, corpus, coverage,
# crashes. Any crash (or failed fuzz property, or timeout) fails the script (exit 1).
#
#   scripts/fuzz.sh [seconds per target, default 60] [target ...]
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 0     # a fixed number of executions per target instead
#
# Before fuzzing, every file of fuzz/regressions/<target>/ (inputs that once crashed) is run once.
# New inputs go to $FUZZ_BUILD_DIR/fuzz-corpus/<target>/ (the checked-in fuzz/corpus/ stays as it is);
# crashers to $FUZZ_BUILD_DIR/fuzz-artifacts/<target>/. Environment: FUZZ_BUILD_DIR (build-fuzz), JOBS
# (build jobs, default nproc), FUZZ_RUNS, FUZZ_OPTIONS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${JOBS:-$(nproc)}

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found (scripts/install_deps.sh installs clang and libclang-rt-dev)" >&2
  exit 2
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# -O1 -g1, as libFuzzer's own documentation builds its targets: about 0.6x the compile time of
# -O2 -g under the sanitizers, with file:line in every crash report.
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDT_FUZZ=ON -DPDT_CUDA=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j "$jobs" --target fuzz_all >"$build/fuzz-build.log" 2>&1 || {
  tail -40 "$build/fuzz-build.log" >&2
  echo "fuzz.sh: build failed (log: $build/fuzz-build.log)" >&2
  exit 1
}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(find "$build/fuzz" -maxdepth 1 -type f -executable -name 'fuzz_*' -printf '%f\n' | sort)
fi
limit=()
if [ -n "${FUZZ_RUNS:-}" ]; then
  limit=(-runs="$FUZZ_RUNS")
else
  limit=(-max_total_time="$seconds")
fi
# shellcheck disable=SC2206
extra=(${FUZZ_OPTIONS:-})

failed=0
rows=()
for t in "${targets[@]}"; do
  bin=$build/fuzz/$t
  log=$build/fuzz-logs/$t.log
  mkdir -p "$build/fuzz-logs" "$build/fuzz-corpus/$t" "$build/fuzz-artifacts/$t"
  crashes=0
  if [ -d "fuzz/regressions/$t" ] && ls "fuzz/regressions/$t"/* >/dev/null 2>&1; then
    if ! "$bin" "fuzz/regressions/$t"/* >"$build/fuzz-logs/$t.regressions.log" 2>&1; then
      echo "FAIL $t: a regression input crashes again (log: $build/fuzz-logs/$t.regressions.log)" >&2
      crashes=1
    fi
  fi
  seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  set +e
  "$bin" "${limit[@]}" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 "${extra[@]}" \
    -artifact_prefix="$build/fuzz-artifacts/$t/" "$build/fuzz-corpus/$t" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    crashes=$((crashes + 1))
    echo "FAIL $t (exit $rc): $(grep -m1 -E 'ERROR|fuzz property failed|SUMMARY' "$log" || true)" >&2
    echo "  input: $(ls "$build/fuzz-artifacts/$t"/* 2>/dev/null | head -1); log: $log" >&2
  fi
  [ $crashes -ne 0 ] && failed=1
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  secs=$(awk '/^Done [0-9]+ runs in/ {print $5}' "$log")
  # The last status line: "#N <event> cov: C ft: F corp: K/size ..."
  status=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$status")
  rows+=("$(printf '%-22s %12s %7s %9s %7s %6s %7s %8s' "$t" "${execs:--}" "${secs:--}" "${rate:--}" \
    "${corp:--}" "${cov:--}" "${ft:--}" "$crashes")")
done

printf '%-22s %12s %7s %9s %7s %6s %7s %8s\n' target executions seconds exec/s corpus cov ft crashes
printf '%s\n' "${rows[@]}"
if [ $failed -ne 0 ]; then
  echo "fuzz.sh: FAIL (crash inputs under $build/fuzz-artifacts/)"
  exit 1
fi
echo "fuzz.sh: PASS, no crashes"
