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
# fuzz_linear: no case file encodes to it (its weight is seeded); its seeds
# are parameter bytes (lf_params.h's P_* order, written last first after 64
# zero bytes of payload): the simplest case, then a bias, bfloat16, 1-D
# hidden states, class weights, label smoothing, a frozen weight.
t=fuzz_linear
rm -rf "corpus/$t"
mkdir -p "corpus/$t"
seed() {
    name=$1
    shift
    params=""
    for b in "$@"; do params="$b $params"; done
    { head -c 64 /dev/zero; for b in $params; do printf "\\$(printf %03o "$b")"; done; } >"corpus/$t/$name"
}
#      loss rank n c d1 d2 d3 dt tdt tsh w ig red sm vm pig wv pwv seed inl tgl fill
seed zero  0 0 0 0 0  0  0  0  0   0   0 0  0   0  0  0   0  0   0    0   0   0
seed bias  1 0 3 5 3  0  0  0  0   0   0 0  2   0  0  0   0  0   5    0   0   1
seed bf16  1 0 7 11 5 0  0  2  0   0   0 4  0   1  0  0   0  0   9    0   0   2
seed oned  0 3 0 6 0  0  0  1  0   0   0 0  1   0  0  0   0  0   4    0   0   1
seed weight 1 0 4 7 6 0  0  0  0   0   1 1  1   0  0  3   2  3   7    1   0   3
echo "corpus/$t: $(ls "corpus/$t" | wc -l) inputs (parameter seeds)"
