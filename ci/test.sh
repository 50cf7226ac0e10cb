#!/bin/sh
# ci/test.sh - all tests, from a fresh clone: installs the packages, builds
# twice (plain, and ASan + UBSan), and runs the whole CTest suite on both:
# unit tests, every regressions/*.json, the command line on bad input, corpus
# replay, and the conformance run against PyTorch (tests labelled gpu skip
# without a GPU). Then every planted bug must be caught (ci/mutants.sh), and
# each fuzz target gets a short libFuzzer and AFL++ smoke campaign, and
# campaigns on a planted bug must leave every repro they report (ci/campaign-test.sh).
set -eu
cd "$(dirname "$0")/.."
ci/setup.sh
total=0
for variant in "" --sanitize; do
    ci/build.sh $variant
    dir=build
    [ -z "$variant" ] || dir=build-asan
    echo "== ctest ($dir) =="
    ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
    # ctest hides a skipped test's output: show why each one skipped.
    awk '/ Testing: / {name = $3} /^SKIP: / {print "skipped " name ": " substr($0, 7)}' "$dir/Testing/Temporary/LastTest.log"
    total=$((total + $(ctest --test-dir "$dir" -N | sed -n 's/^Total Tests: //p')))
done
echo "== planted bugs =="
ci/mutants.sh
total=$((total + $(grep -c '^[a-z]' fuzzers/mutants/mutants.txt)))
echo "== fuzz smoke runs =="
for target in fuzz_class fuzz_prob fuzz_json fuzz_npy fuzz_npz fuzz_safetensors; do
    ci/fuzz.sh "$target" 10 --out "$(mktemp -d)"
done
for target in fuzz_class fuzz_prob fuzz_json; do
    ci/fuzz.sh "$target" 10 --engine afl --fast --out "$(mktemp -d)"
done
total=$((total + 9))
echo "== campaigns keep what they report =="
ci/campaign-test.sh
total=$((total + 4))
# Every step above stops the script on a failure: reaching here means all passed.
echo "ci: $total passed, 0 failed"
