# Sourced by the tests of scripts/ that run a script with fake tools (cuda_line_rate_test.sh,
# h200_measure_test.sh, soak_test.sh): $here, this folder; $tmp, a temporary folder removed when
# the test exits, with $tmp/bin for the fake tools; $failures, the count of failed cases (0);
# lines_in, a check of a file's lines; $tmp/proc and $tmp/proc_tick, a fake /proc whose time
# the fake tools move (fake_proc).
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

# fake_proc: $tmp/proc, a /proc for cuda_line_rate.sh's load check (PROC=$tmp/proc) with 16 cores
# and no time yet, and $tmp/proc_tick OWN OTHER, which a fake tool runs to let one second pass
# on it: OWN whole cores busy in the fake tool (the time goes to $tmp/proc/PID/stat's cutime of every
# process above it, the measuring script among them) and OTHER cores in other processes, the rest
# idle. Exported: PROC and PROC_TICK.
fake_proc() {
    mkdir -p "$tmp/proc"
    echo "0 0" >"$tmp/proc/ticks"
    printf 'cpu  0 0 0 0 0 0 0 0 0 0\n' >"$tmp/proc/stat"
    cat >"$tmp/proc_tick" <<'TICK'
#!/usr/bin/env bash
own=$(( ${1%.*} * 100 )) other=$(( ${2%.*} * 100 ))
read -r busy idle <"$PROC/ticks"
busy=$(( busy + own + other )) idle=$(( idle + 1600 - own - other ))
echo "$busy $idle" >"$PROC/ticks"
stat="cpu  $busy 0 0 $idle 0 0 0 0 0 0"
for c in {0..15}; do stat+=$'\n'"cpu$c 0 0 0 0 0 0 0 0 0 0"; done
echo "$stat" >"$PROC/stat"
pid=$PPID
while [ "$pid" -gt 1 ] 2>/dev/null && read -r line <"/proc/$pid/stat"; do
    mkdir -p "$PROC/$pid"
    mine=0
    [ -f "$PROC/$pid/own" ] && read -r mine <"$PROC/$pid/own"
    mine=$(( mine + own ))
    echo "$mine" >"$PROC/$pid/own"
    echo "$pid (fake) S 1 0 0 0 0 0 0 0 0 0 0 0 $mine 0 20 0 1 0" >"$PROC/$pid/stat"
    read -r -a fields <<<"${line##*) }"
    pid=${fields[1]}
done
TICK
    chmod +x "$tmp/proc_tick"
    export PROC=$tmp/proc PROC_TICK=$tmp/proc_tick
}
