#!/usr/bin/env bash
# The ET-SoC-1 stand-in (etsoc1/standin/) declares what the tracked runtime (et-platform
# f5e790405, esperanto-tools-libs v0.19.0) declares, for every declaration the binding uses:
# - the binding and etsoc1/runtime/tracked_declarations.cpp compile against the stand-in
#   (syntax only), the latter's static_asserts holding each declaration to the tracked one;
# - scripts/check_etsoc1_standin.py finds every vendor name the binding uses checked there.
# And each check fails where it must: a stand-in whose MemcpyList::addOp takes a const source (as
# ours once did; F30) fails to compile naming it, and a binding that uses a runtime call the
# checks do not cover (isP2PEnabled) fails the script naming the call and its line.
# Usage: etsoc1_standin_test.sh CXX   (the compiler CMake uses)
set -u
cxx=${1:?usage: etsoc1_standin_test.sh CXX}
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
flags=(-std=c++20 -fsyntax-only -Wall -Wextra -Werror -I"$root/etsoc1/include" -I"$root/vfio_access/include" -I"$root/base/include")
compile() { "$cxx" "${flags[@]}" -I"$1" "$2" 2>&1; }
out=$(compile "$root/etsoc1/standin/include" "$root/etsoc1/runtime/tracked_declarations.cpp") ||
  fail "the stand-in does not declare what the tracked runtime does: $out"
out=$(compile "$root/etsoc1/standin/include" "$root/etsoc1/runtime/runtime_card.cpp") ||
  fail "the binding does not compile against the stand-in: $out"
out=$(python3 "$root/scripts/check_etsoc1_standin.py") || fail "a runtime use is unchecked: $out"
echo "$out"
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
cp -r "$root/etsoc1/standin/include" "$work/standin"
sed -i 's/void addOp(std::byte\* src,/void addOp(const std::byte* src,/' "$work/standin/runtime/Types.h"
grep -q 'addOp(const std::byte\* src' "$work/standin/runtime/Types.h" || fail "the test could not make the const source"
out=$(compile "$work/standin" "$root/etsoc1/runtime/tracked_declarations.cpp") &&
  fail "a stand-in whose addOp takes a const source compiled"
grep -q 'rt::MemcpyList::addOp' <<<"$out" || fail "the mismatch is not named: $out"
sed 's/m_runtime->getDmaInfo(id)/(m_runtime->isP2PEnabled(id, id), m_runtime->getDmaInfo(id))/' \
  "$root/etsoc1/runtime/runtime_card.cpp" > "$work/binding.cpp"
grep -q isP2PEnabled "$work/binding.cpp" || fail "the test could not add a use"
out=$(python3 "$root/scripts/check_etsoc1_standin.py" --binding "$work/binding.cpp"); rc=$?
[ $rc -eq 1 ] || fail "an unchecked use: exit $rc, expected 1: $out"
grep -qE 'binding.cpp:[0-9]+: uses rt::IRuntime::isP2PEnabled, which .* does not check' <<<"$out" ||
  fail "the unchecked use is not named: $out"
out=$(python3 "$root/scripts/check_etsoc1_standin.py" --binding "$work/absent.cpp" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q 'cannot read' <<<"$out" || fail "a missing file: exit $rc: $out"
echo "PASS: the stand-in matches the tracked runtime for every declaration the binding uses"
