#!/usr/bin/env bash
# The man page PAGE has a line matching each PATTERN (grep basic regular expressions).
# Usage: man_page_has_test.sh PAGE PATTERN...
set -uo pipefail
page=$1
shift
[ -s "$page" ] || { echo "FAIL: no man page $page"; exit 1; }
for pattern in "$@"; do
  grep -q -- "$pattern" "$page" || { echo "FAIL: no line matching '$pattern' in $page"; exit 1; }
done
echo "PASS: $page has the $# lines looked for"
