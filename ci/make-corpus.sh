#!/bin/sh
# ci/make-corpus.sh - rebuilds the seed corpora corpus/<target>/ from the
# regressions and the planted-bug inputs (lossfuzz encode), minimized with
# libFuzzer's -merge=1: files named by the SHA-1 of their content, only inputs
# that add coverage kept. Run it after adding regressions; commit the result.
set -eu
cd "$(dirname "$0")/.."
dir=$(ci/build-fuzz.sh libfuzzer | tail -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in fuzz_class fuzz_prob fuzz_json; do
    mkdir -p "$tmp/$t" "$tmp/$t.merged"
    if [ $t = fuzz_json ]; then
        cp regressions/*.json fuzzers/mutants/*.json "$tmp/$t/"
    else
        "$dir/lossfuzz" encode --target $t --out "$tmp/$t" regressions/*.json fuzzers/mutants/*.json >/dev/null
        head -c 0 /dev/zero >"$tmp/$t/empty" # all-zero bytes: the simplest case
    fi
    "$dir/fuzzers/$t" -merge=1 -dict="fuzzers/$t.dict" "$tmp/$t.merged" "$tmp/$t" >"$tmp/$t.log" 2>&1
    rm -rf "corpus/$t"
    mkdir -p "corpus/$t"
    cp "$tmp/$t.merged"/* "corpus/$t/"
    echo "corpus/$t: $(ls "corpus/$t" | wc -l) inputs (from $(ls "$tmp/$t" | wc -l) seeds)"
done
