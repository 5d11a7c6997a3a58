#!/usr/bin/env bash
# Installs what is needed, builds everything with -Werror under ASan/UBSan, and runs every
# test (labels unit, sim, vm). Exit status is ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
build=${BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDT_SANITIZE=ON
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build"
ctest --output-on-failure --timeout 1500 -j "$(nproc)" "$@"
