#!/usr/bin/env bash
# Installs what is needed, builds everything with -Werror under ASan/UBSan, runs every test
# (labels unit, sim, vm; with them every fuzz target's seed corpus and former crashers replayed
# under ASan/UBSan, ctest fuzz_replay.*), builds the .deb (cpack -G DEB) and checks its contents,
# and compiles the ET-SoC-1 runtime binding against its stand-in. PDT_FUZZ_SECONDS=N adds a fuzz
# run: each libFuzzer target of fuzz/ built with clang (build-fuzz/, a second build of their
# libraries) and run N seconds; by default (0) CI leaves fuzzing proper to scripts/fuzz.sh.
# Exit status: ctest's, else 1 when the .deb or the stand-in compile failed or the fuzz smoke run
# found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
# The time of each phase, printed at the end (also when a phase fails): where CI's time goes.
phase_start=$SECONDS
phases=()
phase_done() {
  phases+=("$(printf '  %-44s %6d s' "$1" $((SECONDS - phase_start)))")
  phase_start=$SECONDS
}
print_phases() {
  echo "Phase times (scripts/test.sh):"
  printf '%s\n' "${phases[@]}"
  printf '  %-44s %6d s\n' "total" "$SECONDS"
}
trap print_phases EXIT
scripts/install_deps.sh
phase_done "install dependencies"
build=${BUILD_DIR:-build-asan}
# -g1 (line tables: sanitizer reports keep their file:line frames, gdb loses local variables) compiles
# about a fifth faster than -g and halves the objects the linker reads. -O1 for the libraries and
# tools, -Og for the tests' own code (PDT_TEST_OPTIMIZATION): the build is most of CI's time, and
# a sanitized object compiles in about 0.6x (-O1) and 0.5x (-Og) the time of -O2; the pattern
# loops stay at -O3 (pattern/CMakeLists.txt). A unity build, 8 sources a file (CMakeLists.txt): what
# the headers' inline code costs is paid once per 8 sources.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDT_SANITIZE=ON -DPDT_TEST_OPTIMIZATION=-Og -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
phase_done "configure"
cmake --build "$build" -j "$(nproc)"
phase_done "build (ASan/UBSan)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
(cd "$build" && ctest --output-on-failure --timeout 1500 -j "$(nproc)" "$@") || status=$?
phase_done "tests (ctest)"
# The Debian package builds (packaging/cpack.cmake) and holds the tools, man pages, completion and
# designs. This one holds the sanitized binaries: a release package comes from a Release build
# (docs/packaging.md); scripts/test_deb.sh installs one on a clean Debian 12 (manual step).
echo "Debian package: cpack -G DEB in $build"
if (cd "$build" && rm -f pcie-dma-toolkit_*.deb && cpack -G DEB > cpack.log 2>&1); then
  scripts/tests/deb_contents_test.sh "$(ls "$build"/pcie-dma-toolkit_*.deb)" || { [ $status -ne 0 ] || status=1; }
else
  tail -n 30 "$build/cpack.log"
  echo "FAIL: cpack -G DEB (log $build/cpack.log)"
  [ $status -ne 0 ] || status=1
fi
phase_done "Debian package and its contents"
# The ET-SoC-1 runtime binding compiled (not linked) against the header-only stand-in of the
# runtime's API (etsoc1/standin/, tracking et-platform f5e790405, runtime v0.19.0): no runtime
# is installable here, so this is what keeps the binding from rotting. One file: seconds.
echo "ET-SoC-1 runtime binding against the stand-in (PDT_ETSOC1_STANDIN)"
standin=${BUILD_DIR:-build-asan}-etsoc1-standin
if cmake -S . -B "$standin" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDT_CUDA=OFF -DPDT_ETSOC1_STANDIN=ON >/dev/null &&
   cmake --build "$standin" --target etsoc1_runtime_standin; then :; else [ $status -ne 0 ] || status=1; fi
phase_done "ET-SoC-1 binding against the stand-in"
fuzz_seconds=${PDT_FUZZ_SECONDS:-0}
if [ "$fuzz_seconds" != 0 ]; then
  echo "Fuzz smoke run: ${fuzz_seconds} s per target (scripts/fuzz.sh)"
  scripts/fuzz.sh "$fuzz_seconds" || { [ $status -ne 0 ] || status=1; }
  phase_done "fuzz build and smoke run"
fi
exit $status
