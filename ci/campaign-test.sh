#!/bin/bash
# ci/campaign-test.sh - a campaign never loses what it reports. Each engine
# fuzzes a planted bug (off_by_one) twice into the same --out directory (the
# second run finds the same repros already there); after each run every path
# the summary line names must exist, and each minimized repro must pass on the
# correct build; the campaign's report names the planted bug, and every key
# its processes shared (campaign/keys: AFL++'s forks, libFuzzer's restarts)
# names a signature of its ledger. Ends "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
good=$(ci/build.sh | tail -1 | sed 's/^built: //') || exit 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0 failed=0
for engine in libfuzzer afl; do
    for run in 1 2; do
        summary=$(ci/fuzz.sh fuzz_class 5 --engine "$engine" --fast --mutant off_by_one --out "$out" 2>&1 | tail -1)
        paths=$(sed -n 's/.*minimized repros: //p' <<<"$summary")
        why=""
        [ -n "$paths" ] || why="no repro reported"
        for p in $paths; do
            [ -f "$p" ] || { why="$why; $p was reported but does not exist"; continue; }
            case $p in *.json) "$good" check "$p" >/dev/null 2>&1 || why="$why; $p fails on the correct build" ;; esac
        done
        campaign=$(sed -n 's/.*, report: \([^,]*\)\/report.md, .*/\1/p' <<<"$summary")
        grep -q '^### [0-9]*\. `guard-miss/label_out_of_range' "$campaign/report.md" 2>/dev/null ||
            why="$why; the campaign's report lacks the planted bug"
        ls "$campaign/keys/"* >/dev/null 2>&1 || why="$why; no key shared in $campaign/keys"
        for key in "$campaign"/keys/*; do
            [ -f "$key" ] || continue
            grep -qF "$(cut -f2 "$key")" "$campaign/ledger" || why="$why; $key names no signature of the ledger"
        done
        if [ -z "$why" ]; then
            passed=$((passed + 1))
            echo "ok   $engine run $run: $(wc -w <<<"$paths") repro(s), all present"
        else
            failed=$((failed + 1))
            echo "FAIL $engine run $run: ${why#; } (summary: $summary)"
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
