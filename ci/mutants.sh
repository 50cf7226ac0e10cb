#!/bin/bash
# ci/mutants.sh [NAME...] - proves the oracle flags every planted bug
# (fuzzers/mutants/mutants.txt): builds each variant (replay driver, ASan +
# UBSan, ci/build-fuzz.sh --check-only), replays its known crashing input
# (fuzzers/mutants/NAME.json), which must fail with the listed finding on
# that build and pass on the correct one; then minimizes it with the variant's lossfuzz into a JSON regression that must
# fail on the variant and pass on the correct build. Ends "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
good=$(ci/build-fuzz.sh replay --sanitize --check-only | tail -1) || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
fail() { echo "FAIL $name: $*"; failed=$((failed + 1)); }
while read -r name expected _; do
    case $name in ''|'#'*) continue ;; esac
    [ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
    input=fuzzers/mutants/$name.json
    [ -f "$input" ] || { fail "no known input $input"; continue; }
    dir=$(ci/build-fuzz.sh replay --sanitize --check-only --mutant "$name" | tail -1) || { fail "build"; continue; }
    out=$(LOSSFUZZ_EXPECT=1 "$dir/fuzzers/replay_fuzz_json" "$input" 2>&1)
    token=${expected#sanitizer/}
    # sanitizer/...: the bug is a stray memory access, reported by ASan (a
    # poisoned pad) or UBSan (pointer arithmetic past the buffer), not the oracle.
    if [ "$token" != "$expected" ]; then needle="AddressSanitizer:|runtime error:"; else needle="DEDUP_TOKEN: ($expected)"; fi
    grep -qE "$needle" <<<"$out" || { fail "replay did not report \"$needle\""; continue; }
    LOSSFUZZ_EXPECT=1 "$good/fuzzers/replay_fuzz_json" "$input" >/dev/null 2>&1 || { fail "the correct build fails on $input"; continue; }
    rm -rf "$tmp"/*
    "$dir/lossfuzz" minimize --out "$tmp" "$input" >"$tmp.log" 2>&1
    repro=$(ls "$tmp"/*.json 2>/dev/null | head -1)
    [ -n "$repro" ] || { fail "minimize wrote nothing: $(tail -2 "$tmp.log")"; continue; }
    if [ "$token" = "$expected" ]; then # an ASan finding aborts lossfuzz itself: only the replay can tell
        "$dir/lossfuzz" check "$repro" >/dev/null 2>&1 && { fail "minimized $repro passes on the variant"; continue; }
    fi
    "$good/lossfuzz" check "$repro" >/dev/null 2>&1 || { fail "minimized $repro fails on the correct build"; continue; }
    echo "ok   $name: $expected; minimized to $(basename "$repro")"
    passed=$((passed + 1))
done <fuzzers/mutants/mutants.txt
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
