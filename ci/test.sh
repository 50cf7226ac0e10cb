#!/bin/sh
# ci/test.sh - the fast tier, from a fresh clone: installs the packages, builds,
# and runs the CTest suite but its long tests (label "long"): unit tests, every
# regressions/*.json, the command line on bad input, corpus replay, the docs,
# the conformance run against PyTorch (tests labelled gpu skip without a GPU);
# then one short campaign per engine and path: libFuzzer and AFL++ on
# fuzz_class, lossfuzz fuzz on a C kernel and on a Python kernel.
# ci/test-long.sh is the long tier; .ci/run runs both.
set -eu
cd "$(dirname "$0")/.."
. ci/test-lib.sh
ci/setup.sh
ci/build.sh
zygote_start
stage "ctest (build): all but the long tests (ci/test-long.sh runs those)"
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE long
skipped build
total=$((total + $(ctest --test-dir build -N -LE long | sed -n 's/^Total Tests: //p')))
stage "one short campaign per engine and path"
ci/fuzz.sh fuzz_class 5 --out "$(mktemp -d)" | tail -1
ci/fuzz.sh fuzz_class 5 --engine afl --fast --out "$(mktemp -d)" | tail -1
out=$(mktemp -d) rc=0
build/lossfuzz fuzz --seconds 5 --seed 1 --kernel build/examples/kernels/ce_buggy.so --out "$out" \
    >"$out/log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { tail -3 "$out/log"; echo "ci: the buggy C example kernel was not found"; exit 1; }
tail -1 "$out/log"
if ci/find-python.sh torch >/dev/null 2>&1; then
    out=$(mktemp -d) rc=0
    build/lossfuzz fuzz --seconds 10 --seed 1 --kernel py:examples/kernels/ce_python.py:rows_buggy --out "$out" \
        >"$out/log" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { tail -3 "$out/log"; echo "ci: the buggy Python example kernel was not found"; exit 1; }
    tail -1 "$out/log"
else
    echo "skipped the Python kernel's campaign: no python3 with torch (ci/setup.sh)"
fi
total=$((total + 4))
echo "ci: fast tier: $total passed, 0 failed, $(( $(date +%s) - start )) s"
