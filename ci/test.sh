#!/bin/sh
# ci/test.sh - all tests, from a fresh clone: installs the packages, builds
# twice (plain, and ASan + UBSan), and runs the whole CTest suite on both:
# unit tests, every regressions/*.json, the command line on bad input, and the
# conformance run against PyTorch. Tests labelled gpu skip without a GPU.
set -eu
cd "$(dirname "$0")/.."
ci/setup.sh
for variant in "" --sanitize; do
    ci/build.sh $variant
    dir=build
    [ -z "$variant" ] || dir=build-asan
    echo "== ctest ($dir) =="
    ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
done
