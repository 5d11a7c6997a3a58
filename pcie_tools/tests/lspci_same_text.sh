#!/bin/sh
# lspci_same_text.sh <dump_pci_info> <fixture> <bdf>: `dump_pci_info --lspci` on a dump file
# prints exactly what `lspci -vvv -F` prints for that function (trailing blanks aside).
set -u
tool=$1 fixture=$2 bdf=$3
command -v lspci >/dev/null || { echo "lspci_same_text: lspci (pciutils) is not installed" >&2; exit 1; }
# stdout only: a sanitizer build may print its summary on stderr at exit.
err=${TMPDIR:-/tmp}/lspci_same_text.err.$$
ours=$("$tool" --lspci --access "dump:$fixture" "$bdf" 2>"$err") || { printf '%s\n' "$ours"; cat "$err"; rm -f "$err"; exit 1; }
rm -f "$err"
theirs=$(lspci -vvv -F "$fixture" -s "$bdf" 2>/dev/null)
[ -n "$theirs" ] || { echo "lspci_same_text: lspci printed nothing for $bdf" >&2; exit 1; }
if [ "$(printf '%s\n' "$ours" | sed 's/[[:space:]]*$//')" != "$(printf '%s\n' "$theirs" | sed 's/[[:space:]]*$//')" ]; then
    printf '%s\n' "$ours" > "${TMPDIR:-/tmp}/lspci_same_text.ours.$$"
    printf '%s\n' "$theirs" > "${TMPDIR:-/tmp}/lspci_same_text.theirs.$$"
    diff "${TMPDIR:-/tmp}/lspci_same_text.theirs.$$" "${TMPDIR:-/tmp}/lspci_same_text.ours.$$"
    rm -f "${TMPDIR:-/tmp}/lspci_same_text.ours.$$" "${TMPDIR:-/tmp}/lspci_same_text.theirs.$$"
    exit 1
fi
echo "same text as lspci -vvv: $(printf '%s\n' "$ours" | wc -l) lines"
