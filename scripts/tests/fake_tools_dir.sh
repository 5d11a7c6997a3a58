# Sourced by the tests of scripts/ that run a script with fake tools (cuda_line_rate_test.sh,
# h200_measure_test.sh, soak_test.sh): $here, this folder; $tmp, a temporary folder removed when
# the test exits, with $tmp/bin for the fake tools; $failures, the count of failed cases (0).
# shellcheck shell=bash disable=SC2034  # set here, used by the test that sources it
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
failures=0
