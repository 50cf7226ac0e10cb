#!/bin/sh
# ci/build.sh [--sanitize] - configures and builds into build/ (or build-asan/
# with ASan + UBSan). The CUDA kernels are compiled too when nvcc is found
# ($LF_CUDA, when set: AUTO, ON or OFF, as CMake's LF_CUDA).
set -eu
cd "$(dirname "$0")/.."
dir=build
flags=""
case ${1:-} in
--sanitize)
    dir=build-asan
    flags="-DLF_SANITIZE=ON"
    ;;
"") ;;
*)
    echo "usage: ci/build.sh [--sanitize]" >&2
    exit 2
    ;;
esac
# shellcheck disable=SC2086
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo $flags ${LF_CUDA:+-DLF_CUDA=$LF_CUDA} >/dev/null
cmake --build "$dir" -j "$(nproc)"
echo "built: $dir/lossfuzz"
