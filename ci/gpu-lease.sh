#!/bin/bash
# ci/gpu-lease.sh prepare | run [SECONDS] - ci/gpu-check.sh and ci/bench-gpu.sh on a
# lent GPU machine that has no jansson, cmocka, DLPack, clang or apt (a bare machine
# of the device tool: ../shared/docs/gpu-machine.md).
#   prepare   here, on a machine with apt and clang: downloads the Debian packages
#             lossfuzz builds with and builds the libFuzzer (ASan) fuzz targets, into
#             .gpu/ (ignored by git: add /.gpu/ to .git/info/exclude). Carry .gpu.
#   run [S]   there, from the checkout's root: unpacks the packages under /tmp/deps,
#             puts the carried fuzz build in build-fuzz/, then ci/gpu-check.sh
#             --no-setup --seconds S (default 30) and ci/bench-gpu.sh, their output
#             also in $OUT (gpu-check.txt, bench-gpu.txt, logs.tgz) when set.
#             $GC_TIMEOUT / $BG_TIMEOUT cap each in seconds (330 / 120; 0 skips bench-gpu).
# Measured on an H200 (2026-11-28): run 30 took 338 s of device time, start excluded.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
case ${1:-} in
prepare)
    mkdir -p .gpu/debs .gpu/build-fuzz/libfuzzer-asan/fuzzers
    (cd .gpu/debs && apt-get download libjansson4 libjansson-dev libcmocka0 libcmocka-dev libdlpack-dev) || exit 1
    dir=$(ci/build-fuzz.sh libfuzzer --sanitize | tail -1) || exit 1
    cp "$dir/lossfuzz" .gpu/build-fuzz/libfuzzer-asan/ && cp "$dir"/fuzzers/fuzz_* .gpu/build-fuzz/libfuzzer-asan/fuzzers/ ||
        exit 1
    # the fuzz build finds lossfuzz's files by the path it was built in (lf_data.c)
    echo "$PWD" >.gpu/source-dir
    echo "gpu-lease: .gpu/ ready ($(du -sh .gpu | cut -f1)); carry .gpu and run: ci/gpu-lease.sh run"
    ;;
run)
    seconds=${2:-30}
    [ -d .gpu/debs ] || { echo "gpu-lease: no .gpu/debs: run 'ci/gpu-lease.sh prepare' here first and carry .gpu" >&2; exit 2; }
    deps=/tmp/deps lib=/tmp/deps/usr/lib/x86_64-linux-gnu
    mkdir -p $deps
    for f in .gpu/debs/*.deb; do dpkg -x "$f" $deps; done
    sed -i "s|^prefix=/usr|prefix=$deps/usr|" $lib/pkgconfig/*.pc
    export PKG_CONFIG_PATH=$lib/pkgconfig LD_LIBRARY_PATH=$lib LIBRARY_PATH=$lib CPATH=$deps/usr/include
    export CMAKE_PREFIX_PATH=$deps/usr PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
    src=$(cat .gpu/source-dir 2>/dev/null || echo /work/main)
    [ -e "$src" ] || { mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; }
    rm -rf build # a build/ configured before the packages were there keeps their absence in its cache
    mkdir -p build-fuzz && cp -r .gpu/build-fuzz/* build-fuzz/
    nvidia-smi -L
    out=${OUT:-.gpu/out} # gpu-check.sh empties gpu-check-out/ first
    mkdir -p "$out"
    timeout "${GC_TIMEOUT:-330}" ci/gpu-check.sh --no-setup --seconds "$seconds" 2>&1 | tee "$out/gpu-check.txt"
    [ "${BG_TIMEOUT:-120}" = 0 ] || timeout "${BG_TIMEOUT:-120}" ci/bench-gpu.sh 2>&1 | tee "$out/bench-gpu.txt"
    [ -z "${OUT:-}" ] || tar czf "$OUT/logs.tgz" gpu-check-out fuzz-out/fuzz_class/campaign 2>/dev/null
    ;;
*)
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
