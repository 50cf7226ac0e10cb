#!/bin/sh
# ci/floors-test.sh - the floors are enforced by the link (harness/CMakeLists.txt: one library per floor,
# each linked whole into build/floors/lf_floor_check_NAME with the floors below it only): a build with a call
# up planted in the spec's floor (-DLF_PLANT_CALL_UP=ON: harness/tests/lf_planted_call_up.c calls the
# oracle) must fail to link that floor's check, naming the call; the same build without it must link.
# Exit 0 when both hold.
set -eu
cd "$(dirname "$0")/.."
cmake=${CMAKE:-cmake} # CTest gives its own
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cmake" -S . -B "$tmp" -DLF_CUDA=OFF -DLF_PLANT_CALL_UP=ON >/dev/null
if "$cmake" --build "$tmp" --target lf_floor_check_lf_spec -j2 >"$tmp/log" 2>&1; then
    echo "floors-test: a call up from the spec to the oracle linked; the floors are not enforced"
    exit 1
fi
# (GNU ld's words, then lld's and mold's)
why=$(grep -m1 -Eo "undefined (reference to|symbol:) .?lf_oracle_check.?" "$tmp/log") || {
    echo "floors-test: the planted build failed, but not on the call up:"
    tail -20 "$tmp/log"
    exit 1
}
"$cmake" -S . -B "$tmp" -DLF_PLANT_CALL_UP=OFF >/dev/null
"$cmake" --build "$tmp" --target lf_floor_check_lf_spec -j2 >"$tmp/log" 2>&1 || {
    echo "floors-test: the spec's floor does not link without the planted call:"
    tail -20 "$tmp/log"
    exit 1
}
echo "floors-test: a planted call up (spec -> oracle) fails to link ($why); without it the floor links"
