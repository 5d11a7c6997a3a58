# Sourced by the tests of scripts/ that run a script with fake tools (cuda_line_rate_test.sh,
# h200_measure_test.sh, soak_test.sh): $here, this folder; $tmp, a temporary folder removed when
# the test exits, with $tmp/bin for the fake tools; $failures, the count of failed cases (0);
# lines_in, a check of a file's lines.
# shellcheck shell=bash disable=SC2034  # set here, used by the test that sources it
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
failures=0
# lines_in NAME FILE PATTERN...: "ok NAME" when FILE has a line matching each basic regular
# expression; else "FAIL NAME" naming the first that none matches, then the file; counted.
lines_in() {
    local name=$1 file=$2 pattern
    shift 2
    for pattern in "$@"; do
        if ! grep -q -- "$pattern" "$file"; then
            echo "FAIL $name: no line matches /$pattern/ in $file:"
            cat "$file"
            failures=$((failures + 1))
            return
        fi
    done
    echo "ok $name"
}
