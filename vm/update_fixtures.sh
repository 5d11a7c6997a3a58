#!/usr/bin/env bash
# Copies the config-space captures of the last vm_harness run (build/vm-tests/fixtures) into
# vm/fixtures, the files config-space decoder tests read. Usage: update_fixtures.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../build}/vm-tests/fixtures
[ -d "$src" ] || { echo "update_fixtures: $src missing; run: ctest -L vm -R vm_harness" >&2; exit 1; }
mkdir -p "$here/fixtures"
cp "$src"/* "$here/fixtures/"
ls -l "$here/fixtures"
