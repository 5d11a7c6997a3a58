#!/usr/bin/env bash
# Each tool's generated man page has its name line, the synopsis from --help, every option of
# --help, the version, and the sections of its .h2m include file (EXIT STATUS with 0, 1 and 2,
# EXAMPLES, SEE ALSO); man renders it. Usage: man_pages_test.sh MAN_DIR VERSION TOOL...
set -uo pipefail
dir=$1 version=$2
shift 2
failures=0
fail() { echo "FAIL $tool: $*"; failures=$((failures + 1)); }
for tool in "$@"; do
  page=$dir/$tool.1
  [ -s "$page" ] || { fail "no man page $page"; continue; }
  [ -s "$page.gz" ] || fail "no compressed man page $page.gz"
  grep -q "^\.TH \"\?${tool^^}\"\? \"\?1\"\? .*pcie-dma-toolkit $version" "$page" || fail "no .TH line with version $version"
  grep -q "^$tool \\\\- ." "$page" || fail "no NAME line '$tool \\- ...'"
  for section in SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
    grep -q "^\.SH \"\?$section\"\?$" "$page" || fail "no section $section"
  done
  sed -n '/^\.SH "\?EXIT STATUS/,/^\.SH/p' "$page" | grep -q "^0 " || fail "EXIT STATUS does not give 0"
  sed -n '/^\.SH "\?EXIT STATUS/,/^\.SH/p' "$page" | grep -q "^2 usage error" || fail "EXIT STATUS does not give 2"
  grep -q '\\fB\\-\\-version\\fR' "$page" || fail "--version not among the options"
  grep -q "build/" "$page" && fail "the page names a build path"
  rendered=$(MANWIDTH=100 man -l "$page" 2>&1) || fail "man -l failed: $rendered"
  grep -q "EXIT STATUS" <<<"$rendered" || fail "the rendered page has no EXIT STATUS"
done
[ $failures -eq 0 ] && echo "PASS: $# man pages" || echo "FAILED: $failures"
[ $failures -eq 0 ]
