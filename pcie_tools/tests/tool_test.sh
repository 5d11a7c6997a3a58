#!/bin/sh
# tool_test.sh <expected exit status> <extended regex the output must match> <command> [args...]
# Runs a tool main, checks its exit status and that stdout+stderr match the pattern.
expected=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$expected" ]; then
    echo "tool_test: exit status $status, expected $expected" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "tool_test: output does not match: $pattern" >&2
    exit 1
fi
