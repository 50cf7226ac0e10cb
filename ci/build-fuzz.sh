#!/bin/sh
# ci/build-fuzz.sh ENGINE [--sanitize] [--mutant NAME] [--cuda] [--check-only]
#   ENGINE: libfuzzer (clang -fsanitize=fuzzer), afl (afl-clang-fast, persistent
#   mode with shared-memory test cases via libAFLDriver), replay (gcc, no engine).
# Builds the fuzz targets and lossfuzz into build-fuzz/<engine>[-asan][-<mutant>]
# and prints that directory on the last line ($LF_FUZZ_BUILD, relative to the
# checkout, names another folder than build-fuzz: one user's builds stay apart
# from another's). --mutant builds a planted bug
# (kernels/lf_mutants.h). The AFL++ custom mutators come from the replay build.
# --cuda (replay only) compiles the kernels with nvcc too, into build-fuzz/
# replay[-MUTANT]-cuda: the lossfuzz there is the CUDA worker of a campaign. A
# fuzzing engine's build never links CUDA: its process never touches the GPU.
# --check-only (replay only): a build that checks an input rather than fuzzes -
# lossfuzz and replay_fuzz_json at -O0, about 5 s here against 9 s at -O1 (ci/mutants.sh
# builds every planted bug so) - into build-fuzz/replay[-asan][-MUTANT]-check; with ninja, every MUTANT
# shares build-fuzz/replay[-asan]-mutant-check.
set -eu
cd "$(dirname "$0")/.."
engine=${1:?usage: ci/build-fuzz.sh libfuzzer|afl|replay [--sanitize] [--mutant NAME] [--cuda] [--check-only]}
shift
sanitize=OFF mutant="" cuda=OFF check_only=OFF
while [ $# -gt 0 ]; do
    case $1 in
    --sanitize) sanitize=ON ;;
    --mutant) mutant=$2; shift ;;
    --cuda) cuda=ON ;;
    --check-only) check_only=ON ;;
    *) echo "build-fuzz: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
case $engine in
libfuzzer) cc=clang cmake_engine=libfuzzer ;;
afl) cc=afl-clang-fast cmake_engine=afl ;;
replay) cc=gcc cmake_engine=none ;;
*) echo "build-fuzz: engine must be libfuzzer, afl or replay" >&2; exit 2 ;;
esac
root=${LF_FUZZ_BUILD:-build-fuzz}
mkdir -p "$root"
dir=$root/$engine
[ $sanitize = OFF ] || dir=$dir-asan
[ -z "$mutant" ] || dir=$dir-$mutant
if [ $cuda = ON ]; then
    [ $engine = replay ] && [ $sanitize = OFF ] ||
        { echo "build-fuzz: --cuda builds the CUDA workers: replay, without --sanitize" >&2; exit 2; }
    dir=$dir-cuda
fi
fuzz_targets=$(ci/targets.sh | tr '\n' ' ')
# No $cc here (a GPU machine has no clang): a build made elsewhere and carried
# in (docs/gpu-machine.md) is used as it is, when it holds every fuzz target.
if ! command -v "$cc" >/dev/null; then
    for t in $fuzz_targets; do
        [ $engine = replay ] && t=replay_$t
        [ -x "$dir/fuzzers/$t" ] || { echo "build-fuzz: $cc not found (ci/setup.sh installs it), and no carried build in $dir" >&2; exit 2; }
    done
    echo "build-fuzz: $cc not found: using the build carried in $dir as it is" >&2
    echo "$dir"
    exit 0
fi
targets="$fuzz_targets lossfuzz"
# shellcheck disable=SC2046
[ $engine != replay ] || targets="$(printf 'replay_%s ' $fuzz_targets)lossfuzz $(printf 'lf_afl_mutator_%s ' $(ci/targets.sh --byte-format))"
build_type="-DCMAKE_BUILD_TYPE=Release"
if [ $check_only = ON ]; then
    [ $engine = replay ] && [ $cuda = OFF ] || { echo "build-fuzz: --check-only is a replay build without --cuda" >&2; exit 2; }
    dir=$dir-check targets="replay_fuzz_json lossfuzz"
    build_type="-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0"
    # Every planted bug in one folder, by Ninja (below), which rebuilds only what a changed define reaches (3 files)
    if [ -n "$mutant" ] && command -v ninja >/dev/null; then
        dir=${dir%-"$mutant"-check}-mutant-check
    fi
fi
# A new folder is Ninja's where it is installed: ci/fuzz.sh builds before each campaign, and Ninja's no-op
# build takes 0.1 s against Make's 4 s here. A folder made before keeps its generator (CMake refuses another).
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    build_type="$build_type -G Ninja"
fi
# shellcheck disable=SC2086
CC=$cc cmake -S . -B "$dir" $build_type -DLF_FUZZ_ENGINE=$cmake_engine -DLF_SANITIZE=$sanitize \
    -DLF_CUDA=$cuda -DLF_MUTANT="$mutant" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log" >&2; exit 1; }
# shellcheck disable=SC2086
cmake --build "$dir" -j "$(nproc)" --target $targets >"$dir.build.log" 2>&1 || { tail -30 "$dir.build.log" >&2; exit 1; }
echo "$dir"
