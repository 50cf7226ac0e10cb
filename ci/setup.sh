#!/bin/sh
# ci/setup.sh - installs what lossfuzz needs from Debian's packages (idempotent:
# quick when everything is there). Needs root or sudo for apt-get.
#   build:  cmake, gcc, pkg-config, jansson (JSON), zlib (.npz), cmocka (unit tests),
#           DLPack (the tensors of the kernel interface, include/lossfuzz/kernel.h)
#   checks: python3-torch + python3-numpy (the PyTorch conformance run, CPU)
#   fuzzing: clang + libclang-rt-14-dev (libFuzzer, sanitizers), afl++
# CUDA (nvcc) is not a Debian package here: it is used from /usr/local/cuda when present.
set -eu
packages="cmake make gcc pkg-config libjansson-dev libcmocka-dev zlib1g-dev libdlpack-dev python3 python3-torch python3-numpy clang libclang-rt-14-dev afl++"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "setup: all packages present"
    exit 0
fi
echo "setup: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "setup: done"
