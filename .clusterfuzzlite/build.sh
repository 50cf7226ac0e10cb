#!/bin/bash -eu
# .clusterfuzzlite/build.sh - builds lossfuzz's fuzz targets the way OSS-Fuzz
# and ClusterFuzzLite run a project's build.sh: the compiler and flags from
# $CC $CXX $CFLAGS $CXXFLAGS (sanitizers and coverage included), the engine
# from $LIB_FUZZING_ENGINE (libFuzzer, AFL++'s driver, honggfuzz's...), the
# sources in $SRC/lossfuzz (or this checkout), and into $OUT each target with
# TARGET_seed_corpus.zip (corpus/TARGET), TARGET.dict and TARGET.options
# (fuzzers/). The kernels run on the CPU simulation: no CUDA, jansson and zlib
# linked statically so the targets run on a runner image without them.
# ci/oss-fuzz-test.sh runs this in a simulated environment, in the test suite.
here=$(cd "$(dirname "$0")/.." && pwd)
src=${SRC:-$here}/lossfuzz
[ -f "$src/CMakeLists.txt" ] || src=$here
: "${OUT:?OUT: where the fuzz targets go}" "${LIB_FUZZING_ENGINE:?LIB_FUZZING_ENGINE: what the targets link}"
work=${WORK:-$(mktemp -d)}/lossfuzz-build
targets=$("$src/ci/targets.sh" | tr '\n' ' ')
cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Release -DLF_FUZZ_ENGINE=external \
    -DLF_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" -DLF_STATIC_DEPS=ON -DLF_CUDA=OFF
# shellcheck disable=SC2086
cmake --build "$work" -j "$(nproc)" --target $targets
mkdir -p "$OUT"
for t in $targets; do
    cp "$work/fuzzers/$t" "$OUT/"
    cp "$src/fuzzers/$t.dict" "$OUT/$t.dict"
    cp "$src/fuzzers/$t.options" "$OUT/$t.options"
    rm -f "$OUT/${t}_seed_corpus.zip"
    (cd "$src/corpus/$t" && zip -q -j "$OUT/${t}_seed_corpus.zip" ./*)
done
