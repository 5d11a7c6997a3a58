#!/usr/bin/env bash
# scripts/check_duplicates.py: the tree's product code repeats no run of six lines to the letter
# (beyond scripts/duplicates_allowed.txt), and the guard fails, naming both places, on a planted
# copy; it passes over tests, a repeated interface (override declarations) and a copy that
# crosses the end of a definition, and takes an accepted pair from --allow.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
check=$root/scripts/check_duplicates.py
fail() { echo "FAIL: $*"; exit 1; }
out=$(python3 "$check" --root "$root" --allow "$root/scripts/duplicates_allowed.txt") ||
  fail "the tree repeats itself: $out"
echo "$out" | tail -1
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
git -C "$work" init -q
mkdir -p "$work/lib/src" "$work/lib/tests" "$work/tool"
body() {  # six lines of logic, $1 names the function
  printf 'int %s(int a, int b) {\n    int c = a + b;\n    c *= 3;\n    if (c > 10)\n        c -= a;\n    c ^= b;\n    return c + 1;\n}\n' "$1"
}
body first > "$work/lib/src/a.cpp"
printf 'int other(int a) {\n    return a * 2;\n}\n' > "$work/tool/b.cpp"
out=$(python3 "$check" --root "$work") || fail "a tree without copies failed: $out"
body second > "$work/lib/tests/a_test.cpp"
out=$(python3 "$check" --root "$work") || fail "a copy in a test counted: $out"
body second >> "$work/tool/b.cpp"
out=$(python3 "$check" --root "$work"); rc=$?
[ $rc -eq 1 ] || fail "a planted copy: exit $rc, expected 1: $out"
grep -q '^lib/src/a.cpp:2-7 ~ tool/b.cpp:5-10 share 6 or more lines to the letter' <<<"$out" ||
  fail "the planted copy is not named: $out"
printf 'lib/src/a.cpp ~ tool/b.cpp: planted by the test\n' > "$work/allow.txt"
out=$(python3 "$check" --root "$work" --allow "$work/allow.txt") || fail "an accepted pair still failed: $out"
grep -q '(1 accepted in ' <<<"$out" || fail "the accepted pair is not counted: $out"
printf 'lib/src/a.cpp and tool/b.cpp\n' > "$work/allow.txt"
out=$(python3 "$check" --root "$work" --allow "$work/allow.txt" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'bad line' <<<"$out" || fail "a bad allow line: exit $rc: $out"
# Five shared lines are not a duplicate; neither are two classes declaring the same overrides.
printf 'int other(int a) {\n    return a * 2;\n}\n' > "$work/tool/b.cpp"
printf 'int five(int a, int b) {\n    int c = a + b;\n    c *= 3;\n    if (c > 10)\n        c -= a;\n    return c;\n}\n' \
  >> "$work/tool/b.cpp"
out=$(python3 "$check" --root "$work") || fail "five shared lines counted: $out"
for f in x y; do
  printf 'class %s : public Base {\n    void open(int queues,\n              bool wait) override;\n    int info() const override;\n    void stop() override;\n    void reset() override;\n    void close() override;\n    int size() const override { return 0; }\n};\n' "$f" \
    > "$work/lib/src/$f.hpp"
done
out=$(python3 "$check" --root "$work") || fail "repeated override declarations counted: $out"
echo "PASS: the guard names a planted copy and passes over what may repeat"
